#!/usr/bin/env bash
# Log reading throughput and peak memory: `lnkfix diagnose` on a generated log of SIZE_MB (default
# 1024) against `grep -c LNK` on the same file (the I/O-and-scan floor), in one run.
# Usage: benches/log_throughput.sh [SIZE_MB]   (needs GNU time at /usr/bin/time)
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb=${1:-1024}
work=${BENCH_DIR:-target/bench}
mkdir -p "$work"
log="$work/big-${size_mb}MB.log"
cargo build --release --quiet
if [ ! -f "$log" ] || [ "$(stat -c %s "$log")" -lt $((size_mb * 1024 * 1024)) ]; then
    # A realistic mix: ninja/compiler noise, link.exe and lld-link records, repeated symbols, and
    # 2,000 distinct ones; written in chunks so generation needs no memory.
    python3 - "$log" "$size_mb" <<'PY'
import sys
path, size = sys.argv[1], int(sys.argv[2]) * 1024 * 1024
block = []
for i in range(2000):
    block.append(f"[{i}/9000] clang-cl /nologo /MD /EHsc /O2 /c kernels_{i}.cpp /Fokernels_{i}.obj\r\n")
    block.append(f"kernels_{i}.obj : error LNK2019: unresolved external symbol hipKernel_{i} referenced in function \"void __cdecl launch_{i}(int)\" (?launch_{i}@@YAXH@Z)\r\n")
    block.append(f"lld-link: error: undefined symbol: __declspec(dllimport) CreateFileW\r\n>>> referenced by C:\\src\\k{i}.cpp:{i}\r\n>>>               k{i}.obj:(void __cdecl f{i}(void))\r\n")
    block.append("   Creating library hip_kernels.lib and object hip_kernels.exp\r\n")
data = "".join(block).encode()
with open(path, "wb") as f:
    written = 0
    while written < size:
        f.write(data)
        written += len(data)
PY
fi
bytes=$(stat -c %s "$log")
run() { /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1; }
read -r grep_s grep_kb < <(run grep -c LNK "$log")
read -r lnk_s lnk_kb < <(run target/release/lnkfix diagnose --format json "$log")
python3 - "$bytes" "$grep_s" "$grep_kb" "$lnk_s" "$lnk_kb" <<'PY'
import sys
b, gs, gk, ls, lk = int(sys.argv[1]), *map(float, sys.argv[2:])
mb = b / 1e6
print(f"log: {mb:.0f} MB")
print(f"grep -c LNK        : {gs:6.2f} s  {mb/gs:7.0f} MB/s  peak {gk/1024:6.1f} MiB")
print(f"lnkfix diagnose    : {ls:6.2f} s  {mb/ls:7.0f} MB/s  peak {lk/1024:6.1f} MiB")
print(f"ratio lnkfix/grep  : {ls/gs:.2f}x")
PY
