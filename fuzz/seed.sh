#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets from lnkfix's test fixtures (never committed):
#
#   fuzz/seed.sh [FIXTURES_DIR] [TVM_DIR]
#
# FIXTURES_DIR (default /tmp/fx) is made by tests/fixtures/build.sh when it does not hold
# manifest.json yet (needs clang-14, lld-14, llvm-14); TVM_DIR (default /tmp/tvm) by
# tests/patch/fetch_tvm_ffi.sh (needs pip and the network). Writes fuzz/corpus/<target>/ only,
# replacing what a previous run seeded there (files whose names start with `seed-`) and keeping
# what the fuzzers added.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
fixtures=$(realpath -m "${1:-/tmp/fx}")
tvm=$(realpath -m "${2:-/tmp/tvm}")
corpus=$here/corpus

[ -f "$fixtures/manifest.json" ] || bash "$repo/tests/fixtures/build.sh" "$fixtures"
[ -f "$tvm/versions.txt" ] || bash "$repo/tests/patch/fetch_tvm_ffi.sh" "$tvm"

targets=(log_reader demangle archive pe_exports def_file pdb patch whence lenses)
for target in "${targets[@]}"; do
    mkdir -p "$corpus/$target"
    find "$corpus/$target" -name 'seed-*' -delete
done

# seed TARGET FILE...: copies each file in, named by content so duplicates collapse.
seed() {
    local target=$1 file sum
    shift
    for file in "$@"; do
        [ -s "$file" ] || continue
        sum=$(sha1sum "$file" | cut -c1-16)
        cp "$file" "$corpus/$target/seed-$sum"
    done
}
# seed_text TARGET: one seed per line of stdin.
seed_text() {
    local target=$1 line sum
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        sum=$(printf '%s' "$line" | sha1sum | cut -c1-16)
        printf '%s' "$line" >"$corpus/$target/seed-$sum"
    done
}

# 1. Logs: the shared examples and the generated lld-link logs.
seed log_reader /work/shared/examples/*.log "$fixtures"/logs/*.log
# ... and, for the lenses, the same logs pasted every way tests/metamorphic.rs knows, when it wrote
# them (LNKFIX_WRITE_PASTES=target/pastes cargo test --test metamorphic every_log).
seed lenses /work/shared/examples/*.log "$fixtures"/logs/*.log
if [ -d "$repo/target/pastes" ]; then seed lenses "$repo"/target/pastes/*.log; fi

# 2. Mangled names: every `?` name in the logs and the fixture libraries, and a few hostile shapes
#    (deep pointer chains, templates, function pointers: the nestings msvc-demangler recurses on).
{
    cat /work/shared/examples/*.log "$fixtures"/logs/*.log | grep -ao '?[^ "()`'"'"']*' || true
    find "$fixtures" -iname '*.lib' -print0 | xargs -0 llvm-nm-14 --no-sort --just-symbol-name 2>/dev/null |
        grep '^?' || true
    # Nestings the guard's depth estimate does not count, as deep as the 4096-byte limit allows.
    python3 -c '
for opener, closer, per in [("PEA", "H", 1360), ("PA", "H", 2040), ("QA", "H", 2040),
                            ("A6A", "X", 800), ("Y01", "H", 1300), ("P8x@@EAA", "X", 400)]:
    print(("?x@@3" + opener * per + closer + "XZ" * (per if "6" in opener or "8" in opener else 0))[:4090])
print("?f@@YAX" + "PA" * 2040 + "H@Z")
'
    # Counted nestings just under and over the depth limit (48).
    printf '?x@@3%sH%s\n' "$(printf 'PEAV?$t@%.0s' $(seq 48))" "$(printf '@@%.0s' $(seq 48))"
    printf '?f@@YAX%sXZ\n' "$(printf 'P6AX%.0s' $(seq 49))"
    printf '?f@@YAX%sXZ\n' "$(printf 'P8A@@EAAX%.0s' $(seq 30))"
    printf '?f@?1??g@?1??h@%s@@YAXXZ@YAXXZ\n' "$(printf '?1??i@%.0s' $(seq 20))"
    # Back-references that double the output at each level (`B<T, T>`, T the previous level):
    # under the depth and length limits, 2^N bytes demangled; the output bound refuses them.
    for levels in 4 12 22 30; do
        printf '?x@@3%sVA@@%sA\n' "$(printf 'V?$B@%.0s' $(seq $levels))" "$(printf '0@@%.0s' $(seq $levels))"
        printf '?f@@YAX%sVA@@%s@Z\n' "$(printf 'V?$B@%.0s' $(seq $levels))" "$(printf '0@@%.0s' $(seq $levels))"
    done
} | sort -u | head -n 2000 | seed_text demangle

# 3. Archives, objects and import members: every fixture library and object, plus the real
#    windows.0.53.0.lib (5 MB, 21,000 members) cut down to the members of a few DLLs with both
#    linker members rebuilt (Microsoft's layout: `/`, `/`, `//`, then `name.dll/` or `/N` members),
#    its first 64 KiB as is (a symbol map cut short), and three of its members as standalone files.
seed archive $(find "$fixtures" -type f \( -iname '*.lib' -o -iname '*.obj' \) | sort)
windows_lib=$(ls ~/.cargo/registry/src/*/windows_x86_64_msvc-0.53.1/lib/windows.0.53.0.lib 2>/dev/null | head -n1 || true)
if [ -n "$windows_lib" ]; then
    python3 - "$windows_lib" "$corpus/archive" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
out_dir = sys.argv[2]
assert data[:8] == b"!<arch>\n"
offset, members = 8, []
while offset + 60 <= len(data):
    header = data[offset:offset + 60]
    size = int(header[48:58])
    members.append((offset, header, data[offset + 60:offset + 60 + size]))
    offset += 60 + size + (size & 1)
first_map, second_map, longnames = members[0], members[1], members[2]
assert longnames[1].startswith(b"//")
# The original symbol map: name -> member offset.
count = struct.unpack(">I", first_map[2][:4])[0]
offsets = struct.unpack(f">{count}I", first_map[2][4:4 + 4 * count])
names = first_map[2][4 + 4 * count:].split(b"\0")[:count]
# Keep the members of two DLLs (with their descriptor objects) and a dozen with long `/N` names.
kept = [m for m in members[3:] if m[1].startswith((b"aclui.dll/", b"xpsprint.dll/"))]
kept += [m for m in members[3:] if m[1].startswith(b"/")][:12]
kept_offsets = {m[0] for m in kept}
symbols = [(n, o) for n, o in zip(names, offsets) if o in kept_offsets]
string_table = b"".join(n + b"\0" for n, _ in symbols)
first_size = 4 + 4 * len(symbols) + len(string_table)
second_size = 4 + 4 * len(kept) + 4 + 2 * len(symbols) + len(string_table)

def padded(size):
    return 60 + size + (size & 1)

position = 8 + padded(first_size) + padded(second_size) + padded(len(longnames[2]))
new = {}
for old, _, body in kept:
    new[old] = position
    position += padded(len(body))

def member(header, body):
    header = header[:48] + str(len(body)).encode().ljust(10) + header[58:]
    return header + body + (b"\n" if len(body) & 1 else b"")

first = struct.pack(">I", len(symbols)) + b"".join(struct.pack(">I", new[o]) for _, o in symbols)
first += string_table
number = {old: i + 1 for i, (old, _, _) in enumerate(kept)}
by_name = sorted(symbols)
second = struct.pack("<I", len(kept)) + b"".join(struct.pack("<I", new[o]) for o, _, _ in kept)
second += struct.pack("<I", len(by_name)) + b"".join(struct.pack("<H", number[o]) for _, o in by_name)
second += b"".join(n + b"\0" for n, _ in by_name)
out = b"!<arch>\n" + member(first_map[1], first) + member(second_map[1], second)
out += member(longnames[1], longnames[2])
out += b"".join(member(header, body) for _, header, body in kept)
open(f"{out_dir}/seed-windows-cut.lib", "wb").write(out)
open(f"{out_dir}/seed-windows-head.lib", "wb").write(data[:65536])
for i, (_, _, body) in enumerate(kept[:3]):
    open(f"{out_dir}/seed-windows-member{i}.obj", "wb").write(body)
PY
fi

# 4. DLLs: the fixture links, and small x64 and x86 DLLs with forwarders, ordinal-only exports
#    and data exports (built here with clang-cl and lld-link).
seed pe_exports "$fixtures"/link/*.dll
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cat >"$scratch/e.c" <<'EOF'
__declspec(dllexport) int f(int x) { return x + 1; }
int g(void) { return 2; }
int value = 3;
EOF
cat >"$scratch/e.def" <<'EOF'
LIBRARY fuzzed.dll
EXPORTS
    f
    g @7 NONAME
    value DATA
    Sleep2 = kernel32.Sleep
    ByOrdinal = other.#12
    alias = g
EOF
for machine in x64 x86; do
    target=x86_64-pc-windows-msvc
    [ "$machine" = x86 ] && target=i686-pc-windows-msvc
    if clang-14 --target=$target -c -O1 -o "$scratch/e-$machine.obj" "$scratch/e.c" 2>/dev/null &&
        lld-link-14 /nologo /dll /noentry /nodefaultlib /machine:$machine /def:"$scratch/e.def" \
            /out:"$scratch/e-$machine.dll" "$scratch/e-$machine.obj" >/dev/null 2>&1; then
        seed pe_exports "$scratch/e-$machine.dll"
    else
        echo "seed.sh: could not build the $machine DLL seed (clang-14/lld-link-14); skipped" >&2
    fi
done

# 5. Module-definition files.
seed def_file $(find "$repo/tests/fixtures/def" -name '*.def') "$repo/symbol-db/names/amdhip64.def" "$scratch/e.def"

# 6. PDBs of the fixture links.
seed pdb "$fixtures"/pdb/*.pdb

# 7. extension.py of every fetched tvm-ffi release.
seed patch $(sed "s|^|$tvm/|; s|$|/extension.py|" "$tvm/versions.txt")

# 8. Python sources that format the whence target's messages: the standard library's, and
#    extension.py (f-strings, concatenation, raise statements).
stdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
seed whence "$stdlib/json/decoder.py" "$stdlib/subprocess.py" "$stdlib/string.py" \
    $(sed "s|^|$tvm/|; s|$|/extension.py|" "$tvm/versions.txt" | head -2)

for target in "${targets[@]}"; do
    printf '%-11s %5d seeds\n' "$target" "$(find "$corpus/$target" -name 'seed-*' | wc -l)"
done
