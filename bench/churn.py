#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Churn a mounted filesystem with several writers at once.

WRITERS processes share one tree.  Each, in rounds, creates files of
mostly a few KiB (some up to 2 MiB) in directories of its own and of
the others, appends to files it made earlier (fsync'd now and then, so
its allocations interleave with the other writers'), and deletes about a
quarter of what it made.  Every writer is seeded (SEED + its number), so
a run is repeatable up to the kernel's interleaving.  Writers stop
growing the tree once the filesystem is FILL full, and keep churning
until ROUNDS are done.  Reflinked copies are made at the end (when the
filesystem supports them), one of them partly overwritten.

With --use PCT instead (the shrink tests, bench/shrink.sh): one writer
grows and churns the tree until the filesystem is PCT percent used:
files of 4 KiB to 4 MiB written in 64 directories (the kernel spreads
directories over the AGs), a sixth of them deleted each round and
others written again, some reflinked, some with xattrs; then four files
appended to in turns (files in many extents).  Data ends up all over
every AG, the free space in pieces between it.

Usage: churn.py MOUNTPOINT [SEED] [WRITERS] [ROUNDS] [FILL]
       churn.py --use PCT MOUNTPOINT [SEED]
"""
import errno
import fcntl
import multiprocessing
import os
import random
import sys

FICLONE = 0x40049409


def used(root):
    st = os.statvfs(root)
    return 1 - st.f_bavail / st.f_blocks


def size_of(rng):
    r = rng.random()
    if r < 0.65:
        return rng.randrange(200, 8192)
    if r < 0.93:
        return rng.randrange(8192, 128 * 1024)
    return rng.randrange(128 * 1024, 2 << 20)


def payload(rng, n):
    pat = bytes(rng.getrandbits(8) for _ in range(64))
    return (pat * (n // 64 + 1))[:n]


def writer(root, seed, wid, nwriters, rounds, fill):
    rng = random.Random(seed * 1000 + wid)
    mine = []
    dirs = [os.path.join(root, "w%d" % wid)]
    os.makedirs(dirs[0], exist_ok=True)
    serial = 0
    for rnd in range(rounds):
        # grow: new directories, files in them and in the others' trees
        for _ in range(rng.randrange(150, 400)):
            if used(root) > fill:
                break
            if rng.random() < 0.06:
                d = os.path.join(rng.choice(dirs), "d%d-%d" % (rnd, serial))
                serial += 1
                os.mkdir(d)
                dirs.append(d)
                continue
            if rng.random() < 0.2:
                other = os.path.join(root, "w%d" % rng.randrange(nwriters))
                d = other if os.path.isdir(other) else rng.choice(dirs)
            else:
                d = rng.choice(dirs)
            p = os.path.join(d, "f%d-%d-%d" % (wid, rnd, serial))
            serial += 1
            try:
                with open(p, "wb") as f:
                    f.write(payload(rng, size_of(rng)))
                    if rng.random() < 0.3:
                        os.fsync(f.fileno())
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
                break
            mine.append(p)
        # append to some survivors, a piece at a time, synced
        for p in rng.sample(mine, min(len(mine), rng.randrange(5, 30))):
            try:
                with open(p, "ab") as f:
                    for _ in range(rng.randrange(1, 6)):
                        f.write(payload(rng, rng.randrange(4096, 65536)))
                        f.flush()
                        os.fsync(f.fileno())
            except OSError as e:
                if e.errno not in (errno.ENOSPC, errno.ENOENT):
                    raise
        # delete about a quarter
        rng.shuffle(mine)
        cut = len(mine) // 4
        for p in mine[:cut]:
            try:
                os.unlink(p)
            except FileNotFoundError:
                pass
        mine = mine[cut:]


def used_free(root):
    """Use as --use counts it: blocks not free (reserved ones count)."""
    st = os.statvfs(root)
    return 1.0 - st.f_bfree / st.f_blocks


def to_use(root, seed, fill):
    """--use: one writer until fill percent is used."""
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
        # churn: delete a sixth of them
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
        if used_free(root) >= fill / 100.0:
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
    print("%d files, %.1f%% used" % (len(files), used_free(root) * 100))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--use":
        if len(sys.argv) < 4:
            sys.exit("usage: churn.py --use PCT MOUNTPOINT [SEED]")
        to_use(sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 1,
               float(sys.argv[2]))
        return
    root = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    nw = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 12
    fill = float(sys.argv[5]) if len(sys.argv) > 5 else 0.7
    procs = [multiprocessing.Process(target=writer,
                                     args=(root, seed, w, nw, rounds, fill))
             for w in range(nw)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
        if p.exitcode:
            sys.exit("writer failed: exit %d" % p.exitcode)
    # reflinked copies of a few larger files, one partly overwritten
    rng = random.Random(seed)
    big = []
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            if os.path.getsize(p) > 256 * 1024:
                big.append(p)
    big.sort()
    for i, p in enumerate(rng.sample(big, min(len(big), 6))):
        q = p + ".clone"
        with open(p, "rb") as s, open(q, "wb") as t:
            try:
                fcntl.ioctl(t.fileno(), FICLONE, s.fileno())
            except OSError as e:
                if e.errno in (errno.EOPNOTSUPP, errno.EXDEV, errno.EINVAL):
                    break
                raise
        if i == 0:
            with open(q, "r+b") as t:
                t.seek(os.path.getsize(q) // 3)
                t.write(payload(rng, 64 * 1024))
                os.fsync(t.fileno())


if __name__ == "__main__":
    main()
