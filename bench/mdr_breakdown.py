#!/usr/bin/env python3
"""Where the bytes of an mdr retrieval go: the header (fixed part, level entries with their
error tables, index) and each segment of the prefix read, with its coding (for a split group
the coding and size of each stream). Reads version 2 and 3 files (docs/MDR.md section 4).
Usage: bench/mdr_breakdown.py FILE.szmd [BYTES_READ]   (BYTES_READ: sciz_mdr_bench's mdr_read;
without it every segment)"""
import struct, sys

CODING = {0: "copy", 1: "stages", 2: "split", 3: "gaps"}


def varint(b, at):
    v = shift = 0
    while True:
        x = b[at]
        at += 1
        v |= (x & 0x7F) << shift
        shift += 7
        if not x & 0x80:
            return v, at


def sub_coding(seg):
    if seg[0] == 1:  # stage list: count, code width, ids
        n = seg[1]
        return "stages[" + ",".join(f"{i:#x}" for i in seg[3:3 + n]) + "]"
    return CODING.get(seg[0], f"?{seg[0]}")


def main():
    b = open(sys.argv[1], "rb").read()
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else len(b)
    version, _, hsize = struct.unpack_from("<HHI", b, 4)
    assert b[:4] == b"SZMD" and version >= 2, "a version 2 or later mdr file"
    dtype, ndims, nlev, scale = b[12:16]
    at = 16 + 8 * ndims + 32
    fixed = at
    levels = []
    for j in range(nlev):
        count, exp, top, gp = struct.unpack_from("<QhBB", b, at)
        groups = (top + gp - 1) // gp
        at += 12 + 4 * (groups + 1)
        levels.append((count, top, gp, groups))
    tables = sum(4 * (g + 1) for *_, g in levels)
    level_bytes = at - fixed
    nseg = struct.unpack_from("<I", b, at)[0]
    at += 8
    idx0 = at
    segs, nxt = [], [0] * nlev
    for _ in range(nseg):
        lv = b[at]
        length, at = varint(b, at + 1)
        g = nxt[lv] if lv != 255 else 0
        if lv != 255:
            nxt[lv] += 1
        segs.append((lv, g, length))
    print(f"version {version}; header {hsize} bytes: fixed {fixed}, levels {level_bytes} (error tables {tables}), "
          f"index {at - idx0 + 8} for {nseg} segments, checksum 8")
    off, read = hsize, hsize
    by_coding = {}
    for k, (lv, g, length) in enumerate(segs):
        if read + length > limit:
            break
        seg = b[off + 8:off + length]
        desc = "exact values" if lv == 255 else f"level {lv} ({levels[lv][0]} coeffs) group {g}"
        c = CODING.get(seg[0], "?") if lv != 255 else "runs"
        extra = ""
        if lv != 255 and seg[0] == 2:
            abits, p = varint(seg, 1)
            alen, p = varint(seg, p)
            a, s = seg[p:p + alen], seg[p + alen:]
            extra = f"  ins {abits} bits -> {len(a)} B {sub_coding(a)}, sig -> {len(s)} B {sub_coding(s)}"
            for name, part in (("ins " + sub_coding(a), a), ("sig " + sub_coding(s), s)):
                by_coding[name] = by_coding.get(name, 0) + len(part)
        elif lv != 255:
            by_coding[sub_coding(seg)] = by_coding.get(sub_coding(seg), 0) + len(seg)
        print(f"  {k:3d} {desc:36s} {length:8d} B {c}{extra}")
        off += length
        read += length
    print(f"read {read} bytes; by coding: " + ", ".join(f"{k} {v}" for k, v in sorted(by_coding.items(), key=lambda x: -x[1])))


if __name__ == "__main__":
    main()
