#!/usr/bin/env bash
# `lnkfix whence` on a torch-sized Python environment, cold and warm, against grep and ripgrep on
# the same tree, in one run, with peak memory.
#
# The environment is real: PyPI's torch 2.15.0 and triton 3.3.1 wheels (Linux x86-64, CPython
# 3.11), unpacked whole into one site-packages (every file: shared libraries, headers, .py),
# pinned by sha256, cached outside the repository in $LNKFIX_TEST_CACHE, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/lnkfix-tests (download 695 MB, unpacked 1.6 GB, once).
#
# usage: benches/whence.sh [RUNS]      (RUNS warm runs per tool, default 5)
#
# "cold" drops the page cache, dentries and inodes first (echo 3 > /proc/sys/vm/drop_caches, as
# root); where that is not allowed, it evicts the tree's files from the page cache with
# posix_fadvise(DONTNEED) instead, and says so. Needs python3 with pip, GNU time at
# /usr/bin/time, grep, and rg (ripgrep: installed with apt-get when missing, as root).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
die() { echo "whence.sh: error: $*" >&2; exit 1; }

cache=${LNKFIX_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lnkfix-tests}
dir=$cache/whence-bench
env=$dir/site-packages
mkdir -p "$dir"
wheels=(
    "torch==2.15.0|torch-2.15.0-cp311-cp311-manylinux_2_28_x86_64.whl|48c2d861134c0b5697c7602cb5ffa68f62a2989fdcd1717e593356f67996ca1e"
    "triton==3.3.1|triton-3.3.1-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl|b31e3aa26f8cb3cc5bf4e187bf737cbacf17311e1112b781d4a059353dfd731b"
)
[ -x /usr/bin/time ] || die "GNU time is missing (apt-get install time)"
if ! command -v rg >/dev/null; then
    [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null || die "rg is missing (apt-get install ripgrep)"
    apt-get install -y -qq --no-install-recommends ripgrep >/dev/null || die "apt-get install ripgrep failed"
fi

sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }
exec 9>"$dir/lock"
flock 9
if [ ! -f "$dir/unpacked.ok" ]; then
    for entry in "${wheels[@]}"; do
        IFS='|' read -r requirement wheel sha <<<"$entry"
        if ! sha_ok "$dir/$wheel" "$sha"; then
            rm -f "$dir/$wheel"
            echo "whence.sh: downloading $requirement into $dir" >&2
            python3 -m pip download --quiet --no-deps --only-binary=:all: \
                --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
                --python-version 3.11 -d "$dir" "$requirement" || die "pip download $requirement failed"
            sha_ok "$dir/$wheel" "$sha" || die "$wheel: sha256 is not $sha"
        fi
    done
    rm -rf "$env"
    for entry in "${wheels[@]}"; do
        IFS='|' read -r _ wheel _ <<<"$entry"
        python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
            "$dir/$wheel" "$env" || die "unpacking $wheel failed"
    done
    touch "$dir/unpacked.ok"
fi
exec 9>&-

cargo build --release --quiet
lnkfix=$(cargo metadata --format-version 1 --no-deps \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/release/lnkfix

files=$(find "$env" -type f | wc -l)
bytes=$(du -sb "$env" | cut -f1)
py_files=$(find "$env" -name '*.py' -type f | wc -l)
py_bytes=$(find "$env" -name '*.py' -type f -print0 | du -cb --files0-from=- | tail -1 | cut -f1)
echo "environment: $env"
echo "  $files files, $((bytes / 1000000)) MB; $py_files .py files, $((py_bytes / 1000000)) MB"
echo "  $(nproc) cores; $(uname -r); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# How "cold" is made: decided once (the function runs in subshells).
if [ "$(id -u)" -eq 0 ] && { sync; echo 3 > /proc/sys/vm/drop_caches; } 2>/dev/null; then
    cold_method="page cache, dentries and inodes dropped (echo 3 > /proc/sys/vm/drop_caches)"
    drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }
else
    cold_method="the tree's file pages evicted with posix_fadvise(DONTNEED); dentries and inodes stay cached (dropping the caches is not allowed here)"
    drop_caches() {
        python3 - "$env" <<'PY'
import os, sys
for root, _, names in os.walk(sys.argv[1]):
    for name in names:
        try:
            fd = os.open(os.path.join(root, name), os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
        except OSError:
            pass
PY
    }
fi

# One timed run: prints "seconds peak_kib exit_code". Output goes to a file: GNU grep stops at the
# first match when it writes to /dev/null.
timed() {
    local code=0
    /usr/bin/time -f "%e %M" -o "$dir/time.txt" "$@" >"$dir/out.txt" 2>/dev/null || code=$?
    echo "$(cat "$dir/time.txt" | tail -1) $code"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

bench() { # LABEL FRAGMENT COMMAND...: one cold run, then RUNS warm runs
    local label=$1 fragment=$2 cold warm_times peak code
    shift 2
    drop_caches
    cold=$(timed "$@")
    warm_times=()
    peak=0
    for _ in $(seq "$runs"); do
        read -r seconds kib code < <(timed "$@")
        warm_times+=("$seconds")
        [ "$kib" -gt "$peak" ] && peak=$kib
    done
    local warm
    warm=$(printf '%s\n' "${warm_times[@]}" | median)
    printf '%s|%s|%s|%s|%s|%s\n' "$label" "$fragment" "$(echo "$cold" | cut -d' ' -f1)" "$warm" \
        "$((peak / 1024))" "$code"
}

# Each message with the longest constant text of the code that raises it, for grep and rg: the
# triton one (jit.py), a torch one (nn/utils/prune.py), and one whose placeholder sits inside its
# only run of words, so that whence needs its second pass (ao/pruning/sparsifier).
messages=(
    "KeyError: 'Keyword argument launch_pdl was specified but unrecognised'|was specified but unrecognised"
    "IndexError: Invalid index 3 for tensor of size torch.Size([2, 2])|for tensor of size"
    "RuntimeError: Error loading weight into the model|into the model"
)
summary=$(cat <<'PY'
import json, sys
d = json.load(sys.stdin)
c = d["candidates"][0]
print("  %s: %s:%s in %s, explains %s; %s pass(es), %s of %s files through the prefilter"
      % (d["message"], c["path"], c["line"], c["function"], c["explains"], d["passes"],
         d["files_matched"], d["files_scanned"]))
PY
)
rows=()
for entry in "${messages[@]}"; do
    IFS='|' read -r message fragment <<<"$entry"
    rows+=("$(bench "lnkfix whence" "$message" "$lnkfix" whence "$message" --site-packages "$env" --format json)")
    rows+=("$(bench "grep -rF" "$fragment" grep -rF "$fragment" "$env")")
    rows+=("$(bench "rg -F" "$fragment" rg -F "$fragment" "$env")")
    rows+=("$(bench "grep -rF --include='*.py'" "$fragment" grep -rF --include='*.py' "$fragment" "$env")")
    rows+=("$(bench "rg -F -t py" "$fragment" rg -F -t py "$fragment" "$env")")
    "$lnkfix" whence "$message" --site-packages "$env" --format json | python3 -c "$summary"
done
echo "cold: $cold_method"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| tool | looks for | cold (s) | warm, median of $runs (s) | warm / lnkfix warm | peak RSS (MiB) |"
echo "|---|---|---|---|---|---|"
lnk_warm=
for row in "${rows[@]}"; do
    IFS='|' read -r label what cold warm peak _ <<<"$row"
    if [ "$label" = "lnkfix whence" ]; then
        lnk_warm=$warm
    fi
    ratio=$(python3 -c "import sys; a, b = map(float, sys.argv[1:]); print(f'{a / max(b, 0.001):.2f}x')" "$warm" "$lnk_warm")
    echo "| $label | \`$what\` | $cold | $warm | $ratio | $peak |"
done
