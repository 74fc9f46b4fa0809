/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scanning one AG into the model: headers and btrees (scan_trees.c),
 * then every allocated inode, its forks and directory entries, reading
 * inode chunks in large runs through the bulk reader.
 */
#include "core/model/scan_priv.h"
#include "core/fs/dir.h"
#include "core/fs/fork.h"
#include "core/base/bigmem.h"
#include "core/model/ahead.h"
#include "core/model/inorun.h"
#include "ondisk/inode_lite.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void scan_damage_at(struct agscan *s, struct err *e, uint64_t pos)
{
	struct m_ag *ag = s->ag;

	if (!ag->err || pos < s->dmg_pos) {
		ag->err = e->code ? e->code : -EFSCORRUPTED;
		snprintf(ag->errmsg, sizeof(ag->errmsg), "%s", e->msg);
		s->dmg_pos = pos;
	}
	ag->ndamaged++;
	err_clear(e);
}

void scan_damage(struct agscan *s, struct err *e)
{
	scan_damage_at(s, e, 2 * (uint64_t)s->ag->nino);
}

static int push_ext(struct agscan *s, const struct od_irec *r,
		    const uint8_t *raw)
{
	struct m_ag *ag = s->ag;

	if (ag->next >= UINT32_MAX)
		return -EOVERFLOW;
	if (bigmem_grow((void **)&ag->ext, &ag->cap_ext, ag->next, sizeof(*ag->ext)))
		return -ENOMEM;
	/* the record is stored packed: copy it if we have the disk bytes */
	if (raw)
		memcpy(ag->ext[ag->next++].rec, raw, 16);
	else
		od_bmbt_rec_pack(r, ag->ext[ag->next++].rec);
	return 0;
}

/* Extents of one fork into the model; *n set to the records stored. */
static int scan_fork(struct agscan *s, const struct od_inode *di,
		     const uint8_t *raw, int whichfork, uint32_t *n)
{
	int fmt = whichfork == FORK_DATA ? di->format :
		  (di->forkoff ? di->aformat : -1);
	bool rt = whichfork == FORK_DATA && (di->flags & OD_DIFLAG_REALTIME);
	const uint8_t *fork;
	struct od_irec r, prev;
	uint32_t len;
	uint64_t i, cnt;
	int ret;

	*n = 0;
	if (fmt == OD_FMT_EXTENTS) {
		cnt = whichfork == FORK_DATA ? di->nextents : di->anextents;
		fork = od_inode_fork(di, raw, whichfork, &len);
		for (i = 0; i < cnt; i++) {
			od_bmbt_rec_unpack(fork + OD_BMBT_REC_LEN * i, &r);
			ret = fork_check_rec(s->fs, di->ino, whichfork, rt,
					     i ? &prev : NULL, &r, i, &s->e);
			if (ret)
				return ret;
			ret = push_ext(s, &r, fork + OD_BMBT_REC_LEN * i);
			if (ret)
				return err_set(&s->e, ret, "out of memory");
			prev = r;
			(*n)++;
		}
	} else if (fmt == OD_FMT_BTREE || fmt == OD_FMT_META_BTREE) {
		/* a metadata btree (metadir) maps realtime space: only its
		 * blocks, noted as the inode's btree blocks, come of it */
		struct meta_ctx mc = { s, MM_BMBT, di->ino };

		memcpy(s->tmp.raw, raw, s->g->inodesize);
		s->tmp.di = *di;
		ret = fork_map(s->fs, &s->tmp, whichfork, &s->map, scan_meta_block,
			       &mc, &s->e);
		if (ret)
			return ret;
		for (i = 0; i < s->map.n; i++) {
			ret = push_ext(s, &s->map.v[i], NULL);
			if (ret)
				return err_set(&s->e, ret, "out of memory");
			(*n)++;
		}
	}
	return 0;
}

struct dirscan {
	struct agscan *s;
	struct m_dir *md;
	uint64_t dir_lin;
};

static int dir_entry(void *priv, const uint8_t *name, size_t namelen,
		     uint64_t ino, uint8_t ftype, struct err *e)
{
	struct dirscan *ds = priv;
	struct agscan *s = ds->s;
	struct m_ag *ag = s->ag;
	uint64_t lin, d;
	uint32_t agno;

	(void)ftype;
	if ((namelen == 1 && name[0] == '.') ||
	    (namelen == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	if (!od_ino_valid(s->g, ino))
		return err_set(e, -EFSCORRUPTED, "directory %llu: entry points "
			       "at inode %llu, outside the filesystem",
			       (unsigned long long)ds->md->ino,
			       (unsigned long long)ino);
	agno = od_ino_agno(s->g, ino);
	lin = od_agb_lin(s->g, agno, od_agino_agbno(s->g,
						    od_ino_agino(s->g, ino)));
	d = lin > ds->dir_lin ? lin - ds->dir_lin : ds->dir_lin - lin;
	ds->md->nchildren++;
	ds->md->sum_dist += d;
	if (d > ds->md->max_dist)
		ds->md->max_dist = d;
	if (s->ag_seen[agno] != s->stamp) {
		s->ag_seen[agno] = s->stamp;
		ds->md->nags++;
	}
	if (bigmem_grow((void **)&ag->link, &ag->cap_link, ag->nlink,
		 sizeof(*ag->link)))
		return err_set(e, -ENOMEM, "out of memory");
	ag->link[ag->nlink].parent = ds->md->ino;
	ag->link[ag->nlink].child = ino;
	ag->nlink++;
	return 0;
}

static int scan_dir(struct agscan *s, const struct od_inode *di,
		    const uint8_t *raw)
{
	struct m_ag *ag = s->ag;
	struct dirscan ds;
	struct dir d;
	int ret;

	memcpy(s->tmp.raw, raw, s->g->inodesize);
	s->tmp.di = *di;
	ret = dir_open_inode(s->fs, &s->tmp, &d, &s->e);
	if (ret)
		return ret;
	if (bigmem_grow((void **)&ag->dir, &ag->cap_dir, ag->ndir, sizeof(*ag->dir))) {
		dir_close(&d);
		return err_set(&s->e, -ENOMEM, "out of memory");
	}
	ds.s = s;
	ds.md = &ag->dir[ag->ndir];
	memset(ds.md, 0, sizeof(*ds.md));
	ds.md->ino = di->ino;
	ds.md->fmt = (uint8_t)d.fmt;
	ds.dir_lin = model_ino_lin(s->fs, di->ino);
	if (++s->stamp == 0)
		s->stamp = 1;	/* ag_seen starts zeroed: never reuse 0 */
	ret = dir_iterate(&d, dir_entry, &ds, &s->e);
	dir_close(&d);
	if (ret)
		return ret;
	ag->ndir++;
	return 0;
}

static void dir_read(struct agscan *s, const struct od_inode *di,
		     const uint8_t *raw, size_t idx)
{
	if (scan_dir(s, di, raw)) {
		s->ag->ino[idx].flags |= MI_DAMAGED;
		scan_damage_at(s, &s->e, 2 * (uint64_t)idx + 1);
	}
}

/* Read the directories whose blocks were announced longest ago. */
static void dirs_drain(struct agscan *s, bool all)
{
	const struct ahead_dir *d;

	while ((all || ahead_q_full(&s->dirq)) &&
	       (d = ahead_q_pop(&s->dirq)))
		dir_read(s, &d->ip.di, d->ip.raw, d->idx);
}

/* Directory idx: its blocks are announced now and read a little later. */
static void dir_later(struct agscan *s, const struct od_inode *di,
		      const uint8_t *raw, size_t idx)
{
	const struct m_ino *mi = &s->ag->ino[idx];

	dirs_drain(s, false);
	if (ahead_q_push(&s->dirq, di, raw, idx, s->ag->ext + mi->ext,
			 mi->nde)) {
		dirs_drain(s, true);	/* no queue: keep the order */
		dir_read(s, di, raw, idx);
	}
}

/*
 * The common inode (od_inode_scan_lite) into the model, its extents
 * checked inline: false, with nothing kept, when anything is unusual,
 * and the full path (scan_inode) then does the same work with messages.
 * Only for an inode whose CRC od_cksum3 found good.
 */
static bool scan_lite(struct agscan *s, uint64_t ino, const uint8_t *raw)
{
	const struct od_geo *g = s->g;
	struct m_ag *ag = s->ag;
	struct od_inode_lite l;
	struct od_irec r;
	const uint8_t *fork;
	uint64_t i, end = 0;
	size_t ext0 = ag->next;
	struct m_ino *mi;
	uint8_t flags = 0;

	if (!od_inode_scan_lite(raw, g->inodesize, g, ino, &l))
		return false;
	if (l.format == OD_FMT_EXTENTS && l.nextents) {
		/* room for them all at once, as push_ext would make */
		if (ext0 + l.nextents > UINT32_MAX)
			return false;
		while (ag->cap_ext < ext0 + l.nextents)
			if (bigmem_grow((void **)&ag->ext, &ag->cap_ext,
					ag->cap_ext, sizeof(*ag->ext)))
				return false;
		fork = raw + l.dfork_off;
		for (i = 0; i < l.nextents; i++) {
			od_bmbt_rec_unpack(fork + OD_BMBT_REC_LEN * i, &r);
			if (!fork_rec_ok(g, end, &r))
				return false;
			end = r.startoff + r.blockcount;
			/* kept only once ag->next moves past it */
			memcpy(ag->ext[ext0 + i].rec,
			       fork + OD_BMBT_REC_LEN * i, OD_BMBT_REC_LEN);
		}
		ag->next = ext0 + l.nextents;
	}
	if (!l.forkoff)
		flags |= MI_NOATTR;
	if (l.flags2 & OD_DIFLAG2_REFLINK)
		flags |= MI_REFLINK;
	if ((l.flags & (OD_DIFLAG_PREALLOC | OD_DIFLAG_APPEND)) ||
	    ((l.flags & OD_DIFLAG_EXTSIZE) && l.extsize))
		flags |= MI_SIZEHINT;
	mi = &ag->ino[ag->nino++];
	*mi = (struct m_ino){
		.ino = ino,
		.size = l.size,
		.ext = (uint32_t)ext0,
		.nde = (uint32_t)(ag->next - ext0),
		.mode = l.mode,
		.fmt = (uint8_t)((l.format & 0xf) |
				 ((l.forkoff ? l.aformat & 0xf : 0) << 4)),
		.flags = flags,
		.nlink = l.nlink,
		.forkoff = l.forkoff,
		.version = 3,
		.diflags = l.flags,
	};
	return true;
}

/* Any inode, with the full decode; the common ones take scan_lite. */
static void scan_inode(struct agscan *s, uint64_t ino, const uint8_t *raw,
		       bool crc_ok)
{
	struct m_ag *ag = s->ag;
	struct m_ino *mi = &ag->ino[ag->nino];
	struct od_inode di;
	const char *field;
	enum od_err oe;
	char what[48];
	size_t ext0 = ag->next;
	uint32_t n;

	oe = crc_ok ? od_inode_decode_crc_ok(raw, s->g->inodesize, s->g, ino,
					     &di, &field) :
		      od_inode_decode(raw, s->g->inodesize, s->g, ino, &di,
				      &field);
	if (oe) {
		snprintf(what, sizeof(what), "inode %llu",
			 (unsigned long long)ino);
		err_od(&s->e, oe, field, what);
		scan_damage(s, &s->e);
		return;
	}
	if (di.mode == 0) {
		err_set(&s->e, -EFSCORRUPTED, "inode %llu: marked in use by "
			"the inobt but free on disk", (unsigned long long)ino);
		scan_damage(s, &s->e);
		return;
	}
	memset(mi, 0, sizeof(*mi));
	mi->ino = ino;
	mi->size = di.size;
	mi->mode = di.mode;
	mi->nlink = di.nlink;
	mi->forkoff = di.forkoff;
	mi->version = di.version;
	mi->diflags = di.flags;
	mi->fmt = (uint8_t)((di.format & 0xf) |
			    ((di.forkoff ? di.aformat & 0xf : 0) << 4));
	if (!di.forkoff)
		mi->flags |= MI_NOATTR;
	if (di.flags2 & OD_DIFLAG2_REFLINK)
		mi->flags |= MI_REFLINK;
	if (di.flags & OD_DIFLAG_REALTIME)
		mi->flags |= MI_REALTIME;
	if (od_inode_is_meta(&di))
		mi->flags |= MI_METADATA;
	if ((di.flags & (OD_DIFLAG_PREALLOC | OD_DIFLAG_APPEND)) ||
	    ((di.flags & OD_DIFLAG_EXTSIZE) && di.extsize))
		mi->flags |= MI_SIZEHINT;
	mi->ext = (uint32_t)ext0;
	if (scan_fork(s, &di, raw, FORK_DATA, &n) == 0) {
		mi->nde = n;
		/* most attr forks are absent, local or empty: no extents */
		if (di.forkoff && (di.aformat == OD_FMT_BTREE ||
				   (di.aformat == OD_FMT_EXTENTS &&
				    di.anextents)) &&
		    scan_fork(s, &di, raw, FORK_ATTR, &n) == 0)
			mi->nae = n;
	}
	if (s->e.code) {
		/* keep the inode, drop its half-read extents */
		ag->next = ext0;
		mi->nde = mi->nae = 0;
		mi->flags |= MI_DAMAGED;
		scan_damage(s, &s->e);
	} else if (s->o->dirs && od_mode_isdir(di.mode)) {
		dir_later(s, &di, raw, ag->nino);
	}
	ag->nino++;
}

/* Decode the in-use inodes of a run read into s->buf. */
static void decode_run(struct agscan *s, size_t ci, unsigned i,
		       uint64_t len)
{
	const struct od_geo *g = s->g;
	struct m_ag *ag = s->ag;
	uint64_t off, ino[3];
	const uint8_t *raw[3];
	bool ok[3] = { false, false, false };
	unsigned n = 0, k;

	for (off = 0; off < len; off += g->inodesize, i++) {
		const struct od_inobt_rec *r;

		/*
		 * No software prefetch of the page after next: since the
		 * common inode takes scan_lite, it no longer pays for the
		 * instructions it costs per inode.
		 */
		inorun_present(ag, &ci, &i);
		r = &ag->chunk[ci];
		if (!od_inobt_inuse(r, i))
			continue;
		/* v5: checksum three inodes at once, then decode them */
		ino[n] = od_agino_ino(g, ag->agno, r->startino + i);
		raw[n++] = s->buf + off;
		if (n < 3 && g->v5)
			continue;
		if (n == 3)
			od_cksum3(raw, g->inodesize, OD_DINODE_CRC_OFF, ok);
		for (k = 0; k < n; k++)
			if (!ok[k] || !scan_lite(s, ino[k], raw[k]))
				scan_inode(s, ino[k], raw[k], ok[k]);
		n = 0;
	}
	for (k = 0; k < n; k++)
		scan_inode(s, ino[k], raw[k], false);
}


/*
 * Read every physically present inode of chunks [c0, c1) and decode the
 * ones in use into s->ag (room for n more inodes from s->ag->nino on),
 * in runs read ahead by the bulk reader (inorun.h).
 */
int scan_range(struct agscan *s, size_t c0, size_t c1, size_t n)
{
	const struct od_geo *g = s->g;
	struct m_ag *ag = s->ag;
	struct inorun run;
	struct inorun_seg seg;
	struct rdr_item it;
	struct rdr *rd;
	char what[64];
	bool fill = s->o->fill_cache &&
		    s->o->fill_cache(s->o->hpriv, ag, c0, c1);

	/* most inodes have an extent and a link: start there, not at 64 */
	if (!ag->ext) {
		ag->ext = bigmem_calloc(n + 64, sizeof(*ag->ext));
		ag->cap_ext = ag->ext ? n + 64 : 0;
	}
	if (!ag->link && s->o->dirs) {
		ag->link = bigmem_calloc(n + 64, sizeof(*ag->link));
		ag->cap_link = ag->link ? n + 64 : 0;
	}
	if (!ag->ino ||
	    inorun_read_range(&run, s->fs, ag, c0, c1, fill, &rd))
		return err_set(&s->e, -ENOMEM, "out of memory");
	snprintf(what, sizeof(what), "ag %u inode chunk", ag->agno);

	while (inorun_read(rd, &it, &seg)) {
		size_t ino0 = ag->nino;

		s->buf = it.data;
		if (!it.data) {
			if (fs_read_daddr(s->fs, seg.start >> 9, it.scratch,
					  (size_t)seg.len, &s->e, what))
				scan_damage(s, &s->e);
			else
				s->buf = it.scratch;
		}
		if (s->buf)
			decode_run(s, seg.ci, seg.i, seg.len);
		if (s->o->run)
			s->o->run(s->o->hpriv, &s->hook_part, ag, ino0, seg.ci,
				  seg.i, s->buf, seg.len);
		if (s->o->bytes && it.req)
			s->o->bytes(s->o->hpriv, &s->hook_part, ag, it.req_off,
				    it.req, it.req_len);
		__atomic_add_fetch(&s->p->inodes_done, seg.len >> g->inodelog,
				   __ATOMIC_RELAXED);
	}
	s->buf = NULL;
	rdr_close(rd);
	dirs_drain(s, true);
	return 0;
}

int scan_open(struct agscan *s, struct fs *fs, struct m_ag *ag,
	      const struct scan_opts *o, struct scan_progress *p)
{
	memset(s, 0, sizeof(*s));
	s->fs = fs;
	s->g = &fs->geo;
	s->ag = ag;
	s->o = o;
	s->p = p;
	ahead_q_init(&s->dirq, fs);
	ag->blocks = od_ag_blocks(s->g, ag->agno);
	s->ag_seen = calloc(fs->geo.agcount, sizeof(*s->ag_seen));
	if (!s->ag_seen) {
		err_set(&s->e, -ENOMEM, "out of memory");
		scan_damage(s, &s->e);
		return -ENOMEM;
	}
	return 0;
}

void scan_close(struct agscan *s)
{
	if (s->o && s->o->part_done)
		s->o->part_done(s->o->hpriv, &s->hook_part, s->ag);
	extmap_free(&s->map);
	ahead_q_free(&s->dirq);
	free(s->ag_seen);
	s->ag_seen = NULL;
}

/* The AG's headers and btrees, and its inode array, sized once. */
void scan_ag_trees(struct agscan *s)
{
	struct m_ag *ag = s->ag;
	size_t ci, n;

	scan_trees(s);
	if (!ag->have_agi)
		return;
	/* sized from the chunks: it never grows */
	for (ci = 0, n = 0; ci < ag->nchunk; ci++)
		n += scan_chunk_inuse(&ag->chunk[ci]);
	ag->ino = bigmem_calloc(n, sizeof(*ag->ino));
	ag->cap_ino = ag->ino ? n : 0;
}

/* Append len elements of size bytes at src to *dst (*n of *cap used). */
static int append(void **dst, size_t *cap, size_t *n, const void *src,
		  size_t len, size_t size)
{
	while (*n + len > *cap)
		if (bigmem_grow_slow(dst, cap, *cap, size))
			return -ENOMEM;
	if (len)
		memcpy((uint8_t *)*dst + *n * size, src, len * size);
	*n += len;
	return 0;
}

/*
 * Part ps (a later range of s's AG, scanned into its own m_ag, its
 * inodes in a slice of the AG's array) joined onto s: the model and the
 * first damage come out as if one scan had read both in turn.
 */
int scan_join(struct agscan *s, struct agscan *ps)
{
	struct m_ag *ag = s->ag, *sh = ps->ag;
	size_t k, ext0 = ag->next;
	int ret = 0;

	/* extents are numbered in 32 bits, as push_ext keeps them */
	if (ext0 + sh->next >= UINT32_MAX) {
		ret = -EOVERFLOW;
		goto out;
	}
	/* the extents first: without them the inodes are not joined */
	if (append((void **)&ag->ext, &ag->cap_ext, &ag->next, sh->ext,
		   sh->next, sizeof(*ag->ext))) {
		ret = -ENOMEM;
		goto out;
	}
	if (sh->nino && ag->ino + ag->nino != sh->ino)
		memmove(ag->ino + ag->nino, sh->ino,
			sh->nino * sizeof(*ag->ino));
	for (k = 0; k < sh->nino; k++)
		ag->ino[ag->nino + k].ext += (uint32_t)ext0;
	if (sh->err && (!ag->err ||
			ps->dmg_pos + 2 * (uint64_t)ag->nino < s->dmg_pos)) {
		ag->err = sh->err;
		memcpy(ag->errmsg, sh->errmsg, sizeof(ag->errmsg));
		s->dmg_pos = ps->dmg_pos + 2 * (uint64_t)ag->nino;
	}
	ag->ndamaged += sh->ndamaged;
	ag->nino += sh->nino;
	if (append((void **)&ag->link, &ag->cap_link, &ag->nlink, sh->link,
		   sh->nlink, sizeof(*ag->link)) ||
	    append((void **)&ag->dir, &ag->cap_dir, &ag->ndir, sh->dir,
		   sh->ndir, sizeof(*ag->dir)) ||
	    append((void **)&ag->meta, &ag->cap_meta, &ag->nmeta, sh->meta,
		   sh->nmeta, sizeof(*ag->meta)) ||
	    append((void **)&ag->xmeta, &ag->cap_xmeta, &ag->nxmeta,
		   sh->xmeta, sh->nxmeta, sizeof(*ag->xmeta)))
		ret = -ENOMEM;
out:
	bigmem_free(sh->ext, sh->cap_ext, sizeof(*sh->ext));
	bigmem_free(sh->link, sh->cap_link, sizeof(*sh->link));
	bigmem_free(sh->dir, sh->cap_dir, sizeof(*sh->dir));
	bigmem_free(sh->meta, sh->cap_meta, sizeof(*sh->meta));
	bigmem_free(sh->xmeta, sh->cap_xmeta, sizeof(*sh->xmeta));
	sh->ext = NULL;
	sh->link = NULL;
	sh->dir = NULL;
	sh->meta = sh->xmeta = NULL;
	return ret;
}

int scan_ag(struct fs *fs, struct m_ag *ag, const struct scan_opts *o,
	    struct scan_progress *p)
{
	struct agscan s;
	int ret = scan_open(&s, fs, ag, o, p);

	if (ret == 0) {
		scan_ag_trees(&s);
		if (ag->have_agi &&
		    scan_range(&s, 0, ag->nchunk, ag->cap_ino))
			scan_damage(&s, &s.e);
		scan_trees_finish(&s);
	}
	scan_close(&s);
	__atomic_add_fetch(&p->ags_done, 1, __ATOMIC_RELAXED);
	return ret ? ret : ag->err;
}
