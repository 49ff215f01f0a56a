//! A [`PatchPlan`] from a diagnosis, read as its JSON document (the same code path serves a live
//! diagnosis and a saved `diagnose --format json`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{DefaultLibChain, HipLibrary, LinkLibrary, PatchPlan};

/// Libraries `extension.py` always links itself: never added again.
const ALREADY_LINKED: &[&str] = &["tvm_ffi.lib"];

fn parent_dir(path: &str) -> Option<PathBuf> {
    // Windows paths read on Linux: split on both separators.
    let cut = path.rfind(['\\', '/'])?;
    Some(PathBuf::from(&path[..cut]))
}

/// Builds the plan: the HIP runtime, every other library the diagnosis decided, and the explicit
/// chain only when the verdict says the default-library chain is absent and the flavour is known.
pub fn plan_from_diagnosis(diagnosis: &Value, source: &str, literal_paths: bool) -> PatchPlan {
    let mut plan = PatchPlan {
        source: source.to_string(),
        literal_paths,
        ..PatchPlan::default()
    };
    let symbols = diagnosis["symbols"].as_array().cloned().unwrap_or_default();
    let dir_of = |library: &str| -> Option<PathBuf> {
        symbols
            .iter()
            .find(|s| {
                s["library"]
                    .as_str()
                    .is_some_and(|l| l.eq_ignore_ascii_case(library))
            })
            .and_then(|s| s["library_path"].as_str())
            .and_then(parent_dir)
    };
    for symbol in &symbols {
        if symbol["family"] == "hip-runtime" && plan.hip.is_none() {
            if let Some(library) = symbol["library"].as_str() {
                plan.hip = Some(HipLibrary {
                    library: library.to_string(),
                    found_dir: dir_of(library),
                });
            }
        }
    }
    let chain: Vec<String> = if diagnosis["verdict"]["kind"] == "default-lib-chain-absent" {
        diagnosis["chain"]
            .as_array()
            .map(|c| {
                c.iter()
                    .filter_map(|l| l.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let flags = diagnosis["link_flags"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for flag in flags.iter().filter_map(Value::as_str) {
        let is_option = flag.starts_with('/') || flag.starts_with('-');
        let is_hip = plan
            .hip
            .as_ref()
            .is_some_and(|h| h.library.eq_ignore_ascii_case(flag));
        let in_chain = chain.iter().any(|c| c.eq_ignore_ascii_case(flag));
        let already = ALREADY_LINKED.iter().any(|l| l.eq_ignore_ascii_case(flag));
        if is_option || is_hip || in_chain || already {
            continue;
        }
        plan.libraries.push(LinkLibrary {
            name: flag.to_string(),
            dir: dir_of(flag),
        });
    }
    if !chain.is_empty() {
        plan.chain = Some(DefaultLibChain {
            flavour: diagnosis["crt"]["flavour"]
                .as_str()
                .unwrap_or("dynamic")
                .to_string(),
            libraries: chain,
            evidence_disagrees: diagnosis["crt"]["conflict"].as_str().map(str::to_string),
        });
    }
    plan
}

/// Whether a file holds a saved diagnosis (JSON with `schema_version`) rather than a log.
pub fn read_saved_diagnosis(path: &Path) -> Option<Value> {
    let bytes = std::fs::read(path).ok()?;
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace())?;
    if *first != b'{' {
        return None;
    }
    let value: Value = serde_json::from_slice(&bytes).ok()?;
    value.get("schema_version")?;
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_takes_hip_libraries_and_chain() {
        let diagnosis = serde_json::json!({
            "schema_version": 1,
            "symbols": [
                {"family": "hip-runtime", "library": "amdhip64.lib", "library_path": "C:\\ROCm\\6.4\\lib\\amdhip64.lib"},
                {"family": "windows-system", "library": "User32.Lib", "library_path": null}
            ],
            "verdict": {"kind": "default-lib-chain-absent"},
            "chain": ["msvcrt.lib", "kernel32.lib"],
            "crt": {"flavour": "dynamic", "conflict": null},
            "link_flags": ["amdhip64.lib", "User32.Lib", "tvm_ffi.lib", "msvcrt.lib", "kernel32.lib"]
        });
        let plan = plan_from_diagnosis(&diagnosis, "build.log", false);
        let hip = plan.hip.unwrap();
        assert_eq!(hip.library, "amdhip64.lib");
        assert_eq!(hip.found_dir, Some(PathBuf::from("C:\\ROCm\\6.4\\lib")));
        assert_eq!(plan.libraries.len(), 1);
        assert_eq!(plan.libraries[0].name, "User32.Lib");
        let chain = plan.chain.unwrap();
        assert_eq!(chain.flavour, "dynamic");
        assert_eq!(chain.libraries, ["msvcrt.lib", "kernel32.lib"]);
    }

    #[test]
    fn no_chain_unless_the_verdict_says_so() {
        let diagnosis = serde_json::json!({
            "schema_version": 1, "symbols": [], "verdict": {"kind": "libraries-missing"},
            "chain": ["msvcrt.lib"], "crt": {}, "link_flags": ["advapi32.lib"]
        });
        let plan = plan_from_diagnosis(&diagnosis, "x", false);
        assert!(plan.chain.is_none() && plan.hip.is_none());
        assert_eq!(plan.libraries[0].name, "advapi32.lib");
    }
}
