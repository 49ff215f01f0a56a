#!/usr/bin/env bash
# Regenerates symbol-db/names/hip-sdk.txt: the C names of the HIP SDK's libraries other than the
# HIP runtime (hip-runtime.txt has amdhip64 and hiprtc), each under the import library a Windows
# build links from %HIP_PATH%\lib.
#
#   bash symbol-db/generate/hip_sdk.sh          # writes symbol-db/names/hip-sdk.txt
#   bash symbol-db/generate/hip_sdk.sh --check  # regenerates into a temp dir, diffs, exit 1 on change
#
# Inputs, pinned by version and sha256 (only names are read; nothing is committed):
#   Debian 12  librocrand1 5.3.3-4, libhiprand1 5.3.3-4, librocsparse0 5.3.0+dfsg-2,
#              libhipsparse0 5.3.3+dfsg-2~deb12u1: the .so files' dynamic symbols (apt-get download)
#   PyPI       rocm-bindings-libraries 10.0.0.0.1.2 (AMD's Cython bindings): the cyhip*.pxd
#              declarations of hipBLAS, hipBLASLt, hipFFT, hipRAND, hipSOLVER and hipSPARSE, read
#              by HTTP range requests on the wheel (1.5 MB of its 6 MB)
# rocBLAS, rocFFT, rocSOLVER and MIOpen have no package reachable here: rules.json answers them by
# their documented prefix (rocblas_, rocfft_, rocsolver_, miopen).
# Needs apt-get, dpkg-deb, python3 and llvm-nm-14.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
check_only=0
case "${1:-}" in
  --check) check_only=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
for tool in apt-get dpkg-deb python3 llvm-nm-14 sha256sum; do
  command -v "$tool" >/dev/null || { echo "hip_sdk.sh: missing tool '$tool'" >&2; exit 1; }
done
DEBS=(librocrand1=5.3.3-4 libhiprand1=5.3.3-4 librocsparse0=5.3.0+dfsg-2 libhipsparse0=5.3.3+dfsg-2~deb12u1)
declare -A SO_SHA256=(
  [librocrand.so.1.1]=e7a80b47fbc76e22e1052c2c0d6c87f0a4f311e45c1e8649f36120bf5e10fe27
  [libhiprand.so.1.1]=55678020f0a20c930d7c6f48b91bd549a36adf86cc06b43aa2fe1f2d5d1e2e5c
  [librocsparse.so.0.1]=5d8aa37681179fb8234b52fe1afc8f7e16757b72bfa2409032f5de87e7e5bc4a
  [libhipsparse.so.0.1]=af017cf9a099f003a1727029fadf029a166198b73cb5910709ef0d51dfe078d7
)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
chmod 755 "$WORK" # lets apt's _apt user write the downloads

echo "hip_sdk.sh: apt-get download ${DEBS[*]}" >&2
(cd "$WORK" && apt-get download -qq "${DEBS[@]}" 2>/dev/null) \
  || { apt-get update -qq && (cd "$WORK" && apt-get download -qq "${DEBS[@]}"); }
for deb in "$WORK"/*.deb; do dpkg-deb -x "$deb" "$WORK/x"; done
SO_DIR=$WORK/x/usr/lib/x86_64-linux-gnu
for so in "${!SO_SHA256[@]}"; do
  actual=$(sha256sum "$SO_DIR/$so" | cut -d' ' -f1)
  [[ "$actual" == "${SO_SHA256[$so]}" ]] \
    || { echo "hip_sdk.sh: $so: sha256 $actual, expected ${SO_SHA256[$so]}" >&2; exit 1; }
  llvm-nm-14 -D --defined-only "$SO_DIR/$so" | awk '{print $3}' >"$WORK/$so.names"
done

out=$REPO/symbol-db/names/hip-sdk.txt
target=$out
((check_only)) && target=$WORK/hip-sdk.txt
python3 "$REPO/symbol-db/generate/hip_sdk.py" "$WORK" "$target"
if ((check_only)); then
  diff -u "$out" "$target" >&2 || { echo "hip_sdk.sh: $out is not what the inputs give" >&2; exit 1; }
  echo "hip_sdk.sh: hip-sdk.txt is current" >&2
fi
