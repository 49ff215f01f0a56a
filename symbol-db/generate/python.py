#!/usr/bin/env python3
"""Generate symbol-db/names/python.txt: the Python C API -> the import library of the DLL that
exports it (python3.lib for the stable ABI, python3XX.lib for each supported version, and the
names only a debug interpreter exports).

    python3 symbol-db/generate/python.py OUT_FILE

Sources, pinned:
  - crates.io python3-dll-a 0.2.15 (fetched with `cargo fetch` into a throw-away manifest; the
    .crate's sha256 is checked): src/python3X.def, the export lists of CPython's Windows DLLs
    python39.dll .. python314.dll and the free-threaded python313t.dll / python314t.dll (written by
    mingw's gendef from the DLLs python.org ships), and src/python3.def, python3.dll's exports
    (the stable ABI, from CPython's Misc/stable_abi.toml). Chosen over the alternatives: PyPI has
    no CPython import library, a `.pyd`'s import table lists only the names that one extension
    uses, pyo3-ffi's declarations are not an export list, and Debian's libpython3.11.so is one
    version built for Linux; these .def files are complete per version, per DLL.
  - Debian bookworm libpython3.11 and libpython3.11-dbg 3.11.2-6+deb12u8 (`apt-get download`):
    the names libpython3.11d.so exports and libpython3.11.so does not are the debug-only C API
    (`_Py_RefTotal`, `_Py_NegativeRefcount`, ...): a reference to one of them means the object was
    compiled with Py_DEBUG (`_DEBUG`), which links python3XX_d.lib.
Needs cargo, python3, apt-get, dpkg-deb, llvm-nm-19 and the network. Only names are written.
"""
import hashlib
import os
import re
import subprocess
import sys
import tarfile
import tempfile

CRATE = ("python3-dll-a", "0.2.15",
         "d80ba7540edb18890d444c5aa8e1f1f99b1bdf26fb26ae383135325f4a36042b")
VERSIONS = ["314", "313", "312", "311", "310", "39", "314t", "313t"]
DEBIAN = "3.11.2-6+deb12u8"
SO_DIR = "usr/lib/x86_64-linux-gnu"


def say(text):
    print(f"python.py: {text}", file=sys.stderr)


def sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def fetch_crate(work):
    name, version, sha = CRATE
    manifest = os.path.join(work, "fetch")
    os.makedirs(os.path.join(manifest, "src"))
    with open(os.path.join(manifest, "Cargo.toml"), "w") as f:
        f.write(f'[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n'
                f'[dependencies]\n{name} = "={version}"\n')
    open(os.path.join(manifest, "src", "lib.rs"), "w").close()
    subprocess.run(["cargo", "fetch", "--quiet", "--manifest-path",
                    os.path.join(manifest, "Cargo.toml")], check=True)
    home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    cache = os.path.join(home, "registry", "cache")
    for index in sorted(os.listdir(cache)):
        path = os.path.join(cache, index, f"{name}-{version}.crate")
        if os.path.exists(path):
            if sha256(path) != sha:
                raise SystemExit(f"python.py: {path}: sha256 {sha256(path)}, expected {sha}")
            with tarfile.open(path) as t:
                t.extractall(work, filter="data")
            return os.path.join(work, f"{name}-{version}", "src")
    raise SystemExit(f"python.py: cargo fetch did not leave {name}-{version}.crate in {cache}")


def def_exports(path):
    """(dll, names) of a .def file: the LIBRARY line and each EXPORTS entry's name."""
    dll, names, exports = None, [], False
    for line in open(path, encoding="utf-8"):
        line = line.split(";")[0].strip()
        if not line:
            continue
        if line.upper().startswith("LIBRARY"):
            dll = line.split(None, 1)[1].strip().strip('"')
        elif line.upper() == "EXPORTS":
            exports = True
        elif exports:
            names.append(re.split(r"[\s=@]", line)[0])
    return dll, sorted(set(names))


def debian_debug_only(work):
    """Names libpython3.11d.so exports that libpython3.11.so does not, and the sources."""
    debs = os.path.join(work, "debs")
    os.makedirs(debs)
    os.chmod(debs, 0o777)
    packages = [f"libpython3.11={DEBIAN}", f"libpython3.11-dbg={DEBIAN}"]
    if subprocess.run(["apt-get", "download", "-qq", *packages], cwd=debs).returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(["apt-get", "download", "-qq", *packages], cwd=debs, check=True)
    sets, sources = {}, []
    for deb in sorted(os.listdir(debs)):
        subprocess.run(["dpkg-deb", "-x", os.path.join(debs, deb), os.path.join(work, "x")],
                       check=True)
    for so, package in (("libpython3.11.so.1.0", "libpython3.11"),
                        ("libpython3.11d.so.1.0", "libpython3.11-dbg")):
        path = os.path.join(work, "x", SO_DIR, so)
        out = subprocess.run(["llvm-nm-19", "-D", "--defined-only", path], check=True,
                             capture_output=True, text=True).stdout
        sets[so] = {line.split()[-1] for line in out.splitlines() if len(line.split()) == 3}
        sources.append(f"Debian bookworm {package} {DEBIAN}, {SO_DIR}/{so} (dynamic symbols), "
                       f"sha256 {sha256(path)}; licence: PSF-2.0; names only")
    debug_only = sorted(n for n in sets["libpython3.11d.so.1.0"] - sets["libpython3.11.so.1.0"]
                        if n.startswith(("Py", "_Py")))
    return debug_only, sources


def main():
    out_file = sys.argv[1]
    with tempfile.TemporaryDirectory() as work:
        src = fetch_crate(work)
        sections, sources = [], []
        for version in VERSIONS:
            path = os.path.join(src, f"python{version}.def")
            dll, names = def_exports(path)
            sections.append((f"python{version}.lib", dll, names))
            sources.append(f"crates.io {CRATE[0]} {CRATE[1]}, src/python{version}.def (gendef of "
                           f"python.org's {dll}), sha256 {sha256(path)}; licence: MIT; names only")
        path = os.path.join(src, "python3.def")
        dll, stable = def_exports(path)
        sections.append(("python3.lib", dll, stable))
        sources.append(f"crates.io {CRATE[0]} {CRATE[1]}, src/python3.def (python3.dll: the stable "
                       f"ABI, CPython's Misc/stable_abi.toml), sha256 {sha256(path)}; licence: MIT; "
                       "names only")
        debug_only, debian_sources = debian_debug_only(work)
        # Names no release DLL of any version exports. CPython's stable-ABI list holds two of them
        # (`_Py_NegativeRefcount`, `_Py_RefTotal`, marked "ifdef Py_REF_DEBUG" there): a release
        # python3.dll does not export them, so they leave python3.lib's section.
        release = set().union(*(set(s[2]) for s in sections if s[0] != "python3.lib"))
        debug_only = [n for n in debug_only if n not in release]
        sections[-1] = ("python3.lib", dll, [n for n in stable if n not in debug_only])
        sections.append(("python3XX_d.lib", "python3XX_d.dll", debug_only))
        sources.extend(debian_sources)
        crate_sha = CRATE[2]
    with open(out_file, "w", newline="\n") as f:
        f.write("# lnkfix name table: Python C API -> python3XX.lib (python3XX.dll) per version, "
                "python3.lib (python3.dll, the stable ABI), debug-only names.\n")
        for source in sources:
            f.write(f"# source: {source}\n")
        f.write(f"# crate archive sha256 {crate_sha}\n")
        f.write("# regenerate: python3 symbol-db/generate/python.py symbol-db/names/python.txt\n")
        f.write("# Newest version first; python3.lib after the versioned libraries. The last "
                "section lists the names only a debug\n# interpreter exports (libpython3.11d.so "
                "less libpython3.11.so): XX stands for the interpreter's version.\n")
        for library, dll, names in sections:
            f.write(f"[{library} {dll}]\n")
            for name in sorted(names, key=lambda n: n.encode()):
                f.write(name + "\n")
    say(f"wrote {out_file}: " + ", ".join(f"{s[0]} {len(s[2])}" for s in sections))


if __name__ == "__main__":
    main()
