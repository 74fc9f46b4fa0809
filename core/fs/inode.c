/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/fs/inode.h"

#include <stdio.h>
#include <string.h>

uint64_t inode_daddr(const struct od_geo *g, uint64_t ino, uint32_t *off)
{
	uint32_t agno = od_ino_agno(g, ino), agino = od_ino_agino(g, ino);
	uint64_t byte = (od_agb_lin(g, agno, od_agino_agbno(g, agino)) <<
			 g->blocklog) +
			((uint64_t)od_agino_offset(g, agino) << g->inodelog);

	*off = (uint32_t)(byte & 511);
	return byte >> 9;
}

int inode_decode(struct fs *fs, uint64_t ino, const uint8_t *buf,
		 struct inode *ip, struct err *e)
{
	const char *field;
	enum od_err oe;
	char what[64];

	if (buf != ip->raw)
		memcpy(ip->raw, buf, fs->geo.inodesize);
	oe = od_inode_decode(ip->raw, fs->geo.inodesize, &fs->geo, ino,
			     &ip->di, &field);
	if (oe) {
		snprintf(what, sizeof(what), "inode %llu",
			 (unsigned long long)ino);
		return err_od(e, oe, field, what);
	}
	return 0;
}

int inode_read(struct fs *fs, uint64_t ino, struct inode *ip, struct err *e)
{
	const struct od_geo *g = &fs->geo;
	uint8_t buf[INODE_MAX_SIZE + 512];
	uint32_t off;
	uint64_t daddr;
	char what[64];
	int ret;

	if (!od_ino_valid(g, ino))
		return err_set(e, -EFSCORRUPTED, "inode %llu: number is "
			       "outside the filesystem",
			       (unsigned long long)ino);
	snprintf(what, sizeof(what), "inode %llu", (unsigned long long)ino);
	daddr = inode_daddr(g, ino, &off);
	ret = fs_read_daddr(fs, daddr, buf, off + g->inodesize, e, what);
	if (ret)
		return ret;
	ret = inode_decode(fs, ino, buf + off, ip, e);
	if (ret)
		return ret;
	if (ip->di.mode == 0)
		return err_set(e, -ENOENT, "inode %llu is not in use",
			       (unsigned long long)ino);
	return 0;
}

const uint8_t *inode_fork(const struct inode *ip, int whichfork,
			  uint32_t *len)
{
	return od_inode_fork(&ip->di, ip->raw, whichfork, len);
}

int inode_fork_format(const struct inode *ip, int whichfork)
{
	if (whichfork == 0)
		return ip->di.format;
	return ip->di.forkoff ? ip->di.aformat : -1;
}

uint64_t inode_fork_nextents(const struct inode *ip, int whichfork)
{
	return whichfork == 0 ? ip->di.nextents : ip->di.anextents;
}
