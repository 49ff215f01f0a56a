//! A 1 GiB log (generated on the fly, never written to disk) is read in bounded memory: the peak
//! resident size of `lnkfix diagnose` stays far below the input's size (part of the adversarial
//! suite). Linux only: the peak is read from /proc.
#![cfg(target_os = "linux")]

use std::io::{Read, Write};
use std::process::{Command, Stdio};

fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_one_gigabyte_log_in_bounded_memory() {
    const DISTINCT: usize = 2000;
    let mut block = String::new();
    for i in 0..DISTINCT {
        for j in 0..10 {
            block.push_str(&format!(
                "[{i}/{DISTINCT}] clang++ -x hip --offload-arch=gfx1201 -O3 -c k{i}_{j}.cu -o k{i}_{j}.o\r\n"
            ));
        }
        block.push_str(&format!(
            "k{i}.obj : error LNK2019: unresolved external symbol hipKernel_{i} referenced in function \"void __cdecl launch_{i}(int)\" (?launch_{i}@@YAXH@Z)\r\n"
        ));
    }
    let total: u64 = 1 << 30;
    let mut child = Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .args(["diagnose", "--format", "json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn lnkfix");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let mut written = 0u64;
        while written < total {
            if stdin.write_all(block.as_bytes()).is_err() {
                break;
            }
            written += block.len() as u64;
        }
        written
    });
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).expect("read stdout");
        out
    });
    let mut peak = 0;
    while child.try_wait().expect("wait").is_none() {
        if let Some(kib) = peak_kib(pid) {
            peak = peak.max(kib);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let written = writer.join().expect("writer");
    let status = child.wait().expect("wait");
    let out = reader.join().expect("reader");
    assert!(written >= total, "the whole input was taken: {written}");
    assert_eq!(status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out).expect("json");
    assert_eq!(json["counts"]["unresolved"], DISTINCT);
    assert!(json["stats"]["bytes"].as_u64().unwrap() >= total);
    assert!(peak > 0, "the peak was read");
    assert!(
        peak < 64 * 1024,
        "peak resident size {peak} KiB for a 1 GiB log"
    );
}
