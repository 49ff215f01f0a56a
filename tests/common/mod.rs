//! Shared test helpers: the fixture set built by `tests/fixtures/build.sh` (clang-14, lld-link-14,
//! llvm-lib-14, llvm-dlltool-14), built once per test binary. A missing tool fails the test: CI
//! installs them (`.ci/run`), and a skipped test would prove nothing.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The fixture directory (`target/fixtures`), built on first use.
pub fn fixtures() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = root().join("target").join("fixtures");
        let status = std::process::Command::new("bash")
            .arg(root().join("tests/fixtures/build.sh"))
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("cannot run bash tests/fixtures/build.sh");
        assert!(
            status.success(),
            "tests/fixtures/build.sh failed ({status}); it needs clang-14, lld-14 and llvm-14 (apt-get install clang-14 lld-14 llvm-14)"
        );
        out
    })
}

/// The fixture manifest (`manifest.json`, written by build.sh).
pub fn manifest() -> serde_json::Value {
    let text = std::fs::read_to_string(fixtures().join("manifest.json")).expect("manifest.json");
    serde_json::from_str(&text).expect("manifest.json is JSON")
}

/// Reads a log file into a link failure.
pub fn collect(path: &Path) -> lnkfix::symbols::LinkFailure {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    lnkfix::symbols::collect(file, Default::default()).unwrap()
}
