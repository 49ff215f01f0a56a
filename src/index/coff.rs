//! COFF reader: archives (MSVC with two linker members, LLVM/mingw with one), short import members,
//! long-form import objects (GNU dlltool, Wine), regular objects with COMDATs, weak externals,
//! `/alternatename` and `.drectve` `/DEFAULTLIB`, and members whose symbols cannot be read (`/GL`
//! LTCG objects, LLVM bitcode). Built on the `object` crate; nothing from it leaves this module.
//!
//! Every member is walked (not only the symbol map), because umbrella import libraries such as
//! `windows.0.53.0.lib` list one function under several DLLs and the symbol map names only one of
//! them (FORMATS.md §4). The walk touches the 20-byte import header and strings of import members,
//! and the header, symbol table, string table and `.drectve` of object members: nothing else.

use std::collections::HashMap;
use std::path::Path;

use object::pe;
use object::read::archive::ArchiveFile;
use object::read::coff::{CoffFile, CoffHeader, ImportFile, ImportName, ImportType, Symbol};

use super::{
    text, FileContents, FileFormat, IndexError, IndexWarning, LibrarySymbol, Machine, SymbolKind,
};

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

/// Facts gathered from one member, before long-form imports are resolved across the archive.
#[derive(Default)]
struct ObjectFacts {
    machine: Option<Machine>,
    /// External definitions: name, section name.
    defined: Vec<(String, String)>,
    aliases: Vec<(String, String)>,
    undefined: Vec<String>,
    default_libs: Vec<String>,
    /// For a symbol defined in `.idata$7`: the NUL-terminated string there (dlltool's DLL name).
    idata7_strings: Vec<(String, String)>,
}

/// Reads the symbols of a regular or bigobj COFF object.
fn read_object<Coff: CoffHeader>(data: &[u8]) -> Result<ObjectFacts, String> {
    let file = CoffFile::<&[u8], Coff>::parse(data).map_err(|e| e.to_string().to_lowercase())?;
    let header = file.coff_header();
    let sections = file.coff_section_table();
    let symbols = file.coff_symbol_table();
    let strings = symbols.strings();
    let mut facts = ObjectFacts {
        machine: Some(Machine::from_coff(header.machine().0)),
        ..ObjectFacts::default()
    };
    let section_name = |number: i32| -> String {
        if number <= 0 {
            return String::new();
        }
        sections
            .section(object::SectionIndex(number as usize))
            .ok()
            .and_then(|s| s.name(strings).ok())
            .map(text)
            .unwrap_or_default()
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
                .map(text)
                .unwrap_or_default();
            facts.aliases.push((text(name), target));
        } else if class == pe::IMAGE_SYM_CLASS_EXTERNAL {
            let Ok(name) = symbol.name(strings) else {
                continue;
            };
            if section == 0 && symbol.value() == 0 {
                facts.undefined.push(text(name));
            } else {
                let section_text = section_name(section);
                if section_text == ".idata$7" {
                    let value = symbol.value() as usize;
                    let string = sections
                        .section(object::SectionIndex(section as usize))
                        .ok()
                        .and_then(|s| s.coff_data(data).ok())
                        .and_then(|bytes| bytes.get(value..))
                        .map(|bytes| {
                            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                            text(&bytes[..end])
                        });
                    if let Some(string) = string.filter(|s| !s.is_empty()) {
                        facts.idata7_strings.push((text(name), string));
                    }
                }
                facts.defined.push((text(name), section_text));
            }
        }
    }
    for section in sections.iter() {
        if section.raw_name() != b".drectve" {
            continue;
        }
        if let Ok(bytes) = section.coff_data(data) {
            parse_directives(bytes, &mut facts);
        }
    }
    Ok(facts)
}

/// Reads `/DEFAULTLIB:` and `/ALTERNATENAME:` from a `.drectve` section (options are
/// case-insensitive, start with `/` or `-`, and may be quoted).
fn parse_directives(bytes: &[u8], facts: &mut ObjectFacts) {
    let directives = String::from_utf8_lossy(bytes);
    let directives = directives.trim_start_matches('\u{feff}');
    for token in split_directives(directives) {
        let Some(option) = token.strip_prefix('/').or_else(|| token.strip_prefix('-')) else {
            continue;
        };
        let Some((key, value)) = option.split_once(':') else {
            continue;
        };
        let value = value.trim_matches('"');
        if key.eq_ignore_ascii_case("defaultlib") {
            if !value.is_empty() {
                facts.default_libs.push(value.to_string());
            }
        } else if key.eq_ignore_ascii_case("alternatename") {
            if let Some((from, to)) = value.split_once('=') {
                facts.aliases.push((
                    from.trim_matches('"').to_string(),
                    to.trim_matches('"').to_string(),
                ));
            }
        }
    }
}

/// Splits directives on whitespace outside double quotes.
fn split_directives(directives: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for character in directives.chars() {
        match character {
            '"' => {
                quoted = !quoted;
                current.push(character);
            }
            c if c.is_whitespace() || c == '\0' => {
                if quoted {
                    current.push(c);
                } else if !current.is_empty() {
                    tokens.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        tokens.push(current);
    }
    tokens
}

/// One import member, read.
struct ImportFacts {
    symbol: String,
    dll: String,
    kind: SymbolKind,
    machine: Machine,
    export_name: Option<String>,
}

fn read_import(data: &[u8]) -> Result<ImportFacts, String> {
    let import = ImportFile::parse(data).map_err(|e| e.to_string().to_lowercase())?;
    let machine = Machine::from_coff(u16::from_le_bytes([data[6], data[7]]));
    Ok(ImportFacts {
        symbol: text(import.symbol()),
        dll: text(import.dll()),
        kind: match import.import_type() {
            ImportType::Code => SymbolKind::ImportCode,
            ImportType::Data => SymbolKind::ImportData,
            ImportType::Const => SymbolKind::ImportConst,
        },
        machine,
        export_name: match import.import() {
            ImportName::Name(name) => Some(text(name)),
            ImportName::Ordinal(_) => None,
        },
    })
}

/// Adds the symbols of one import member: `__imp_X` always, `X` too for code.
fn add_import(contents: &mut FileContents, path: &Path, member: &str, import: ImportFacts) {
    contents.info.import_members += 1;
    contents.info.machines.push(import.machine);
    contents.info.dlls.push(import.dll.clone());
    let mut symbol = LibrarySymbol::new(
        format!("__imp_{}", import.symbol),
        path,
        import.kind.clone(),
        import.machine,
    );
    symbol.member = Some(member.to_string());
    symbol.dll = Some(import.dll);
    symbol.export_name = import.export_name;
    if import.kind == SymbolKind::ImportCode {
        let mut code = symbol.clone();
        code.name = import.symbol;
        contents.symbols.push(code);
    }
    contents.symbols.push(symbol);
}

/// A regular object member, read, waiting for long-form import resolution.
struct PendingObject {
    member: String,
    facts: ObjectFacts,
}

/// Reads a member's bytes into `pending` (objects) or `contents` (imports, unreadable members).
fn read_member(
    contents: &mut FileContents,
    pending: &mut Vec<PendingObject>,
    path: &Path,
    member: &str,
    data: &[u8],
) {
    let facts = match classify(data) {
        None => {
            contents.warnings.push(IndexWarning::member(
                path,
                member,
                format!("member too short for a coff header ({} bytes)", data.len()),
            ));
            return;
        }
        Some(MemberKind::Import) => {
            match read_import(data) {
                Ok(import) => add_import(contents, path, member, import),
                Err(reason) => contents.warnings.push(IndexWarning::member(
                    path,
                    member,
                    format!("bad import member: {reason}"),
                )),
            }
            return;
        }
        Some(MemberKind::Ltcg | MemberKind::Bitcode) => {
            contents.info.unreadable_members += 1;
            return;
        }
        Some(MemberKind::Object) => read_object::<pe::ImageFileHeader>(data),
        Some(MemberKind::BigObject) => read_object::<pe::AnonObjectHeaderBigobj>(data),
    };
    match facts {
        Ok(facts) => pending.push(PendingObject {
            member: member.to_string(),
            facts,
        }),
        Err(reason) => contents.warnings.push(IndexWarning::member(
            path,
            member,
            format!("bad object: {reason}"),
        )),
    }
}

/// Turns object facts into symbols, recognising long-form import objects: a member defining
/// `__imp_X` in `.idata$5`/`.idata$4` is an import of `X`; its DLL is the `.idata$7` string that a
/// symbol it references (dlltool `_head_*` → `*_iname`, directly or one step further) points at.
fn finish_objects(contents: &mut FileContents, path: &Path, pending: Vec<PendingObject>) {
    let mut idata7: HashMap<&str, &str> = HashMap::new();
    let mut references: HashMap<&str, &[String]> = HashMap::new();
    for object in &pending {
        for (name, dll) in &object.facts.idata7_strings {
            idata7.insert(name, dll);
        }
        if !object.facts.undefined.is_empty() {
            for (name, _) in &object.facts.defined {
                references.insert(name, &object.facts.undefined);
            }
        }
    }
    let dll_of = |undefined: &[String]| -> Option<String> {
        for reference in undefined {
            if let Some(dll) = idata7.get(reference.as_str()) {
                return Some(dll.to_string());
            }
            if let Some(further) = references.get(reference.as_str()) {
                if let Some(dll) = further.iter().find_map(|r| idata7.get(r.as_str())) {
                    return Some(dll.to_string());
                }
            }
        }
        None
    };
    let mut symbols = Vec::new();
    let mut import_members = 0;
    let mut dlls = Vec::new();
    for object in &pending {
        let facts = &object.facts;
        let machine = facts.machine.unwrap_or(Machine::Any);
        contents.info.machines.push(machine);
        for library in &facts.default_libs {
            if !contents
                .info
                .default_libs
                .iter()
                .any(|l| l.eq_ignore_ascii_case(library))
            {
                contents.info.default_libs.push(library.clone());
            }
        }
        let imported: Vec<&str> = facts
            .defined
            .iter()
            .filter(|(name, section)| {
                name.starts_with("__imp_") && (section == ".idata$5" || section == ".idata$4")
            })
            .map(|(name, _)| &name["__imp_".len()..])
            .collect();
        let dll = if imported.is_empty() {
            None
        } else {
            import_members += 1;
            let dll = dll_of(&facts.undefined);
            dlls.extend(dll.clone());
            dll
        };
        for (name, section) in &facts.defined {
            let kind = if let Some(plain) = name.strip_prefix("__imp_") {
                if imported.contains(&plain) {
                    let code = facts
                        .defined
                        .iter()
                        .any(|(other, s)| other == plain && s.starts_with(".text"));
                    if code {
                        SymbolKind::ImportCode
                    } else {
                        SymbolKind::ImportData
                    }
                } else {
                    SymbolKind::Defined
                }
            } else if imported.contains(&name.as_str()) && section.starts_with(".text") {
                SymbolKind::ImportCode
            } else {
                SymbolKind::Defined
            };
            let mut symbol = LibrarySymbol::new(name.clone(), path, kind, machine);
            symbol.member = Some(object.member.clone());
            if symbol.is_import() {
                symbol.dll = dll.clone();
                symbol.export_name = Some(name.strip_prefix("__imp_").unwrap_or(name).to_string());
            }
            symbols.push(symbol);
        }
        for (name, target) in &facts.aliases {
            let mut symbol = LibrarySymbol::new(
                name.clone(),
                path,
                SymbolKind::Alias {
                    target: target.clone(),
                },
                machine,
            );
            symbol.member = Some(object.member.clone());
            symbols.push(symbol);
        }
    }
    contents.info.import_members += import_members;
    contents.info.dlls.extend(dlls);
    contents.symbols.extend(symbols);
}

/// Reads a COFF archive: every member, in order.
pub(crate) fn read_archive(path: &Path, data: &[u8]) -> Result<FileContents, IndexError> {
    let archive =
        ArchiveFile::parse(data).map_err(|e| IndexError::malformed(FileFormat::Archive, e))?;
    let mut contents = FileContents::new(path, FileFormat::Archive);
    let mut pending = Vec::new();
    let mut previous = None;
    let mut walk_failed = false;
    for member in archive.members() {
        let member = match member {
            Ok(member) => member,
            Err(error) => {
                let reason = error.to_string().to_lowercase();
                let message = match &previous {
                    Some(name) => format!("bad member header after {name}: {reason}; rest skipped"),
                    None => format!("bad first member header: {reason}; rest skipped"),
                };
                contents.warnings.push(IndexWarning::file(path, message));
                walk_failed = true;
                break;
            }
        };
        let name = text(member.name());
        contents.info.members += 1;
        match member.data(data) {
            Ok(bytes) => read_member(&mut contents, &mut pending, path, &name, bytes),
            Err(error) => contents.warnings.push(IndexWarning::member(
                path,
                &name,
                error.to_string().to_lowercase(),
            )),
        }
        previous = Some(name);
    }
    // A symbol map that points outside the file is a sign of corruption worth reporting, even
    // though the walk above does not need it (unless the walk already reported the damage).
    let map = if walk_failed {
        Ok(None)
    } else {
        archive.symbols()
    };
    match map {
        Ok(Some(map)) => {
            for entry in map {
                match entry {
                    Ok(entry) if entry.offset().0 < data.len() as u64 => {}
                    Ok(entry) => {
                        contents.warnings.push(IndexWarning::file(
                            path,
                            format!(
                                "symbol map entry {} points outside the file (offset {})",
                                text(entry.name()),
                                entry.offset().0
                            ),
                        ));
                        break;
                    }
                    Err(error) => {
                        contents.warnings.push(IndexWarning::file(
                            path,
                            format!("bad symbol map: {}", error.to_string().to_lowercase()),
                        ));
                        break;
                    }
                }
            }
        }
        Ok(None) => {}
        Err(error) => contents.warnings.push(IndexWarning::file(
            path,
            format!("bad symbol map: {}", error.to_string().to_lowercase()),
        )),
    }
    finish_objects(&mut contents, path, pending);
    Ok(contents)
}

/// Reads a standalone `.obj` (regular, bigobj, short import, or an unreadable `/GL` object).
pub(crate) fn read_object_file(path: &Path, data: &[u8]) -> Result<FileContents, IndexError> {
    let mut contents = FileContents::new(path, FileFormat::Object);
    contents.info.members = 1;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut pending = Vec::new();
    if matches!(classify(data), Some(MemberKind::Import)) {
        contents.info.format = FileFormat::ImportObject;
    }
    read_member(&mut contents, &mut pending, path, &name, data);
    // A standalone object that fails to parse is a file-level problem.
    for warning in &mut contents.warnings {
        warning.member = None;
    }
    finish_objects(&mut contents, path, pending);
    Ok(contents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_are_split_and_read() {
        let mut facts = ObjectFacts::default();
        parse_directives(
            b"   /DEFAULTLIB:\"MSVCRT\" -defaultlib:oldnames /alternatename:_a=_b /EXPORT:x\0",
            &mut facts,
        );
        assert_eq!(facts.default_libs, ["MSVCRT", "oldnames"]);
        assert_eq!(facts.aliases, [("_a".to_string(), "_b".to_string())]);
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
}
