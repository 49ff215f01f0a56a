"""Read members of a remote wheel (a zip file) with HTTP range requests: the central directory at
the end of the file, then only the members wanted. Used by the CUDA table generator, whose
libraries come in wheels of up to 600 MB of which only a few kilobytes are names.

    members(url, size) -> [Member]
    read_member(url, member) -> bytes                    (whole member, decompressed)
    dll_exports(url, member) -> (dll name, [names])       (decompresses only up to the export table)
"""
import struct
import urllib.request
import zlib
from collections import namedtuple

Member = namedtuple("Member", "name method csize usize offset crc")


def fetch(url, start, end):
    """Bytes start..end (inclusive) of url."""
    request = urllib.request.Request(url, headers={"Range": f"bytes={start}-{end}"})
    with urllib.request.urlopen(request, timeout=120) as response:
        data = response.read()
    if len(data) != end - start + 1:
        raise RuntimeError(f"{url}: asked for {end - start + 1} bytes at {start}, got {len(data)}")
    return data


def members(url, size):
    """Every member of the zip file at url (size bytes), from its central directory."""
    tail = fetch(url, max(0, size - 65536), size - 1)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0:
        raise RuntimeError(f"{url}: no end of central directory record")
    cd_size, cd_offset = struct.unpack("<II", tail[at + 12 : at + 20])
    if cd_offset == 0xFFFFFFFF:
        z64 = tail.rfind(b"PK\x06\x06")
        cd_size, cd_offset = struct.unpack("<QQ", tail[z64 + 40 : z64 + 56])
    cd = fetch(url, cd_offset, cd_offset + cd_size - 1)
    out, p = [], 0
    while cd[p : p + 4] == b"PK\x01\x02":
        method, = struct.unpack("<H", cd[p + 10 : p + 12])
        crc, csize, usize = struct.unpack("<III", cd[p + 16 : p + 28])
        nlen, elen, clen = struct.unpack("<HHH", cd[p + 28 : p + 34])
        offset, = struct.unpack("<I", cd[p + 42 : p + 46])
        name = cd[p + 46 : p + 46 + nlen].decode()
        extra = cd[p + 46 + nlen : p + 46 + nlen + elen]
        q = 0
        while q + 4 <= len(extra):
            tag, length = struct.unpack("<HH", extra[q : q + 4])
            if tag == 1:  # zip64 sizes and offset, in this order, only those that overflowed
                values, k = extra[q + 4 : q + 4 + length], 0
                if usize == 0xFFFFFFFF:
                    usize, = struct.unpack("<Q", values[k : k + 8]); k += 8
                if csize == 0xFFFFFFFF:
                    csize, = struct.unpack("<Q", values[k : k + 8]); k += 8
                if offset == 0xFFFFFFFF:
                    offset, = struct.unpack("<Q", values[k : k + 8]); k += 8
            q += 4 + length
        out.append(Member(name, method, csize, usize, offset, crc))
        p += 46 + nlen + elen + clen
    return out


def data_start(url, member):
    """Offset of the member's data (after its local header)."""
    header = fetch(url, member.offset, member.offset + 29)
    nlen, elen = struct.unpack("<HH", header[26:30])
    return member.offset + 30 + nlen + elen


def read_member(url, member):
    """The whole member, decompressed and checked against its CRC-32."""
    start = data_start(url, member)
    data = fetch(url, start, start + member.csize - 1)
    data = zlib.decompress(data, -15) if member.method == 8 else data
    if zlib.crc32(data) != member.crc:
        raise RuntimeError(f"{url}: {member.name}: CRC-32 differs")
    return data


def dll_exports(url, member):
    """The DLL name and exported names of a PE member, decompressing only as far as its export
    table (which sits near the start of NVIDIA's DLLs)."""
    start = data_start(url, member)
    request = urllib.request.Request(
        url, headers={"Range": f"bytes={start}-{start + member.csize - 1}"}
    )
    inflate = zlib.decompressobj(-15) if member.method == 8 else None
    buf, need, rva_to_offset, export_rva = bytearray(), None, None, None
    with urllib.request.urlopen(request, timeout=600) as response:
        while need is None or len(buf) < need:
            chunk = response.read(1 << 20)
            if not chunk:
                break
            buf += inflate.decompress(chunk) if inflate else chunk
            if need is None and len(buf) >= 4096:
                export_rva, size, rva_to_offset = _export_directory(buf)
                need = rva_to_offset(export_rva) + size
    if need is None or len(buf) < need:
        raise RuntimeError(f"{url}: {member.name}: export table not reached")
    u32 = lambda at: struct.unpack("<I", buf[at : at + 4])[0]
    cstr = lambda at: bytes(buf[at : buf.index(0, at)]).decode()
    e = rva_to_offset(export_rva)
    count, names_rva = u32(e + 24), u32(e + 32)
    names = [cstr(rva_to_offset(u32(rva_to_offset(names_rva) + 4 * i))) for i in range(count)]
    return cstr(rva_to_offset(u32(e + 12))), names


def _export_directory(buf):
    """(export table RVA, size, rva -> file offset) from a PE image's headers."""
    pe, = struct.unpack("<I", buf[0x3C:0x40])
    if buf[pe : pe + 4] != b"PE\0\0":
        raise RuntimeError("not a PE image")
    sections, = struct.unpack("<H", buf[pe + 6 : pe + 8])
    optional_size, = struct.unpack("<H", buf[pe + 20 : pe + 22])
    optional = pe + 24
    magic, = struct.unpack("<H", buf[optional : optional + 2])
    directory = optional + (112 if magic == 0x20B else 96)
    rva, size = struct.unpack("<II", buf[directory : directory + 8])
    table = []
    for i in range(sections):
        s = optional + optional_size + 40 * i
        vsize, va, rsize, raw = struct.unpack("<IIII", buf[s + 8 : s + 24])
        table.append((va, max(vsize, rsize), raw))

    def rva_to_offset(r):
        for va, length, raw in table:
            if va <= r < va + length:
                return r - va + raw
        raise RuntimeError(f"RVA {r:#x} is in no section")

    return rva, size, rva_to_offset
