//! Module-definition (`.def`) reader: the import library a `.def` file describes (`LIBRARY`,
//! `NAME`, `EXPORTS` with `=` internal names, `==` import names, `@ordinal`, `NONAME`, `DATA`,
//! `CONSTANT`, `PRIVATE`, `;` comments), following LLVM's `COFFModuleDefinition` grammar.

use std::path::Path;

use super::{FileContents, FileFormat, IndexError, LibrarySymbol, Machine, SymbolKind};

/// Tokens of one line.
#[derive(Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    Equal,
    EqualEqual,
    At,
    Comma,
}

fn tokenize(line: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            ';' => break,
            c if c.is_whitespace() => {
                chars.next();
            }
            '=' => {
                chars.next();
                if chars.peek() == Some(&'=') {
                    chars.next();
                    tokens.push(Token::EqualEqual);
                } else {
                    tokens.push(Token::Equal);
                }
            }
            ',' => {
                chars.next();
                tokens.push(Token::Comma);
            }
            '@' => {
                chars.next();
                tokens.push(Token::At);
            }
            '"' => {
                chars.next();
                let mut word = String::new();
                for c in chars.by_ref() {
                    if c == '"' {
                        break;
                    }
                    word.push(c);
                }
                tokens.push(Token::Word(word));
            }
            _ => {
                let mut word = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() || matches!(c, '=' | ',' | ';' | '"') {
                        break;
                    }
                    word.push(c);
                    chars.next();
                }
                tokens.push(Token::Word(word));
            }
        }
    }
    tokens
}

/// Statements that end an `EXPORTS` list.
const KEYWORDS: &[&str] = &[
    "LIBRARY",
    "NAME",
    "EXPORTS",
    "HEAPSIZE",
    "STACKSIZE",
    "VERSION",
    "DESCRIPTION",
    "SECTIONS",
    "SEGMENTS",
    "STUB",
    "IMPORTS",
];

/// One `EXPORTS` entry.
struct Entry {
    name: String,
    import_name: Option<String>,
    kind: SymbolKind,
    by_ordinal_only: bool,
    private: bool,
}

fn parse_entry(tokens: &[Token]) -> Option<Entry> {
    let mut iter = tokens.iter().peekable();
    let Some(Token::Word(name)) = iter.next() else {
        return None;
    };
    let mut entry = Entry {
        name: name.clone(),
        import_name: None,
        kind: SymbolKind::ImportCode,
        by_ordinal_only: false,
        private: false,
    };
    while let Some(token) = iter.next() {
        match token {
            // `name=internal`: importers use `name`; the DLL-internal name does not matter here.
            Token::Equal => {
                iter.next();
            }
            // `name == import`: the DLL exports `import` (EXPORTAS).
            Token::EqualEqual => {
                if let Some(Token::Word(import)) = iter.next() {
                    entry.import_name = Some(import.clone());
                }
            }
            Token::At => {
                iter.next();
            }
            Token::Comma => {}
            Token::Word(word) => match word.to_ascii_uppercase().as_str() {
                "DATA" => entry.kind = SymbolKind::ImportData,
                "CONSTANT" => entry.kind = SymbolKind::ImportConst,
                "NONAME" => entry.by_ordinal_only = true,
                "PRIVATE" => entry.private = true,
                // `@1` written without a space is one word after the name.
                _ => {}
            },
        }
    }
    Some(entry)
}

/// The DLL a `LIBRARY`/`NAME` statement names, with the default extension added.
fn module_name(tokens: &[Token], default_extension: &str) -> Option<String> {
    match tokens.get(1) {
        Some(Token::Word(name)) if !name.to_ascii_uppercase().starts_with("BASE") => {
            if Path::new(name).extension().is_some() {
                Some(name.clone())
            } else {
                Some(format!("{name}{default_extension}"))
            }
        }
        _ => None,
    }
}

/// Reads a `.def` file as the import library it describes (machine [`Machine::Any`]: a `.def`
/// has none; on x86 the linker-level names gain a `_` prefix, which the resolver must add).
pub(crate) fn read_def(path: &Path, data: &[u8]) -> Result<FileContents, IndexError> {
    if data.contains(&0) {
        return Err(IndexError::malformed(
            FileFormat::Def,
            "binary data in a .def file",
        ));
    }
    let source = String::from_utf8_lossy(data);
    let mut dll = None;
    let mut entries = Vec::new();
    let mut in_exports = false;
    for line in source.lines() {
        let tokens = tokenize(line);
        let Some(first) = tokens.first() else {
            continue;
        };
        let keyword = match first {
            Token::Word(word) => KEYWORDS
                .iter()
                .find(|k| word.eq_ignore_ascii_case(k))
                .copied(),
            _ => None,
        };
        match keyword {
            Some("LIBRARY") => {
                in_exports = false;
                dll = module_name(&tokens, ".dll").or(dll);
            }
            Some("NAME") => {
                in_exports = false;
                dll = module_name(&tokens, ".exe").or(dll);
            }
            Some("EXPORTS") => {
                in_exports = true;
                entries.extend(parse_entry(&tokens[1..]));
            }
            Some(_) => in_exports = false,
            None if in_exports => entries.extend(parse_entry(&tokens)),
            None => {}
        }
    }
    let dll = dll.unwrap_or_else(|| {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        format!("{stem}.dll")
    });
    let mut contents = FileContents::new(path, FileFormat::Def);
    contents.info.members = 1;
    contents.info.machines.push(Machine::Any);
    contents.info.dlls.push(dll.clone());
    for entry in entries {
        if entry.private {
            continue;
        }
        contents.info.import_members += 1;
        let mut symbol = LibrarySymbol::new(
            format!("__imp_{}", entry.name),
            path,
            entry.kind.clone(),
            Machine::Any,
        );
        symbol.dll = Some(dll.clone());
        symbol.export_name = if entry.by_ordinal_only {
            None
        } else {
            Some(entry.import_name.unwrap_or_else(|| entry.name.clone()))
        };
        if entry.kind == SymbolKind::ImportCode {
            let mut code = symbol.clone();
            code.name = entry.name;
            contents.symbols.push(code);
        }
        contents.symbols.push(symbol);
    }
    Ok(contents)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(source: &str) -> FileContents {
        match read_def(Path::new("x/amdhip64.def"), source.as_bytes()) {
            Ok(contents) => contents,
            Err(error) => panic!("read_def failed: {error}"),
        }
    }

    #[test]
    fn exports_with_every_attribute() {
        let contents = read(
            "; HIP runtime\nLIBRARY \"amdhip64_6\"\nEXPORTS\n  hipMalloc @1\n  hipFree@2 ; comment\n\
             \x20 gVar DATA\n  kConst CONSTANT\n  hidden PRIVATE\n  ext=internal\n  alias == real\n\
             \x20 byord @7 NONAME\n",
        );
        let names: Vec<_> = contents.symbols.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "hipMalloc",
                "__imp_hipMalloc",
                "hipFree@2",
                "__imp_hipFree@2",
                "__imp_gVar",
                "__imp_kConst",
                "ext",
                "__imp_ext",
                "alias",
                "__imp_alias",
                "byord",
                "__imp_byord",
            ]
        );
        assert!(contents
            .symbols
            .iter()
            .all(|s| s.dll.as_deref() == Some("amdhip64_6.dll")));
        assert_eq!(contents.symbols[4].kind, SymbolKind::ImportData);
        assert_eq!(contents.symbols[5].kind, SymbolKind::ImportConst);
        assert_eq!(contents.symbols[9].export_name.as_deref(), Some("real"));
        assert_eq!(contents.symbols[11].export_name, None);
    }

    #[test]
    fn dll_name_defaults() {
        let contents = read("NAME tool\nEXPORTS\nf\n");
        assert_eq!(contents.info.dlls, ["tool.exe"]);
        let contents = read("EXPORTS f\n");
        assert_eq!(contents.info.dlls, ["amdhip64.dll"]);
        assert_eq!(contents.symbols.len(), 2);
    }
}
