#!/usr/bin/env bash
# Regenerate lnkfix's name tables (symbol-db/names/) from their public sources.
#
#   bash symbol-db/generate/generate.sh          # rewrite symbol-db/names/
#   bash symbol-db/generate/generate.sh --check  # regenerate into a temp dir, diff, exit 1 on change
#
# Inputs, each pinned by version and checked by sha256 (only names are extracted; nothing
# fetched is committed):
#   crates.io  windows_x86_64_msvc 0.53.1, windows_i686_msvc 0.53.1  (via `cargo fetch`)
#   Debian     libamdhip64-5 5.2.3-8, mingw-w64-x86-64-dev 10.0.0-3  (via `apt-get download`)
#   PyPI       msvc-runtime 14.51.36231, vapoursynth-nlm-hip 4 (AMD's amdhip64_7.dll),
#              win_amd64 wheels                                      (via `pip download`)
# Needs: cargo, python3 with pip, apt-get, dpkg-deb, llvm-14 (llvm-nm-14, llvm-readobj-14).
# On Debian 12 as root, missing llvm-14 / python3-pip are installed with apt-get.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
NAMES="$REPO/symbol-db/names"
HERE="$REPO/symbol-db/generate"

MSVC_RUNTIME_VERSION=14.51.36231
NLM_HIP_VERSION=4
HIP_DEB_VERSION=5.2.3-8
MINGW_DEB_VERSION=10.0.0-3

# sha256 of every file read; a changed input must be a deliberate edit here.
declare -A EXPECTED=(
  [windows_x86_64_msvc/windows.0.53.0.lib]=34b8a86432177dc82c1fe0d34a941502e27a3b3f36bd7e54d6b96a70530bb285
  [windows_i686_msvc/windows.0.53.0.lib]=4ce4971b921e64003d091dd6dc75fb58662b39e4751c69058cc1482463c41839
  [libamdhip64.so.5.2.21153]=19c1a522a96e0da278b7aeac5319d5d088f81b982a8ef2ace382ad3821e38cb2
  [amdhip64_7.dll]=bd0c80111b3d339f926a58777df43290c4602493731aa24006f56c8e609e98e2
  [libucrt.a]=fabbf4fd558d576c8f58b242908eee80da4165742f744a35ffc87fe31d9a6e83
  [vcruntime140.dll]=d1f4225df2cd877dbf130d5668a021dce3f94118455ff5ec952061c30afc9ce7
  [vcruntime140_1.dll]=a7146c08f89fe5b04541ab507cdb59ff7b44534d4ba3c668a426c6450a03434e
  [vcruntime140_threads.dll]=40f39e8cee5f5a531b4010e18b807e8fe265b908dc58f959ecb7ebc6ea6cb11a
  [msvcp140.dll]=7c26614e1d733892c2deac7e245ce115504b1d80592dd0a01b08e3e5a55f89ca
  [msvcp140_1.dll]=206c931bf90fdad8816de3b5e2ef80b2bcaa9406c89ecc05fe6fddffe251e982
  [msvcp140_2.dll]=d50d7883f20d1dc6191768d3746f52dd9cac89c346ffaed5be1f110c2f34a838
  [msvcp140_atomic_wait.dll]=3d0cbfaa1bf3eecf5a3f4491d2960ee803cb994f30292c6adc4a07c498f60e2b
  [msvcp140_codecvt_ids.dll]=8a65c7596ef2e6938731f5a1058e7e40145b6d97967cc649231a076b9a608d78
)

check_only=0
case "${1:-}" in
  --check) check_only=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

say() { printf 'generate: %s\n' "$*" >&2; }

need_apt_packages=()
command -v llvm-nm-14 >/dev/null && command -v llvm-readobj-14 >/dev/null || need_apt_packages+=(llvm-14)
python3 -m pip --version >/dev/null 2>&1 || need_apt_packages+=(python3-pip)
if ((${#need_apt_packages[@]})); then
  say "installing ${need_apt_packages[*]}"
  apt-get update -qq
  apt-get install -y -qq "${need_apt_packages[@]}" >/dev/null
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
chmod 755 "$WORK" # lets apt's _apt user write the downloads

verify() { # verify KEY PATH
  local actual
  actual=$(sha256sum "$2" | cut -d' ' -f1)
  if [[ "$actual" != "${EXPECTED[$1]}" ]]; then
    echo "generate: $1: sha256 $actual, expected ${EXPECTED[$1]} (input changed: update EXPECTED deliberately)" >&2
    exit 1
  fi
}

# --- crates.io: the crates are the project's dev-dependencies, pinned in Cargo.lock.
say "cargo fetch (windows_*_msvc 0.53.1)"
cargo fetch --quiet --manifest-path "$REPO/Cargo.toml"
CARGO_HOME=${CARGO_HOME:-$HOME/.cargo}
for crate in windows_x86_64_msvc windows_i686_msvc; do
  archive=$(ls "$CARGO_HOME"/registry/cache/*/"$crate-0.53.1.crate" | head -n1)
  mkdir -p "$WORK/crates"
  tar -xzf "$archive" -C "$WORK/crates" "$crate-0.53.1/lib/windows.0.53.0.lib"
  verify "$crate/windows.0.53.0.lib" "$WORK/crates/$crate-0.53.1/lib/windows.0.53.0.lib"
done

# --- Debian packages.
say "apt-get download libamdhip64-5 mingw-w64-x86-64-dev"
download_debs() {
  (cd "$WORK" && apt-get download -qq "libamdhip64-5=$HIP_DEB_VERSION" \
    "mingw-w64-x86-64-dev=$MINGW_DEB_VERSION" 2>/dev/null)
}
download_debs || { apt-get update -qq && download_debs; }
dpkg-deb -x "$WORK"/libamdhip64-5_*.deb "$WORK/hip"
dpkg-deb -x "$WORK"/mingw-w64-x86-64-dev_*.deb "$WORK/mingw"
HIP_SO="$WORK/hip/usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.21153"
UCRT_A="$WORK/mingw/usr/x86_64-w64-mingw32/lib/libucrt.a"
verify libamdhip64.so.5.2.21153 "$HIP_SO"
verify libucrt.a "$UCRT_A"

# --- PyPI wheel with Microsoft's redistributable DLLs.
say "pip download msvc-runtime==$MSVC_RUNTIME_VERSION"
python3 -m pip download --quiet --no-deps --only-binary=:all: --platform win_amd64 \
  --python-version 3.12 --dest "$WORK/pip" "msvc-runtime==$MSVC_RUNTIME_VERSION"
python3 -m zipfile -e "$WORK"/pip/msvc_runtime-*.whl "$WORK/wheel"
RUNTIME_DIR="$WORK/wheel/msvc_runtime-$MSVC_RUNTIME_VERSION.data/data/Scripts"
for dll in vcruntime140.dll vcruntime140_1.dll vcruntime140_threads.dll msvcp140.dll \
  msvcp140_1.dll msvcp140_2.dll msvcp140_atomic_wait.dll msvcp140_codecvt_ids.dll; do
  verify "$dll" "$RUNTIME_DIR/$dll"
done

say "pip download vapoursynth-nlm-hip==$NLM_HIP_VERSION (amdhip64_7.dll)"
python3 -m pip download --quiet --no-deps --only-binary=:all: --platform win_amd64 \
  --python-version 3.12 --dest "$WORK/pip-hip" "vapoursynth-nlm-hip==$NLM_HIP_VERSION"
python3 -m zipfile -e "$WORK"/pip-hip/vapoursynth_nlm_hip-*.whl "$WORK/wheel-hip"
AMDHIP64_7="$WORK/wheel-hip/vapoursynth/plugins/nlm_hip/amdhip64_7.dll"
verify amdhip64_7.dll "$AMDHIP64_7"

# --- Build the tables (sorted, deterministic) and check the required outcomes.
OUT="$WORK/names"
python3 "$HERE/build_tables.py" --out "$OUT" \
  --windows-x64-lib "$WORK/crates/windows_x86_64_msvc-0.53.1/lib/windows.0.53.0.lib" \
  --windows-x86-lib "$WORK/crates/windows_i686_msvc-0.53.1/lib/windows.0.53.0.lib" \
  --hip-so "$HIP_SO" --amdhip64-7-dll "$AMDHIP64_7" --mingw-ucrt "$UCRT_A" \
  --msvc-runtime-dir "$RUNTIME_DIR" --msvc-runtime-version "$MSVC_RUNTIME_VERSION"

if ((check_only)); then
  # Only the files this script writes (crt_chain.sh owns crt-chain.txt and sdk-extra.txt).
  changed=0
  for file in "$OUT"/*; do
    diff -u "$NAMES/${file##*/}" "$file" >>"$WORK/diff" || changed=1
  done
  if ((changed == 0)); then
    say "symbol-db/names is up to date"
  else
    head -n 60 "$WORK/diff" >&2
    say "symbol-db/names differs from a fresh generation"
    exit 1
  fi
else
  mkdir -p "$NAMES"
  cp "$OUT"/* "$NAMES"/
  say "wrote $(ls "$OUT" | wc -l) files to symbol-db/names ($(du -sh "$NAMES" | cut -f1))"
fi
