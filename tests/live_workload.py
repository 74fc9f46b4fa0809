#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A random but seeded workload on a mounted filesystem, unlike the
fixtures': a deep tree made and renamed, files written sequentially, at
random offsets (sparse), by interleaved appenders with fsync, fallocated
(inside and beyond EOF), punched, reflinked and partly overwritten,
truncated, deleted; xattrs of random sizes; symlinks; hard links.
Usage: live_workload.py MOUNTPOINT SEED [SCALE]
"""
import errno
import fcntl
import os
import random
import struct
import subprocess
import sys

FALLOC_FL_KEEP_SIZE = 1
FALLOC_FL_PUNCH_HOLE = 2
FICLONE = 0x40049409


def falloc(fd, mode, off, length):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong,
                               ctypes.c_longlong]
    if libc.fallocate(fd, mode, off, length) != 0:
        e = ctypes.get_errno()
        if e not in (errno.EOPNOTSUPP, errno.ENOSPC):
            raise OSError(e, os.strerror(e))


def content(rng, n):
    pat = bytes(rng.getrandbits(8) for _ in range(32))
    return (pat * (n // 32 + 1))[:n]


def main():
    root, seed = sys.argv[1], int(sys.argv[2])
    scale = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    rng = random.Random(seed)
    dirs = [root]
    files = []
    for i in range(40 * scale):
        parent = rng.choice(dirs)
        d = os.path.join(parent, "d%d-%x" % (i, rng.getrandbits(16)))
        os.mkdir(d)
        dirs.append(d)
    # many files in a few directories: block/leaf/node directories
    for d in rng.sample(dirs, 3):
        for k in range(rng.choice([20, 300, 1500]) * scale):
            p = os.path.join(d, "e%05d" % k)
            with open(p, "wb") as f:
                if k % 3 == 0:
                    f.write(content(rng, rng.randint(1, 9000)))
            files.append(p)
    # interleaved appenders, synced: fragmented files
    app = [os.path.join(rng.choice(dirs), "app%d" % i) for i in range(6)]
    fds = [os.open(p, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o644) for p in app]
    for r in range(120 * scale):
        for fd in fds:
            os.write(fd, content(rng, rng.choice([512, 4096, 8192, 20000])))
            if rng.random() < 0.5:
                os.fsync(fd)
    for fd in fds:
        os.close(fd)
    files += app
    # sparse writes at random offsets
    for i in range(20 * scale):
        p = os.path.join(rng.choice(dirs), "sparse%d" % i)
        fd = os.open(p, os.O_CREAT | os.O_WRONLY, 0o644)
        for _ in range(rng.randint(1, 30)):
            os.pwrite(fd, content(rng, rng.randint(1, 16384)),
                      rng.randint(0, 4 << 20))
        if rng.random() < 0.3:
            falloc(fd, FALLOC_FL_KEEP_SIZE, rng.randint(0, 8 << 20), 1 << 20)
        if rng.random() < 0.3:
            falloc(fd, 0, rng.randint(0, 2 << 20), rng.randint(4096, 1 << 20))
        if rng.random() < 0.4:
            falloc(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                   rng.randint(0, 2 << 20), rng.randint(4096, 256 << 10))
        os.close(fd)
        files.append(p)
    # reflinks, partly overwritten
    for i in range(8 * scale):
        src = rng.choice(files)
        dst = src + ".clone%d" % i
        with open(src, "rb") as s, open(dst, "wb") as d:
            try:
                fcntl.ioctl(d.fileno(), FICLONE, s.fileno())
            except OSError:
                continue
        if os.path.getsize(dst) > 8192 and rng.random() < 0.7:
            with open(dst, "r+b") as d:
                d.seek(rng.randint(0, os.path.getsize(dst) - 4096))
                d.write(content(rng, 4096))
        files.append(dst)
    # xattrs, symlinks, hard links, renames, truncates, deletes
    for p in rng.sample(files, min(len(files), 60 * scale)):
        for k in range(rng.choice([1, 3, 40])):
            os.setxattr(p, "user.k%d" % k, content(rng, rng.choice(
                [8, 200, 3000, 65000 if k == 0 else 100])))
    for i in range(30 * scale):
        t = rng.choice(files)
        os.symlink(os.path.relpath(t, root) if rng.random() < 0.5 else
                   "x" * rng.randint(1, 900), os.path.join(rng.choice(dirs),
                                                           "sl%d" % i))
    for i in range(20 * scale):
        t = rng.choice(files)
        try:
            os.link(t, os.path.join(rng.choice(dirs), "hl%d" % i))
        except FileExistsError:
            pass
    for p in rng.sample(files, len(files) // 5):
        r = rng.random()
        if r < 0.5:
            os.unlink(p)
        elif r < 0.8 and os.path.exists(p):
            os.truncate(p, rng.randint(0, max(1, os.path.getsize(p))))
    for i in range(5 * scale):
        a = rng.choice(dirs[1:])
        b = a + "-moved"
        if os.path.exists(a) and not os.path.exists(b):
            os.rename(a, b)
            dirs = [b + x[len(a):] if x == a or x.startswith(a + "/") else x
                    for x in dirs]
    subprocess.run(["sync"])


if __name__ == "__main__":
    main()
