//! MSBuild's reformatted lld-link error: MSBuild parses a tool's `origin: error: text` line and
//! prints it again as `origin : error : text`; lld-link's own line has no origin between the
//! tool name and the severity, so the result has an empty one.
//!
//! A real line of a Visual Studio build with the LLVM toolset (clang-cl, lld-link):
//!
//! ```text
//! 3>lld-link : : error : undefined symbol: __std_min_4i
//! ```
//!
//! becomes `lld-link: error: undefined symbol: __std_min_4i` (the `3>` is removed by
//! [`super::msbuild_prefix`]).

use regex::Regex;
use std::sync::OnceLock;

fn pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?P<tool>(?:lld-link|ld\.lld|rust-lld|lld)(?:\.exe)?)\s*:\s*:\s*(?P<sev>error|warning)\s*:\s*")
            .expect("pattern")
    })
}

/// Collapses `TOOL : : error :` to `TOOL: error: `.
pub fn apply(line: &str) -> Option<String> {
    super::finders().lld.find(line.as_bytes())?;
    let c = pattern().captures(line)?;
    let whole = c.get(0)?;
    Some(format!(
        "{}{}: {}: {}",
        &line[..whole.start()],
        &c["tool"],
        &c["sev"],
        &line[whole.end()..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_origin() {
        assert_eq!(
            apply("lld-link : : error : undefined symbol: hipFree").as_deref(),
            Some("lld-link: error: undefined symbol: hipFree")
        );
        assert_eq!(
            apply("lld-link: : warning : ignoring unknown argument").as_deref(),
            Some("lld-link: warning: ignoring unknown argument")
        );
        assert_eq!(apply("lld-link: error: undefined symbol: hipFree"), None);
    }
}
