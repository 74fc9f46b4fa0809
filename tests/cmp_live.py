#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare two images on every block that was in use in the first.

An undo restores the original bytes of everything the run overwrote that
held live data; blocks free before the run may differ (they are free
again).  Free blocks come from `xfs_db -r -c "freesp -d"` of ORIG (which
also lists AGFL slots).  Usage: cmp_live.py ORIG OTHER; exit 0 if equal,
1 (and the first differing blocks) otherwise.
"""
import subprocess
import sys


def sb_field(img, name):
    out = subprocess.run(["xfs_db", "-r", "-c", "sb 0", "-c", "print " + name,
                          img], capture_output=True, text=True, check=True)
    return int(out.stdout.split("=")[1])


def main():
    orig, other = sys.argv[1], sys.argv[2]
    bs = sb_field(orig, "blocksize")
    agblocks = sb_field(orig, "agblocks")
    out = subprocess.run(["xfs_db", "-r", "-c", "freesp -d", orig],
                         capture_output=True, text=True, check=True).stdout
    free = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[0].isdigit():
            a, b, n = map(int, f)
            free.append((a * agblocks + b, n))
    free.sort()
    isfree = set()
    for start, n in free:
        isfree.update(range(start, start + n))
    chunk = 256 * bs
    bad = []
    with open(orig, "rb") as fa, open(other, "rb") as fb:
        pos = 0
        while True:
            a = fa.read(chunk)
            b = fb.read(chunk)
            if not a and not b:
                break
            if a != b:
                for i in range(0, max(len(a), len(b)), bs):
                    blk = (pos + i) // bs
                    if a[i:i + bs] != b[i:i + bs] and blk not in isfree:
                        bad.append(blk)
            pos += chunk
    if bad:
        print("%d live blocks differ, first: %s" % (len(bad), bad[:10]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
