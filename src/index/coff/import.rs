//! Imports: short import members (`X` and `__imp_X` with their DLL), and long-form import objects
//! (GNU dlltool, Wine), recognised from the symbol tables of the whole archive.

use object::read::coff::{ImportFile, ImportType};

use super::super::store::{NameMap, RecordKind, Span};
use super::super::Machine;
use super::object_file::AllFacts;
use super::reader::{ArchiveReader, Seen};

impl<'a> ArchiveReader<'a> {
    /// Adds the symbols of one short import member: `X` for code, and `__imp_X` always.
    pub(super) fn read_import(&mut self, member: u32, name: &'a [u8], bytes: &'a [u8]) -> Seen {
        let import = match ImportFile::parse(bytes) {
            Ok(import) => import,
            Err(error) => {
                let message = format!("bad import member: {}", error.to_string().to_lowercase());
                self.warn(name, message);
                return Seen::Skipped;
            }
        };
        let machine = Machine::from_coff(u16::from_le_bytes([bytes[6], bytes[7]]));
        self.parts.info.import_members += 1;
        self.add_machine(machine);
        if self.dlls.last() != Some(&import.dll()) {
            self.dlls.push(import.dll());
        }
        let symbol = import.symbol();
        let code =
            (import.import_type() == ImportType::Code).then(|| self.parts.span(self.data, symbol));
        let imp = self.parts.arena_span(&[b"__imp_", symbol]);
        for span in code.into_iter().chain([imp]) {
            self.push(
                span,
                Span::default(),
                member,
                RecordKind::ShortImport,
                machine,
            );
        }
        Seen::Import
    }

    /// Reads every object's symbol table, recognising long-form import objects: a member defining
    /// `__imp_X` in `.idata$5`/`.idata$4` is an import of `X`; its DLL is the `.idata$7` string that
    /// a symbol it references (dlltool `_head_*` → `*_iname`, directly or one step further) points at.
    pub(super) fn finish_from_symbols(&mut self) {
        let objects = std::mem::take(&mut self.objects);
        let mut all = AllFacts::default();
        all.ends.reserve(objects.len());
        for object in &objects {
            if let Err(reason) = all.push(object.bytes) {
                // The header parsed in the walk, so this is a broken symbol table.
                self.warn_object(object, format!("bad object: {reason}"));
            }
        }
        // Only names that some object references can lead to a DLL: index just those.
        let mut idata7: NameMap<&[u8], &[u8]> = NameMap::default();
        let mut referenced: NameMap<&[u8], ()> = NameMap::default();
        let mut references: NameMap<&[u8], &[&[u8]]> = NameMap::default();
        if self.long_form {
            for &(name, dll) in &all.facts.idata7_strings {
                idata7.insert(name, dll);
            }
            for &name in &all.facts.undefined {
                referenced.insert(name, ());
            }
            for number in 0..objects.len() {
                let (defined, _, undefined, _) = all.get(number);
                if !undefined.is_empty() {
                    for &(name, _) in defined {
                        if referenced.contains_key(name) {
                            references.insert(name, undefined);
                        }
                    }
                }
            }
        }
        let dll_of = |undefined: &[&[u8]]| -> Option<&[u8]> {
            for reference in undefined {
                if let Some(dll) = idata7.get(reference) {
                    return Some(dll);
                }
                if let Some(further) = references.get(reference) {
                    if let Some(dll) = further.iter().find_map(|r| idata7.get(r)) {
                        return Some(dll);
                    }
                }
            }
            None
        };
        // Consecutive import objects reference the same head: remember the last answer.
        type Answer<'s, 'd> = (&'s [&'d [u8]], Option<&'d [u8]>);
        let mut last: Option<Answer<'_, 'a>> = None;
        for (number, object) in objects.iter().enumerate() {
            let machine = object.machine;
            let (defined, aliases, undefined, _) = all.get(number);
            let imported: Vec<&[u8]> = defined
                .iter()
                .filter(|(name, section)| {
                    name.starts_with(b"__imp_")
                        && (*section == b".idata$5" || *section == b".idata$4")
                })
                .map(|(name, _)| &name[b"__imp_".len()..])
                .collect();
            let dll = if imported.is_empty() {
                Span::default()
            } else {
                self.parts.info.import_members += 1;
                let found = match last {
                    Some((previous, dll)) if previous == undefined => dll,
                    _ => dll_of(undefined),
                };
                last = Some((undefined, found));
                match found {
                    Some(dll) => {
                        if self.dlls.last() != Some(&dll) {
                            self.dlls.push(dll);
                        }
                        self.parts.span(self.data, dll)
                    }
                    None => Span::default(),
                }
            };
            for &(name, section) in defined {
                let kind = if let Some(plain) = name.strip_prefix(b"__imp_") {
                    if imported.contains(&plain) {
                        let code = defined
                            .iter()
                            .any(|(other, s)| *other == plain && s.starts_with(b".text"));
                        if code {
                            RecordKind::LongImportCode
                        } else {
                            RecordKind::LongImportData
                        }
                    } else {
                        RecordKind::Defined
                    }
                } else if imported.contains(&name) && section.starts_with(b".text") {
                    RecordKind::LongImportCode
                } else {
                    RecordKind::Defined
                };
                let span = self.parts.span(self.data, name);
                let detail = if kind == RecordKind::Defined {
                    Span::default()
                } else {
                    dll
                };
                self.push(span, detail, object.member, kind, machine);
            }
            for &(name, target) in aliases {
                let name = self.parts.span(self.data, name);
                let target = self.parts.span(self.data, target);
                self.push(name, target, object.member, RecordKind::Alias, machine);
            }
            self.push_alternate_names(object);
        }
    }
}
