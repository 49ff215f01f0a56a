//! The state of reading one archive or object: members, object headers, records, and the two ways
//! of finishing (from the symbol map, or from every object's symbol table).

use std::path::Path;

use object::pe;

use super::super::store::{FileParts, Member, Record, RecordKind, Span};
use super::super::{text, FileFormat, IndexWarning, Machine};
use super::directives::{parse_directives, Directive};
use super::member::{classify, offset_of, MemberKind};
use super::object_file::{read_header, read_member_symbols, ObjectFacts};

/// An object member seen by the walk.
pub(super) struct ObjectMember<'a> {
    pub(super) member: u32,
    pub(super) bytes: &'a [u8],
    pub(super) machine: Machine,
    /// `/alternatename` pairs of its `.drectve`.
    pub(super) alternate_names: Vec<(&'a [u8], &'a [u8])>,
}

/// What the member walk found a member to be (for matching symbol map entries).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Seen {
    Import,
    /// An object member: its number in `ArchiveReader::objects`.
    Object(u32),
    /// Unreadable (`/GL`, bitcode) or broken: its symbols are not indexed.
    Skipped,
}

/// State of reading one archive (or standalone object).
pub(super) struct ArchiveReader<'a> {
    pub(super) path: &'a Path,
    pub(super) data: &'a [u8],
    pub(super) parts: FileParts,
    pub(super) objects: Vec<ObjectMember<'a>>,
    /// Per member: its header offset (for the symbol map) and what it is.
    pub(super) seen: Vec<(u32, Seen)>,
    /// DLLs of import members, deduplicated when consecutive.
    pub(super) dlls: Vec<&'a [u8]>,
    /// Whether some object has `.idata$N` sections: long-form import objects need the symbol
    /// tables of the whole archive.
    pub(super) long_form: bool,
}

impl<'a> ArchiveReader<'a> {
    pub(super) fn new(path: &'a Path, data: &'a [u8], format: FileFormat) -> ArchiveReader<'a> {
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

    pub(super) fn warn(&mut self, member: &[u8], message: String) {
        self.parts
            .warnings
            .push(IndexWarning::member(self.path, &text(member), message));
    }

    pub(super) fn add_machine(&mut self, machine: Machine) {
        if !self.parts.info.machines.contains(&machine) {
            self.parts.info.machines.push(machine);
        }
    }

    pub(super) fn push(
        &mut self,
        name: Span,
        detail: Span,
        member: u32,
        kind: RecordKind,
        machine: Machine,
    ) {
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
    pub(super) fn read_member(&mut self, header_offset: u32, name: &'a [u8], bytes: &'a [u8]) {
        let member_name = self.parts.span(self.data, name);
        let member = self.parts.add_member(Member {
            name: member_name,
            start: offset_of(self.data, bytes),
            len: bytes.len() as u32,
        });
        let seen = self.classify_member(member, name, bytes);
        self.seen.push((header_offset, seen));
    }

    pub(super) fn classify_member(&mut self, member: u32, name: &'a [u8], bytes: &'a [u8]) -> Seen {
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

    /// Takes the definitions of object members from the symbol map (`entries` in map order):
    /// per member in member order, its map entries, then its `/alternatename`s.
    pub(super) fn finish_from_map(&mut self, mut entries: Vec<(u32, &'a [u8], u64, bool)>) {
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
    pub(super) fn push_symbol_table(&mut self, object: &ObjectMember<'a>) {
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

    pub(super) fn warn_object(&mut self, object: &ObjectMember<'a>, message: String) {
        let name = self
            .parts
            .members
            .get(object.member as usize)
            .map(|m| self.parts.str(self.data, m.name).as_bytes().to_vec())
            .unwrap_or_default();
        self.warn(&name, message);
    }

    pub(super) fn push_alternate_names(&mut self, object: &ObjectMember<'a>) {
        for &(from, to) in &object.alternate_names {
            let from = self.parts.span(self.data, from);
            let to = self.parts.span(self.data, to);
            self.push(from, to, object.member, RecordKind::Alias, object.machine);
        }
    }

    /// Sorts and deduplicates the summary lists and counts.
    pub(super) fn finish(mut self) -> FileParts {
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
