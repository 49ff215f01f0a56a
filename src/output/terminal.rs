//! What reaches a terminal: text that cannot drive it. Log lines, paths, archive member and symbol
//! names, environment values and saved JSON are data from elsewhere; a C0 control (ESC, BEL,
//! backspace, carriage return), DEL, a C1 control (U+009B CSI, U+009D OSC) or a bidirectional
//! override in them could retitle the terminal, write the clipboard (OSC 52), or make a line show
//! something other than what it holds. [`neutralise`] shows them escaped (`\x1b`, `\u{202e}`);
//! [`Neutralising`] does it to a whole output stream (the binary puts it in front of stdout's text
//! reports and stderr), letting through only the styling escapes lnkfix itself writes. JSON keeps
//! exact values: [`write_json`] writes those characters as `\uXXXX` escapes, which JSON reads back
//! as the same characters.

use std::borrow::Cow;
use std::io::{self, Write};
use std::path::Path;

/// The styling escapes lnkfix writes (anstyle's bold, dim, green, yellow and reset): the only
/// escape sequences [`Neutralising`] lets through. They change weight and colour, nothing else.
const OWN_STYLES: &[&[u8]] = &[b"\x1b[0m", b"\x1b[1m", b"\x1b[2m", b"\x1b[32m", b"\x1b[33m"];

/// Whether a character must not reach a terminal as it is: C0 controls other than tab and
/// newline, DEL, C1 controls, and the bidirectional embeddings, overrides, isolates and marks.
pub fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

fn escape(c: char, out: &mut String) {
    use std::fmt::Write as _;
    if (c as u32) < 0x80 {
        let _ = write!(out, "\\x{:02x}", c as u32);
    } else {
        let _ = write!(out, "\\u{{{:x}}}", c as u32);
    }
}

/// `text` with every unsafe character ([`is_unsafe`]) shown escaped.
pub fn neutralise(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unsafe(c) {
            escape(c, &mut out);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A path as text for people: as it is when it is Unicode, else with each byte that is not
/// (each unpaired surrogate on Windows) shown as `\xNN` (`\u{dNNN}`): never U+FFFD, which would
/// name another file.
pub fn path_text(path: &Path) -> Cow<'_, str> {
    if let Some(text) = path.to_str() {
        return Cow::Borrowed(text);
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let mut out = String::new();
        for chunk in path.as_os_str().as_bytes().utf8_chunks() {
            out.push_str(chunk.valid());
            for byte in chunk.invalid() {
                out.push_str(&format!("\\x{byte:02x}"));
            }
        }
        Cow::Owned(out)
    }
    #[cfg(windows)]
    {
        use std::os::windows::ffi::OsStrExt;
        let units: Vec<u16> = path.as_os_str().encode_wide().collect();
        let mut out = String::new();
        for unit in char::decode_utf16(units) {
            match unit {
                Ok(c) => out.push(c),
                Err(error) => out.push_str(&format!("\\u{{{:x}}}", error.unpaired_surrogate())),
            }
        }
        Cow::Owned(out)
    }
    #[cfg(not(any(unix, windows)))]
    {
        Cow::Owned(path.to_string_lossy().into_owned())
    }
}

/// A stream in front of a terminal: every unsafe character written is shown escaped, bytes that
/// are no UTF-8 as `\xNN`, and only lnkfix's own styling escapes pass. Sequences split across
/// writes are held until they are whole.
pub struct Neutralising<W: Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: Write> Neutralising<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Self {
        Neutralising {
            inner,
            pending: Vec::new(),
        }
    }

    /// Neutralises `bytes`; returns how many were handled (the rest, an incomplete sequence at
    /// the end, waits for more).
    fn convert(bytes: &[u8], out: &mut Vec<u8>, at_end: bool) -> usize {
        let mut at = 0;
        while at < bytes.len() {
            let rest = &bytes[at..];
            let b = rest[0];
            if b == 0x1b {
                if let Some(style) = OWN_STYLES.iter().find(|s| rest.starts_with(s)) {
                    out.extend_from_slice(style);
                    at += style.len();
                    continue;
                }
                if !at_end && OWN_STYLES.iter().any(|s| s.starts_with(rest)) {
                    return at;
                }
            }
            if b < 0x80 {
                if is_unsafe(b as char) {
                    out.extend_from_slice(format!("\\x{b:02x}").as_bytes());
                } else {
                    out.push(b);
                }
                at += 1;
                continue;
            }
            let width = match b {
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF4 => 4,
                _ => 1,
            };
            if rest.len() < width && !at_end {
                return at;
            }
            match std::str::from_utf8(&rest[..width.min(rest.len())]) {
                Ok(text) => {
                    let c = text.chars().next().unwrap_or('\u{fffd}');
                    if is_unsafe(c) {
                        let mut escaped = String::new();
                        escape(c, &mut escaped);
                        out.extend_from_slice(escaped.as_bytes());
                    } else {
                        out.extend_from_slice(text.as_bytes());
                    }
                    at += width;
                }
                Err(_) => {
                    out.extend_from_slice(format!("\\x{b:02x}").as_bytes());
                    at += 1;
                }
            }
        }
        at
    }
}

impl<W: Write> Write for Neutralising<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut input = std::mem::take(&mut self.pending);
        input.extend_from_slice(buf);
        let mut out = Vec::with_capacity(input.len() + 16);
        let used = Self::convert(&input, &mut out, false);
        self.pending = input[used..].to_vec();
        self.inner.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let input = std::mem::take(&mut self.pending);
        let mut out = Vec::new();
        Self::convert(&input, &mut out, true);
        self.inner.write_all(&out)?;
        self.inner.flush()
    }
}

/// A JSON formatter that writes unsafe characters as `\uXXXX` escapes (the value is unchanged).
struct SafeJson(serde_json::ser::PrettyFormatter<'static>);

impl serde_json::ser::Formatter for SafeJson {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // Most fragments are printable ASCII, which holds no unsafe character. Every byte is
        // tested, without stopping early: a loop the compiler vectorises.
        let printable_ascii = fragment
            .bytes()
            .fold(true, |all, b| all & (b.wrapping_sub(0x20) < 0x5f));
        if printable_ascii {
            return writer.write_all(fragment.as_bytes());
        }
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if is_unsafe(c) {
                writer.write_all(&fragment.as_bytes()[start..i])?;
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04x}")?;
                }
                start = i + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }

    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// Writes `value` as pretty JSON followed by a newline, with unsafe characters as `\uXXXX`
/// escapes. Serialised once into nothing first: a value that cannot be serialised (the only way a
/// serialisation fails) writes nothing, never half a document, and no copy of a large document is
/// held in memory. The first pass is compact and unescaped: formatting cannot fail into a sink,
/// so only the value's own serialisation is checked, at the least cost.
pub fn write_json<T: serde::Serialize + ?Sized>(value: &T, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer(io::sink(), value).map_err(io::Error::other)?;
    let formatter = SafeJson(serde_json::ser::PrettyFormatter::new());
    let mut serializer = serde_json::Serializer::with_formatter(&mut *out, formatter);
    // `From` keeps an I/O error's kind (a closed pipe stays `BrokenPipe`).
    value.serialize(&mut serializer).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// Serialises a path as [`path_text`] shows it (for `#[serde(serialize_with)]`): never U+FFFD
/// and never a failed report for a path that is not valid Unicode.
pub fn serialize_path<S: serde::Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&path_text(path))
}

/// [`serialize_path`] for an optional path (`null` when absent).
pub fn serialize_optional_path<S: serde::Serializer>(
    path: &Option<std::path::PathBuf>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match path {
        Some(path) => serialize_path(path, serializer),
        None => serializer.serialize_none(),
    }
}

/// [`serialize_path`] for a list of paths.
pub fn serialize_paths<S: serde::Serializer>(
    paths: &[std::path::PathBuf],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(paths.iter().map(|p| path_text(p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_overrides_are_shown_escaped() {
        assert_eq!(neutralise("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(
            neutralise("a\x1b]0;title\x07b\u{9d}52;c;x\u{9c}\u{202e}cba\r\x08\x7f"),
            "a\\x1b]0;title\\x07b\\u{9d}52;c;x\\u{9c}\\u{202e}cba\\x0d\\x08\\x7f"
        );
        assert!(matches!(neutralise("é ü 中"), Cow::Borrowed(_)));
    }

    #[test]
    fn the_stream_lets_only_its_own_styles_through_even_when_split() {
        let text = "\x1b[1mbold\x1b[0m \x1b[31mred\x1b]52;c;eA==\x07 \u{202e}x \u{9b}2J";
        let want = "\x1b[1mbold\x1b[0m \\x1b[31mred\\x1b]52;c;eA==\\x07 \\u{202e}x \\u{9b}2J";
        for split in 0..text.len() {
            let mut out = Vec::new();
            {
                let mut stream = Neutralising::new(&mut out);
                stream.write_all(&text.as_bytes()[..split]).unwrap();
                stream.write_all(&text.as_bytes()[split..]).unwrap();
                stream.flush().unwrap();
            }
            assert_eq!(String::from_utf8(out).unwrap(), want, "split at {split}");
        }
        let mut out = Vec::new();
        Neutralising::new(&mut out).write_all(b"\xff\xc3").unwrap();
        let mut stream = Neutralising::new(Vec::new());
        stream.write_all(b"a\xff\xc3").unwrap();
        stream.flush().unwrap();
        assert_eq!(stream.inner, b"a\\xff\\xc3");
    }

    #[test]
    fn json_escapes_keep_the_value() {
        let value = serde_json::json!({"name": "a\u{202e}b\u{9d}c\x1bd"});
        let mut out = Vec::new();
        write_json(&value, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains(r"a\u202eb\u009dc\u001bd"), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }

    #[cfg(unix)]
    #[test]
    fn non_unicode_paths_are_escaped_not_replaced() {
        use std::os::unix::ffi::OsStrExt;
        let path = Path::new(std::ffi::OsStr::from_bytes(b"libs\xff/x\xfe.lib"));
        assert_eq!(path_text(path), "libs\\xff/x\\xfe.lib");
    }
}
