//! Imports: short import members (`X` and `__imp_X` with their DLL), and long-form import objects
//! (GNU dlltool, Wine), recognised from the symbol tables of the whole archive.

use object::read::coff::{ImportFile, ImportType};

use super::super::store::{NameMap, RecordKind, Span};
use super::super::Machine;
use super::object_file::AllFacts;
use super::reader::{ArchiveReader, ObjectMember, Seen};

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
        let dll_names = DllNames::new(&all, objects.len(), self.long_form);
        // Consecutive import objects reference the same head: remember the last answer.
        let mut last: Option<Answer<'_, 'a>> = None;
        for (number, object) in objects.iter().enumerate() {
            let (defined, aliases, undefined, _) = all.get(number);
            let imported = imported_names(defined);
            let dll = if imported.is_empty() {
                Span::default()
            } else {
                self.import_dll(&dll_names, undefined, &mut last)
            };
            self.push_object_symbols(object, defined, aliases, &imported, dll);
        }
    }

    /// The DLL of a long-form import object that references `undefined`, as a span (empty when
    /// none is found); the object counts as an import member. `last` is the previous object's
    /// answer, reused when it referenced the same names.
    fn import_dll<'s>(
        &mut self,
        dll_names: &DllNames<'s, 'a>,
        undefined: &'s [&'a [u8]],
        last: &mut Option<Answer<'s, 'a>>,
    ) -> Span {
        self.parts.info.import_members += 1;
        let found = match *last {
            Some((previous, dll)) if previous == undefined => dll,
            _ => dll_names.dll_of(undefined),
        };
        *last = Some((undefined, found));
        match found {
            Some(dll) => {
                if self.dlls.last() != Some(&dll) {
                    self.dlls.push(dll);
                }
                self.parts.span(self.data, dll)
            }
            None => Span::default(),
        }
    }

    /// Adds an object's records: its definitions (those of the names it imports as long-form
    /// imports from `dll`), its weak externals and its `/ALTERNATENAME` directives.
    fn push_object_symbols(
        &mut self,
        object: &ObjectMember<'a>,
        defined: &[(&'a [u8], &'a [u8])],
        aliases: &[(&'a [u8], &'a [u8])],
        imported: &[&'a [u8]],
        dll: Span,
    ) {
        let machine = object.machine;
        for &(name, section) in defined {
            let kind = definition_kind(name, section, defined, imported);
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

/// An object's previous DLL answer: the names it referenced, and the DLL found for them.
type Answer<'s, 'd> = (&'s [&'d [u8]], Option<&'d [u8]>);

/// Where long-form import objects' DLL names are found: the `.idata$7` strings by the symbol
/// defining them, and, per defined name some object references, what its object references in
/// turn.
struct DllNames<'s, 'a> {
    idata7: NameMap<&'a [u8], &'a [u8]>,
    references: NameMap<&'a [u8], &'s [&'a [u8]]>,
}

impl<'s, 'a> DllNames<'s, 'a> {
    /// The names of `all`'s objects; nothing when no object has `.idata$N` sections.
    fn new(all: &'s AllFacts<'a>, objects: usize, long_form: bool) -> DllNames<'s, 'a> {
        // Only names that some object references can lead to a DLL: index just those.
        let mut idata7: NameMap<&[u8], &[u8]> = NameMap::default();
        let mut referenced: NameMap<&[u8], ()> = NameMap::default();
        let mut references: NameMap<&[u8], &[&[u8]]> = NameMap::default();
        if long_form {
            for &(name, dll) in &all.facts.idata7_strings {
                idata7.insert(name, dll);
            }
            for &name in &all.facts.undefined {
                referenced.insert(name, ());
            }
            for number in 0..objects {
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
        DllNames { idata7, references }
    }

    /// The DLL the first of `undefined` that leads to one points at, directly or one step further.
    fn dll_of(&self, undefined: &[&[u8]]) -> Option<&'a [u8]> {
        for reference in undefined {
            if let Some(&dll) = self.idata7.get(reference) {
                return Some(dll);
            }
            if let Some(further) = self.references.get(reference) {
                if let Some(&dll) = further.iter().find_map(|r| self.idata7.get(r)) {
                    return Some(dll);
                }
            }
        }
        None
    }
}

/// The names an object imports: `X` of each `__imp_X` it defines in `.idata$5` or `.idata$4`.
fn imported_names<'a>(defined: &[(&'a [u8], &[u8])]) -> Vec<&'a [u8]> {
    defined
        .iter()
        .filter(|(name, section)| {
            name.starts_with(b"__imp_") && (*section == b".idata$5" || *section == b".idata$4")
        })
        .map(|(name, _)| &name[b"__imp_".len()..])
        .collect()
}

/// The record kind of a definition: `__imp_X` of an imported `X` is a long-form import (of code
/// when the object also defines `X` in `.text`), `X` itself in `.text` a long-form code import;
/// anything else an ordinary definition.
fn definition_kind(
    name: &[u8],
    section: &[u8],
    defined: &[(&[u8], &[u8])],
    imported: &[&[u8]],
) -> RecordKind {
    if let Some(plain) = name.strip_prefix(b"__imp_") {
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
    }
}
