#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Crash images from a pctrace log (the power-cut model).

A log (tests/powercut/pctrace.c) lists, in the order they were issued,
the writes to each watched file, their truncations, their fsync
barriers, fsyncs of the directory holding a file, and unlinks.  A power
cut after the first k events leaves, for each file:

  - every write and truncation issued before the file's last completed
    fsync;
  - a random subset, applied in random order, of the writes and
    truncations after it (so of two writes to the same place either may
    win);
  - a file created in this log exists only if a fsync of its directory
    completed, or by chance if not; one unlinked without a directory
    fsync after it may still be there.

crash(log, k, rng, bases, outs) writes the files of one crash image.
"""
import os
import struct
import subprocess

REC = struct.Struct("<cBxxIQ")


class Event:
    __slots__ = ("kind", "fid", "length", "off", "data_at")

    def __init__(self, kind, fid, length, off, data_at):
        self.kind, self.fid = kind, fid
        self.length, self.off, self.data_at = length, off, data_at


def parse(path):
    """The events of a log, in order."""
    out = []
    with open(path, "rb") as f:
        pos = 0
        while True:
            h = f.read(REC.size)
            if len(h) < REC.size:
                break
            kind, fid, length, off = REC.unpack(h)
            pos += REC.size
            ev = Event(kind.decode(), fid, length, off, pos)
            if ev.kind == "W":
                f.seek(length, 1)
                pos += length
            out.append(ev)
    return out


def barriers(events):
    """Indices just after each completed fsync (of a file or directory)."""
    return [i + 1 for i, e in enumerate(events) if e.kind in "SD"]


def plan(events, k, rng, fid, existed):
    """What file fid holds after a cut at k: (exists, writes to apply)."""
    head = [(i, e) for i, e in enumerate(events[:k]) if e.fid == fid]
    syncs = [i for i, e in head if e.kind == "S"]
    last = syncs[-1] if syncs else -1
    writes = [(i, e) for i, e in head if e.kind in "WT"]
    durable = [e for i, e in writes if i < last]
    pending = [e for i, e in writes if i > last]
    chosen = rng.sample(pending, rng.randint(0, len(pending)))
    # the name: created (first write) or unlinked, made durable by a
    # directory fsync after it, or by chance
    exists = existed
    named = existed
    for i, e in head:
        if e.kind == "W" and not exists:
            exists, named = True, False
        elif e.kind == "D":
            named = True
        elif e.kind == "U":
            exists, named = False, False
    if exists and not named:
        exists = rng.random() < 0.5
    elif not exists and not named and any(e.kind == "U" for _, e in head):
        exists = rng.random() < 0.5	# the unlink may not have made it
    if not exists:
        return False, []
    return True, durable + chosen


def crash(log, events, k, rng, bases, outs):
    """Write the crash image after k events: file i starts as bases[i]
    (None: did not exist) and goes to outs[i] (absent if it does not
    exist after the cut).  Returns per file (exists, writes applied)."""
    result = []
    with open(log, "rb") as lf:
        for fid, (base, out) in enumerate(zip(bases, outs)):
            if os.path.exists(out):
                os.unlink(out)
            exists, ws = plan(events, k, rng, fid, base is not None)
            result.append((exists, len(ws)))
            if not exists:
                continue
            if base is not None:
                subprocess.run(["cp", "--sparse=always", base, out],
                               check=True)
            else:
                open(out, "wb").close()
            fd = os.open(out, os.O_RDWR)
            try:
                for e in ws:
                    if e.kind == "T":
                        os.ftruncate(fd, e.off)
                        continue
                    lf.seek(e.data_at)
                    os.pwrite(fd, lf.read(e.length), e.off)
            finally:
                os.close(fd)
    return result

