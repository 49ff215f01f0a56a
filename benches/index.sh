#!/usr/bin/env bash
# Benchmark of the library index: generates an SDK-sized corpus and measures, in one
# run, lnkfix's index build without a cache and with its on-disk cache (cold = the cache is empty
# and gets written, warm = every entry present) against `llvm-nm-14 --print-armap` and `cat` over
# the same files, with peak RSS from /usr/bin/time -v.
#
# Corpus: one import library per DLL of the Microsoft-made windows.0.53.0.lib (its export list
# split per DLL into .def files, built with llvm-dlltool-14), plus static libraries of generated C
# (clang-14 + llvm-lib-14: several objects each, functions, COMDAT data, /alternatename,
# /DEFAULTLIB), plus the real windows crate libraries (MSVC and GNU long-form).
#
# Usage: benches/index.sh [CORPUS_DIR]   (STATIC_LIBS=700 OBJECTS=4 FUNCTIONS=80 RUNS=10 to tune)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-${TMPDIR:-/tmp}/lnkfix-bench-corpus}
static_libs=${STATIC_LIBS:-700}
objects=${OBJECTS:-4}
functions=${FUNCTIONS:-80}
runs=${RUNS:-10}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$here/target}
for tool in clang-14 llvm-lib-14 llvm-dlltool-14 llvm-nm-14 python3 /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "missing tool: $tool" >&2; exit 1; }
done

cargo build --release --quiet --manifest-path "$here/Cargo.toml" --example index_bench
bench=$CARGO_TARGET_DIR/release/examples/index_bench
metadata=$(cargo metadata --format-version 1 --manifest-path "$here/Cargo.toml")
crate_lib() {
    python3 -c 'import json,sys,os; m=json.load(sys.stdin); print(os.path.dirname(next(p["manifest_path"] for p in m["packages"] if p["name"]==sys.argv[1])))' "$1" <<<"$metadata"
}
msvc_lib=$(crate_lib windows_x86_64_msvc)/lib/windows.0.53.0.lib
gnu_lib=$(crate_lib windows_x86_64_gnu)/lib/libwindows.0.53.0.a

if [ ! -f "$corpus/.done" ]; then
    echo "generating corpus in $corpus ..." >&2
    rm -rf "$corpus"
    mkdir -p "$corpus/def" "$corpus/lib" "$corpus/src"
    # Split the umbrella import library into one .def per DLL (short import members only).
    python3 - "$msvc_lib" "$corpus/def" <<'PY'
import collections, struct, sys
data = open(sys.argv[1], "rb").read()
exports = collections.defaultdict(list)
at = 8
while at + 60 <= len(data):
    size = int(data[at + 48:at + 58])
    body = data[at + 60:at + 60 + size]
    if body[:4] == b"\0\0\xff\xff" and struct.unpack("<H", body[4:6])[0] == 0:
        kind = struct.unpack("<H", body[18:20])[0] & 3
        symbol, dll = body[20:].split(b"\0")[:2]
        exports[dll.decode()].append((symbol.decode(), kind))
    at += 60 + size + (size & 1)
for dll, names in exports.items():
    stem = dll.rsplit(".", 1)[0]
    with open(f"{sys.argv[2]}/{stem}.def", "w") as out:
        out.write(f"LIBRARY {dll}\nEXPORTS\n")
        for name, kind in sorted(set(names)):
            out.write(f"    {name}{' DATA' if kind == 1 else ''}\n")
PY
    ls "$corpus/def" | sed 's/\.def$//' | xargs -P 2 -I{} \
        llvm-dlltool-14 -m i386:x86-64 -d "$corpus/def/{}.def" -l "$corpus/lib/{}.lib"
    # Static libraries of generated C.
    python3 - "$corpus/src" "$static_libs" "$objects" "$functions" <<'PY'
import os, sys
root, libs, objects, functions = sys.argv[1], *map(int, sys.argv[2:])
for lib in range(libs):
    os.makedirs(f"{root}/s{lib}", exist_ok=True)
    for obj in range(objects):
        with open(f"{root}/s{lib}/o{obj}.c", "w") as out:
            out.write('#pragma comment(lib, "kernel32")\n')
            out.write(f'#pragma comment(linker, "/alternatename:alias_{lib}_{obj}=fn_{lib}_{obj}_0")\n')
            out.write(f"__declspec(selectany) int picked_{lib}_{obj} = {obj};\n")
            for fn in range(functions):
                out.write(f"int fn_{lib}_{obj}_{fn}(int x) {{ return x * {fn} + picked_{lib}_{obj}; }}\n")
PY
    seq 0 $((static_libs - 1)) | xargs -P 2 -I{} sh -c '
        cd "$1/src/s$2" && clang-14 --target=x86_64-pc-windows-msvc -c o*.c &&
        llvm-lib-14 /out:"$1/lib/static$2.lib" o*.o' _ "$corpus" {}
    cp "$msvc_lib" "$corpus/lib/windows.0.53.0.lib"
    cp "$gnu_lib" "$corpus/lib/libwindows.0.53.0.a"
    touch "$corpus/.done"
fi

mapfile -t files < <(find "$corpus/lib" -type f | sort)
bytes=$(cat "${files[@]}" | wc -c)
echo "corpus: ${#files[@]} files, $((bytes / 1024 / 1024)) MiB" >&2

# measure NAME SETUP COMMAND...: SETUP (a shell command) runs before every run; the first run is
# reported on its own, then the best wall time of $runs more runs, and the peak RSS of all.
measure() {
    local name=$1 setup=$2; shift 2
    local log=$corpus/time.log best=999999 first="" rss=0
    for run in $(seq 0 "$runs"); do
        sh -c "$setup"
        # Wall time in nanoseconds (time -v prints only hundredths); time -v for the peak RSS.
        local start end wall kb
        start=$(date +%s%N)
        /usr/bin/time -v "$@" >/dev/null 2>"$log" || true
        end=$(date +%s%N)
        wall=$(python3 -c "print(($end - $start) / 1e9)")
        kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
        [ "$kb" -gt "$rss" ] && rss=$kb
        if [ -z "$first" ]; then first=$wall; continue; fi
        best=$(python3 -c "print(min($best, $wall))")
    done
    echo "$name $first $best $rss"
}

cache=$corpus/cache
rm -rf "$cache"
{
    measure lnkfix true "$bench" "${files[@]}"
    # Every run starts from an empty cache: all of them write every entry.
    measure lnkfix-cache-cold "rm -rf '$cache'" "$bench" --cache-dir "$cache" "${files[@]}"
    # The last cold run left every entry in place.
    measure lnkfix-cache-warm true "$bench" --cache-dir "$cache" "${files[@]}"
    measure llvm-nm true llvm-nm-14 --print-armap "${files[@]}"
    measure cat true cat "${files[@]}"
} >"$corpus/results.txt"
"$bench" "${files[@]}" 2>&1 >/dev/null | sed 's/^/lnkfix: /' >&2
echo "cache: $(du -sh "$cache" | cut -f1) in $(find "$cache" -name '*.idx' | wc -l) entries" >&2

python3 - "$corpus/results.txt" "${#files[@]}" "$bytes" "$(nproc)" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    name, cold, warm, rss = line.split()
    rows[name] = (float(cold), float(warm), int(rss))
files, size, cores = sys.argv[2], int(sys.argv[3]), sys.argv[4]
print(f"{files} files, {size / 2**20:.0f} MiB, {cores} cores; wall seconds (first run / best of rest), peak RSS")
print("| tool | first run (s) | best (s) | peak RSS (MiB) | llvm-nm best / this | cat best / this |")
print("|---|---|---|---|---|---|")
nm, cat = rows["llvm-nm"][1], rows["cat"][1]
for name, (first, best, rss) in rows.items():
    print(f"| {name} | {first:.3f} | {best:.3f} | {rss / 1024:.0f} | {nm / best:.1f}x | {cat / best:.2f}x |")
PY
