#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare two images on every block that was in use in the first.

An undo restores the original bytes of everything the run overwrote that
held live data; blocks free before the run may differ (they are free
again), and so may blocks only unwritten extents map (they read as zeros
whatever they hold: the run does not keep their bytes).  Those are found
only among the blocks that differ, by xfs_db's owner of each block
(blockget, blockuse) and that owner's extent flags (bmap).  Free blocks come from `xfs_db -r -c "freesp -d"` of ORIG (which
also lists AGFL slots).  Usage: cmp_live.py ORIG OTHER; exit 0 if equal,
1 (and the first differing blocks) otherwise.  Only what either file
holds as data is read (SEEK_DATA): a hole in both is zeros in both.
"""
import errno
import os
import subprocess
import sys


def sb_field(img, name):
    out = subprocess.run(["xfs_db", "-r", "-c", "sb 0", "-c", "print " + name,
                          img], capture_output=True, text=True, check=True)
    return int(out.stdout.split("=")[1])


def data_segments(fd, bs):
    """The [start, end) byte ranges of fd that hold data, widened to
    whole blocks of bs: the rest are holes and read as zeros."""
    size = os.fstat(fd).st_size
    segs, off = [], 0
    while off < size:
        try:
            data = os.lseek(fd, off, os.SEEK_DATA)
        except OSError as e:
            if e.errno == errno.ENXIO:
                break
            raise
        hole = os.lseek(fd, data, os.SEEK_HOLE)
        segs.append((data - data % bs, -(-hole // bs) * bs))
        off = hole
    return segs


def runs(blocks):
    """Sorted block numbers as (first, count) runs."""
    out = []
    for b in blocks:
        if out and out[-1][0] + out[-1][1] == b:
            out[-1][1] += 1
        else:
            out.append([b, 1])
    return out


def xfs_db(img, cmds):
    args = ["xfs_db", "-r"]
    for c in cmds:
        args += ["-c", c]
    return subprocess.run(args + [img], capture_output=True, text=True,
                          check=True).stdout


def unwritten_only(img, blocks, agblocks, agblklog):
    """Those of blocks (linear numbers) that only unwritten extents map,
    by the owners xfs_db names and their extents' flags."""
    def fsb(lin):
        return (lin // agblocks) << agblklog | lin % agblocks

    def lin(f):
        return (f >> agblklog) * agblocks + (f & ((1 << agblklog) - 1))

    cmds = ["blockget -n"]
    for first, n in runs(blocks):
        cmds += ["fsblock %d" % fsb(first), "blockuse -c %d" % n]
    owners, other = {}, set()
    for line in xfs_db(img, cmds).splitlines():
        f = line.split()
        if len(f) >= 5 and f[0] == "block" and f[3] == "type":
            b = lin(int(f[1]))
            if f[4] in ("data", "attr") and len(f) >= 7 and f[5] == "inode":
                owners.setdefault(int(f[6]), set()).add(b)
            else:
                other.add(b)
    unw = set()
    for ino, mine in owners.items():
        out = xfs_db(img, ["inode %d" % ino, "bmap", "bmap -a"])
        for line in out.splitlines():
            f = line.split()
            if (len(f) == 10 and f[3] == "startblock" and f[6] == "count"
                    and f[8] == "flag" and f[9] == "1"):
                start, cnt = lin(int(f[4])), int(f[7])
                unw.update(b for b in mine if start <= b < start + cnt)
    # a block some written extent or metadata also maps still counts
    return unw - other


def regions(fa, fb, bs):
    """Where the two files may differ: where either holds data, and
    between their sizes if those differ (one ends there, the other not);
    both hold zeros everywhere else.  Merged, in order."""
    sa, sb = os.fstat(fa).st_size, os.fstat(fb).st_size
    segs = data_segments(fa, bs) + data_segments(fb, bs)
    if sa != sb:
        segs.append((min(sa, sb) - min(sa, sb) % bs, max(sa, sb)))
    out = []
    for start, end in sorted(segs):
        end = min(end, max(sa, sb))
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        elif start < end:
            out.append((start, end))
    return out


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
        for pos, end in regions(fa.fileno(), fb.fileno(), bs):
            while pos < end:
                n = min(chunk, end - pos)
                a = os.pread(fa.fileno(), n, pos)
                b = os.pread(fb.fileno(), n, pos)
                if a != b:
                    for i in range(0, max(len(a), len(b)), bs):
                        blk = (pos + i) // bs
                        if a[i:i + bs] != b[i:i + bs] and blk not in isfree:
                            bad.append(blk)
                pos += n
    if bad:
        skip = unwritten_only(orig, bad, agblocks, sb_field(orig, "agblklog"))
        bad = [b for b in bad if b not in skip]
    if bad:
        print("%d live blocks differ, first: %s" % (len(bad), bad[:10]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
