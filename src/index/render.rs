//! Text and JSON rendering of the index for `lnkfix index` (summary), `lnkfix index --list` and
//! `lnkfix explain SYMBOL`: JSON for [`Format::Json`], text for any other format (the CI formats
//! are for findings, which the index has none of). Functions write to any `Write`; the binary
//! decides where output goes.

use std::io::{self, Write};

use serde::Serialize;

use super::{Index, IndexWarning, LibraryInfo, LibrarySymbol};
use crate::output::format::Format;
use crate::rules::roles::{LibraryRole, Roles};

fn json<T: Serialize>(out: &mut impl Write, value: &T) -> io::Result<()> {
    crate::output::terminal::write_json(value, out)
}

/// The provider of one symbol as one line: `kernel32.lib(KERNEL32.dll) → KERNEL32.dll [import
/// (code), x64]`.
fn provider_line(symbol: &LibrarySymbol) -> String {
    let mut line = symbol.library.display().to_string();
    if let Some(member) = &symbol.member {
        line.push('(');
        line.push_str(member);
        line.push(')');
    }
    if let Some(dll) = &symbol.dll {
        line.push_str(" -> ");
        line.push_str(dll);
    }
    line.push_str(&format!(" [{}, {}]", symbol.kind, symbol.machine));
    if let Some(forwarder) = &symbol.forwarder {
        line.push_str(&format!(" forwarded to {forwarder}"));
    }
    if let Some(library) = &symbol.source_library {
        line.push_str(&format!(" from {library}"));
    }
    line
}

/// A file of the summary with its role (`symbol-db/roles.json`) and what the role file says it is
/// for.
#[derive(Serialize)]
struct FileWithRole<'a> {
    #[serde(flatten)]
    info: &'a LibraryInfo,
    role: LibraryRole,
    purpose: Option<&'static str>,
}

fn with_role(info: &LibraryInfo) -> FileWithRole<'_> {
    let role = Roles::builtin().role_of(&info.path.to_string_lossy());
    FileWithRole {
        info,
        role: role.role,
        purpose: role.purpose,
    }
}

/// The `schema_version` of `index --format json` (the summary and `--list`).
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct Summary<'a> {
    schema_version: u32,
    arch: String,
    files: usize,
    members: usize,
    symbols: usize,
    unreadable_members: usize,
    libraries: Vec<FileWithRole<'a>>,
    warnings: Vec<String>,
}

/// Writes the index summary: one line per file (format, members, symbols, machines, DLLs, default
/// libraries, unreadable members), totals, then every warning.
pub fn write_summary(
    index: &Index,
    warnings: &[IndexWarning],
    out: &mut impl Write,
    format: Format,
) -> io::Result<()> {
    let libraries = index.libraries();
    let members = libraries.iter().map(|l| l.members).sum();
    let symbols = libraries.iter().map(|l| l.symbols).sum();
    let unreadable_members = libraries.iter().map(|l| l.unreadable_members).sum();
    if format == Format::Json {
        return json(
            out,
            &Summary {
                schema_version: SCHEMA_VERSION,
                arch: index.arch().to_string(),
                files: libraries.len(),
                members,
                symbols,
                unreadable_members,
                libraries: libraries.iter().map(with_role).collect(),
                warnings: warnings.iter().map(|w| w.to_string()).collect(),
            },
        );
    }
    for library in libraries {
        let machines: Vec<String> = library.machines.iter().map(|m| m.to_string()).collect();
        write!(
            out,
            "{}: {} ({}), {} members, {} symbols, {}",
            library.path.display(),
            library.format,
            with_role(library).role,
            library.members,
            library.symbols,
            if machines.is_empty() {
                "no machine".to_string()
            } else {
                machines.join("+")
            }
        )?;
        if library.import_members > 0 {
            write!(
                out,
                ", {} imports from {} dlls",
                library.import_members,
                library.dlls.len()
            )?;
        }
        if !library.default_libs.is_empty() {
            write!(out, ", defaultlib {}", library.default_libs.join(" "))?;
        }
        if library.unreadable_members > 0 {
            write!(
                out,
                ", {} members with unreadable symbols (/GL or bitcode)",
                library.unreadable_members
            )?;
        }
        if library.warnings > 0 {
            write!(out, ", {} warnings", library.warnings)?;
        }
        writeln!(out)?;
    }
    writeln!(
        out,
        "{} files, {} members, {} symbols for {}; {} unreadable members; {} warnings",
        libraries.len(),
        members,
        symbols,
        index.arch(),
        unreadable_members,
        warnings.len()
    )?;
    for warning in warnings {
        writeln!(out, "warning: {warning}")?;
    }
    Ok(())
}

/// Writes every symbol with its provider (`--list`), grouped by name in order of first appearance,
/// each name's providers in search order; symbols of other machines follow, marked by machine.
pub fn write_list(index: &Index, out: &mut impl Write, format: Format) -> io::Result<()> {
    if format == Format::Json {
        #[derive(Serialize)]
        struct List<'a> {
            schema_version: u32,
            arch: String,
            symbols: Vec<&'a LibrarySymbol>,
            other_machines: Vec<&'a LibrarySymbol>,
        }
        return json(
            out,
            &List {
                schema_version: SCHEMA_VERSION,
                arch: index.arch().to_string(),
                symbols: index.symbols().collect(),
                other_machines: index.other_machine_symbols().collect(),
            },
        );
    }
    for symbol in index.symbols().chain(index.other_machine_symbols()) {
        writeln!(out, "{}\t{}", symbol.name, provider_line(symbol))?;
    }
    Ok(())
}

/// Writes what the index knows about one linker-level name: its demangled form (computed by the
/// caller through `demangle`, which guards the demangler), every provider in search order, and
/// providers for other machines.
pub fn write_explain(
    index: &Index,
    linker_name: &str,
    demangled: Option<&str>,
    out: &mut impl Write,
    format: Format,
) -> io::Result<()> {
    let providers = index.providers(linker_name);
    let other = index.lookup_other_machines(linker_name);
    if format == Format::Json {
        #[derive(Serialize)]
        struct Explain<'a> {
            schema_version: u32,
            symbol: &'a str,
            demangled: Option<&'a str>,
            arch: String,
            providers: Vec<&'a LibrarySymbol>,
            other_machines: &'a [LibrarySymbol],
        }
        return json(
            out,
            &Explain {
                schema_version: SCHEMA_VERSION,
                symbol: linker_name,
                demangled,
                arch: index.arch().to_string(),
                providers,
                other_machines: other,
            },
        );
    }
    writeln!(out, "{linker_name}")?;
    if let Some(demangled) = demangled.filter(|d| *d != linker_name) {
        writeln!(out, "  demangled: {demangled}")?;
    }
    if providers.is_empty() {
        writeln!(
            out,
            "  no provider for {} in {} files",
            index.arch(),
            index.libraries().len()
        )?;
    }
    for symbol in &providers {
        writeln!(out, "  {}", provider_line(symbol))?;
    }
    for symbol in other {
        writeln!(out, "  other machine: {}", provider_line(symbol))?;
    }
    Ok(())
}
