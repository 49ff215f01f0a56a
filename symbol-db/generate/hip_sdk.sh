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
#   Debian 13  librocblas0 5.5.1+dfsg-7 (166 MB), librocfft0 6.1.2-1 (1.5 MB), librocsolver0
#              5.5.1-7 (450 MB): the .so files' dynamic symbols. The pool's .deb files by direct
#              URL (this machine's apt sources are bookworm's), sha256 of each .deb and .so checked,
#              the .deb files cached in $LNKFIX_TEST_CACHE, else
#              ${XDG_CACHE_HOME:-$HOME/.cache}/lnkfix-tests, /debs (a rerun downloads nothing)
#   PyPI       rocm-bindings-libraries 10.0.0.0.1.2 (AMD's Cython bindings): the cyhip*.pxd
#              declarations of hipBLAS, hipBLASLt, hipFFT, hipRAND, hipSOLVER and hipSPARSE, read
#              by HTTP range requests on the wheel (1.5 MB of its 6 MB)
# MIOpen has no package reachable here: rules.json answers it by its documented prefix (miopen).
# RCCL (nccl*) and rocTX (roctx*) are left out: the Windows HIP SDK ships neither (AMD lists the
# communication libraries as not available on Windows, and its profilers, roctx's home, as
# Linux-only), so there is no Windows library to name.
# Needs apt-get, curl, dpkg-deb, tar, python3 and llvm-nm-14.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
check_only=0
case "${1:-}" in
  --check) check_only=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
for tool in apt-get curl dpkg-deb tar python3 llvm-nm-14 sha256sum; do
  command -v "$tool" >/dev/null || { echo "hip_sdk.sh: missing tool '$tool'" >&2; exit 1; }
done
DEBS=(librocrand1=5.3.3-4 libhiprand1=5.3.3-4 librocsparse0=5.3.0+dfsg-2 libhipsparse0=5.3.3+dfsg-2~deb12u1)
declare -A SO_SHA256=(
  [librocrand.so.1.1]=e7a80b47fbc76e22e1052c2c0d6c87f0a4f311e45c1e8649f36120bf5e10fe27
  [libhiprand.so.1.1]=55678020f0a20c930d7c6f48b91bd549a36adf86cc06b43aa2fe1f2d5d1e2e5c
  [librocsparse.so.0.1]=5d8aa37681179fb8234b52fe1afc8f7e16757b72bfa2409032f5de87e7e5bc4a
  [libhipsparse.so.0.1]=af017cf9a099f003a1727029fadf029a166198b73cb5910709ef0d51dfe078d7
  [librocblas.so.0.1]=d518d0ff07d38dd557e5d282b9e4e586be16dfbca647600b8fbed3dc32d9c8da
  [librocfft.so.0.1]=d02d89bfb5b1baaf8c868899b5ab4e5af4e7db7ad04a2df5da8e789244f00b02
  [librocsolver.so.0.1]=dd4e1d5a5736a93539fbde243bd745a3e980cf3c04562ca0973fbc34784b779b
)
# Debian 13's pool, by URL: "<pool path> <sha256 of the .deb> <.so inside>".
POOL=http://deb.debian.org/debian/pool/main
TRIXIE=(
  "r/rocblas/librocblas0_5.5.1+dfsg-7_amd64.deb 951dfa1a46ee275dace455f396640cfc63a47927455a0903b73c4e50030574c1 librocblas.so.0.1"
  "r/rocfft/librocfft0_6.1.2-1_amd64.deb a720be0e46c967b325980b7c5f10bee2d41ccfaa7446053f772cc8c211949065 librocfft.so.0.1"
  "r/rocsolver/librocsolver0_5.5.1-7_amd64.deb 8b3763a18c7bebc244337432bbef5e1ff4ac4dcf56bba32e766b4070c3afaee0 librocsolver.so.0.1"
)
CACHE=${LNKFIX_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lnkfix-tests}/debs
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
chmod 755 "$WORK" # lets apt's _apt user write the downloads

echo "hip_sdk.sh: apt-get download ${DEBS[*]}" >&2
(cd "$WORK" && apt-get download -qq "${DEBS[@]}" 2>/dev/null) \
  || { apt-get update -qq && (cd "$WORK" && apt-get download -qq "${DEBS[@]}"); }
for deb in "$WORK"/*.deb; do dpkg-deb -x "$deb" "$WORK/x"; done
SO_DIR=$WORK/x/usr/lib/x86_64-linux-gnu

# The Debian 13 packages: downloaded once into the cache, checked, only the .so taken out.
mkdir -p "$CACHE"
for entry in "${TRIXIE[@]}"; do
  read -r path sha so <<<"$entry"
  deb=$CACHE/$(basename "$path")
  if [[ ! -f "$deb" || "$(sha256sum "$deb" | cut -d' ' -f1)" != "$sha" ]]; then
    echo "hip_sdk.sh: downloading $POOL/$path" >&2
    curl -sSfL --retry 3 -o "$deb.part" "$POOL/$path"
    actual=$(sha256sum "$deb.part" | cut -d' ' -f1)
    [[ "$actual" == "$sha" ]] \
      || { echo "hip_sdk.sh: $path: sha256 $actual, expected $sha" >&2; rm -f "$deb.part"; exit 1; }
    mv "$deb.part" "$deb"
  fi
  dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/lib/x86_64-linux-gnu/$so" >"$SO_DIR/$so"
done
for so in "${!SO_SHA256[@]}"; do
  actual=$(sha256sum "$SO_DIR/$so" | cut -d' ' -f1)
  [[ "$actual" == "${SO_SHA256[$so]}" ]] \
    || { echo "hip_sdk.sh: $so: sha256 $actual, expected ${SO_SHA256[$so]}" >&2; exit 1; }
  llvm-nm-14 -D --defined-only "$SO_DIR/$so" | awk '{print $3}' >"$WORK/$so.names"
  rm -f "$SO_DIR/$so" # rocSOLVER's is 1.5 GB
done

out=$REPO/symbol-db/names/hip-sdk.txt
target=$out
((check_only)) && target=$WORK/hip-sdk.txt
python3 "$REPO/symbol-db/generate/hip_sdk.py" "$WORK" "$target"
if ((check_only)); then
  diff -u "$out" "$target" >&2 || { echo "hip_sdk.sh: $out is not what the inputs give" >&2; exit 1; }
  echo "hip_sdk.sh: hip-sdk.txt is current" >&2
fi
