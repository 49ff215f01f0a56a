#!/usr/bin/env bash
# Runs one fuzz target the way fuzz/README.md reports it: niced, one job, a time budget, the
# stable toolchain with RUSTC_BOOTSTRAP=1 (cargo-fuzz passes -Z flags), debug assertions on.
#
#   fuzz/run.sh TARGET [SECONDS] [LOG_DIR] [LIBFUZZER_FLAG...]
#
# Builds into CARGO_TARGET_DIR (default /work/target-fuzz/fuzz); the corpus is fuzz/corpus/TARGET
# (fuzz/seed.sh makes it), crashes land in fuzz/artifacts/TARGET. libFuzzer's output goes to
# LOG_DIR/TARGET.log (default /tmp/lnkfix-fuzz-logs); the last status line is printed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
target=${1:?usage: fuzz/run.sh TARGET [SECONDS] [LOG_DIR] [LIBFUZZER_FLAG...]}
seconds=${2:-240}
logs=$(realpath -m "${3:-/tmp/lnkfix-fuzz-logs}")
shift $(($# < 3 ? $# : 3))
mkdir -p "$logs/$target.run"
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/work/target-fuzz/fuzz}
# -jobs=1 makes libFuzzer write to ./fuzz-0.log: run from a scratch directory.
cd "$logs/$target.run"
status=0
nice -n 19 cargo fuzz run --fuzz-dir "$here" -O -a "$target" -- \
    -jobs=1 -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "$@" || status=$?
mv fuzz-0.log "$logs/$target.log"
grep -E '^#[0-9]+' "$logs/$target.log" | tail -n1
grep -E '^(Done|stat::)' "$logs/$target.log" || true
ls "$here/artifacts/$target" 2>/dev/null || true
exit "$status"
