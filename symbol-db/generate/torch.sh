#!/usr/bin/env bash
# Regenerates symbol-db/names/torch.txt from the import libraries of PyPI's torch 2.15.0 Windows
# wheel (cp312, win_amd64), fetched by tests/fixtures/fetch_torch.sh (range requests, every file's
# sha256 pinned there), and checks that rules.json's torch namespace rules agree with them.
#
#   bash symbol-db/generate/torch.sh          # writes symbol-db/names/torch.txt
#   bash symbol-db/generate/torch.sh --check  # regenerates into a temp file, diffs, exit 1 on change
#
# Needs python3, llvm-nm-14 and llvm-undname-14 (Debian llvm-14) and the network the first time.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
check_only=0
case "${1:-}" in
  --check) check_only=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
for tool in llvm-nm-14 llvm-undname-14 python3; do
  command -v "$tool" >/dev/null || { echo "torch.sh: missing tool '$tool' (Debian llvm-14)" >&2; exit 1; }
done
LIBS=$(bash "$REPO/tests/fixtures/fetch_torch.sh")
out=$REPO/symbol-db/names/torch.txt
if ((check_only)); then
  tmp=$(mktemp)
  trap 'rm -f "$tmp"' EXIT
  python3 "$REPO/symbol-db/generate/torch.py" "$LIBS" "$REPO/symbol-db/rules.json" "$tmp"
  diff -u "$out" "$tmp" >&2 || { echo "torch.sh: $out is not what the libraries give" >&2; exit 1; }
  echo "torch.sh: torch.txt is current" >&2
else
  python3 "$REPO/symbol-db/generate/torch.py" "$LIBS" "$REPO/symbol-db/rules.json" "$out"
fi
