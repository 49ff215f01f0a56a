"""Builds symbol-db/names/torch.txt from PyTorch's Windows import libraries, and checks the torch
namespace rules of rules.json against them.

usage: torch.py LIB_DIR RULES_JSON OUT

- The table lists every name that c10.lib, torch_python.lib, torch.lib and shm.lib export (one
  section each): small enough to embed (about 2,500 names). torch_cpu.lib exports about 46,000
  C++ names (4 MB of text): it is answered by namespace rules instead.
- The rules are checked, not written: every `at::`, `torch::`, `caffe2::`, `c10d::` and
  `onnx_torch::` name torch_cpu.lib exports must be torch_cpu's by rule `torch-cpu-namespaces`
  unless the table lists it; the `c10::` scopes that only torch_cpu.lib exports (ATen/core's
  IValue, types, dispatcher) must be exactly the alternatives of rule `torch-c10-aten-core`.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter

VERSION = "2.15.0"
WHEEL = f"torch-{VERSION}-cp312-cp312-win_amd64.whl"
TABLE_LIBS = [("c10.lib", "c10.dll"), ("torch_python.lib", "torch_python.dll"),
              ("torch.lib", "torch.dll"), ("shm.lib", "shm.dll")]
CALLING = [" __cdecl ", " __stdcall ", " __fastcall ", " __thiscall ", " __vectorcall "]


def exports(path):
    """The names an import library exports: no __imp_, no import descriptors or thunks."""
    out = subprocess.run(["llvm-nm-14", "--defined-only", "-j", path], capture_output=True,
                         text=True, check=True).stdout.split("\n")
    skip = ("__IMPORT_DESCRIPTOR_", "__NULL_IMPORT_DESCRIPTOR", ".idata$", "\x7f", "@")
    return sorted({n for n in out if n and not n.endswith(":") and not n.startswith("__imp_")
                   and not n.startswith(skip)}, key=lambda s: s.encode())


def demangle(names):
    text = subprocess.run(["llvm-undname-14"], input="\n".join(names), capture_output=True,
                          text=True).stdout
    pairs, lines = {}, text.split("\n")
    for i, line in enumerate(lines[:-1]):
        if line in names and lines[i + 1] and not lines[i + 1].startswith("error"):
            pairs[line] = lines[i + 1]
    return pairs


def own_name(d):
    """rules::own_name: what follows the calling convention, else the last word."""
    params = d.find("(") if "(" in d else len(d)
    ends = [d[:params].rfind(c) + len(c) for c in CALLING if d[:params].rfind(c) >= 0]
    if ends:
        return d[max(ends):]
    depth, start = 0, 0
    for i, c in enumerate(d):
        depth += (c == "<") - (c == ">")
        if c == " " and depth == 0:
            start = i + 1
    return d[start:]


def scopes(own):
    """The qualified head split at :: outside template arguments."""
    head, parts, depth, cur, i = own.split("(")[0], [], 0, "", 0
    while i < len(head):
        c = head[i]
        depth += (c == "<") - (c == ">")
        if depth == 0 and head.startswith("::", i):
            parts.append(cur)
            cur, i = "", i + 2
            continue
        cur += c
        i += 1
    return parts


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def rule(rules, rule_id):
    for r in rules["rules"]:
        if r["id"] == rule_id:
            return r
    sys.exit(f"torch.py: rules.json has no rule {rule_id}")


def main():
    lib_dir, rules_path, out_path = sys.argv[1:4]
    rules = json.load(open(rules_path))
    table = {lib: exports(os.path.join(lib_dir, lib)) for lib, _ in TABLE_LIBS}
    # Instantiations of the C++ library's own templates (std::) that a torch DLL happens to
    # export are the C++ library's names, not torch's: left out.
    for lib, names in table.items():
        own = demangle([n for n in names if n.startswith("?")])
        std = {n for n, d in own.items() if own_name(d).startswith("std::")}
        table[lib] = [n for n in names if n not in std]
    cpu = exports(os.path.join(lib_dir, "torch_cpu.lib"))
    # A name torch_cpu.lib exports too (an inline destructor of an ATen/core class that
    # torch_python.dll exports as well) is torch_cpu's: the rules answer it, not the table.
    also_cpu = set(cpu)
    shared = {n for lib in ("torch_python.lib", "torch.lib", "shm.lib") for n in table[lib] if n in also_cpu}
    for lib in ("torch_python.lib", "torch.lib", "shm.lib"):
        table[lib] = [n for n in table[lib] if n not in also_cpu]
    in_table = set().union(*table.values())
    cpu_cxx = [n for n in cpu if n.startswith("?")]
    dem = demangle(cpu_cxx)
    c10_dem = demangle([n for n in table["c10.lib"] if n.startswith("?")])
    top = Counter()
    c10_scopes_cpu, c10_scopes_c10 = Counter(), Counter()
    for name, d in dem.items():
        parts = scopes(own_name(d))
        top[parts[0] if parts else "(global)"] += 1
        if parts and parts[0] == "c10" and len(parts) > 1:
            c10_scopes_cpu[re.sub(r"<.*", "", parts[1])] += 1
    for d in c10_dem.values():
        parts = scopes(own_name(d))
        if parts and parts[0] == "c10" and len(parts) > 1:
            c10_scopes_c10[re.sub(r"<.*", "", parts[1])] += 1
    only_cpu = sorted(s for s in c10_scopes_cpu if s not in c10_scopes_c10)

    # The rules must say what the libraries say.
    aten_core = rule(rules, "torch-c10-aten-core")["match"]["scope_regex"]
    want = "^c10::(" + "|".join(only_cpu) + ")(::|<|$)"
    if aten_core != want:
        sys.exit(f"torch.py: rule torch-c10-aten-core's scope_regex should be\n{want}")
    cpu_rule = re.compile(rule(rules, "torch-cpu-namespaces")["match"]["scope_regex"])
    rules_cpu = [cpu_rule, re.compile(aten_core)]
    unmatched = [d for n, d in dem.items() if n in shared
                 and not any(r.search(own_name(d)) for r in rules_cpu)]
    if unmatched:
        sys.exit(f"torch.py: {len(unmatched)} names torch_cpu.lib shares with torch_python.lib "
                 f"match no torch_cpu rule, e.g. {unmatched[:3]}")
    missed = [d for n, d in dem.items() if n not in in_table
              and (scopes(own_name(d)) or [""])[0] in ("at", "torch", "caffe2", "c10d", "onnx_torch")
              and not cpu_rule.search(own_name(d))]
    if missed:
        sys.exit(f"torch.py: rule torch-cpu-namespaces misses {len(missed)} names, e.g. {missed[:3]}")

    lines = [
        "# lnkfix name table: PyTorch's import libraries -> c10.lib, torch_python.lib, torch.lib, shm.lib.",
    ]
    for lib, _ in TABLE_LIBS + [("torch_cpu.lib", "")]:
        lines.append(f"# source: PyPI torch {VERSION}, {WHEEL}, torch/lib/{lib}, sha256 "
                     f"{sha256(os.path.join(lib_dir, lib))}; licence: BSD-3-Clause; names only")
    lines += [
        "# regenerate: bash symbol-db/generate/torch.sh",
        f"# torch_cpu.lib exports {len(cpu)} names ({len(cpu_cxx)} C++), not listed (4 MB): rules.json",
        "# answers them by namespace (rules torch-cpu-namespaces, torch-c10-aten-core). Its C++ names",
        "# by outermost namespace: " + ", ".join(f"{k} {v}" for k, v in top.most_common(8)) + ".",
        f"# c10:: scopes only torch_cpu.lib exports ({len(only_cpu)}, rule torch-c10-aten-core): "
        + ", ".join(only_cpu[:12]) + ", ...",
        f"# Left out: {len(shared)} names torch_python.lib exports that torch_cpu.lib exports too (the",
        "# torch_cpu rules answer them), instantiations whose own name is in std:: (the C++",
        "# library's), @comp.id-style",
        "# object markers, import descriptors and thunks.",
        "# format: '[library dll]' opens a section; one linker-level name per line.",
    ]
    for lib, dll in TABLE_LIBS:
        lines.append(f"[{lib} {dll}]")
        lines += table[lib]
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"torch.py: {sum(len(v) for v in table.values())} names in {out_path}; "
          f"torch_cpu.lib {len(cpu)} names checked against the rules", file=sys.stderr)


main()
