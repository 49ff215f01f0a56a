"""Builds symbol-db/names/hip-sdk.txt (see hip_sdk.sh for the inputs).

usage: hip_sdk.py WORK_DIR OUT   (WORK_DIR holds <so>.names, one dynamic symbol a line)
"""
import hashlib
import json
import re
import struct
import sys
import urllib.parse
import urllib.request
import zlib

BINDINGS = "rocm-bindings-libraries"
BINDINGS_VERSION = "10.0.0.0.1.2"
BINDINGS_WHEEL = (f"rocm_bindings_libraries-{BINDINGS_VERSION}-cp312-abi3-manylinux2014_x86_64."
                  "manylinux_2_17_x86_64.manylinux_2_28_x86_64.whl")
BINDINGS_SHA256 = "3abc6b3eb47827c5bad9ee30cbabcdcbb90cc1ebd3b56e05a327dedcf8f762c2"
PXD_SHA256 = {
    "cyhipblas.pxd": "6c920595f35c95fecf0637279b22895b90276330e6242b9e6302cdbca27c5c0a",
    "cyhipblaslt.pxd": "04e31761f4d260cdc65819958227c3ad62f4590828218f2e5ec880a285404dc2",
    "cyhipfft.pxd": "aeec426a3ac1d118900e8b94914dab83e9c3cd48d9a52008ec815a2e7c6d788f",
    "cyhiprand.pxd": "28fd44626af1c7f42799a0916e5d903e029e71a01546db7e7fa8afba23ff7392",
    "cyhipsolver.pxd": "84bef089bbde09ea846fd4e09bbeec1196a6339e1746702e4c636dd5b475c97a",
    "cyhipsparse.pxd": "692704c0f030c2a9a5dc5b80d245b44ffb63aa21f87ac9f99c230c769edc5c9d",
}
# library, dll, the .so of Debian (or None), the bindings' .pxd (or None), the name prefix kept.
# Windows names: every HIP SDK library is %HIP_PATH%\lib\<name>.lib importing bin\<name>.dll, no
# version in either (rocFFT's and rocSOLVER's CMake export files of a Windows build: IMPORTED_IMPLIB
# lib/rocfft.lib, IMPORTED_LOCATION bin/rocfft.dll; rocblas.lib, rocfft.lib, rocsolver.lib in a
# HIP SDK 5.5 lib directory).
LIBRARIES = [
    ("hipblas.lib", "hipblas.dll", None, "cyhipblas.pxd", "hipblas"),
    ("hipblaslt.lib", "hipblaslt.dll", None, "cyhipblaslt.pxd", "hipblasLt"),
    ("hipfft.lib", "hipfft.dll", None, "cyhipfft.pxd", "hipfft"),
    ("hiprand.lib", "hiprand.dll", "libhiprand.so.1.1", "cyhiprand.pxd", "hiprand"),
    ("hipsolver.lib", "hipsolver.dll", None, "cyhipsolver.pxd", "hipsolver"),
    ("hipsparse.lib", "hipsparse.dll", "libhipsparse.so.0.1", "cyhipsparse.pxd", "hipsparse"),
    ("rocblas.lib", "rocblas.dll", "librocblas.so.0.1", None, "rocblas_"),
    ("rocfft.lib", "rocfft.dll", "librocfft.so.0.1", None, "rocfft_"),
    ("rocrand.lib", "rocrand.dll", "librocrand.so.1.1", None, "rocrand_"),
    ("rocsolver.lib", "rocsolver.dll", "librocsolver.so.0.1", None, "rocsolver_"),
    ("rocsparse.lib", "rocsparse.dll", "librocsparse.so.0.1", None, "rocsparse_"),
]
# The .so files: Debian release, package, the .deb (Debian 13's, fetched by URL: its pool path and
# sha256; Debian 12's come through apt), the .so's sha256 and the package's licence.
# hip_sdk.sh checks every sha256 (the same values).
DEBIAN = {
    "librocrand.so.1.1": ("bookworm", "librocrand1 5.3.3-4", None, "e7a80b47fbc76e22e1052c2c0d6c87f0a4f311e45c1e8649f36120bf5e10fe27", "MIT"),
    "libhiprand.so.1.1": ("bookworm", "libhiprand1 5.3.3-4", None, "55678020f0a20c930d7c6f48b91bd549a36adf86cc06b43aa2fe1f2d5d1e2e5c", "MIT"),
    "librocsparse.so.0.1": ("bookworm", "librocsparse0 5.3.0+dfsg-2", None, "5d8aa37681179fb8234b52fe1afc8f7e16757b72bfa2409032f5de87e7e5bc4a", "MIT"),
    "libhipsparse.so.0.1": ("bookworm", "libhipsparse0 5.3.3+dfsg-2~deb12u1", None, "af017cf9a099f003a1727029fadf029a166198b73cb5910709ef0d51dfe078d7", "MIT"),
    "librocblas.so.0.1": ("trixie", "librocblas0 5.5.1+dfsg-7",
                          ("pool/main/r/rocblas/librocblas0_5.5.1+dfsg-7_amd64.deb", "951dfa1a46ee275dace455f396640cfc63a47927455a0903b73c4e50030574c1"),
                          "d518d0ff07d38dd557e5d282b9e4e586be16dfbca647600b8fbed3dc32d9c8da", "MIT"),
    "librocfft.so.0.1": ("trixie", "librocfft0 6.1.2-1",
                         ("pool/main/r/rocfft/librocfft0_6.1.2-1_amd64.deb", "a720be0e46c967b325980b7c5f10bee2d41ccfaa7446053f772cc8c211949065"),
                         "d02d89bfb5b1baaf8c868899b5ab4e5af4e7db7ad04a2df5da8e789244f00b02", "MIT"),
    "librocsolver.so.0.1": ("trixie", "librocsolver0 5.5.1-7",
                            ("pool/main/r/rocsolver/librocsolver0_5.5.1-7_amd64.deb", "8b3763a18c7bebc244337432bbef5e1ff4ac4dcf56bba32e766b4070c3afaee0"),
                            "dd4e1d5a5736a93539fbde243bd745a3e980cf3c04562ca0973fbc34784b779b", "BSD-2-Clause"),
}


def wheel_members(wanted):
    """The wanted members of the bindings wheel, read by HTTP range requests."""
    index = f"https://pypi.org/pypi/{BINDINGS}/json"
    with urllib.request.urlopen(index, timeout=60) as r:
        files = json.load(r)["releases"][BINDINGS_VERSION]
    entry = next(f for f in files if f["filename"] == BINDINGS_WHEEL)
    if entry["digests"]["sha256"] != BINDINGS_SHA256:
        sys.exit(f"hip_sdk.py: PyPI's sha256 of {BINDINGS_WHEEL} is {entry['digests']['sha256']}")
    url = urllib.parse.urljoin(index, entry["url"])

    def get(start, end):
        req = urllib.request.Request(url, headers={"Range": f"bytes={start}-{end}"})
        with urllib.request.urlopen(req, timeout=300) as r:
            if r.status != 206:
                sys.exit(f"hip_sdk.py: {url}: no range support (HTTP {r.status})")
            return r.read()

    size = int(entry["size"])
    tail = get(max(0, size - 65536), size - 1)
    eocd = tail.rfind(b"PK\x05\x06")
    cd_size, cd_off = struct.unpack("<II", tail[eocd + 12:eocd + 20])
    cd, p, out = get(cd_off, cd_off + cd_size - 1), 0, {}
    while p + 46 <= len(cd) and cd[p:p + 4] == b"PK\x01\x02":
        method = struct.unpack("<H", cd[p + 10:p + 12])[0]
        csize, _, nlen, xlen, clen = struct.unpack("<IIHHH", cd[p + 20:p + 34])
        offset = struct.unpack("<I", cd[p + 42:p + 46])[0]
        name = cd[p + 46:p + 46 + nlen].decode().rsplit("/", 1)[-1]
        p += 46 + nlen + xlen + clen
        if name in wanted:
            head = get(offset, offset + 29)
            start = offset + 30 + sum(struct.unpack("<HH", head[26:30]))
            data = get(start, start + csize - 1)
            out[name] = zlib.decompress(data, -15) if method == 8 else data
    for name in wanted:
        got = hashlib.sha256(out.get(name, b"")).hexdigest()
        if got != PXD_SHA256[name]:
            sys.exit(f"hip_sdk.py: {name}: sha256 {got}, expected {PXD_SHA256[name]}")
    return out


def pxd_functions(text):
    """The functions a bindings .pxd declares at top level: `cdef <type> name(...)`."""
    return {m.group(1) for m in re.finditer(r"^cdef [^(=\n]*?\b([A-Za-z]\w*)\(", text, re.M)}


def main():
    work, out_path = sys.argv[1:3]
    pxd = wheel_members([p for *_, p, _ in LIBRARIES if p])
    lines = [
        "# lnkfix name table: the HIP SDK's libraries besides the HIP runtime -> hipblas.lib, hipfft.lib, ...",
    ]
    for so, (release, package, deb, sha, licence) in DEBIAN.items():
        via = f" ({deb[0]}, sha256 {deb[1]})" if deb else ""
        lines.append(f"# source: Debian {release} {package}{via}, usr/lib/x86_64-linux-gnu/{so} (dynamic symbols), sha256 {sha}; licence: {licence}; names only")
    for name, sha in PXD_SHA256.items():
        lines.append(f"# source: PyPI {BINDINGS} {BINDINGS_VERSION} (AMD), rocm/bindings/{name} (C declarations), sha256 {sha}; licence: MIT; names only")
    lines += [
        "# regenerate: bash symbol-db/generate/hip_sdk.sh",
        "# Windows: every library is %HIP_PATH%\\lib\\<name>.lib importing <name>.dll (checked for rocBLAS,",
        "# rocFFT, rocSOLVER: CMake export files and SDK listings; the DLL names carry no version). C names",
        "# only: Itanium-mangled (_Z) symbols of the Linux .so files and names outside the library's",
        "# prefix are left out. MIOpen: rules.json, by prefix (no package reachable). RCCL (nccl*) and",
        "# rocTX (roctx*): not listed, the Windows HIP SDK ships neither.",
        "# format: '[library dll]' opens a section; one linker-level name per line.",
    ]
    total = 0
    for library, dll, so, pxd_name, prefix in LIBRARIES:
        names = set()
        if so:
            names |= {n.split("@")[0] for n in open(f"{work}/{so}.names").read().split()}
        if pxd_name:
            names |= pxd_functions(pxd[pxd_name].decode())
        names = sorted((n for n in names if n.startswith(prefix)), key=str.encode)
        total += len(names)
        lines.append(f"[{library} {dll}]")
        lines += names
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"hip_sdk.py: {total} names in {out_path}", file=sys.stderr)


main()
