#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Undo of a run in passes (a chain of undo files: FILE, FILE.2, ...),
damaged, killed and cut by power, on fixture images (F0).  A chain A is
made by `run --passes --undo A F1`; a second run of the same filesystem
(`--order name`) makes chain B, whose files are "of another run".

Modes:
  damage    each file of A in turn deleted, cut short (to its header, to
            half, inside its last record), swapped with the next, the
            next three rotated, a byte flipped in its header, in a
            record, in its seal or in its link record, or replaced by
            B's file of that pass; then `undo A`.  Each must end restored
            (every block in use in F0 identical: debug-compare) or
            refused with the image's bytes unchanged (a digest before
            and after: imgsum.py).  A refusal that offers `undo
            --to-pass N` is taken up: that must restore F1 as pass N left
            it (its files' own check) and then nothing more.
  kill      `undo A` killed (SIGKILL, tests/powercut/pctrace.c
            PCTRACE_KILL) after a random number of its image writes;
            some of those undos killed again while they finish; some with
            --to-pass.  The killed image must have NEEDSREPAIR set
            unless it is as before the undo or as after it; a later
            `undo A` must finish it: identical in-use blocks, xfs_repair
            -n clean.
  powercut  `undo A` traced (every write and fsync of the image and the
            files), crash images made from the trace (crashimg.py:
            unsynced writes dropped or reordered), each checked as for
            kill; some crash images undone again under the trace and cut
            again (a second power cut during the undo).  Also `run
            --passes` itself cut by power: a later `undo A` restores F0.

Usage: chaincamp.py --bin XFSDEFRAG --shim PCTRACE.so --tmp DIR
                    [--fixtures a,b] [--modes damage,kill,powercut]
                    [--per N] [--damage-per N] [--seed S]
                    [--repair-every M] [--keep DIR]
Prints a line per fixture and mode, the counts by kind, and the totals;
exit 1 on any failure.
"""
import argparse
import os
import random
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, TESTS)
import crashimg  # noqa: E402
import imgsum  # noqa: E402

REC = 40
HDR = 4096
NEEDSREPAIR = 1 << 4


def run(cmd, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def cp(src, dst):
    if os.path.exists(dst):
        os.unlink(dst)
    subprocess.run(["cp", "--sparse=always", src, dst], check=True)


def needsrepair(img):
    with open(img, "rb") as f:
        sb = f.read(512)
    if len(sb) < 512 or sb[:4] != b"XFSB":
        return True         # unreadable: no kernel mounts it either
    return bool(struct.unpack(">I", sb[216:220])[0] & NEEDSREPAIR)


def records(path):
    """(position, magic, data length) of each record, by their lengths."""
    out = []
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        pos = HDR
        while pos + REC <= size:
            f.seek(pos)
            h = f.read(REC)
            magic = h[:4].decode("latin1")
            n = struct.unpack(">I", h[4:8])[0]
            out.append((pos, magic, n))
            pos += REC + n
    return out


def flip(path, pos):
    with open(path, "r+b") as f:
        f.seek(pos)
        b = f.read(1)
        f.seek(pos)
        f.write(bytes([b[0] ^ 0x55]))


class Chain:
    """A chain's files in a directory: names and copies."""

    def __init__(self, d, n):
        self.d, self.n = d, n

    def name(self, k, d=None):
        base = os.path.join(d or self.d, "u")
        return base if k == 1 else "%s.%d" % (base, k)

    def copy_to(self, d):
        os.makedirs(d, exist_ok=True)
        for k in range(1, self.n + 1):
            shutil.copyfile(self.name(k), self.name(k, d))
        return Chain(d, self.n)


class Camp:
    def __init__(self, a):
        self.a = a
        self.tmp = os.path.abspath(a.tmp)
        self.bin = os.path.join(self.tmp, "xfsdefrag")
        shutil.copy2(os.path.abspath(a.bin), self.bin)
        # the test binary: debug-compare (tests/aids)
        self.tbin = os.path.join(self.tmp, "xfsdefrag-test")
        shutil.copy2(os.path.abspath(a.test_bin), self.tbin)
        self.shim = os.path.join(self.tmp, "pctrace.so")
        if a.shim:
            shutil.copy2(os.path.abspath(a.shim), self.shim)
        self.rng = random.Random(a.seed)
        self.counts = {}
        self.failed = 0
        self.repairs = 0

    def path(self, *p):
        return os.path.join(self.tmp, *p)

    def count(self, mode, kind, outcome):
        key = (mode, kind, outcome)
        self.counts[key] = self.counts.get(key, 0) + 1

    def fail(self, what, keep=None):
        self.failed += 1
        print("FAIL " + what)
        if self.a.keep and keep:
            dst = os.path.join(self.a.keep, "case%d" % self.failed)
            shutil.copytree(keep, dst, dirs_exist_ok=True)

    def restored(self, f0, img, repair=True):
        """None if img holds every block in use in f0 as f0 does, and
        xfs_repair -n accepts it; else why not."""
        r = run([self.tbin, "debug-compare", f0, img])
        if r.returncode:
            return "not restored: " + (r.stdout or r.stderr).strip()[:300]
        if needsrepair(img):
            return "restored but NEEDSREPAIR still set"
        if repair:
            self.repairs += 1
            r = run(["xfs_repair", "-n", img])
            if r.returncode:
                return "xfs_repair -n exit %d" % r.returncode
        return None

    def undo(self, ch, img, extra=(), env=None):
        return run([self.bin, "undo"] + list(extra) + [ch.name(1), img],
                   env=env)

    # ---- the chains
    def make(self, fx):
        fdir = os.path.join(TESTS, "fixtures", fx)
        f0 = self.path(fx + ".f0")
        if run(["zstd", "-dq", "--sparse", "-f", "-o", f0,
                os.path.join(fdir, "image.zst")]).returncode:
            print("SKIP %s: no fixture image" % fx)
            return None
        chains = {}
        for tag, opts in (("A", []), ("B", ["--order", "name"])):
            d = self.path(fx + "." + tag)
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            img = self.path(fx + ".f1" + tag)
            cp(f0, img)
            r = run([self.bin, "run", "--passes"] + opts +
                    ["--undo", os.path.join(d, "u"), img])
            n = 1
            while os.path.exists(os.path.join(d, "u.%d" % (n + 1))):
                n += 1
            if r.returncode or not os.path.exists(os.path.join(d, "u")):
                print("FAIL %s: run --passes %s: exit %d: %s" %
                      (fx, tag, r.returncode, r.stderr[-300:]))
                self.failed += 1
                return None
            chains[tag] = (Chain(d, n), img)
        return f0, chains

    # ---- damage
    def damages(self, ch, other):
        """(kind, pass, function(dir)) for every damage of every file."""
        out = []
        for k in range(1, ch.n + 1):
            def dele(d, k=k):
                os.unlink(ch.name(k, d))

            def cut(d, k=k, how="header"):
                p = ch.name(k, d)
                size = os.path.getsize(p)
                recs = records(p)
                ends = [r for r in recs if r[1] == "UEND"]
                at = {"header": HDR, "half": size // 2,
                      "last": recs[-1][0] + REC // 2 if recs else size - 1,
                      "end": ends[0][0] + REC // 2 if ends else size - 1,
                      }[how]
                os.truncate(p, at)

            def swap(d, k=k):
                a, b = ch.name(k, d), ch.name(k + 1, d)
                t = a + ".t"
                os.rename(a, t)
                os.rename(b, a)
                os.rename(t, b)

            def rotate(d, k=k):
                a, b, c = (ch.name(k + i, d) for i in range(3))
                t = a + ".t"
                os.rename(a, t)
                os.rename(c, a)
                os.rename(b, c)
                os.rename(t, b)

            def flip_in(d, k=k, where="header"):
                p = ch.name(k, d)
                recs = records(p)
                if where == "header":
                    pos = self.rng.randrange(0, HDR)
                elif where == "record":
                    data = [r for r in recs if r[1] == "UREC"]
                    r = self.rng.choice(data)
                    pos = r[0] + self.rng.randrange(0, REC + r[2])
                elif where == "seal":
                    r = [r for r in recs if r[1] == "USEA"][0]
                    pos = r[0] + self.rng.randrange(0, REC + r[2])
                else:           # the link record
                    r = [r for r in recs if r[1] == "UNXT"][0]
                    pos = r[0] + self.rng.randrange(0, REC + r[2])
                flip(p, pos)

            def foreign(d, k=k):
                shutil.copyfile(other.name(k), ch.name(k, d))

            out.append(("delete", k, dele))
            for how in ("header", "half", "last", "end"):
                out.append(("cut-" + how, k,
                            lambda d, k=k, how=how: cut(d, k, how)))
            if k < ch.n:
                out.append(("swap", k, swap))
            if k + 2 <= ch.n:
                out.append(("rotate", k, rotate))
            for where in ("header", "record", "seal") + \
                    (("link",) if k < ch.n else ()):
                out.append(("flip-" + where, k,
                            lambda d, k=k, w=where: flip_in(d, k, w)))
            if k <= other.n:
                out.append(("foreign", k, foreign))
        return out

    def damage(self, fx, f0, ch, f1, other):
        cases = self.damages(ch, other)
        self.rng.shuffle(cases)
        if self.a.damage_per:
            cases = cases[:self.a.damage_per]
        d0 = self.path("dmg")
        before = imgsum.digest(f1)
        good = 0
        for kind, k, fn in cases:
            shutil.rmtree(d0, ignore_errors=True)
            c = ch.copy_to(d0)
            img = os.path.join(d0, "img")
            cp(f1, img)
            fn(d0)
            r = self.undo(c, img)
            what = "%s %s pass %d" % (fx, kind, k)
            if r.returncode == 0:
                why = self.restored(f0, img, self.want_repair())
                if why:
                    self.fail("%s: undo exit 0 but %s" % (what, why), d0)
                    continue
                self.count("damage", kind, "restored")
                good += 1
                continue
            if imgsum.digest(img) != before:
                self.fail("%s: refused (exit %d) but the image changed: %s"
                          % (what, r.returncode, r.stderr[:300]), d0)
                continue
            self.count("damage", kind, "refused")
            good += 1
            # the offered --to-pass N, if any, must work
            off = [ln for ln in r.stderr.splitlines() if "--to-pass" in ln]
            if not off:
                continue
            n = int(off[0].split("--to-pass ")[1].split()[0])
            r2 = self.undo(c, img, ["--to-pass", str(n)])
            if r2.returncode:
                self.fail("%s: the offered --to-pass %d fails: %s" %
                          (what, n, r2.stderr[:300]), d0)
                continue
            if needsrepair(img) or run(["xfs_repair", "-n", img]).returncode:
                self.fail("%s: after --to-pass %d the image is not whole" %
                          (what, n), d0)
                continue
            self.count("damage", kind, "tail undone")
        print("%-16s damage   %3d cases: %d restored or refused unchanged" %
              (fx, len(cases), good))

    def want_repair(self):
        e = self.a.repair_every
        self.tick = getattr(self, "tick", 0) + 1
        return e <= 1 or self.tick % e == 0

    # ---- kill and power cut: the state after a crash, then recovery
    def check_crash(self, what, f0, f1sum, img, ch, stage):
        """The crashed image: NEEDSREPAIR unless as before or after the
        undo (f1sum: the digests of the images it may start from); then
        undo finishes it.  True if good."""
        if not needsrepair(img):
            if imgsum.digest(img) not in f1sum and \
               run([self.tbin, "debug-compare", f0, img]).returncode:
                self.fail("%s: NEEDSREPAIR clear in an intermediate state"
                          % what, os.path.dirname(img))
                return False
        r = self.undo(ch, img)
        if r.returncode:
            self.fail("%s: the undo after the %s exits %d: %s" %
                      (what, stage, r.returncode, r.stderr[:300]),
                      os.path.dirname(img))
            return False
        why = self.restored(f0, img, self.want_repair())
        if why:
            self.fail("%s: after the %s and undo: %s" % (what, stage, why),
                      os.path.dirname(img))
            return False
        return True

    def undo_writes(self, ch, f1, extra=()):
        """Image writes of a whole undo of ch on a copy of f1."""
        d = self.path("count")
        shutil.rmtree(d, ignore_errors=True)
        c = ch.copy_to(d)
        img = os.path.join(d, "img")
        cp(f1, img)
        log = os.path.join(d, "trace")
        env = dict(os.environ, LD_PRELOAD=self.shim, PCTRACE_OUT=log,
                   PCTRACE_WATCH=img)
        self.undo(c, img, extra, env)
        return sum(1 for e in crashimg.parse(log) if e.kind == "W")

    def kill(self, fx, f0, ch, f1):
        f1sum = imgsum.digest(f1)
        nws = {(): self.undo_writes(ch, f1)}
        d = self.path("kill")
        good = 0
        for i in range(self.a.per):
            shutil.rmtree(d, ignore_errors=True)
            c = ch.copy_to(d)
            img = os.path.join(d, "img")
            cp(f1, img)
            kind = "kill"
            extra = ()
            if i % 7 == 5 and ch.n > 1:
                extra = ("--to-pass", str(self.rng.randint(1, ch.n - 1)))
                kind = "kill --to-pass"
                if extra not in nws:
                    nws[extra] = self.undo_writes(ch, f1, extra)
            nw = nws[extra]
            k = [1, 2, nw][i] if i < 3 else self.rng.randint(1, nw)
            env = dict(os.environ, LD_PRELOAD=self.shim, PCTRACE_WATCH=img,
                       PCTRACE_KILL=str(k))
            r = self.undo(c, img, extra, env)
            what = "%s %s after write %d of %d" % (fx, " ".join(
                (kind,) + extra[1:]), k, nw)
            if r.returncode not in (-9, 137):
                self.fail("%s: undo not killed (exit %d: %s)" %
                          (what, r.returncode, r.stderr[:200]), d)
                continue
            if extra:
                # NEEDSREPAIR until the last write; finish, undo the rest
                if not needsrepair(img) and k < nw and \
                   imgsum.digest(img) != f1sum:
                    self.fail("%s: NEEDSREPAIR clear in an intermediate "
                              "state" % what, d)
                    continue
                r = self.undo(c, img, extra)
                if r.returncode or needsrepair(img) or \
                   run(["xfs_repair", "-n", img]).returncode:
                    self.fail("%s: finishing the --to-pass exits %d (%s), "
                              "or leaves the image not whole" %
                              (what, r.returncode, r.stderr[:300]), d)
                    continue
                r = self.undo(c, img)
                why = r.returncode and r.stderr[:300] or \
                    self.restored(f0, img, self.want_repair())
                if why:
                    self.fail("%s: undo after the --to-pass: %s" % (what,
                                                                  why), d)
                    continue
                self.count("kill", kind, "finished")
                good += 1
                continue
            if i % 4 == 3:
                # killed again while finishing
                k2 = self.rng.randint(1, max(1, nw // 2))
                env["PCTRACE_KILL"] = str(k2)
                self.undo(c, img, (), env)
                kind += " twice"
                what += ", then after %d" % k2
            if self.check_crash(what, f0, (f1sum,), img, c, "kill"):
                self.count("kill", kind, "finished")
                good += 1
        print("%-16s kill     %3d undos killed (%d image writes for all): "
              "%d finished" % (fx, self.a.per, nws[()], good))

    def traced(self, args, img, files, log):
        if os.path.exists(log):
            os.unlink(log)
        env = dict(os.environ, LD_PRELOAD=self.shim, PCTRACE_OUT=log,
                   PCTRACE_WATCH=":".join([img] + files))
        return run([self.bin] + args, env=env)

    def powercut(self, fx, f0, ch, f1):
        f1sum = imgsum.digest(f1)
        d = self.path("pc")
        shutil.rmtree(d, ignore_errors=True)
        c = ch.copy_to(d)
        img = os.path.join(d, "img")
        files = [c.name(k) for k in range(1, c.n + 1)]
        base = self.path("pc.base")
        shutil.rmtree(base, ignore_errors=True)
        cb = ch.copy_to(base)
        bases = [f1] + [cb.name(k) for k in range(1, c.n + 1)]
        cp(f1, img)
        log = self.path("pc.trace")
        self.traced(["undo", c.name(1), img], img, files, log)
        traces = {(): (log, crashimg.parse(log), None)}
        good = 0
        for i in range(self.a.per):
            extra = ()
            if i % 4 == 3 and ch.n > 1:
                extra = ("--to-pass", str(self.rng.randint(1, ch.n - 1)))
            if extra not in traces:
                # the trace of undo --to-pass N, and the image it leaves
                lg = self.path("pc.trace.%s" % extra[1])
                fn = self.path("pc.to.%s" % extra[1])
                for p, b in zip([img] + files, bases):
                    cp(b, p)
                self.traced(["undo"] + list(extra) + [c.name(1), img], img,
                            files, lg)
                cp(img, fn)
                traces[extra] = (lg, crashimg.parse(lg), imgsum.digest(fn))
            log, events, tosum = traces[extra]
            bars = crashimg.barriers(events) or [0]
            k = (self.rng.randint(0, len(events)) if i % 2 == 0 else
                 min(len(events), self.rng.choice(bars) +
                     self.rng.randint(0, 2)))
            seed = self.rng.randrange(1 << 30)
            crashimg.crash(log, events, k, random.Random(seed), bases,
                           [img] + files)
            what = "%s power cut after event %d of %d (seed %d)" % (
                fx, k, len(events), seed)
            kind = "power cut"
            if extra:
                kind = "power cut --to-pass"
                what += " of undo --to-pass " + extra[1]
                sm = imgsum.digest(img)
                if not needsrepair(img) and sm not in (f1sum, tosum):
                    self.fail("%s: NEEDSREPAIR clear in an intermediate "
                              "state" % what, d)
                    continue
                r = self.undo(c, img, extra)
                if r.returncode or imgsum.digest(img) != tosum:
                    self.fail("%s: finishing it exits %d (%s), or leaves "
                              "another image than undo --to-pass does" %
                              (what, r.returncode, r.stderr[:300]), d)
                    continue
                # then the rest, from the files that are left
                left = Chain(d, int(extra[1]))
                if self.check_crash(what, f0, (tosum,), img, left,
                                    "--to-pass"):
                    self.count("powercut", kind, "finished")
                    good += 1
                continue
            if i % 3 == 2:
                # a second cut, during the undo that finishes the first
                mid = self.path("pc.mid")
                cp(img, mid)
                log2 = self.path("pc.trace2")
                self.traced(["undo", c.name(1), img], img, files, log2)
                ev2 = crashimg.parse(log2)
                k2 = self.rng.randint(0, len(ev2))
                crashimg.crash(log2, ev2, k2, random.Random(seed + 1),
                               [mid] + bases[1:], [img] + files)
                kind = "power cut twice"
                what += ", then after event %d of %d" % (k2, len(ev2))
            if self.check_crash(what, f0, (f1sum,), img, c, "power cut"):
                self.count("powercut", kind, "finished")
                good += 1
        # the run in passes itself cut by power
        d2 = self.path("pcrun")
        shutil.rmtree(d2, ignore_errors=True)
        os.makedirs(d2)
        c2 = Chain(d2, ch.n)
        img2 = os.path.join(d2, "img")
        files2 = [c2.name(k) for k in range(1, c2.n + 1)]
        cp(f0, img2)
        log = self.path("pcrun.trace")
        self.traced(["run", "--passes", "--undo", c2.name(1), img2], img2,
                    files2, log)
        events = crashimg.parse(log)
        bars = crashimg.barriers(events) or [0]
        runs = max(1, self.a.per // 2)
        for i in range(runs):
            k = (self.rng.randint(0, len(events)) if i % 2 == 0 else
                 min(len(events), self.rng.choice(bars) +
                     self.rng.randint(0, 2)))
            seed = self.rng.randrange(1 << 30)
            crashimg.crash(log, events, k, random.Random(seed),
                           [f0] + [None] * c2.n, [img2] + files2)
            what = "%s run --passes cut after event %d of %d (seed %d)" % (
                fx, k, len(events), seed)
            if os.path.exists(c2.name(1)):
                r = self.undo(c2, img2)
                if r.returncode:
                    self.fail("%s: undo exits %d: %s" % (
                        what, r.returncode, r.stderr[:300]), d2)
                    continue
            why = self.restored(f0, img2, self.want_repair())
            if why:
                self.fail("%s: %s" % (what, why), d2)
                continue
            self.count("powercut", "run --passes cut", "restored")
            good += 1
        print("%-16s powercut %3d crash images of undo, %d of run --passes: "
              "%d recovered" % (fx, self.a.per, runs, good))

    def fixture(self, fx):
        made = self.make(fx)
        if not made:
            return
        f0, chains = made
        (ch, f1), (other, _) = chains["A"], chains["B"]
        print("%-16s chain of %d passes (another run: %d)" %
              (fx, ch.n, other.n))
        if "damage" in self.a.modes:
            self.damage(fx, f0, ch, f1, other)
        if "kill" in self.a.modes:
            self.kill(fx, f0, ch, f1)
        if "powercut" in self.a.modes:
            self.powercut(fx, f0, ch, f1)
        for p in [f0, f1, chains["B"][1]]:
            os.unlink(p)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--test-bin", required=True)
    ap.add_argument("--shim")
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--fixtures", default="aged")
    ap.add_argument("--modes", default="damage,kill,powercut")
    ap.add_argument("--per", type=int, default=8,
                    help="killed and power-cut undos per fixture")
    ap.add_argument("--damage-per", type=int, default=0,
                    help="damaged chains per fixture (0: every case)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repair-every", type=int, default=1)
    ap.add_argument("--keep")
    a = ap.parse_args()
    a.modes = a.modes.split(",")
    c = Camp(a)
    for fx in a.fixtures.split(","):
        c.fixture(fx)
    total = sum(c.counts.values())
    for mode in ("damage", "kill", "powercut"):
        rows = sorted((k, v) for k, v in c.counts.items() if k[0] == mode)
        if rows:
            print("%s: %s" % (mode, ", ".join(
                "%s %s %d" % (k[1], k[2], v) for k, v in rows)))
    print("undo chains: %d cases good, %d failed (%d xfs_repair -n runs)" %
          (total - sum(v for k, v in c.counts.items()
                       if k[2] == "tail undone"), c.failed, c.repairs))
    return 1 if c.failed or not total else 0


if __name__ == "__main__":
    sys.exit(main())
