//! MSVC toolset facts (docs/RULES.md §21): which names came with a newer toolset than some
//! installations have, which ones only the CRT before Visual Studio 2015 had, and which toolset
//! a version number in a path or a banner is (`MSVC\14.29.30133` is Visual Studio 2019).

/// Which side of a toolset mismatch a name shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Generation {
    /// The referencing code was built by a newer toolset than the libraries linked: the name
    /// came with a later toolset (the vectorised `__std_*` helpers, `__CxxFrameHandler4`).
    Newer,
    /// The referencing code was built against the CRT of Visual Studio 2013 or older: the name
    /// left the CRT in 2015 (`__iob_func`, an imported `_iob`) or moved into the headers
    /// (the `printf`/`scanf` family, now in `legacy_stdio_definitions.lib`).
    Older,
}

/// The vcruntime names of Visual Studio 2015 that start with `__std_`: they are not newer than
/// any toolset that links today, unlike the C++ library's vectorised `__std_*` helpers.
const VCRUNTIME_STD_NAMES: &[&str] = &[
    "__std_terminate",
    "__std_exception_copy",
    "__std_exception_destroy",
    "__std_type_info_compare",
    "__std_type_info_hash",
    "__std_type_info_name",
    "__std_type_info_destroy_list",
];

/// Whether `name` (linker-level, `__imp_` and x86 decoration undone) is one that only newer
/// toolsets' libraries define: the C++ library's `__std_*` helpers, added release by release
/// in Visual Studio 2019 and 2022 updates, and the FH4 exception handling of Visual Studio 2019
/// (`__CxxFrameHandler4`, `__GSHandlerCheck_EH4`).
pub fn is_newer_toolset_name(name: &str) -> bool {
    if matches!(name, "__CxxFrameHandler4" | "__GSHandlerCheck_EH4") {
        return true;
    }
    name.starts_with("__std_") && !VCRUNTIME_STD_NAMES.contains(&name)
}

/// Whether a name from a library's reference is one that only the CRT before Visual Studio 2015
/// had, given its family (`pre-2015-crt`, `legacy-stdio`) and whether it was imported: an
/// imported `_iob` is the old DLL CRT's stream array (the static UCRT keeps an internal `_iob`,
/// the DLL UCRT exports none).
pub fn is_pre_2015_name(name: &str, family: &str, import: bool) -> bool {
    family == "pre-2015-crt" || family == "legacy-stdio" || (import && name == "_iob")
}

/// A toolset version seen in the log or in a library path.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ToolsetVersion {
    /// The version as written (`14.29.30133`, `14.15.26730.0`, `12.0`).
    pub version: String,
    /// The Visual Studio release it belongs to (`Visual Studio 2019`), when known.
    pub product: Option<&'static str>,
}

impl ToolsetVersion {
    /// `14.29.30133 (Visual Studio 2019)`.
    pub fn describe(&self) -> String {
        match self.product {
            Some(product) => format!("MSVC {} ({product})", self.version),
            None => format!("MSVC {}", self.version),
        }
    }
}

/// The Visual Studio release of a toolset version (`14.29.30133` → Visual Studio 2019): 14.0 is
/// 2015, 14.1x 2017, 14.2x 2019, 14.3x and 14.4x 2022, 14.5x 2026; 12.0 is 2013, 11.0 2012, 10.0
/// 2010, 9.0 2008 (the linker's and the tools directory's version number).
pub fn product_of(version: &str) -> Option<&'static str> {
    let mut parts = version.split('.');
    let major: u32 = parts.next()?.parse().ok()?;
    let minor: u32 = parts.next().unwrap_or("0").parse().ok()?;
    Some(match (major, minor) {
        (14, 0) => "Visual Studio 2015",
        (14, 10..=19) => "Visual Studio 2017",
        (14, 20..=29) => "Visual Studio 2019",
        (14, 30..=49) => "Visual Studio 2022",
        (14, 50..=59) => "Visual Studio 2026",
        (12, _) => "Visual Studio 2013",
        (11, _) => "Visual Studio 2012",
        (10, _) => "Visual Studio 2010",
        (9, _) => "Visual Studio 2008",
        _ => return None,
    })
}

/// Whether a toolset version is older than Visual Studio 2015 (the CRT before the UCRT).
pub fn before_2015(version: &str) -> bool {
    version
        .split('.')
        .next()
        .and_then(|m| m.parse::<u32>().ok())
        .is_some_and(|major| major < 14)
}

/// The toolset versions a text shows: `VC\Tools\MSVC\14.29.30133` (either slash), a linker or
/// compiler banner (`Incremental Linker Version 14.15.26730.0`, `Compiler Version 19.15.26730`:
/// the compiler's 19.xx is toolset 14.xx), and the pre-2017 `Microsoft Visual Studio 12.0\VC`.
pub fn versions_in(text: &str) -> Vec<ToolsetVersion> {
    let mut out: Vec<ToolsetVersion> = Vec::new();
    let mut push = |version: String| {
        if !out.iter().any(|v| v.version == version) {
            out.push(ToolsetVersion {
                product: product_of(&version),
                version,
            });
        }
    };
    let lower = text.to_ascii_lowercase();
    for marker in ["\\msvc\\", "/msvc/"] {
        let mut from = 0;
        while let Some(at) = lower[from..].find(marker) {
            let start = from + at + marker.len();
            if let Some(version) = leading_version(&text[start..]).filter(|v| v.starts_with("14."))
            {
                push(version);
            }
            from = start;
        }
    }
    if let Some(at) = lower.find("linker version ") {
        if let Some(version) = leading_version(&text[at + "linker version ".len()..]) {
            push(version);
        }
    }
    if let Some(at) = lower.find("compiler version ") {
        if let Some(version) = leading_version(&text[at + "compiler version ".len()..]) {
            // The compiler's major version is the toolset's plus five (19.29 is 14.29).
            let mut parts = version.splitn(2, '.');
            if let (Some(Ok(major)), Some(rest)) =
                (parts.next().map(str::parse::<u32>), parts.next())
            {
                if major >= 15 {
                    push(format!("{}.{rest}", major - 5));
                }
            }
        }
    }
    if let Some(at) = lower.find("microsoft visual studio ") {
        let rest = &text[at + "microsoft visual studio ".len()..];
        if let Some(version) = leading_version(rest) {
            if rest[version.len()..]
                .to_ascii_lowercase()
                .starts_with("\\vc")
                || rest[version.len()..]
                    .to_ascii_lowercase()
                    .starts_with("/vc")
            {
                push(version);
            }
        }
    }
    out
}

/// A version number (`14.29.30133`, `12.0`) at the start of `text`: digits and dots, at least one
/// dot, not ending in a dot.
fn leading_version(text: &str) -> Option<String> {
    let run: String = text
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let run = run.trim_end_matches('.');
    (run.contains('.') && run.starts_with(|c: char| c.is_ascii_digit())).then(|| run.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_newer_and_older_toolsets() {
        assert!(is_newer_toolset_name("__std_find_trivial_1"));
        assert!(is_newer_toolset_name("__std_search_1"));
        assert!(is_newer_toolset_name("__CxxFrameHandler4"));
        assert!(!is_newer_toolset_name("__std_terminate"));
        assert!(!is_newer_toolset_name("__CxxFrameHandler3"));
        assert!(is_pre_2015_name("__iob_func", "pre-2015-crt", false));
        assert!(is_pre_2015_name("_vsnprintf", "legacy-stdio", true));
        assert!(is_pre_2015_name("_iob", "ucrt", true));
        assert!(!is_pre_2015_name("_iob", "ucrt", false));
    }

    #[test]
    fn versions_and_products() {
        let seen = versions_in(
            r"C:\Program Files (x86)\Microsoft Visual Studio\2019\BuildTools\VC\Tools\MSVC\14.29.30133\lib\x64",
        );
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].describe(), "MSVC 14.29.30133 (Visual Studio 2019)");
        let seen = versions_in("Microsoft (R) Incremental Linker Version 14.15.26730.0");
        assert_eq!(seen[0].version, "14.15.26730.0");
        assert_eq!(seen[0].product, Some("Visual Studio 2017"));
        let seen =
            versions_in("Microsoft (R) C/C++ Optimizing Compiler Version 19.44.35207 for x64");
        assert_eq!(seen[0].version, "14.44.35207");
        let seen =
            versions_in(r"D:\Program Files (x86)\Microsoft Visual Studio 12.0\VC\bin\link.exe");
        assert_eq!(seen[0].product, Some("Visual Studio 2013"));
        assert!(before_2015(&seen[0].version));
        assert!(
            versions_in("D:/visual studio/VC/Tools/MSVC/14.32.31326/bin/Hostx64/x64/cl.exe")[0]
                .version
                .starts_with("14.32")
        );
        assert!(versions_in("nothing here 14.2").is_empty());
    }
}
