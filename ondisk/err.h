/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef OD_ERR_H
#define OD_ERR_H

/* Result of every ondisk decoder; core turns these into messages. */
enum od_err {
	OD_OK = 0,
	OD_ESHORT,	/* buffer too short for the structure */
	OD_EMAGIC,	/* wrong magic number */
	OD_ECRC,	/* checksum mismatch */
	OD_EFIELD,	/* a field is out of range or inconsistent */
};

const char *od_strerror(enum od_err e);

/* A validation ladder's exit: name the bad field, say OD_EFIELD. */
static inline enum od_err od_bad_field(const char **field, const char *name)
{
	*field = name;
	return OD_EFIELD;
}

#endif
