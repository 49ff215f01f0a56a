//! PDB reader (the `pdb` crate): public symbols and the DBI module list. Each public is attributed,
//! through the section contributions, to the module (object) that defined it and the library that
//! module came from (`...\ucrt\x64\libucrt.lib`, `Import:KERNEL32.dll`): a link that succeeded is
//! evidence of which library provided which symbol (docs/RULES.md §11).

use std::borrow::Cow;
use std::path::Path;

use pdb::FallibleIterator;

use super::{FileContents, FileFormat, IndexError, LibrarySymbol, Machine, SymbolKind};

fn malformed(error: pdb::Error) -> IndexError {
    IndexError::malformed(FileFormat::Pdb, error)
}

fn machine_of(machine: pdb::MachineType) -> Machine {
    match machine {
        pdb::MachineType::Amd64 => Machine::X64,
        pdb::MachineType::X86 => Machine::X86,
        pdb::MachineType::Arm64 => Machine::Arm64,
        pdb::MachineType::ArmNT => Machine::Arm,
        pdb::MachineType::Unknown => Machine::Any,
        _ => Machine::Unknown(0xffff),
    }
}

/// One module of the DBI stream: its object and the library it came from.
struct Module {
    object: String,
    library: String,
}

/// The DLL an import module stands for: `Import:KERNEL32.dll` → `KERNEL32.dll`; lld-link and
/// link.exe also name the import module after the DLL itself, with the import library as object.
fn import_dll(module: &Module) -> Option<String> {
    for text in [&module.library, &module.object] {
        if let Some(dll) = text.strip_prefix("Import:") {
            return Some(dll.to_string());
        }
    }
    None
}

/// Reads publics and modules of a PDB.
pub(crate) fn read_pdb(path: &Path, data: &[u8]) -> Result<FileContents, IndexError> {
    let mut pdb = pdb::PDB::open(std::io::Cursor::new(data)).map_err(malformed)?;
    let dbi = match pdb.debug_information() {
        Ok(dbi) => dbi,
        // A compiler PDB (`/Fd`, and the `libcmt.amd64.pdb` files beside Microsoft's CRT
        // libraries) holds types only, with an empty DBI stream: not broken, just not a record of
        // a link. It is indexed as empty, without a warning.
        Err(error) if is_type_only(&mut pdb, &error) => {
            return Ok(FileContents::new(path, FileFormat::Pdb));
        }
        Err(error) => return Err(malformed(error)),
    };
    let machine = dbi.machine_type().map(machine_of).unwrap_or(Machine::Any);
    let mut modules = Vec::new();
    let mut iter = dbi.modules().map_err(malformed)?;
    while let Some(module) = iter.next().map_err(malformed)? {
        modules.push(Module {
            object: cow(module.module_name()),
            library: cow(module.object_file_name()),
        });
    }
    // (section, offset, size, module), sorted for binary search.
    let mut contributions = Vec::new();
    if let Ok(mut iter) = dbi.section_contributions() {
        while let Ok(Some(contribution)) = iter.next() {
            contributions.push((
                contribution.offset.section,
                contribution.offset.offset,
                contribution.size,
                contribution.module,
            ));
        }
    }
    contributions.sort_unstable();
    let module_at = |section: u16, offset: u32| -> Option<&Module> {
        let after = contributions.partition_point(|c| (c.0, c.1) <= (section, offset));
        let (c_section, c_offset, size, module) = *contributions.get(after.checked_sub(1)?)?;
        if c_section == section && offset - c_offset < size.max(1) {
            modules.get(module)
        } else {
            None
        }
    };
    let mut contents = FileContents::new(path, FileFormat::Pdb);
    contents.info.members = modules.len();
    contents.info.machines.push(machine);
    for module in &modules {
        if let Some(dll) = import_dll(module) {
            contents.info.import_members += 1;
            contents.info.dlls.push(dll);
        } else if module.library.to_ascii_lowercase().ends_with(".lib")
            && !contents.info.default_libs.contains(&module.library)
        {
            // For a PDB, "default libs" lists the libraries the link actually used.
            contents.info.default_libs.push(module.library.clone());
        }
    }
    let globals = pdb.global_symbols().map_err(malformed)?;
    let mut symbols = globals.iter();
    while let Some(symbol) = symbols.next().map_err(malformed)? {
        let Ok(pdb::SymbolData::Public(public)) = symbol.parse() else {
            continue;
        };
        let mut entry = LibrarySymbol::new(
            public.name.to_string().into_owned(),
            path,
            SymbolKind::PdbPublic,
            machine,
        );
        if let Some(module) = module_at(public.offset.section, public.offset.offset) {
            entry.member = Some(module.object.clone());
            entry.source_library = Some(module.library.clone()).filter(|l| !l.is_empty());
            entry.dll = import_dll(module);
        }
        contents.symbols.push(entry);
    }
    Ok(contents)
}

/// Whether a PDB whose DBI stream cannot be read is a type-only compiler PDB: the stream is
/// missing or empty, and the type stream is readable.
fn is_type_only<'s, S: pdb::Source<'s> + 's>(
    pdb: &mut pdb::PDB<'s, S>,
    error: &pdb::Error,
) -> bool {
    matches!(
        error,
        pdb::Error::UnexpectedEof | pdb::Error::StreamNotFound(_) | pdb::Error::StreamNameNotFound
    ) && pdb.type_information().is_ok()
}

fn cow(text: Cow<'_, str>) -> String {
    text.into_owned()
}
