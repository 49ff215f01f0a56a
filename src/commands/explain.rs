//! `lnkfix explain SYMBOL`: one name through the same pipeline as `diagnose`, so the answer, the
//! ranking and the embedded fallback are the same as in a diagnosis. The name may be a linker name
//! (`__imp_CreateFileW`, `?f@@YAXXZ`) or a demangled one (`void * __cdecl operator new(unsigned
//! __int64)`, `__declspec(dllimport) CreateFileW`): it is read as the record a linker would have
//! printed for it (link.exe's LNK2001 for a linker name, lld-link's `undefined symbol` for a
//! demangled one).

use std::io::{self, Write};

use serde::Serialize;

use crate::index::{Index, LibrarySymbol};
use crate::read::linklog::ReadLimits;
use crate::read::symbols;
use crate::resolve::providers::{self, Provider};
use crate::resolve::{self, DiagnoseOptions, ResolvedSymbol, SearchContext};
use crate::rules::{Flavour, RuleBook};

/// What `explain` found for one name.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    /// Always 1.
    pub schema_version: u32,
    /// The name as given.
    pub symbol: String,
    /// Its demangled form.
    pub demangled: Option<String>,
    /// The machine the libraries were indexed for.
    pub arch: String,
    /// The CRT flavour the providers were ranked for (`--crt`), if any.
    pub flavour: Option<Flavour>,
    /// Whether libraries on disk were searched (false: the embedded tables answered).
    pub searched: bool,
    /// The answer, exactly as `diagnose` gives it for this name.
    pub answer: ResolvedSymbol,
    /// Every provider on disk, best first (the answer's, then its alternatives).
    pub providers: Vec<Provider>,
    /// Providers for other machines.
    pub other_machines: Vec<LibrarySymbol>,
}

impl Explanation {
    /// Whether anything answers the name (a library, a library per flavour, or a family).
    pub fn found(&self) -> bool {
        self.answer.library.is_some()
            || self.answer.libraries_by_flavour().is_some()
            || !self.providers.is_empty()
    }
}

/// The error of a name that no linker record can hold.
#[derive(Debug, thiserror::Error)]
#[error("cannot read {0:?} as a linker name or a demangled name")]
pub struct NotASymbol(pub String);

/// The log line a linker would print for `name`: link.exe's for a linker-level name, lld-link's
/// for a demangled one.
fn record_for(name: &str) -> String {
    let demangled = name.contains([' ', '(', '<', ':']) && !name.starts_with('?');
    if demangled {
        format!("lld-link: error: undefined symbol: {name}\n")
    } else {
        format!("explain : error LNK2001: unresolved external symbol {name}\n")
    }
}

/// Explains one name: with `context`, from the libraries on disk, else from the embedded tables.
pub fn explain(
    name: &str,
    book: &RuleBook,
    context: Option<&SearchContext<'_>>,
    crt: Option<Flavour>,
) -> Result<Explanation, NotASymbol> {
    let name = name.trim();
    if name.is_empty() || name.contains(['\n', '\r']) {
        return Err(NotASymbol(name.to_string()));
    }
    let failure = symbols::collect(
        io::Cursor::new(record_for(name).into_bytes()),
        ReadLimits::default(),
    )
    .map_err(|_| NotASymbol(name.to_string()))?;
    let options = DiagnoseOptions {
        object_machines: Vec::new(),
        crt,
        log_name: "explain".into(),
    };
    let symbol = failure.symbols.first().cloned();
    let mut diagnosis = resolve::diagnose_with(failure, book, &options, context);
    let (Some(symbol), 1) = (symbol, diagnosis.symbols.len()) else {
        return Err(NotASymbol(name.to_string()));
    };
    let answer = diagnosis.symbols.remove(0);
    let flavour = diagnosis.crt.flavour;
    // Every provider on disk, ranked as the diagnosis ranked them.
    let providers = match context {
        Some(c) => {
            let demangled_index =
                providers::DemangledIndex::new(c.index, std::slice::from_ref(&symbol));
            providers::find(c.index, &demangled_index, book, &symbol, flavour).providers
        }
        None => Vec::new(),
    };
    let other_machines = match (context, &answer.symbol.linker_name()) {
        (Some(c), Some(linker)) => c.index.lookup_other_machines(linker).to_vec(),
        _ => Vec::new(),
    };
    Ok(Explanation {
        schema_version: 1,
        symbol: name.to_string(),
        demangled: Some(answer.symbol.demangled().to_string()),
        arch: context.map_or_else(|| "x64".to_string(), |c| c.index.arch().to_string()),
        flavour,
        searched: context.is_some(),
        answer,
        providers,
        other_machines,
    })
}

/// Writes the explanation for people.
pub fn write_text(explanation: &Explanation, out: &mut dyn Write) -> io::Result<()> {
    let answer = &explanation.answer;
    writeln!(out, "{}", explanation.symbol)?;
    if let Some(demangled) = explanation
        .demangled
        .as_deref()
        .filter(|d| *d != explanation.symbol)
    {
        writeln!(out, "  demangled: {demangled}")?;
    }
    if let Some(linker) = answer
        .symbol
        .linker_name()
        .filter(|l| *l != explanation.symbol)
    {
        writeln!(out, "  linker name: {linker}")?;
    }
    write_answer(explanation, out)?;
    if let Some(note) = &answer.match_note {
        writeln!(out, "  note: {note}")?;
    }
    if let Some(differs) = answer.rulebook_differs() {
        writeln!(out, "  rule book: {differs}")?;
    }
    if !explanation.providers.is_empty() {
        writeln!(out, "  providers, best first:")?;
    }
    for p in &explanation.providers {
        write_provider(p, out)?;
    }
    for symbol in &explanation.other_machines {
        writeln!(
            out,
            "  other machine ({}): {}",
            symbol.machine,
            symbol.library.display()
        )?;
    }
    Ok(())
}

/// The answer's line: the library (by flavour when it is not known), and where it came from.
fn write_answer(explanation: &Explanation, out: &mut dyn Write) -> io::Result<()> {
    let answer = &explanation.answer;
    let from = if explanation.searched {
        "the libraries on disk"
    } else {
        "the embedded tables (no libraries given)"
    };
    let flavour = explanation
        .flavour
        .map(|f| format!(" for {f}"))
        .unwrap_or_default();
    match (&answer.library, answer.libraries_by_flavour()) {
        (Some(library), _) => writeln!(
            out,
            "  answer{flavour}: {library} ({}, from {from}{})",
            answer.family,
            answer
                .dll
                .as_deref()
                .map(|d| format!("; imports from {d}"))
                .unwrap_or_default()
        )?,
        (None, Some(by)) => {
            let each: Vec<String> = by
                .iter()
                .map(|(f, l)| format!("{} {l}", f.compiler_option()))
                .collect();
            writeln!(
                out,
                "  answer: {} by CRT flavour: {} (from {from}; give --crt to choose)",
                answer.family,
                each.join(", ")
            )?;
        }
        (None, None) if answer.family == "unknown" => {
            writeln!(out, "  answer: nothing known defines it (searched {from})")?
        }
        (None, None) => writeln!(out, "  answer: {} (no library)", answer.family)?,
    }
    Ok(())
}

/// One provider: library, role, DLL, member and path; why it is not for this link, or what an
/// unordinary one is for.
fn write_provider(p: &Provider, out: &mut dyn Write) -> io::Result<()> {
    let mut line = format!("    {}  [{}]", p.library, p.role);
    if let Some(dll) = &p.dll {
        line.push_str(&format!("  {dll}"));
    }
    if let Some(member) = p.member.as_deref().filter(|m| Some(*m) != p.dll.as_deref()) {
        line.push_str(&format!("  member {member}"));
    }
    line.push_str(&format!("  {}", p.path));
    writeln!(out, "{line}")?;
    if let Some(excluded) = &p.excluded {
        writeln!(out, "        not for this link: {excluded}")?;
    } else if !p.role.is_ordinary() {
        if let Some(purpose) = &p.purpose {
            writeln!(out, "        {}: {purpose}", p.role)?;
        }
    }
    Ok(())
}

/// Writes the explanation as one JSON document.
pub fn write_json(explanation: &Explanation, out: &mut dyn Write) -> io::Result<()> {
    crate::output::terminal::write_json(explanation, out)
}

/// An index with nothing in it, for explaining from the embedded tables alone.
pub fn empty_index(arch: crate::index::Machine) -> Index {
    Index::from_symbols(Vec::new(), Vec::new(), arch)
}
