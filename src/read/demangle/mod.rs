//! The one guarded caller of msvc-demangler, and the canonical form that lets demangled names
//! from different demanglers (MSVC's undname, LLVM, msvc-demangler) be compared.
//!
//! msvc-demangler 0.11 overflows the stack on deeply nested names, copies the tree of every
//! back-reference (a short name can demangle to gigabytes) and rejects names that still carry
//! `__imp_` (docs/RULES.md §12): the guard strips the prefix first and bounds length, depth and the
//! size of the output (computed before demangling, [`output_bound`]), returning the raw name with a
//! warning instead of crashing or exhausting memory.

mod bound;

use msvc_demangler::DemangleFlags;

/// Bounds on what is handed to the demangler.
#[derive(Debug, Clone, Copy)]
pub struct DemangleLimits {
    /// Longest mangled name demangled, in bytes.
    pub max_len: usize,
    /// Deepest nesting demangled (template and function-type openers counted).
    pub max_depth: usize,
    /// Largest output a demangling may produce, in bytes, as bounded before it runs (the bound is
    /// above the real size: back-references count as the largest thing they could name).
    pub max_output: usize,
}

impl Default for DemangleLimits {
    fn default() -> Self {
        // A main thread's stack survives several hundred levels; real names rarely pass 30.
        DemangleLimits {
            max_len: 4096,
            max_depth: 48,
            max_output: DEFAULT_MAX_OUTPUT,
        }
    }
}

/// The default of [`DemangleLimits::max_output`] (`--max-demangle-output`): 1 MiB. The bound of
/// the real names we measured is 5 to 110 times their output, the largest 156 KB (benches/README.md).
pub const DEFAULT_MAX_OUTPUT: usize = 1 << 20;

/// An upper bound of the bytes msvc-demangler writes for a mangled name (without `__imp_`),
/// computed in linear time without demangling; `None` for a name it cannot read.
pub fn output_bound(mangled: &str) -> Option<u64> {
    bound::output_bound(mangled).ok()
}

/// The outcome of demangling one linker-level name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Demangled {
    /// The human-readable name (for C names: the name itself, without `__imp_`).
    pub text: String,
    /// Whether the name carried `__imp_` (a dllimport reference).
    pub import: bool,
    /// Why the raw name was returned instead of a demangled one.
    pub warning: Option<String>,
}

/// Removes the dllimport prefix: `__imp_X` is the import-address-table slot of `X`.
pub fn strip_import_prefix(name: &str) -> (&str, bool) {
    match name.strip_prefix("__imp_") {
        Some(rest) => (rest, true),
        None => (name, false),
    }
}

/// An estimate of nesting depth: every construct msvc-demangler recurses on counts once.
///
/// Openers: templates (`?$`), function types (`P6`, `Q6`, `A6`, `$A`), member pointers (`P8`),
/// template parameters (`$$`, `$1`, `$E`), nested names (`??`) and arrays (`Y` and a digit); and
/// every link of a pointer or reference chain (`PEAPEAH`: a pointer or reference prefix whose
/// pointee is another one or an array). Chains were once not counted: a 4096-byte name
/// of 2,000 `PA` links was estimated at depth 0 and overflowed a 2 MiB thread stack (the default
/// of spawned threads and of `cargo test`); a flat parameter list (`PEAX`, `PEBD`, ...) has no
/// links, so real names keep their estimate.
fn nesting_depth(mangled: &str) -> usize {
    let bytes = mangled.as_bytes();
    let openers = bytes
        .windows(2)
        .filter(|w| {
            matches!(
                w,
                [b'?', b'$' | b'?']
                    | [b'$', b'$' | b'1' | b'E' | b'A']
                    | [b'P' | b'Q' | b'A', b'6']
                    | [b'P', b'8']
                    | [b'Y', b'0'..=b'9']
            )
        })
        .count();
    // A pointer or reference prefix: `P`/`Q`/`R`/`S`/`A`/`B`, optional `E` (__ptr64), a storage
    // class `A`-`D`; returns the index after it.
    let prefix_end = |at: usize| -> Option<usize> {
        if !matches!(bytes.get(at)?, b'P' | b'Q' | b'R' | b'S' | b'A' | b'B') {
            return None;
        }
        let at = at + 1 + usize::from(bytes.get(at + 1) == Some(&b'E'));
        matches!(bytes.get(at)?, b'A'..=b'D').then_some(at + 1)
    };
    let links = (0..bytes.len())
        .filter_map(prefix_end)
        .filter(|&end| prefix_end(end).is_some() || bytes.get(end) == Some(&b'Y'))
        .count();
    openers + links
}

/// Demangles a linker-level name within the default limits (names read from libraries; a log's
/// names use the limits the caller gives, through [`demangle_with`]).
pub fn demangle(name: &str) -> Demangled {
    demangle_with(name, DemangleLimits::default())
}

/// Demangles a linker-level name (`?f@@YAXXZ`, `__imp_?f@@YAXXZ`, `hipMalloc`): never panics,
/// never overflows the stack; on refusal or failure the raw name comes back with a warning.
pub fn demangle_with(name: &str, limits: DemangleLimits) -> Demangled {
    let (bare, import) = strip_import_prefix(name);
    if !bare.starts_with('?') {
        return Demangled {
            text: bare.to_string(),
            import,
            warning: None,
        };
    }
    if bare.len() > limits.max_len {
        return Demangled {
            text: bare.to_string(),
            import,
            warning: Some(format!(
                "not demangled: {} bytes is over the limit of {} (--max-demangle-len)",
                bare.len(),
                limits.max_len
            )),
        };
    }
    let depth = nesting_depth(bare);
    if depth > limits.max_depth {
        return Demangled {
            text: bare.to_string(),
            import,
            warning: Some(format!(
                "not demangled: nesting depth {depth} is over the limit of {} (--max-demangle-depth)",
                limits.max_depth
            )),
        };
    }
    match bound::output_bound(bare) {
        Err(reason) => {
            return Demangled {
                text: bare.to_string(),
                import,
                warning: Some(format!("not demangled: {reason}")),
            }
        }
        Ok(size) if size > limits.max_output as u64 => {
            return Demangled {
                text: bare.to_string(),
                import,
                warning: Some(format!(
                    "not demangled: its output could reach {size} bytes, over the limit of {} \
                     (--max-demangle-output)",
                    limits.max_output
                )),
            }
        }
        Ok(_) => {}
    }
    let flags = DemangleFlags::llvm();
    match std::panic::catch_unwind(|| msvc_demangler::demangle(bare, flags)) {
        Ok(Ok(text)) => Demangled {
            text,
            import,
            warning: None,
        },
        Ok(Err(e)) => Demangled {
            text: bare.to_string(),
            import,
            warning: Some(format!("not demangled: {e}")),
        },
        Err(_) => Demangled {
            text: bare.to_string(),
            import,
            warning: Some("not demangled: the demangler failed on this name".to_string()),
        },
    }
}

/// The machine an MSVC-mangled C++ name was compiled for, read from its pointers and references
/// as msvc-demangler parses them: x64 when one carries `E` (`__ptr64`: `PEAD`, `AEBV`), x86 when
/// it has some and none does (`PAD`, `ABV`). `None` for a name without pointers or references
/// (they look alike on both), one refused by `limits`, or one that does not parse.
pub fn pointer_machine(name: &str, limits: DemangleLimits) -> Option<crate::index::Machine> {
    use crate::index::Machine;
    let (bare, _) = strip_import_prefix(name);
    if !bare.starts_with('?') || bare.len() > limits.max_len {
        return None;
    }
    if nesting_depth(bare) > limits.max_depth {
        return None;
    }
    if bound::output_bound(bare).ok()? > limits.max_output as u64 {
        return None;
    }
    let parsed = std::panic::catch_unwind(|| msvc_demangler::parse(bare).ok())
        .ok()
        .flatten()?;
    let mut widths = PointerWidths::default();
    widths.visit(&parsed.symbol_type, 0);
    match (widths.x86, widths.x64) {
        (true, false) => Some(Machine::X86),
        (false, true) => Some(Machine::X64),
        _ => None,
    }
}

/// Which pointer encodings a parsed type holds.
#[derive(Default)]
struct PointerWidths {
    /// A pointer or reference without `__ptr64`.
    x86: bool,
    /// A pointer or reference with `__ptr64`.
    x64: bool,
}

impl PointerWidths {
    /// Notes the pointers and references of `ty`, its parameters and return type; `depth`
    /// bounds the walk (the parse was bounded already: this is a second guard).
    fn visit(&mut self, ty: &msvc_demangler::Type<'_>, depth: usize) {
        use msvc_demangler::Type;
        if depth > 64 {
            return;
        }
        match ty {
            Type::Ptr(inner, _) | Type::Ref(inner, _) | Type::RValueRef(inner, _) => {
                // A function pointer carries no `E` on either machine (`P6AXXZ`).
                if let Some(storage) = storage_class(inner) {
                    if storage.contains(msvc_demangler::StorageClass::PTR64) {
                        self.x64 = true;
                    } else {
                        self.x86 = true;
                    }
                }
                self.visit(inner, depth + 1);
            }
            Type::MemberFunction(_, _, params, _, ret)
            | Type::NonMemberFunction(_, params, _, ret)
            | Type::MemberFunctionPointer(_, _, _, params, _, ret) => {
                for param in &params.types {
                    self.visit(param, depth + 1);
                }
                self.visit(ret, depth + 1);
            }
            Type::Array(_, inner, _) | Type::Var(inner, _, _) => self.visit(inner, depth + 1),
            _ => {}
        }
    }
}

/// The storage class of a pointee, where `E` (`__ptr64`) is recorded; `None` for a function
/// type and the kinds that have none.
fn storage_class(ty: &msvc_demangler::Type<'_>) -> Option<msvc_demangler::StorageClass> {
    use msvc_demangler::Type;
    Some(match ty {
        Type::Ptr(_, sc) | Type::Ref(_, sc) | Type::RValueRef(_, sc) | Type::Array(_, _, sc) => *sc,
        Type::Alias(_, sc)
        | Type::Struct(_, sc)
        | Type::Union(_, sc)
        | Type::Class(_, sc)
        | Type::Enum(_, sc) => *sc,
        Type::Void(sc)
        | Type::Bool(sc)
        | Type::Char(sc)
        | Type::Schar(sc)
        | Type::Uchar(sc)
        | Type::Short(sc)
        | Type::Ushort(sc)
        | Type::Int(sc)
        | Type::Uint(sc)
        | Type::Long(sc)
        | Type::Ulong(sc)
        | Type::Int64(sc)
        | Type::Uint64(sc)
        | Type::Int128(sc)
        | Type::Uint128(sc)
        | Type::Wchar(sc)
        | Type::Char8(sc)
        | Type::Char16(sc)
        | Type::Char32(sc)
        | Type::Float(sc)
        | Type::Double(sc)
        | Type::Ldouble(sc) => *sc,
        _ => return None,
    })
}

/// Tokens of a demangled name: words and single punctuation characters.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        let word =
            c.is_alphanumeric() || matches!(c, '_' | '$' | '`' | '\'' | '@' | '?' | '~' | '.');
        if word {
            if start.is_none() {
                start = Some(i);
            }
            continue;
        }
        if let Some(s) = start.take() {
            out.push(&text[s..i]);
        }
        if !c.is_whitespace() {
            out.push(&text[i..i + c.len_utf8()]);
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

fn is_word(token: &str) -> bool {
    token.chars().next().is_some_and(|c| {
        c.is_alphanumeric() || matches!(c, '_' | '$' | '`' | '\'' | '@' | '?' | '~' | '.')
    })
}

/// The canonical form of a demangled C++ name, for matching across demanglers.
///
/// Rules, each undoing one known difference:
/// - spacing: spaces only between two words (`allocator<char> >` = `allocator<char>>`,
///   `(void)const ` = `(void) const`, `char const *` = `char const*`);
/// - `class`/`struct`/`union`/`enum` keywords, `__ptr64`/`__ptr32`, access specifiers
///   (`public:`), `__declspec(dllimport)` and `(void)` parameter lists are dropped;
/// - `uint64_t`/`unsigned long long` = `unsigned __int64`, `int64_t`/`long long` = `__int64`;
/// - `` `anonymous namespace' `` = `(anonymous namespace)`.
pub fn canonical(display: &str) -> String {
    let text = display
        .replace("`anonymous namespace'", "anonymous_namespace")
        .replace("(anonymous namespace)", "anonymous_namespace")
        .replace("__declspec(dllimport)", " ");
    let raw = tokens(&text);
    let mut kept: Vec<&str> = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let t = raw[i];
        let next = raw.get(i + 1).copied();
        match t {
            "class" | "struct" | "union" | "enum" if next.is_some_and(is_word) => {}
            "__ptr64" | "__ptr32" | "__restrict" | "__unaligned" => {}
            "public" | "private" | "protected"
                if next == Some(":") && raw.get(i + 2) != Some(&":") =>
            {
                i += 1;
            }
            "void" if kept.last() == Some(&"(") && next == Some(")") => {}
            "uint64_t" => {
                kept.push("unsigned");
                kept.push("__int64");
            }
            "int64_t" => kept.push("__int64"),
            "long" if next == Some("long") => {
                kept.push("__int64");
                i += 1;
            }
            _ => kept.push(t),
        }
        i += 1;
    }
    let mut out = String::with_capacity(text.len());
    for (i, t) in kept.iter().enumerate() {
        if i > 0 && is_word(t) && is_word(kept[i - 1]) {
            out.push(' ');
        }
        out.push_str(t);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_names_and_imports() {
        let d = demangle("__imp_CreateFileW");
        assert_eq!((d.text.as_str(), d.import), ("CreateFileW", true));
        let d = demangle("__imp_??BCUDAStream@cuda@c10@@QEBAPEAUCUstream_st@@XZ");
        assert!(d.import);
        assert!(
            d.text.contains("c10::cuda::CUDAStream::operator"),
            "{}",
            d.text
        );
        assert!(d.warning.is_none());
    }

    #[test]
    fn demangles_operator_delete() {
        let d = demangle("??3@YAXPEAX_K@Z");
        assert_eq!(
            canonical(&d.text),
            canonical("void __cdecl operator delete(void *,unsigned __int64)")
        );
    }

    #[test]
    fn deep_nesting_returns_raw_name() {
        let mut name = String::from("?f@@YAXV");
        for _ in 0..63 {
            name.push_str("?$A@V");
        }
        name.push_str("@@Z");
        let d = demangle(&name);
        assert_eq!(d.text, name);
        assert!(d.warning.unwrap().contains("limit"));
        // Pointer, reference and array chains nest too (2,000 `PA` links in 4096 bytes
        // overflowed a 2 MiB stack before they were counted).
        for chain in ["PA", "PEA", "QEB", "AEA", "PEAY01"] {
            let name = format!("?x@@3{}H", chain.repeat(4080 / chain.len()));
            let d = demangle(&name);
            assert_eq!(d.text, name);
            assert!(
                d.warning.unwrap().contains("--max-demangle-depth"),
                "{chain}"
            );
        }
        // A flat parameter list of pointers is not nesting.
        let flat = format!("?f@@YAX{}@Z", "PEAXPEBDAEAH".repeat(20));
        assert!(demangle(&flat).warning.is_none());
        let long = format!("?{}@@YAXXZ", "a".repeat(10_000));
        assert!(demangle(&long)
            .warning
            .unwrap()
            .contains("--max-demangle-len"));
    }

    #[test]
    fn names_whose_back_references_explode_are_returned_raw() {
        // 30 levels of `B<T, T>` in 250 bytes: 2^30 copies, an out-of-memory abort before.
        let name = format!("?x@@3{}VA@@{}A", "V?$B@".repeat(30), "0@@".repeat(30));
        assert!(name.len() < 260 && nesting_depth(&name) <= 48);
        for limits in [
            DemangleLimits::default(),
            DemangleLimits {
                max_output: 100_000,
                ..DemangleLimits::default()
            },
        ] {
            let d = demangle_with(&name, limits);
            assert_eq!(d.text, name);
            let warning = d.warning.unwrap();
            assert!(warning.contains("--max-demangle-output"), "{warning}");
        }
        let imported = demangle(&format!("__imp_{name}"));
        assert!(imported.import && imported.text == name && imported.warning.is_some());
        // A few levels are demangled (under the limit), and a smaller limit refuses them.
        let small = format!("?x@@3{}VA@@{}A", "V?$B@".repeat(4), "0@@".repeat(4));
        assert!(demangle(&small).warning.is_none());
        let tight = DemangleLimits {
            max_output: 64,
            ..DemangleLimits::default()
        };
        assert!(demangle_with(&small, tight)
            .warning
            .unwrap()
            .contains("--max-demangle-output"));
    }

    #[test]
    fn garbage_is_returned_raw() {
        let d = demangle("?@@@@$$$???");
        assert!(d.warning.is_some());
        assert_eq!(d.text, "?@@@@$$$???");
    }

    #[test]
    fn canonical_pairs_across_demanglers() {
        // (undname / MSVC link.exe, LLVM llvm-undname / lld-link, msvc-demangler)
        let rows = [
            (
                "class std::basic_string<char,struct std::char_traits<char>,class std::allocator<char> > __cdecl cv::tempfile(char const *)",
                "class std::basic_string<char, struct std::char_traits<char>, class std::allocator<char>> __cdecl cv::tempfile(char const *)",
                "std::basic_string<char,std::char_traits<char>,std::allocator<char> > __cdecl cv::tempfile(char const*)",
            ),
            (
                "public: __cdecl c10::cuda::CUDAStream::operator struct CUstream_st * __ptr64(void)const __ptr64",
                "public: __cdecl c10::cuda::CUDAStream::operator struct CUstream_st *(void) const",
                "public: __cdecl c10::cuda::CUDAStream::operator CUstream_st*(void) const",
            ),
            (
                "void __cdecl operator delete(void *,unsigned __int64)",
                "void __cdecl operator delete(void *, unsigned __int64)",
                "void __cdecl operator delete(void*, uint64_t)",
            ),
            (
                "void __cdecl `anonymous namespace'::f(void)",
                "void __cdecl `anonymous namespace'::f(void)",
                "void __cdecl (anonymous namespace)::f()",
            ),
        ];
        let mut failures = Vec::new();
        for (a, b, c) in rows {
            let (ca, cb, cc) = (canonical(a), canonical(b), canonical(c));
            if ca != cb || cb != cc {
                failures.push(format!("{ca}\n{cb}\n{cc}\n"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert_ne!(canonical("void f(int)"), canonical("void f(long)"));
        assert_ne!(canonical("void f(int const *)"), canonical("void f(int *)"));
    }
}

#[cfg(test)]
mod depth_limit_tests {
    use super::*;

    /// The largest depth the CLI accepts (64) must demangle on a 1 MiB stack (a Windows main
    /// thread's) in a debug build, for each nesting shape, or the guard is no guard.
    #[test]
    fn the_largest_accepted_depth_fits_a_small_stack() {
        for (open, close) in [("?$A@V", "@"), ("P6AX", "@Z"), ("?$A@$$CB", "@")] {
            let handle = std::thread::Builder::new()
                .stack_size(1 << 20)
                .spawn(move || {
                    let mut name = String::from("?f@@YAXV");
                    let mut depth = 1;
                    while nesting_depth(&format!("{name}{open}")) <= 64 {
                        name.push_str(open);
                        depth += 1;
                    }
                    for _ in 0..depth {
                        name.push_str(close);
                    }
                    name.push_str("@Z");
                    let limits = DemangleLimits {
                        max_len: 1 << 20,
                        max_depth: 64,
                        max_output: usize::MAX,
                    };
                    (nesting_depth(&name), demangle_with(&name, limits))
                })
                .unwrap();
            let (depth, result) = handle.join().expect("no stack overflow");
            assert!(depth >= 60, "{open}: depth {depth}");
            assert!(
                result
                    .warning
                    .as_deref()
                    .is_none_or(|w| !w.contains("limit")),
                "{open}: {result:?}"
            );
        }
    }
}
