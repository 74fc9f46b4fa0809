#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The power-cut campaign: record runs and undos of fixture images with
the pctrace layer (every write of the image and of the undo file, with
their fsync barriers), make crash images from the logs (crashimg.py:
everything up to each file's last completed fsync, plus a random subset,
in random order, of the writes after it), recover each and check it.

Scenarios, per fixture (from the original image F0):
  run         xfsdefrag run
  copy        xfsdefrag run, cut only among its image writes of more than
              a few blocks (the copy phase's: a block overwritten there
              mostly has its original at a copy the run made before,
              which must be durable first)
  rollback    xfsdefrag run with a write error halfway (it rolls itself
              back from its undo file)
  undo        xfsdefrag undo of a finished run
  undo-reuse  the same after every free block was overwritten (undo
              copies vacated blocks back from their copies)
  undo-int    xfsdefrag undo of a run interrupted at a random write
  renum       xfsdefrag run --renumber all, cut only inside the writes
              that renumber inodes (the ranges run prints: the inodes
              phase and the references phase); every crash image also
              checked by manifest through a mount (when root)
  renum-undo  xfsdefrag undo of a finished renumbering run
  shrink      xfsdefrag shrink --min (AGs removed, the log moved, inode
              chunks past the end; the file cut to the new size last),
              cut half anywhere, half inside the writes that rewrite
              the geometry (the range shrink prints: the AG headers,
              btrees, log and superblocks)
  shrink-undo xfsdefrag undo of a finished shrink (the file extended
              back first)

Recovery of a crash image: `xfsdefrag undo` when the undo file is there
(with its header), else nothing.  Then every block in use in F0 must be
identical (the test binary's debug-compare: our own reader), the file
as long as F0, `xfs_repair -n` must accept the image, and for a sample
(--manifest-every) the content manifest through a read-only mount must
equal F0's.

Usage: campaign.py --bin XFSDEFRAG --test-bin XFSDEFRAG-TEST
                   --shim PCTRACE.so --tmp DIR
                   [--fixtures a,b] [--scenarios s,t] [--per N] [--seed S]
                   [--manifest-every M] [--keep DIR]
Prints one line per scenario and the totals; exit 1 on any failure.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crashimg  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def loop_gone(img):
    """Wait (a minute at most) until no loop device is bound to img: one
    that umount lets go of stays bound while another process has it open,
    and undo rightly refuses to write a file that backs one."""
    import glob
    import time
    path = os.path.realpath(img)
    for _ in range(600):
        busy = False
        for f in glob.glob("/sys/block/loop*/loop/backing_file"):
            try:
                with open(f) as b:
                    busy = busy or b.read().strip() == path
            except OSError:
                pass
        if not busy:
            return
        time.sleep(0.1)


def rm_undo(j):
    """Remove an undo file and the inode map a run leaves beside it."""
    for p in (j, j + ".map"):
        if os.path.exists(p):
            os.unlink(p)


def cp(src, dst):
    if os.path.exists(dst):
        os.unlink(dst)
    subprocess.run(["cp", "--sparse=always", src, dst], check=True)


class Campaign:
    def __init__(self, a):
        self.a = a
        self.tmp = os.path.abspath(a.tmp)
        # a copy: a rebuild during a long campaign must not change it
        self.bin = os.path.join(self.tmp, "xfsdefrag")
        shutil.copy2(os.path.abspath(a.bin), self.bin)
        # the test aids (tests/aids): faults, debug-compare, scribble
        self.tbin = os.path.join(self.tmp, "xfsdefrag-test")
        shutil.copy2(os.path.abspath(a.test_bin), self.tbin)
        self.shim = os.path.join(self.tmp, "pctrace.so")
        shutil.copy2(os.path.abspath(a.shim), self.shim)
        self.rng = random.Random(a.seed)
        self.mnt = os.path.join(self.tmp, "mnt")
        os.makedirs(self.mnt, exist_ok=True)
        self.images = self.recovered = self.failed = 0
        self.renum = self.renum_images = 0
        self.shrink_images = 0
        self.manifests = 0
        self.states = {}
        self.last = None
        self.can_mount = (os.geteuid() == 0 and shutil.which("mount") and
                          not os.environ.get("XFSDEFRAG_NO_MOUNT"))

    def path(self, name):
        return os.path.join(self.tmp, name)

    def traced(self, args, watch, log):
        if os.path.exists(log):
            os.unlink(log)
        env = dict(os.environ, LD_PRELOAD=self.shim, PCTRACE_OUT=log,
                   PCTRACE_WATCH=":".join(watch))
        # "@TEST": the test binary (its options before the command)
        if args[0] == "@TEST":
            return run([self.tbin] + args[1:], env=env)
        return run([self.bin] + args, env=env)

    def renum_ranges(self, out):
        """The image writes (1-based) of the renumbering phases."""
        for line in out.splitlines():
            if line.startswith("renumbered ") and "image writes" in line:
                a = line.split("image writes ")[1].split(",")[0]
                b = line.split("references ")[1].rstrip(")")
                r = []
                for x in (a, b):
                    lo, hi = (int(v) for v in x.split("-"))
                    if hi >= lo:
                        r.append((lo, hi))
                return r
        return []

    def geometry_range(self, out):
        """The image writes (1-based) that rewrite a shrink's geometry."""
        for line in out.splitlines():
            if line.startswith("shrink: ") and "image writes" in line:
                lo, hi = line.rsplit(" ", 1)[1].split("-")
                return [(int(lo), int(hi))]
        return []

    def copy_cuts(self, events, n):
        """n cut points among the large image writes (the copies): half
        just after one of them, half anywhere in their span."""
        idx = [i + 1 for i, e in enumerate(events)
               if e.kind == "W" and e.fid == 0 and e.length >= 16384]
        if not idx:
            return []
        return [self.rng.choice(idx) if i % 2 == 0 else
                self.rng.randint(idx[0], idx[-1]) for i in range(n)]

    def renum_cuts(self, events, ranges, n):
        """n cut points among the renumbering writes: half just after
        one of them, half just after a barrier inside their span."""
        idx, w = [], 0
        for i, e in enumerate(events):
            if e.kind == "W" and e.fid == 0:
                w += 1
                if any(lo <= w <= hi for lo, hi in ranges):
                    idx.append(i + 1)
        if not idx:
            return []
        bars = [b for b in crashimg.barriers(events)
                if idx[0] <= b <= idx[-1]] or idx
        return [self.rng.choice(idx) if i % 2 == 0 else
                min(len(events), self.rng.choice(bars) +
                    self.rng.randint(0, 2)) for i in range(n)]

    def manifest(self, img, out):
        if run(["mount", "-o", "loop,ro,nouuid", img, self.mnt]).returncode:
            loop_gone(img)
            return None
        try:
            r = run([sys.executable, os.path.join(HERE, "manifest.py"),
                     self.mnt])
        finally:
            run(["umount", self.mnt])
            loop_gone(img)
        if r.returncode:
            return None
        with open(out, "w") as f:
            f.write(r.stdout)
        return r.stdout

    def check(self, f0, img, journal, ref, want_manifest):
        """Recover one crash image; None if good, else why not."""
        state = "not started"
        if os.path.exists(journal) and os.path.getsize(journal) >= 4096:
            r = run([self.bin, "undo", journal, img])
            if r.returncode:
                return "undo exit %d: %s" % (r.returncode,
                                             (r.stderr or r.stdout)[:300])
            state = ("interrupted" if "interrupted" in r.stdout
                     else "finished")
        self.states[state] = self.states.get(state, 0) + 1
        self.last = state
        r = run([self.tbin, "debug-compare", f0, img])
        if r.returncode:
            return "not restored: " + (r.stdout or r.stderr).strip()
        if os.path.getsize(img) != os.path.getsize(f0):
            return "the file is %d bytes, not %d" % (os.path.getsize(img),
                                                     os.path.getsize(f0))
        r = run(["xfs_repair", "-n", img])
        if r.returncode:
            return "xfs_repair -n exit %d" % r.returncode
        if want_manifest and ref is not None:
            got = self.manifest(img, self.path("man.got"))
            if got is None:
                return "cannot mount the recovered image read-only"
            if got != ref:
                return "manifest differs from the original's"
            self.manifests += 1
        return None

    def cuts(self, events, n):
        """n cut points: half anywhere, half just after a barrier."""
        bars = crashimg.barriers(events) or [0]
        ks = []
        for i in range(n):
            if i % 2 == 0:
                ks.append(self.rng.randint(0, len(events)))
            else:
                ks.append(min(len(events), self.rng.choice(bars) +
                              self.rng.randint(0, 3)))
        return ks

    def scenario(self, fx, name, pre_img, pre_j, args, f0, ref,
                 renum=False, geometry=False, copy=False):
        img, j = self.path("img"), self.path("j.undo")
        log = self.path("trace")
        cp(pre_img, img)
        rm_undo(j)
        if pre_j:
            shutil.copyfile(pre_j, j)
        r = self.traced([a.replace("@IMG", img).replace("@J", j)
                         for a in args], [img, j], log)
        events = crashimg.parse(log)
        nw = sum(1 for e in events if e.kind == "W")
        good = bad = 0
        if renum:
            ranges = self.renum_ranges(r.stdout)
            ks = self.renum_cuts(events, ranges, self.a.per)
            if not ks:
                print("FAIL %s %s: no renumbering writes (exit %d: %s)" %
                      (fx, name, r.returncode, (r.stderr or r.stdout)[-300:]))
                self.failed += 1
                return
        elif geometry:
            ks = self.renum_cuts(events, self.geometry_range(r.stdout),
                                 self.a.per // 2)
            ks += self.cuts(events, self.a.per - len(ks))
            if not self.geometry_range(r.stdout):
                print("FAIL %s %s: no geometry writes (exit %d: %s)" %
                      (fx, name, r.returncode, (r.stderr or r.stdout)[-300:]))
                self.failed += 1
                return
            self.shrink_images += len(ks)
        elif copy:
            ks = self.copy_cuts(events, self.a.per)
            if not ks:
                print("FAIL %s %s: no copy writes (exit %d: %s)" %
                      (fx, name, r.returncode, (r.stderr or r.stdout)[-300:]))
                self.failed += 1
                return
        else:
            ks = self.cuts(events, self.a.per)
        for n, k in enumerate(ks):
            seed = self.rng.randrange(1 << 30)
            crashimg.crash(log, events, k, random.Random(seed),
                           [pre_img, pre_j], [img, j])
            self.images += 1
            want = (self.can_mount and self.a.manifest_every and
                    (renum or self.images % self.a.manifest_every == 0))
            why = self.check(f0, img, j, ref, want)
            if why is None:
                good += 1
                continue
            bad += 1
            print("FAIL %s %s: cut after %d of %d events (seed %d, %s): "
                  "%s" % (fx, name, k, len(events), seed, self.last, why))
            if self.a.keep:
                dst = os.path.join(self.a.keep, "%s-%s-%d" % (fx, name, k))
                os.makedirs(dst, exist_ok=True)
                crashimg.crash(log, events, k, random.Random(seed),
                               [pre_img, pre_j], [os.path.join(dst, "img"),
                                                  os.path.join(dst, "j")])
                shutil.copyfile(log, os.path.join(dst, "trace"))
        self.recovered += good
        self.failed += bad
        print("%-16s %-10s %3d crash images (%d events, %d writes; "
              "traced exit %d): %d recovered" %
              (fx, name, good + bad, len(events), nw, r.returncode, good))

    def fixture(self, fx):
        fdir = os.path.join(HERE, "fixtures", fx)
        f0 = self.path(fx + ".f0")
        if run(["zstd", "-dq", "--sparse", "-f", "-o", f0,
                os.path.join(fdir, "image.zst")]).returncode:
            print("SKIP %s: no fixture image" % fx)
            return
        ref = None
        if self.can_mount and self.a.manifest_every:
            ref = self.manifest(f0, self.path("man.ref"))
        f1, j1 = self.path(fx + ".f1"), self.path(fx + ".j1")
        rm_undo(j1)
        cp(f0, f1)
        r = run([self.bin, "run", "--undo", j1, f1])
        writes = int(r.stdout.split(" image writes")[0].split()[-1]) \
            if " image writes" in r.stdout else 100
        want = self.a.scenarios
        if "run" in want:
            self.scenario(fx, "run", f0, None,
                          ["run", "--undo", "@J", "@IMG"], f0, ref)
        if "copy" in want:
            self.scenario(fx, "copy", f0, None,
                          ["run", "--undo", "@J", "@IMG"], f0, ref,
                          copy=True)
        if "rollback" in want:
            self.scenario(fx, "rollback", f0, None,
                          ["@TEST", "--fault-error", str(writes // 2),
                           "run", "--undo", "@J", "@IMG"], f0, ref)
        if "undo" in want:
            self.scenario(fx, "undo", f1, j1, ["undo", "@J", "@IMG"],
                          f0, ref)
        if "undo-reuse" in want:
            fr = self.path(fx + ".fr")
            cp(f1, fr)
            run([self.tbin, "debug-scribble", "--junk-free", fr])
            self.scenario(fx, "undo-reuse", fr, j1, ["undo", "@J", "@IMG"],
                          f0, ref)
            os.unlink(fr)
        if "renum" in want or "renum-undo" in want:
            fn, jn = self.path(fx + ".fn"), self.path(fx + ".jn")
            rm_undo(jn)
            cp(f0, fn)
            rn = run([self.bin, "run"] + self.a.renum_args +
                     ["--undo", jn, fn])
            if "renum" in want:
                self.renum += 1
                before = self.images
                self.scenario(fx, "renum", f0, None,
                              ["run"] + self.a.renum_args +
                              ["--undo", "@J", "@IMG"], f0, ref, renum=True)
                self.renum_images += self.images - before
            if "renum-undo" in want and rn.returncode == 0:
                self.scenario(fx, "renum-undo", fn, jn,
                              ["undo", "@J", "@IMG"], f0, ref)
            os.unlink(fn)
            rm_undo(jn)
        if "shrink" in want:
            self.scenario(fx, "shrink", f0, None,
                          ["shrink", "--min", "--undo", "@J", "@IMG"], f0,
                          ref, geometry=True)
        if "shrink-undo" in want:
            fs_, js = self.path(fx + ".fs"), self.path(fx + ".js")
            rm_undo(js)
            cp(f0, fs_)
            rs = run([self.bin, "shrink", "--min", "--undo", js, fs_])
            if rs.returncode == 0:
                self.scenario(fx, "shrink-undo", fs_, js,
                              ["undo", "@J", "@IMG"], f0, ref)
            else:
                print("FAIL %s shrink-undo: shrink exit %d: %s" %
                      (fx, rs.returncode, (rs.stderr or rs.stdout)[-300:]))
                self.failed += 1
            os.unlink(fs_)
            rm_undo(js)
        if "undo-int" in want:
            fi, ji = self.path(fx + ".fi"), self.path(fx + ".ji")
            rm_undo(ji)
            cp(f0, fi)
            n = self.rng.randint(1, max(1, writes - 1))
            run([self.tbin, "--fault-after", str(n), "run", "--undo", ji,
                 fi])
            self.scenario(fx, "undo-int", fi, ji, ["undo", "@J", "@IMG"],
                          f0, ref)
            os.unlink(fi)
            rm_undo(ji)
        for p in (f0, f1):
            os.unlink(p)
        rm_undo(j1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--test-bin", required=True)
    ap.add_argument("--shim", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--fixtures", default="aged,bs1k")
    ap.add_argument("--scenarios",
                    default="run,copy,rollback,undo,undo-reuse,undo-int")
    ap.add_argument("--per", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--manifest-every", type=int, default=0)
    ap.add_argument("--keep")
    ap.add_argument("--renum-args", default="--renumber all",
                    help="run's arguments for the renum scenarios")
    a = ap.parse_args()
    a.scenarios = a.scenarios.split(",")
    a.renum_args = a.renum_args.split()
    c = Campaign(a)
    for fx in a.fixtures.split(","):
        c.fixture(fx)
    print("power cut: %d crash images, %d recovered, %d failed; %d "
          "checked by manifest through a mount; recovered from: %s%s" %
          (c.images, c.recovered, c.failed, c.manifests,
           ", ".join("%s %d" % kv for kv in sorted(c.states.items())),
           "; %d cut inside the renumbering writes" % c.renum_images
           if c.renum else "") +
          ("; %d shrink crash images, half cut inside the geometry "
           "rewrite" % c.shrink_images if c.shrink_images else ""))
    return 1 if c.failed or not c.images else 0


if __name__ == "__main__":
    sys.exit(main())
