#!/usr/bin/env bash
# Fetches the real tvm_ffi/cpp/extension.py of released apache-tvm-ffi Windows wheels (never committed).
#
#   tests/patch/fetch_tvm_ffi.sh OUT
#
# Writes OUT/<version>/extension.py (byte for byte as in the wheel: CRLF line endings) for the pinned
# versions below plus the newest on the index, and OUT/versions.txt listing them. Versions already in
# OUT are not fetched again. Exits non-zero when pip, unzip/python3 or the network is missing: the
# tests that call it then fail instead of skipping.
#
# Pinned: 0.1.3 (no HIP at all), 0.1.6 (embed_cubin, still no HIP), 0.1.9 (with_hip, Linux only),
# 0.1.12 (sources/output), 0.1.13.post3, 0.1.15.post1 and 0.1.15.post2 (cudart.lib gated on
# with_cuda inside the Windows branch, _windows_argument). There is no plain 0.1.15 release.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 OUT" >&2
    exit 2
fi
out=$1
pinned=(0.1.3 0.1.6 0.1.9 0.1.12 0.1.13.post3 0.1.15.post1 0.1.15.post2)

pip=(python3 -m pip)
"${pip[@]}" --version >/dev/null

# The newest release with a win_amd64 wheel for CPython 3.12.
newest=$("${pip[@]}" index versions apache-tvm-ffi --platform win_amd64 --python-version 3.12 \
    --only-binary=:all: 2>/dev/null | sed -n 's/^apache-tvm-ffi (\(.*\))$/\1/p' | head -n1)
if [ -z "$newest" ]; then
    echo "fetch_tvm_ffi.sh: 'pip index versions apache-tvm-ffi' gave no version (network?)" >&2
    exit 1
fi

versions=("${pinned[@]}")
case " ${pinned[*]} " in
*" $newest "*) ;;
*) versions+=("$newest") ;;
esac

mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for version in "${versions[@]}"; do
    target="$out/$version/extension.py"
    if [ -s "$target" ]; then
        continue
    fi
    rm -rf "$work/wheel" && mkdir -p "$work/wheel"
    "${pip[@]}" download "apache-tvm-ffi==$version" --no-deps --only-binary=:all: \
        --platform win_amd64 --python-version 3.12 -d "$work/wheel" -q --disable-pip-version-check
    wheel=$(ls "$work/wheel"/*.whl)
    mkdir -p "$out/$version"
    # A wheel is a zip; python3 reads it without depending on an unzip binary.
    python3 - "$wheel" "$target" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    data = wheel.read("tvm_ffi/cpp/extension.py")
with open(sys.argv[2], "wb") as out:
    out.write(data)
EOF
done
printf '%s\n' "${versions[@]}" >"$out/versions.txt"
echo "newest=$newest" >"$out/newest.txt"
