//! Response files (`@file` in a command): read as link.exe and the LLVM tools read them, and
//! written back in the encoding they were read in (docs/RULES.md §18).
//!
//! A response file is UTF-16 when it starts with a UTF-16 byte-order mark (little- or big-endian),
//! else UTF-8 (a UTF-8 mark is skipped). Its words are split by the Windows argument rules with
//! line ends as separators ([`super::winargs::split_arguments`]). A response file may name further
//! response files; they are read too, to a bounded depth.

use std::path::Path;

use super::winargs;

/// The most response files one command's expansion reads (nested ones counted each time named).
pub const MAX_FILES: usize = 4096;

/// The most arguments one command's response files hold in all.
pub const MAX_WORDS: usize = 4_000_000;

/// How a response file's text was encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 without a byte-order mark (invalid bytes are replaced when read).
    Utf8,
    /// UTF-8 with a byte-order mark.
    Utf8Bom,
    /// UTF-16 little-endian with a byte-order mark.
    Utf16Le,
    /// UTF-16 big-endian with a byte-order mark.
    Utf16Be,
}

/// A response file's text and how it was encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The text.
    pub text: String,
    /// The encoding it was read in (and is written back in).
    pub encoding: Encoding,
    /// Whether invalid bytes were replaced (UTF-8 that is not, e.g. an ANSI code page).
    pub replaced: bool,
}

/// Decodes a response file's bytes.
pub fn decode(bytes: &[u8]) -> Decoded {
    let utf16 = |body: &[u8], little_endian: bool| {
        let units: Vec<u16> = body
            .chunks_exact(2)
            .map(|pair| {
                if little_endian {
                    u16::from_le_bytes([pair[0], pair[1]])
                } else {
                    u16::from_be_bytes([pair[0], pair[1]])
                }
            })
            .collect();
        let text = String::from_utf16_lossy(&units);
        let replaced = body.len() % 2 == 1 || text.contains('\u{fffd}');
        (text, replaced)
    };
    let (text, encoding, replaced) = match bytes {
        [0xff, 0xfe, body @ ..] => {
            let (text, replaced) = utf16(body, true);
            (text, Encoding::Utf16Le, replaced)
        }
        [0xfe, 0xff, body @ ..] => {
            let (text, replaced) = utf16(body, false);
            (text, Encoding::Utf16Be, replaced)
        }
        [0xef, 0xbb, 0xbf, body @ ..] => {
            let text = String::from_utf8_lossy(body);
            let replaced = matches!(text, std::borrow::Cow::Owned(_));
            (text.into_owned(), Encoding::Utf8Bom, replaced)
        }
        body => {
            let text = String::from_utf8_lossy(body);
            let replaced = matches!(text, std::borrow::Cow::Owned(_));
            (text.into_owned(), Encoding::Utf8, replaced)
        }
    };
    Decoded {
        text,
        encoding,
        replaced,
    }
}

/// Encodes `words` as a response file in `encoding`, one word per line.
pub fn encode(words: &[String], encoding: Encoding) -> Vec<u8> {
    let text = winargs::join_response_file(words);
    match encoding {
        Encoding::Utf8 => text.into_bytes(),
        Encoding::Utf8Bom => [&[0xef, 0xbb, 0xbf][..], text.as_bytes()].concat(),
        Encoding::Utf16Le => std::iter::once(0xfeff)
            .chain(text.encode_utf16())
            .flat_map(u16::to_le_bytes)
            .collect(),
        Encoding::Utf16Be => std::iter::once(0xfeff)
            .chain(text.encode_utf16())
            .flat_map(u16::to_be_bytes)
            .collect(),
    }
}

/// Reads a response file from disk: its words, encoding and whether bytes were replaced. It is
/// opened as the other inputs are (without blocking, a regular file only: a FIFO or a device such
/// as `/dev/zero` is refused), and read up to `max_bytes` (`--verify-max-bytes`; a CMake link
/// of a large project lists tens of thousands of objects in a few megabytes).
pub fn read(path: &Path, max_bytes: u64) -> Result<(Vec<String>, Decoded), String> {
    use std::io::Read;
    let file = crate::files::open::open_regular(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > max_bytes {
        return Err(format!(
            "more than the {max_bytes} bytes read (--verify-max-bytes)"
        ));
    }
    let decoded = decode(&bytes);
    Ok((winargs::split_arguments(&decoded.text), decoded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_round_trip() {
        let words: Vec<String> = ["/nologo", r"C:\Users\Jörg\a b.obj", "/LIBPATH:C:\\x\\"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        for encoding in [
            Encoding::Utf8,
            Encoding::Utf8Bom,
            Encoding::Utf16Le,
            Encoding::Utf16Be,
        ] {
            let bytes = encode(&words, encoding);
            let decoded = decode(&bytes);
            assert_eq!(decoded.encoding, encoding);
            assert!(!decoded.replaced);
            assert_eq!(
                winargs::split_arguments(&decoded.text),
                words,
                "{encoding:?}"
            );
        }
    }

    #[test]
    fn utf16_as_cmake_and_msbuild_write_it() {
        // UTF-16LE with a BOM and CRLF, as `Out-File` and MSBuild's tools write it.
        let text = "\"C:\\Program Files\\x.obj\"\r\nkernel32.lib\r\n";
        let bytes: Vec<u8> = std::iter::once(0xfeffu16)
            .chain(text.encode_utf16())
            .flat_map(u16::to_le_bytes)
            .collect();
        let decoded = decode(&bytes);
        assert_eq!(decoded.encoding, Encoding::Utf16Le);
        assert_eq!(
            winargs::split_arguments(&decoded.text),
            [r"C:\Program Files\x.obj", "kernel32.lib"]
        );
        // Invalid UTF-8 (an ANSI code page) is replaced, and said so.
        let decoded = decode(b"J\xf6rg.obj");
        assert!(decoded.replaced);
        assert_eq!(decoded.encoding, Encoding::Utf8);
    }
}
