/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Options as data.  Each command has one table (struct opt[], in its own
 * file) that feeds getopt_long, checks every value where it is parsed
 * (one line naming the option, the value and what is allowed), writes the
 * value into the command's argument struct, prints the help (COMMAND
 * --help, help COMMAND), and is what the shell completion and the test
 * of the man page read (xfsdefrag complete --options COMMAND).  Adding an
 * option is adding a row.
 */
#ifndef CMD_OPT_H
#define CMD_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum opt_kind {
	OPT_FLAG,	/* bool: set */
	OPT_COUNT,	/* unsigned: one more each time (-v -v) */
	OPT_STR,	/* const char *: any value but an empty one */
	OPT_UINT,	/* an unsigned integer from min to max, decimal */
	OPT_REAL,	/* a decimal number from min to max */
	OPT_CHOICE,	/* one of choices: its value, in an int */
	OPT_CALL,	/* the row's function takes the value */
};

struct opt_choice {
	const char *name;
	int value;
};

struct opt {
	const char *name;	/* long name without "--"; NULL: short only */
	char letter;		/* short name, or 0 */
	enum opt_kind kind;
	const char *arg;	/* the value's name: "N", "FILE", "PATH" */
	const char *help;	/* one line */
	const char *dflt;	/* the default, as help says it; NULL: none */
	size_t off, size;	/* the value's place in the argument struct */
	double min, max;	/* OPT_UINT, OPT_REAL */
	const struct opt_choice *choices;	/* OPT_CHOICE: NULL name last */
	/*
	 * OPT_CALL: take val into dst (the argument struct at off); 0, or
	 * -1 with why: what is wrong with val and what is allowed.
	 */
	int (*call)(void *dst, const char *val, char *why, size_t len);
	unsigned flags;		/* OPT_F_* */
};

#define OPT_F_JSON	0x1	/* asks for JSON: failures are JSON too */
#define OPT_F_REPEAT	0x2	/* may be given more than once */

/* .off and .size of member m of the argument struct T */
#define OPT_AT(T, m) .off = offsetof(T, m), .size = sizeof(((T *)0)->m)
/* the end of a table */
#define OPT_END { .name = NULL, .letter = 0 }

static inline bool opt_is_end(const struct opt *o)
{
	return !o->name && !o->letter;
}

/* "--name" (or "-x" without a long name) into buf. */
const char *opt_spelling(const struct opt *o, char *buf, size_t len);

/*
 * Parse the options of argv[1..argc) (argv[0]: the command's name) into
 * args, which holds the defaults: 0 with *first the first operand, 1 for
 * -h/--help, -1 with why (one line, without the program's name) for a
 * usage error.  Operands follow the options ("--" ends them).
 */
int opt_parse(const struct opt *tab, int argc, char **argv, void *args,
	      int *first, char *why, size_t len);

/* The synopsis "[--json] [--html FILE] [-a AGNO] ..." of a table. */
void opt_synopsis(FILE *f, const struct opt *tab);
/* One line per option: spellings, value, what it does, range, default. */
void opt_help(FILE *f, const struct opt *tab);
/*
 * For scripts (the completion, the tests): one line per option,
 * "SPELLINGS ARG KIND MIN MAX CHOICES DEFAULT", fields separated by one
 * space, "-" for an empty one, SPELLINGS and CHOICES joined by commas,
 * the default (which may hold spaces) last.
 */
void opt_dump(FILE *f, const struct opt *tab);

/* Does a known spelling of tab appear among argv[1..argc) before "--"? */
bool opt_given(const struct opt *tab, unsigned flag, int argc, char **argv);

/*
 * The candidate closest to word by edit distance (a letter added, lost,
 * changed or two swapped), if close enough to be a typing mistake, else
 * NULL.  cands: n strings, NULL entries skipped.
 */
const char *opt_suggest(const char *word, const char *const *cands, size_t n);

#endif
