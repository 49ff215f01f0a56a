//! What a log shows of the Python a C extension is built for: the interpreter's version
//! (`python312.lib`, `include\python3.12`, `Python312\libs`, `cp312`), whether the build is a
//! debug one (`python312_d.lib`, `/D_DEBUG`, `Py_DEBUG`) and whether it uses the limited API
//! (`python3.lib`, `Py_LIMITED_API`). Read from the same lines the build system is recognised
//! from, in the log's one pass; the resolution step names `python3XX.lib` from it
//! (docs/GUIDE.md, "Python, Node and CUDA").

use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// The Python build a log shows. Empty (all `None`/`false`) when it shows none.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PythonBuild {
    /// The interpreter's minor version as the DLL names it after `python3`: `12` for Python
    /// 3.12 (`python312.dll`), `13t` for a free-threaded 3.13; from the first line showing one.
    pub version: Option<String>,
    /// The 1-based line that showed the version, and its text (shortened).
    pub version_line: Option<(u64, String)>,
    /// The log shows a debug build: `python3XX_d.lib`, `/D_DEBUG`, `-D_DEBUG`, `Py_DEBUG`.
    pub debug: bool,
    /// The log shows the limited API: `python3.lib` linked, or `Py_LIMITED_API` defined.
    pub limited: bool,
}

/// The patterns, compiled once. Each captures the version digits after `3` (and a `t`).
fn patterns() -> &'static [Regex; 4] {
    static PATTERNS: OnceLock<[Regex; 4]> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        [
            // python312.lib, python312_d.lib, python313t.lib, python312.dll
            r"(?i)\bpython3(\d{1,2}t?)(_d)?\.(?:lib|dll)\b",
            // include\python3.12, lib/python3.12, Python312\libs, Python312\include
            r"(?i)(?:\bpython3\.(\d{1,2}t?)\b|\bpython3(\d{1,2})[\\/](?:libs|include|lib)\b)",
            // .cp312-win_amd64.pyd, cp312-cp312
            r"(?i)\bcp3(\d{1,2}t?)-(?:win|cp3)",
            // the limited API and debug markers
            r"(?i)(\bpython3\.lib\b|Py_LIMITED_API\b)|([/-]D_DEBUG\b|Py_DEBUG\b)",
        ]
        .map(|p| Regex::new(p).expect("the Python build patterns are valid"))
    })
}

impl PythonBuild {
    /// Looks at one line of the log (1-based `number`).
    pub fn line(&mut self, number: u64, line: &str) {
        // Cheap first: most lines name nothing of Python.
        let lower_has = |needle: &str| {
            line.as_bytes()
                .windows(needle.len())
                .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
        };
        let pythonish = lower_has("python3") || lower_has("cp3");
        let markers = lower_has("py_") || lower_has("d_debug");
        if !pythonish && !markers {
            return;
        }
        let [lib, dir, tag, flags] = patterns();
        if pythonish {
            if let Some(c) = lib.captures(line) {
                self.debug |= c.get(2).is_some();
                self.set_version(number, line, &c[1]);
            }
            if let Some(c) = dir.captures(line) {
                if let Some(v) = c.get(1).or_else(|| c.get(2)) {
                    self.set_version(number, line, v.as_str());
                }
            }
            if let Some(c) = tag.captures(line) {
                self.set_version(number, line, &c[1]);
            }
        }
        for c in flags.captures_iter(line) {
            self.limited |= c.get(1).is_some();
            self.debug |= c.get(2).is_some();
        }
    }

    /// Keeps the first version seen.
    fn set_version(&mut self, number: u64, line: &str, version: &str) {
        if self.version.is_none() {
            self.version = Some(version.to_ascii_lowercase());
            self.version_line = Some((number, line.trim().chars().take(160).collect()));
        }
    }

    /// The import library of the interpreter the log shows (`python312.lib`,
    /// `python312_d.lib` for a debug build), when it shows its version.
    pub fn library(&self) -> Option<String> {
        let version = self.version.as_deref()?;
        Some(if self.debug {
            format!("python3{version}_d.lib")
        } else {
            format!("python3{version}.lib")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(log: &str) -> PythonBuild {
        let mut build = PythonBuild::default();
        for (i, line) in log.lines().enumerate() {
            build.line(i as u64 + 1, line);
        }
        build
    }

    /// Each shape a log shows the version in, the debug and limited markers, and lines that
    /// must not be taken for a version.
    #[test]
    fn version_debug_and_limited_from_the_log() {
        let rows: [(&str, Option<&str>, bool, bool); 10] = [
            (
                "/LIBPATH:C:\\Python312\\libs python312.lib",
                Some("12"),
                false,
                false,
            ),
            (
                "-IC:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python311\\include",
                Some("11"),
                false,
                false,
            ),
            (
                "cl /c -I/usr/include/python3.10 x.c",
                Some("10"),
                false,
                false,
            ),
            (
                "creating build\\lib.win-amd64-cpython-313\\x.cp313-win_amd64.pyd",
                Some("13"),
                false,
                false,
            ),
            (
                "LINK : fatal error LNK1104: cannot open file 'python39_d.lib'",
                Some("9"),
                true,
                false,
            ),
            ("cl /DPy_LIMITED_API=0x03080000 x.c", None, false, true),
            ("link.exe python3.lib x.obj", None, false, true),
            ("cl /D_DEBUG /MDd x.c", None, true, false),
            ("cl -DPy_DEBUG x.c", None, true, false),
            (
                "python3 -m pip install . and Python 3.12 is nice; cp3 x",
                None,
                false,
                false,
            ),
        ];
        let mut failures = Vec::new();
        for (line, version, debug, limited) in rows {
            let got = read(line);
            if got.version.as_deref() != version || got.debug != debug || got.limited != limited {
                failures.push(format!("{line:?}: {got:?}"));
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
        assert_eq!(
            read("x python312_d.lib").library().as_deref(),
            Some("python312_d.lib")
        );
        assert_eq!(
            read("x cp313t-win_amd64").library().as_deref(),
            Some("python313t.lib")
        );
    }
}
