#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fuzz campaigns over the fixture images with xfs_db's fuzz verbs.

Every field of every structure type a fixture holds (superblocks, AG
headers, AG btree blocks, inode cores and forks, bmbt, directory, attr
and symlink blocks) is damaged with `xfs_db -x -c "fuzz -d FIELD VERB"`,
one field and verb per image, on a working copy that is restored after
each case (only the damaged buffer is written back; a digest of the
whole image proves it).

    fuzzcamp.py precheck --bin XFSDEFRAG [options] FIXTURE...
        keep the images `xfs_repair -n` rejects; `xfsdefrag run` must
        refuse each with the image byte-identical afterwards.  Misses are
        written as recipes (--misses FILE), figures per fixture and per
        structure type are printed at the end; "over" counts the images
        xfs_repair -n accepts where `xfsdefrag check` finds something
        (--over FILE lists them), which run would refuse too.
    fuzzcamp.py read --bin ASAN_XFSDEFRAG [options] FIXTURE...
        every damaged image through the read commands (info, bmap -v on
        every path, report, check, plan): no crash (no sanitizer report,
        no signal), no hang (timeout), every error line naming a
        structure.  With --same-as REFBIN instead: report, report --json,
        check, check --json, plan --json and bmap -v print exactly what
        REFBIN prints on each damaged image (scan times left out), for a
        change that must not change any output.
    fuzzcamp.py replay --bin XFSDEFRAG --recipes FILE
        apply each recorded recipe (byte patches) to its fixture and
        check that run refuses it with the image unchanged.

Options: --fixtures DIR (tests/fixtures), --work DIR (scratch, sparse
copies of the images), --per-fixture N (cases sampled per fixture, 0:
all), --seed S, --jobs J, --verbs LIST, --timeout SECONDS, --lsn-cases
N (on top of the sample: every structure's LSN field written at the log
head and at the next cycle, which xfs_db's verbs seldom reach; -1 all).

A recipe line: FIXTURE TAB STYPE TAB FIELD TAB VERB TAB PATCHES, where
PATCHES is OFFSET:HEX[,OFFSET:HEX...] (byte offset in the image, the new
bytes).  Replaying needs no xfs_db and no randomness.
"""
import argparse
import hashlib
import multiprocessing as mp
import os
import random
import re
import shutil
import subprocess
import sys
import time

VERBS = ['zeroes', 'ones', 'firstbit', 'middlebit', 'lastbit', 'add', 'sub',
         'random']
# Verbs of our own for LSN fields (xfs_db's rarely move an LSN past the
# log head): the head itself, and the start of the next cycle.  Every
# structure with an LSN gets these, on top of the sample.
LSN_VERBS = ['lsn-head', 'lsn-cycle']
ZERO = bytes(4096)
SEEK_DATA, SEEK_HOLE = 3, 4

# A line of an error message must name the structure it is about.
STRUCT_RE = re.compile(
    r'\b(sb|superblock|primary|secondary|agf|agi|agfl|ag [0-9]+|inode|'
    r'inodes|directory|dir|entry|bnobt|cntbt|inobt|finobt|rmapbt|'
    r'refcountbt|bmbt|btree|block|blocks|log|attr|attribute|symlink|'
    r'extent|extents|chunk|fork|leaf|node|free index|hash|stripe|'
    r'geometry|feature|features|path|uuid|image|device|file|filesystem)\b',
    re.I)


def sh(args, timeout=120, stdin=subprocess.DEVNULL):
    """Run args; (rc, stdout, stderr), rc 124 on timeout."""
    try:
        p = subprocess.run(args, stdin=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
        return p.returncode, p.stdout.decode('utf-8', 'replace'), \
            p.stderr.decode('utf-8', 'replace')
    except subprocess.TimeoutExpired as ex:
        return 124, (ex.stdout or b'').decode('utf-8', 'replace'), \
            (ex.stderr or b'').decode('utf-8', 'replace')


def db(img, cmds, expert=False, timeout=60):
    args = ['xfs_db', '-x' if expert else '-r']
    for c in cmds:
        args += ['-c', c]
    args.append(img)
    return sh(args, timeout)


# ---- images -----------------------------------------------------------------

def digest(path):
    """Digest of the contents (holes and zero blocks alike count as zeros)."""
    h = hashlib.blake2b()
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        h.update(str(size).encode())
        off = 0
        while off < size:
            try:
                d = os.lseek(fd, off, SEEK_DATA)
            except OSError:
                break
            e = os.lseek(fd, d, SEEK_HOLE)
            pos = d & ~4095
            while pos < e:
                n = min(1 << 20, e - pos)
                buf = os.pread(fd, n, pos)
                for i in range(0, len(buf), 4096):
                    b = buf[i:i + 4096]
                    if b != ZERO[:len(b)]:
                        h.update((pos + i).to_bytes(8, 'little'))
                        h.update(b)
                pos += n
            off = e
    finally:
        os.close(fd)
    return h.hexdigest()


def copy_sparse(src, dst):
    sh(['cp', '--sparse=always', src, dst], timeout=600)


def unpack(fixdir, dst):
    rc, _, err = sh(['zstd', '-dq', '--sparse', '-f', '-o', dst,
                     os.path.join(fixdir, 'image.zst')], timeout=600)
    if rc:
        sys.exit('fuzzcamp: cannot unpack %s: %s' % (fixdir, err))


def read_at(path, off, n):
    with open(path, 'rb') as f:
        f.seek(off)
        return f.read(n)


def write_at(path, off, data):
    with open(path, 'r+b') as f:
        f.seek(off)
        f.write(data)


def diff_patches(a, b, base):
    """Byte ranges where b differs from a, as (offset, bytes of b)."""
    out, i, n = [], 0, min(len(a), len(b))
    while i < n:
        if a[i] == b[i]:
            i += 1
            continue
        j = i
        while j < n and (a[j] != b[j] or (j + 1 < n and a[j + 1] != b[j + 1])):
            j += 1
        out.append((base + i, b[i:j]))
        i = j
    return out


def fmt_patches(patches):
    return ','.join('%d:%s' % (o, d.hex()) for o, d in patches)


def parse_patches(s):
    out = []
    for p in s.split(','):
        o, d = p.split(':')
        out.append((int(o), bytes.fromhex(d)))
    return out


# ---- what to damage ----------------------------------------------------------

def fixture_inodes(fixdir):
    """[(ino, mode, fmt, afmt, nextents, naextents, forkoff)] from the
    oracle's listing (xfs_db inode N print core.*)."""
    p = os.path.join(fixdir, 'xfsdb-core.out')
    if os.path.exists(p):
        txt = open(p).read()
    else:
        txt = subprocess.run(['zstd', '-dcq', p + '.zst'], check=True,
                             stdout=subprocess.PIPE).stdout.decode()
    out, cur = [], None
    for line in txt.splitlines():
        if line.startswith('== '):
            cur = {'ino': int(line[3:])}
            out.append(cur)
        elif cur is not None and ' = ' in line:
            k, v = line.split(' = ', 1)
            v = v.split()[0]
            try:
                cur[k.replace('core.', '')] = int(v, 8) if k == 'core.mode' \
                    else int(v)
            except ValueError:
                pass
    return out


def geo(img):
    _, out, _ = db(img, ['sb 0', 'print blocksize dirblklog agcount '
                         'versionnum features_incompat features_ro_compat'])
    g = {}
    for line in out.splitlines():
        if ' = ' in line:
            k, v = line.split(' = ', 1)
            g[k] = int(v, 0)
    return g


def bmap(img, ino, attr=False):
    """[(offset, fsblock, count)] of a fork, from xfs_db bmap."""
    _, out, _ = db(img, ['inode %d' % ino, 'bmap -a' if attr else 'bmap -d'])
    ex = []
    for m in re.finditer(r'offset (\d+) startblock (\d+) \S+ count (\d+)',
                         out):
        ex.append(tuple(int(x) for x in m.groups()))
    return ex


def pick(lst, n, rng):
    if len(lst) <= n:
        return list(lst)
    return [lst[0]] + rng.sample(lst[1:], n - 1)


def targets(img, fixdir, rng, per_kind=2):
    """[(stype, nav commands)] for every structure type the image holds."""
    g = geo(img)
    v5 = (g.get('versionnum', 0) & 0xf) == 5
    bs = g['blocksize']
    dirfsbs = 1 << g.get('dirblklog', 0)
    leaf_fsb = (32 << 30) // bs
    free_fsb = (64 << 30) // bs
    agc = g['agcount']
    t = [('sb-primary', ['sb 0'])]
    for a in sorted({1, agc // 2, agc - 1}):
        if a > 0:
            t.append(('sb-secondary', ['sb %d' % a]))
    for a in sorted({0, agc - 1}):
        t.append(('agf', ['agf %d' % a]))
        t.append(('agi', ['agi %d' % a]))
        t.append(('agfl', ['agfl %d' % a]))
        t.append(('bnobt', ['agf %d' % a, 'addr bnoroot']))
        t.append(('cntbt', ['agf %d' % a, 'addr cntroot']))
        t.append(('inobt', ['agi %d' % a, 'addr root']))
        if v5 and g.get('features_ro_compat', 0) & 1:
            t.append(('finobt', ['agi %d' % a, 'addr free_root']))
        if v5 and g.get('features_ro_compat', 0) & 2:
            t.append(('rmapbt', ['agf %d' % a, 'addr rmaproot']))
        if v5 and g.get('features_ro_compat', 0) & 4:
            t.append(('refcountbt', ['agf %d' % a, 'addr refcntroot']))
    inos = fixture_inodes(fixdir)
    kinds = {}
    btree_forks = {}

    def kind(name, ino):
        kinds.setdefault(name, []).append(ino)

    for i in inos:
        mode, fmt = i.get('mode', 0), i.get('format', 0)
        typ = mode & 0o170000
        if typ == 0o100000:
            kind('inode-reg-btree' if fmt == 3 else 'inode-reg', i)
        elif typ == 0o040000:
            kind('inode-dir-sf' if fmt == 1 else 'inode-dir', i)
            if fmt == 3:
                btree_forks.setdefault('dir', []).append(i)
        elif typ == 0o120000:
            kind('inode-symlink-local' if fmt == 1 else 'inode-symlink', i)
        elif typ:
            kind('inode-dev', i)
        if i.get('forkoff', 0):
            af = i.get('aformat', 2)
            kind('inode-attr-sf' if af == 1 else 'inode-attr', i)
            if af == 3:
                btree_forks.setdefault('attr', []).append(i)
    for k in sorted(kinds):
        for i in pick(kinds[k], per_kind, rng):
            t.append((k, ['inode %d' % i['ino']]))
    # bmbt blocks of btree-format forks
    for i in pick(kinds.get('inode-reg-btree', []), per_kind, rng):
        t.append(('bmbt', ['inode %d' % i['ino'], 'addr u3.bmbt.ptrs[1]']))
    # symlink blocks
    for i in pick(kinds.get('inode-symlink', []), per_kind, rng):
        t.append(('symlink', ['inode %d' % i['ino'], 'dblock 0']))
    # directory blocks: data, leaf (block format: the block itself), free
    dirs = kinds.get('inode-dir', [])
    classes = {}
    for i in dirs:
        ex = bmap(img, i['ino'])
        offs = [o for (o, _, c) in ex for o in range(o, o + c, dirfsbs)]
        if not offs:
            continue
        has_leaf = any(leaf_fsb <= o < free_fsb for o in offs)
        has_free = any(o >= free_fsb for o in offs)
        cls = 'node' if has_free else 'leaf' if has_leaf else 'block'
        classes.setdefault(cls, []).append((i['ino'], offs))
    for cls, lst in sorted(classes.items()):
        for ino, offs in pick(lst, per_kind, rng):
            data = [o for o in offs if o < leaf_fsb]
            leaf = [o for o in offs if leaf_fsb <= o < free_fsb]
            free = [o for o in offs if o >= free_fsb]
            if cls == 'block':
                t.append(('dir-block', ['inode %d' % ino, 'dblock 0']))
                continue
            t.append(('dir-data', ['inode %d' % ino,
                                   'dblock %d' % rng.choice(data)]))
            if cls == 'leaf':
                t.append(('dir-leaf1', ['inode %d' % ino,
                                        'dblock %d' % leaf[0]]))
            else:
                t.append(('dir-node', ['inode %d' % ino,
                                       'dblock %d' % leaf[0]]))
                if len(leaf) > 1:
                    t.append(('dir-leafn', ['inode %d' % ino, 'dblock %d' %
                                            rng.choice(leaf[1:])]))
                t.append(('dir-free', ['inode %d' % ino,
                                       'dblock %d' % free[0]]))
    # attribute blocks: roots (leaf or node), a leaf below a node, and
    # the first and last blocks of remote values
    attrs = [i for i in kinds.get('inode-attr', []) if i.get('naextents')]
    roots = remotes = 0
    for i in attrs:
        if roots >= 2 * per_kind and remotes >= per_kind:
            break
        ex = bmap(img, i['ino'], attr=True)
        if not ex:
            continue
        nav = ['inode %d' % i['ino']]
        _, out, _ = db(img, nav + ['ablock 0', 'print'])
        node = 'btree[' in out or 'nbtree' in out
        if roots < 2 * per_kind:
            roots += 1
            t.append(('attr-node' if node else 'attr-leaf',
                      nav + ['ablock 0']))
            blocks = [o for (o, _, c) in ex for o in range(o, o + c)]
            if node and len(blocks) > 1:
                t.append(('attr-leaf', nav + ['ablock %d' % blocks[1]]))
        m = re.search(r'valueblk = (0x[0-9a-f]+|\d+)\n'
                      r'[^\n]*valuelen = (\d+)', out)
        if m and remotes < per_kind:
            remotes += 1
            vb, vl = int(m.group(1), 0), int(m.group(2))
            nb = max(1, -(-vl // (bs - (56 if v5 else 0))))
            for blk in sorted({vb, vb + nb - 1}):
                t.append(('attr-remote', nav + ['ablock %d' % blk]))
    # bmbt blocks of directories and of attribute forks (last, so that
    # the samples above stay what they were before these were added)
    for i in pick(btree_forks.get('dir', []), per_kind, rng):
        t.append(('bmbt-dir', ['inode %d' % i['ino'],
                               'addr u3.bmbt.ptrs[1]']))
    for i in pick(btree_forks.get('attr', []), per_kind, rng):
        t.append(('bmbt-attr', ['inode %d' % i['ino'],
                                'addr a.bmbt.ptrs[1]']))
    return t


def parse_fields(out):
    """Field names of an xfs_db print: arrays sampled (first, middle, last)."""
    fields = []
    groups = {}
    for line in out.splitlines():
        m = re.match(r'^(\S+) = ?(.*)$', line)
        if not m:
            continue
        key, val = m.group(1), m.group(2)
        r = re.search(r'\[(\d+)-(\d+)\]', key)
        if r:
            a, b = int(r.group(1)), int(r.group(2))
            idx = sorted({a, (a + b) // 2, b})
            sub = re.match(r'^\[([A-Za-z0-9_,.]+)\]', val)
            for i in idx:
                k = key[:r.start()] + '[%d]' % i + key[r.end():]
                if sub:
                    for s in sub.group(1).split(','):
                        fields.append(k + '.' + s)
                else:
                    fields.append(k)
            continue
        r = re.search(r'\[(\d+)\]', key)
        if r:
            pat = key[:r.start()] + '[#]' + key[r.end():]
            groups.setdefault(pat, []).append(int(r.group(1)))
            continue
        fields.append(key)
    for pat, idx in groups.items():
        idx = sorted(set(idx))
        for i in sorted({idx[0], idx[len(idx) // 2], idx[-1]}):
            fields.append(pat.replace('[#]', '[%d]' % i))
    return fields


def region(img, nav):
    """(byte offset, length) of the buffer the last nav command selects."""
    _, out, _ = db(img, nav + ['stack'])
    m = re.findall(r'buffer block (\d+) .*?, (\d+) bbs?', out)
    if not m:
        return None
    d, n = m[-1]
    return int(d) * 512, int(n) * 512


# ---- one case ------------------------------------------------------------------

class Worker:
    def __init__(self, opts, fixture, base, slot):
        self.o = opts
        self.fixture = fixture
        self.base = base
        self.w = os.path.join(opts.work, '%s.w%d.img' % (fixture, slot))
        self.undo = os.path.join(opts.work, '%s.w%d.undo' % (fixture, slot))
        copy_sparse(base, self.w)
        self.base_digest = digest(base)

    def restore(self, reg, full=False):
        """Put the damaged buffer back; every 50 cases prove (by digest)
        that nothing else changed, and start afresh if something did."""
        self.restores = getattr(self, 'restores', 0) + 1
        if not full and reg:
            write_at(self.w, reg[0], read_at(self.base, reg[0], reg[1]))
            if self.restores % 50 or digest(self.w) == self.base_digest:
                return
        copy_sparse(self.base, self.w)

    def fuzz(self, case):
        stype, nav, field, verb, reg = case
        if verb in LSN_VERBS:
            cyc, blk = self.o.heads[self.fixture]
            lsn = cyc << 32 | blk if verb == 'lsn-head' else (cyc + 1) << 32
            cmd = 'write -d %s %d' % (field, lsn)
        else:
            cmd = 'fuzz -d %s %s' % (field, verb)
        rc, out, err = db(self.w, nav + [cmd], expert=True)
        if rc == 124:
            return None
        new = read_at(self.w, reg[0], reg[1])
        old = read_at(self.base, reg[0], reg[1])
        return diff_patches(old, new, reg[0])


def repair_rejects(img, timeout):
    rc, out, err = sh(['xfs_repair', '-n', img], timeout)
    return rc != 0, rc, first_complaint(out + err)


def clean(s):
    return re.sub(r'[\t\r\n]', ' ', s)[:300]


def first_complaint(txt):
    for line in txt.splitlines():
        if not line.strip() or line.startswith(('Phase ', '        - ')) or \
           'host filesystem geometry' in line or \
           'sector size mismatch' in line or \
           line.startswith(('No modify flag', 'the image and the host')):
            continue
        return clean(line.strip())
    return ''


def stamp(path):
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns


def run_refuses(opts, img, undo):
    """(refused, exit status, last stderr line, image unchanged, undo file
    created).  Unchanged: not written at all (size, mtime and ctime as
    before: any write moves ctime; the images sit on a filesystem with
    fine timestamps, and the last change is a fuzz or patch well before),
    and, with --paranoid, the same digest too."""
    # a write by run must land in a later timestamp tick than the last
    # change made here
    if time.time_ns() - os.stat(img).st_ctime_ns < 50_000_000:
        time.sleep(0.05)
    before = stamp(img)
    dg = digest(img) if opts.paranoid else None
    for p in (undo, undo + '.map'):
        if os.path.exists(p):
            os.unlink(p)
    rc, out, err = sh([opts.bin, 'run', '--undo', undo, img], opts.timeout)
    unchanged = stamp(img) == before and (dg is None or digest(img) == dg)
    created = os.path.exists(undo)
    for p in (undo, undo + '.map'):
        if os.path.exists(p):
            os.unlink(p)
    lines = [l for l in err.splitlines() if l.strip()]
    refused = rc not in (0, 124) and rc < 128 and unchanged
    msg = lines[-1] if lines else (out.strip().splitlines() or [''])[0]
    return refused, rc, clean(msg), unchanged, created


def read_cmds(opts, img, paths):
    """Every read command on img; [(command, problem)] for each failure of
    the rules (crash, hang, sanitizer report, an unnamed error)."""
    bad = []
    cmds = [['info', img], ['report', img], ['check', img], ['plan', img]]
    if paths:
        cmds.append(['bmap', '-v', img] + paths)
    for c in cmds:
        env = dict(os.environ, ASAN_OPTIONS='detect_leaks=1:abort_on_error=0',
                   UBSAN_OPTIONS='print_stacktrace=1')
        try:
            p = subprocess.run([opts.bin] + c, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=opts.timeout,
                               env=env)
            rc, err = p.returncode, p.stderr.decode('utf-8', 'replace')
        except subprocess.TimeoutExpired:
            bad.append((c[0], 'hang'))
            continue
        if rc < 0 or rc >= 128:
            bad.append((c[0], 'signal %d' % (-rc if rc < 0 else rc - 128)))
        if 'Sanitizer' in err or 'runtime error:' in err:
            bad.append((c[0], 'sanitizer: ' + next(
                (l for l in err.splitlines() if 'Sanitizer' in l or
                 'runtime error' in l), '')))
        if rc not in (0, 1, 3, 4):
            bad.append((c[0], 'exit %d' % rc))
        for line in err.splitlines():
            if line and not STRUCT_RE.search(line):
                bad.append((c[0], 'unnamed: ' + line[:160]))
                break
    return bad


SECONDS_RE = re.compile(rb'("seconds": )[0-9.]+')


def outputs(binary, cmds, timeout):
    """What each command prints (stdout, stderr, exit status), the scan
    time and the binary's own path left out."""
    res = []
    for c in cmds:
        try:
            p = subprocess.run([binary] + c, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout)
            out = (SECONDS_RE.sub(rb'\1T', p.stdout),
                   p.stderr.replace(binary.encode(), b'BIN'), p.returncode)
        except subprocess.TimeoutExpired:
            out = ('hang',)
        res.append(out)
    return res


def same_cmds(opts, img, paths):
    """--same-as: every read command's output from opts.bin and from the
    reference binary, byte for byte; [(command, 'differs')] where not."""
    cmds = [['report', img], ['report', '--json', img], ['check', img],
            ['check', '--json', img], ['plan', '--json', img]]
    if paths:
        cmds.append(['bmap', '-v', img] + paths)
    a = outputs(opts.bin, cmds, opts.timeout)
    b = outputs(opts.same_as, cmds, opts.timeout)
    return [(c[0] + (' --json' if '--json' in c else ''), 'differs')
            for c, x, y in zip(cmds, a, b) if x != y]


def fixture_paths(fixdir, limit):
    p = os.path.join(fixdir, 'paths')
    if os.path.exists(p):
        raw = open(p, 'rb').read()
    elif os.path.exists(p + '.zst'):
        raw = subprocess.run(['zstd', '-dcq', p + '.zst'], check=True,
                             stdout=subprocess.PIPE).stdout
    else:
        return []
    paths = [x.decode('utf-8', 'surrogateescape') for x in raw.split(b'\0')
             if x]
    paths = ['/' if x == '.' else '/' + x.lstrip('./') for x in paths]
    # every path of the smaller fixtures; a fixed sample of the others
    if limit and len(paths) > 4 * limit:
        paths = paths[:1] + random.Random(1).sample(paths[1:], limit - 1)
    return paths


# ---- campaigns -----------------------------------------------------------------

LOG_HEAD_RE = re.compile(r'is ahead of log \((-?\d+):(-?\d+)\)')


def log_head(base):
    """(cycle, block) of the log head as xfs_repair finds it: asked by
    putting AG 0's AGF LSN far ahead for a moment (not the superblock's:
    xfs_repair does not compare that one)."""
    reg = region(base, ['agf 0'])
    if not reg:
        return None
    old = read_at(base, reg[0], reg[1])
    try:
        db(base, ['agf 0', 'write -d lsn %d' % (0x7fff0000 << 32)],
           expert=True)
        _, out, err = sh(['xfs_repair', '-n', base])
    finally:
        write_at(base, reg[0], old)
    m = LOG_HEAD_RE.search(out + err)
    return (int(m.group(1)), int(m.group(2))) if m else None


def prepare(opts, fixture):
    fixdir = os.path.join(opts.fixtures, fixture)
    base = os.path.join(opts.work, fixture + '.base.img')
    if not os.path.exists(base):
        unpack(fixdir, base)
    rng = random.Random('%s:%s' % (opts.seed, fixture))
    head = log_head(base) if opts.lsn_cases else None
    opts.heads[fixture] = head
    cases, lsn = [], []
    for stype, nav in targets(base, fixdir, rng):
        if opts.only and not re.search(opts.only, stype):
            continue
        reg = region(base, nav)
        if not reg:
            continue
        rc, out, _ = db(base, nav + ['print'])
        if rc:
            continue
        for f in parse_fields(out):
            for v in opts.verbs:
                cases.append((stype, nav, f, v, reg))
            if head and (f == 'lsn' or f.endswith('.lsn')):
                for v in LSN_VERBS:
                    lsn.append((stype, nav, f, v, reg))
    rng.shuffle(cases)
    if opts.per_fixture and len(cases) > opts.per_fixture:
        cases = cases[:opts.per_fixture]
    # every structure's LSN (or --lsn-cases of them) on top of the sample
    rng.shuffle(lsn)
    if opts.lsn_cases > 0:
        lsn = lsn[:opts.lsn_cases]
    return fixdir, base, cases + lsn


def field_class(stype, field):
    """Structure type for the figures: inode cases split by field."""
    if not stype.startswith('inode'):
        return stype
    if field.startswith(('core.', 'v3.', 'next_unlinked')):
        return 'inode-core'
    if field.startswith('u3.sfdir') or field.startswith('u.sfdir'):
        return 'dir-shortform'
    if field.startswith(('a.sfattr', 'a.')):
        return 'attr-fork'
    return 'inode-fork'


def work_precheck(args):
    opts, fixture, base, slot, cases = args
    w = Worker(opts, fixture, base, slot)
    res = []
    for case in cases:
        try:
            res.append(precheck_case(opts, w, case))
        except (OSError, subprocess.SubprocessError) as ex:
            res.append((case[0], case[2], case[3], 'error', str(ex)[:200],
                        '', ''))
            w.restore(case[4], full=True)
    return res


def precheck_case(opts, w, case):
    stype, nav, field, verb, reg = case
    patches = w.fuzz(case)
    if not patches:
        w.restore(reg)
        return (stype, field, verb, 'noop', '', '', '')
    rej, rrc, why = repair_rejects(w.w, opts.timeout)
    if not rej:
        # does check find something xfs_repair -n does not (run would
        # refuse an image it accepts)?  Informative: a kernel rule, or
        # lost blocks, can be the reason
        crc, out, err = sh([opts.bin, 'check', w.w], opts.timeout)
        w.restore(reg)
        if crc == 0:
            return (stype, field, verb, 'accepted', '', '', '')
        msg = next((l for l in err.splitlines() if l.strip()), '')
        return (stype, field, verb, 'over', '', clean(msg),
                fmt_patches(patches) + '\t' + ' ; '.join(nav))
    if rrc == 124:
        w.restore(reg)
        return (stype, field, verb, 'repair-hang', '', '', '')
    refused, rc, msg, unchanged, created = run_refuses(opts, w.w, w.undo)
    verdict = 'refused' if refused else 'MISSED'
    if refused and created:
        verdict = 'refused-undo'
    w.restore(reg, full=not unchanged)
    return (stype, field, verb, verdict, why, msg,
            fmt_patches(patches) + '\t' + ' ; '.join(nav))


def work_read(args):
    opts, fixture, base, slot, cases = args
    w = Worker(opts, fixture, base, slot)
    paths = fixture_paths(os.path.join(opts.fixtures, fixture), opts.paths)
    res = []
    for case in cases:
        stype, nav, field, verb, reg = case
        patches = w.fuzz(case)
        if not patches:
            w.restore(reg)
            continue
        bad = same_cmds(opts, w.w, paths) if opts.same_as else \
            read_cmds(opts, w.w, paths)
        res.append((stype, field, verb, bad, fmt_patches(patches)))
        w.restore(reg)
    return res


def split(cases, n):
    return [cases[i::n] for i in range(n)]


def private_bin(opts):
    """Run a copy of the binary: a rebuild during a campaign must not
    change (or break) what is measured."""
    dst = os.path.join(opts.work, 'xfsdefrag.%d' % os.getpid())
    shutil.copy2(opts.bin, dst)
    opts.bin = dst
    if getattr(opts, 'same_as', None):
        ref = os.path.join(opts.work, 'xfsdefrag-ref.%d' % os.getpid())
        shutil.copy2(opts.same_as, ref)
        opts.same_as = ref
    return dst


def campaign(opts, mode):
    t0 = time.time()
    os.makedirs(opts.work, exist_ok=True)
    private_bin(opts)
    allres = {}
    for fx in opts.fixture:
        fixdir, base, cases = prepare(opts, fx)
        jobs = max(1, min(opts.jobs, len(cases)))
        fn = work_precheck if mode == 'precheck' else work_read
        parts = [(opts, fx, base, s, c) for s, c in
                 enumerate(split(cases, jobs))]
        if jobs == 1:
            out = [fn(parts[0])]
        else:
            with mp.Pool(jobs) as pool:
                out = pool.map(fn, parts)
        allres[fx] = [r for o in out for r in o]
        if not opts.keep:
            os.unlink(base)
        for s in range(jobs):
            for suf in ('img', 'undo'):
                p = os.path.join(opts.work, '%s.w%d.%s' % (fx, s, suf))
                if os.path.exists(p):
                    os.unlink(p)
        print('%s: %d cases in %.0f s' % (fx, len(cases), time.time() - t0),
              file=sys.stderr, flush=True)
    return allres


def report_precheck(opts, allres):
    tot = {}
    bytype = {}
    misses, over = [], []
    for fx, res in allres.items():
        for stype, field, verb, verdict, why, msg, rec in res:
            cls = field_class(stype, field)
            for key, d in ((fx, tot), (cls, bytype)):
                c = d.setdefault(key, {})
                c[verdict] = c.get(verdict, 0) + 1
            if verdict == 'MISSED':
                misses.append('\t'.join([fx, cls, field, verb, rec, why, msg]))
            elif verdict == 'over':
                over.append('\t'.join([fx, cls, field, verb, rec, msg]))

    def line(name, c):
        rej = c.get('refused', 0) + c.get('refused-undo', 0) + \
            c.get('MISSED', 0)
        ref = c.get('refused', 0) + c.get('refused-undo', 0)
        return '%-22s %6d %6d %6d %8s %6d %6d %6d' % (
            name, sum(c.values()), rej, ref,
            '%.2f%%' % (100.0 * ref / rej) if rej else '-',
            c.get('MISSED', 0), c.get('refused-undo', 0), c.get('over', 0))

    hdr = '%-22s %6s %6s %6s %8s %6s %6s %6s' % (
        '', 'cases', 'rejctd', 'refusd', 'rate', 'missed', 'undo', 'over')
    print(hdr)
    allc = {}
    for fx in sorted(tot):
        print(line(fx, tot[fx]))
        for k, v in tot[fx].items():
            allc[k] = allc.get(k, 0) + v
    print(line('TOTAL', allc))
    print()
    print(hdr.replace('      ', ' stype', 1))
    for k in sorted(bytype):
        print(line(k, bytype[k]))
    if opts.misses:
        with open(opts.misses, 'w') as f:
            for m in misses:
                f.write(m + '\n')
    if opts.over:
        with open(opts.over, 'w') as f:
            for m in over:
                f.write(m + '\n')
    for m in misses[:opts.show]:
        print('MISS ' + m.split('\t', 5)[0:4].__str__() + ' ' +
              m.split('\t')[-2][:100] + ' | ' + m.split('\t')[-1][:100])
    rej = sum(allc.get(k, 0) for k in ('refused', 'refused-undo', 'MISSED'))
    ref = allc.get('refused', 0) + allc.get('refused-undo', 0)
    return rej, ref


def report_read(opts, allres):
    n = bad = 0
    kinds = {}
    for fx, res in allres.items():
        for stype, field, verb, b, rec in res:
            n += 1
            if b:
                bad += 1
                for cmd, what in b:
                    k = what.split(':')[0].split(' ')[0]
                    kinds[k] = kinds.get(k, 0) + 1
                if bad <= opts.show:
                    print('BAD %s %s %s %s: %s | %s' % (fx, stype, field, verb,
                                                      b[:3], rec))
    print('read campaign: %d images, %d with a failure %s' % (n, bad, kinds))
    return n, bad


def replay(opts):
    """Every recipe must be refused by run, the image untouched (and,
    with --repair, still rejected by xfs_repair -n)."""
    bad = n = 0
    work = {}
    for line in open(opts.recipes):
        if not line.strip() or line.startswith('#'):
            continue
        f = line.rstrip('\n').split('\t')
        if len(f) < 5:
            continue
        fx, cls, field, verb, patches = f[:5]
        fixdir = os.path.join(opts.fixtures, fx)
        if not os.path.exists(os.path.join(fixdir, 'image.zst')):
            print('skip replay %s %s %s %s: no fixture' % (fx, cls, field,
                                                          verb))
            continue
        if fx not in work:
            b = os.path.join(opts.work, fx + '.base.img')
            if not os.path.exists(b):
                unpack(fixdir, b)
            w = os.path.join(opts.work, fx + '.replay.img')
            copy_sparse(b, w)
            work[fx] = (b, w)
        base, w = work[fx]
        pl = parse_patches(patches)
        for off, data in pl:
            write_at(w, off, data)
        n += 1
        what = '%s %s %s %s' % (fx, cls, field, verb)
        if opts.repair and not repair_rejects(w, opts.timeout)[0]:
            bad += 1
            print('FAIL replay %s: xfs_repair -n accepts it' % what)
            refused, created, unchanged = True, False, True
        else:
            refused, rc, msg, unchanged, created = run_refuses(
                opts, w, os.path.join(opts.work, 'replay.undo'))
            if not refused or created:
                bad += 1
                print('FAIL replay %s: run exit %d%s%s: %s' % (
                    what, rc, '' if unchanged else ' (image modified)',
                    ' (undo file created)' if created else '', msg))
            elif opts.verbose:
                print('ok   replay %s: %s' % (what, msg))
        if unchanged:
            for off, data in pl:
                write_at(w, off, read_at(base, off, len(data)))
        else:
            copy_sparse(base, w)
    for base, w in work.values():
        os.unlink(w)
    print('replay: %d recorded misses, %d refused by run' % (n, n - bad))
    return bad if n else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('mode', choices=['precheck', 'read', 'replay'])
    ap.add_argument('fixture', nargs='*')
    ap.add_argument('--bin', required=True)
    ap.add_argument('--fixtures', default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), 'fixtures'))
    ap.add_argument('--work', default='/tmp/fuzzcamp')
    ap.add_argument('--per-fixture', type=int, default=0)
    ap.add_argument('--seed', default='1')
    ap.add_argument('--jobs', type=int, default=1)
    ap.add_argument('--verbs', default=','.join(VERBS))
    ap.add_argument('--lsn-cases', type=int, default=-1,
                    help='cases per fixture that put an LSN at or past the '
                    'log head (%s), on top of --per-fixture: -1 every '
                    'structure with an LSN, 0 none' % ', '.join(LSN_VERBS))
    ap.add_argument('--timeout', type=int, default=120)
    ap.add_argument('--misses')
    ap.add_argument('--over', help='precheck: write the images xfs_repair '
                    '-n accepts but check does not (column "over") here')
    ap.add_argument('--recipes')
    ap.add_argument('--paths', type=int, default=0,
                    help='read: bmap at most this many paths (0: all)')
    ap.add_argument('--show', type=int, default=40)
    ap.add_argument('--keep', action='store_true',
                    help='keep the unpacked base images in --work')
    ap.add_argument('--min-rate', type=float, default=0.0)
    ap.add_argument('--min-rejected', type=int, default=0)
    ap.add_argument('--min-images', type=int, default=0,
                    help='read: fail with fewer damaged images')
    ap.add_argument('--verbose', action='store_true')
    ap.add_argument('--paranoid', action='store_true',
                    help='also compare digests of the whole image')
    ap.add_argument('--repair', action='store_true',
                    help='replay: xfs_repair -n must still reject each')
    ap.add_argument('--only', help='structure types matching this regex')
    ap.add_argument('--same-as', metavar='REFBIN',
                    help='read: instead of the rules, every read command '
                    'must print exactly what REFBIN prints (a change that '
                    'must not change output, such as a faster scan)')
    opts = ap.parse_intermixed_args()
    opts.bin = os.path.abspath(opts.bin)
    if opts.same_as:
        opts.same_as = os.path.abspath(opts.same_as)
    opts.verbs = opts.verbs.split(',')
    opts.heads = {}
    if opts.mode == 'replay':
        os.makedirs(opts.work, exist_ok=True)
        private_bin(opts)
        sys.exit(1 if replay(opts) else 0)
    if not opts.fixture:
        sys.exit('fuzzcamp: no fixtures named')
    allres = campaign(opts, opts.mode)
    if opts.mode == 'precheck':
        rej, ref = report_precheck(opts, allres)
        rate = 100.0 * ref / rej if rej else 0.0
        print('precheck campaign: %d rejected by xfs_repair -n, %d refused '
              'by run: %.2f%%' % (rej, ref, rate))
        ok = rej >= opts.min_rejected and rate >= opts.min_rate
        sys.exit(0 if ok else 1)
    n, bad = report_read(opts, allres)
    sys.exit(1 if bad or n == 0 or n < opts.min_images else 0)


if __name__ == '__main__':
    main()
