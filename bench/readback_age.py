#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Age a mounted filesystem with small files in deep trees.

Rounds of churn: create files (mostly a few KiB, some up to half a MiB)
and directories at random places of a growing tree, fsync some of them so
allocations interleave as they do under real use, then delete about a
third of the files and now and then a whole subtree, and append to a few
survivors so they grow into other free space.  Stops adding once the
filesystem is FILL full.  Deterministic for a seed with one writer.

WRITERS (default 1) processes churn at once, each in a tree of its own
(MOUNTPOINT/wN, seeded SEED*1000+N), so that their allocations interleave
in time as several users' do; the layout then also depends on how the
scheduler interleaves them.

Usage: readback_age.py MOUNTPOINT [SEED] [ROUNDS] [FILL] [WRITERS]
"""
import os
import random
import shutil
import sys


def used(root):
    st = os.statvfs(root)
    return 1 - st.f_bavail / st.f_blocks


def size_of(rng):
    r = rng.random()
    if r < 0.70:
        return rng.randrange(256, 8192)
    if r < 0.95:
        return rng.randrange(8192, 65536)
    return rng.randrange(65536, 512 * 1024)


def churn(fs, root, seed, rounds, fill):
    """One writer's rounds in the tree at root (on the filesystem at fs);
    returns (directories, files) left."""
    rng = random.Random(seed)
    dirs = [root]
    files = []
    serial = 0
    for rnd in range(rounds):
        # grow: new directories (deep: a parent picked from the newest
        # ones half the time) and files anywhere
        target = fill * (0.55 + 0.45 * (rnd + 1) / rounds)
        made = 0
        while used(fs) < target and made < 40000:
            if rng.random() < 0.08 or len(dirs) < 4:
                parent = dirs[-rng.randrange(1, min(len(dirs), 8) + 1)] \
                    if rng.random() < 0.5 else rng.choice(dirs)
                if parent.count("/") - root.count("/") < 9:
                    d = os.path.join(parent, "d%d.%d" % (rnd, serial))
                    serial += 1
                    os.mkdir(d)
                    dirs.append(d)
                continue
            d = rng.choice(dirs)
            p = os.path.join(d, "f%d.%d" % (rnd, serial))
            serial += 1
            n = size_of(rng)
            with open(p, "wb") as fh:
                fh.write(rng.randbytes(n))
                if rng.random() < 0.1:
                    fh.flush()
                    os.fsync(fh.fileno())
            files.append(p)
            made += 1
        if rnd == rounds - 1:
            break
        # churn: delete a third of the files, sometimes a subtree
        rng.shuffle(files)
        keep = len(files) * 2 // 3
        for p in files[keep:]:
            try:
                os.unlink(p)
            except FileNotFoundError:
                pass
        files = files[:keep]
        for _ in range(2):
            if len(dirs) > 20:
                d = rng.choice(dirs[1:])
                shutil.rmtree(d, ignore_errors=True)
                dirs = [x for x in dirs if x != d and
                        not x.startswith(d + "/")]
                files = [x for x in files if not x.startswith(d + "/")]
        # growth: append to some survivors
        for p in rng.sample(files, min(len(files), len(files) // 10)):
            with open(p, "ab") as fh:
                fh.write(rng.randbytes(rng.randrange(1024, 32768)))
        os.sync()
    return len(dirs), len(files)


def main():
    root = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    fill = float(sys.argv[4]) if len(sys.argv) > 4 else 0.6
    writers = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    if writers == 1:
        nd, nf = churn(root, root, seed, rounds, fill)
    else:
        pids = []
        for w in range(writers):
            top = os.path.join(root, "w%d" % w)
            os.mkdir(top)
            pid = os.fork()
            if pid == 0:
                try:
                    nd, nf = churn(root, top, seed * 1000 + w, rounds, fill)
                    with open(os.path.join(root, ".w%d" % w), "w") as fh:
                        fh.write("%d %d\n" % (nd, nf))
                    os._exit(0)
                except BaseException:
                    import traceback
                    traceback.print_exc()
                    os._exit(1)
            pids.append(pid)
        bad = [p for p in pids if os.waitpid(p, 0)[1] != 0]
        if bad:
            sys.exit("readback_age.py: %d writers failed" % len(bad))
        nd = nf = 0
        for w in range(writers):
            p = os.path.join(root, ".w%d" % w)
            with open(p) as fh:
                d, f = map(int, fh.read().split())
            os.unlink(p)
            nd, nf = nd + d, nf + f
    os.sync()
    print("%d directories, %d files, %.0f%% used" %
          (nd, nf, 100 * used(root)))


if __name__ == "__main__":
    main()
