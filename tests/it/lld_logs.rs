//! Real lld-link logs, generated from our own sources by `tests/fixtures/build.sh` (clang-14 in
//! clang-cl mode, `/MT` and `/MD`, linked with `lld-link-14 /dll /nodefaultlib`, once with
//! `/demangle:no` and once without): lnkfix lists exactly the symbols that llvm-nm says the
//! objects leave undefined, whichever way lld-link printed them.

use crate::common;

use std::collections::BTreeSet;

/// The canonical form of a linker-level name, for comparing with what a demangled log showed.
fn canonical_of_linker_name(name: &str) -> String {
    let d = lnkfix::read::demangle::demangle(name);
    let prefix = if d.import { "import " } else { "" };
    format!("{prefix}{}", lnkfix::read::demangle::canonical(&d.text))
}

#[test]
fn generated_lld_link_logs_yield_exactly_the_undefined_symbols() {
    let dir = common::fixtures();
    let manifest = common::manifest();
    let mut failures = Vec::new();
    let mut checked = 0;
    for log in manifest["logs"].as_array().unwrap() {
        if log["complete"] != true {
            continue;
        }
        let path = dir.join(log["log"].as_str().unwrap());
        let failure = common::collect(&path);
        let want: BTreeSet<String> = log["undefined"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["symbol"].as_str().unwrap().to_string())
            .collect();
        let (got, want): (BTreeSet<String>, BTreeSet<String>) = if log["demangled"] == true {
            // lld-link printed demangled names: compare canonical forms (LLVM's demangler on
            // one side, msvc-demangler on the other).
            let got = failure
                .symbols
                .iter()
                .map(|s| {
                    let prefix = if s.import { "import " } else { "" };
                    format!("{prefix}{}", s.canonical())
                })
                .collect();
            (
                got,
                want.iter().map(|w| canonical_of_linker_name(w)).collect(),
            )
        } else {
            let got = failure
                .symbols
                .iter()
                .map(|s| s.linker_name().unwrap_or(s.name()).to_string())
                .collect();
            (got, want)
        };
        if got != want {
            failures.push(format!(
                "{}: missing {:?}\n  invented {:?}",
                path.display(),
                want.difference(&got).collect::<Vec<_>>(),
                got.difference(&want).collect::<Vec<_>>()
            ));
        }
        assert!(!failure.incomplete, "{} is complete", path.display());
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} complete logs in the manifest");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn truncated_lld_log_is_reported_incomplete() {
    let dir = common::fixtures();
    let manifest = common::manifest();
    let log = manifest["logs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["complete"] == false)
        .expect("a log cut by lld-link's error limit");
    let failure = common::collect(&dir.join(log["log"].as_str().unwrap()));
    assert!(failure.incomplete);
    assert_eq!(
        failure.symbols.len() as u64,
        log["listed"].as_u64().unwrap()
    );
    let book = lnkfix::rules::RuleBook::builtin();
    let d = lnkfix::resolve::diagnose(failure, &book, &Default::default());
    assert!(d.warnings.iter().any(|w| w.contains("incomplete")));
}

#[test]
fn md_and_mt_logs_give_the_right_flavour_from_the_log_alone() {
    let dir = common::fixtures();
    let manifest = common::manifest();
    let book = lnkfix::rules::RuleBook::builtin();
    for log in manifest["logs"].as_array().unwrap() {
        let name = log["log"].as_str().unwrap();
        if !(name.contains("md-") || name.contains("mt-")) || log["complete"] != true {
            continue;
        }
        let failure = common::collect(&dir.join(name));
        let d = lnkfix::resolve::diagnose(failure, &book, &Default::default());
        assert_eq!(
            d.verdict.kind,
            lnkfix::resolve::VerdictKind::DefaultLibChainAbsent,
            "{name}: {}",
            d.verdict.summary
        );
        if name.contains("md-") {
            // dllimport references to CRT functions mean the DLL CRT.
            assert_eq!(
                d.crt.flavour,
                Some(lnkfix::rules::Flavour::Dynamic),
                "{name}"
            );
            assert!(d.link_flags.iter().any(|f| f == "msvcrt.lib"));
        }
        assert!(
            d.link_flags.iter().any(|f| f == "amdhip64.lib"),
            "{name}: {:?}",
            d.link_flags
        );
        assert!(
            d.symbols.iter().all(|s| s.family != "unknown"),
            "{name}: {:?}",
            d.symbols
                .iter()
                .filter(|s| s.family == "unknown")
                .map(|s| s.symbol.name())
                .collect::<Vec<_>>()
        );
    }
}
