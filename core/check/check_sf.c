/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shortform directories (the kernel's xfs_dir2_sf_verify and xfs_repair's
 * process_sf_dir2): the header and parent, entries that tile the fork up
 * to the inode size exactly, offsets that increase and would fit in one
 * directory block, inode numbers and file types, i8count matching the
 * inode numbers that need 8 bytes; and, for every directory, its names
 * (no '/' or NUL, no duplicates; one "." and one ".." in a longform
 * directory, none in a shortform one, where they are implicit).
 */
#include "core/check/check_dir.h"
#include "core/base/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHORT_INUM	0xffffffffull	/* XFS_DIR2_MAX_SHORT_INUM */

static void sf_bad(struct dirck *k, const char *msg)
{
	if (k->problems++ >= DIRCK_MAX_PROBLEMS) {
		k->ca->log.count++;
		return;
	}
	check_problem(&k->ca->log, DIR_SF, k->ino, msg);
}

void dirck_shortform(struct dirck *k)
{
	const struct od_geo *g = k->g;
	const struct inode *ip = &k->d->ip;
	uint32_t len, pos, i, i8 = 0, offset;
	const uint8_t *fork = inode_fork(ip, FORK_DATA, &len);
	struct od_dir2_sf hdr;
	const char *field;
	char msg[128];
	int ret;

	if (ip->di.size < len)
		len = (uint32_t)ip->di.size;
	if (od_dir2_sf_hdr(fork, len, &hdr, &field)) {
		sf_bad(k, "header does not fit the inode size");
		return;
	}
	if (!od_ino_valid(g, hdr.parent))
		sf_bad(k, "parent is not a valid inode number");
	i8 = hdr.parent > MAX_SHORT_INUM;
	/* xfs_dir2_data_first_offset: header, ".", ".." */
	offset = (g->v5 ? 64 : 16) + 2 * od_dir2_data_entsize(g->ftype, 1);
	pos = hdr.hdr_len;
	for (i = 0; i < hdr.count; i++) {
		struct od_dirent de;
		uint32_t at = pos;

		if (od_dir2_sf_entry(fork, len, &hdr, g->ftype, &pos, &de,
				     &field)) {
			snprintf(msg, sizeof(msg), "entry %u (at byte %u) does "
				 "not fit the inode size %llu", i, at,
				 (unsigned long long)ip->di.size);
			sf_bad(k, msg);
			return;
		}
		if (de.offset < offset) {
			snprintf(msg, sizeof(msg), "entry %u: offset %u below "
				 "the end of the one before it (%u)", i,
				 de.offset, offset);
			sf_bad(k, msg);
		}
		offset = de.offset + od_dir2_data_entsize(g->ftype, de.namelen);
		if (!od_ino_valid(g, de.ino) ||
		    (g->ftype && de.ftype >= OD_FT_MAX)) {
			snprintf(msg, sizeof(msg), "entry %u: inode %llu, file "
				 "type %u", i, (unsigned long long)de.ino,
				 de.ftype);
			sf_bad(k, msg);
		}
		i8 += de.ino > MAX_SHORT_INUM;
		ret = dirck_add(k, de.name, de.namelen, de.offset);
		if (ret) {
			check_fatal(k->c, ret);
			return;
		}
	}
	if (i8 != hdr.i8count) {
		snprintf(msg, sizeof(msg), "i8count %u, but %u inode numbers "
			 "need 8 bytes", hdr.i8count, i8);
		sf_bad(k, msg);
	}
	if (pos != len || len != ip->di.size) {
		snprintf(msg, sizeof(msg), "entries end at byte %u, the inode "
			 "size is %llu", pos, (unsigned long long)ip->di.size);
		sf_bad(k, msg);
	}
	if (offset > g->dirblksize) {
		snprintf(msg, sizeof(msg), "offsets reach %u, past a "
			 "directory block (%u)", offset, g->dirblksize);
		sf_bad(k, msg);
	}
}

/*
 * No two entries share a hash (the usual case: duplicates need one):
 * 1, or 0 when some do, or -ENOMEM.  An open-addressing set.
 */
static int hashes_distinct(const struct dirck *k)
{
	unsigned bits = 6;
	size_t cap, i;
	uint64_t *t;

	while (((size_t)1 << bits) < 2 * k->nent)
		bits++;
	cap = (size_t)1 << bits;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = 0; i < k->nent; i++) {
		uint32_t h = k->ent[i].hash;
		size_t slot = ((uint64_t)h * 0x9e3779b97f4a7c15ull) >>
			      (64 - bits);

		while (t[slot]) {
			if ((uint32_t)t[slot] == h) {
				free(t);
				return 0;
			}
			slot = (slot + 1) & (cap - 1);
		}
		t[slot] = 1ull << 32 | h;
	}
	free(t);
	return 1;
}

/*
 * Two entries with one name (xfs_repair's dir_hash_add refuses them),
 * found in hash order: the entries' indexes sorted by hash, stably
 * (hash << 32 | index radix-sorted on the hash), k->ent left as it is.
 */
static void dups(struct dirck *k)
{
	const struct dirck_ent *ent = k->ent;
	uint64_t *key;
	size_t i, j, r;
	int ret;

	if (k->nent < 2)
		return;
	ret = hashes_distinct(k);
	if (ret) {
		if (ret < 0)
			check_fatal(k->c, ret);
		return;
	}
	key = malloc(k->nent * sizeof(*key));
	if (!key) {
		check_fatal(k->c, -ENOMEM);
		return;
	}
	for (i = 0; i < k->nent; i++)
		key[i] = (uint64_t)ent[i].hash << 32 | i;
	if (sort_u64_from(key, k->nent, 32)) {
		check_fatal(k->c, -ENOMEM);
		goto out;
	}
	for (i = 0; i < k->nent; i = r) {
		/* a run of one hash: names compared pairwise (runs are
		 * short: a hash collision needs distinct names) */
		for (r = i + 1; r < k->nent && key[r] >> 32 == key[i] >> 32;
		     r++)
			;
		for (j = i; j + 1 < r; j++) {
			const struct dirck_ent *x = &ent[(uint32_t)key[j]];
			size_t m;

			for (m = j + 1; m < r; m++) {
				const struct dirck_ent *y =
					&ent[(uint32_t)key[m]];

				if (x->namelen != y->namelen ||
				    memcmp(k->names + x->name,
					   k->names + y->name, x->namelen))
					continue;
				if (k->problems++ >= DIRCK_MAX_PROBLEMS) {
					k->ca->log.count++;
					goto out;
				}
				check_problem(&k->ca->log, DIR_DUP, k->ino,
					      (int)(x->namelen > 64 ? 64 :
						    x->namelen),
					      k->names + x->name);
				break;
			}
		}
	}
out:
	free(key);
}

void dirck_names(struct dirck *k, bool longform)
{
	unsigned dot = 0, dotdot = 0;
	char what[48], msg[96];
	size_t i;

	snprintf(what, sizeof(what), "directory %llu", k->ino);
	for (i = 0; i < k->nent; i++) {
		const struct dirck_ent *e = &k->ent[i];
		const char *n = k->names + e->name;

		if (e->namelen == 1 && n[0] == '.')
			dot++;
		else if (e->namelen == 2 && n[0] == '.' && n[1] == '.')
			dotdot++;
		if (!longform && (memchr(n, '/', e->namelen) ||
				  memchr(n, '\0', e->namelen)))
			check_problem(&k->ca->log, DIR_NAME, what, (unsigned)i,
				      "the name holds '/' or a NUL byte");
	}
	if (longform ? dot != 1 || dotdot != 1 : dot || dotdot) {
		snprintf(msg, sizeof(msg), "%u \".\" and %u \"..\" entries "
			 "(%s)", dot, dotdot, longform ? "one of each "
			 "expected" : "implicit in shortform");
		check_problem(&k->ca->log, DIR_PARENT, k->ino, msg);
	}
	dups(k);
}
