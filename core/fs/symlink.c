/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/fs/symlink.h"
#include "core/fs/fork.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int symlink_read(struct fs *fs, const struct inode *ip,
		 char target[OD_SYMLINK_MAXLEN + 1], struct err *e)
{
	return symlink_read_hdrs(fs, ip, target, NULL, NULL, e);
}

int symlink_read_hdrs(struct fs *fs, const struct inode *ip,
		      char target[OD_SYMLINK_MAXLEN + 1],
		      void (*hdr)(void *priv, const struct od_symlink_hdr *h),
		      void *priv, struct err *e)
{
	const struct od_geo *g = &fs->geo;
	uint64_t size = ip->di.size, done = 0;
	unsigned long long ino = (unsigned long long)ip->di.ino;
	struct extmap m = { 0 };
	uint8_t *buf = NULL;
	char what[64], bwhat[96];
	size_t i;
	int ret = 0;

	snprintf(what, sizeof(what), "symlink inode %llu", ino);
	if (!od_mode_islnk(ip->di.mode))
		return err_set(e, -EINVAL, "inode %llu is not a symlink", ino);
	if (size == 0 || size >= OD_SYMLINK_MAXLEN)
		return err_set(e, -EFSCORRUPTED, "%s: bad length %llu", what,
			       (unsigned long long)size);
	if (ip->di.format == OD_FMT_LOCAL) {
		uint32_t len;
		const uint8_t *p = inode_fork(ip, FORK_DATA, &len);

		memcpy(target, p, size);	/* size <= len: checked at decode */
		target[size] = '\0';
		goto check;
	}
	ret = fork_map(fs, ip, FORK_DATA, &m, NULL, NULL, e);
	if (ret)
		return ret;
	for (i = 0; i < m.n && done < size; i++) {
		const struct od_irec *r = &m.v[i];
		size_t len = (size_t)r->blockcount << g->blocklog, avail;
		const uint8_t *data = NULL;

		if (r->blockcount > 4) {
			ret = err_set(e, -EFSCORRUPTED, "%s: extent %zu too "
				      "long", what, i);
			goto out;
		}
		snprintf(bwhat, sizeof(bwhat), "%s block 0x%llx (daddr "
			 "0x%llx)", what, (unsigned long long)r->startblock,
			 (unsigned long long)od_fsb_daddr(g, r->startblock));
		free(buf);
		buf = malloc(len);
		if (!buf) {
			ret = err_set(e, -ENOMEM, "out of memory");
			goto out;
		}
		ret = fs_read_fsb(fs, r->startblock, r->blockcount, buf, e,
				  bwhat);
		if (ret)
			goto out;
		if (g->v5) {
			struct od_symlink_hdr h;
			const char *field;
			enum od_err oe = od_symlink_hdr(buf, len, g, &h, &field);

			if (oe) {
				ret = err_od(e, oe, field, bwhat);
				goto out;
			}
			if (hdr)
				hdr(priv, &h);
			/* xfs_symlink_hdr_ok: each block holds exactly its
			 * share of the target, no more, no less */
			avail = len - OD_SYMLINK_HDR_LEN;
			if (avail > size - done)
				avail = (size_t)(size - done);
			if (h.owner != ip->di.ino ||
			    h.blkno != od_fsb_daddr(g, r->startblock) ||
			    h.offset != done || h.bytes != avail) {
				ret = err_set(e, -EFSCORRUPTED, "%s: remote "
					      "block header does not match",
					      bwhat);
				goto out;
			}
			data = buf + OD_SYMLINK_HDR_LEN;
		} else {
			data = buf;
			avail = len;
		}
		if (avail > size - done)
			avail = (size_t)(size - done);
		memcpy(target + done, data, avail);
		done += avail;
	}
	if (done != size) {
		ret = err_set(e, -EFSCORRUPTED, "%s: target is %llu bytes, "
			      "blocks hold %llu", what,
			      (unsigned long long)size,
			      (unsigned long long)done);
		goto out;
	}
	target[size] = '\0';
check:
	if (strlen(target) != size)
		ret = err_set(e, -EFSCORRUPTED, "%s: target contains a NUL "
			      "byte", what);
out:
	free(buf);
	extmap_free(&m);
	return ret;
}
