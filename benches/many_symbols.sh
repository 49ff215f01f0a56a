#!/usr/bin/env bash
# Memory per distinct unresolved symbol: peak RSS of `lnkfix diagnose` (text and --format json) on
# a generated link.exe log of N distinct symbols (default 300,000), minus the peak RSS of the same
# command on a log of one symbol, divided by N.
#
# The log mixes the forms link.exe reports (one record each): a C++ function with its display text
# and its MSVC-mangled name (LNK2019, referenced in a function shown both ways), a C++ data member
# (LNK2001, no reference), a C function (LNK2019, referenced in `main`) and a dllimport C function
# (`__imp_`, LNK2001), in that rotation, then LNK1120 with the count. Names are distinct by a
# counter; references repeat over 100 objects.
#
# Usage: benches/many_symbols.sh [N]   (LNKFIX=path to measure another build, else this tree's
#                                       release build; needs GNU time at /usr/bin/time)
# Writes target/bench/many-N.log and target/bench/many-1.log (BENCH_DIR to put them elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-300000}
work=${BENCH_DIR:-target/bench}
mkdir -p "$work"
binary=${LNKFIX:-}
if [ -z "$binary" ]; then
    cargo build --release --quiet --bin lnkfix
    binary=target/release/lnkfix
fi
generate() {
    python3 - "$1" "$2" <<'PY'
import sys
path, count = sys.argv[1], int(sys.argv[2])
with open(path, "w", newline="") as f:
    for i in range(count):
        obj = f"src{i % 100}.obj"
        kind = i % 4
        if kind == 0:
            f.write(f'{obj} : error LNK2019: unresolved external symbol "public: int __cdecl ns{i % 50}::Widget{i}::size(void) const" '
                    f'(?size@Widget{i}@ns{i % 50}@@QEBAHXZ) referenced in function "void __cdecl run_{i % 1000}(void)" (?run_{i % 1000}@@YAXXZ)\r\n')
        elif kind == 1:
            f.write(f'{obj} : error LNK2001: unresolved external symbol "private: static class std::basic_string<char,struct std::char_traits<char>,class std::allocator<char> > ns{i % 50}::Table{i}::name" '
                    f'(?name@Table{i}@ns{i % 50}@@0V?$basic_string@DU?$char_traits@D@std@@V?$allocator@D@2@@std@@A)\r\n')
        elif kind == 2:
            f.write(f'{obj} : error LNK2019: unresolved external symbol c_function_{i} referenced in function main\r\n')
        else:
            f.write(f'{obj} : error LNK2001: unresolved external symbol __imp_ImportedFunction{i}\r\n')
    f.write(f'app.exe : fatal error LNK1120: {count} unresolved externals\r\n')
PY
}
log=$work/many-$count.log
one=$work/many-1.log
[ -s "$log" ] || generate "$log" "$count"
[ -s "$one" ] || generate "$one" 1
echo "log: $count distinct symbols, $(($(stat -c %s "$log") / 1048576)) MiB; binary: $binary"
# LABEL ARGS...: the peak RSS (KiB) and time of a diagnose of the big log and of the 1-symbol log.
run() {
    local label=$1 seconds kib base_kib user system
    shift
    /usr/bin/time -f "%e %U %S %M" "$binary" diagnose "$one" "$@" 2>"$work/time.tmp" >/dev/null || true
    read -r _ _ _ base_kib < <(tail -1 "$work/time.tmp")
    /usr/bin/time -f "%e %U %S %M" "$binary" diagnose "$log" "$@" 2>"$work/time.tmp" >/dev/null || true
    read -r seconds user system kib < <(tail -1 "$work/time.tmp")
    echo "$label: ${seconds} s wall, ${user}+${system} s cpu, peak $((kib / 1024)) MiB" \
        "(1-symbol log: $((base_kib / 1024)) MiB), $(((kib - base_kib) * 1024 / count)) bytes per symbol"
}
run "text"
run "json" --format json
