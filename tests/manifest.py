#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Content manifest of a mounted filesystem, independent of block layout.

Prints one line per path (sorted bytewise): type, mode, owner, size,
times, link count, hard-link group, sha256 of the content, symlink
target, extended attributes (names and sha256 of values), and the
logical extent map (data / unwritten / hole runs, with the shared flag)
from FIEMAP.  Then the reflink relation: which ranges of which files
share physical blocks with which others, expressed in file offsets only.
With the parent feature, each file's parent pointers as the kernel reads
them (XFS_IOC_GETPARENTS), with the first path of its hard-link group:
the directory (by path) and name of each, and a mark where a pointer's
generation is not its directory's.
Two manifests of the same filesystem before and after a relocation must
be identical.  Inode numbers are left out (a renumbering run changes
them; the hard-link groups, named by their first path, must not).
Usage: manifest.py [--no-dir-size] MOUNTPOINT
       manifest.py --inodes MOUNTPOINT   (one "inode path" line per path)
--no-dir-size: directories' sizes left out (a shortform directory's
shrinks when its inode numbers go from 8 to 4 bytes).
"""
import array
import ctypes
import fcntl
import hashlib
import os
import stat
import struct
import sys

FS_IOC_FIEMAP = 0xC020660B
FIEMAP_FLAG_SYNC = 0x1
FIEMAP_EXTENT_LAST = 0x1
FIEMAP_EXTENT_UNWRITTEN = 0x800
FIEMAP_EXTENT_SHARED = 0x2000
XFS_IOC_GETPARENTS = 0xC028583E  # _IOWR('X', 62, struct xfs_getparents)
XFS_GETPARENTS_OFLAG_DONE = 0x2
FS_IOC_GETVERSION = 0x80087601


def fiemap(fd, size):
    """Logical extents: (logical, physical, length, flags)."""
    out = []
    start = 0
    while True:
        count = 512
        hdr = struct.pack("=QQLLLL", start, 0xFFFFFFFFFFFFFFFF,
                          FIEMAP_FLAG_SYNC, 0, count, 0)
        buf = bytearray(hdr + b"\0" * (56 * count))
        fcntl.ioctl(fd, FS_IOC_FIEMAP, buf)
        mapped = struct.unpack_from("=L", buf, 20)[0]
        last = False
        for i in range(mapped):
            lo, ph, ln, _, _, fl, _, _, _ = struct.unpack_from(
                "=QQQQQLLLL", buf, 32 + 56 * i)
            out.append((lo, ph, ln, fl))
            if fl & FIEMAP_EXTENT_LAST:
                last = True
        if last or mapped == 0:
            break
        lo, ph, ln, fl = out[-1]
        start = lo + ln
    return out


def logical_map(exts):
    """Merge logically adjacent runs of the same kind: layout-free."""
    runs = []
    for lo, _, ln, fl in exts:
        kind = ("u" if fl & FIEMAP_EXTENT_UNWRITTEN else "d") + \
               ("s" if fl & FIEMAP_EXTENT_SHARED else "")
        if runs and runs[-1][2] == kind and runs[-1][0] + runs[-1][1] == lo:
            runs[-1][1] += ln
        else:
            runs.append([lo, ln, kind])
    return ",".join("%d+%d%s" % (a, b, k) for a, b, k in runs)


def xattrs(path):
    out = []
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError:
        return ""
    for n in sorted(names):
        v = os.getxattr(path, n, follow_symlinks=False)
        out.append("%s=%s" % (n, hashlib.sha256(v).hexdigest()[:16]))
    return ";".join(out)


PP_BUFSIZE = 65536
PP_BUF = ctypes.create_string_buffer(PP_BUFSIZE)


def getparents(fd):
    """The kernel's parent pointers of fd: [(parent ino, gen, name)], or
    None where there are none (no parent feature)."""
    out = []
    req = bytearray(40)
    struct.pack_into("=QQ", req, 24, 0, ctypes.addressof(PP_BUF))
    struct.pack_into("=L", req, 20, PP_BUFSIZE)
    while True:
        struct.pack_into("=L", req, 20, PP_BUFSIZE)
        try:
            fcntl.ioctl(fd, XFS_IOC_GETPARENTS, req)
        except OSError:
            return None
        # the kernel leaves in gp_bufsize the bytes its records take
        oflags, used = struct.unpack_from("=HL", req, 18)
        buf = ctypes.string_at(PP_BUF, used)
        at = 0
        while at + 32 <= used:
            _, _, gen, ino, reclen = struct.unpack_from("=HHLQL", buf,
                                                        at + 8)
            if reclen == 0:
                break
            name = buf[at + 32:at + reclen].split(b"\0")[0]
            out.append((ino, gen, name))
            at += reclen
        if oflags & XFS_GETPARENTS_OFLAG_DONE:
            break
    return out


def generation(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        v = bytearray(8)
        fcntl.ioctl(fd, FS_IOC_GETVERSION, v)
        return struct.unpack("=L", v[:4])[0]
    finally:
        os.close(fd)


def inodes(root):
    """Each path with its inode number: for counting renumbered inodes."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            out.append((repr(os.path.relpath(p, root))[2:-1],
                        os.lstat(p).st_ino))
    out.append((".", os.lstat(root).st_ino))
    for rel, ino in sorted(out):
        print(ino, rel)


def main():
    if sys.argv[1] == "--inodes":
        inodes(sys.argv[2].encode())
        return
    args = sys.argv[1:]
    dirsize = "--no-dir-size" not in args
    args = [a for a in args if a != "--no-dir-size"]
    root = args[0].encode()
    entries = []
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            entries.append(os.path.join(dirpath, n))
    entries.append(root)
    entries.sort()
    groups = {}
    shared = []     # (physical, length, path, logical)
    lines = []
    dirs = {}       # inode number -> (path, generation)
    for p in entries:
        st = os.lstat(p)
        if stat.S_ISDIR(st.st_mode):
            dirs[st.st_ino] = (os.path.relpath(p, root), generation(p))
    for p in entries:
        rel = os.path.relpath(p, root)
        st = os.lstat(p)
        key = (st.st_dev, st.st_ino)
        group = groups.setdefault(key, rel)
        f = [repr(rel)[2:-1], "%o" % st.st_mode, "%d:%d" % (st.st_uid,
             st.st_gid), str(st.st_size) if dirsize or
             not stat.S_ISDIR(st.st_mode) else "-", "m%d" % st.st_mtime_ns,
             "c%d" % st.st_ctime_ns, "n%d" % st.st_nlink,
             "g=" + repr(group)[2:-1]]
        if stat.S_ISREG(st.st_mode):
            h = hashlib.sha256()
            fd = os.open(p, os.O_RDONLY)
            try:
                while True:
                    b = os.read(fd, 1 << 20)
                    if not b:
                        break
                    h.update(b)
                exts = fiemap(fd, st.st_size)
            finally:
                os.close(fd)
            f.append("sha=" + h.hexdigest())
            f.append("map=" + logical_map(exts))
            if group == rel:
                for lo, ph, ln, fl in exts:
                    if fl & FIEMAP_EXTENT_SHARED:
                        shared.append((ph, ln, rel, lo))
        elif stat.S_ISLNK(st.st_mode):
            f.append("-> " + repr(os.readlink(p))[2:-1])
        f.append("x=" + xattrs(p))
        # a hard-link group's pointers once, with its first path (a
        # file with thousands of links has as many pointers)
        if stat.S_ISLNK(st.st_mode) or group != rel:
            pp = None   # GETPARENTS needs an open file
        else:
            fd = os.open(p, os.O_RDONLY)
            try:
                pp = getparents(fd)
            finally:
                os.close(fd)
        if pp is not None and p != root:
            ps = []
            for ino, gen, name in pp:
                d = dirs.get(ino)
                mark = "" if d and d[1] == gen else "!GEN"
                ps.append(repr(os.path.join(d[0] if d else b"?%d" % ino,
                                            name))[2:-1] + mark)
            f.append("p=" + ";".join(sorted(ps)))
        lines.append(" ".join(f))
    for l in lines:
        print(l)
    # reflink relation, in logical terms: overlapping physical ranges
    shared.sort()
    rel = set()
    for i, (ph, ln, path, lo) in enumerate(shared):
        for ph2, ln2, path2, lo2 in shared[i + 1:]:
            if ph2 >= ph + ln:
                break
            a = max(ph, ph2)
            b = min(ph + ln, ph2 + ln2)
            x = (repr(path)[2:-1], lo + a - ph, repr(path2)[2:-1],
                 lo2 + a - ph2, b - a)
            y = (x[2], x[3], x[0], x[1], x[4])
            rel.add(min(x, y))
    merged = []
    for r in sorted(rel):
        if merged:
            a, oa, b, ob, n = merged[-1]
            if a == r[0] and b == r[2] and oa + n == r[1] and ob + n == r[3]:
                merged[-1] = (a, oa, b, ob, n + r[4])
                continue
        merged.append(r)
    for r in merged:
        print("shares %s@%d %s@%d +%d" % r)


if __name__ == "__main__":
    main()
