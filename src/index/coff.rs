//! COFF reader: archives (MSVC with two linker members, LLVM/mingw with one), short import members,
//! long-form import objects (GNU dlltool, Wine), regular objects with COMDATs, weak externals,
//! `/alternatename` and `.drectve` `/DEFAULTLIB`, and members whose symbols cannot be read (`/GL`
//! LTCG objects, LLVM bitcode). Built on the `object` crate; nothing from it leaves this module.
//!
//! What is read, and why (read only what answers the question):
//! - every member header, and the 20-byte header and strings of every short import member:
//!   umbrella import libraries such as `windows.0.53.0.lib` list one function under several DLLs
//!   and the symbol map names only one of them (docs/RULES.md §10);
//! - the COFF header, section table and `.drectve` of every object member (machine,
//!   `/DEFAULTLIB`, `/alternatename`, and whether it is a long-form import object);
//! - the symbol map (first linker member, in member order) for which object member defines what.
//!   Object symbol tables are read only when the map is missing or does not match the members, when
//!   long-form import objects need their `.idata$N` cross-references, or on lookup (to tell a
//!   weak external from a definition).
//!
//! Names are stored as byte ranges of the file ([`FileParts::span`]); nothing is copied except
//! the `__imp_` names of short import members, which no file stores contiguously.

use std::path::Path;

use object::pe;
use object::read::archive::ArchiveFile;
use object::read::coff::{CoffFile, CoffHeader, ImportFile, ImportType, Symbol};

use super::store::{self, FileParts, Member, NameMap, Record, RecordKind, Span};
use super::{text, FileFormat, IndexError, IndexWarning, Machine};

/// What one member turned out to be.
enum MemberKind {
    /// A short import member (`00 00 FF FF`, version 0).
    Import,
    /// A regular COFF object.
    Object,
    /// A bigobj COFF object (`/bigobj`).
    BigObject,
    /// A `/GL` (LTCG) object: an anonymous object header with a class id other than bigobj.
    Ltcg,
    /// LLVM bitcode (`-flto`), raw or in a wrapper.
    Bitcode,
}

/// Classifies member data by its first bytes.
fn classify(data: &[u8]) -> Option<MemberKind> {
    if data.starts_with(b"BC\xC0\xDE") || data.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]) {
        return Some(MemberKind::Bitcode);
    }
    if data.len() < 20 {
        return None;
    }
    let sig1 = u16::from_le_bytes([data[0], data[1]]);
    let sig2 = u16::from_le_bytes([data[2], data[3]]);
    if sig1 == 0 && sig2 == 0xFFFF {
        let version = u16::from_le_bytes([data[4], data[5]]);
        if version == 0 {
            return Some(MemberKind::Import);
        }
        if data.len() >= 28 && data[12..28] == pe::ANON_OBJECT_HEADER_BIGOBJ_CLASS_ID.0 {
            return Some(MemberKind::BigObject);
        }
        return Some(MemberKind::Ltcg);
    }
    Some(MemberKind::Object)
}

/// Whether a whole file looks like a COFF object or a short import object.
pub(crate) fn looks_like_object(data: &[u8]) -> bool {
    if data.len() < 20 {
        return false;
    }
    let machine = u16::from_le_bytes([data[0], data[1]]);
    let sig2 = u16::from_le_bytes([data[2], data[3]]);
    (machine == 0 && sig2 == 0xFFFF)
        || matches!(
            Machine::from_coff(machine),
            Machine::X64 | Machine::X86 | Machine::Arm64 | Machine::Arm64ec | Machine::Arm
        )
        || (machine == 0 && data.len() >= 20)
}

/// What the symbol table of one object says.
#[derive(Default)]
struct ObjectFacts<'a> {
    /// External definitions: name, section name.
    defined: Vec<(&'a [u8], &'a [u8])>,
    /// Weak externals: name, the default it resolves to.
    aliases: Vec<(&'a [u8], &'a [u8])>,
    undefined: Vec<&'a [u8]>,
    /// For a symbol defined in `.idata$7`: the NUL-terminated string there (dlltool's DLL name).
    idata7_strings: Vec<(&'a [u8], &'a [u8])>,
}

/// Reads the symbol table of a regular or bigobj COFF object.
fn read_symbols<'a, Coff: CoffHeader>(
    data: &'a [u8],
    facts: &mut ObjectFacts<'a>,
) -> Result<(), String> {
    let file = CoffFile::<&[u8], Coff>::parse(data).map_err(|e| e.to_string().to_lowercase())?;
    let sections = file.coff_section_table();
    let symbols = file.coff_symbol_table();
    let strings = symbols.strings();
    let section_name = |number: i32| -> &'a [u8] {
        if number <= 0 {
            return b"";
        }
        sections
            .section(object::SectionIndex(number as usize))
            .ok()
            .and_then(|s| s.name(strings).ok())
            .unwrap_or(b"")
    };
    for (index, symbol) in symbols.iter() {
        let class = symbol.storage_class();
        let section = symbol.section_number().0;
        if class == pe::IMAGE_SYM_CLASS_WEAK_EXTERNAL
            || (class == pe::IMAGE_SYM_CLASS_EXTERNAL
                && section == 0
                && symbol.value() == 0
                && symbol.number_of_aux_symbols() > 0)
        {
            let Ok(name) = symbol.name(strings) else {
                continue;
            };
            let target = symbols
                .aux_weak_external(index)
                .ok()
                .and_then(|aux| symbols.symbol(aux.default_symbol()).ok())
                .and_then(|target| target.name(strings).ok())
                .unwrap_or(b"");
            facts.aliases.push((name, target));
        } else if class == pe::IMAGE_SYM_CLASS_EXTERNAL {
            let Ok(name) = symbol.name(strings) else {
                continue;
            };
            if section == 0 && symbol.value() == 0 {
                facts.undefined.push(name);
            } else {
                let section_text = section_name(section);
                if section_text == b".idata$7" {
                    let value = symbol.value() as usize;
                    let string = sections
                        .section(object::SectionIndex(section as usize))
                        .ok()
                        .and_then(|s| s.coff_data(data).ok())
                        .and_then(|bytes| bytes.get(value..))
                        .map(|bytes| {
                            let end = memchr::memchr(0, bytes).unwrap_or(bytes.len());
                            &bytes[..end]
                        });
                    if let Some(string) = string.filter(|s| !s.is_empty()) {
                        facts.idata7_strings.push((name, string));
                    }
                }
                facts.defined.push((name, section_text));
            }
        }
    }
    Ok(())
}

/// Reads the symbol table of an object member of any kind (none for unreadable ones).
fn read_member_symbols<'a>(data: &'a [u8], facts: &mut ObjectFacts<'a>) -> Result<(), String> {
    match classify(data) {
        Some(MemberKind::Object) => read_symbols::<pe::ImageFileHeader>(data, facts),
        Some(MemberKind::BigObject) => read_symbols::<pe::AnonObjectHeaderBigobj>(data, facts),
        _ => Ok(()),
    }
}

/// The facts of many objects in shared vectors (one allocation each, not four per object), and
/// where each object's part ends.
#[derive(Default)]
struct AllFacts<'a> {
    facts: ObjectFacts<'a>,
    /// Per object: end of its defined, aliases, undefined, `.idata$7` entries.
    ends: Vec<[usize; 4]>,
}

impl<'a> AllFacts<'a> {
    fn push(&mut self, data: &'a [u8]) -> Result<(), String> {
        let result = read_member_symbols(data, &mut self.facts);
        if result.is_err() {
            // Nothing of a broken object counts.
            let [defined, aliases, undefined, idata7] = self.ends.last().copied().unwrap_or([0; 4]);
            self.facts.defined.truncate(defined);
            self.facts.aliases.truncate(aliases);
            self.facts.undefined.truncate(undefined);
            self.facts.idata7_strings.truncate(idata7);
        }
        self.ends.push([
            self.facts.defined.len(),
            self.facts.aliases.len(),
            self.facts.undefined.len(),
            self.facts.idata7_strings.len(),
        ]);
        result
    }

    /// Object `number`'s (defined, aliases, undefined, `.idata$7` strings).
    #[allow(clippy::type_complexity)]
    fn get(
        &self,
        number: usize,
    ) -> (
        &[(&'a [u8], &'a [u8])],
        &[(&'a [u8], &'a [u8])],
        &[&'a [u8]],
        &[(&'a [u8], &'a [u8])],
    ) {
        let start = number
            .checked_sub(1)
            .and_then(|previous| self.ends.get(previous))
            .copied()
            .unwrap_or([0; 4]);
        let end = self.ends.get(number).copied().unwrap_or(start);
        let facts = &self.facts;
        (
            &facts.defined[start[0]..end[0]],
            &facts.aliases[start[1]..end[1]],
            &facts.undefined[start[2]..end[2]],
            &facts.idata7_strings[start[3]..end[3]],
        )
    }
}

/// The weak externals (name, default) of an object member, for a lookup that needs to know
/// whether a name the symbol map lists is an alias.
pub(crate) fn weak_externals(data: &[u8]) -> Vec<(String, String)> {
    let mut facts = ObjectFacts::default();
    // A member that broke since the build gives the aliases read before the damage.
    let _ = read_member_symbols(data, &mut facts);
    facts
        .aliases
        .iter()
        .map(|(name, target)| (text(name), text(target)))
        .collect()
}

/// One `.drectve` option the index cares about.
#[derive(Debug, PartialEq, Eq)]
enum Directive<'a> {
    DefaultLib(&'a [u8]),
    AlternateName(&'a [u8], &'a [u8]),
}

fn trim_quotes(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|&b| b != b'"').unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| b != b'"')
        .map_or(start, |e| e + 1);
    &bytes[start..end.max(start)]
}

/// Reads `/DEFAULTLIB:` and `/ALTERNATENAME:` from a `.drectve` section (options are
/// case-insensitive, start with `/` or `-`, may be quoted, and are separated by whitespace or NUL
/// outside quotes).
fn parse_directives<'a>(bytes: &'a [u8], mut found: impl FnMut(Directive<'a>)) {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at].is_ascii_whitespace() || bytes[at] == 0 {
            at += 1;
            continue;
        }
        let start = at;
        let mut quoted = false;
        while at < bytes.len() {
            let byte = bytes[at];
            if byte == b'"' {
                quoted = !quoted;
            } else if !quoted && (byte.is_ascii_whitespace() || byte == 0) {
                break;
            }
            at += 1;
        }
        let token = &bytes[start..at];
        let Some(option) = token
            .strip_prefix(b"/")
            .or_else(|| token.strip_prefix(b"-"))
        else {
            continue;
        };
        let Some(colon) = memchr::memchr(b':', option) else {
            continue;
        };
        let (key, value) = (&option[..colon], trim_quotes(&option[colon + 1..]));
        if key.eq_ignore_ascii_case(b"defaultlib") {
            if !value.is_empty() {
                found(Directive::DefaultLib(value));
            }
        } else if key.eq_ignore_ascii_case(b"alternatename") {
            if let Some(equal) = memchr::memchr(b'=', value) {
                found(Directive::AlternateName(
                    trim_quotes(&value[..equal]),
                    trim_quotes(&value[equal + 1..]),
                ));
            }
        }
    }
}

/// An object member seen by the walk.
struct ObjectMember<'a> {
    member: u32,
    bytes: &'a [u8],
    machine: Machine,
    /// `/alternatename` pairs of its `.drectve`.
    alternate_names: Vec<(&'a [u8], &'a [u8])>,
}

/// What the member walk found a member to be (for matching symbol map entries).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Seen {
    Import,
    /// An object member: its number in `ArchiveReader::objects`.
    Object(u32),
    /// Unreadable (`/GL`, bitcode) or broken: its symbols are not indexed.
    Skipped,
}

/// State of reading one archive (or standalone object).
struct ArchiveReader<'a> {
    path: &'a Path,
    data: &'a [u8],
    parts: FileParts,
    objects: Vec<ObjectMember<'a>>,
    /// Per member: its header offset (for the symbol map) and what it is.
    seen: Vec<(u32, Seen)>,
    /// DLLs of import members, deduplicated when consecutive.
    dlls: Vec<&'a [u8]>,
    /// Whether some object has `.idata$N` sections: long-form import objects need the symbol
    /// tables of the whole archive.
    long_form: bool,
}

impl<'a> ArchiveReader<'a> {
    fn new(path: &'a Path, data: &'a [u8], format: FileFormat) -> ArchiveReader<'a> {
        ArchiveReader {
            path,
            data,
            parts: FileParts::new(path, format),
            objects: Vec::new(),
            seen: Vec::new(),
            dlls: Vec::new(),
            long_form: false,
        }
    }

    fn warn(&mut self, member: &[u8], message: String) {
        self.parts
            .warnings
            .push(IndexWarning::member(self.path, &text(member), message));
    }

    fn add_machine(&mut self, machine: Machine) {
        if !self.parts.info.machines.contains(&machine) {
            self.parts.info.machines.push(machine);
        }
    }

    fn push(&mut self, name: Span, detail: Span, member: u32, kind: RecordKind, machine: Machine) {
        self.parts.push(
            self.data,
            Record {
                name,
                detail,
                member,
                kind,
                machine,
            },
        );
    }

    /// Reads one member: import members now, objects' headers now and symbols later.
    fn read_member(&mut self, header_offset: u32, name: &'a [u8], bytes: &'a [u8]) {
        let member_name = self.parts.span(self.data, name);
        let member = self.parts.add_member(Member {
            name: member_name,
            start: offset_of(self.data, bytes),
            len: bytes.len() as u32,
        });
        let seen = self.classify_member(member, name, bytes);
        self.seen.push((header_offset, seen));
    }

    fn classify_member(&mut self, member: u32, name: &'a [u8], bytes: &'a [u8]) -> Seen {
        let kind = match classify(bytes) {
            None => {
                let message = format!("member too short for a coff header ({} bytes)", bytes.len());
                self.warn(name, message);
                return Seen::Skipped;
            }
            Some(MemberKind::Ltcg | MemberKind::Bitcode) => {
                self.parts.info.unreadable_members += 1;
                return Seen::Skipped;
            }
            Some(MemberKind::Import) => return self.read_import(member, name, bytes),
            Some(kind) => kind,
        };
        let header = match kind {
            MemberKind::BigObject => read_header::<pe::AnonObjectHeaderBigobj>(bytes),
            _ => read_header::<pe::ImageFileHeader>(bytes),
        };
        let header = match header {
            Ok(header) => header,
            Err(reason) => {
                self.warn(name, format!("bad object: {reason}"));
                return Seen::Skipped;
            }
        };
        let machine = header.machine;
        self.add_machine(machine);
        self.long_form |= header.idata;
        let mut alternate_names = Vec::new();
        let default_libs = &mut self.parts.info.default_libs;
        for directives in header.directives {
            parse_directives(directives, |directive| match directive {
                Directive::DefaultLib(library) => {
                    let library = text(library);
                    if !default_libs
                        .iter()
                        .any(|l| l.eq_ignore_ascii_case(&library))
                    {
                        default_libs.push(library);
                    }
                }
                Directive::AlternateName(from, to) => alternate_names.push((from, to)),
            });
        }
        self.objects.push(ObjectMember {
            member,
            bytes,
            machine,
            alternate_names,
        });
        Seen::Object(self.objects.len() as u32 - 1)
    }

    /// Adds the symbols of one short import member: `X` for code, and `__imp_X` always.
    fn read_import(&mut self, member: u32, name: &'a [u8], bytes: &'a [u8]) -> Seen {
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

    /// Takes the definitions of object members from the symbol map (`entries` in map order):
    /// per member in member order, its map entries, then its `/alternatename`s.
    fn finish_from_map(&mut self, mut entries: Vec<(u32, &'a [u8], u64, bool)>) {
        if !entries.is_sorted_by_key(|entry| entry.0) {
            entries.sort_by_key(|entry| entry.0);
        }
        self.parts.records.reserve(entries.len());
        self.parts.hashes.reserve(entries.len());
        let objects = std::mem::take(&mut self.objects);
        let mut next = 0;
        for (number, object) in objects.iter().enumerate() {
            let first = next;
            while let Some(&(_, name, hash, ascii)) =
                entries.get(next).filter(|entry| entry.0 as usize == number)
            {
                let record = Record {
                    name: Span::default(),
                    detail: Span::default(),
                    member: object.member,
                    kind: RecordKind::MapSymbol,
                    machine: object.machine,
                };
                if ascii {
                    let name = self.parts.ascii_span(self.data, name);
                    self.parts.push_hashed(Record { name, ..record }, hash);
                } else {
                    // Not ASCII: checked, and copied lossily if not UTF-8 (rehashed then).
                    let name = self.parts.span(self.data, name);
                    self.parts.push(self.data, Record { name, ..record });
                }
                next += 1;
            }
            if next == first {
                // An object the map lists nothing for: either it defines nothing or the map is
                // stale or damaged. Its symbol table says which.
                self.push_symbol_table(object);
            }
            self.push_alternate_names(object);
        }
    }

    /// Adds the definitions and weak externals of one object's symbol table (no import objects).
    fn push_symbol_table(&mut self, object: &ObjectMember<'a>) {
        let mut facts = ObjectFacts::default();
        if let Err(reason) = read_member_symbols(object.bytes, &mut facts) {
            self.warn_object(object, format!("bad object: {reason}"));
            return;
        }
        for &(name, _) in &facts.defined {
            let name = self.parts.span(self.data, name);
            let kind = RecordKind::Defined;
            self.push(name, Span::default(), object.member, kind, object.machine);
        }
        for &(name, target) in &facts.aliases {
            let name = self.parts.span(self.data, name);
            let target = self.parts.span(self.data, target);
            self.push(
                name,
                target,
                object.member,
                RecordKind::Alias,
                object.machine,
            );
        }
    }

    fn warn_object(&mut self, object: &ObjectMember<'a>, message: String) {
        let name = self
            .parts
            .members
            .get(object.member as usize)
            .map(|m| self.parts.str(self.data, m.name).as_bytes().to_vec())
            .unwrap_or_default();
        self.warn(&name, message);
    }

    fn push_alternate_names(&mut self, object: &ObjectMember<'a>) {
        for &(from, to) in &object.alternate_names {
            let from = self.parts.span(self.data, from);
            let to = self.parts.span(self.data, to);
            self.push(from, to, object.member, RecordKind::Alias, object.machine);
        }
    }

    /// Reads every object's symbol table, recognising long-form import objects: a member defining
    /// `__imp_X` in `.idata$5`/`.idata$4` is an import of `X`; its DLL is the `.idata$7` string that
    /// a symbol it references (dlltool `_head_*` → `*_iname`, directly or one step further) points at.
    fn finish_from_symbols(&mut self) {
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

    /// Sorts and deduplicates the summary lists and counts.
    fn finish(mut self) -> FileParts {
        let mut dlls = std::mem::take(&mut self.dlls);
        dlls.sort_unstable();
        dlls.dedup();
        self.parts.info.dlls = dlls.into_iter().map(text).collect();
        self.parts.info.machines.sort();
        self.parts.info.dlls.sort();
        self.parts.info.dlls.dedup();
        self.parts.info.symbols = self.parts.records.len();
        self.parts.info.warnings = self.parts.warnings.len();
        self.parts
    }
}

/// The offset of a member's bytes in the file (0 when they are not part of it).
fn offset_of(data: &[u8], bytes: &[u8]) -> u32 {
    (bytes.as_ptr() as usize)
        .checked_sub(data.as_ptr() as usize)
        .filter(|start| start + bytes.len() <= data.len())
        .and_then(|start| u32::try_from(start).ok())
        .unwrap_or(0)
}

/// What the header and section table of an object say.
struct ObjectHeader<'a> {
    machine: Machine,
    /// Whether it has `.idata$N` sections (a long-form import object, or its head or tail).
    idata: bool,
    /// The data of its `.drectve` sections.
    directives: Vec<&'a [u8]>,
}

/// Reads the header and section table of an object (and checks that its symbol table is where the
/// header says), without reading the symbols.
fn read_header<Coff: CoffHeader>(data: &[u8]) -> Result<ObjectHeader<'_>, String> {
    let file = CoffFile::<&[u8], Coff>::parse(data).map_err(|e| e.to_string().to_lowercase())?;
    let mut header = ObjectHeader {
        machine: Machine::from_coff(file.coff_header().machine().0),
        idata: false,
        directives: Vec::new(),
    };
    for section in file.coff_section_table().iter() {
        let name = section.raw_name();
        if name.starts_with(b".idata$") {
            header.idata = true;
        } else if name == b".drectve" {
            header.directives.extend(section.coff_data(data).ok());
        }
    }
    Ok(header)
}

/// The first linker member (`/`, big-endian offsets in member order, then NUL-terminated names),
/// if the archive starts with one; an error if it claims more bytes than the file has.
fn first_linker_member(data: &[u8]) -> Option<Result<&[u8], String>> {
    let header = data.get(8..68)?;
    if &header[..16] != b"/               " || &header[58..60] != b"`\n" {
        return None;
    }
    // Like `object` (and the linkers): the digits up to the first space.
    let digits = header[48..58].split(|&b| b == b' ').next().unwrap_or(&[]);
    let size = std::str::from_utf8(digits)
        .ok()
        .and_then(|size| size.parse::<usize>().ok());
    Some(match size {
        None => Err("unreadable size".to_string()),
        Some(size) => data
            .get(68..68usize.saturating_add(size))
            .ok_or_else(|| format!("{size} bytes do not fit in the file")),
    })
}

/// A first linker member: big-endian member offsets, then as many NUL-terminated names.
struct SymbolMap<'a> {
    offsets: &'a [u8],
    names: &'a [u8],
}

/// One symbol map entry: member header offset, name, name hash, whether the name is ASCII.
type MapEntry<'a> = (u32, &'a [u8], u64, bool);

impl<'a> SymbolMap<'a> {
    /// Splits a first linker member, or says why it is broken.
    fn parse(map: &'a [u8]) -> Result<SymbolMap<'a>, String> {
        let count = map
            .get(..4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or("too short for a symbol count")?;
        let offsets = count
            .checked_mul(4)
            .and_then(|length| map.get(4..4 + length))
            .ok_or_else(|| format!("{count} symbols do not fit in {} bytes", map.len()))?;
        Ok(SymbolMap {
            offsets,
            names: &map[4 + offsets.len()..],
        })
    }

    /// The number of entries (bounded by the member's size, so safe to allocate for).
    fn len(&self) -> usize {
        self.offsets.len() / 4
    }

    fn offsets(&self) -> impl Iterator<Item = u32> + 'a {
        self.offsets
            .chunks_exact(4)
            .map(|o| u32::from_be_bytes([o[0], o[1], o[2], o[3]]))
    }

    /// Whether there are as many names as offsets.
    fn names_complete(&self) -> bool {
        memchr::memchr_iter(0, self.names).take(self.len()).count() == self.len()
    }

    /// The entries, each name scanned and hashed in one pass.
    fn entries(&self) -> impl Iterator<Item = Result<MapEntry<'a>, &'static str>> + 'a {
        let mut names = self.names;
        self.offsets().map(move |offset| {
            let (length, hash, ascii) =
                store::scan_name(names).ok_or("missing archive symbol name")?;
            let name = &names[..length];
            names = &names[length + 1..];
            Ok((offset, name, hash, ascii))
        })
    }
}

/// Reads a COFF archive: every member header and import member, object headers, and the symbol
/// map for which object defines what (see the module documentation).
pub(crate) fn read_archive(path: &Path, data: &[u8]) -> Result<FileParts, IndexError> {
    if u32::try_from(data.len()).is_err() {
        return Err(IndexError::malformed(
            FileFormat::Archive,
            "archive larger than 4 gib",
        ));
    }
    let archive =
        ArchiveFile::parse(data).map_err(|e| IndexError::malformed(FileFormat::Archive, e))?;
    let mut reader = ArchiveReader::new(path, data, FileFormat::Archive);
    let mut previous: Option<&[u8]> = None;
    let mut walk_failed = false;
    for member in archive.members() {
        let member = match member {
            Ok(member) => member,
            Err(error) => {
                let reason = error.to_string().to_lowercase();
                let message = match previous {
                    Some(name) => format!(
                        "bad member header after {}: {reason}; rest skipped",
                        text(name)
                    ),
                    None => format!("bad first member header: {reason}; rest skipped"),
                };
                reader
                    .parts
                    .warnings
                    .push(IndexWarning::file(path, message));
                walk_failed = true;
                break;
            }
        };
        let name = member.name();
        reader.parts.info.members += 1;
        let header_offset = member.file_range().0.saturating_sub(60) as u32;
        match member.data(data) {
            Ok(bytes) => reader.read_member(header_offset, name, bytes),
            Err(error) => {
                reader.warn(name, error.to_string().to_lowercase());
                reader.parts.add_member(Member {
                    name: Span::default(),
                    start: 0,
                    len: 0,
                });
                reader.seen.push((header_offset, Seen::Skipped));
            }
        }
        previous = Some(name);
    }
    // After a failed walk the map may name members never reached: trust the members only.
    let map = match first_linker_member(data) {
        Some(map) if !walk_failed => Some(map.and_then(SymbolMap::parse)),
        _ => None,
    };
    let mut usable = Vec::new();
    let mut map_ok = map.is_some();
    let mut map_warning = |reader: &mut ArchiveReader<'_>, message: String| {
        reader
            .parts
            .warnings
            .push(IndexWarning::file(path, message));
        map_ok = false;
    };
    match map {
        Some(Ok(map)) if reader.objects.is_empty() || reader.long_form => {
            // Import members were all read: check the map is sound (the linker relies on it).
            if let Some(offset) = map.offsets().find(|&o| o as usize >= data.len()) {
                let message = format!("symbol map entry points outside the file (offset {offset})");
                map_warning(&mut reader, message);
            } else if !map.names_complete() {
                let message = "bad symbol map: missing archive symbol name".to_string();
                map_warning(&mut reader, message);
            }
        }
        Some(Ok(map)) => {
            usable.reserve(map.len());
            for entry in map.entries() {
                let (offset, name, hash, ascii) = match entry {
                    Ok(entry) => entry,
                    Err(reason) => {
                        map_warning(&mut reader, format!("bad symbol map: {reason}"));
                        break;
                    }
                };
                if offset as usize >= data.len() {
                    let message = format!(
                        "symbol map entry {} points outside the file (offset {offset})",
                        text(name)
                    );
                    map_warning(&mut reader, message);
                    break;
                }
                match reader.seen.binary_search_by_key(&offset, |(o, _)| *o) {
                    Ok(found) => {
                        if let Seen::Object(object) = reader.seen[found].1 {
                            usable.push((object, name, hash, ascii));
                        }
                    }
                    Err(_) => {
                        let message = format!(
                            "symbol map entry {} names offset {offset}, where no member starts; \
                             object symbols read from the members instead",
                            text(name)
                        );
                        map_warning(&mut reader, message);
                        break;
                    }
                }
            }
        }
        Some(Err(reason)) => map_warning(&mut reader, format!("bad symbol map: {reason}")),
        None => {}
    }
    if map_ok && !reader.long_form {
        reader.finish_from_map(usable);
    } else {
        reader.finish_from_symbols();
    }
    Ok(reader.finish())
}

/// Reads a standalone `.obj` (regular, bigobj, short import, or an unreadable `/GL` object).
pub(crate) fn read_object_file(path: &Path, data: &[u8]) -> Result<FileParts, IndexError> {
    if u32::try_from(data.len()).is_err() {
        return Err(IndexError::malformed(
            FileFormat::Object,
            "object larger than 4 gib",
        ));
    }
    let mut reader = ArchiveReader::new(path, data, FileFormat::Object);
    reader.parts.info.members = 1;
    if matches!(classify(data), Some(MemberKind::Import)) {
        reader.parts.info.format = FileFormat::ImportObject;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name_span = reader.parts.arena_span(&[name.as_bytes()]);
    let member = reader.parts.add_member(Member {
        name: name_span,
        start: 0,
        len: data.len() as u32,
    });
    reader.classify_member(member, name.as_bytes(), data);
    reader.finish_from_symbols();
    // A standalone object that fails to parse is a file-level problem.
    for warning in &mut reader.parts.warnings {
        warning.member = None;
    }
    Ok(reader.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn directives(bytes: &[u8]) -> Vec<Directive<'_>> {
        let mut found = Vec::new();
        parse_directives(bytes, |d| found.push(d));
        found
    }

    #[test]
    fn directives_are_split_and_read() {
        let found = directives(
            b"\xEF\xBB\xBF   /DEFAULTLIB:\"MSVCRT\" -defaultlib:oldnames /alternatename:_a=_b \
              /EXPORT:x \"/alternatename:\"\"c d\"=e\0/defaultlib:",
        );
        assert_eq!(
            found,
            [
                Directive::DefaultLib(b"MSVCRT"),
                Directive::DefaultLib(b"oldnames"),
                Directive::AlternateName(b"_a", b"_b"),
            ]
        );
        assert!(directives(b"").is_empty());
        assert!(directives(b"\"").is_empty());
        assert_eq!(trim_quotes(b"\"\""), b"");
        assert_eq!(trim_quotes(b"\"a\""), b"a");
    }

    #[test]
    fn classification_by_signature() {
        assert!(classify(b"BC\xC0\xDE1234").is_some_and(|k| matches!(k, MemberKind::Bitcode)));
        assert!(classify(&[0; 4]).is_none());
        let mut ltcg = vec![0u8; 64];
        ltcg[2] = 0xFF;
        ltcg[3] = 0xFF;
        ltcg[4] = 1;
        assert!(classify(&ltcg).is_some_and(|k| matches!(k, MemberKind::Ltcg)));
        ltcg[12..28].copy_from_slice(&pe::ANON_OBJECT_HEADER_BIGOBJ_CLASS_ID.0);
        assert!(classify(&ltcg).is_some_and(|k| matches!(k, MemberKind::BigObject)));
    }

    #[test]
    fn symbol_map_entries_are_bounded() {
        let mut map = 2u32.to_be_bytes().to_vec();
        map.extend(100u32.to_be_bytes());
        map.extend(200u32.to_be_bytes());
        map.extend(b"a\0bc\0");
        let entries = |map: &[u8]| -> Result<Vec<(u32, Vec<u8>)>, String> {
            let map = SymbolMap::parse(map)?;
            map.entries()
                .map(|e| e.map(|(offset, name, _, _)| (offset, name.to_vec())))
                .collect::<Result<_, _>>()
                .map_err(|e| e.to_string())
        };
        assert_eq!(
            entries(&map),
            Ok(vec![(100, b"a".to_vec()), (200, b"bc".to_vec())])
        );
        assert!(entries(&map[..map.len() - 1]).is_err());
        assert!(!SymbolMap::parse(&map[..map.len() - 1])
            .unwrap()
            .names_complete());
        let mut huge = u32::MAX.to_be_bytes().to_vec();
        huge.extend([0; 16]);
        assert!(SymbolMap::parse(&huge).is_err());
        assert!(SymbolMap::parse(b"\0\0").is_err());
    }
}
