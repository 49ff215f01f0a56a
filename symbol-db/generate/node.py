#!/usr/bin/env python3
"""Generate symbol-db/names/node.txt: the names a Node.js addon imports from node.exe -> node.lib.

    python3 symbol-db/generate/node.py OUT_FILE

Sources, pinned:
  - npm node-api-headers 1.9.0 (`npm pack`, the tarball's sha256 checked): def/node_api.def and
    def/js_native_api.def, the Node-API functions node.exe exports (napi_*, node_api_*), the
    list node-gyp and cmake-js turn into node.lib.
  - Debian bookworm libuv1 1.44.2-1+deb12u1 (`apt-get download`): libuv.so.1's dynamic symbols,
    the uv_* functions; node.exe links libuv statically and exports its API to addons.
The C++ names an addon can take from node.exe (v8::, node::) are rules (symbol-db/rules.json,
scope_regex), not a list: there are thousands, mangled per compiler and version.
Needs npm, apt-get, dpkg-deb, llvm-nm-19 and the network. Only names are written.
"""
import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile

NPM = ("node-api-headers", "1.9.0",
       "6cbfac49542194ae2c8f1dee5fa2dc00d66bec9cbf3b59e3a4e5f16d14eb0d19")
LIBUV = ("libuv1", "1.44.2-1+deb12u1", "usr/lib/x86_64-linux-gnu/libuv.so.1.0.0")


def sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def def_names(path):
    names, exports = [], False
    for line in open(path, encoding="utf-8"):
        line = line.split(";")[0].strip()
        if line.upper() == "EXPORTS":
            exports = True
        elif exports and line:
            names.append(line.split()[0])
    return names


def main():
    out_file = sys.argv[1]
    sources, names = [], set()
    with tempfile.TemporaryDirectory() as work:
        package, version, sha = NPM
        subprocess.run(["npm", "pack", "--silent", f"{package}@{version}"], cwd=work, check=True,
                       stdout=subprocess.DEVNULL)
        tgz = os.path.join(work, f"{package}-{version}.tgz")
        if sha256(tgz) != sha:
            raise SystemExit(f"node.py: {tgz}: sha256 {sha256(tgz)}, expected {sha}")
        with tarfile.open(tgz) as t:
            t.extractall(work, filter="data")
        for member in ("def/node_api.def", "def/js_native_api.def"):
            path = os.path.join(work, "package", member)
            names.update(def_names(path))
            sources.append(f"npm {package} {version}, {member}, sha256 {sha256(path)}; "
                           "licence: MIT; names only")
        napi = len(names)
        deb, deb_version, so = LIBUV
        os.chmod(work, 0o777)
        if subprocess.run(["apt-get", "download", "-qq", f"{deb}={deb_version}"], cwd=work).returncode:
            subprocess.run(["apt-get", "update", "-qq"], check=True)
            subprocess.run(["apt-get", "download", "-qq", f"{deb}={deb_version}"], cwd=work,
                           check=True)
        debs = [f for f in os.listdir(work) if f.startswith(deb) and f.endswith(".deb")]
        subprocess.run(["dpkg-deb", "-x", os.path.join(work, debs[0]), os.path.join(work, "uv")],
                       check=True)
        path = os.path.join(work, "uv", so)
        out = subprocess.run(["llvm-nm-19", "-D", "--defined-only", path], check=True,
                             capture_output=True, text=True).stdout
        uv = {l.split()[-1] for l in out.splitlines() if l.split()[-1].startswith("uv_")}
        names.update(uv)
        sources.append(f"Debian bookworm {deb} {deb_version}, {so} (dynamic symbols), sha256 "
                       f"{sha256(path)}; licence: MIT; uv_* names only")
    with open(out_file, "w", newline="\n") as f:
        f.write("# lnkfix name table: Node-API (napi_*, node_api_*) and libuv (uv_*) -> node.lib "
                "(node.exe exports them to addons).\n")
        for source in sources:
            f.write(f"# source: {source}\n")
        f.write("# regenerate: python3 symbol-db/generate/node.py symbol-db/names/node.txt\n")
        f.write("[node.lib node.exe]\n")
        for name in sorted(names, key=lambda n: n.encode()):
            f.write(name + "\n")
    print(f"node.py: wrote {out_file}: {napi} Node-API names, {len(uv)} libuv names",
          file=sys.stderr)


if __name__ == "__main__":
    main()
