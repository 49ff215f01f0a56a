//! MSBuild's project prefix: with several projects building at once, MSBuild puts `N>` in front
//! of every line a project's tools print, lld-link's `>>>` lines included.
//!
//! A real paste from a parallel Visual Studio build:
//!
//! ```text
//! 1>YY_Thunks_for_WinXP.obj : error LNK2001: unresolved external symbol _Init_thread_header
//! 3>>>> referenced by C:\src\k.cpp:12
//! ```
//!
//! becomes `YY_Thunks_for_WinXP.obj : error LNK2001: ...` and `>>> referenced by C:\src\k.cpp:12`.

use crate::read::linklog::trim::TrimWhitespace;
/// Removes the leading `N>` prefixes (one to four digits each), unless nothing follows them: all
/// of them at once (`7>1>x`, a copy of a copy), so that the lens finds no work in its own output.
pub fn apply(line: &str) -> Option<String> {
    let mut rest = line;
    while let Some(after) = strip_one(rest) {
        rest = after;
    }
    (rest.len() < line.len()).then(|| rest.to_string())
}

/// `line` without one leading `N>`, when it has one and something follows it.
fn strip_one(line: &str) -> Option<&str> {
    let bytes = line.as_bytes();
    if !bytes.first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > 4 || bytes.get(digits) != Some(&b'>') {
        return None;
    }
    let rest = &line[digits + 1..];
    // `3>=` is a comparison, and a bare `3>` holds nothing.
    if rest.starts_with('=') || rest.trim_ws().is_empty() {
        return None;
    }
    Some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_prefixes() {
        assert_eq!(
            apply("1>a.obj : error LNK2001: x").as_deref(),
            Some("a.obj : error LNK2001: x")
        );
        assert_eq!(
            apply("3>>>> referenced by k.obj:(f)").as_deref(),
            Some(">>> referenced by k.obj:(f)")
        );
        assert_eq!(
            apply("28>LIBCMTD.lib(exe_winmain.obj) : error").as_deref(),
            Some("LIBCMTD.lib(exe_winmain.obj) : error")
        );
        assert_eq!(apply("12345>x"), None);
        assert_eq!(apply("3>=2"), None);
        assert_eq!(apply("x1>y"), None);
        assert_eq!(apply("7>1>>   k.obj:(f)").as_deref(), Some(">   k.obj:(f)"));
        assert_eq!(apply("7>1>").as_deref(), Some("1>"));
    }
}
