//! The interpreter's answer, remembered in the cache directory so that a run does not start
//! Python again to learn what it already learned (starting it costs 40 to 150 ms, more than a
//! warm diagnose of a whole log).
//!
//! An answer is reused only while the interpreter is the same file: the fingerprint is the path
//! given and every link on the way to the executable (path, size, change time, file id), the
//! `pyvenv.cfg` beside it or one level up (a virtual environment's `prefix` comes from it), and
//! the variables that name the user's site-packages (`HOME`, `APPDATA`). A script (`#!`, as
//! pyenv's shims are) chooses its interpreter at run time, so its answer is never remembered;
//! nor is an answer whose paths are not valid Unicode (JSON could not give them back exactly).
//!
//! The file (`python.json`) is read whole, bounded, and trusted only as far as its fingerprint:
//! a damaged or foreign file is ignored and replaced, atomically.

use std::fs;
use std::io::{Read, Write};
use std::path::Path;

use super::{probe, Interpreter, ProbeError};

/// The file in the cache directory.
pub const FILE_NAME: &str = "python.json";

/// The most answers kept (one per interpreter used); the oldest goes first.
const MAX_ENTRIES: usize = 16;

/// A file larger than this is not read (a few answers take a few KiB).
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// How many symbolic links are followed to the executable, at most.
const MAX_LINKS: usize = 16;

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Remembered {
    schema_version: u32,
    entries: Vec<Entry>,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Entry {
    fingerprint: String,
    answer: Interpreter,
}

const SCHEMA_VERSION: u32 = 1;

/// [`probe`], answered from `cache_dir` when the same interpreter was asked before (see the
/// module doc), and remembered there when asked now. Without a cache directory, or when the
/// interpreter cannot be fingerprinted, it is [`probe`].
pub fn probe_remembered(
    exe: &Path,
    cache_dir: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Interpreter, ProbeError> {
    let Some(dir) = cache_dir else {
        return probe(exe);
    };
    let Some(fingerprint) = fingerprint(exe, env) else {
        return probe(exe);
    };
    let file = dir.join(FILE_NAME);
    let mut remembered = read(&file);
    if let Some(entry) = remembered
        .entries
        .iter()
        .find(|e| e.fingerprint == fingerprint)
    {
        return Ok(entry.answer.clone());
    }
    let answer = probe(exe)?;
    if paths_are_unicode(&answer) {
        remembered.entries.retain(|e| e.fingerprint != fingerprint);
        remembered.entries.push(Entry {
            fingerprint,
            answer: answer.clone(),
        });
        let excess = remembered.entries.len().saturating_sub(MAX_ENTRIES);
        remembered.entries.drain(..excess);
        // A cache that cannot be written costs the next run a probe, nothing else.
        let _ = write(dir, &file, &mut remembered);
    }
    Ok(answer)
}

/// What identifies the interpreter `exe` is, or `None` when it cannot be told (a script, a
/// file that cannot be read, a loop of links).
fn fingerprint(exe: &Path, env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let mut parts = Vec::new();
    let mut path = exe.to_path_buf();
    for _ in 0..=MAX_LINKS {
        let meta = fs::symlink_metadata(&path).ok()?;
        parts.push(describe(&path, &meta)?);
        if meta.file_type().is_symlink() {
            let target = fs::read_link(&path).ok()?;
            path = match path.parent() {
                Some(parent) => parent.join(target),
                None => target,
            };
            continue;
        }
        if !meta.is_file() || is_script(&path)? {
            return None;
        }
        for dir in exe.ancestors().skip(1).take(2) {
            let config = dir.join("pyvenv.cfg");
            if let Ok(meta) = fs::metadata(&config) {
                parts.push(describe(&config, &meta)?);
            }
        }
        for name in ["HOME", "APPDATA"] {
            parts.push(format!("{name}={}", env(name).unwrap_or_default()));
        }
        return Some(parts.join("\n"));
    }
    None
}

/// `path|size|modified` of one file or link, and for a file its identity and change time;
/// `None` for a path that is not Unicode or a file whose identity cannot be read.
fn describe(path: &Path, meta: &fs::Metadata) -> Option<String> {
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    let mut text = format!("{}|{}|{}", path.to_str()?, meta.len(), modified);
    if !meta.file_type().is_symlink() {
        let stamp = crate::files::identity::stamp_of_path(path).ok()?;
        text += &format!("|{:?}|{}", stamp.identity, stamp.changed);
    }
    Some(text)
}

/// Whether the file starts with `#!`.
fn is_script(path: &Path) -> Option<bool> {
    let mut head = [0u8; 2];
    let mut file = fs::File::open(path).ok()?;
    let mut read = 0;
    while read < head.len() {
        match file.read(&mut head[read..]) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        }
    }
    Some(&head[..read] == b"#!")
}

fn paths_are_unicode(answer: &Interpreter) -> bool {
    [&answer.executable, &answer.base_prefix, &answer.prefix]
        .into_iter()
        .chain(&answer.site_packages)
        .all(|p| p.to_str().is_some())
}

/// The remembered answers, or none when the file is missing, too large, damaged or of another
/// version.
fn read(file: &Path) -> Remembered {
    let Ok(handle) = fs::File::open(file) else {
        return Remembered::default();
    };
    let mut text = Vec::new();
    if handle
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut text)
        .is_err()
        || text.len() as u64 > MAX_FILE_BYTES
    {
        return Remembered::default();
    }
    match serde_json::from_slice::<Remembered>(&text) {
        Ok(r) if r.schema_version == SCHEMA_VERSION => r,
        _ => Remembered::default(),
    }
}

/// Writes the file whole through a temporary file in the same directory, then renames it.
fn write(dir: &Path, file: &Path, remembered: &mut Remembered) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    remembered.schema_version = SCHEMA_VERSION;
    let json = serde_json::to_vec(remembered).map_err(std::io::Error::other)?;
    let mut temporary = tempfile::NamedTempFile::new_in(dir)?;
    temporary.write_all(&json)?;
    temporary.persist(file).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The machine's real Python binary (not a shim): the tests need an interpreter that runs.
    fn real_python() -> PathBuf {
        let output = std::process::Command::new("python3")
            .args([
                "-c",
                "import sys, os; print(os.path.realpath(sys.executable))",
            ])
            .output()
            .expect("python3 runs (tests/run.sh installs it)");
        PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn an_answer_is_reused_while_the_interpreter_is_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let link = dir.path().join("python");
        std::os::unix::fs::symlink(real_python(), &link).unwrap();
        let first = probe_remembered(&link, Some(&cache), &no_env).unwrap();
        // The remembered answer is what the second run gets: change it on disk and see it come back.
        let file = cache.join(FILE_NAME);
        let text = fs::read_to_string(&file).unwrap();
        assert!(text.contains(&first.version), "{text}");
        let version = format!("\"version\":\"{}\"", first.version);
        let tampered = |text: String| text.replace(&version, "\"version\":\"9.9.9\"");
        fs::write(&file, tampered(text)).unwrap();
        let second = probe_remembered(&link, Some(&cache), &no_env).unwrap();
        assert_eq!(second.version, "9.9.9");
        // Another interpreter behind the same name (the link made again): asked again.
        fs::remove_file(&link).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::os::unix::fs::symlink(real_python(), &link).unwrap();
        let third = probe_remembered(&link, Some(&cache), &no_env).unwrap();
        assert_eq!(third.version, first.version);
        // Another home: another user site, asked again.
        fs::write(
            &file,
            fs::read_to_string(&file)
                .unwrap()
                .replace(&first.version, "9.9.9"),
        )
        .unwrap();
        let home = |name: &str| (name == "HOME").then(|| "/elsewhere".to_string());
        assert_eq!(
            probe_remembered(&link, Some(&cache), &home)
                .unwrap()
                .version,
            first.version
        );
    }

    #[test]
    fn a_damaged_file_is_replaced_and_a_script_is_never_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        fs::create_dir_all(&cache).unwrap();
        let file = cache.join(FILE_NAME);
        for junk in [
            &b"\0\xff{"[..],
            b"{\"schema_version\": 99, \"entries\": []}",
            b"[]",
        ] {
            fs::write(&file, junk).unwrap();
            let answer = probe_remembered(&real_python(), Some(&cache), &no_env).unwrap();
            let text = fs::read_to_string(&file).unwrap();
            assert!(
                text.contains(&answer.version) && text.contains("\"schema_version\":1"),
                "{text}"
            );
        }
        let script = dir.path().join("shim");
        fs::write(
            &script,
            format!("#!/bin/sh\nexec {} \"$@\"\n", real_python().display()),
        )
        .unwrap();
        fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        fs::remove_file(&file).unwrap();
        probe_remembered(&script, Some(&cache), &no_env).unwrap();
        assert!(!file.exists(), "a script's answer was remembered");
    }
}
