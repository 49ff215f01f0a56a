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
    /// The log shows Python 2.7 (`python27.lib`, `Python27\libs`, `include\python2.7`,
    /// `temp.win-amd64-2.7`, `cp27`) before any Python 3 version, or an import of a name only
    /// Python 2 exports (`__imp_PyString_FromString`). `version_line` is its line.
    pub python2: bool,
}

/// The patterns, compiled once. Each captures the version digits after `3` (and a `t`).
fn patterns() -> &'static [Regex; 5] {
    static PATTERNS: OnceLock<[Regex; 5]> = OnceLock::new();
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
            // Python 2.7: python27.lib, python27_d.lib, Python27\libs, include\python2.7,
            // build\temp.win-amd64-2.7, cp27-cp27m
            r"(?i)\bpython27(_d)?\.(?:lib|dll)\b|\bpython27[\\/](?:libs|include|lib|pcbuild|pc)\b|\bpython2\.7\b|\.win(?:32|-amd64)-2\.7\b|\bcp27-",
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
        let python2ish = lower_has("python2") || lower_has("-2.7") || lower_has("cp27");
        let markers = lower_has("py_") || lower_has("d_debug");
        if !pythonish && !markers && !python2ish {
            return;
        }
        let [lib, dir, tag, flags, two] = patterns();
        if python2ish && self.version.is_none() {
            if let Some(c) = two.captures(line) {
                self.debug |= c.get(1).is_some();
                self.set_python2(number, line);
            }
        }
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

    /// Records Python 2.7 as the build's Python, unless a version was seen first.
    pub fn set_python2(&mut self, number: u64, line: &str) {
        if self.version.is_none() && !self.python2 {
            self.python2 = true;
            self.version_line = Some((number, line.trim().chars().take(160).collect()));
        }
    }

    /// Keeps the first version seen.
    fn set_version(&mut self, number: u64, line: &str, version: &str) {
        if self.version.is_none() && !self.python2 {
            self.version = Some(version.to_ascii_lowercase());
            self.version_line = Some((number, line.trim().chars().take(160).collect()));
        }
    }

    /// The import library of the interpreter the log shows (`python312.lib`,
    /// `python312_d.lib` for a debug build, `python27.lib` for Python 2), when it shows its
    /// version.
    pub fn library(&self) -> Option<String> {
        if self.python2 {
            return Some(
                if self.debug {
                    "python27_d.lib"
                } else {
                    "python27.lib"
                }
                .into(),
            );
        }
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

    /// Python 2.7 from the log's lines (its library, its folders, setuptools' build folder), a
    /// Python 3 version seen first winning, and lines that only look like it.
    #[test]
    fn python2_from_the_log() {
        let b = read("LINK /LIBPATH:C:\\Python27\\libs a.obj\n");
        assert!(b.python2);
        assert_eq!(b.library().as_deref(), Some("python27.lib"));
        assert_eq!(b.version_line.as_ref().map(|l| l.0), Some(1));
        let b = read("x\nbuild\\temp.win32-2.7\\Release\\a.obj\npython27_d.lib\n");
        assert!(b.python2 && b.debug);
        assert_eq!(b.library().as_deref(), Some("python27_d.lib"));
        let b = read("-IC:\\Python312\\include\nC:\\Python27\\libs\n");
        assert!(!b.python2);
        assert_eq!(b.library().as_deref(), Some("python312.lib"));
        let b = read("gcc-2.7 python2 cp270\n");
        assert!(!b.python2);
        assert_eq!(b.library(), None);
    }
}
