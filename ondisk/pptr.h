/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parent pointers (xfs_da_format.h: struct xfs_parent_rec; the kernel's
 * xfs_parent.c): with the parent feature every directory entry has a
 * mirror on the inode it names, an attribute in the PARENT namespace
 * whose name is the entry's name and whose value is the directory's
 * inode number and generation.  Its name hash is the directory-entry
 * hash of the name, xor both halves of the directory's inode number, so
 * that one name under two parents hashes apart.
 */
#ifndef OD_PPTR_H
#define OD_PPTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OD_PPTR_REC_LEN		12	/* __be64 p_ino, __be32 p_gen */
#define OD_MAXNAMELEN		256	/* with the NUL: names are < 256 */

struct od_pptr_rec {
	uint64_t ino;
	uint32_t gen;
};

/* The value of a parent pointer: false when it is not 12 bytes. */
bool od_pptr_decode(const uint8_t *val, size_t len, struct od_pptr_rec *r);
void od_pptr_encode(uint8_t *val, const struct od_pptr_rec *r);

/* xfs_parent_hashval (asciici: the filesystem folds case in names). */
uint32_t od_pptr_hash(const uint8_t *name, size_t len, uint64_t parent,
		      bool asciici);

/* xfs_dir2_namecheck: shorter than 256 bytes, no '/' and no NUL. */
bool od_pptr_name_ok(const uint8_t *name, size_t len);

#endif
