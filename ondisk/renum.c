// SPDX-License-Identifier: GPL-2.0-or-later
#include "ondisk/renum.h"
#include "ondisk/be.h"
#include "ondisk/btree.h"
#include "ondisk/crc32c.h"
#include "ondisk/da.h"
#include "ondisk/dir2.h"
#include "ondisk/inode.h"
#include "ondisk/symlink.h"

#include <errno.h>
#include <string.h>

void od_dinode_init_free(uint8_t *buf, size_t len, const struct od_geo *g,
			 uint64_t ino, uint32_t gen)
{
	memset(buf, 0, len);
	od_put_be16(buf, OD_DINODE_MAGIC);
	buf[4] = g->v5 ? 3 : 2;			/* di_version */
	od_put_be32(buf + 92, gen);		/* di_gen */
	od_put_be32(buf + 96, OD_NULLAGINO);	/* di_next_unlinked */
	if (!g->v5 || len < OD_DINODE_V3_CORE)
		return;
	od_put_be64(buf + OD_DINODE_V3_INO_OFF, ino);
	memcpy(buf + OD_DINODE_V3_UUID_OFF, g->uuid, 16);
	od_cksum_set(buf, len, OD_DINODE_CRC_OFF);
}

uint32_t od_dinode_gen(const uint8_t *buf)
{
	return od_get_be32(buf + 92);
}

void od_dinode_set_size(uint8_t *buf, uint64_t size)
{
	od_put_be64(buf + 56, size);
}

void od_dinode_set_ino(uint8_t *buf, size_t len, const struct od_geo *g,
		       uint64_t ino)
{
	if (!g->v5 || buf[4] < 3 || len < OD_DINODE_V3_CORE)
		return;
	od_put_be64(buf + OD_DINODE_V3_INO_OFF, ino);
	od_cksum_set(buf, len, OD_DINODE_CRC_OFF);
}

int od_dir2_sf_renumber(uint8_t *fork, size_t cap, uint32_t *size,
			bool ftype, od_ino_map_fn map, void *priv)
{
	struct od_dir2_sf hdr;
	const char *field;
	uint32_t pos, i, i8 = 0, n, out, newsize;
	uint64_t parent, ino[256];
	size_t nameoff[256];
	uint8_t tmp[65536];
	bool changed = false, wide;

	if (*size > cap || *size > sizeof(tmp) ||
	    od_dir2_sf_hdr(fork, *size, &hdr, &field) != OD_OK)
		return -EUCLEAN;
	n = hdr.count;
	pos = hdr.hdr_len;
	parent = map(priv, hdr.parent);
	changed |= parent != hdr.parent;
	i8 += parent > OD_DIR2_MAX_SHORT_INUM;
	for (i = 0; i < n; i++) {
		struct od_dirent de;

		nameoff[i] = pos;
		if (od_dir2_sf_entry(fork, *size, &hdr, ftype, &pos, &de,
				     &field) != OD_OK)
			return -EUCLEAN;
		ino[i] = map(priv, de.ino);
		changed |= ino[i] != de.ino;
		i8 += ino[i] > OD_DIR2_MAX_SHORT_INUM;
	}
	if (!hdr.i8count && i8)
		return -EOVERFLOW;
	if (!changed && i8 == hdr.i8count)
		return 0;
	/* rebuild into tmp with the new width, then copy back */
	wide = i8 != 0;
	tmp[0] = fork[0];
	tmp[1] = (uint8_t)i8;
	if (wide)
		od_put_be64(tmp + 2, parent);
	else
		od_put_be32(tmp + 2, (uint32_t)parent);
	out = wide ? 10 : 6;
	for (i = 0; i < n; i++) {
		size_t p = nameoff[i];
		uint32_t body = 3u + fork[p] + (ftype ? 1u : 0u);

		memcpy(tmp + out, fork + p, body);
		out += body;
		if (wide)
			od_put_be64(tmp + out, ino[i]);
		else
			od_put_be32(tmp + out, (uint32_t)ino[i]);
		out += wide ? 8 : 4;
	}
	newsize = out;
	if (newsize > *size)
		return -EOVERFLOW;	/* cannot happen: widths only shrink */
	memcpy(fork, tmp, newsize);
	memset(fork + newsize, 0, *size - newsize);
	*size = newsize;
	return 1;
}

int od_dir2_data_renumber(uint8_t *buf, size_t len, const struct od_geo *g,
			  od_ino_map_fn map, void *priv, uint64_t owner)
{
	struct od_dir2_data_hdr hdr;
	const char *field;
	uint32_t pos;
	bool changed = false;

	if (od_dir2_data_hdr(buf, len, g, &hdr, &field) != OD_OK)
		return -EUCLEAN;
	pos = hdr.hdr_len;
	while (pos < hdr.end) {
		struct od_dirent de;
		uint32_t at = pos;
		bool unused;
		uint64_t nino;

		if (od_dir2_data_entry(buf, &hdr, g->ftype, &pos, &de, &unused,
				       &field) != OD_OK)
			return -EUCLEAN;
		if (unused)
			continue;
		nino = map(priv, de.ino);
		if (nino != de.ino) {
			od_put_be64(buf + at, nino);	/* inumber leads */
			changed = true;
		}
	}
	if (g->v5 && owner && od_get_be64(buf + 40) != owner) {
		od_put_be64(buf + 40, owner);	/* xfs_dir3_blk_hdr.owner */
		changed = true;
	}
	if (changed && g->v5)
		od_cksum_set(buf, len, OD_DIR3_DATA_CRC_OFF);
	return changed;
}

bool od_selfowner_find(const uint8_t *b, size_t len, enum od_self_fork f,
		       size_t *owner_off, size_t *crc_off)
{
	struct od_selfaddr a;

	if (!od_selfaddr_find(b, len, f, &a))
		return false;
	*crc_off = a.crc_off;
	/* owner precedes blkno in the rmt and symlink headers, follows the
	 * uuid (after blkno and lsn) in dir3_blk_hdr and da3_blkinfo */
	if (a.blkno_off == 40)
		*owner_off = 32;
	else
		*owner_off = a.blkno_off + 32;
	return *owner_off + 8 <= len;
}

int od_selfowner_set(uint8_t *b, size_t len, enum od_self_fork f,
		     uint64_t owner)
{
	size_t oo, co;

	if (!od_selfowner_find(b, len, f, &oo, &co))
		return -EINVAL;
	if (od_get_be64(b + oo) == owner)
		return 0;
	od_put_be64(b + oo, owner);
	od_cksum_set(b, len, co);
	return 1;
}

int od_bmbt_block_set_owner(uint8_t *b, size_t len, uint64_t owner)
{
	if (len < OD_LBLOCK_CRC_LEN || od_get_be32(b) != OD_BMAP3_MAGIC)
		return -EINVAL;
	if (od_get_be64(b + 56) == owner)
		return 0;
	od_put_be64(b + 56, owner);	/* after the uuid at 40 */
	od_cksum_set(b, len, OD_LBLOCK_CRC_OFF);
	return 1;
}
