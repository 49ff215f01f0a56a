//! Compiles the embedded name tables (`symbol-db/names/*.txt`) into sorted arrays, so that a run
//! looks a name up by binary search instead of first filling a hash map with 64,000 names
//! (`src/rules/names.rs`; the layout is described there, at `StaticIndex`).
//!
//! Reads only files inside the package. The tables are parsed exactly as `src/rules/names.rs`
//! parses them (its unit tests compare both, name by name).

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// The `[library dll]` tables in `NameTable::ALL` order: (variant, file name).
const TABLES: [(&str, &str); 11] = [
    ("Vcruntime", "vcruntime.txt"),
    ("Ucrt", "ucrt.txt"),
    ("Msvcp", "msvcp.txt"),
    ("SdkExtra", "sdk-extra.txt"),
    ("WindowsApi", "windows-api.txt"),
    ("HipRuntime", "hip-runtime.txt"),
    ("HipSdk", "hip-sdk.txt"),
    ("Torch", "torch.txt"),
    ("Python", "python.txt"),
    ("Node", "node.txt"),
    ("Cuda", "cuda.txt"),
];

/// The crt-chain table's file name.
const CHAIN: &str = "crt-chain.txt";

/// `Flavour::name()` of each flavour, in `Flavour::ALL` order (bit positions of `FlavourSet`).
const FLAVOURS: [&str; 4] = ["static", "dynamic", "static-debug", "dynamic-debug"];

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo"));
    let names = manifest.join("symbol-db").join("names");
    println!("cargo:rerun-if-changed=build.rs");

    let mut source = String::new();
    let mut index = Index::default();
    let mut headers = Vec::new();
    for (variant, file) in TABLES {
        let text = read(&names.join(file));
        index.add_table(&text, |inside| {
            let mut fields = inside.split(' ');
            match (fields.next(), fields.next(), fields.next()) {
                (Some(library), Some(dll), None) if !library.is_empty() && !dll.is_empty() => {
                    headers.push(format!(
                        "NameHit {{ table: NameTable::{variant}, library: {library:?}, dll: {dll:?} }}"
                    ));
                    true
                }
                _ => false,
            }
        });
    }
    emit(&mut source, &out, "NAME", &index, "NameHit", &headers);

    let mut index = Index::default();
    let mut headers = Vec::new();
    let text = read(&names.join(CHAIN));
    index.add_table(&text, |inside| {
        let mut fields = inside.split(' ');
        match (
            fields.next(),
            fields.next().map(flavour_bits),
            fields.next(),
        ) {
            (Some(family), Some(Some(bits)), None) if !family.is_empty() => {
                headers.push(format!("({family:?}, FlavourSet({bits}))"));
                true
            }
            _ => false,
        }
    });
    emit(
        &mut source,
        &out,
        "CHAIN",
        &index,
        "(&str, FlavourSet)",
        &headers,
    );
    fs::write(out.join("name_index.rs"), source).expect("OUT_DIR is writable");
}

/// Reads a table, telling cargo to build again when it changes.
fn read(path: &Path) -> String {
    println!("cargo:rerun-if-changed={}", path.display());
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `static,dynamic-debug` as `FlavourSet` bits: names in `Flavour::ALL` order, no repeats.
fn flavour_bits(text: &str) -> Option<u8> {
    let mut bits = 0u8;
    let mut last = None;
    for name in text.split(',') {
        let position = FLAVOURS.iter().position(|&f| f == name)?;
        if last.is_some_and(|last| position <= last) {
            return None;
        }
        last = Some(position);
        bits |= 1 << position;
    }
    Some(bits)
}

/// (name, section) pairs in the order the tables list them, each pair once.
#[derive(Default)]
struct Index {
    /// How many sections the tables added so far have.
    sections: usize,
    /// Every distinct (name, section) pair, in table order.
    entries: Vec<(String, u16)>,
}

impl Index {
    /// Adds one table's sections and names, parsed as `names::table_lines` does: comments and
    /// blank lines dropped, a header is `[...]` whose inside `header` accepts (a rejected header is
    /// skipped and its names go to the section before it), a name has no whitespace and comes
    /// after the table's first accepted header.
    fn add_table(&mut self, text: &str, mut header: impl FnMut(&str) -> bool) {
        let mut seen_section = false;
        let mut seen = std::collections::HashSet::new();
        for line in text.lines() {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(inside) = line.strip_prefix('[') {
                if inside.strip_suffix(']').is_some_and(&mut header) {
                    seen_section = true;
                    self.sections += 1;
                }
            } else if seen_section && !line.contains(char::is_whitespace) {
                let section = u16::try_from(self.sections - 1).expect("under 65,536 sections");
                if seen.insert((line.to_owned(), section)) {
                    self.entries.push((line.to_owned(), section));
                }
            }
        }
    }
}

/// Writes `PREFIX_NAMES` (the names, sorted bytewise and concatenated), `PREFIX_ENDS` (where each
/// name ends, u32 little-endian), `PREFIX_SECTIONS` (each name's section, u16 little-endian) and
/// the section headers `PREFIX_HEADERS` (Rust source).
fn emit(
    source: &mut String,
    out: &Path,
    prefix: &str,
    index: &Index,
    ty: &str,
    headers: &[String],
) {
    assert_eq!(headers.len(), index.sections);
    let mut entries: Vec<&(String, u16)> = index.entries.iter().collect();
    // Stable: the sections of one name stay in table order.
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let (mut names, mut ends, mut sections) = (Vec::new(), Vec::new(), Vec::new());
    for (name, section) in entries {
        names.extend_from_slice(name.as_bytes());
        let end = u32::try_from(names.len()).expect("names under 4 GiB");
        ends.extend_from_slice(&end.to_le_bytes());
        sections.extend_from_slice(&section.to_le_bytes());
    }
    let lower = prefix.to_ascii_lowercase();
    for (kind, bytes) in [("names", &names), ("ends", &ends), ("sections", &sections)] {
        let file = format!("{lower}_{kind}.bin");
        fs::write(out.join(&file), bytes).expect("OUT_DIR is writable");
        let upper = kind.to_ascii_uppercase();
        writeln!(
            source,
            "static {prefix}_{upper}: &[u8] = include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{file}\"));"
        )
        .unwrap();
    }
    writeln!(
        source,
        "static {prefix}_HEADERS: [{ty}; {}] = [",
        headers.len()
    )
    .unwrap();
    for header in headers {
        writeln!(source, "    {header},").unwrap();
    }
    writeln!(source, "];").unwrap();
}
