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

mod directives;
mod fallback;
mod import;
mod linker_member;
mod member;
pub(super) mod object_file;
mod reader;

use std::path::Path;

use object::read::archive::ArchiveFile;

use super::store::{FileParts, Member, Span};
use super::{text, FileFormat, IndexError, IndexWarning};
use linker_member::{first_linker_member, SymbolMap};
use member::{classify, MemberKind};
use reader::{ArchiveReader, Seen};

pub(crate) use member::looks_like_object;

/// Reads a COFF archive: every member header and import member, object headers, and the symbol
/// map for which object defines what (see the module documentation).
pub(crate) fn read_archive(path: &Path, data: &[u8]) -> Result<FileParts, IndexError> {
    if u32::try_from(data.len()).is_err() {
        return Err(IndexError::malformed(
            FileFormat::Archive,
            "archive larger than 4 gib",
        ));
    }
    let mut reader = ArchiveReader::new(path, data, FileFormat::Archive);
    let walk_failed = match ArchiveFile::parse(data) {
        Ok(archive) => walk(&mut reader, &archive, path, data),
        Err(error) => Err(error.to_string().to_lowercase()),
    };
    let walk_failed = match recover_from_map(path, data, &mut reader, walk_failed) {
        Ok(failed) => failed,
        Err(reason) => return Err(IndexError::malformed(FileFormat::Archive, reason)),
    };
    finish_archive(path, data, reader, walk_failed)
}

/// When the walk broke before the first real member (a damaged second linker member or long-names
/// member: `object` then finds no member or rejects the archive) and the first linker member is
/// sound, reads the members it points at instead, with a warning naming the file. Returns whether
/// the walk (or the reading that replaced it) stopped early, or why the archive is unreadable.
fn recover_from_map<'a>(
    path: &'a Path,
    data: &'a [u8],
    reader: &mut ArchiveReader<'a>,
    walked: Result<bool, String>,
) -> Result<bool, String> {
    let early = match &walked {
        Err(reason) => Some(reason.clone()),
        Ok(failed)
            if reader.parts.info.members == 0
                || (*failed
                    && reader.objects.is_empty()
                    && reader.parts.info.import_members == 0) =>
        {
            Some(if *failed {
                "the member walk broke at a linker member".to_string()
            } else {
                "the member walk found no member".to_string()
            })
        }
        Ok(_) => None,
    };
    let Some(reason) = early else {
        return walked;
    };
    let first = first_linker_member(data)
        .and_then(Result::ok)
        .and_then(|bytes| {
            let map = SymbolMap::parse(bytes).ok()?;
            let sound = map.len() > 0 && map.offsets().all(|o| (o as usize) < data.len());
            sound.then(|| {
                (
                    fallback::first_map_offsets(&map),
                    68 + bytes.len() + (bytes.len() & 1),
                )
            })
        });
    let (which, (offsets, search_from)) = match first {
        Some(found) => ("first", found),
        None => match fallback::second_map_offsets(data) {
            Some(found) => ("second", found),
            None => return walked,
        },
    };
    let members = fallback::members_at(data, offsets, search_from);
    if members.is_empty() {
        return walked;
    }
    *reader = ArchiveReader::new(path, data, FileFormat::Archive);
    reader.parts.warnings.push(IndexWarning::file(
        path,
        format!(
            "damaged archive ({reason}); its {} members were read at the offsets its {which} linker member gives",
            members.len()
        ),
    ));
    for (offset, name, bytes) in members {
        reader.parts.info.members += 1;
        reader.read_member(offset, name, bytes);
    }
    Ok(false)
}

/// Walks the members with `object`: returns whether the walk stopped at a bad member header.
fn walk<'a>(
    reader: &mut ArchiveReader<'a>,
    archive: &ArchiveFile<'a>,
    path: &Path,
    data: &'a [u8],
) -> Result<bool, String> {
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
    Ok(walk_failed)
}

/// The symbol map's part of reading an archive, after the members were read.
fn finish_archive<'a>(
    path: &'a Path,
    data: &'a [u8],
    mut reader: ArchiveReader<'a>,
    walk_failed: bool,
) -> Result<FileParts, IndexError> {
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
