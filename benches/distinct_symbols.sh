#!/usr/bin/env bash
# Memory per distinct symbol: `lnkfix diagnose` (text and --format json) on a generated log of N
# distinct unresolved C++ symbols (default 300,000; one LNK2019 record each, MSVC's form with the
# demangled and the mangled name), peak RSS by GNU time. Also the --max-symbols cap on the same log.
# Usage: benches/distinct_symbols.sh [N]   (needs GNU time at /usr/bin/time)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-300000}
work=${BENCH_DIR:-target/bench}
mkdir -p "$work"
cargo build --release --quiet
log=$work/distinct-$count.log
python3 - "$log" "$count" <<'PY'
import sys
path, count = sys.argv[1], int(sys.argv[2])
with open(path, "w", newline="") as f:
    for i in range(count):
        f.write(f'main{i % 100}.obj : error LNK2019: unresolved external symbol "void __cdecl ns{i % 50}::func_{i}(int)" '
                f'(?func_{i}@ns{i % 50}@@YAXH@Z) referenced in function "void __cdecl caller_{i}(void)" (?caller_{i}@@YAXXZ)\r\n')
PY
echo "log: $count distinct symbols, $(($(stat -c %s "$log") / 1048576)) MiB"
run() {
    local label=$1
    shift
    /usr/bin/time -f "%e %M" target/release/lnkfix diagnose "$log" "$@" 2>"$work/time.tmp" >"$work/out.tmp" || true
    read -r seconds kib < <(tail -1 "$work/time.tmp")
    echo "$label: ${seconds} s, peak $((kib / 1024)) MiB, $((kib * 1024 / count)) bytes per symbol of the log"
}
run "text" 
run "json" --format json
run "text, --max-symbols 100000" --max-symbols 100000
