#!/usr/bin/env python3
"""Build lnkfix's name tables (symbol-db/names/*.txt, amdhip64.def) from fetched inputs.

Called by generate.sh, which fetches the inputs and passes their paths. Only names are
extracted (facts about the interfaces); no code or binary of the sources is copied.

Table format (documented in symbol-db/README.md):

    # comment lines (provenance, licence, regeneration command)
    [library dll]
    Name
    Name

A section header names the import library a Windows engineer links and the DLL it
imports from; the names below it are the linker-level names (no __imp_, no x86
decoration). Sections are written in preference order: when a name appears in several
sections, the earlier one is preferred. Names inside a section are sorted (bytewise).
"""

import argparse
import collections
import hashlib
import os
import re
import struct
import subprocess
import sys

REGENERATE = "bash symbol-db/generate/generate.sh"

# The Visual Studio project defaults (docs/RULES.md §3): when a function is listed
# under several DLLs, one of these is what an engineer already links.
DEFAULT_LIBRARIES = [
    "kernel32.lib", "user32.lib", "gdi32.lib", "winspool.lib", "comdlg32.lib",
    "advapi32.lib", "shell32.lib", "ole32.lib", "oleaut32.lib", "uuid.lib",
    "odbc32.lib", "odbccp32.lib",
]

# DLLs whose import library is not "<lowercase stem>.lib" (Windows SDK file names).
DLL_LIBRARY_EXCEPTIONS = {
    "xinput1_4.dll": "xinput.lib",
    "xaudio2_8.dll": "xaudio2.lib",
    "d3dcompiler_47.dll": "d3dcompiler.lib",
    "hhctrl.ocx": "htmlhelp.lib",
    "chakra.dll": "chakrart.lib",
}

# API sets are not import libraries one links by name. Families with a dedicated SDK
# import library (the "Library" row of their documentation) map to it; every other API
# set maps to the umbrella onecore.lib.
APISET_FAMILY_LIBRARIES = [
    ("api-ms-win-core-path-", "pathcch.lib"),
    ("api-ms-win-core-synch-l1-2-", "synchronization.lib"),
    ("api-ms-win-core-winrt-", "runtimeobject.lib"),
    ("api-ms-win-ro-typeresolution-", "runtimeobject.lib"),
    ("api-ms-win-shcore-", "shcore.lib"),
    ("api-ms-win-gaming-", "windowsapp.lib"),
    ("api-ms-win-net-isolation-", "firewallapi.lib"),
]
APISET_UMBRELLA = "onecore.lib"

KERNEL_MODE_IMAGES = ("ntoskrnl.exe", "hal.dll")


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def is_apiset(dll):
    lower = dll.lower()
    return lower.startswith("api-ms-") or lower.startswith("ext-ms-")


def library_for_dll(dll):
    """The import library a Windows engineer links for a DLL of the Windows API."""
    lower = dll.lower()
    if is_apiset(lower):
        for prefix, library in APISET_FAMILY_LIBRARIES:
            if lower.startswith(prefix):
                return library
        return APISET_UMBRELLA
    if lower in DLL_LIBRARY_EXCEPTIONS:
        return DLL_LIBRARY_EXCEPTIONS[lower]
    return lower.rsplit(".", 1)[0] + ".lib"


def preference_tier(library, dll):
    """Lower is preferred: project defaults, other user-mode DLLs, kernel mode, API sets."""
    lower = dll.lower()
    if is_apiset(lower):
        return 5 if library == APISET_UMBRELLA else 4
    if library in DEFAULT_LIBRARIES:
        return 0
    if lower.endswith(".sys") or lower in KERNEL_MODE_IMAGES:
        return 3
    return 1


# ---------------------------------------------------------------- readers


def archive_members(path):
    """(name, body) of every member of a COFF/ar archive (docs/RULES.md §10)."""
    with open(path, "rb") as handle:
        data = handle.read()
    if data[:8] != b"!<arch>\n":
        sys.exit(f"{path}: not an archive")
    offset = 8
    while offset + 60 <= len(data):
        header = data[offset:offset + 60]
        size = int(header[48:58].decode().strip())
        body = data[offset + 60:offset + 60 + size]
        yield header[:16].decode(errors="replace").strip(), body
        offset += 60 + size + (size & 1)


def short_imports(path):
    """(symbol, dll, name_type, import_type) of every short import member."""
    result = []
    for _, body in archive_members(path):
        # IMPORT_OBJECT_HEADER: Sig1 = 0, Sig2 = 0xFFFF.
        if body[:4] != b"\x00\x00\xff\xff":
            continue
        (kind,) = struct.unpack("<H", body[18:20])
        symbol, dll = body[20:].split(b"\x00")[:2]
        result.append((symbol.decode(), dll.decode(), (kind >> 2) & 7, kind & 3))
    return result


def undecorate_x86(symbol, name_type):
    """The x86 import name rules: 2 = NOPREFIX, 3 = UNDECORATE (strip _ and @N)."""
    if name_type in (2, 3) and symbol[:1] in ("_", "@", "?"):
        symbol = symbol[1:]
    if name_type == 3:
        symbol = symbol.split("@", 1)[0]
    return symbol


def run(command):
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def pe_exports(llvm_readobj, path):
    """Export names of a PE DLL (llvm-readobj --coff-exports)."""
    names = []
    for line in run([llvm_readobj, "--coff-exports", path]).splitlines():
        line = line.strip()
        if line.startswith("Name: "):
            name = line[len("Name: "):].strip()
            if name:
                names.append(name)
    return names


def elf_dynamic_exports(llvm_nm, path):
    """Defined dynamic symbols of an ELF shared object, ELF version tags stripped."""
    names = []
    for line in run([llvm_nm, "-D", "--defined-only", path]).splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        kind, name = parts[1], parts[2]
        if kind in ("A", "a"):
            continue  # version definition nodes such as hip_4.2@@hip_4.2
        names.append(re.sub(r"@.*$", "", name))
    return names


def gnu_import_library(llvm_nm, path):
    """{dll: names} of a GNU dlltool import library (libapi-ms-win-crt-*s00042.o members)."""
    member_pattern = re.compile(r"^lib(.+)s\d+\.o$")
    by_dll = collections.defaultdict(set)
    for line in run([llvm_nm, "-A", "--defined-only", path]).splitlines():
        # <archive>:<member>: <value> <kind> <name>
        location, _, rest = line.rpartition(": ")
        member = location.rsplit(":", 1)[-1]
        match = member_pattern.match(member)
        fields = rest.split()
        if not match or len(fields) != 3 or not fields[2].startswith("__imp_"):
            continue
        by_dll[match.group(1) + ".dll"].add(fields[2][len("__imp_"):])
    return by_dll


# ---------------------------------------------------------------- writers


def write_table(path, header_lines, sections):
    """sections: list of ((library, dll), names) in preference order."""
    lines = ["# " + line if line else "#" for line in header_lines]
    lines.append("# format: '[library dll]' opens a section; one linker-level name per line;")
    lines.append("# earlier sections are preferred when a name is listed more than once.")
    for (library, dll), names in sections:
        if not names:
            continue
        lines.append(f"[{library} {dll}]")
        lines.extend(sorted(names))
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("\n".join(lines) + "\n")
    return sum(len(names) for _, names in sections)


def provenance(label, package, version, member, path, licence):
    return f"source: {label} {package} {version}, {member}, sha256 {sha256(path)}; licence: {licence}"


# ---------------------------------------------------------------- tables


def windows_api(args, out):
    imports = short_imports(args.windows_x64_lib)
    sections = collections.defaultdict(set)
    for symbol, dll, _name_type, _kind in imports:
        sections[(library_for_dll(dll), dll)].add(symbol)

    # The x86 library decorates (_Name@N) with name type UNDECORATE/NOPREFIX, so the x86
    # import name undecorates to the x64 one; check that, so lookups may strip decoration.
    x86 = {undecorate_x86(symbol, name_type) for symbol, _, name_type, _ in short_imports(args.windows_x86_lib)}
    x64 = {symbol for symbol, _, _, _ in imports}
    if x86 != x64:
        print(f"warning: x86/x64 name sets differ: {len(x86 - x64)} x86-only, {len(x64 - x86)} x64-only", file=sys.stderr)

    order = sorted(sections, key=lambda key: (preference_tier(*key), key[0], key[1].lower()))
    header = [
        "lnkfix name table: Windows API function -> import library and DLL.",
        provenance("crates.io", "windows_x86_64_msvc", "0.53.1", "lib/windows.0.53.0.lib (Microsoft-made import library)",
                   args.windows_x64_lib, "MIT OR Apache-2.0; names only"),
        provenance("crates.io", "windows_i686_msvc", "0.53.1", "lib/windows.0.53.0.lib (x86: same names after undecoration)",
                   args.windows_x86_lib, "MIT OR Apache-2.0; names only"),
        f"regenerate: {REGENERATE}",
        "library = lowercase DLL stem + .lib (SDK exceptions listed in build_tables.py); API sets map to",
        "their family's SDK library or the umbrella onecore.lib; DLL names are spelled as in the source.",
    ]
    return write_table(os.path.join(out, "windows-api.txt"), header, [(key, sections[key]) for key in order])


HIP_KEEP = re.compile(r"^(hip|__hip|\?hip)")


def hip_runtime(args, out):
    names = sorted(set(elf_dynamic_exports(args.llvm_nm, args.hip_so)))
    runtime = [n for n in names if HIP_KEEP.match(n) and not n.startswith("hiprtc")]
    hiprtc = [n for n in names if n.startswith("hiprtc")]
    skipped = [n for n in names if n not in runtime and n not in hiprtc]
    # AMD's own Windows DLL (HIP 7.x): the names a current HIP SDK build references
    # (hipGetDevicePropertiesR0600, hipDrvLaunchKernelEx, ...), and proof that HIPRTC is
    # not in amdhip64 on Windows. Its configuration variables (AMD_LOG_LEVEL, ...) are skipped.
    windows_exports = pe_exports(args.llvm_readobj, args.amdhip64_7_dll)
    windows = sorted({n for n in windows_exports if HIP_KEEP.match(n)})
    windows_skipped = len(set(windows_exports)) - len(windows)
    header = [
        "lnkfix name table: HIP runtime C API -> amdhip64.lib (and HIPRTC -> hiprtc.lib).",
        provenance("Debian bookworm", "libamdhip64-5", "5.2.3-8", "usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.21153 (dynamic symbols)",
                   args.hip_so, "Expat/MIT (Debian copyright); names only"),
        provenance("PyPI", "vapoursynth-nlm-hip", "4", "vapoursynth/plugins/nlm_hip/amdhip64_7.dll (AMD's DLL, export table)",
                   args.amdhip64_7_dll, "AMD HIP SDK redistributable; export names only"),
        f"regenerate: {REGENERATE}",
        "ELF version tags (@@hip_4.2) stripped; Itanium-mangled C++ (_Z...) and non-HIP helpers skipped:",
        "  " + " ".join(skipped),
        f"amdhip64_7.dll: hip*/__hip*/?hip* exports kept, {windows_skipped} others (configuration variables) skipped.",
        "Windows DLL names: amdhip64.dll (HIP 5.x), amdhip64_6.dll (6.x), amdhip64_7.dll (7.x); HIPRTC is a",
        "separate, version-numbered DLL on Windows (hiprtc0602.dll style) with its own hiprtc.lib, so its",
        "names (built into the Linux libamdhip64.so, absent from amdhip64_7.dll) get their own section.",
    ]
    count = write_table(os.path.join(out, "hip-runtime.txt"), header,
                        [(("amdhip64.lib", "amdhip64.dll"), runtime),
                         (("amdhip64.lib", "amdhip64_7.dll"), windows),
                         (("hiprtc.lib", "hiprtc*.dll"), hiprtc)])
    with open(os.path.join(out, "amdhip64.def"), "w", encoding="utf-8", newline="\n") as handle:
        handle.write("; amdhip64.def: HIP 5.2 runtime C exports, for building a test import library:\n")
        handle.write(";   llvm-dlltool-14 -m i386:x86-64 -d amdhip64.def -l amdhip64.lib\n")
        handle.write(f"; {header[1]}\n")
        handle.write(f"; regenerate: {REGENERATE}\n")
        handle.write("LIBRARY amdhip64.dll\nEXPORTS\n")
        for name in runtime:
            handle.write(f"    {name}\n")
    return count


def ucrt(args, out):
    by_dll = gnu_import_library(args.llvm_nm, args.mingw_ucrt)
    # api-ms-win-crt-private-l1-1-0 is the UCRT's private contract with vcruntime/msvcp
    # (_o_* aliases, memcpy, __CxxFrameHandler3, ...): not what ucrt.lib gives user code.
    private = [dll for dll in by_dll if "-private-" in dll]
    sections = [(("ucrt.lib", dll), by_dll[dll]) for dll in sorted(by_dll) if dll not in private]
    header = [
        "lnkfix name table: Universal CRT exports -> ucrt.lib (/MD; static /MT flavour: libucrt.lib).",
        provenance("Debian bookworm", "mingw-w64-x86-64-dev", "10.0.0-3", "usr/x86_64-w64-mingw32/lib/libucrt.a (import members)",
                   args.mingw_ucrt, "ZPL-2.1 per Debian copyright (mingw-w64 CRT .def files: public domain); names only"),
        f"regenerate: {REGENERATE}",
        "DLLs are the api-ms-win-crt-* API sets that ucrt.lib imports (implemented by ucrtbase.dll);",
        "skipped: " + ", ".join(sorted(private)) + " (private to vcruntime/msvcp) and mingw's own static helpers.",
        "Not here: printf/scanf family (inline in the UCRT headers; legacy_stdio_definitions.lib for old objects).",
    ]
    return write_table(os.path.join(out, "ucrt.txt"), header, sections)


def dll_table(args, out, file_name, title, library, dlls, notes):
    sections = []
    header = [f"lnkfix name table: {title}"]
    for dll in dlls:
        path = os.path.join(args.msvc_runtime_dir, dll)
        sections.append(((library, dll), set(pe_exports(args.llvm_readobj, path))))
        header.append(provenance("PyPI", "msvc-runtime", args.msvc_runtime_version, f"{dll} (export table)", path,
                                 "Microsoft Visual C++ redistributable (proprietary); export names only"))
    header.append(f"regenerate: {REGENERATE}")
    header.extend(notes)
    return write_table(os.path.join(out, file_name), header, sections)


def vcruntime(args, out):
    return dll_table(args, out, "vcruntime.txt",
                     "VC runtime exports -> vcruntime.lib (/MD; static /MT flavour: libvcruntime.lib).",
                     "vcruntime.lib", ["vcruntime140.dll", "vcruntime140_1.dll", "vcruntime140_threads.dll"],
                     ["vcruntime140_1.dll holds __CxxFrameHandler4; vcruntime140_threads.dll the C11 <threads.h> API.",
                      "Not here (static in msvcrt.lib/libcmt.lib, docs/RULES.md §4): __security_check_cookie,",
                      "__GSHandlerCheck, __guard_dispatch_icall_fptr, operator new/delete, _tls_index, atexit."])


def msvcp(args, out):
    return dll_table(args, out, "msvcp.txt",
                     "C++ standard library exports -> msvcprt.lib (/MD; static /MT flavour: libcpmt.lib).",
                     "msvcprt.lib",
                     ["msvcp140.dll", "msvcp140_1.dll", "msvcp140_2.dll", "msvcp140_atomic_wait.dll",
                      "msvcp140_codecvt_ids.dll"],
                     ["Names are x64 MSVC-decorated (x86 decorations differ).",
                      "Not here: the vectorised algorithm helpers (__std_find_trivial_1, __std_search_1, ...) that are",
                      "static members of msvcprt.lib/libcpmt.lib and so in no DLL export table (docs/RULES.md §4)."])


# ---------------------------------------------------------------- checks

REQUIRED = [
    ("windows-api.txt", "CreateFileW", "kernel32.lib"),
    ("windows-api.txt", "RegOpenKeyExW", "advapi32.lib"),
    ("windows-api.txt", "MessageBoxW", "user32.lib"),
    ("windows-api.txt", "SHGetFolderPathW", "shell32.lib"),
    ("windows-api.txt", "WSAStartup", "ws2_32.lib"),
    ("windows-api.txt", "CoCreateGuid", "ole32.lib"),
    ("windows-api.txt", "CryptProtectData", "crypt32.lib"),
    ("windows-api.txt", "SHDeleteKeyW", "shlwapi.lib"),
    ("windows-api.txt", "ChoosePixelFormat", "gdi32.lib"),
    ("windows-api.txt", "SetPixelFormat", "gdi32.lib"),
    ("windows-api.txt", "VerSetConditionMask", "kernel32.lib"),
    ("hip-runtime.txt", "hipMalloc", "amdhip64.lib"),
    ("hip-runtime.txt", "hipLaunchKernel", "amdhip64.lib"),
    ("hip-runtime.txt", "__hipRegisterFatBinary", "amdhip64.lib"),
    ("hip-runtime.txt", "__hipPushCallConfiguration", "amdhip64.lib"),
    ("hip-runtime.txt", "hipGetDevicePropertiesR0600", "amdhip64.lib"),
    ("hip-runtime.txt", "hiprtcCompileProgram", "hiprtc.lib"),
    ("ucrt.txt", "wcsnlen", "ucrt.lib"),
    ("ucrt.txt", "__acrt_iob_func", "ucrt.lib"),
    ("ucrt.txt", "___lc_codepage_func", "ucrt.lib"),
    ("ucrt.txt", "___lc_locale_name_func", "ucrt.lib"),
    ("vcruntime.txt", "__CxxFrameHandler3", "vcruntime.lib"),
    ("vcruntime.txt", "__CxxFrameHandler4", "vcruntime.lib"),
    ("vcruntime.txt", "__C_specific_handler", "vcruntime.lib"),
    ("vcruntime.txt", "_CxxThrowException", "vcruntime.lib"),
    ("vcruntime.txt", "__std_terminate", "vcruntime.lib"),
    ("vcruntime.txt", "memcpy", "vcruntime.lib"),
    ("msvcp.txt", "?_Xlength_error@std@@YAXPEBD@Z", "msvcprt.lib"),
]


def read_table(path):
    """{name: [library, ...]} in preference order."""
    table = collections.defaultdict(list)
    library = None
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            if line.startswith("["):
                library = line[1:-1].split(" ", 1)[0]
                continue
            table[line].append(library)
    return table


def check(out):
    tables = {}
    failures = 0
    for file_name, name, library in REQUIRED:
        table = tables.setdefault(file_name, read_table(os.path.join(out, file_name)))
        found = table.get(name, [])
        ok = bool(found) and found[0] == library
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name} -> {found[0] if found else '(none)'} (want {library})")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--windows-x64-lib", required=True)
    parser.add_argument("--windows-x86-lib", required=True)
    parser.add_argument("--hip-so", required=True)
    parser.add_argument("--amdhip64-7-dll", required=True)
    parser.add_argument("--mingw-ucrt", required=True)
    parser.add_argument("--msvc-runtime-dir", required=True)
    parser.add_argument("--msvc-runtime-version", required=True)
    parser.add_argument("--llvm-nm", default="llvm-nm-14")
    parser.add_argument("--llvm-readobj", default="llvm-readobj-14")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for builder in (windows_api, hip_runtime, ucrt, vcruntime, msvcp):
        count = builder(args, args.out)
        print(f"{builder.__name__}: {count} entries")
    if check(args.out):
        sys.exit("required outcomes failed")


if __name__ == "__main__":
    main()
