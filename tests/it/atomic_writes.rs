//! Files are never damaged: `patch --apply` killed at any moment leaves extension.py
//! either exactly as it was or exactly patched, never half-written.

use crate::common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::SpawnRetrying;

const HEAD: &str = "import os\n\nIS_WINDOWS = os.name == \"nt\"\n\n\ndef _windows_argument(x):\n    return x\n\n\ndef _generate_ninja_build(name, with_cuda=False, with_hip=False):\n    if IS_WINDOWS:\n        default_ldflags = [\"/DLL\"]\n    else:\n        default_ldflags = [\"-shared\"]\n    return default_ldflags\n";

#[test]
fn killing_apply_never_leaves_a_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let ext = dir.path().join("extension.py");
    // Big enough that writing and compiling take a measurable time.
    let mut original = String::from(HEAD);
    for i in 0..200_000 {
        original.push_str(&format!(
            "# padding line {i} so that the write takes a while\n"
        ));
    }
    let log = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/tvm-ffi-hip-lld-link.log"
    );
    let apply = |ext: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_lnkfix"))
            .arg("patch")
            .arg(ext)
            .args(["--from", log, "--apply", "--no-backup"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn_retrying()
            .expect("spawn lnkfix")
    };
    // The patched text, from one complete run.
    std::fs::write(&ext, &original).unwrap();
    assert!(apply(&ext).wait().unwrap().success());
    let patched = std::fs::read_to_string(&ext).unwrap();
    assert_ne!(patched, original);

    let mut saw_original = 0;
    let mut saw_patched = 0;
    for round in 0..16u64 {
        std::fs::write(&ext, &original).unwrap();
        let mut child = apply(&ext);
        std::thread::sleep(Duration::from_millis(5 + round * 17 % 250));
        let _ = child.kill();
        let _ = child.wait();
        let now = std::fs::read_to_string(&ext).unwrap();
        if now == original {
            saw_original += 1;
        } else if now == patched {
            saw_patched += 1;
        } else {
            panic!("round {round}: extension.py is neither the original nor the patched file ({} bytes)", now.len());
        }
    }
    assert_eq!(saw_original + saw_patched, 16);
}

/// A small tmpfs mounted for one test (the tests run as root), unmounted when dropped.
#[cfg(target_os = "linux")]
struct SmallDisk {
    dir: tempfile::TempDir,
}

#[cfg(target_os = "linux")]
impl SmallDisk {
    fn mount(kilobytes: usize) -> SmallDisk {
        let dir = tempfile::tempdir().unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kilobytes}k"), "tmpfs"])
            .arg(dir.path())
            .status()
            .expect("run mount");
        assert!(
            status.success(),
            "mount a {kilobytes} KB tmpfs (the tests run as root)"
        );
        SmallDisk { dir }
    }
}

#[cfg(target_os = "linux")]
impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_leaves_the_original_and_the_earlier_backup_unchanged() {
    // 144 KB: the original (64 KB) and the patched text's temporary file fit, the backup does not.
    let disk = SmallDisk::mount(144);
    let ext = disk.dir.path().join("extension.py");
    let mut original = String::from(HEAD);
    while original.len() < 64 * 1024 {
        original.push_str("# padding so that the backup does not fit on the disk\n");
    }
    std::fs::write(&ext, &original).unwrap();
    let earlier = disk.dir.path().join("extension.py.orig");
    std::fs::write(&earlier, "an earlier backup\n").unwrap();
    let log = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/tvm-ffi-hip-lld-link.log"
    );
    let output = Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .arg("patch")
        .arg(&ext)
        .args(["--from", log, "--apply"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("backup"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&ext).unwrap(), original);
    assert_eq!(
        std::fs::read_to_string(&earlier).unwrap(),
        "an earlier backup\n"
    );
    let mut names: Vec<_> = std::fs::read_dir(disk.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["extension.py", "extension.py.orig"], "{stderr}");
}
