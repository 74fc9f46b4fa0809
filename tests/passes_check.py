#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers of t-passes.sh.

  figures REPORT.json          the figures a run in passes must share with a
                               single full run: xfs_db frag (actual, ideal,
                               factor), free space (extents, blocks, the
                               histogram), per AG free blocks, free extents,
                               longest free extent; one per line
  bmapdiff BEFORE AFTER        paths whose `bmap -v` map differs, one a line
  bmapcount BMAP               path TAB extents (holes excluded), one a line
  agdiff A B AGBLOCKS BS SKIP  per AG, the number of blocks that differ
                               between images A and B (AG SKIP is left out;
                               block 0 of AG 0, the superblock whose global
                               counters every pass rewrites, too)
"""
import json
import sys


def figures(path):
    d = json.load(open(path))
    f, s = d["fragmentation"], d["free_space"]
    print("frag", f["actual"], f["ideal"], f["factor_pct"])
    print("free", s["extents"], s["blocks"])
    for b in s["histogram"]:
        print("freehist", b["from"], b["to"], b["extents"], b["blocks"])
    for a in d["ags"]:
        print("ag", a["ag"], a["free_blocks"], a["free_extents"], a["longest_free"])


def parse_bmap(path):
    maps, cur = {}, None
    for line in open(path, errors="surrogateescape"):
        if not line.startswith(" ") and line.rstrip("\n").endswith(":"):
            cur = line.rstrip("\n")[:-1]
            maps[cur] = []
        elif cur is not None and not line.startswith(" EXT:"):
            maps[cur].append(line.rstrip("\n"))
    return maps


def bmapdiff(a, b):
    x, y = parse_bmap(a), parse_bmap(b)
    for p in sorted(set(x) | set(y)):
        if x.get(p) != y.get(p):
            print(p)


def bmapcount(a):
    for p, lines in sorted(parse_bmap(a).items()):
        print("%s\t%d" % (p, sum(1 for l in lines if "hole" not in l and l.strip())))


def agdiff(a, b, agblocks, bs, skip):
    agbytes = agblocks * bs
    with open(a, "rb") as fa, open(b, "rb") as fb:
        g = 0
        while True:
            x, y = fa.read(agbytes), fb.read(agbytes)
            if not x and not y:
                break
            n = 0
            if g != skip:
                for i in range(0, max(len(x), len(y)), bs):
                    if g == 0 and i == 0:
                        continue
                    if x[i:i + bs] != y[i:i + bs]:
                        n += 1
            print(g, n)
            g += 1


def main():
    cmd = sys.argv[1]
    if cmd == "figures":
        figures(sys.argv[2])
    elif cmd == "bmapdiff":
        bmapdiff(sys.argv[2], sys.argv[3])
    elif cmd == "bmapcount":
        bmapcount(sys.argv[2])
    elif cmd == "agdiff":
        agdiff(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]),
               int(sys.argv[6]))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
