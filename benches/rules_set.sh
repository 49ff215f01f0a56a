#!/usr/bin/env bash
# The cost of many user rules: `lnkfix diagnose --rules FILE` with a rule file of N rules (default
# 20,000: each an exact name, a prefix, a name pattern and a demangled-name pattern, none of which
# the log's names meet, the worst case: every rule is tried) on logs of 2,000 and 20,000 distinct
# symbols, against the same runs without the file: the difference between the two logs is the cost
# per symbol, the rest the cost of loading the rules.
# Usage: benches/rules_set.sh [N] [LNKFIX]   (needs GNU time at /usr/bin/time)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-20000}
work=${BENCH_DIR:-target/bench}
mkdir -p "$work"
if [ -n "${2:-}" ]; then lnkfix=$2; else cargo build --release --quiet; lnkfix=target/release/lnkfix; fi
python3 - "$work/rules-$count.json" "$work/rules.log" "$count" <<'PY'
import json, sys
rules_path, log_path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
rules = [{"id": f"user-{i}", "match": {"exact": [f"exactname_{i}"], "prefix": [f"pfx{i}_"],
          "regex": f"^userlib{i}_[a-z]+$", "demangled_regex": f"^ns{i}::"},
          "family": "user-lib"} for i in range(count)]
families = {"user-lib": {"description": "generated", "crt": False, "libraries": None}}
json.dump({"schema_version": 1, "families": families, "chain": {}, "rules": rules}, open(rules_path, "w"))
for suffix, symbols in (("", 2000), (".big", 20000)):
  with open(log_path + suffix, "w", newline="") as f:
    for i in range(symbols):
      f.write(f"m.obj : error LNK2019: unresolved external symbol \"void __cdecl app::f{i}(int)\" (?f{i}@app@@YAXH@Z) referenced in function main\r\n")
PY
run() {
    local log=$1
    shift
    /usr/bin/time -f "%e %M" "$lnkfix" diagnose "$log" "$@" 2>"$work/time.tmp" >"$work/out.tmp" || true
    grep -q "error:" "$work/time.tmp" && { cat "$work/time.tmp" >&2; exit 1; }
    tail -1 "$work/time.tmp"
}
read -r base _ < <(run "$work/rules.log")
read -r with with_kib < <(run "$work/rules.log" --rules "$work/rules-$count.json")
read -r big_base _ < <(run "$work/rules.log.big")
read -r big_with _ < <(run "$work/rules.log.big" --rules "$work/rules-$count.json")
echo "2,000 symbols: ${base} s without rules, ${with} s with $count rules (peak $((with_kib / 1024)) MiB)"
echo "20,000 symbols: ${big_base} s without rules, ${big_with} s with $count rules"
python3 -c "print(f'per symbol, for the rules: {max(0.0, (($big_with - $big_base) - ($with - $base))) / 18000 * 1e6:.1f} us; loading them: {max(0.0, $with - $base):.2f} s')"
