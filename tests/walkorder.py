#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Does a walk of a mounted XFS tree read its data front to back per AG?

Walks MOUNT as find does (depth first, each directory before its entries,
entries in the kernel's readdir order, or sorted by name with --name),
takes every directory's and regular file's block map from the kernel
(XFS_IOC_GETBMAPX, as xfs_bmap), and counts the reads that go back on the
disk: a directory or file extent starting before the end of the previous
one read in the same AG.  A hard-linked file counts at its first link;
unwritten extents and holes read nothing; files with shared (reflinked)
extents are left out, as they cannot follow every owner.

Usage: walkorder.py MOUNT AGBYTES [--name]
Prints "reads N descents D" and the first descents; exit 0.
"""
import fcntl
import os
import stat
import struct
import sys

GETBMAPX = 0xC0205838		# _IOWR('X', 56, struct getbmap)
BMV_IF_PREALLOC = 0x4
BMV_OF_PREALLOC = 0x1		# unwritten
BMV_OF_SHARED = 0x8
REC = struct.Struct("=qqqiiiiii")	# struct getbmapx: 48 bytes
NREC = 512


def bmap(path):
    """[(daddr, sectors, oflags)] of the data fork, holes left out."""
    out = []
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        off = 0
        while True:
            buf = bytearray(REC.size * (NREC + 1))
            REC.pack_into(buf, 0, off, 0, -1, NREC + 1, 0,
                          BMV_IF_PREALLOC, 0, 0, 0)
            fcntl.ioctl(fd, GETBMAPX, buf)
            n = REC.unpack_from(buf, 0)[4]
            last = None
            for i in range(1, n + 1):
                o, blk, ln, _, _, _, of, _, _ = REC.unpack_from(buf, REC.size * i)
                last = o + ln
                if blk >= 0:
                    out.append((blk, ln, of))
            if n < NREC or last is None:
                return out
            off = last
    finally:
        os.close(fd)


def main():
    root = os.fsencode(sys.argv[1])
    agbytes = int(sys.argv[2])
    by_name = "--name" in sys.argv[3:]
    seen = set()
    last = {}
    reads = descents = 0
    shown = []

    def read(path):
        nonlocal reads, descents
        ext = bmap(path)
        if any(of & BMV_OF_SHARED for _, _, of in ext):
            return
        for blk, ln, of in ext:
            if of & BMV_OF_PREALLOC:
                continue
            start = blk * 512
            ag = start // agbytes
            reads += 1
            if start < last.get(ag, 0):
                descents += 1
                if len(shown) < 10:
                    shown.append("%s: daddr %d back from %d (AG %d)" %
                                 (os.fsdecode(path), blk,
                                  last[ag] // 512, ag))
            last[ag] = start + ln * 512

    def walk(d):
        read(d)
        with os.scandir(d) as it:
            ents = list(it)
        if by_name:
            ents.sort(key=lambda e: e.name)
        for e in ents:
            st = e.stat(follow_symlinks=False)
            if st.st_ino in seen:
                continue
            seen.add(st.st_ino)
            if stat.S_ISDIR(st.st_mode):
                walk(e.path)
            elif stat.S_ISREG(st.st_mode):
                read(e.path)

    seen.add(os.stat(root).st_ino)
    walk(root)
    print("reads %d descents %d" % (reads, descents))
    for s in shown:
        print("  " + s)


if __name__ == "__main__":
    main()
