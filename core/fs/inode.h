/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Read one inode by number. */
#ifndef CORE_INODE_H
#define CORE_INODE_H

#include "core/fs/fs.h"
#include "ondisk/inode.h"

#define INODE_MAX_SIZE	2048

struct inode {
	struct od_inode di;
	uint8_t raw[INODE_MAX_SIZE];	/* the on-disk bytes, inodesize long */
};

/*
 * Read and verify inode ino.  An unallocated slot (mode 0) or a number
 * outside the filesystem is an error naming the inode.
 */
int inode_read(struct fs *fs, uint64_t ino, struct inode *ip, struct err *e);
/* Decode an inode already in memory (the scanner reads whole clusters). */
int inode_decode(struct fs *fs, uint64_t ino, const uint8_t *buf,
		 struct inode *ip, struct err *e);

/* Daddr of the sector holding inode ino, and its byte offset there. */
uint64_t inode_daddr(const struct od_geo *g, uint64_t ino, uint32_t *off);

/* Data (0) or attr (1) fork bytes of an inode. */
const uint8_t *inode_fork(const struct inode *ip, int whichfork,
			  uint32_t *len);
/* Format and record count of a fork; format -1 when the fork is absent. */
int inode_fork_format(const struct inode *ip, int whichfork);
uint64_t inode_fork_nextents(const struct inode *ip, int whichfork);

#endif
