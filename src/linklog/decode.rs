//! Bytes to text lines: encoding detection (UTF-8, UTF-16 with or without BOM), line splitting
//! (LF, CRLF, lone CR) and a bound on line length, all streamed so a 1 GB log needs bounded memory.

use std::io::{self, BufRead, BufReader, Read};

/// What makes a line worth reading: any of a set of substrings (searched with one SIMD
/// multi-pattern scan) or any of up to two bytes (searched with `memchr2`). Bytes are for
/// needles too short for the multi-pattern scan to stay fast: every pattern of three bytes or
/// more lets it compare three-byte fingerprints, one of two bytes halves its selectivity.
#[derive(Debug, Clone)]
pub struct LineFilter {
    needles: aho_corasick::AhoCorasick,
    bytes: [u8; 2],
}

impl LineFilter {
    /// A filter for `needles` (each at least three bytes long, for speed) and `bytes`.
    pub fn new(needles: &[&str], bytes: [u8; 2]) -> LineFilter {
        let needles = aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostFirst)
            .build(needles)
            .expect("needles are plain strings");
        LineFilter { needles, bytes }
    }

    /// The offset of the first needle or byte in `haystack`.
    pub fn find(&self, haystack: &[u8]) -> Option<usize> {
        let needle = self.needles.find(haystack).map(|m| m.start());
        let before = &haystack[..needle.unwrap_or(haystack.len())];
        memchr::memchr2(self.bytes[0], self.bytes[1], before).or(needle)
    }

    /// Whether `haystack` holds a needle or a byte.
    pub fn is_match(&self, haystack: &[u8]) -> bool {
        memchr::memchr2(self.bytes[0], self.bytes[1], haystack).is_some()
            || self.needles.is_match(haystack)
    }
}

/// Whether bytes look binary: a NUL, or more than one byte in ten a control character that text
/// does not hold (tab, line breaks, form feed and ESC are text).
fn looks_binary(head: &[u8]) -> bool {
    let control = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b))
        .count();
    memchr::memchr(0, head).is_some() || control * 10 > head.len()
}

/// The text encoding a log was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Encoding {
    /// UTF-8 (or ASCII, or anything else: invalid bytes are replaced).
    Utf8,
    /// UTF-8 with a byte-order mark.
    Utf8Bom,
    /// UTF-16 little endian with a BOM (PowerShell's `>` writes this).
    Utf16LeBom,
    /// UTF-16 big endian with a BOM.
    Utf16BeBom,
    /// UTF-16 little endian without a BOM, detected from the pattern of NUL bytes.
    Utf16Le,
    /// UTF-16 big endian without a BOM, detected from the pattern of NUL bytes.
    Utf16Be,
}

impl Encoding {
    /// Detects the encoding from the first bytes of a file; returns the encoding and how many BOM
    /// bytes to skip.
    pub fn detect(head: &[u8]) -> (Encoding, usize) {
        if head.starts_with(&[0xEF, 0xBB, 0xBF]) {
            return (Encoding::Utf8Bom, 3);
        }
        if head.starts_with(&[0xFF, 0xFE]) {
            return (Encoding::Utf16LeBom, 2);
        }
        if head.starts_with(&[0xFE, 0xFF]) {
            return (Encoding::Utf16BeBom, 2);
        }
        // Without a BOM, UTF-16 text of mostly ASCII has a NUL in every other byte: odd
        // positions for little endian, even positions for big endian.
        let sample = &head[..head.len().min(4096) & !1];
        if sample.len() >= 4 {
            let pairs = sample.len() / 2;
            let nul_odd = sample
                .iter()
                .skip(1)
                .step_by(2)
                .filter(|&&b| b == 0)
                .count();
            let nul_even = sample.iter().step_by(2).filter(|&&b| b == 0).count();
            if nul_odd * 10 >= pairs * 7 && nul_even * 10 <= pairs {
                return (Encoding::Utf16Le, 0);
            }
            if nul_even * 10 >= pairs * 7 && nul_odd * 10 <= pairs {
                return (Encoding::Utf16Be, 0);
            }
        }
        (Encoding::Utf8, 0)
    }

    fn is_utf16(self) -> Option<bool> {
        match self {
            Encoding::Utf16LeBom | Encoding::Utf16Le => Some(true),
            Encoding::Utf16BeBom | Encoding::Utf16Be => Some(false),
            _ => None,
        }
    }
}

/// Transcodes a UTF-16 byte stream into UTF-8 bytes, replacing unpaired surrogates with U+FFFD.
struct Utf16ToUtf8<R> {
    inner: R,
    little_endian: bool,
    /// A byte left over from an odd-sized read.
    odd: Option<u8>,
    /// A high surrogate waiting for its low half.
    high: Option<u16>,
    out: Vec<u8>,
    out_pos: usize,
    raw: Vec<u8>,
    eof: bool,
}

impl<R: Read> Utf16ToUtf8<R> {
    fn new(inner: R, little_endian: bool) -> Self {
        Utf16ToUtf8 {
            inner,
            little_endian,
            odd: None,
            high: None,
            out: Vec::with_capacity(64 * 1024),
            out_pos: 0,
            raw: vec![0; 32 * 1024],
            eof: false,
        }
    }

    fn push_char(&mut self, c: char) {
        let mut buf = [0u8; 4];
        self.out
            .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }

    fn push_unit(&mut self, unit: u16) {
        match (self.high.take(), unit) {
            (None, 0xD800..=0xDBFF) => self.high = Some(unit),
            (None, 0xDC00..=0xDFFF) => self.push_char(char::REPLACEMENT_CHARACTER),
            (None, u) => self.push_char(char::from_u32(u32::from(u)).unwrap_or('\u{FFFD}')),
            (Some(h), 0xDC00..=0xDFFF) => {
                let c = 0x10000 + ((u32::from(h) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                self.push_char(char::from_u32(c).unwrap_or('\u{FFFD}'));
            }
            (Some(_), 0xD800..=0xDBFF) => {
                self.push_char(char::REPLACEMENT_CHARACTER);
                self.high = Some(unit);
            }
            (Some(_), u) => {
                self.push_char(char::REPLACEMENT_CHARACTER);
                self.push_char(char::from_u32(u32::from(u)).unwrap_or('\u{FFFD}'));
            }
        }
    }

    fn refill(&mut self) -> io::Result<()> {
        self.out.clear();
        self.out_pos = 0;
        while self.out.is_empty() && !self.eof {
            let n = self.inner.read(&mut self.raw)?;
            if n == 0 {
                self.eof = true;
                if self.odd.take().is_some() || self.high.take().is_some() {
                    self.push_char(char::REPLACEMENT_CHARACTER);
                }
                break;
            }
            let mut i = 0;
            if let Some(first) = self.odd.take() {
                let pair = [first, self.raw[0]];
                self.push_unit(self.unit(pair));
                i = 1;
            }
            while i + 1 < n {
                let pair = [self.raw[i], self.raw[i + 1]];
                self.push_unit(self.unit(pair));
                i += 2;
            }
            if i < n {
                self.odd = Some(self.raw[i]);
            }
        }
        Ok(())
    }

    fn unit(&self, pair: [u8; 2]) -> u16 {
        if self.little_endian {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    }
}

impl<R: Read> Read for Utf16ToUtf8<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.out_pos >= self.out.len() {
            self.refill()?;
        }
        let available = &self.out[self.out_pos..];
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.out_pos += n;
        Ok(n)
    }
}

/// Reads a byte stream as lines of text, whatever its encoding and line endings.
///
/// Lines longer than the limit are cut at the limit (the rest of the line is skipped, never
/// buffered) and counted, so that a 10 MB line or a binary file cannot exhaust memory.
pub struct LineReader {
    inner: Box<dyn BufRead>,
    encoding: Encoding,
    binary: bool,
    max_line_bytes: usize,
    pending_cr: bool,
    raw: Vec<u8>,
    /// Number of lines read so far.
    pub line_number: u64,
    /// Number of lines that were longer than the limit and were cut.
    pub truncated_lines: u64,
    /// Total bytes consumed (after transcoding).
    pub bytes: u64,
}

impl LineReader {
    /// Wraps a reader; the encoding is detected from its first bytes.
    pub fn new<R: Read + 'static>(reader: R, max_line_bytes: usize) -> io::Result<LineReader> {
        // Read a head of up to 4 KiB (a pipe may deliver it in pieces) to detect the encoding,
        // then put it back in front of the rest of the stream.
        let mut reader = reader;
        let mut head = vec![0u8; 4096];
        let mut filled = 0;
        while filled < head.len() {
            match reader.read(&mut head[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        head.truncate(filled);
        let (encoding, bom) = Encoding::detect(&head);
        head.drain(..bom);
        let binary = encoding.is_utf16().is_none() && looks_binary(&head);
        let reader = BufReader::with_capacity(128 * 1024, io::Cursor::new(head).chain(reader));
        let inner: Box<dyn BufRead> = match encoding.is_utf16() {
            Some(little_endian) => Box::new(BufReader::with_capacity(
                256 * 1024,
                Utf16ToUtf8::new(reader, little_endian),
            )),
            None => Box::new(reader),
        };
        Ok(LineReader {
            inner,
            encoding,
            binary,
            max_line_bytes: max_line_bytes.max(1),
            pending_cr: false,
            raw: Vec::new(),
            line_number: 0,
            truncated_lines: 0,
            bytes: 0,
        })
    }

    /// The detected encoding.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Whether the first 4 KiB look like a binary file (an archive, an image, an executable)
    /// rather than text in any encoding this reader knows.
    pub fn looks_binary(&self) -> bool {
        self.binary
    }

    /// Reads the next line that `filter` matches, skipping (and counting) the lines before it
    /// without decoding them: the whole buffer is scanned at once, as grep does. Returns `false`
    /// at the end of input. [`LineReader::line_number`] is the returned line's number.
    pub fn next_matching_line(
        &mut self,
        line: &mut String,
        filter: &LineFilter,
    ) -> io::Result<bool> {
        loop {
            let buf = fill(&mut *self.inner)?;
            if buf.is_empty() {
                return Ok(false);
            }
            if self.pending_cr {
                self.pending_cr = false;
                if buf[0] == b'\n' {
                    self.inner.consume(1);
                    self.bytes += 1;
                    continue;
                }
            }
            // The buffer starts at a line start. Skip whole lines up to the line of the first
            // match, or up to the last complete line when nothing matches.
            let skip_to = match filter.find(buf) {
                Some(at) => memchr::memrchr2(b'\n', b'\r', &buf[..at]).map_or(0, |i| i + 1),
                None => memchr::memrchr2(b'\n', b'\r', buf).map_or(0, |i| i + 1),
            };
            if skip_to == 0 {
                // The match is on the first line, or the buffer holds part of one long line.
                let found = self.next_line(line)?;
                if !found || filter.is_match(line.as_bytes()) {
                    return Ok(found);
                }
                continue;
            }
            let region = &buf[..skip_to];
            // A CR ending the region is counted as a line end; its LF, if any, is consumed below.
            let ends = count_line_ends(region);
            let mut used = skip_to;
            if region[skip_to - 1] == b'\r' {
                // A CR ending the region: its LF, if any, belongs to it.
                match buf.get(skip_to) {
                    Some(b'\n') => used += 1,
                    Some(_) => {}
                    None => self.pending_cr = true,
                }
            }
            self.line_number += ends as u64;
            self.bytes += used as u64;
            self.inner.consume(used);
        }
    }

    /// Reads the next line into `line` (without its terminator; invalid UTF-8 replaced).
    /// Returns `false` at the end of input.
    pub fn next_line(&mut self, line: &mut String) -> io::Result<bool> {
        line.clear();
        self.raw.clear();
        let mut saw_any = false;
        let mut truncated = false;
        loop {
            let buf = fill(&mut *self.inner)?;
            if buf.is_empty() {
                break;
            }
            let mut start = 0;
            if self.pending_cr {
                self.pending_cr = false;
                if buf[0] == b'\n' {
                    start = 1;
                }
            }
            let rest = &buf[start..];
            match memchr::memchr2(b'\n', b'\r', rest) {
                Some(pos) => {
                    append(
                        &mut self.raw,
                        self.max_line_bytes,
                        &rest[..pos],
                        &mut truncated,
                    );
                    let terminator = rest[pos];
                    let mut used = start + pos + 1;
                    if terminator == b'\r' {
                        if rest.len() > pos + 1 {
                            if rest[pos + 1] == b'\n' {
                                used += 1;
                            }
                        } else {
                            self.pending_cr = true;
                        }
                    }
                    self.inner.consume(used);
                    self.bytes += used as u64;
                    self.finish(line, truncated);
                    return Ok(true);
                }
                None => {
                    if !rest.is_empty() {
                        saw_any = true;
                    }
                    let n = buf.len();
                    append(
                        &mut self.raw,
                        self.max_line_bytes,
                        &buf[start..n],
                        &mut truncated,
                    );
                    self.inner.consume(n);
                    self.bytes += n as u64;
                }
            }
        }
        if saw_any {
            self.finish(line, truncated);
            return Ok(true);
        }
        Ok(false)
    }

    fn finish(&mut self, line: &mut String, truncated: bool) {
        self.line_number += 1;
        if truncated {
            self.truncated_lines += 1;
        }
        match std::str::from_utf8(&self.raw) {
            Ok(text) => line.push_str(text),
            Err(_) => line.push_str(&String::from_utf8_lossy(&self.raw)),
        }
    }
}

/// The line ends in `region`: every LF, and every CR that no LF follows (CRLF counts once, a
/// lone CR ends a line). One pass in lanes of 32 bytes with byte counters, which the compiler
/// vectorizes: twice as fast here as counting LFs and lone CRs with two `memchr` passes.
fn count_line_ends(region: &[u8]) -> usize {
    let Some((&last, _)) = region.split_last() else {
        return 0;
    };
    let (bytes, next) = (&region[..region.len() - 1], &region[1..]);
    let mut total = usize::from(last == b'\n' || last == b'\r');
    // 255 rounds at most per block, so no byte counter overflows.
    for (block, next_block) in bytes.chunks(255 * 32).zip(next.chunks(255 * 32)) {
        let mut lanes = [0u8; 32];
        let mut chunks = block.chunks_exact(32);
        let mut next_chunks = next_block.chunks_exact(32);
        for (chunk, next_chunk) in (&mut chunks).zip(&mut next_chunks) {
            for k in 0..32 {
                let ends = (chunk[k] == b'\n') | ((chunk[k] == b'\r') & (next_chunk[k] != b'\n'));
                lanes[k] += u8::from(ends);
            }
        }
        total += lanes.iter().map(|&n| usize::from(n)).sum::<usize>();
        for (&b, &n) in chunks.remainder().iter().zip(next_chunks.remainder()) {
            total += usize::from((b == b'\n') | ((b == b'\r') & (n != b'\n')));
        }
    }
    total
}

/// The reader's buffer, refilled when empty; an interrupted read is retried.
fn fill(inner: &mut dyn BufRead) -> io::Result<&[u8]> {
    loop {
        match inner.fill_buf() {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    inner.fill_buf()
}

/// Appends to a line buffer up to the limit; what does not fit is dropped and flagged.
fn append(raw: &mut Vec<u8>, max: usize, bytes: &[u8], truncated: &mut bool) {
    let room = max.saturating_sub(raw.len());
    if bytes.len() > room {
        *truncated = true;
    }
    raw.extend_from_slice(&bytes[..bytes.len().min(room)]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(bytes: &[u8]) -> (Encoding, Vec<String>) {
        let mut reader = LineReader::new(std::io::Cursor::new(bytes.to_vec()), 1 << 20).unwrap();
        let mut out = Vec::new();
        let mut line = String::new();
        while reader.next_line(&mut line).unwrap() {
            out.push(line.clone());
        }
        (reader.encoding(), out)
    }

    fn utf16(text: &str, little_endian: bool, bom: bool) -> Vec<u8> {
        let mut out = Vec::new();
        if bom {
            out.extend_from_slice(if little_endian {
                &[0xFF, 0xFE]
            } else {
                &[0xFE, 0xFF]
            });
        }
        for unit in text.encode_utf16() {
            out.extend_from_slice(&if little_endian {
                unit.to_le_bytes()
            } else {
                unit.to_be_bytes()
            });
        }
        out
    }

    #[test]
    fn line_endings_lf_crlf_lone_cr() {
        let (_, got) = lines(b"a\nb\r\nc\rd\r\r\ne");
        assert_eq!(got, ["a", "b", "c", "d", "", "e"]);
    }

    #[test]
    fn utf8_bom_and_invalid_bytes() {
        let (enc, got) = lines(b"\xEF\xBB\xBFh\xFFi\n");
        assert_eq!(enc, Encoding::Utf8Bom);
        assert_eq!(got, ["h\u{FFFD}i"]);
    }

    #[test]
    fn utf16_all_forms() {
        let text = "lld-link: error: undefined symbol: hipMalloc\r\n>>> référencé 😀\r\n";
        for (le, bom, want) in [
            (true, true, Encoding::Utf16LeBom),
            (false, true, Encoding::Utf16BeBom),
            (true, false, Encoding::Utf16Le),
            (false, false, Encoding::Utf16Be),
        ] {
            let (enc, got) = lines(&utf16(text, le, bom));
            assert_eq!(enc, want);
            assert_eq!(
                got,
                [
                    "lld-link: error: undefined symbol: hipMalloc",
                    ">>> référencé 😀"
                ]
            );
        }
    }

    #[test]
    fn utf16_unpaired_surrogate_and_odd_length_are_replaced() {
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend_from_slice(&0xD800u16.to_le_bytes());
        bytes.extend_from_slice(&(b'x' as u16).to_le_bytes());
        bytes.push(b'y');
        let (_, got) = lines(&bytes);
        assert_eq!(got, ["\u{FFFD}x\u{FFFD}"]);
    }

    #[test]
    fn long_lines_are_cut_and_counted() {
        let mut data = vec![b'a'; 100];
        data.push(b'\n');
        data.extend_from_slice(b"short\n");
        let mut reader = LineReader::new(std::io::Cursor::new(data), 10).unwrap();
        let mut line = String::new();
        assert!(reader.next_line(&mut line).unwrap());
        assert_eq!(line, "aaaaaaaaaa");
        assert!(reader.next_line(&mut line).unwrap());
        assert_eq!(line, "short");
        assert_eq!(reader.truncated_lines, 1);
    }

    #[test]
    fn skipping_counts_lines_exactly() {
        let filter = LineFilter::new(&["LNK"], [0x1b, 0x1b]);
        let text = "a\r\nb\rc\nLNK one\r\n\r\nx\ry LNK two\nz\x1b\r\n";
        let mut reader =
            LineReader::new(std::io::Cursor::new(text.as_bytes().to_vec()), 100).unwrap();
        let mut line = String::new();
        let mut got = Vec::new();
        while reader.next_matching_line(&mut line, &filter).unwrap() {
            got.push((reader.line_number, line.clone()));
        }
        assert_eq!(
            got,
            [
                (4, "LNK one".to_string()),
                (7, "y LNK two".to_string()),
                (8, "z\u{1b}".to_string())
            ]
        );
    }

    #[test]
    fn line_ends_are_counted_like_a_byte_loop() {
        let slow = |b: &[u8]| {
            (0..b.len())
                .filter(|&i| b[i] == b'\n' || (b[i] == b'\r' && b.get(i + 1) != Some(&b'\n')))
                .count()
        };
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for len in [
            0,
            1,
            2,
            31,
            32,
            33,
            255 * 32 - 1,
            255 * 32,
            255 * 32 + 1,
            20_000,
        ] {
            for _ in 0..4 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        [b'\r', b'\n', b'a'][(state % 3) as usize]
                    })
                    .collect();
                assert_eq!(count_line_ends(&bytes), slow(&bytes), "length {len}");
            }
        }
        // Enough line ends in one block to overflow a byte counter if blocks were longer.
        assert_eq!(count_line_ends(&[b'\n'; 255 * 32 * 3]), 255 * 32 * 3);
    }

    #[test]
    fn crlf_split_across_buffer_boundary() {
        // A reader that returns one byte at a time exercises the pending-CR path.
        struct OneByte(Vec<u8>, usize);
        impl Read for OneByte {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.1 >= self.0.len() || buf.is_empty() {
                    return Ok(0);
                }
                buf[0] = self.0[self.1];
                self.1 += 1;
                Ok(1)
            }
        }
        let mut reader = LineReader::new(OneByte(b"ab\r\ncd\r\n".to_vec(), 0), 100).unwrap();
        let mut got = Vec::new();
        let mut line = String::new();
        while reader.next_line(&mut line).unwrap() {
            got.push(line.clone());
        }
        assert_eq!(got, ["ab", "cd"]);
    }
}
