#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Byte-level editing of XFS test images, for the bad-input tests and the
fuzzer's seed images.  Only ever pointed at scratch copies.

    xfsedit.py IMG geo                      shell assignments: BS=4096 ...
    xfsedit.py IMG inooff INO               byte offset of an inode
    xfsedit.py IMG fsboff FSB               byte offset of a packed fsbno
    xfsedit.py IMG extents INO              "startoff startblock count" lines
                                            (extents or btree format)
    xfsedit.py IMG poke OFF FMT VALUE       FMT: u8 be16 be32 be64 hex, or64
                                            (bits or'ed into a be64)
    xfsedit.py IMG crc KIND OFF             recompute a CRC (v4: no-op)
    xfsedit.py IMG badcrc KIND OFF          store a CRC that is off by one
    xfsedit.py IMG inode-crc INO            recompute an inode's CRC (v4: no-op)
    xfsedit.py IMG lastent OFF              last used entry of a dir data block
    xfsedit.py IMG fix-symlink INO          give a v5 remote symlink its header
    xfsedit.py IMG mkbtree INO              data fork -> 3-level bmbt; prints
                                            "N2 N1 L0 L1" block fsbnos
    xfsedit.py IMG share INO N              v5: the file's first N blocks are
                                            shared (refcountbt record, flag)

Several commands may be given, separated by ';' words.
KIND: sb agf agi agfl inode sblock lblock dir3data da3 symlink.  CRCs are
CRC-32C, seed ~0, over the structure with the crc field zeroed, stored
inverted little-endian (xfs_cksum.h).
"""
import struct
import sys

_T = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _T.append(_c)


def crc32c(data, crc=0xFFFFFFFF):
    for b in data:
        crc = _T[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


class Img:
    def __init__(self, path):
        self.f = open(path, 'r+b')
        sb = self.read(0, 512)
        if sb[:4] != b'XFSB':
            sys.exit('xfsedit: %s: no XFS superblock' % path)
        self.bs, = struct.unpack('>I', sb[4:8])
        self.dblocks, = struct.unpack('>Q', sb[8:16])
        self.uuid = sb[32:48]
        self.rootino, = struct.unpack('>Q', sb[56:64])
        self.agblocks, self.agcount = struct.unpack('>II', sb[84:92])
        self.versionnum, self.sectsize, self.inodesize = \
            struct.unpack('>HHH', sb[100:106])
        self.blocklog, self.inopblog, self.agblklog = sb[120], sb[123], sb[124]
        self.dirblklog = sb[192]
        self.v5 = (self.versionnum & 0xf) == 5
        if self.v5:
            incompat, = struct.unpack('>I', sb[216:220])
            if incompat & 0x4:          # meta_uuid
                self.uuid = sb[248:264]
        self.dirblksize = self.bs << self.dirblklog
        self.ftype = True

    def read(self, off, n):
        self.f.seek(off)
        return self.f.read(n)

    def write(self, off, data):
        self.f.seek(off)
        self.f.write(data)

    # address conversions (xfs_format.h)
    def fsb_off(self, fsb):
        agno, agbno = fsb >> self.agblklog, fsb & ((1 << self.agblklog) - 1)
        return (agno * self.agblocks + agbno) * self.bs

    def fsb_daddr(self, fsb):
        return self.fsb_off(fsb) >> 9

    def ino_off(self, ino):
        agino_log = self.inopblog + self.agblklog
        agno, agino = ino >> agino_log, ino & ((1 << agino_log) - 1)
        agbno, idx = agino >> self.inopblog, agino & ((1 << self.inopblog) - 1)
        return (agno * self.agblocks + agbno) * self.bs + idx * self.inodesize

    # checksums
    KINDS = {  # crc offset, length
        'sb': (224, 'sect'), 'agf': (216, 'sect'), 'agi': (312, 'sect'),
        'agfl': (32, 'sect'), 'inode': (100, 'inode'), 'sblock': (52, 'blk'),
        'lblock': (64, 'blk'), 'dir3data': (4, 'dir'), 'da3': (12, 'dir'),
        'symlink': (12, 'blk'),
    }

    def cksum(self, kind, off, delta=0):
        crc_off, what = self.KINDS[kind]
        n = {'sect': self.sectsize, 'inode': self.inodesize, 'blk': self.bs,
             'dir': self.dirblksize}[what]
        buf = bytearray(self.read(off, n))
        buf[crc_off:crc_off + 4] = b'\0\0\0\0'
        crc = (~crc32c(buf) + delta) & 0xFFFFFFFF
        self.write(off + crc_off, struct.pack('<I', crc))

    def inode_crc(self, ino):
        if self.v5:
            self.cksum('inode', self.ino_off(ino))

    # inode forks
    def lit_off(self):
        return 176 if self.v5 else 100

    def nextents_off(self, off):
        """Where an inode's data fork extent count is (nrext64: 64 bits)."""
        if self.v5 and struct.unpack('>Q', self.read(off + 120, 8))[0] & 0x10:
            return off + 24, '>Q'
        return off + 76, '>I'

    def dfork(self, ino):
        off = self.ino_off(ino)
        core = self.read(off, 176)
        fmt, forkoff = core[5], core[82]
        noff, nfmt = self.nextents_off(off)
        nextents, = struct.unpack(nfmt, self.read(noff, struct.calcsize(nfmt)))
        size = forkoff * 8 if forkoff else self.inodesize - self.lit_off()
        return off, fmt, nextents, off + self.lit_off(), size

    def extents(self, ino):
        off, fmt, n, foff, fsize = self.dfork(ino)
        if fmt == 2:
            return [unpack_rec(self.read(foff + 16 * i, 16))
                    for i in range(n)]
        if fmt != 3:
            sys.exit('xfsedit: inode %d: data fork has no extents' % ino)
        level, nrecs = struct.unpack('>HH', self.read(foff, 4))
        maxrecs = (fsize - 4) // 16
        ptrs = [struct.unpack('>Q', self.read(foff + 4 + 8 * maxrecs + 8 * i,
                                              8))[0] for i in range(nrecs)]
        return [r for p in ptrs for r in self.bmbt_recs(p)]

    def bmbt_recs(self, fsb):
        blk = self.read(self.fsb_off(fsb), self.bs)
        hl = 72 if self.v5 else 24
        level, nrecs = struct.unpack('>HH', blk[4:8])
        if level == 0:
            return [unpack_rec(blk[hl + 16 * i:hl + 16 * i + 16])
                    for i in range(nrecs)]
        maxrecs = (self.bs - hl) // 16
        return [r for i in range(nrecs)
                for r in self.bmbt_recs(struct.unpack_from(
                    '>Q', blk, hl + 8 * maxrecs + 8 * i)[0])]

    # directories
    def lastent(self, off):
        buf = self.read(off, self.dirblksize)
        pos = 64 if self.v5 else 16
        end = self.dirblksize
        if buf[:4] in (b'XDB3', b'XD2B'):
            count, = struct.unpack('>I', buf[end - 8:end - 4])
            end -= 8 + 8 * count
        last = None
        while pos < end:
            if buf[pos:pos + 2] == b'\xff\xff':
                pos += struct.unpack('>H', buf[pos + 2:pos + 4])[0]
                continue
            namelen = buf[pos + 8]
            last = (pos, bytes(buf[pos + 9:pos + 9 + namelen]))
            pos += (8 + 1 + namelen + 1 + 2 + 7) & ~7
        return last


def unpack_rec(b):
    l0, l1 = struct.unpack('>QQ', b)
    return ((l0 & ((1 << 63) - 1)) >> 9,
            (l0 & 0x1ff) << 43 | l1 >> 21, l1 & ((1 << 21) - 1))


def pack_rec(startoff, startblock, count):
    l0 = (startoff << 9) | (startblock >> 43)
    l1 = ((startblock & ((1 << 43) - 1)) << 21) | count
    return struct.pack('>QQ', l0, l1)


def fix_symlink(im, ino):
    """mkfs.xfs 6.1 writes v5 remote symlink blocks without their header."""
    off, fmt, n, foff, _ = im.dfork(ino)
    if fmt == 1:
        return                          # inline (big inodes): no block
    size, = struct.unpack('>Q', im.read(off + 56, 8))
    (startoff, fsb, count), = im.extents(ino)
    target = im.read(im.fsb_off(fsb), size)
    if target[:4] == b'XSLM' or size + 56 > im.bs:
        sys.exit('xfsedit: inode %d: not a one-block headerless symlink' % ino)
    blk = bytearray(im.bs)
    struct.pack_into('>4sII', blk, 0, b'XSLM', 0, size)
    blk[16:32] = im.uuid
    struct.pack_into('>QQ', blk, 32, ino, im.fsb_daddr(fsb))
    blk[56:56 + size] = target
    im.write(im.fsb_off(fsb), bytes(blk))
    im.cksum('symlink', im.fsb_off(fsb))


def free_blocks(im, agno, n):
    """n blocks from the end of the longest free extent of AG agno."""
    agf = im.read((agno * im.agblocks) * im.bs + im.sectsize, 64)
    root, = struct.unpack('>I', agf[16:20])
    level, = struct.unpack('>I', agf[28:32])
    if level != 1:
        sys.exit('xfsedit: ag %d bnobt is not a single leaf' % agno)
    blk = im.read((agno * im.agblocks + root) * im.bs, im.bs)
    hl = 56 if im.v5 else 16
    nrec, = struct.unpack('>H', blk[6:8])
    recs = [struct.unpack('>II', blk[hl + 8 * i:hl + 8 * i + 8])
            for i in range(nrec)]
    start, length = max(recs, key=lambda r: r[1])
    if length < n + 1:
        sys.exit('xfsedit: no room in ag %d' % agno)
    return [(agno << im.agblklog) | (start + length - 1 - i) for i in range(n)]


NULLFSBLOCK = 0xFFFFFFFFFFFFFFFF


def lblock(im, fsb, level, ino, nrecs, left=NULLFSBLOCK, right=NULLFSBLOCK):
    """A long-format (bmbt) block header; returns (buf, hdr_len)."""
    blk = bytearray(im.bs)
    magic = b'BMA3' if im.v5 else b'BMAP'
    struct.pack_into('>4sHHQQ', blk, 0, magic, level, nrecs, left, right)
    if not im.v5:
        return blk, 24
    struct.pack_into('>QQ', blk, 24, im.fsb_daddr(fsb), 0)
    blk[40:56] = im.uuid
    struct.pack_into('>Q', blk, 56, ino)
    return blk, 72


def put_lblock(im, fsb, blk):
    im.write(im.fsb_off(fsb), bytes(blk))
    if im.v5:
        im.cksum('lblock', im.fsb_off(fsb))


def mkbtree(im, ino):
    """Rewrite a one-extent file as 30 one-block extents (with holes
    between them) held in a 3-level bmbt: inode root (level 3) -> N2 ->
    N1 -> leaves L0 and L1, 15 records each.  (More records than fit in
    the inode, but fewer than xfs_repair's minimum per block.)"""
    (startoff, base, count), = im.extents(ino)
    if startoff != 0 or count < 60:
        sys.exit('xfsedit: inode %d: need one extent of 60+ blocks' % ino)
    recs = [(2 * i, base + 2 * i, 1) for i in range(30)]
    n2, n1, l0, l1 = free_blocks(im, (base >> im.agblklog) ^ 1, 4)
    for fsb, part, left, right in ((l0, recs[:15], NULLFSBLOCK, l1),
                                   (l1, recs[15:], l0, NULLFSBLOCK)):
        blk, hl = lblock(im, fsb, 0, ino, len(part), left, right)
        for i, r in enumerate(part):
            blk[hl + 16 * i:hl + 16 * i + 16] = pack_rec(*r)
        put_lblock(im, fsb, blk)
    for fsb, level, kids in ((n1, 1, [(0, l0), (30, l1)]), (n2, 2, [(0, n1)])):
        blk, hl = lblock(im, fsb, level, ino, len(kids))
        maxrecs = (im.bs - hl) // 16
        for i, (key, ptr) in enumerate(kids):
            struct.pack_into('>Q', blk, hl + 8 * i, key)
            struct.pack_into('>Q', blk, hl + 8 * maxrecs + 8 * i, ptr)
        put_lblock(im, fsb, blk)
    off, fmt, n, foff, fsize = im.dfork(ino)
    root = bytearray(fsize)
    maxrecs = (fsize - 4) // 16
    struct.pack_into('>HHQ', root, 0, 3, 1, 0)
    struct.pack_into('>Q', root, 4 + 8 * maxrecs, n2)
    im.write(foff, bytes(root))
    im.write(off + 5, b'\x03')                          # di_format: btree
    noff, nfmt = im.nextents_off(off)
    im.write(noff, struct.pack(nfmt, len(recs)))        # di_nextents
    im.write(off + 64, struct.pack('>Q', len(recs) + 4))  # di_nblocks
    im.inode_crc(ino)
    return n2, n1, l0, l1


def share(im, ino, n):
    """Mark the first n blocks of a file's first extent shared (refcount
    2) in its AG's refcount btree, an empty leaf, and flag the inode
    reflinked: what a reflink copy whose twin was deleted leaves."""
    (startoff, fsb, count), = im.extents(ino)[:1]
    agno, agbno = fsb >> im.agblklog, fsb & ((1 << im.agblklog) - 1)
    agf = im.read(agno * im.agblocks * im.bs + im.sectsize, 96)
    root, level = struct.unpack('>II', agf[88:96])
    off = (agno * im.agblocks + root) * im.bs
    if level != 1 or struct.unpack('>H', im.read(off + 6, 2))[0] != 0:
        sys.exit('xfsedit: ag %d refcountbt is not an empty leaf' % agno)
    im.write(off + 6, struct.pack('>H', 1))
    im.write(off + 56, struct.pack('>III', agbno, min(n, count), 2))
    im.cksum('sblock', off)
    ioff = im.ino_off(ino)
    flags2, = struct.unpack('>Q', im.read(ioff + 120, 8))
    im.write(ioff + 120, struct.pack('>Q', flags2 | 2))   # reflink
    im.inode_crc(ino)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    im = Img(argv[1])
    cmd = []
    for a in argv[2:] + [';']:          # commands separated by ';' words
        if a != ';':
            cmd.append(a)
        elif cmd:
            run(im, cmd[0], cmd[1:])
            cmd = []
    im.f.close()


def run(im, cmd, args):
    if cmd == 'geo':
        for k in ('bs', 'sectsize', 'agblocks', 'agcount', 'agblklog',
                  'dblocks', 'inodesize', 'inopblog', 'dirblksize',
                  'rootino'):
            print('%s=%d' % (k.upper(), getattr(im, k)))
        print('V5=%d' % im.v5)
    elif cmd == 'inooff':
        print(im.ino_off(int(args[0], 0)))
    elif cmd == 'fsboff':
        print(im.fsb_off(int(args[0], 0)))
    elif cmd == 'extents':
        for r in im.extents(int(args[0], 0)):
            print('%d %d %d' % r)
    elif cmd == 'poke':
        off, fmt, val = int(args[0], 0), args[1], args[2]
        if fmt == 'hex':
            data = bytes.fromhex(val)
        elif fmt == 'or64':
            old, = struct.unpack('>Q', im.read(off, 8))
            data = struct.pack('>Q', old | int(val, 0))
        else:
            data = struct.pack({'u8': '>B', 'be16': '>H', 'be32': '>I',
                                'be64': '>Q'}[fmt], int(val, 0))
        im.write(off, data)
    elif cmd in ('crc', 'badcrc'):
        if im.v5:                       # v4: no CRCs, nothing to do
            im.cksum(args[0], int(args[1], 0), 1 if cmd == 'badcrc' else 0)
    elif cmd == 'inode-crc':
        im.inode_crc(int(args[0], 0))
    elif cmd == 'lastent':
        pos, name = im.lastent(int(args[0], 0))
        print(pos, name.decode('latin-1'))
    elif cmd == 'fix-symlink':
        fix_symlink(im, int(args[0], 0))
    elif cmd == 'share':
        share(im, int(args[0], 0), int(args[1], 0))
    elif cmd == 'mkbtree':
        print(*mkbtree(im, int(args[0], 0)))
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv)
