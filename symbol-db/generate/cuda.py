#!/usr/bin/env python3
"""Generate symbol-db/names/cuda.txt: the CUDA runtime, driver and math libraries' names -> the
import library a Windows build links (cudart.lib, cuda.lib, cublas.lib, ...).

    python3 symbol-db/generate/cuda.py OUT_FILE

Sources (PyPI, NVIDIA's own Windows wheels, pinned by version and by PyPI's sha256 of the wheel):
  - nvidia-cuda-runtime-cu12: downloaded whole with pip (3.5 MB, sha256 checked); the import
    libraries lib/x64/cudart.lib (cudart64_12.dll) and cuda.lib (nvcuda.dll) are read with
    llvm-nm-19 / llvm-ar-19: every `__imp_X` of an import member gives X.
  - the math libraries' wheels (cuBLAS, cuFFT, cuRAND, cuSPARSE, cuSOLVER, NVRTC: 60 to 600 MB, no
    .lib inside): only each DLL's export table is read, by HTTP range requests (the zip's central
    directory, then the DLL member's compressed data up to its export table). The member's CRC-32
    from the central directory is recorded: it identifies the DLL read.
Needs python3 with pip, llvm-nm-19, llvm-ar-19 and the network. Only names are written.
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import remote_wheel  # noqa: E402

RUNTIME = ("nvidia-cuda-runtime-cu12", "12.9.79",
           "nvidia_cuda_runtime_cu12-12.9.79-py3-none-win_amd64.whl",
           "8e018af8fa02363876860388bd10ccb89eb9ab8fb0aa749aaf58430a9f7c4891")
# (library, import libraries' members), from the runtime wheel.
RUNTIME_LIBS = [("cudart.lib", "nvidia/cuda_runtime/lib/x64/cudart.lib"),
                ("cuda.lib", "nvidia/cuda_runtime/lib/x64/cuda.lib")]
# (package, version, wheel sha256 as PyPI records it, DLL member and its CRC-32 in the wheel's
# central directory, import library): a different wheel or member stops the script.
MATH = [
    ("nvidia-cublas-cu12", "12.9.1.4",
     "1e5fee10662e6e52bd71dec533fbbd4971bb70a5f24f3bc3793e5c2e9dc640bf",
     "nvidia/cublas/bin/cublas64_12.dll", "28174ac3", "cublas.lib"),
    ("nvidia-cublas-cu12", "12.9.1.4",
     "1e5fee10662e6e52bd71dec533fbbd4971bb70a5f24f3bc3793e5c2e9dc640bf",
     "nvidia/cublas/bin/cublasLt64_12.dll", "3d5f6201", "cublasLt.lib"),
    ("nvidia-cufft-cu12", "11.4.1.4",
     "8e5bfaac795e93f80611f807d42844e8e27e340e0cde270dcb6c65386d795b80",
     "nvidia/cufft/bin/cufft64_11.dll", "acad0866", "cufft.lib"),
    ("nvidia-curand-cu12", "10.3.10.19",
     "e8129e6ac40dc123bd948e33d3e11b4aa617d87a583fa2f21b3210e90c743cde",
     "nvidia/curand/bin/curand64_10.dll", "309bf3af", "curand.lib"),
    ("nvidia-cusparse-cu12", "12.5.10.65",
     "9e487468a22a1eaf1fbd1d2035936a905feb79c4ce5c2f67626764ee4f90227c",
     "nvidia/cusparse/bin/cusparse64_12.dll", "8d78ff2f", "cusparse.lib"),
    ("nvidia-cusolver-cu12", "11.7.5.82",
     "77666337237716783c6269a658dea310195cddbd80a5b2919b1ba8735cec8efd",
     "nvidia/cusolver/bin/cusolver64_11.dll", "d1f439d3", "cusolver.lib"),
    ("nvidia-cuda-nvrtc-cu12", "12.9.86",
     "72972ebdcf504d69462d3bcd67e7b81edd25d0fb85a2c46d3ea3517666636349",
     "nvidia/cuda_nvrtc/bin/nvrtc64_120_0.dll", "c45f2de8", "nvrtc.lib"),
]


def say(text):
    print(f"cuda.py: {text}", file=sys.stderr)


def wheel_file(package, version):
    """PyPI's record of the package's win_amd64 wheel: (url, size, sha256)."""
    for attempt in range(3):  # the JSON API answers an error now and then: ask again
        try:
            with urllib.request.urlopen(f"https://pypi.org/pypi/{package}/json", timeout=60) as r:
                info = json.load(r)
            break
        except (OSError, ValueError) as error:
            say(f"{package}: {error}; trying again")
    else:
        raise SystemExit(f"cuda.py: cannot read PyPI's record of {package}")
    for f in info["releases"].get(version, []):
        if f["filename"].endswith("win_amd64.whl"):
            url = f["url"]
            if url.startswith("../../packages/"):
                url = "https://files.pythonhosted.org/" + url[len("../../packages/"):]
            return url, f["size"], f["digests"]["sha256"], f["filename"]
    raise SystemExit(f"cuda.py: {package} {version} has no win_amd64 wheel")


def import_names(lib):
    """(dll, sorted names) of an import library: every __imp_X defined gives X."""
    out = subprocess.run(["llvm-nm-19", "--defined-only", "--no-sort", lib],
                         check=True, capture_output=True, text=True).stdout
    names = sorted({line.split()[-1][6:] for line in out.splitlines()
                    if len(line.split()) >= 2 and line.split()[-1].startswith("__imp_")})
    members = subprocess.run(["llvm-ar-19", "t", lib], check=True, capture_output=True,
                             text=True).stdout.split()
    dlls = sorted({m for m in members if m.lower().endswith(".dll")})
    if len(dlls) != 1:
        raise SystemExit(f"cuda.py: {lib}: expected one DLL among the members, got {dlls}")
    return dlls[0], [n for n in names if not n.startswith(("__IMPORT_DESCRIPTOR", "__NULL_IMPORT"))]


def main():
    out_file = sys.argv[1]
    sections, sources = [], []
    with tempfile.TemporaryDirectory() as work:
        package, version, wheel, sha = RUNTIME
        say(f"pip download {package}=={version}")
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--only-binary=:all:", "--platform", "win_amd64", "--python-version", "3.12",
                        "-d", work, f"{package}=={version}"], check=True)
        path = os.path.join(work, wheel)
        actual = hashlib.sha256(open(path, "rb").read()).hexdigest()
        if actual != sha:
            raise SystemExit(f"cuda.py: {wheel}: sha256 {actual}, expected {sha}")
        with zipfile.ZipFile(path) as z:
            for library, member in RUNTIME_LIBS:
                z.extract(member, work)
                lib = os.path.join(work, member)
                lib_sha = hashlib.sha256(open(lib, "rb").read()).hexdigest()
                dll, names = import_names(lib)
                sections.append((library, dll, names))
                sources.append(f"PyPI {package} {version}, {member} (NVIDIA's import library), "
                               f"sha256 {lib_sha}; licence: NVIDIA CUDA Toolkit EULA; names only")
                say(f"{library}: {len(names)} names ({dll})")
        for package, version, pinned_sha, member, pinned_crc, library in MATH:
            url, size, wheel_sha, filename = wheel_file(package, version)
            if wheel_sha != pinned_sha:
                raise SystemExit(f"cuda.py: {filename}: PyPI's sha256 {wheel_sha}, expected {pinned_sha}")
            entry = [m for m in remote_wheel.members(url, size) if m.name == member]
            if not entry:
                raise SystemExit(f"cuda.py: {filename} has no {member}")
            if f"{entry[0].crc:08x}" != pinned_crc:
                raise SystemExit(f"cuda.py: {member}: CRC-32 {entry[0].crc:08x}, expected {pinned_crc}")
            dll, names = remote_wheel.dll_exports(url, entry[0])
            names = sorted({n for n in names if n != "NvOptimusEnablementCuda"})
            sections.append((library, dll, names))
            sources.append(f"PyPI {package} {version}, {filename} (wheel sha256 {wheel_sha}), "
                           f"{member} export table (CRC-32 {entry[0].crc:08x}, read by HTTP range "
                           f"requests); licence: NVIDIA CUDA Toolkit EULA; export names only")
            say(f"{library}: {len(names)} names ({dll})")
    with open(out_file, "w", newline="\n") as f:
        f.write("# lnkfix name table: CUDA runtime (cudart.lib), driver API (cuda.lib) and math "
                "libraries (cublas.lib, cufft.lib, ...) -> import library + DLL.\n")
        for source in sources:
            f.write(f"# source: {source}\n")
        f.write("# regenerate: python3 symbol-db/generate/cuda.py symbol-db/names/cuda.txt\n")
        f.write("# The DLL names carry the major version (cudart64_12.dll); the import library's "
                "name does not.\n")
        for library, dll, names in sections:
            f.write(f"[{library} {dll}]\n")
            for name in sorted(names, key=lambda n: n.encode()):
                f.write(name + "\n")
    say(f"wrote {out_file}")


if __name__ == "__main__":
    main()
