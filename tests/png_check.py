#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Is a screenshot not blank, and does it show the block map colours?

  png_check.py PNG MIN_COLOURS RRGGBB...

Decodes the PNG itself (zlib, the five row filters; 8-bit RGB or RGBA,
not interlaced), then requires at least MIN_COLOURS distinct colours, at
least 2% of pixels that are not white, and at least 200 pixels of each
colour named (within 3 per channel).  Prints the counts; exits 1 on
failure.
"""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("unsupported PNG (depth %d, colour type %d)" %
                         (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    i = 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 0xff
            elif f == 2:
                line[x] = (line[x] + b) & 0xff
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xff
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 0xff
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    w, h, bpp, rows = decode(sys.argv[1])
    counts = {}
    for r in rows:
        for x in range(0, len(r), bpp):
            px = r[x:x + 3]
            counts[px] = counts.get(px, 0) + 1
    total = w * h
    white = counts.get(b"\xff\xff\xff", 0)
    ok = True
    print("%dx%d: %d colours, %.1f%% not white" %
          (w, h, len(counts), 100.0 * (total - white) / total))
    if len(counts) < int(sys.argv[2]):
        print("FAIL: fewer than %s colours" % sys.argv[2])
        ok = False
    if total - white < total * 0.02:
        print("FAIL: the screenshot is (nearly) blank")
        ok = False
    for hexc in sys.argv[3:]:
        want = bytes.fromhex(hexc)
        n = sum(c for px, c in counts.items()
                if all(abs(px[k] - want[k]) <= 3 for k in range(3)))
        print("#%s: %d pixels" % (hexc, n))
        if n < 200:
            print("FAIL: colour #%s not drawn (fewer than 200 pixels)" % hexc)
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
