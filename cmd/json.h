/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A minimal streaming JSON writer: always valid output, commas and
 * nesting handled here.  Strings that are not UTF-8 keep their bytes as
 * Latin-1 code points (\u00XX), so any file name round-trips as valid JSON.
 */
#ifndef CMD_JSON_H
#define CMD_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAXDEPTH 32

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAXDEPTH];
	bool pretty;
};

void json_init(struct json *j, FILE *f);
void json_obj_begin(struct json *j, const char *key);	/* key NULL in arrays */
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *val);	/* NULL: null */
void json_u64(struct json *j, const char *key, uint64_t val);
void json_i64(struct json *j, const char *key, int64_t val);
void json_f2(struct json *j, const char *key, double val);	/* 2 decimals */
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);
void json_end(struct json *j);	/* final newline */

#endif
