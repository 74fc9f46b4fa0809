#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The tables of bench/readers.sh from its figures (NAME/readers.txt):
each reader's disk-busy seconds per image side by side, with the ratio to
the fresh copy, then every figure of every run.

Input lines: "NAME IMAGE READER busy_s requests seeks hits bytes_read
bytes_written wall_s", and "NAME IMAGE bytes N" (the file bytes of the
tree).  Usage: readers_table.py FILE...
"""
import sys

XFER = 150e6


def main():
    rows = []
    fbytes = {}
    for path in sys.argv[1:]:
        for line in open(path):
            f = line.split()
            if len(f) == 4 and f[2] == "bytes":
                fbytes[(f[0], f[1])] = int(f[3])
            elif len(f) == 10:
                rows.append((f[0], f[1], f[2], float(f[3]), int(f[4]),
                             int(f[5]), int(f[6]), int(f[7]), int(f[8]),
                             float(f[9])))
    names = list(dict.fromkeys(r[0] for r in rows))
    for name in names:
        mine = [r for r in rows if r[0] == name]
        imgs = list(dict.fromkeys(r[1] for r in mine))
        readers = list(dict.fromkeys(r[2] for r in mine))
        busy = {(r[1], r[2]): r[3] for r in mine}
        print("%s: disk-busy seconds (x the fresh copy)" % name)
        print("%-9s" % "reader" + "".join("%17s" % i for i in imgs))
        for rd in readers:
            cells = []
            for i in imgs:
                b = busy.get((i, rd))
                fr = busy.get(("fresh", rd))
                if b is None:
                    cells.append("%17s" % "-")
                elif fr:
                    cells.append("%9.2f (%5.2f)" % (b, b / fr))
                else:
                    cells.append("%17.2f" % b)
            print("%-9s" % rd + "".join(cells))
        line = "%-9s" % "bytes/150"
        for i in imgs:
            b = fbytes.get((name, i))
            line += "%17s" % ("%.2f" % (b / XFER) if b else "-")
        print(line + "   (transfer time of the file bytes: cat and tar's floor)")
        print()
        print("%-8s %-8s %9s %8s %7s %6s %9s %9s %7s" % (
            "image", "reader", "busy-s", "requests", "seeks", "hits",
            "MB-read", "MB-writ", "wall-s"))
        for r in mine:
            print("%-8s %-8s %9.3f %8d %7d %6d %9.1f %9.1f %7.2f" % (
                r[1], r[2], r[3], r[4], r[5], r[6], r[7] / 1e6, r[8] / 1e6,
                r[9]))
        print()


if __name__ == "__main__":
    main()
