//! An upper bound on what msvc-demangler will build and write for a name, computed before it runs.
//!
//! MSVC names refer back to earlier names and types (digits `0`-`9`), and msvc-demangler copies
//! the referenced tree at each reference: a 200-byte name whose template arguments refer to the
//! previous level twice doubles at every level (docs/RULES.md §12). This module walks the name
//! with the same grammar as msvc-demangler 0.11's parser, but where the parser builds a tree it
//! only adds up sizes, and a back-reference adds the size of what it refers to. The walk itself
//! is linear in the name: nothing is copied.
//!
//! Why the bound holds although the walk is not the parser:
//! - the tables of remembered names and types are kept without msvc-demangler's cap of ten, and an
//!   entry is skipped as a duplicate only when it is the same bytes with no outside reference in
//!   it (where msvc-demangler compares trees, which merges more). So the parser's entry `i` is one
//!   of our entries `i..`, and a reference `i` is given the largest of those;
//! - every node is charged more than msvc-demangler writes for it besides its children (a fixed
//!   allowance, and four bytes per byte of the name it consumed), and the two places where the
//!   serializer writes a child twice (a constructor or destructor repeats its class, a conversion
//!   operator its type) are charged twice.
//!
//! A name this walk cannot read is not handed to msvc-demangler (the walk follows its grammar, so
//! it fails there too).

use std::collections::HashSet;

/// What any node writes besides its children and the bytes of the name it consumed: the longest
/// fixed texts (`` `eh vector vbase constructor iterator' ``, `const volatile __ptr64`,
/// `__thiscall`, parentheses and separators) are under this.
const NODE: u64 = 48;
/// Output per consumed byte of the name (numbers and escaped string bytes grow when written).
const PER_BYTE: u64 = 4;
/// Remembered-name and remembered-type entries at most kept apart (the parser keeps ten).
const REFERENCED: usize = 10;

/// The estimated output of one node and its children.
#[derive(Debug, Clone, Copy)]
struct Cost {
    /// Upper bound of the bytes written.
    bytes: u64,
    /// Bytes of the name consumed by the node and its children.
    span: usize,
    /// Where its bytes start, when they alone decide what it is (no back-reference to the
    /// enclosing context inside); otherwise `None`, and it is never a duplicate.
    start: Option<usize>,
}

/// The tables of one back-reference context (a template opens a new one).
#[derive(Default)]
struct Remembered<'a> {
    /// Entries in order: their cost.
    entries: Vec<u64>,
    /// Per reference digit `i`: the largest cost of entries `i..`.
    largest_from: [u64; REFERENCED],
    /// The bytes of the entries that their bytes alone decide (a second one is no entry).
    seen: HashSet<&'a [u8]>,
}

impl<'a> Remembered<'a> {
    fn remember(&mut self, input: &'a [u8], cost: Cost) {
        if let Some(start) = cost.start {
            if !self.seen.insert(&input[start..start + cost.span]) {
                return;
            }
        }
        let index = self.entries.len();
        self.entries.push(cost.bytes);
        for largest in self.largest_from.iter_mut().take(index + 1) {
            *largest = (*largest).max(cost.bytes);
        }
    }

    fn refer(&self, digit: u8) -> Option<u64> {
        let digit = usize::from(digit);
        (digit < self.entries.len()).then(|| self.largest_from[digit])
    }
}

/// Why a name cannot be walked (the parser fails on it too).
pub(super) type Unreadable = &'static str;

type Walk = Result<Cost, Unreadable>;

/// The walk over one name.
struct Walker<'a> {
    input: &'a [u8],
    at: usize,
    names: Remembered<'a>,
    types: Remembered<'a>,
}

/// An upper bound, in bytes, of what msvc-demangler writes for `mangled` (and so of the tree it
/// builds and the work it does), or why the name cannot be read.
pub(super) fn output_bound(mangled: &str) -> Result<u64, Unreadable> {
    let mut walker = Walker {
        input: mangled.as_bytes(),
        at: 0,
        names: Remembered::default(),
        types: Remembered::default(),
    };
    walker.symbol().map(|cost| cost.bytes)
}

/// The operator a special name was (only three change what is written).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Special {
    /// A constructor or destructor: written with its class name.
    Structor,
    /// A conversion operator: written with its type.
    Conversion,
    /// A local static guard: a marker and a scope index follow the name.
    Guard,
    Other,
}

impl<'a> Walker<'a> {
    fn peek(&self) -> Option<u8> {
        self.input.get(self.at).copied()
    }

    fn get(&mut self) -> Result<u8, Unreadable> {
        let byte = self.peek().ok_or("unexpected end of input")?;
        self.at += 1;
        Ok(byte)
    }

    fn consume(&mut self, text: &[u8]) -> bool {
        if self.input[self.at..].starts_with(text) {
            self.at += text.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, text: &[u8]) -> Result<(), Unreadable> {
        self.consume(text)
            .then_some(())
            .ok_or("expected text missing")
    }

    fn digit(&mut self) -> Option<u8> {
        let digit = self.peek().filter(u8::is_ascii_digit)?;
        self.at += 1;
        Some(digit - b'0')
    }

    /// A node that started at `start`, with `children` inside: its own bytes are charged, the
    /// children's costs added; its bytes decide what it is unless a child refers outside.
    fn node(&self, start: usize, children: &[Cost]) -> Cost {
        let span = self.at - start;
        let inner: usize = children.iter().map(|c| c.span).sum();
        let own = span.saturating_sub(inner) as u64;
        let mut bytes = NODE.saturating_add(own.saturating_mul(PER_BYTE));
        for child in children {
            bytes = bytes.saturating_add(child.bytes);
        }
        let fixed = children.iter().all(|c| c.start.is_some());
        Cost {
            bytes,
            span,
            start: fixed.then_some(start),
        }
    }

    /// A back-reference: one byte of the name, the size of what it refers to.
    fn reference(&self, start: usize, referred: u64) -> Cost {
        Cost {
            bytes: referred.saturating_add(NODE),
            span: self.at - start,
            start: None,
        }
    }

    fn number(&mut self) -> Result<(), Unreadable> {
        self.consume(b"?");
        if self.digit().is_some() {
            return Ok(());
        }
        loop {
            match self.get().map_err(|_| "bad number")? {
                b'@' => return Ok(()),
                b'A'..=b'P' => {}
                _ => return Err("bad number"),
            }
        }
    }

    fn string(&mut self) -> Result<(), Unreadable> {
        let rest = &self.input[self.at..];
        let end = memchr::memchr(b'@', rest).ok_or("missing @")?;
        self.at += end + 1;
        Ok(())
    }

    /// `parse`: the whole symbol (also a nested `??` name).
    fn symbol(&mut self) -> Walk {
        let start = self.at;
        self.expect(b"?")?;
        if self.consume(b"?@") {
            let digits = self.input[self.at..]
                .iter()
                .take_while(|b| b.is_ascii_hexdigit())
                .count();
            self.at += digits;
            if digits != 32 || !self.consume(b"@") {
                return Err("bad md5 name");
            }
            return Ok(self.node(start, &[]));
        }
        if self.consume(b"$") {
            if self.consume(b"TSS") {
                self.digit().ok_or("missing digit")?;
                while !self.consume(b"@") {
                    self.digit().ok_or("missing digit")?;
                }
                let name = self.nested_name()?;
                let scope = self.scope()?;
                self.expect(b"4HA")?;
                return Ok(self.node(start, &[name, scope.0]));
            }
            let name = self.template_name()?;
            return Ok(self.node(start, &[name]));
        }
        let (name, special) = self.name(true)?;
        if special == Special::Guard {
            if !self.consume(b"4IA") && !self.consume(b"5") {
                return Err("unexpected local guard marker");
            }
            if self.at < self.input.len() {
                let number_start = self.at;
                self.number()?;
                if self.input[number_start] == b'?' {
                    return Err("expected unsigned");
                }
            }
        }
        let mut parts = vec![name];
        if self.at < self.input.len() {
            let (kind, twice) = self.symbol_type()?;
            parts.push(kind);
            if special == Special::Conversion {
                if let Some(returned) = twice {
                    parts.push(Cost {
                        span: 0,
                        ..returned
                    });
                }
            }
        }
        Ok(self.node(start, &parts))
    }

    /// The type part of a symbol; for member functions also the return type (a conversion
    /// operator writes it twice).
    fn symbol_type(&mut self) -> Result<(Cost, Option<Cost>), Unreadable> {
        let start = self.at;
        let c = self.get()?;
        let mut parts = Vec::new();
        let mut returned = None;
        match c {
            b'0'..=b'4' => {
                parts.push(self.var_type()?);
                self.storage_class();
            }
            b'6' | b'7' => {
                self.qualifier();
                parts.push(self.scope()?.0);
            }
            b'9' | b'8' => {}
            b'Y' => {
                self.calling_conv()?;
                self.storage_class_for_return()?;
                parts.push(self.var_type()?);
                parts.push(self.func_params()?);
            }
            b'_' => {
                let width = match self.get()? {
                    b'0' => 1,
                    b'1' => 2,
                    _ => return Err("unknown string character type"),
                };
                self.encoded_string(width)?;
            }
            b'$' => {
                self.expect(b"B")?;
                self.number()?;
                self.expect(b"A")?;
                self.calling_conv()?;
            }
            c => {
                let is_static = self.func_class(c)?;
                if !is_static {
                    self.func_qualifiers()?;
                }
                self.calling_conv()?;
                self.storage_class_for_return()?;
                let value = self.func_return_type()?;
                returned = Some(value);
                parts.push(value);
                parts.push(self.func_params()?);
            }
        }
        Ok((self.node(start, &parts), returned))
    }

    fn encoded_string(&mut self, width: i64) -> Result<(), Unreadable> {
        // The length (with the terminator) and a checksum, then at most 32 characters.
        let length_start = self.at;
        self.number()?;
        let length = number_value(&self.input[length_start..self.at]);
        self.number()?;
        let count = length.min(width * 32).max(0);
        for _ in 0..count {
            match self.get()? {
                b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$' => {}
                b'?' => match self.get()? {
                    b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => {}
                    b'$' => {
                        self.get()?;
                        self.get()?;
                    }
                    _ => return Err("unknown escaped encoded string character"),
                },
                _ => return Err("unknown escaped encoded string character"),
            }
        }
        Ok(())
    }

    /// `read_template_name`: a new back-reference context for the name and its arguments.
    fn template_name(&mut self) -> Walk {
        let start = self.at;
        let names = std::mem::take(&mut self.names);
        let types = std::mem::take(&mut self.types);
        let result = self.unqualified_name(false).and_then(|(name, _)| {
            let params = self.params()?;
            Ok([name, params])
        });
        self.names = names;
        self.types = types;
        let children = result?;
        // What is inside refers only to this template's own context.
        let mut cost = self.node(start, &children);
        cost.start = Some(start);
        Ok(cost)
    }

    fn nested_name(&mut self) -> Walk {
        let start = self.at;
        if let Some(digit) = self.digit() {
            let referred = self.names.refer(digit).ok_or("name reference too large")?;
            return Ok(self.reference(start, referred));
        }
        if self.consume(b"?") {
            if self.peek() == Some(b'?') {
                let inner = self.symbol()?;
                return Ok(self.node(start, &[inner]));
            }
            if self.consume(b"$") {
                let name = self.template_name()?;
                self.names.remember(self.input, name);
                return Ok(name);
            }
            if self.consume(b"A") {
                let id = self.consume(b"0x");
                if id {
                    while self.peek().is_some_and(|b| b.is_ascii_hexdigit()) {
                        self.at += 1;
                    }
                }
                self.expect(b"@")?;
                let name = self.node(start, &[]);
                if id {
                    self.names.remember(self.input, name);
                }
                return Ok(name);
            }
            if self.consume(b"Q") {
                self.string()?;
                self.expect(b"@")?;
                let name = self.node(start, &[]);
                self.names.remember(self.input, name);
                return Ok(name);
            }
            self.number()?;
            return Ok(self.node(start, &[]));
        }
        self.string()?;
        let name = self.node(start, &[]);
        self.names.remember(self.input, name);
        Ok(name)
    }

    fn unqualified_name(&mut self, function: bool) -> Result<(Cost, Special), Unreadable> {
        let start = self.at;
        if let Some(digit) = self.digit() {
            let referred = self.names.refer(digit).ok_or("name reference too large")?;
            return Ok((self.reference(start, referred), Special::Other));
        }
        if self.consume(b"?$") {
            let name = self.template_name()?;
            if !function {
                self.names.remember(self.input, name);
            }
            return Ok((name, Special::Other));
        }
        if self.consume(b"?") {
            return self.special_name(start);
        }
        self.string()?;
        let name = self.node(start, &[]);
        self.names.remember(self.input, name);
        Ok((name, Special::Other))
    }

    /// Returns the scope and the cost of its first name (a structor repeats it).
    fn scope(&mut self) -> Result<(Cost, Option<Cost>), Unreadable> {
        let start = self.at;
        let mut names = Vec::new();
        while !self.consume(b"@") {
            if self.at >= self.input.len() {
                return Err("unexpected end of input");
            }
            names.push(self.nested_name()?);
        }
        let first = names.first().copied();
        Ok((self.node(start, &names), first))
    }

    /// `read_name`: an unqualified name and its scope.
    fn name(&mut self, function: bool) -> Result<(Cost, Special), Unreadable> {
        let start = self.at;
        let (name, special) = self.unqualified_name(function)?;
        let (scope, first) = self.scope()?;
        let mut parts = vec![name, scope];
        if special == Special::Structor {
            if let Some(first) = first {
                parts.push(Cost { span: 0, ..first });
            }
        }
        Ok((self.node(start, &parts), special))
    }

    fn special_name(&mut self, start: usize) -> Result<(Cost, Special), Unreadable> {
        let special = match self.get()? {
            b'0' | b'1' => Special::Structor,
            b'B' => Special::Conversion,
            b'2'..=b'9' | b'A' | b'C'..=b'Z' => Special::Other,
            b'_' => {
                match self.get()? {
                    b'B' => return Ok((self.node(start, &[]), Special::Guard)),
                    b'0'..=b'9' | b'A' | b'C'..=b'O' | b'S' | b'T' | b'U' | b'V' | b'X' | b'Y' => {}
                    b'R' => match self.get()? {
                        b'0' => {
                            self.expect(b"?")?;
                            self.storage_class();
                            let inner = self.var_type()?;
                            return Ok((self.node(start, &[inner]), Special::Other));
                        }
                        b'1' => {
                            for _ in 0..4 {
                                self.number()?;
                            }
                        }
                        b'2'..=b'4' => {}
                        _ => return Err("unknown RTTI Operator name"),
                    },
                    b'_' => {
                        if self.consume(b"J") {
                            return Ok((self.node(start, &[]), Special::Guard));
                        }
                        if !(self.consume(b"L")
                            || self.consume(b"E")
                            || self.consume(b"F")
                            || self.consume(b"K"))
                        {
                            return Err("unknown operator name");
                        }
                    }
                    _ => return Err("unknown operator name"),
                }
                Special::Other
            }
            _ => return Err("unknown operator name"),
        };
        Ok((self.node(start, &[]), special))
    }

    /// Returns whether the function class is static (then no `this` qualifiers follow).
    fn func_class(&mut self, c: u8) -> Result<bool, Unreadable> {
        match c {
            b'G' | b'H' | b'O' | b'P' | b'W' | b'X' => {
                self.number()?;
                Ok(false)
            }
            b'C' | b'D' | b'K' | b'L' | b'S' | b'T' => Ok(true),
            b'A' | b'B' | b'E' | b'F' | b'I' | b'J' | b'M' | b'N' | b'Q' | b'R' | b'U' | b'V'
            | b'Y' | b'Z' => Ok(false),
            _ => Err("unknown func class"),
        }
    }

    fn func_qualifiers(&mut self) -> Result<(), Unreadable> {
        self.consume(b"E");
        self.consume(b"I");
        self.consume(b"F");
        if matches!(self.peek(), Some(b'G' | b'H')) {
            self.at += 1;
        }
        self.qualifier();
        Ok(())
    }

    fn qualifier(&mut self) {
        if matches!(self.peek(), Some(b'A'..=b'D' | b'Q'..=b'T')) {
            self.at += 1;
        }
    }

    fn storage_class(&mut self) {
        if matches!(self.peek(), Some(b'A'..=b'H' | b'Q'..=b'T')) {
            self.at += 1;
        }
    }

    fn calling_conv(&mut self) -> Result<(), Unreadable> {
        match self.get()? {
            b'A' | b'B' | b'C' | b'E' | b'G' | b'I' => Ok(()),
            _ => Err("unknown calling conv"),
        }
    }

    fn storage_class_for_return(&mut self) -> Result<(), Unreadable> {
        if !self.consume(b"?") {
            return Ok(());
        }
        match self.get()? {
            b'A'..=b'D' => Ok(()),
            _ => Err("unknown storage class"),
        }
    }

    fn func_return_type(&mut self) -> Walk {
        let start = self.at;
        if self.consume(b"@") {
            return Ok(self.node(start, &[]));
        }
        self.var_type()
    }

    fn func_type(&mut self, qualifiers: bool) -> Walk {
        let start = self.at;
        if qualifiers {
            self.func_qualifiers()?;
        }
        self.calling_conv()?;
        if self.consume(b"?") {
            self.storage_class();
        }
        let returned = self.var_type()?;
        let params = self.func_params()?;
        Ok(self.node(start, &[returned, params]))
    }

    fn member_function_pointer(&mut self, qualifiers: bool) -> Walk {
        let start = self.at;
        let (symbol, _) = self.name(true)?;
        self.consume(b"E");
        if qualifiers {
            self.qualifier();
        } else {
            let c = self.get()?;
            self.func_class(c)?;
        }
        self.calling_conv()?;
        self.storage_class_for_return()?;
        let returned = self.func_return_type()?;
        let params = self.func_params()?;
        Ok(self.node(start, &[symbol, returned, params]))
    }

    /// `read_var_type`. Kept whole because it follows msvc-demangler's function of that name case
    /// by case, in its order, as every walk of this module does: side by side, the two can be
    /// checked against each other.
    fn var_type(&mut self) -> Walk {
        let start = self.at;
        if self.consume(b"W4") {
            let (name, _) = self.name(false)?;
            return Ok(self.node(start, &[name]));
        }
        if self.consume(b"A6") || self.consume(b"P6") {
            let function = self.func_type(false)?;
            return Ok(self.node(start, &[function]));
        }
        if self.consume(b"P8") {
            let pointer = self.member_function_pointer(true)?;
            return Ok(self.node(start, &[pointer]));
        }
        if self.consume(b"$") {
            if self.consume(b"0") || self.consume(b"D") {
                self.number()?;
                return Ok(self.node(start, &[]));
            }
            if self.consume(b"$BY") {
                return self.array(start);
            }
            if self.consume(b"$Q") {
                let pointee = self.pointee()?;
                return Ok(self.node(start, &[pointee]));
            }
            if self.consume(b"S")
                || self.consume(b"$V")
                || self.consume(b"$Z")
                || self.consume(b"$$V")
                || self.consume(b"$T")
            {
                return Ok(self.node(start, &[]));
            }
            if self.consume(b"$A6") || self.consume(b"$A8@@") {
                let qualifiers = self.input[..self.at].ends_with(b"@@");
                let function = self.func_type(qualifiers)?;
                return Ok(self.node(start, &[function]));
            }
            if self.consume(b"$Y") {
                let (name, _) = self.name(true)?;
                return Ok(self.node(start, &[name]));
            }
            if self.consume(b"$C") {
                self.qualifier();
            } else if let Some(b'1' | b'H' | b'I' | b'J') = self.peek() {
                self.at += 1;
                self.expect(b"?")?;
                let pointer = self.member_function_pointer(false)?;
                return Ok(self.node(start, &[pointer]));
            }
        }
        if self.consume(b"?") {
            self.number()?;
            return Ok(self.node(start, &[]));
        }
        let at = self.at;
        if let Some(digit) = self.digit() {
            let referred = self.types.refer(digit).ok_or("invalid backreference")?;
            return Ok(self.reference(at, referred));
        }
        match self.get()? {
            b'T' | b'U' | b'V' => {
                let (name, _) = self.name(false)?;
                Ok(self.node(start, &[name]))
            }
            b'A' | b'B' | b'P' | b'Q' | b'R' | b'S' => {
                let pointee = self.pointee()?;
                Ok(self.node(start, &[pointee]))
            }
            b'Y' => self.array(start),
            b'X' | b'D' | b'C' | b'E' | b'F' | b'G' | b'H' | b'I' | b'J' | b'K' | b'M' | b'N'
            | b'O' => Ok(self.node(start, &[])),
            b'_' => match self.get()? {
                b'N' | b'J' | b'K' | b'L' | b'M' | b'W' | b'Q' | b'S' | b'U' => {
                    Ok(self.node(start, &[]))
                }
                _ => Err("unknown primitive type"),
            },
            _ => Err("unknown primitive type"),
        }
    }

    fn pointee(&mut self) -> Walk {
        self.consume(b"E");
        self.storage_class();
        self.var_type()
    }

    /// `read_array`: the dimension count, each length, then the element type.
    fn array(&mut self, start: usize) -> Walk {
        let count_start = self.at;
        self.number()?;
        let dimensions = number_value(&self.input[count_start..self.at]);
        if dimensions <= 0 {
            return Err("invalid array dimension");
        }
        // Each dimension is a node (its length written); bounded by the name's length.
        let mut nodes = Vec::new();
        for _ in 0..dimensions {
            let length_start = self.at;
            self.number()?;
            nodes.push(self.node(length_start, &[]));
        }
        if self.consume(b"$$C")
            && !(self.consume(b"B")
                || self.consume(b"C")
                || self.consume(b"D")
                || self.consume(b"A"))
        {
            return Err("unknown storage class");
        }
        nodes.push(self.var_type()?);
        Ok(self.node(start, &nodes))
    }

    /// `read_params`: function or template parameters, with their own back-references.
    fn params(&mut self) -> Walk {
        let start = self.at;
        let mut params = Vec::new();
        while let Some(byte) = self.peek().filter(|b| *b != b'@' && *b != b'Z') {
            let at = self.at;
            if byte.is_ascii_digit() {
                self.at += 1;
                let referred = self
                    .types
                    .refer(byte - b'0')
                    .ok_or("invalid backreference")?;
                params.push(self.reference(at, referred));
                continue;
            }
            let param = self.var_type()?;
            // The parser remembers a parameter type longer than one byte.
            if self.at - at > 1 {
                self.types.remember(self.input, param);
            }
            params.push(param);
        }
        if !self.consume(b"Z") && self.at < self.input.len() {
            self.expect(b"@")?;
        }
        Ok(self.node(start, &params))
    }

    fn func_params(&mut self) -> Walk {
        let start = self.at;
        let params = if self.consume(b"X") {
            self.node(start, &[])
        } else {
            self.params()?
        };
        self.expect(b"Z")?;
        Ok(Cost {
            span: self.at - start,
            ..params
        })
    }
}

/// The value of a number as the parser reads it (`[?]digit` is digit+1, else hex `A`-`P` up to
/// `@`), saturated; 0 for anything else.
fn number_value(text: &[u8]) -> i64 {
    let (negative, digits) = match text.strip_prefix(b"?") {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let value = match digits {
        [digit] if digit.is_ascii_digit() => i64::from(digit - b'0') + 1,
        _ => {
            let mut value: i32 = 0;
            for &b in digits.iter().take_while(|b| (b'A'..=b'P').contains(b)) {
                value = value.wrapping_shl(4).wrapping_add(i32::from(b - b'A'));
            }
            i64::from(value)
        }
    };
    if negative {
        -value
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape that doubles at each level: `B<T, T>` where `T` is the previous level, the
    /// second `T` a back-reference to the first.
    fn doubling(levels: usize) -> String {
        format!(
            "?x@@3{}VA@@{}A",
            "V?$B@".repeat(levels),
            "0@@".repeat(levels)
        )
    }

    fn real_len(name: &str) -> usize {
        msvc_demangler::demangle(name, msvc_demangler::DemangleFlags::llvm())
            .unwrap()
            .len()
    }

    #[test]
    fn the_bound_is_above_the_output_and_follows_its_growth() {
        for levels in 0..=12 {
            let name = doubling(levels);
            let bound = output_bound(&name).unwrap();
            let real = real_len(&name) as u64;
            assert!(bound >= real, "{levels} levels: bound {bound} < {real}");
            // Not absurdly above either: the same growth, times a constant.
            assert!(
                bound <= real * 64 + 1024,
                "{levels} levels: {bound} vs {real}"
            );
        }
        // Computed without building anything: 200 levels (2^200 bytes) saturate at once.
        assert_eq!(output_bound(&doubling(200)), Ok(u64::MAX));
    }

    #[test]
    fn names_that_write_a_child_twice_are_charged_twice() {
        // A constructor writes its class again; a conversion operator its type.
        for name in [
            "??0?$B@V?$B@VA@@0@@V?$B@VA@@0@@@@QEAA@XZ",
            "??B?$C@H@@QEBA?AV?$B@V?$B@VA@@0@@0@@XZ",
            "??1?$B@V?$B@VA@@0@@0@@QEAA@XZ",
        ] {
            let bound = output_bound(name).unwrap();
            assert!(bound >= real_len(name) as u64, "{name}");
        }
    }

    #[test]
    fn unreadable_names_are_unreadable_here_too() {
        for name in [
            "?",
            "?x@@3",
            "?x@@3V?$B@",
            "?x@@YA?AV1@XZ",
            "?x@@3YA@H",
            "?x@@3_ZA",
        ] {
            assert!(output_bound(name).is_err(), "{name}");
            assert!(
                msvc_demangler::demangle(name, msvc_demangler::DemangleFlags::llvm()).is_err(),
                "{name}"
            );
        }
    }
}
