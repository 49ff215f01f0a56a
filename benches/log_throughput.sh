#!/usr/bin/env bash
# Log reading throughput and peak memory, in one run: `lnkfix diagnose --format json` against
# `grep -c LNK` (the scan floor) on the same files. Two generated logs of SIZE_MB each (default
# 1024): "dense", where every line is a link record (the worst case), and "realistic", a CI log
# of compiler and supervisor noise with a link record every few hundred lines.
# Usage: benches/log_throughput.sh [SIZE_MB]   (needs GNU time at /usr/bin/time)
# LNKFIX=path/to/lnkfix measures another build (an older one, for a before/after comparison)
# instead of this tree's release build.
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb=${1:-1024}
work=${BENCH_DIR:-target/bench}
mkdir -p "$work"
lnkfix=${LNKFIX:-target/release/lnkfix}
[ -n "${LNKFIX:-}" ] || cargo build --release --quiet
generate() {
    python3 - "$1" "$size_mb" "$2" <<'PY'
import sys
path, size, kind = sys.argv[1], int(sys.argv[2]) * 1024 * 1024, sys.argv[3]
lines = []
for i in range(2000):
    if kind == "dense":
        lines.append(f"[{i}/9000] clang-cl /nologo /MD /EHsc /O2 /c kernels_{i}.cpp /Fokernels_{i}.obj\r\n")
        lines.append(f"kernels_{i}.obj : error LNK2019: unresolved external symbol hipKernel_{i} referenced in function \"void __cdecl launch_{i}(int)\" (?launch_{i}@@YAXH@Z)\r\n")
        lines.append(f"lld-link: error: undefined symbol: __declspec(dllimport) CreateFileW\r\n>>> referenced by C:\\src\\k{i}.cpp:{i}\r\n>>>               k{i}.obj:(void __cdecl f{i}(void))\r\n")
        lines.append("   Creating library hip_kernels.lib and object hip_kernels.exp\r\n")
    else:
        for j in range(10):
            k = i * 10 + j
            lines.append(f"[{k}/20000] C:\\PROGRA~1\\AMD\\ROCm\\6.4\\bin\\clang++.exe -x hip --offload-arch=gfx1201 -O3 -std=c++17 -DNDEBUG -IC:\\src\\include -c C:\\src\\kernels\\k{k}.cu -o k{k}.o\r\n")
            lines.append(f"C:\\src\\kernels\\k{k}.cu:{k % 300}:12: note: in instantiation of function template specialization 'launch<{k}>' requested here\r\n")
            lines.append(f"2026-11-30 12:00:{k % 60:02d},123 INFO worker | compiled module k{k} in {k % 7}.{k % 10}s\r\n")
        lines.append(f"k{i}.obj : error LNK2019: unresolved external symbol hipKernel_{i} referenced in function \"void __cdecl launch_{i}(int)\" (?launch_{i}@@YAXH@Z)\r\n")
data = "".join(lines).encode()
with open(path, "wb") as f:
    written = 0
    while written < size:
        f.write(data)
        written += len(data)
PY
}
# Output goes to a file, not /dev/null: GNU grep stops at the first match when it sees /dev/null.
# Wall seconds, peak RSS (KiB), CPU seconds (user + system: less disturbed by a loaded machine).
run() { /usr/bin/time -f "%e %M %U %S" "$@" 2>&1 >"$work/out.tmp" | tail -1; }
echo "| log | size | grep -c LNK | lnkfix diagnose | ratio | lnkfix CPU | lnkfix peak RSS |"
echo "|---|---|---|---|---|---|---|"
for kind in dense realistic; do
    log="$work/$kind-${size_mb}MB.log"
    if [ ! -f "$log" ] || [ "$(stat -c %s "$log")" -lt $((size_mb * 1024 * 1024)) ]; then
        generate "$log" "$kind"
    fi
    cat "$log" > /dev/null # warm the page cache for both
    read -r grep_s _ _ _ < <(run grep -c LNK "$log")
    read -r lnk_s lnk_kb lnk_user lnk_sys < <(run "$lnkfix" diagnose --format json "$log")
    python3 - "$kind" "$(stat -c %s "$log")" "$grep_s" "$lnk_s" "$lnk_kb" "$lnk_user" "$lnk_sys" <<'PY'
import sys
kind, b, gs, ls, lk, lu, lsys = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:])
mb = b / 1e6
gs = max(gs, 0.01)
cpu = lu + lsys
print(f"| {kind} | {mb:.0f} MB | {gs:.2f} s ({mb/gs:.0f} MB/s) | {ls:.2f} s ({mb/ls:.0f} MB/s) | {ls/gs:.1f}x | {cpu:.2f} s | {lk/1024:.1f} MiB |")
PY
done
