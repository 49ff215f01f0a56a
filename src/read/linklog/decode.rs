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
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
        // The first region decides: up to the first UTF-8 line end (an LF with no NUL beside it),
        // as text in another encoding may follow.
        let first_region = head
            .iter()
            .enumerate()
            .position(|(i, &b)| {
                b == b'\n'
                    && head.get(i + 1).is_some_and(|&n| n != 0)
                    && (i == 0 || head[i - 1] != 0)
            })
            .map_or(head.len(), |i| i + 1);
        let sample = &head[..first_region.min(4096) & !1];
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

/// How much of a log was decoded, and how: for the warnings on doubtful decodings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DecodeStats {
    /// The encoding of each region, in order (more than one when text in another encoding was
    /// appended: `cmd >>` onto a PowerShell UTF-16 file, or PowerShell `>>` onto a UTF-8 one).
    pub regions: Vec<Encoding>,
    /// U+FFFD written for bytes that were no text in their region's encoding.
    pub replacements: u64,
    /// UTF-16 units decoded, and how many of them were CJK ideographs or Hangul syllables (UTF-8
    /// read as UTF-16 gives mostly those).
    pub utf16_units: u64,
    /// See [`DecodeStats::utf16_units`].
    pub utf16_cjk_units: u64,
}

/// The decoding of one region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Utf8,
    Utf16 { little_endian: bool },
}

/// A UTF-16 decoder of one byte order that leaves byte-order marks in (they are dropped
/// wherever they appear, as a log appended to several times holds one per part).
fn utf16_decoder(little_endian: bool) -> encoding_rs::Decoder {
    let encoding = if little_endian {
        encoding_rs::UTF_16LE
    } else {
        encoding_rs::UTF_16BE
    };
    encoding.new_decoder_without_bom_handling()
}

/// How much UTF-8 the decoder checks for NULs and hands on at a time (see
/// [`Decoder::utf8_window`]).
const UTF8_WINDOW: usize = 16 * 1024;

/// Longest partial line held back in UTF-16 (to be read again as UTF-8 if it turns out to be
/// appended UTF-8); longer lines are decoded as they come.
const HELD_LINE: usize = 64 * 1024;

/// A log as UTF-8 bytes, decoded region by region. UTF-8 passes through without a copy until a
/// NUL byte appears; a line whose NULs fall in every other byte starts a UTF-16 region. In UTF-16,
/// the current line is held back until its LF: when it has no NUL at all and holds a one-byte line
/// end (UTF-8's `\n`, not UTF-16's `\n\0`), it is UTF-8 that was appended, and is read as such.
/// Unpaired surrogates and odd trailing bytes become U+FFFD; byte-order marks are dropped.
///
/// The UTF-16 itself is decoded by `encoding_rs` (surrogate pairs, replacement of unpaired
/// halves, a pair split across reads); this type only decides where each region starts and ends,
/// which no decoding library does for text whose encoding changes mid-file.
struct Decoder<R> {
    inner: R,
    mode: Mode,
    /// Decoded bytes waiting to be read (UTF-16 regions, and a held line read again as UTF-8).
    out: Vec<u8>,
    out_pos: usize,
    /// The current UTF-16 line: its raw bytes, not yet decoded.
    line_raw: Vec<u8>,
    /// A byte left over from an odd-sized read.
    odd: Option<u8>,
    /// The UTF-16 decoder of the current region (it keeps a high surrogate whose low half is in
    /// the next line piece).
    utf16: Option<encoding_rs::Decoder>,
    /// In UTF-8: how much of the inner buffer's start is known to be UTF-8 (checked once, not at
    /// every call: the line reader asks for the buffer once a line).
    clean: usize,
    /// How much UTF-8 is checked and handed on at a time ([`UTF8_WINDOW`]; other sizes in tests).
    window: usize,
    stats: std::rc::Rc<std::cell::RefCell<DecodeStats>>,
}

impl<R: BufRead> Decoder<R> {
    fn new(inner: R, encoding: Encoding) -> Self {
        let mode = match encoding.is_utf16() {
            Some(little_endian) => Mode::Utf16 { little_endian },
            None => Mode::Utf8,
        };
        let stats = DecodeStats {
            regions: vec![encoding],
            ..DecodeStats::default()
        };
        Decoder {
            inner,
            mode,
            out: Vec::new(),
            out_pos: 0,
            line_raw: Vec::new(),
            odd: None,
            utf16: encoding.is_utf16().map(utf16_decoder),
            clean: 0,
            window: UTF8_WINDOW,
            stats: std::rc::Rc::new(std::cell::RefCell::new(stats)),
        }
    }

    fn switch(&mut self, mode: Mode) {
        self.mode = mode;
        self.clean = 0;
        self.utf16 = match mode {
            Mode::Utf16 { little_endian } => Some(utf16_decoder(little_endian)),
            Mode::Utf8 => None,
        };
        let encoding = match mode {
            Mode::Utf8 => Encoding::Utf8,
            Mode::Utf16 {
                little_endian: true,
            } => Encoding::Utf16Le,
            Mode::Utf16 {
                little_endian: false,
            } => Encoding::Utf16Be,
        };
        self.stats.borrow_mut().regions.push(encoding);
    }

    /// Counts a UTF-16 unit for the statistics (the decoding is done a line at a time).
    fn count_unit(&mut self, unit: u16) {
        let mut stats = self.stats.borrow_mut();
        stats.utf16_units += 1;
        if matches!(unit, 0x3400..=0x9FFF | 0xAC00..=0xD7A3) {
            stats.utf16_cjk_units += 1;
        }
    }

    /// Decodes the held line's bytes (and, at the end of input, what is left over) into `out`,
    /// byte-order marks dropped and replacements counted.
    fn flush_line(&mut self, last: bool) {
        let raw = std::mem::take(&mut self.line_raw);
        let Some(decoder) = self.utf16.as_mut() else {
            return;
        };
        let mut text = String::with_capacity(raw.len() + 4);
        let mut input: &[u8] = &raw;
        loop {
            let needed = decoder
                .max_utf8_buffer_length_without_replacement(input.len())
                .unwrap_or(input.len() * 3 + 16);
            text.reserve(needed.max(8));
            let (result, read, _) = decoder.decode_to_string(input, &mut text, last);
            input = &input[read..];
            if result == encoding_rs::CoderResult::InputEmpty {
                break;
            }
        }
        let replacements = text.matches('\u{FFFD}').count() as u64;
        if replacements > 0 {
            self.stats.borrow_mut().replacements += replacements;
        }
        if text.contains('\u{FEFF}') {
            text.retain(|c| c != '\u{FEFF}');
        }
        self.out.extend_from_slice(text.as_bytes());
        if last {
            // A finished decoder cannot be used again; the end of input may be reached twice.
            let little_endian = matches!(
                self.mode,
                Mode::Utf16 {
                    little_endian: true
                }
            );
            self.utf16 = Some(utf16_decoder(little_endian));
        }
    }

    /// Decodes UTF-16 from `inner` into `out` until some is there, or the region ends.
    fn refill_utf16(&mut self, little_endian: bool) -> io::Result<()> {
        self.out.clear();
        self.out_pos = 0;
        while self.out.is_empty() && self.mode != Mode::Utf8 {
            let buf = fill(&mut self.inner)?;
            if buf.is_empty() {
                // A last line without NULs: appended UTF-8 whose line end, if any, was not seen
                // in a pair.
                self.line_raw.extend(self.odd.take());
                if self.line_raw.len() >= 8 && memchr::memchr(0, &self.line_raw).is_none() {
                    let raw = std::mem::take(&mut self.line_raw);
                    self.out.extend_from_slice(&raw);
                    self.switch(Mode::Utf8);
                    return Ok(());
                }
                self.flush_line(true);
                return Ok(());
            }
            let buf = buf.to_vec();
            let mut used = 0;
            let mut at = 0;
            while at < buf.len() {
                let pair = match self.odd.take() {
                    Some(first) => {
                        at += 1;
                        [first, buf[at - 1]]
                    }
                    None if at + 1 < buf.len() => {
                        at += 2;
                        [buf[at - 2], buf[at - 1]]
                    }
                    None => {
                        self.odd = Some(buf[at]);
                        at += 1;
                        used = at;
                        break;
                    }
                };
                used = at;
                let unit = if little_endian {
                    u16::from_le_bytes(pair)
                } else {
                    u16::from_be_bytes(pair)
                };
                self.line_raw.extend_from_slice(&pair);
                // A one-byte line end inside a line that has no NUL: appended UTF-8.
                let (low, high) = if little_endian {
                    (pair[0], pair[1])
                } else {
                    (pair[1], pair[0])
                };
                let utf8_line_end =
                    (low == b'\n' || low == b'\r' || high == b'\n' || high == b'\r')
                        && low != 0
                        && high != 0;
                if utf8_line_end
                    && self.line_raw.len() >= 8
                    && memchr::memchr(0, &self.line_raw).is_none()
                {
                    let mut raw = std::mem::take(&mut self.line_raw);
                    // A line end in the first byte of the pair: the second starts the next line.
                    if pair[0] == b'\n' || (pair[0] == b'\r' && pair[1] != b'\n') {
                        raw.pop();
                        used -= 1;
                    }
                    self.out.extend_from_slice(&raw);
                    self.inner.consume(used);
                    self.switch(Mode::Utf8);
                    return Ok(());
                }
                self.count_unit(unit);
                if unit == u16::from(b'\n') || self.line_raw.len() > HELD_LINE {
                    self.flush_line(false);
                }
            }
            self.inner.consume(used);
        }
        Ok(())
    }

    /// [`Decoder::utf8_prefix`] of the whole lines of the first `window` bytes of `buf` when
    /// they hold no NUL (most text), else of all of `buf`. The reader scans what it is handed
    /// right after this check: a window it has just read is still in the cache, where all of a
    /// large read buffer would not be. A window ends at a line end, so the check of a line with a
    /// NUL starts at its start, as it would in one pass over the buffer.
    fn utf8_window(buf: &[u8], window: usize) -> (usize, Option<Mode>) {
        if buf.len() > window {
            let window = &buf[..window];
            if memchr::memchr(0, window).is_none() {
                if let Some(end) = memchr::memrchr(b'\n', window) {
                    return (end + 1, None);
                }
            }
        }
        Self::utf8_prefix(buf)
    }

    /// In UTF-8: the length of `buf` that is UTF-8 for sure (up to the start of a line holding a
    /// NUL), and whether that line starts a UTF-16 region (`Some(mode)`).
    fn utf8_prefix(buf: &[u8]) -> (usize, Option<Mode>) {
        let Some(nul) = memchr::memchr(0, buf) else {
            return (buf.len(), None);
        };
        let start = memchr::memrchr(b'\n', &buf[..nul]).map_or(0, |i| i + 1);
        if start > 0 {
            return (start, None);
        }
        // The line starts the buffer: NULs in every other byte of its first 64 (up to its end)
        // make it UTF-16.
        let sample = &buf[..buf.len().min(64)];
        let sample = sample
            .strip_prefix(&[0xFF, 0xFE])
            .or_else(|| sample.strip_prefix(&[0xFE, 0xFF]))
            .unwrap_or(sample);
        let sample = match sample.iter().skip(2).position(|&b| b == b'\n') {
            Some(at) => &sample[..(at + 4).min(sample.len())],
            None => sample,
        };
        let odd = sample
            .iter()
            .skip(1)
            .step_by(2)
            .filter(|&&b| b == 0)
            .count();
        let even = sample.iter().step_by(2).filter(|&&b| b == 0).count();
        let pairs = sample.len() / 2;
        if pairs >= 2 && odd * 10 >= pairs * 7 && even * 10 <= pairs {
            return (
                0,
                Some(Mode::Utf16 {
                    little_endian: true,
                }),
            );
        }
        if pairs >= 2 && even * 10 >= pairs * 7 && odd * 10 <= pairs {
            return (
                0,
                Some(Mode::Utf16 {
                    little_endian: false,
                }),
            );
        }
        // Binary NULs in UTF-8 text: the whole line stays UTF-8.
        let end = memchr::memchr(b'\n', &buf[nul..]).map_or(buf.len(), |i| nul + i + 1);
        (end, None)
    }

    /// In UTF-8 with nothing decoded waiting: the reader's whole buffer, not checked for NULs
    /// beyond what is known clean. For a caller that checks the bytes it uses itself, in a pass
    /// it makes anyway, and marks them ([`Decoder::mark_clean`]) or falls back to `fill_buf`
    /// when they hold a NUL. `None` in UTF-16, with decoded bytes waiting, or at the end.
    fn utf8_unchecked(&mut self) -> io::Result<Option<&[u8]>> {
        if self.mode != Mode::Utf8 || self.out_pos < self.out.len() {
            return Ok(None);
        }
        let buf = fill(&mut self.inner)?;
        Ok((!buf.is_empty()).then_some(buf))
    }

    /// Records that the first `length` bytes of the reader's buffer hold no NUL (they are
    /// UTF-8 for sure): `fill_buf` hands them on without checking them again.
    fn mark_clean(&mut self, length: usize) {
        self.clean = self.clean.max(length);
    }
}

impl<R: BufRead> Read for Decoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Decoder<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        loop {
            if self.out_pos < self.out.len() {
                return Ok(&self.out[self.out_pos..]);
            }
            match self.mode {
                Mode::Utf16 { little_endian } => {
                    self.refill_utf16(little_endian)?;
                    if self.out_pos >= self.out.len() && self.mode != Mode::Utf8 {
                        return Ok(&[]);
                    }
                }
                Mode::Utf8 => {
                    let available = fill(&mut self.inner)?.len();
                    if self.clean > 0 && self.clean <= available {
                        let clean = self.clean;
                        return Ok(&self.inner.fill_buf()?[..clean]);
                    }
                    let window = self.window;
                    let (length, switch) = Self::utf8_window(fill(&mut self.inner)?, window);
                    if let Some(mode) = switch {
                        // A byte-order mark at the start of the region is not text.
                        let buf = fill(&mut self.inner)?;
                        if buf.starts_with(&[0xFF, 0xFE]) || buf.starts_with(&[0xFE, 0xFF]) {
                            self.inner.consume(2);
                        }
                        self.clean = 0;
                        self.switch(mode);
                        continue;
                    }
                    self.clean = length;
                    let buf = self.inner.fill_buf()?;
                    return Ok(&buf[..length]);
                }
            }
        }
    }

    fn consume(&mut self, amount: usize) {
        if self.out_pos < self.out.len() {
            self.out_pos += amount;
        } else {
            self.inner.consume(amount);
            self.clean = self.clean.saturating_sub(amount);
        }
    }
}

/// Reads a byte stream as lines of text, whatever its encoding and line endings.
///
/// Lines longer than the limit are cut at the limit (the rest of the line is skipped, never
/// buffered) and counted, so that a 10 MB line or a binary file cannot exhaust memory.
pub struct LineReader {
    inner: Decoder<Source>,
    decode_stats: std::rc::Rc<std::cell::RefCell<DecodeStats>>,
    encoding: Encoding,
    binary: bool,
    max_line_bytes: usize,
    pending_cr: bool,
    raw: Vec<u8>,
    /// Number of lines read so far.
    pub line_number: u64,
    /// Number of lines that were longer than the limit and were cut.
    pub truncated_lines: u64,
    /// Cut lines whose dropped part held a link error (`LNK2019`, `undefined symbol`, ...): a
    /// failed link that the kept part may not show.
    pub cut_records: u64,
    cut: CutScan,
    /// Whether the last line read is its bytes exactly: not cut, and valid UTF-8.
    line_exact: bool,
    /// Total bytes consumed (after transcoding).
    pub bytes: u64,
    /// Up to which byte the line scan lets the decoder check every byte for NULs: the end of a
    /// buffer in which the scan met one.
    checked_until: u64,
}

impl LineReader {
    /// Wraps a reader; the encoding is detected from its first bytes.
    pub fn new<R: Read + 'static>(reader: R, max_line_bytes: usize) -> io::Result<LineReader> {
        Self::with_window(reader, max_line_bytes, UTF8_WINDOW)
    }

    /// [`LineReader::new`], checking `window` bytes of UTF-8 at a time (tests compare sizes).
    fn with_window<R: Read + 'static>(
        reader: R,
        max_line_bytes: usize,
        window: usize,
    ) -> io::Result<LineReader> {
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
        let reader: Source = BufReader::with_capacity(
            128 * 1024,
            io::Cursor::new(head).chain(Retrying(Box::new(reader))),
        );
        let mut decoder = Decoder::new(reader, encoding);
        decoder.window = window.max(1);
        let decode_stats = decoder.stats.clone();
        let inner = decoder;
        Ok(LineReader {
            inner,
            decode_stats,
            encoding,
            binary,
            max_line_bytes: max_line_bytes.max(1),
            pending_cr: false,
            raw: Vec::new(),
            line_number: 0,
            truncated_lines: 0,
            cut_records: 0,
            cut: CutScan::default(),
            line_exact: false,
            bytes: 0,
            checked_until: 0,
        })
    }

    /// The detected encoding (of the first region).
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// How the log was decoded so far: its regions and the replacements made.
    pub fn decode_stats(&self) -> DecodeStats {
        self.decode_stats.borrow().clone()
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
        self.next_matching_line_showing(line, filter, None)
    }

    /// [`LineReader::next_matching_line`], showing the lines it skips to `shown` (with each
    /// one's number) while they start before byte `shown.0` of the input, a run of whole lines
    /// at a time: they are split and checked as text only for it (invalid UTF-8 replaced and
    /// counted as [`LineReader::next_line`] does), not read one by one. The returned line is not
    /// shown. Kept whole because the buffer it borrows from the decoder serves the scan, the count,
    /// the NUL tests and what is consumed: split, each part would borrow and check it again.
    pub fn next_matching_line_showing(
        &mut self,
        line: &mut String,
        filter: &LineFilter,
        mut shown: Option<(u64, ShownLines<'_>)>,
    ) -> io::Result<bool> {
        loop {
            // In UTF-8 the whole buffer is scanned unchecked: the lines skipped are checked for
            // NULs in the pass that counts them, and the matched line after them before it is
            // read. Where they hold one, the decoder decides (a UTF-16 region may start there)
            // for the rest of this buffer. A match on the first line is read through the decoder.
            let (buf, unchecked) = if self.bytes >= self.checked_until {
                match self.inner.utf8_unchecked()? {
                    Some(buf) => (buf, true),
                    None => (fill(&mut self.inner)?, false),
                }
            } else {
                (fill(&mut self.inner)?, false)
            };
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
            let matched_at = filter.find(buf);
            let skip_to = match matched_at {
                Some(at) => memchr::memrchr2(b'\n', b'\r', &buf[..at]).map_or(0, |i| i + 1),
                None => memchr::memrchr2(b'\n', b'\r', buf).map_or(0, |i| i + 1),
            };
            // Lines longer than the longest line kept are read one by one, to be cut as
            // `next_line` cuts them.
            let one_by_one = shown.is_some() && skip_to > self.max_line_bytes;
            if skip_to == 0 || one_by_one {
                // The match is on the first line, or the buffer holds part of one long line. A
                // line kept as read (whole, valid UTF-8) holds the match the scan found in it;
                // a cut or repaired one is searched again.
                let start = self.bytes;
                let found = self.next_line(line)?;
                let holds_match =
                    matched_at.is_some_and(|at| !one_by_one && self.line_exact && at < line.len());
                if !found || holds_match || filter.is_match(line.as_bytes()) {
                    return Ok(found);
                }
                if let Some((until, shown)) = shown.as_mut() {
                    if start < *until {
                        shown(self.line_number, line);
                    }
                }
                continue;
            }
            let region = &buf[..skip_to];
            // A CR ending the region is counted as a line end; its LF, if any, is consumed below.
            let LineEnds { count, nul } = count_line_ends(region);
            if unchecked && nul {
                self.checked_until = self.bytes + buf.len() as u64;
                continue;
            }
            if let Some((until, shown)) = shown.as_mut() {
                if self.bytes < *until {
                    let shown_bytes = usize::try_from(*until - self.bytes).unwrap_or(usize::MAX);
                    let replaced = show_lines(self.line_number + 1, region, shown_bytes, *shown);
                    self.decode_stats.borrow_mut().replacements += replaced;
                }
            }
            let mut used = skip_to;
            if region[skip_to - 1] == b'\r' {
                // A CR ending the region: its LF, if any, belongs to it.
                match buf.get(skip_to) {
                    Some(b'\n') => used += 1,
                    Some(_) => {}
                    None => self.pending_cr = true,
                }
            }
            if unchecked {
                // The matched line, read next, is checked here: the decoder then hands it on
                // without checking the bytes after it.
                let rest = &buf[used..];
                let end = line_end(rest);
                if memchr::memchr(0, &rest[..end]).is_none() {
                    self.inner.mark_clean(used + end);
                }
            }
            self.line_number += count as u64;
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
            let buf = fill(&mut self.inner)?;
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
                        &mut self.cut,
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
                        &mut self.cut,
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
            if std::mem::take(&mut self.cut.marked) {
                self.cut_records += 1;
            }
        }
        self.line_exact = !truncated;
        match std::str::from_utf8(&self.raw) {
            Ok(text) => line.push_str(text),
            Err(_) => {
                self.line_exact = false;
                let text = String::from_utf8_lossy(&self.raw);
                let replaced = text.matches('\u{FFFD}').count() - bytecount_replacement(&self.raw);
                self.decode_stats.borrow_mut().replacements += replaced as u64;
                line.push_str(&text);
            }
        }
    }
}

/// Sees the lines [`LineReader::next_matching_line_showing`] skips: each one's number and text.
pub type ShownLines<'a> = &'a mut dyn FnMut(u64, &str);

/// Shows `shown` the lines of `region` (whole lines, each ended by an LF, a CRLF or a lone CR)
/// that start before byte `until` of it, numbered from `first`. Returns how many invalid
/// UTF-8 sequences were replaced.
fn show_lines(first: u64, region: &[u8], until: usize, shown: ShownLines<'_>) -> u64 {
    let (mut number, mut at, mut replaced) = (first, 0, 0);
    while at < region.len() && at < until {
        let end = memchr::memchr2(b'\n', b'\r', &region[at..]).map_or(region.len(), |i| at + i);
        let raw = &region[at..end];
        match std::str::from_utf8(raw) {
            Ok(text) => shown(number, text),
            Err(_) => {
                let text = String::from_utf8_lossy(raw);
                replaced += (text.matches('\u{FFFD}').count() - bytecount_replacement(raw)) as u64;
                shown(number, &text);
            }
        }
        number += 1;
        at = end + 1;
        if region.get(end) == Some(&b'\r') && region.get(end + 1) == Some(&b'\n') {
            at += 1;
        }
    }
    replaced
}

/// How many U+FFFD a line held as text already (they are not replacements made here).
fn bytecount_replacement(raw: &[u8]) -> usize {
    memchr::memmem::find_iter(raw, "\u{FFFD}".as_bytes()).count()
}

/// The length of the first line of `bytes` with its terminator (LF, CRLF or a lone CR), or of
/// all of `bytes` when no terminator is in them.
fn line_end(bytes: &[u8]) -> usize {
    match memchr::memchr2(b'\n', b'\r', bytes) {
        Some(i) if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') => i + 2,
        Some(i) => i + 1,
        None => bytes.len(),
    }
}

/// What [`count_line_ends`] finds in a run of lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LineEnds {
    /// Every LF, and every CR that no LF follows (CRLF counts once, a lone CR ends a line).
    count: usize,
    /// Whether a NUL is among the bytes.
    nul: bool,
}

/// The line ends of `region` (which ends at a line end), and whether it holds a NUL. One pass in
/// lanes with byte counters, which the compiler vectorizes: twice as fast here as counting LFs
/// and lone CRs with two `memchr` passes, and the NUL test costs nothing more. Every line the scan
/// skips is counted here, so on x86-64 the pass uses AVX2 where the processor has it (twice the
/// lanes of the SSE2 baseline the program is built for).
fn count_line_ends(region: &[u8]) -> LineEnds {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just above.
            return unsafe { count_line_ends_avx2(region) };
        }
    }
    count_line_ends_in_lanes(region)
}

/// [`count_line_ends`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn count_line_ends_avx2(region: &[u8]) -> LineEnds {
    count_line_ends_in_lanes(region)
}

/// [`count_line_ends`] in lanes of 32 bytes: 255 rounds at most per block, so no byte counter
/// overflows. Inlined into each caller, to be vectorized for the caller's instruction set.
#[inline(always)]
fn count_line_ends_in_lanes(region: &[u8]) -> LineEnds {
    const LANES: usize = 32;
    let Some((&last, _)) = region.split_last() else {
        return LineEnds {
            count: 0,
            nul: false,
        };
    };
    let (bytes, next) = (&region[..region.len() - 1], &region[1..]);
    let mut count = usize::from(last == b'\n' || last == b'\r');
    let mut nul = last == 0;
    for (block, next_block) in bytes.chunks(255 * LANES).zip(next.chunks(255 * LANES)) {
        let mut lanes = [0u8; LANES];
        let mut nuls = [false; LANES];
        let mut chunks = block.chunks_exact(LANES);
        let mut next_chunks = next_block.chunks_exact(LANES);
        for (chunk, next_chunk) in (&mut chunks).zip(&mut next_chunks) {
            for k in 0..LANES {
                let ends = (chunk[k] == b'\n') | ((chunk[k] == b'\r') & (next_chunk[k] != b'\n'));
                lanes[k] += u8::from(ends);
                nuls[k] |= chunk[k] == 0;
            }
        }
        count += lanes.iter().map(|&n| usize::from(n)).sum::<usize>();
        nul |= nuls.iter().fold(false, |any, &n| any | n);
        for (&b, &n) in chunks.remainder().iter().zip(next_chunks.remainder()) {
            count += usize::from((b == b'\n') | ((b == b'\r') & (n != b'\n')));
            nul |= b == 0;
        }
    }
    LineEnds { count, nul }
}

/// The reader's buffer, refilled when empty (an interrupted read is retried below it: [`Retrying`]).
fn fill<B: BufRead>(inner: &mut B) -> io::Result<&[u8]> {
    inner.fill_buf()
}

/// What a [`LineReader`] reads from: the head it read to detect the encoding, then the rest,
/// through one buffer. Only the reader at the bottom is dynamic (one call per buffer filled);
/// the layers above it are concrete, so the calls a line makes through them are inlined.
type Source = BufReader<io::Chain<io::Cursor<Vec<u8>>, Retrying>>;

/// A reader that retries a read interrupted by a signal, so that nothing above it sees
/// `Interrupted` (a buffer's `fill_buf` would return it).
struct Retrying(Box<dyn Read>);

impl Read for Retrying {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                result => return result,
            }
        }
    }
}

/// The last bytes seen of the line being cut, and whether its dropped part held a marker.
#[derive(Default)]
struct CutScan {
    tail: Vec<u8>,
    marked: bool,
}

/// Appends to the line up to the limit; what does not fit is dropped, flagged, and searched for
/// link-error markers (across the pieces a long line arrives in).
fn append(raw: &mut Vec<u8>, max: usize, cut: &mut CutScan, bytes: &[u8], truncated: &mut bool) {
    let room = max.saturating_sub(raw.len());
    if bytes.len() <= room {
        raw.extend_from_slice(bytes);
        return;
    }
    if !*truncated {
        // The first drop of this line: the kept end may hold the start of a marker.
        raw.extend_from_slice(&bytes[..room]);
        cut.tail.clear();
        cut.tail
            .extend_from_slice(&raw[raw.len().saturating_sub(MARKER_TAIL)..]);
        cut.marked = false;
        *truncated = true;
    }
    let dropped = &bytes[room.min(bytes.len())..];
    if !cut.marked {
        cut.tail
            .extend_from_slice(&dropped[..dropped.len().min(MARKER_TAIL)]);
        cut.marked = has_record_marker(&cut.tail) || has_record_marker(dropped);
        cut.tail.clear();
        cut.tail
            .extend_from_slice(&dropped[dropped.len().saturating_sub(MARKER_TAIL)..]);
    }
}

/// Bytes kept across the pieces of a cut line: the longest marker, less one.
const MARKER_TAIL: usize = 24;

/// Whether bytes hold the start of a link error record (what the parser anchors on).
fn has_record_marker(bytes: &[u8]) -> bool {
    use std::sync::OnceLock;
    static MARKERS: OnceLock<aho_corasick::AhoCorasick> = OnceLock::new();
    MARKERS
        .get_or_init(|| {
            aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build([
                    "LNK2019",
                    "LNK2001",
                    "LNK1120",
                    "undefined symbol",
                    "unresolved external",
                ])
                .expect("plain strings")
        })
        .is_match(bytes)
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

    /// Every line and the decoding statistics, reading `window` bytes of UTF-8 at a time.
    fn lines_by_window(bytes: &[u8], window: usize) -> (Vec<String>, String) {
        let cursor = std::io::Cursor::new(bytes.to_vec());
        let mut reader = LineReader::with_window(cursor, 1 << 20, window).unwrap();
        let mut out = Vec::new();
        let mut line = String::new();
        while reader.next_line(&mut line).unwrap() {
            out.push(line.clone());
        }
        let stats = reader.decode_stats();
        let stats = format!(
            "{:?} {} {} {}",
            stats.regions, stats.replacements, stats.utf16_units, stats.utf16_cjk_units
        );
        (out, stats)
    }

    #[test]
    fn the_utf8_window_changes_no_line() {
        // UTF-8 with a UTF-16 region, binary NULs in a UTF-8 line, lone CRs and a long line,
        // each placed across window ends of several sizes (one pass over the whole buffer, the
        // former reading, is the reference).
        let mut seed = 3u32;
        let mut next = move |n: u32| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (seed >> 16) % n
        };
        for round in 0..40 {
            let mut log = Vec::new();
            for _ in 0..(20 + next(200)) {
                match next(12) {
                    0 => log.extend(utf16("Ошибка LNK2019 x\r\n", true, false)),
                    1 => log.extend_from_slice(b"bin\0ary\0\0 junk\n"),
                    2 => log.extend_from_slice(b"old mac line\r"),
                    3 => log.extend(std::iter::repeat_n(b'y', 5000 + next(3000) as usize)),
                    _ => log.extend_from_slice(
                        b"x.obj : error LNK2019: unresolved external symbol f\r\n",
                    ),
                }
            }
            let whole = lines_by_window(&log, usize::MAX);
            for window in [1, 7, 64, 100, 4096, UTF8_WINDOW] {
                assert_eq!(
                    lines_by_window(&log, window),
                    whole,
                    "round {round}, window {window}"
                );
            }
        }
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

    fn lines_and_regions(bytes: &[u8]) -> (Vec<String>, DecodeStats) {
        let mut reader = LineReader::new(std::io::Cursor::new(bytes.to_vec()), 1 << 20).unwrap();
        let mut out = Vec::new();
        let mut line = String::new();
        while reader.next_line(&mut line).unwrap() {
            out.push(line.clone());
        }
        (out, reader.decode_stats())
    }

    #[test]
    fn appended_text_in_another_encoding_is_read_in_its_own() {
        let head = "PS> ninja\r\n[1/2] Linking\r\n";
        let tail = "main.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function main\r\nout.dll : fatal error LNK1120: 1 unresolved externals\r\n";
        let want = [
            "PS> ninja",
            "[1/2] Linking",
            "main.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function main",
            "out.dll : fatal error LNK1120: 1 unresolved externals",
        ];
        // PowerShell's UTF-16 file, then `cmd >>` (UTF-8); with a final line with no line end.
        let mut bytes = utf16(head, true, true);
        bytes.extend_from_slice(tail.as_bytes());
        let (got, stats) = lines_and_regions(&bytes);
        assert_eq!(got, want);
        assert_eq!(stats.regions, [Encoding::Utf16LeBom, Encoding::Utf8]);
        assert_eq!(stats.replacements, 0);
        // The reverse: a UTF-8 file, then PowerShell's `>>` (UTF-16, with or without a BOM, either
        // byte order).
        for (little_endian, bom, region) in [
            (true, false, Encoding::Utf16Le),
            (true, true, Encoding::Utf16Le),
            (false, true, Encoding::Utf16Be),
        ] {
            let mut bytes = head.as_bytes().to_vec();
            bytes.extend_from_slice(&utf16(tail, little_endian, bom));
            let (got, stats) = lines_and_regions(&bytes);
            assert_eq!(got, want, "{region:?}");
            assert_eq!(stats.regions, [Encoding::Utf8, region]);
            assert_eq!(stats.replacements, 0);
        }
        // Back and forth, and odd line lengths.
        let mut bytes = utf16("a\n", true, true);
        bytes.extend_from_slice(b"odd utf-8 line\n");
        bytes.extend_from_slice(&utf16("bc\n", true, false));
        bytes.extend_from_slice(b"appended again\n");
        let (got, stats) = lines_and_regions(&bytes);
        assert_eq!(got, ["a", "odd utf-8 line", "bc", "appended again"]);
        assert_eq!(stats.regions.len(), 4);
    }

    #[test]
    fn binary_nuls_in_utf8_and_cjk_in_utf16_stay_in_their_region() {
        let (got, stats) = lines_and_regions(b"a\0b\nc\n");
        assert_eq!(got, ["a\0b", "c"]);
        assert_eq!(stats.regions, [Encoding::Utf8]);
        let text = "链接错误：无法解析的外部符号 hipMalloc\r\n";
        let (got, stats) = lines_and_regions(&utf16(text, true, true));
        assert_eq!(got, ["链接错误：无法解析的外部符号 hipMalloc"]);
        assert_eq!(stats.regions, [Encoding::Utf16LeBom]);
        // UTF-8 read as UTF-16 (no line end to tell): mostly ideographs, counted.
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend_from_slice(&[0x4E, 0x6F].repeat(100));
        let (_, stats) = lines_and_regions(&bytes);
        assert!(stats.utf16_cjk_units * 2 > stats.utf16_units, "{stats:?}");
        let (_, stats) = lines_and_regions(&[0xFFu8; 64]);
        assert_eq!(stats.replacements, 64);
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

    /// Every line `reader` reads one by one, with its number and where it starts, and how many
    /// replacements were counted.
    fn every_line_and_start(mut reader: LineReader) -> (Vec<(u64, String, u64)>, u64) {
        let (mut every, mut line) = (Vec::new(), String::new());
        let mut start = reader.bytes;
        while reader.next_line(&mut line).unwrap() {
            every.push((reader.line_number, line.clone(), start));
            start = reader.bytes;
        }
        (every, reader.decode_stats().replacements)
    }

    /// The numbers of the lines `reader` returns as matching `filter`, and every line seen in
    /// order: those it shows (while they start before byte `until`) and those it returns.
    fn matching_and_shown(
        reader: &mut LineReader,
        filter: &LineFilter,
        until: u64,
    ) -> (Vec<u64>, Vec<(u64, String)>) {
        let (mut returned, mut seen, mut line) = (Vec::new(), Vec::new(), String::new());
        loop {
            let mut show = |number: u64, text: &str| seen.push((number, text.to_string()));
            let shown: Option<(u64, ShownLines<'_>)> = Some((until, &mut show));
            if !reader
                .next_matching_line_showing(&mut line, filter, shown)
                .unwrap()
            {
                return (returned, seen);
            }
            returned.push(reader.line_number);
            seen.push((reader.line_number, line.clone()));
        }
    }

    #[test]
    fn skipping_meets_nuls_and_utf16_regions_as_reading_every_line_does() {
        // Pages of skipped UTF-8 (several reader buffers) around UTF-8 lines holding NULs and
        // UTF-16 regions with and without a byte-order mark, records in each: the scan, which
        // checks skipped lines for NULs itself, must hand the decoder every line it needs to see.
        let filter = LineFilter::new(&["LNK"], [0x1b, 0x1b]);
        let mut log = Vec::new();
        for part in 0..24 {
            for i in 0..(600 + part * 97) {
                log.extend_from_slice(
                    format!("[{i}] clang-cl /c k{i}.cpp /Fok{i}.obj\r\n").as_bytes(),
                );
            }
            log.extend_from_slice(format!("k{part}.obj : error LNK2019: a{part}\r\n").as_bytes());
            match part % 4 {
                0 => log.extend_from_slice(b"binary \0 NUL, LNK in it\nbinary \0 no match\n"),
                1 | 2 => {
                    // Lines to skip, then a line whose bytes without a mark start `LNK`
                    // (U+4E4C, `K`): the scan matches a line the decoder must see as UTF-16.
                    log.extend_from_slice(b"skipped\r\n".repeat(part).as_slice());
                    let text =
                        format!("\u{4E4C}K u{part}.obj : error LNK2001: w{part}\r\nplain\r\n");
                    log.extend_from_slice(&utf16(&text, true, part % 4 == 1));
                }
                _ => log.extend_from_slice(format!("LNK1120: {part}\n").as_bytes()),
            }
        }
        let (want, lines) = matching_by_reading_every_line(&log, &filter);
        assert_eq!(want.len(), 48, "{want:?}");
        assert!(want
            .iter()
            .any(|(_, text)| text == "\u{4E4C}K u2.obj : error LNK2001: w2"));
        let (got, reader) = matching_by_scanning(&log, &filter);
        assert_eq!(got, want);
        assert_eq!(reader.line_number, lines);
        assert!(reader.decode_stats().regions.len() > 12);
    }

    /// The lines of `log` that `filter` matches, with their numbers, as reading every line finds
    /// them; and how many lines there are.
    fn matching_by_reading_every_line(
        log: &[u8],
        filter: &LineFilter,
    ) -> (Vec<(u64, String)>, u64) {
        let reader = LineReader::new(std::io::Cursor::new(log.to_vec()), 1 << 20).unwrap();
        let (every, _) = every_line_and_start(reader);
        let matching = every
            .iter()
            .filter(|(_, text, _)| filter.is_match(text.as_bytes()))
            .map(|(number, text, _)| (*number, text.clone()))
            .collect();
        (matching, every.len() as u64)
    }

    /// The lines of `log` that the scan returns as matching `filter`, with their numbers, and
    /// the reader after the scan.
    fn matching_by_scanning(log: &[u8], filter: &LineFilter) -> (Vec<(u64, String)>, LineReader) {
        let mut reader = LineReader::new(std::io::Cursor::new(log.to_vec()), 1 << 20).unwrap();
        let (mut matching, mut line) = (Vec::new(), String::new());
        while reader.next_matching_line(&mut line, filter).unwrap() {
            matching.push((reader.line_number, line.clone()));
        }
        (matching, reader)
    }

    #[test]
    fn skipping_decoded_text_marks_none_of_the_bytes_after_it() {
        // Skipped lines and a match inside a UTF-16 region, then a long UTF-8 line (served
        // decoded, as the line that ends the region) and a UTF-16 line whose bytes spell `LNK`:
        // nothing the scan learns of decoded text may count as checked bytes of what follows.
        let filter = LineFilter::new(&["LNK"], [0x1b, 0x1b]);
        let mut log = b"first LNK line\r\n".to_vec();
        let skipped = format!("{}\r\n", "skipped ".repeat(30));
        let region = format!("{}LNK in utf16\r\n{skipped}", skipped.repeat(40));
        log.extend_from_slice(&utf16(&region, true, true));
        log.extend_from_slice(format!("{}\r\n", "utf8 ".repeat(40)).as_bytes());
        let last = format!(
            "\u{4E4C}K u.obj : error LNK2001: w\r\n{}",
            "plain\r\n".repeat(80)
        );
        log.extend_from_slice(&utf16(&last, true, false));
        let (want, _) = matching_by_reading_every_line(&log, &filter);
        assert_eq!(want.len(), 3, "{want:?}");
        assert_eq!(matching_by_scanning(&log, &filter).0, want);
    }

    #[test]
    fn skipped_lines_are_shown_as_reading_them_would_show_them() {
        // LF, CRLF and lone CR ends, invalid UTF-8, a U+FFFD already in the text, lines the
        // filter matches, a line longer than the smallest limit, and no end on the last line.
        let filter = LineFilter::new(&["LNK"], [0x1b, 0x1b]);
        let mut log = Vec::new();
        for i in 0..300 {
            log.extend_from_slice(format!("[{i}/300] clang-cl /c k{i}.cpp").as_bytes());
            log.extend_from_slice(match i % 7 {
                0 => b"\r\n".as_slice(),
                1 => b"\r",
                2 => b" bad \xff\xfe byte\n",
                3 => " kept \u{FFFD}\n".as_bytes(),
                4 => b" error LNK2019: x\r\n",
                5 => b" long long long long long long long long long long long\n",
                _ => b"\n",
            });
        }
        log.extend_from_slice(b"tail without an end");
        let read_all = |max: usize, window: usize| {
            let source = std::io::Cursor::new(log.clone());
            LineReader::with_window(source, max, window).unwrap()
        };
        for max in [20, 100, 1 << 20] {
            for window in [1, 7, 100, 4096, UTF8_WINDOW] {
                let (every, every_replaced) = every_line_and_start(read_all(max, window));
                let matched: Vec<u64> = every
                    .iter()
                    .filter(|(_, text, _)| filter.is_match(text.as_bytes()))
                    .map(|(number, _, _)| *number)
                    .collect();
                // A cut line may lose its match; whole lines keep theirs.
                if max > 100 {
                    assert!(matched.len() > 40 && matched.len() < every.len() / 2);
                }
                for until in [0, 1, 500, 4321, log.len() as u64, u64::MAX] {
                    let mut reader = read_all(max, window);
                    let (returned, seen) = matching_and_shown(&mut reader, &filter, until);
                    let context = format!("max {max}, window {window}, until {until}");
                    assert_eq!(returned, matched, "{context}");
                    let want: Vec<(u64, String)> = every
                        .iter()
                        .filter(|(number, _, start)| *start < until || matched.contains(number))
                        .map(|(number, text, _)| (*number, text.clone()))
                        .collect();
                    assert_eq!(seen, want, "{context}");
                    assert_eq!(reader.line_number, every.len() as u64, "{context}");
                    if until == u64::MAX {
                        assert_eq!(
                            reader.decode_stats().replacements,
                            every_replaced,
                            "{context}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn line_ends_are_counted_like_a_byte_loop() {
        let slow = |b: &[u8]| LineEnds {
            count: (0..b.len())
                .filter(|&i| b[i] == b'\n' || (b[i] == b'\r' && b.get(i + 1) != Some(&b'\n')))
                .count(),
            nul: b.contains(&0),
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
            for round in 0..6 {
                let mut bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        [b'\r', b'\n', b'a'][(state % 3) as usize]
                    })
                    .collect();
                // One NUL, at the start, the end or anywhere (in a lane or in the remainder).
                if len > 0 && round >= 3 {
                    let at = [0, len - 1, (state as usize) % len][round - 3];
                    bytes[at] = 0;
                }
                // The dispatched count (AVX2 where the processor has it) and the baseline one.
                assert_eq!(count_line_ends(&bytes), slow(&bytes), "length {len}");
                assert_eq!(
                    count_line_ends_in_lanes(&bytes),
                    slow(&bytes),
                    "length {len}"
                );
            }
        }
        // Enough line ends in one block to overflow a byte counter if blocks were longer.
        let ends = [b'\n'; 255 * 32 * 3];
        assert_eq!(count_line_ends(&ends).count, 255 * 32 * 3);
        assert_eq!(count_line_ends_in_lanes(&ends).count, 255 * 32 * 3);
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
