#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What the kernel asked the emulated disk for: hddemu's trace sorted into
inode chunks, directory blocks and the rest (file data, btrees, AG
headers), each with its requests, bytes, disk-busy seconds, seeks, cache
hits and request sizes.  The inode chunks and directory blocks of the
image come from `xfsdefrag debug-inoruns` (and --dirs); a request is put
where most of its bytes lie.  Counts only the requests after the trace's
last "reset" (the reader's, not the mount's).

Usage: classify.py XFSDEFRAG IMAGE TRACE...
"""
import bisect
import collections
import subprocess
import sys


def runs(xfsdefrag, image, *opts):
    out = subprocess.run([xfsdefrag, "debug-inoruns", *opts, image],
                         check=True, capture_output=True, text=True).stdout
    r = sorted(tuple(map(int, l.split())) for l in out.splitlines() if l)
    # join overlapping or adjacent ranges, so the starts are increasing
    joined = []
    for off, ln in r:
        if joined and off <= joined[-1][1]:
            joined[-1][1] = max(joined[-1][1], off + ln)
        else:
            joined.append([off, off + ln])
    return [a for a, _ in joined], [b for _, b in joined]


def overlap(table, off, end):
    starts, ends = table
    i = bisect.bisect_right(starts, off) - 1
    i = max(i, 0)
    n = 0
    while i < len(starts) and starts[i] < end:
        a, b = max(starts[i], off), min(ends[i], end)
        if b > a:
            n += b - a
        i += 1
    return n


def requests(path):
    """the requests after the last reset: (op, off, len, kind, cost)"""
    reqs = []
    for line in open(path):
        f = line.split()
        if not f:
            continue
        if f[0] == "reset":
            reqs = []
        elif len(f) >= 5:
            reqs.append((f[0], int(f[1]), int(f[2]), f[3], float(f[4])))
    return reqs


def size_label(n):
    for lim, lab in ((4096, "<=4K"), (8192, "<=8K"), (16384, "<=16K"),
                     (32768, "<=32K"), (65536, "<=64K"), (131072, "<=128K"),
                     (524288, "<=512K")):
        if n <= lim:
            return lab
    return ">512K"


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    xfsdefrag, image = sys.argv[1], sys.argv[2]
    ino = runs(xfsdefrag, image)
    dirs = runs(xfsdefrag, image, "--dirs")
    for path in sys.argv[3:]:
        st = collections.defaultdict(lambda: collections.Counter())
        sizes = collections.defaultdict(collections.Counter)
        for op, off, ln, kind, cost in requests(path):
            end = off + ln
            i, d = overlap(ino, off, end), overlap(dirs, off, end)
            cls = "inodes" if i * 2 >= ln else "dirs" if d * 2 >= ln else "other"
            if op == "w":
                cls = "writes"
            c = st[cls]
            c["requests"] += 1
            c["bytes"] += ln
            c["busy_us"] += cost * 1e6
            c[kind] += 1
            sizes[cls][size_label(ln)] += 1
        print(path)
        print("  %-7s %8s %9s %8s %7s %6s %6s %6s  sizes" % (
            "class", "requests", "MB", "busy-s", "seeks", "gaps", "hits",
            "stream"))
        for cls in ("inodes", "dirs", "other", "writes"):
            c = st.get(cls)
            if not c:
                continue
            sz = " ".join("%s:%d" % (k, v) for k, v in sorted(
                sizes[cls].items(), key=lambda kv: -kv[1])[:4])
            print("  %-7s %8d %9.1f %8.3f %7d %6d %6d %6d  %s" % (
                cls, c["requests"], c["bytes"] / 1e6, c["busy_us"] / 1e6,
                c["seek"], c["gap"], c["hit"], c["stream"], sz))


if __name__ == "__main__":
    main()
