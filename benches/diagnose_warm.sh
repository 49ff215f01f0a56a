#!/usr/bin/env bash
# A full `lnkfix diagnose` of a 100-symbol log against a warm index of the SDK-sized corpus that
# benches/index.sh generates ("Warm diagnose" in benches/README.md). Prints each of RUNS wall times
# and the median. Usage: benches/diagnose_warm.sh [CORPUS_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-/tmp/lnkfix-bench-corpus}
runs=${RUNS:-11}
[ -d "$corpus/lib" ] || { echo "no corpus in $corpus: run benches/index.sh $corpus first" >&2; exit 1; }
cargo build --release --quiet
work=${BENCH_DIR:-target/bench}
mkdir -p "$work"
# 100 Windows API functions the corpus's import libraries provide, as link.exe reports them.
python3 - "$work/diagnose-100.log" <<'PY'
import random, sys
names = [l.strip() for l in open("symbol-db/names/windows-api.txt")
         if l.strip() and not l.startswith(("#", "["))]
random.seed(3)
with open(sys.argv[1], "w") as f:
    for n in random.sample(names, 100):
        f.write(f"app.obj : error LNK2019: unresolved external symbol __imp_{n} referenced in function main\n")
    f.write("app.dll : fatal error LNK1120: 100 unresolved externals\n")
PY
cache=$work/diagnose-cache
rm -rf "$cache"
lnkfix() { target/release/lnkfix diagnose "$work/diagnose-100.log" --lib-dir "$corpus/lib" --cache-dir "$cache" --format json > "$work/diagnose-100.json" || [ $? -eq 1 ]; }
lnkfix # fills the cache
times=()
for _ in $(seq "$runs"); do
    start=$(date +%s%N); lnkfix; end=$(date +%s%N)
    times+=("$(( (end - start) / 1000000 ))")
done
printf 'warm diagnose, 100 symbols, %s files: %s ms\n' "$(ls "$corpus/lib" | wc -l)" "${times[*]}"
printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print "median: " a[int((NR + 1) / 2)] " ms" }'
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('resolved from archives:', sum(s['provider'] == 'archive' for s in d['symbols']), 'of', len(d['symbols']))" "$work/diagnose-100.json"
