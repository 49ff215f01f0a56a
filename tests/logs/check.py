#!/usr/bin/env python3
"""Check lnkfix against the test logs in this folder.

Usage: python3 tests/logs/check.py PATH/TO/lnkfix [--unresolved DIR] [--failures DIR]

The unresolved set (DIR/NNN.log with DIR/cases.jsonl): `lnkfix diagnose --format json
--no-cache LOG` must list exactly the case's `symbols`, in order, and when `lnk1120_count` is a
number, the first LNK1120 count must equal it.

The failure set (DIR/logs/NNN.log with DIR/cases.jsonl): `lnkfix diagnose --format json LOG` must
exit 1 with the case's class as the first problem's kind, every subject must be named (ASCII
case-insensitively) by some problem, and `lnkfix triage --format json LOG` must give stage
`link` and rule `link-<class>` (`link-error` for the classes without a row of their own:
ltcg-mismatch, image-too-large, tool-missing, tool-failed, pdb, corrupt-input,
dllimport-mismatch, other).

Prints one line per log (`ok` or `FAIL` with the reasons) and exits 1 when any log fails.
Standard library only.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# The error class of a case -> the problem kind lnkfix reports for it.
KIND = {"duplicate": "duplicate-symbol"}

# The classes with a triage row of their own (`link-<kind>`); the others (ltcg-mismatch,
# image-too-large, tool-missing, tool-failed, pdb, corrupt-input, dllimport-mismatch, other) answer with the link stage's general
# row, `link-error`.
OWN_ROW = {"duplicate-symbol", "crt-mismatch", "machine-mismatch", "cannot-open",
           "toolset-mismatch", "entry-point", "unresolved"}

# Every error class a case may have.
CLASSES = {"duplicate", "crt-mismatch", "machine-mismatch", "cannot-open", "toolset-mismatch",
           "entry-point", "ltcg-mismatch", "image-too-large", "tool-missing", "tool-failed", "pdb",
           "corrupt-input", "dllimport-mismatch", "other"}


def run(binary, args):
    """Run lnkfix; return (exit code, parsed JSON or None, stderr)."""
    proc = subprocess.run([binary] + args, capture_output=True)
    try:
        data = json.loads(proc.stdout.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        data = None
    return proc.returncode, data, proc.stderr.decode("utf-8", "replace").strip()


def cases(path):
    """The cases of a cases.jsonl, in file order."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def ascii_lower(text):
    """Lower-case ASCII letters only (the subjects compare ASCII case-insensitively)."""
    return "".join(c.lower() if "A" <= c <= "Z" else c for c in text)


def check_unresolved(binary, case, log):
    """The reasons an unresolved-set case fails (empty when it passes)."""
    code, data, err = run(binary, ["diagnose", "--format", "json", "--no-cache", str(log)])
    if data is None:
        return [f"no JSON (exit {code}): {err}"]
    reasons = []
    names = [s["name"] for s in data.get("symbols", [])]
    if names != case["symbols"]:
        reasons.append(f"symbols {names} != {case['symbols']}")
    want = case.get("lnk1120_count")
    if isinstance(want, int):
        counts = data.get("counts", {}).get("lnk1120") or []
        got = counts[0] if counts else None
        if got != want:
            reasons.append(f"LNK1120 count {got} != {want}")
    return reasons


def check_failure(binary, case, log):
    """The reasons a failure-set case fails (empty when it passes)."""
    cls = case["error_class"]
    if cls not in CLASSES:
        return [f"unknown error_class {cls}"]
    kind = KIND.get(cls, cls)
    row = f"link-{kind}" if kind in OWN_ROW else "link-error"
    code, data, err = run(binary, ["diagnose", "--format", "json", str(log)])
    if data is None:
        return [f"diagnose gave no JSON (exit {code}): {err}"]
    reasons = []
    if code != 1:
        reasons.append(f"diagnose exit {code} != 1")
    problems = data.get("problems") or []
    first = problems[0]["kind"] if problems else None
    if first != kind:
        reasons.append(f"first problem {first} != {kind}")
    named = {ascii_lower(s) for p in problems for s in p.get("subjects", [])}
    missing = [s for s in case["subjects"] if ascii_lower(s) not in named]
    if missing:
        reasons.append(f"subjects not named: {missing}")
    code, tri, err = run(binary, ["triage", "--format", "json", str(log)])
    if tri is None:
        reasons.append(f"triage gave no JSON (exit {code}): {err}")
    else:
        stage, rule = tri.get("stage"), tri.get("rule")
        if stage != "link" or rule != row:
            reasons.append(f"triage {stage}/{rule} != link/{row}")
    return reasons


def report(label, reasons):
    """Print one line for a log; return whether it passed."""
    print(f"{label}: " + ("ok" if not reasons else "FAIL " + "; ".join(reasons)))
    return not reasons


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lnkfix", help="path of the lnkfix binary")
    parser.add_argument("--unresolved", type=Path, default=HERE / "unresolved")
    parser.add_argument("--failures", type=Path, default=HERE / "failures")
    args = parser.parse_args()
    ok = True
    for case in cases(args.unresolved / "cases.jsonl"):
        log = args.unresolved / f"{case['id']}.log"
        ok &= report(f"unresolved/{case['id']}", check_unresolved(args.lnkfix, case, log))
    for case in cases(args.failures / "cases.jsonl"):
        log = args.failures / "logs" / f"{case['id']}.log"
        ok &= report(f"failures/{case['id']}", check_failure(args.lnkfix, case, log))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
