#!/usr/bin/env bash
# Precision and recall of one lnkfix build on pasted logs: the pastes that tests/it/metamorphic.rs
# writes when LNKFIX_WRITE_PASTES=DIR is set (every log we have through every paste shape, with
# the clean log's symbols in DIR/truth.jsonl). Run it with an older build to compare:
#   LNKFIX_WRITE_PASTES=target/pastes cargo test --test metamorphic every_log
#   benches/paste_accuracy.sh target/pastes target/release/lnkfix
#   benches/paste_accuracy.sh target/pastes path/to/older/lnkfix
# Prints, per paste shape and in total: symbols expected, found, missed, invented, precision,
# recall, and the pastes whose LNK1120 counts differ.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 PASTES_DIR LNKFIX" >&2; exit 2; }
python3 - "$1" "$2" <<'PY'
import json, subprocess, sys, collections
pastes, lnkfix = sys.argv[1], sys.argv[2]
per = collections.defaultdict(lambda: [0, 0, 0, 0, 0, 0])  # expected, found, missed, invented, pastes, count-differs
for line in open(f"{pastes}/truth.jsonl"):
    case = json.loads(line)
    out = subprocess.run([lnkfix, "diagnose", "--format", "json", f"{pastes}/{case['file']}"],
                         capture_output=True, text=True)
    report = json.loads(out.stdout)
    got = [s.get("linker_name") or s["name"] for s in report["symbols"]]
    want = case["symbols"]
    row = per[case["shape"]]
    row[0] += len(want)
    row[1] += sum(1 for g in got if g in want)
    row[2] += sum(1 for w in want if w not in got)
    row[3] += sum(1 for g in got if g not in want)
    row[4] += 1
    row[5] += report["counts"]["lnk1120"] != case["lnk1120"]
total = [sum(r[i] for r in per.values()) for i in range(6)]
print("| shape | pastes | symbols | missed | invented | precision | recall | LNK1120 differs |")
print("|---|---|---|---|---|---|---|---|")
for name, r in sorted(per.items()) + [("all", total)]:
    precision = r[1] / (r[1] + r[3]) if r[1] + r[3] else 1.0
    recall = r[1] / r[0] if r[0] else 1.0
    print(f"| {name} | {r[4]} | {r[0]} | {r[2]} | {r[3]} | {precision:.3f} | {recall:.3f} | {r[5]} |")
PY
