#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""imgsum.py FILE...: one SHA-256 per file of the bytes it reads as, but
read from its data segments only (SEEK_DATA/SEEK_HOLE), so that a sparse
500 MiB image costs what its few MiB of data cost, not 2 s of hashing
zeros (sha256sum reads every hole).

The digest covers the file size and every 4 KiB block that is not all
zeros, with its offset; holes read as zeros, so where the file system
put holes or zeros does not matter: two files have the same digest
exactly when cmp(1) finds them equal."""
import errno
import hashlib
import os
import sys

BS = 4096
CHUNK = 1 << 20
ZERO = bytes(BS)


def digest(path):
    h = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        h.update(b"size %d\n" % size)
        done = 0                # blocks before this offset are hashed
        while done < size:
            try:
                data = os.lseek(fd, done, os.SEEK_DATA)
            except OSError as e:
                if e.errno == errno.ENXIO:      # only a hole is left
                    break
                raise
            hole = os.lseek(fd, data, os.SEEK_HOLE)
            pos = max(done, data - data % BS)
            end = min(size, -(-hole // BS) * BS)
            while pos < end:
                buf = os.pread(fd, min(CHUNK, end - pos), pos)
                if not buf:
                    raise OSError(errno.EIO, "short read", path)
                mv = memoryview(buf)
                for i in range(0, len(buf), BS):
                    blk = mv[i:i + BS]
                    if blk != ZERO[:len(blk)]:
                        h.update(b"%d\n" % (pos + i))
                        h.update(blk)
                pos += len(buf)
            done = max(done, end)
    finally:
        os.close(fd)
    return h.hexdigest()


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: imgsum.py FILE...")
    for p in sys.argv[1:]:
        print(digest(p) + ("  " + p if len(sys.argv) > 2 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
