//! GPU arch names: validating `gfx` targets, reading arch lists, and the two arch analyses of the
//! rule book (gfx906 on a compile command line; "invalid device function" at the first launch).

use regex::Regex;
use serde::Serialize;
use std::sync::OnceLock;

use super::EvidenceLine;

/// The arch tvm-ffi's JIT falls back to when `TVM_FFI_ROCM_ARCH_LIST` is unset (the rule book's
/// "command line contains gfx906 (not gfx1201)").
pub const FALLBACK_ARCH: &str = "gfx906";

/// The environment variable that names the archs tvm-ffi's JIT builds for.
pub const ARCH_LIST_VARIABLE: &str = "TVM_FFI_ROCM_ARCH_LIST";

fn target_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        // gfx + 3-4 digits + optional stepping letter (gfx906, gfx1201, gfx1151, gfx942), the
        // two-digit-plus-letter names (gfx90a, gfx90c), LLVM's generic targets (gfx11-generic,
        // gfx10-3-generic), each with optional target features (:xnack-, :sramecc+).
        Regex::new(
            r"^gfx(?:[0-9]{3,4}[a-z]?|[0-9]{2}[a-z]|[0-9]{1,2}(?:-[0-9])?-generic)(?::(?:xnack|sramecc)[+-])*$",
        )
        .expect("gfx target pattern")
    })
}

/// Whether `name` is a valid AMDGPU target (`gfx1201`, `gfx90a:xnack-`, `gfx11-generic`).
pub fn is_valid_target(name: &str) -> bool {
    target_regex().is_match(name)
}

/// The processor part of a target (`gfx90a:xnack-` → `gfx90a`), lower case.
pub fn processor(target: &str) -> String {
    target
        .split(':')
        .next()
        .unwrap_or(target)
        .trim()
        .to_ascii_lowercase()
}

/// Splits an arch list as tvm-ffi and users write it: `;`, `,` or whitespace separated, quotes
/// and empty entries ignored.
pub fn split_list(list: &str) -> Vec<String> {
    list.split([';', ',', ' ', '\t'])
        .map(|s| s.trim().trim_matches(['"', '\'']).trim())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Where the intended arch came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IntendedSource {
    /// `--arch-intended`.
    Option,
    /// A `TVM_FFI_ROCM_ARCH_LIST=...` line in the log.
    Log,
    /// `TVM_FFI_ROCM_ARCH_LIST` in the environment lnkfix runs in.
    Environment,
    /// The GPU the log shows (`TRITON_OVERRIDE_ARCH=gfx1201`, `gcnArchName: gfx1201`, rocminfo's
    /// `Name: gfx1201`).
    LogDevice,
}

/// What the arch analyses found (in the report as `arch`).
#[derive(Debug, Clone, Serialize)]
pub struct ArchCheck {
    /// The archs the user meant to build for (empty: unknown).
    pub intended: Vec<String>,
    /// Where `intended` came from.
    pub intended_source: Option<IntendedSource>,
    /// Whether `TVM_FFI_ROCM_ARCH_LIST` was set for the run, as far as the log or the
    /// environment tell (`None`: nothing tells).
    pub variable_set: Option<bool>,
    /// The `--offload-arch=` values on the log's compile command lines, each with its first line.
    pub offload_archs: Vec<OffloadArch>,
    /// The verdict in one sentence.
    pub finding: String,
}

/// One arch seen on a compile command line.
#[derive(Debug, Clone, Serialize)]
pub struct OffloadArch {
    /// The arch as written (`gfx906`).
    pub arch: String,
    /// Where it was first seen.
    pub first: EvidenceLine,
    /// Whether it is one of the intended archs (`None` when they are unknown).
    pub intended: Option<bool>,
}

/// What the log and environment say about the arch variable.
#[derive(Debug, Clone, Default)]
pub(crate) struct ArchFacts {
    pub intended: Vec<String>,
    pub intended_source: Option<IntendedSource>,
    pub variable_set: Option<bool>,
}

impl ArchFacts {
    pub(crate) fn new(
        option: Option<&str>,
        log_value: Option<&Option<String>>,
        environment: Option<&str>,
    ) -> ArchFacts {
        let environment = environment.filter(|v| !v.trim().is_empty());
        // Did the run have the variable? The log's own line wins over lnkfix's environment,
        // which is only a guess (triage may run in another shell).
        let variable_set = match log_value {
            Some(Some(_)) => Some(true),
            Some(None) => Some(false),
            None => environment.map(|_| true),
        };
        let (intended, intended_source) = if let Some(o) = option.filter(|o| !o.trim().is_empty()) {
            (split_list(o), Some(IntendedSource::Option))
        } else if let Some(Some(v)) = log_value {
            (split_list(v), Some(IntendedSource::Log))
        } else if let Some(e) = environment {
            (split_list(e), Some(IntendedSource::Environment))
        } else {
            (Vec::new(), None)
        };
        ArchFacts {
            intended,
            intended_source,
            variable_set,
        }
    }

    /// The intended arch from the GPU the log shows, when neither `--arch-intended` nor an arch
    /// variable line of the log says it: the device is what the code must run on, which the
    /// environment lnkfix runs in can only guess.
    pub(crate) fn with_device(mut self, device: Option<&str>) -> ArchFacts {
        let weaker = matches!(
            self.intended_source,
            None | Some(IntendedSource::Environment)
        );
        if let Some(device) = device.filter(|_| weaker) {
            self.intended = vec![device.to_string()];
            self.intended_source = Some(IntendedSource::LogDevice);
        }
        self
    }

    /// Whether `arch` is intended (`None` when nothing is known about the intent).
    pub(crate) fn is_intended(&self, arch: &str) -> Option<bool> {
        if self.intended.is_empty() {
            return None;
        }
        let p = processor(arch);
        Some(self.intended.iter().any(|i| processor(i) == p))
    }

    /// Whether a command-line arch is the wrong one: not intended, or (intent unknown) the JIT's
    /// fallback arch.
    pub(crate) fn is_wrong(&self, arch: &str) -> bool {
        match self.is_intended(arch) {
            Some(intended) => !intended,
            None => processor(arch) == FALLBACK_ARCH,
        }
    }

    pub(crate) fn intended_text(&self) -> String {
        if self.intended.is_empty() {
            "the GPU's arch (unknown here: pass --arch-intended, e.g. gfx1201)".into()
        } else {
            self.intended.join(";")
        }
    }

    /// The intended arch for follow-up texts (`--offload-arch={intended}`).
    pub(crate) fn intended_short(&self) -> String {
        if self.intended.is_empty() {
            "<the GPU's gfx target>".into()
        } else {
            self.intended.join(";")
        }
    }

    fn variable_state(&self) -> String {
        match self.variable_set {
            Some(true) => format!(
                "{ARCH_LIST_VARIABLE} is set ({}) but does not reach the compile flags",
                self.intended.join(";")
            ),
            Some(false) => format!("{ARCH_LIST_VARIABLE} is unset, so the JIT used its default"),
            None => format!(
                "{ARCH_LIST_VARIABLE} was most likely unset (the JIT's default arch is {FALLBACK_ARCH})"
            ),
        }
    }

    fn set_fix(&self) -> String {
        let value = if self.intended.is_empty() {
            "<your gfx target, e.g. gfx1201>".to_string()
        } else {
            self.intended.join(";")
        };
        format!(
            "set {ARCH_LIST_VARIABLE}={value} (and TRITON_OVERRIDE_ARCH to the same arch) in the environment that launches the server, kill leftover processes, clear the JIT cache, relaunch"
        )
    }

    fn wire_fix(&self) -> String {
        format!(
            "wire {ARCH_LIST_VARIABLE} into the flags where extension.py builds the HIP compile command (one --offload-arch=<arch> per entry), once for every JIT build; then clear the JIT cache and relaunch"
        )
    }

    /// Placeholders for the compile-stage row.
    pub(crate) fn mismatch_values(&self, arch: &str) -> Vec<(String, String)> {
        let fix = if self.variable_set == Some(true) {
            self.wire_fix()
        } else {
            self.set_fix()
        };
        vec![
            ("arch".into(), arch.to_string()),
            ("intended".into(), self.intended_short()),
            ("intended_long".into(), self.intended_text()),
            ("variable_state".into(), self.variable_state()),
            ("arch_fix".into(), fix),
        ]
    }

    /// The runtime analysis: what the log's command lines say about the code object's arch.
    pub(crate) fn offload_check(
        &self,
        seen: &[(String, EvidenceLine)],
    ) -> (ArchCheck, Vec<(String, String)>) {
        let offload_archs: Vec<OffloadArch> = seen
            .iter()
            .map(|(arch, line)| OffloadArch {
                arch: arch.clone(),
                first: line.clone(),
                intended: self.is_intended(arch),
            })
            .collect();
        let (finding, fix) = self.offload_finding(&offload_archs);
        let values = vec![
            ("arch_finding".into(), finding.clone()),
            ("arch_fix".into(), fix),
            ("intended".into(), self.intended_short()),
        ];
        (
            ArchCheck {
                intended: self.intended.clone(),
                intended_source: self.intended_source,
                variable_set: self.variable_set,
                offload_archs,
                finding,
            },
            values,
        )
    }

    /// What the command lines' archs say, and the fix: no arch given, wrong archs, the intended
    /// ones (the failing code object comes from elsewhere), or archs whose intent is unknown.
    fn offload_finding(&self, offload_archs: &[OffloadArch]) -> (String, String) {
        let wrong: Vec<&OffloadArch> = offload_archs
            .iter()
            .filter(|a| self.is_wrong(&a.arch))
            .collect();
        if offload_archs.is_empty() {
            self.no_offload_arch()
        } else if !wrong.is_empty() {
            self.wrong_offload_archs(&wrong)
        } else if offload_archs.iter().any(|a| a.intended == Some(true)) {
            (
                format!(
                    "the JIT command lines in this log do build for {} ({}): the failing code object comes from elsewhere (a stale build in the JIT cache, a prebuilt kernel, or triton compiling for TRITON_OVERRIDE_ARCH)",
                    self.intended_text(),
                    listed(offload_archs)
                ),
                "clear the JIT cache (tvm-ffi and triton caches), check TRITON_OVERRIDE_ARCH equals the intended arch (lnkfix doctor), relaunch".into(),
            )
        } else {
            (
                format!(
                    "the JIT command lines build for {}; the intended arch is unknown here, so compare it with the GPU's gcnArchName (hipinfo)",
                    listed(offload_archs)
                ),
                format!(
                    "if the GPU is not {}, {}",
                    offload_archs
                        .iter()
                        .map(|a| a.arch.as_str())
                        .collect::<Vec<_>>()
                        .join("/"),
                    self.set_fix()
                ),
            )
        }
    }

    /// No `--offload-arch=` on any command line: the variable is not wired in, or not set.
    fn no_offload_arch(&self) -> (String, String) {
        match self.variable_set {
            Some(true) => (
                format!(
                    "no --offload-arch= on any JIT command line in this log although {ARCH_LIST_VARIABLE} is set: the variable is read but never wired into the flags, so the compiler built for its default arch"
                ),
                self.wire_fix(),
            ),
            _ => (
                format!(
                    "no --offload-arch= on any JIT command line in this log and {ARCH_LIST_VARIABLE} is not known to be set: the compiler built for its default arch"
                ),
                format!(
                    "{}; if the command lines still show no --offload-arch=, wire the variable into extension.py's flags",
                    self.set_fix()
                ),
            ),
        }
    }

    /// The command lines build for archs that are not the intended one.
    fn wrong_offload_archs(&self, wrong: &[&OffloadArch]) -> (String, String) {
        let wrong_list = wrong
            .iter()
            .map(|a| format!("{} (line {})", a.arch, a.first.line))
            .collect::<Vec<_>>()
            .join(", ");
        match self.variable_set {
            Some(true) => (
                format!(
                    "the JIT command lines build for {wrong_list} while {ARCH_LIST_VARIABLE} is set to {}: the variable is read but never wired into the flags",
                    self.intended_text()
                ),
                self.wire_fix(),
            ),
            _ => (
                format!(
                    "the JIT command lines build for {wrong_list}, not {}; {}",
                    self.intended_text(),
                    self.variable_state()
                ),
                self.set_fix(),
            ),
        }
    }

    /// The report's arch section for the compile-stage row.
    pub(crate) fn mismatch_check(&self, seen: &[(String, EvidenceLine)], arch: &str) -> ArchCheck {
        let offload_archs = seen
            .iter()
            .map(|(a, line)| OffloadArch {
                arch: a.clone(),
                first: line.clone(),
                intended: self.is_intended(a),
            })
            .collect();
        ArchCheck {
            intended: self.intended.clone(),
            intended_source: self.intended_source,
            variable_set: self.variable_set,
            offload_archs,
            finding: format!(
                "the compile command line builds for {arch}, not {}: {}",
                self.intended_text(),
                self.variable_state()
            ),
        }
    }
}

/// The archs with the line each first appears on (`gfx1100 (line 12), gfx90a (line 40)`).
fn listed(offload_archs: &[OffloadArch]) -> String {
    offload_archs
        .iter()
        .map(|a| format!("{} (line {})", a.arch, a.first.line))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The GPU's arch as a log line shows it: triton's override (`TRITON_OVERRIDE_ARCH=gfx1201`), a
/// device property dump (`gcnArchName: 'gfx1201:sramecc+:xnack-'`), rocminfo's agent
/// `Name: gfx1201`. The processor only, without target features.
pub(crate) fn device_arch_in_line(line: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r#"(?:TRITON_OVERRIDE_ARCH["']?\s*[=:]\s*|gcnArchName["']?\s*[=:]\s*|^\s*Name:\s+)["']?(?P<arch>gfx[0-9a-f]{3,4})\b"#,
        )
        .expect("device arch pattern")
    });
    re.captures(line).map(|c| c["arch"].to_string())
}

/// The arch variable as a log line shows it: `Some(Some(value))` set, `Some(None)` said to be
/// unset, `None` not mentioned.
pub(crate) fn variable_in_line(line: &str) -> Option<Option<String>> {
    static RE: OnceLock<(Regex, Regex)> = OnceLock::new();
    let (set, unset) = RE.get_or_init(|| {
        (
            Regex::new(
                r#"TVM_FFI_ROCM_ARCH_LIST["']?\s*[=:]\s*["']?(?P<value>gfx[0-9a-z:+\-;,]*)"#,
            )
            .expect("arch variable pattern"),
            Regex::new(
                r"(?i)TVM_FFI_ROCM_ARCH_LIST\W{0,3}(?:is\s+)?(?:not\s+set|unset|undefined|empty)",
            )
            .expect("arch unset pattern"),
        )
    });
    if let Some(c) = set.captures(line) {
        let value = c["value"].trim().trim_end_matches([';', ',']).to_string();
        if !value.is_empty() {
            return Some(Some(value));
        }
    }
    unset.is_match(line).then_some(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets() {
        for ok in [
            "gfx906",
            "gfx1201",
            "gfx90a",
            "gfx90a:xnack-",
            "gfx942:sramecc+:xnack-",
            "gfx11-generic",
            "gfx10-3-generic",
            "gfx1151",
        ] {
            assert!(is_valid_target(ok), "{ok}");
        }
        for bad in [
            "gfx",
            "gfx12",
            "sm_80",
            "gfx1201:xnack",
            "GFX1201x",
            "gfx1201;",
        ] {
            assert!(!is_valid_target(bad), "{bad}");
        }
    }

    #[test]
    fn variable_lines() {
        assert_eq!(
            variable_in_line("set TVM_FFI_ROCM_ARCH_LIST=gfx1201"),
            Some(Some("gfx1201".into()))
        );
        assert_eq!(
            variable_in_line("$env:TVM_FFI_ROCM_ARCH_LIST = \"gfx1201;gfx1100\""),
            Some(Some("gfx1201;gfx1100".into()))
        );
        assert_eq!(
            variable_in_line("warning: TVM_FFI_ROCM_ARCH_LIST not set, defaulting to gfx906"),
            Some(None)
        );
        assert_eq!(variable_in_line("nothing here"), None);
    }
}

#[cfg(test)]
mod device_tests {
    use super::*;

    /// The GPU's arch as logs show it, and a log that names it makes the intent known.
    #[test]
    fn the_device_a_log_shows() {
        for (line, arch) in [
            (
                "2026-11-30 INFO worker | TRITON_OVERRIDE_ARCH=gfx1201",
                "gfx1201",
            ),
            ("  gcnArchName: 'gfx90a:sramecc+:xnack-'", "gfx90a"),
            (
                "  Name:                    gfx1100                            ",
                "gfx1100",
            ),
        ] {
            assert_eq!(device_arch_in_line(line).as_deref(), Some(arch), "{line}");
        }
        assert_eq!(device_arch_in_line("--offload-arch=gfx906"), None);
        let facts = ArchFacts::new(None, None, None).with_device(Some("gfx1201"));
        assert_eq!(facts.is_intended("gfx906"), Some(false));
        assert_eq!(facts.intended_source, Some(IntendedSource::LogDevice));
        // --arch-intended stays the user's word.
        let facts = ArchFacts::new(Some("gfx1100"), None, None).with_device(Some("gfx1201"));
        assert_eq!(facts.is_intended("gfx1100"), Some(true));
    }
}
