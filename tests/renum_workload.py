#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The tree a renumbering run must carry over intact, made by the kernel
on a mounted filesystem: directories in every format (shortform, block,
leaf, node, and a fragmented one whose extent list is a bmap btree),
created interleaved so their inodes spread over many chunks; hard links
with several parents in different directories; local and remote
symlinks; local and remote xattrs (on files and on directories);
reflinked, sparse and unwritten (fallocated) files; files deleted so
chunks have free slots.  Usage: renum_workload.py MOUNTPOINT SEED
"""
import ctypes
import errno
import fcntl
import os
import random
import sys

FICLONE = 0x40049409


def falloc(fd, off, length):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong,
                               ctypes.c_longlong]
    if libc.fallocate(fd, 0, off, length) != 0:
        e = ctypes.get_errno()
        if e not in (errno.EOPNOTSUPP, errno.ENOSPC):
            raise OSError(e, os.strerror(e))


def write(path, rng, n):
    pat = bytes(rng.getrandbits(8) for _ in range(64))
    with open(path, "wb") as f:
        f.write((pat * (n // 64 + 1))[:n])


def main():
    root, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    # early: a directory in root's chunk whose children come late
    early = os.path.join(root, "early")
    os.mkdir(early)
    sizes = {"sf": 4, "block": 40, "leaf": 400, "node": 3000}
    dirs = {}
    for k in sizes:
        dirs[k] = os.path.join(root, "d_" + k)
        os.mkdir(dirs[k])
    bt = os.path.join(root, "d_btree")
    os.mkdir(bt)
    other = os.path.join(root, "d_other")
    os.mkdir(other)
    # interleave entry creation so inodes of each dir spread over chunks
    made = {k: 0 for k in sizes}
    i = 0
    while any(made[k] < sizes[k] for k in sizes):
        for k in sizes:
            if made[k] < sizes[k]:
                p = os.path.join(dirs[k], "entry-%s-%06d" % (k, made[k]))
                if made[k] % 7 == 0:
                    os.mkdir(p)
                else:
                    write(p, rng, rng.choice([0, 100, 5000]))
                made[k] += 1
        i += 1
    # the btree directory: long names grown in turns with another big
    # directory and a file that takes the blocks in between, so its
    # blocks are scattered into many extents
    filler = os.open(os.path.join(other, "filler"), os.O_WRONLY | os.O_CREAT)
    for j in range(6000):
        open(os.path.join(bt, "b" * 180 + "%06d" % j), "w").close()
        open(os.path.join(other, "o" * 180 + "%06d" % j), "w").close()
        if j % 20 == 0:
            os.write(filler, b"x" * 4096)
            os.fsync(filler)
    os.close(filler)
    for j in range(0, 6000, 3):	# free slots in the chunks
        os.unlink(os.path.join(other, "o" * 180 + "%06d" % j))
    # late children of the early directory; hard links in several dirs
    for j in range(30):
        write(os.path.join(early, "late%02d" % j), rng, 3000)
    hl = os.path.join(early, "late00")
    for j, d in enumerate([dirs["sf"], dirs["block"], dirs["leaf"],
                           dirs["node"], bt, root]):
        os.link(hl, os.path.join(d, "link%d" % j))
    os.link(os.path.join(dirs["block"], "entry-block-000001"),
            os.path.join(early, "link-from-block"))
    # symlinks: local and remote (targets longer than the literal area)
    os.symlink("short/target", os.path.join(early, "sym-local"))
    os.symlink("t/" * 300 + "end", os.path.join(early, "sym-remote"))
    os.symlink("u/" * 500 + "end", os.path.join(dirs["leaf"], "sym-remote2"))
    # xattrs local and remote, on a file and a directory
    for p in (os.path.join(early, "late01"), dirs["block"]):
        os.setxattr(p, "user.small", b"v" * 20)
        os.setxattr(p, "user.big", bytes(rng.getrandbits(8)
                                         for _ in range(6000)))
    p = os.path.join(early, "late02")
    for j in range(60):	# an attr leaf (many names)
        os.setxattr(p, "user.n%03d" % j, b"w" * 40)
    # reflinks, sparse and unwritten files
    src = os.path.join(early, "late03")
    write(src, rng, 256 << 10)
    dst = os.path.join(dirs["sf"], "clone")
    with open(src, "rb") as s, open(dst, "wb") as d:
        try:
            fcntl.ioctl(d.fileno(), FICLONE, s.fileno())
        except OSError:
            pass
    fd = os.open(os.path.join(early, "sparse"), os.O_WRONLY | os.O_CREAT)
    for j in range(8):
        os.pwrite(fd, b"s" * 4096, j * (1 << 20))
    os.close(fd)
    fd = os.open(os.path.join(early, "unwritten"), os.O_WRONLY | os.O_CREAT)
    falloc(fd, 0, 1 << 20)
    os.pwrite(fd, b"u" * 8192, 65536)
    os.close(fd)
    os.sync()


if __name__ == "__main__":
    main()
