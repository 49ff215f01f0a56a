//! PE reader: the export table of a DLL (or EXE), forwarders included, so that a runtime DLL such
//! as `amdhip64_7.dll` can be matched with the import library that names it. Built on `object`.

use std::path::Path;

use object::read::pe::{ExportTarget, ImageNtHeaders, PeFile};
use object::LittleEndian as LE;

use super::{text, FileContents, FileFormat, IndexError, LibrarySymbol, Machine, SymbolKind};

/// Reads the export table of a PE image (32- or 64-bit, chosen by the optional header magic).
pub(crate) fn read_dll(path: &Path, data: &[u8]) -> Result<FileContents, IndexError> {
    match object::FileKind::parse(data) {
        Ok(object::FileKind::Pe32) => read_pe::<object::pe::ImageNtHeaders32>(path, data),
        Ok(object::FileKind::Pe64) => read_pe::<object::pe::ImageNtHeaders64>(path, data),
        Ok(_) => Err(IndexError::malformed(FileFormat::Dll, "not a pe image")),
        Err(error) => Err(IndexError::malformed(FileFormat::Dll, error)),
    }
}

fn read_pe<Pe: ImageNtHeaders>(path: &Path, data: &[u8]) -> Result<FileContents, IndexError> {
    let malformed = |error: object::Error| IndexError::malformed(FileFormat::Dll, error);
    let file = PeFile::<Pe, &[u8]>::parse(data).map_err(malformed)?;
    let machine = Machine::from_coff(file.nt_headers().file_header().machine.get(LE).0);
    let mut contents = FileContents::new(path, FileFormat::Dll);
    contents.info.members = 1;
    contents.info.machines.push(machine);
    let Some(table) = file.export_table().map_err(malformed)? else {
        return Ok(contents);
    };
    // The DLL's own name as its export directory records it; the file name if that is unreadable.
    let dll = table
        .name_from_pointer(table.directory().name.get(LE))
        .ok()
        .map(text)
        .filter(|name| !name.is_empty())
        .or_else(|| path.file_name().map(|n| n.to_string_lossy().into_owned()));
    contents.info.dlls.extend(dll.clone());
    for export in table.exports().map_err(malformed)? {
        // Exports by ordinal only have no name a linker could ask for.
        let Some(name) = export.name else { continue };
        let mut symbol = LibrarySymbol::new(text(name), path, SymbolKind::Export, machine);
        symbol.dll = dll.clone();
        symbol.export_name = Some(symbol.name.clone());
        symbol.forwarder = match export.target {
            ExportTarget::Address(_) => None,
            ExportTarget::ForwardByName(library, name) => {
                Some(format!("{}.{}", text(library), text(name)))
            }
            ExportTarget::ForwardByOrdinal(library, ordinal) => {
                Some(format!("{}.#{}", text(library), ordinal.0))
            }
        };
        contents.symbols.push(symbol);
    }
    Ok(contents)
}
