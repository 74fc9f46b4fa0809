/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cmd/opt.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OPT_VAL0	0x1000	/* getopt's value of row i: OPT_VAL0 + i */

const char *opt_spelling(const struct opt *o, char *buf, size_t len)
{
	if (o->name)
		snprintf(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "-%c", o->letter);
	return buf;
}

static size_t count(const struct opt *tab)
{
	size_t n = 0;

	while (!opt_is_end(&tab[n]))
		n++;
	return n;
}

static bool takes_value(const struct opt *o)
{
	return o->kind != OPT_FLAG && o->kind != OPT_COUNT;
}

/* A bound as people write it: 10, 0.001, 1000000000. */
static void fmt_num(char *buf, size_t len, double v)
{
	if (v == floor(v) && fabs(v) < 1e18)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%g", v);
}

static void choices_text(const struct opt *o, char *buf, size_t len,
			 const char *sep, const char *last)
{
	size_t i, n = 0, at = 0;

	buf[0] = 0;
	while (o->choices[n].name)
		n++;
	for (i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       i == 0 ? "" : i + 1 == n ? last : sep,
				       o->choices[i].name);
}

/* What o's values may be, for messages and help: "0 to 100000". */
static void allowed(const struct opt *o, char *buf, size_t len)
{
	char lo[32], hi[32];

	buf[0] = 0;
	switch (o->kind) {
	case OPT_UINT:
	case OPT_REAL:
		fmt_num(lo, sizeof(lo), o->min);
		fmt_num(hi, sizeof(hi), o->max);
		snprintf(buf, len, "%s to %s", lo, hi);
		break;
	case OPT_CHOICE:
		choices_text(o, buf, len, ", ", " or ");
		break;
	default:
		break;
	}
}

static void store_uint(const struct opt *o, void *dst, uint64_t v)
{
	switch (o->size) {
	case 1: *(uint8_t *)dst = (uint8_t)v; break;
	case 2: *(uint16_t *)dst = (uint16_t)v; break;
	case 4: *(uint32_t *)dst = (uint32_t)v; break;
	default: *(uint64_t *)dst = v; break;
	}
}

/* Digits only: no sign, space, base prefix or trailing junk. */
static bool parse_uint(const char *s, uint64_t *out)
{
	const char *p;
	char *end;

	if (!*s)
		return false;
	for (p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno == 0 && *end == 0;
}

/* A decimal number: digits, one point, an exponent; no inf, nan, hex. */
static bool parse_real(const char *s, double *out)
{
	const char *p = s;
	bool digits = false;
	char *end;

	if (*p == '+' || *p == '-')
		p++;
	for (; *p >= '0' && *p <= '9'; p++)
		digits = true;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits = true;
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (*p < '0' || *p > '9')
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p)
		return false;
	errno = 0;
	*out = strtod(s, &end);
	/* ERANGE: too large, or so small it is denormal or zero */
	return errno == 0 && *end == 0 && isfinite(*out);
}

/* Take val for o, given as name ("-j" or "--threads"). */
static int take(const struct opt *o, const char *name, const char *val,
		void *args, char *why, size_t len)
{
	void *dst = (char *)args + o->off;
	char ok[256];
	const char *near;
	uint64_t u;
	double d;
	size_t i, n;

	allowed(o, ok, sizeof(ok));
	switch (o->kind) {
	case OPT_FLAG:
		*(bool *)dst = true;
		return 0;
	case OPT_COUNT:
		(*(unsigned *)dst)++;
		return 0;
	case OPT_STR:
		if (!*val) {
			snprintf(why, len, "%s: the value is empty: give a %s",
				 name, o->arg);
			return -1;
		}
		*(const char **)dst = val;
		return 0;
	case OPT_UINT:
		if (!parse_uint(val, &u) || (double)u < o->min ||
		    (double)u > o->max) {
			snprintf(why, len, "%s: '%s' is not a whole number "
				 "from %s", name, val, ok);
			return -1;
		}
		store_uint(o, dst, u);
		return 0;
	case OPT_REAL:
		if (!parse_real(val, &d) || d < o->min || d > o->max) {
			snprintf(why, len, "%s: '%s' is not a number from %s",
				 name, val, ok);
			return -1;
		}
		*(double *)dst = d;
		return 0;
	case OPT_CHOICE: {
		const char *cand[16];

		choices_text(o, ok, sizeof(ok), ", ", ", ");
		for (n = 0; o->choices[n].name && n < 16; n++) {
			cand[n] = o->choices[n].name;
			if (strcmp(val, cand[n]) == 0) {
				*(int *)dst = o->choices[n].value;
				return 0;
			}
		}
		near = opt_suggest(val, cand, n);
		i = (size_t)snprintf(why, len, "%s: '%s' is not one of %s",
				     name, val, ok);
		if (near && i < len)
			snprintf(why + i, len - i, " (did you mean %s?)", near);
		return -1;
	}
	case OPT_CALL:
		return o->call(dst, val, why, len);
	}
	return -1;
}

/* The row a long word names (exactly, or as the one unique prefix). */
static const struct opt *find_long(const struct opt *tab, const char *w,
				   size_t wl, size_t *nmatch)
{
	const struct opt *hit = NULL;
	size_t i;

	*nmatch = 0;
	for (i = 0; !opt_is_end(&tab[i]); i++) {
		if (!tab[i].name || strncmp(tab[i].name, w, wl) != 0)
			continue;
		if (strlen(tab[i].name) == wl) {
			*nmatch = 1;
			return &tab[i];
		}
		hit = &tab[i];
		(*nmatch)++;
	}
	return *nmatch == 1 ? hit : NULL;
}

/* A word getopt did not take: say which and what was meant. */
static void unknown(const struct opt *tab, const char *word, char *why,
		    size_t len)
{
	const char *cand[64];
	char names[64][64];
	size_t n = 0, i, wl, nmatch, at;
	const char *eq, *near;

	if (word[0] == '-' && word[1] == '-') {
		eq = strchr(word, '=');
		wl = eq ? (size_t)(eq - word) - 2 : strlen(word) - 2;
		if (find_long(tab, word + 2, wl, &nmatch) || nmatch > 1) {
			if (nmatch > 1) {
				at = (size_t)snprintf(why, len, "'%.*s' is "
						      "ambiguous:", (int)wl + 2,
						      word);
				for (i = 0; !opt_is_end(&tab[i]) && at < len;
				     i++)
					if (tab[i].name &&
					    strncmp(tab[i].name, word + 2,
						    wl) == 0)
						at += (size_t)snprintf(
							why + at, len - at,
							" --%s", tab[i].name);
			} else {
				snprintf(why, len, "%.*s takes no value",
					 (int)wl + 2, word);
			}
			return;
		}
		for (i = 0; !opt_is_end(&tab[i]) && n < 63; i++)
			if (tab[i].name) {
				snprintf(names[n], sizeof(names[n]), "--%s",
					 tab[i].name);
				cand[n] = names[n];
				n++;
			}
		cand[n++] = "--help";
		snprintf(names[63], sizeof(names[63]), "%.*s",
			 (int)(wl + 2 < 62 ? wl + 2 : 62), word);
		near = opt_suggest(names[63], cand, n);
		if (near)
			snprintf(why, len, "unknown option '%s' (did you mean "
				 "%s?)", names[63], near);
		else
			snprintf(why, len, "unknown option '%s'", names[63]);
		return;
	}
	snprintf(why, len, "unknown option '%s'", word);
}

int opt_parse(const struct opt *tab, int argc, char **argv, void *args,
	      int *first, char *why, size_t len)
{
	size_t n = count(tab), i, s = 0, nl = 0;
	struct option *lo = calloc(n + 2, sizeof(*lo));
	char *shorts = malloc(2 * n + 8);
	char name[64];
	int c, li, ret = 0;

	if (!lo || !shorts) {
		snprintf(why, len, "out of memory");
		ret = -1;
		goto out;
	}
	shorts[s++] = '+';	/* operands end the options */
	shorts[s++] = ':';	/* a missing value: ':' */
	shorts[s++] = 'h';
	for (i = 0; i < n; i++) {
		if (tab[i].letter) {
			shorts[s++] = tab[i].letter;
			if (takes_value(&tab[i]))
				shorts[s++] = ':';
		}
		if (!tab[i].name)
			continue;
		lo[nl].name = tab[i].name;
		lo[nl].has_arg = takes_value(&tab[i]) ? required_argument :
							no_argument;
		lo[nl++].val = OPT_VAL0 + (int)i;
	}
	shorts[s] = 0;
	lo[nl].name = "help";
	lo[nl].val = 'h';
	opterr = 0;
	optind = 0;		/* glibc: start afresh, "+" read again */
	while ((c = getopt_long(argc, argv, shorts, lo, &li)) != -1) {
		const struct opt *o = NULL;

		if (c == 'h') {
			ret = 1;
			goto out;
		}
		if (c == '?') {
			if (optopt >= OPT_VAL0) {
				snprintf(why, len, "%s takes no value",
					 opt_spelling(&tab[optopt - OPT_VAL0],
						      name, sizeof(name)));
			} else if (optopt) {
				snprintf(name, sizeof(name), "-%c", optopt);
				unknown(tab, name, why, len);
			} else {
				unknown(tab, argv[optind - 1], why, len);
			}
			ret = -1;
			goto out;
		}
		if (c == ':') {
			char ok[256];

			if (optopt >= OPT_VAL0)
				o = &tab[optopt - OPT_VAL0];
			for (i = 0; !o && i < n; i++)
				if (tab[i].letter == optopt)
					o = &tab[i];
			if (!o) {
				snprintf(why, len, "a value is missing");
			} else {
				allowed(o, ok, sizeof(ok));
				snprintf(why, len, "%s needs a value (%s%s%s)",
					 opt_spelling(o, name, sizeof(name)),
					 o->arg, ok[0] ? ": " : "", ok);
			}
			ret = -1;
			goto out;
		}
		if (c >= OPT_VAL0) {
			o = &tab[c - OPT_VAL0];
			opt_spelling(o, name, sizeof(name));
		}
		for (i = 0; !o && i < n; i++)
			if (tab[i].letter == c)
				o = &tab[i];
		if (c < OPT_VAL0)
			snprintf(name, sizeof(name), "-%c", c);
		if (!o || take(o, name, optarg, args, why, len)) {
			if (!o)
				snprintf(why, len, "unknown option");
			ret = -1;
			goto out;
		}
	}
	*first = optind;
out:
	free(lo);
	free(shorts);
	return ret;
}

static void synopsis_one(FILE *f, const struct opt *o)
{
	char buf[256];

	if (o->letter)
		fprintf(f, "[-%c", o->letter);
	else
		fprintf(f, "[--%s", o->name);
	if (o->kind == OPT_CHOICE) {
		choices_text(o, buf, sizeof(buf), "|", "|");
		fprintf(f, " %s", buf);
	} else if (takes_value(o)) {
		fprintf(f, " %s", o->arg);
	}
	fprintf(f, "]%s", o->flags & OPT_F_REPEAT ? "..." : "");
}

void opt_synopsis(FILE *f, const struct opt *tab)
{
	size_t i;

	for (i = 0; !opt_is_end(&tab[i]); i++) {
		fputs(i ? " " : "", f);
		synopsis_one(f, &tab[i]);
	}
}

/* text after a column of indent, wrapped at 79 columns */
static void wrapped(FILE *f, const char *text, int indent, int col)
{
	const char *p = text;

	while (*p) {
		const char *sp = p;
		int w;

		while (*sp && *sp != ' ')
			sp++;
		w = (int)(sp - p);
		if (col > indent && col + 1 + w > 79) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, (size_t)w, f);
		col += w;
		p = *sp ? sp + 1 : sp;
	}
	fputc('\n', f);
}

void opt_help(FILE *f, const struct opt *tab)
{
	char left[96], ok[256], text[1024];
	size_t i, at;

	for (i = 0; !opt_is_end(&tab[i]); i++) {
		const struct opt *o = &tab[i];

		at = 0;
		if (o->letter)
			at += (size_t)snprintf(left + at, sizeof(left) - at,
					       "-%c%s", o->letter,
					       o->name ? ", " : "");
		if (o->name)
			at += (size_t)snprintf(left + at, sizeof(left) - at,
					       "--%s", o->name);
		if (takes_value(o) && at < sizeof(left))
			snprintf(left + at, sizeof(left) - at, " %s", o->arg);
		allowed(o, ok, sizeof(ok));
		at = (size_t)snprintf(text, sizeof(text), "%s", o->help);
		if (ok[0] || o->dflt || (o->flags & OPT_F_REPEAT)) {
			at += (size_t)snprintf(text + at, sizeof(text) - at,
					       " (%s%s%s%s%s%s)", ok,
					       ok[0] && (o->flags &
					       OPT_F_REPEAT) ? "; " : "",
					       o->flags & OPT_F_REPEAT ?
					       "repeatable" : "",
					       o->dflt && (ok[0] || (o->flags &
					       OPT_F_REPEAT)) ? "; " : "",
					       o->dflt ? "default: " : "",
					       o->dflt ? o->dflt : "");
		}
		if (fprintf(f, "  %-22s ", left) > 25)
			fprintf(f, "\n%25s", "");
		wrapped(f, text, 25, 25);
	}
	fprintf(f, "  %-22s %s\n", "-h, --help", "print this help");
}

static const char *const kind_names[] = {
	"flag", "count", "string", "uint", "real", "choice", "value",
};

void opt_dump(FILE *f, const struct opt *tab)
{
	char lo[32], hi[32], ch[256];
	size_t i;

	for (i = 0; !opt_is_end(&tab[i]); i++) {
		const struct opt *o = &tab[i];
		bool range = o->kind == OPT_UINT || o->kind == OPT_REAL;

		if (o->letter)
			fprintf(f, "-%c%s", o->letter, o->name ? "," : "");
		if (o->name)
			fprintf(f, "--%s", o->name);
		fmt_num(lo, sizeof(lo), o->min);
		fmt_num(hi, sizeof(hi), o->max);
		if (o->kind == OPT_CHOICE)
			choices_text(o, ch, sizeof(ch), ",", ",");
		fprintf(f, " %s %s %s %s %s %s\n",
			takes_value(o) ? o->arg : "-", kind_names[o->kind],
			range ? lo : "-", range ? hi : "-",
			o->kind == OPT_CHOICE ? ch : "-",
			o->dflt ? o->dflt : "-");
	}
}

bool opt_given(const struct opt *tab, unsigned flag, int argc, char **argv)
{
	char name[64];
	size_t i;
	int k;

	for (k = 1; k < argc && strcmp(argv[k], "--") != 0; k++)
		for (i = 0; !opt_is_end(&tab[i]); i++)
			if ((tab[i].flags & flag) &&
			    strcmp(argv[k], opt_spelling(&tab[i], name,
							 sizeof(name))) == 0)
				return true;
	return false;
}

/* Optimal string alignment distance, for words of up to 63 bytes. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t d[64][64];

	if (la > 63 || lb > 63)
		return SIZE_MAX;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1], v;

			v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

const char *opt_suggest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t i, bd = SIZE_MAX, len = strlen(word), dash = 0, limit;

	while (word[dash] == '-')
		dash++;
	/* one mistake in a short word, two in a longer one */
	limit = len - dash <= 4 ? 1 : 2;
	for (i = 0; i < n; i++) {
		size_t dd;

		if (!cands[i])
			continue;
		dd = distance(word, cands[i]);
		if (dd < bd) {
			bd = dd;
			best = cands[i];
		}
	}
	return bd <= limit && bd < len - dash ? best : NULL;
}
