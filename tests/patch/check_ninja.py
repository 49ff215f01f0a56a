#!/usr/bin/env python3
"""Checks what an lnkfix-patched tvm_ffi/cpp/extension.py generates.

    check_ninja.py ORIGINAL PATCHED EXPECT.json

Imports the ninja-generating function (`_generate_ninja_build`, or EXPECT["function"]) of both
files with the package's other imports stubbed, and calls it with the same arguments under several
simulated platforms and backends:

- Windows + HIP backend, HIP_PATH = EXPECT["hip_path"] (unset when null): the `ldflags = ` line must be
  the unpatched line with exactly EXPECT["added"] inserted (each value quoted the way a Windows
  command line quotes it, `subprocess.list2cmdline`, and `$` doubled for ninja) after the default flags and before the extra
  flags; every other line of the ninja file must be unchanged.
- Windows + CUDA, Windows CPU-only, Linux + HIP, Linux + CUDA, Linux CPU-only (HIP_PATH set and
  unset where the release's gate allows it): the whole ninja file must be unchanged.

Releases without a `backend` parameter (0.1.3-0.1.6) have no HIP backend: lnkfix gates the block on
HIP_PATH there, so "HIP backend" means GPU sources with HIP_PATH set and "CUDA" means HIP_PATH unset.
Prints one line per scenario; exits 1 on the first difference.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import inspect
import json
import os
import subprocess
import sys
import types

STUB_LIB = "C:\\stub\\tvm ffi\\lib\\tvm_ffi.dll"


class _Stub:
    """Anything the module imports from tvm_ffi that the generator does not call."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return self

    def __getattr__(self, name):
        return _Stub()


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        known = {
            "find_include_path": lambda: "/stub/include",
            "find_dlpack_include_path": lambda: "/stub/dlpack/include",
            "find_libtvm_ffi": lambda: STUB_LIB,
        }
        return known.get(name, _Stub)


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname == "tvm_ffi" or fullname.startswith("tvm_ffi."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _StubFinder())


def load(path: str, module_name: str) -> types.ModuleType:
    with open(path, "rb") as handle:
        source = handle.read()
    module = types.ModuleType(module_name)
    module.__file__ = path
    module.__package__ = "tvm_ffi.cpp"
    sys.modules[module_name] = module
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def configure(module: types.ModuleType, windows: bool) -> None:
    module.IS_WINDOWS = windows
    overrides = {
        "_find_cuda_home": lambda: "C:\\CUDA\\v12.4" if windows else "/usr/local/cuda",
        "_get_cuda_target": lambda: "-arch=sm_80",
        "_find_rocm_home": lambda: "C:\\ROCm" if windows else "/opt/rocm",
        "_get_rocm_target": lambda: ["--offload-arch=gfx1201"],
        "_resolve_gpu_backend": lambda *args, **kwargs: "cuda",
        "_detect_gpu_backend": lambda *args, **kwargs: "cuda",
    }
    for name, value in overrides.items():
        if hasattr(module, name):
            setattr(module, name, value)


def generate(module, function_name: str, windows: bool, backend, gpu: bool, hip_path):
    configure(module, windows)
    if hip_path is None:
        os.environ.pop("HIP_PATH", None)
    else:
        os.environ["HIP_PATH"] = hip_path
    function = getattr(module, function_name)
    parameters = inspect.signature(function).parameters
    extra = "/EXTRA.lib" if windows else "-lextra"
    arguments = {
        "name": "lnkfix_check",
        "extra_cflags": [],
        "extra_cuda_cflags": [],
        "extra_ldflags": [extra],
        "extra_include_paths": [],
    }
    if "sources" in parameters:
        arguments["sources"] = ["a.cpp", "k.cu"] if gpu else ["a.cpp"]
    if "cpp_files" in parameters:
        arguments["cpp_files"] = ["a.cpp"]
    if "cuda_files" in parameters:
        arguments["cuda_files"] = ["k.cu"] if gpu else []
    if "with_cuda" in parameters:
        arguments["with_cuda"] = gpu
    if "backend" in parameters:
        arguments["backend"] = backend
    arguments = {name: value for name, value in arguments.items() if name in parameters}
    return function(**arguments), extra


def ldflags_line(ninja: str) -> tuple[int, str]:
    lines = ninja.split("\n")
    matches = [index for index, line in enumerate(lines) if line.startswith("ldflags = ")]
    if len(matches) != 1:
        raise SystemExit(f"FAIL: expected one 'ldflags = ' line, found {len(matches)}")
    return matches[0], lines[matches[0]]


def main() -> int:
    original_path, patched_path, expect_path = sys.argv[1:4]
    with open(expect_path, encoding="utf-8") as handle:
        expect = json.load(handle)
    function_name = expect.get("function", "_generate_ninja_build")
    original = load(original_path, "lnkfix_original_extension")
    patched = load(patched_path, "lnkfix_patched_extension")
    has_backend = "backend" in inspect.signature(getattr(original, function_name)).parameters
    hip_path = expect.get("hip_path")
    # Quoted as a Windows command line quotes it, then ninja-escaped (`$` -> `$$`).
    added = [subprocess.list2cmdline([value]).replace("$", "$$") for value in expect["added"]]

    # Windows + HIP: the ldflags line gains exactly the expected flags, nothing else changes.
    hip_backend = "hip" if has_backend else None
    if not has_backend and hip_path is None:
        raise SystemExit("FAIL: this release gates on HIP_PATH; the expectation must set hip_path")
    before, extra = generate(original, function_name, True, hip_backend, True, hip_path)
    after, _ = generate(patched, function_name, True, hip_backend, True, hip_path)
    index, before_line = ldflags_line(before)
    after_index, after_line = ldflags_line(after)
    if not before_line.endswith(" " + extra):
        raise SystemExit(f"FAIL: unpatched ldflags line does not end with {extra}: {before_line!r}")
    wanted = before_line[: -len(extra) - 1] + "".join(" " + flag for flag in added) + " " + extra
    if after_line != wanted:
        raise SystemExit(f"FAIL windows-hip ldflags\n  got:    {after_line!r}\n  wanted: {wanted!r}")
    rest_before = before.split("\n")
    rest_after = after.split("\n")
    del rest_before[index]
    del rest_after[after_index]
    if rest_before != rest_after:
        raise SystemExit("FAIL windows-hip: lines other than ldflags changed")
    print(f"ok windows-hip: {after_line}")

    # Everything else: byte-identical ninja files.
    scenarios = [
        ("windows-cuda", True, "cuda", True, None),
        ("windows-cpu", True, None, False, None),
        ("linux-hip", False, "hip", True, hip_path or "/opt/rocm/"),
        ("linux-cuda", False, "cuda", True, None),
        ("linux-cpu", False, None, False, hip_path or "/opt/rocm/"),
    ]
    if has_backend:
        # with_hip is the gate: HIP_PATH set on a CUDA or CPU build must not matter.
        scenarios += [
            ("windows-cuda+HIP_PATH", True, "cuda", True, hip_path or "C:\\ROCm\\"),
            ("windows-cpu+HIP_PATH", True, None, False, hip_path or "C:\\ROCm\\"),
        ]
    for label, windows, backend, gpu, scenario_hip_path in scenarios:
        if backend is not None and not has_backend:
            backend = None
        before, _ = generate(original, function_name, windows, backend, gpu, scenario_hip_path)
        after, _ = generate(patched, function_name, windows, backend, gpu, scenario_hip_path)
        if before != after:
            raise SystemExit(f"FAIL {label}: ninja output changed\n--- before\n{before}\n--- after\n{after}")
        print(f"ok {label}: unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
