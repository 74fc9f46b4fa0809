#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Churn a mounted filesystem up to a target use: files of 4 KiB to
4 MiB written in many directories (the kernel spreads directories over
the AGs), a random part of them deleted and others written again, until
the filesystem is FILL percent used; some files reflinked, some with
xattrs, some appended to in turns.  Data ends up all over every AG, the
free space in pieces between it.
Usage: churn.py MOUNTPOINT SEED FILL
"""
import fcntl
import os
import random
import sys

FICLONE = 0x40049409


def used(root):
    st = os.statvfs(root)
    return 1.0 - st.f_bfree / st.f_blocks


def main():
    root, seed, fill = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    rng = random.Random(seed)
    dirs = []
    for i in range(64):
        d = os.path.join(root, "d%02d" % i)
        os.mkdir(d)
        dirs.append(d)
    files = []
    n = 0
    block = bytes(rng.getrandbits(8) for _ in range(4096))
    while True:
        for _ in range(200):
            p = os.path.join(rng.choice(dirs), "f%06d" % n)
            n += 1
            size = int(4096 * 2 ** rng.uniform(0, 10))
            with open(p, "wb") as f:
                left = size
                while left > 0:
                    f.write(block[:min(left, 4096)])
                    left -= 4096
            if rng.random() < 0.05:
                os.setxattr(p, "user.x", os.urandom(rng.randint(1, 3000)))
            files.append(p)
        # churn: delete a third of a random sample
        for p in rng.sample(files, len(files) // 6):
            os.unlink(p)
            files.remove(p)
        # a few reflinked copies
        for p in rng.sample(files, min(3, len(files))):
            q = p + ".r"
            if os.path.exists(q):
                continue
            with open(p, "rb") as a, open(q, "wb") as b:
                try:
                    fcntl.ioctl(b.fileno(), FICLONE, a.fileno())
                except OSError:
                    pass
        if used(root) >= fill / 100.0:
            break
    # interleaved appenders: files in many extents
    fds = [os.open(os.path.join(rng.choice(dirs), "app%d" % i),
                   os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o644)
           for i in range(4)]
    for _ in range(300):
        for fd in fds:
            os.write(fd, block)
            os.fsync(fd)
    for fd in fds:
        os.close(fd)
    print("%d files, %.1f%% used" % (len(files), used(root) * 100))


if __name__ == "__main__":
    main()
