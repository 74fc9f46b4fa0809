/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cmd/json.h"

#include <math.h>
#include <string.h>

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->first[0] = true;
	j->pretty = true;
}

static void put_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		unsigned char c = *p;
		size_t n = 0, i;

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			p++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			p++;
			continue;
		}
		if (c < 0x80) {
			fputc(c, f);
			p++;
			continue;
		}
		/* a valid UTF-8 sequence is copied; a stray byte is escaped */
		if (c >= 0xc2 && c <= 0xdf)
			n = 2;
		else if (c >= 0xe0 && c <= 0xef)
			n = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 4;
		for (i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				n = 0;
		if (n) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			fprintf(f, "\\u%04x", c);
			p++;
		}
	}
	fputc('"', f);
}

static void sep(struct json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->f);
		if (j->pretty)
			fprintf(j->f, "\n%*s", 2 * j->depth, "");
	}
	j->first[j->depth] = false;
	if (key) {
		put_string(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

static void open_(struct json *j, const char *key, char c)
{
	sep(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAXDEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (j->pretty && !empty)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	fputc(c, j->f);
}

void json_obj_begin(struct json *j, const char *key) { open_(j, key, '{'); }
void json_obj_end(struct json *j) { close_(j, '}'); }
void json_arr_begin(struct json *j, const char *key) { open_(j, key, '['); }
void json_arr_end(struct json *j) { close_(j, ']'); }

void json_str(struct json *j, const char *key, const char *val)
{
	sep(j, key);
	if (val)
		put_string(j->f, val);
	else
		fputs("null", j->f);
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	sep(j, key);
	fprintf(j->f, "%llu", (unsigned long long)val);
}

void json_i64(struct json *j, const char *key, int64_t val)
{
	sep(j, key);
	fprintf(j->f, "%lld", (long long)val);
}

void json_f2(struct json *j, const char *key, double val)
{
	sep(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.2f", val);
	else
		fputs("null", j->f);	/* JSON has no NaN */
}

void json_bool(struct json *j, const char *key, bool val)
{
	sep(j, key);
	fputs(val ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	sep(j, key);
	fputs("null", j->f);
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
}
