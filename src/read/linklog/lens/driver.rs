//! Compiler drivers and build tools that print the linker's error under their own name: zig's
//! `error: lld-link: ...`, a driver's `clang++: error: ...`, `collect2`-style `tool: error:`
//! prefixes, rustc's `rust-lld:`.
//!
//! Real lines (zig 0.12 on Windows, clang++ as the linker driver, rustc with rust-lld):
//!
//! ```text
//! error: lld-link: undefined symbol: _main
//! clang++: error: linker command failed with exit code 1120 (use -v to see invocation)
//! rust-lld: error: undefined symbol: __imp_GetProcAddress
//! ```
//!
//! become `lld-link: error: undefined symbol: _main`, `clang: error: linker command failed ...`
//! and `lld-link: error: undefined symbol: __imp_GetProcAddress`.

use regex::Regex;
use std::sync::LazyLock;

/// The patterns, each compiled on its first use.
struct Patterns {
    forwarded: LazyLock<Regex>,
    rust_lld: LazyLock<Regex>,
    failed: LazyLock<Regex>,
}

fn patterns() -> &'static Patterns {
    static P: Patterns = Patterns {
        // [driver:] severity: tool: [severity:] rest
        forwarded: LazyLock::new(|| {
            Regex::new(
            r"^\s*(?:[A-Za-z][\w.+\-]*(?:\.exe)?:\s*)?(?P<sev>error|warning):\s*(?P<tool>lld-link|ld\.lld|rust-lld|lld)(?:\.exe)?:\s*(?:(?:error|warning):\s*)?(?P<rest>.*)$",
        )
        .expect("pattern")
        }),
        rust_lld: LazyLock::new(|| {
            Regex::new(r"(?:^|[\s:>\]])(?P<tool>rust-lld(?:\.exe)?):\s*(?:error|warning):")
                .expect("pattern")
        }),
        failed: LazyLock::new(|| {
            Regex::new(
            r"(?:^|\s)(?P<driver>[A-Za-z][\w.+\-]*?(?:\.exe)?):\s*error:\s*(?P<rest>linker command failed\b.*)$",
        )
        .expect("pattern")
        }),
    };
    &P
}

/// Rewrites a driver's or tool's prefix to the linker's own line.
pub fn apply(line: &str) -> Option<String> {
    let bytes = line.as_bytes();
    let f = super::finders();
    let lld = f.lld.find(bytes).is_some();
    let failed = f.command_failed.find(bytes).is_some();
    if !lld && !failed {
        return None;
    }
    let p = patterns();
    if lld {
        let forwarded =
            f.error_colon.find(bytes).is_some() || f.warning_colon.find(bytes).is_some();
        if let Some(c) = forwarded.then(|| p.forwarded.captures(line)).flatten() {
            return Some(format!("lld-link: {}: {}", &c["sev"], &c["rest"]));
        }
        let rust_lld = f.rust_lld.find(bytes).is_some();
        if let Some(c) = rust_lld.then(|| p.rust_lld.captures(line)).flatten() {
            let tool = c.name("tool")?;
            return Some(format!(
                "{}lld-link{}",
                &line[..tool.start()],
                &line[tool.end()..]
            ));
        }
    }
    if failed {
        let c = p.failed.captures(line)?;
        let driver = c.name("driver")?;
        if driver.as_str() == "clang" {
            return None;
        }
        return Some(format!(
            "{}clang: error: {}",
            &line[..driver.start()],
            &c["rest"]
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drivers() {
        // https://github.com/jayrod246/open3DMM/issues/8
        assert_eq!(
            apply("error: lld-link: undefined symbol: _main").as_deref(),
            Some("lld-link: error: undefined symbol: _main")
        );
        assert_eq!(
            apply("clang++: error: lld-link: error: undefined symbol: f").as_deref(),
            Some("lld-link: error: undefined symbol: f")
        );
        assert_eq!(
            apply("clang++: error: linker command failed with exit code 1120 (use -v to see invocation)").as_deref(),
            Some("clang: error: linker command failed with exit code 1120 (use -v to see invocation)")
        );
        assert_eq!(
            apply("  rust-lld: error: undefined symbol: x").as_deref(),
            Some("  lld-link: error: undefined symbol: x")
        );
        assert_eq!(
            apply("collect2.exe: error: lld-link: undefined symbol: y").as_deref(),
            Some("lld-link: error: undefined symbol: y")
        );
    }

    #[test]
    fn linker_lines_are_left_alone() {
        assert_eq!(apply("lld-link: error: undefined symbol: f"), None);
        assert_eq!(
            apply("clang: error: linker command failed with exit code 1"),
            None
        );
        assert_eq!(apply("ld.lld: error: undefined symbol: f"), None);
    }
}
