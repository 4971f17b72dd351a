/* optdoc.h - what a command's option table (common/opt.h) says to people: its `--help` text and
 * its entries in the man page docs/allocab.1, both generated from the rows, with the prose that
 * belongs to no single option (what the command does, rules between options, exit status)
 * written beside the table. */
#ifndef ALLOCAB_OPTDOC_H
#define ALLOCAB_OPTDOC_H

#include "common/opt.h"

#include <stddef.h>
#include <stdio.h>

/* Lines of --help are at most this many characters, prose included. */
#define OPTDOC_WIDTH 79

struct opt_doc {
	const char *prog;            /* "allocab bench" */
	const char *const *synopsis; /* NULL-terminated: what follows prog on each usage line */
	/* Prose before and after the options, or NULL: each '\n'-ended line is wrapped to
	 * OPTDOC_WIDTH on its own (its continuations indented as it is), so a paragraph is one
	 * line, and an empty line is a blank one. */
	const char *about;
	const struct opt *opts;
	size_t nopts;
	const struct opt_doc *rest; /* the options that may follow the OPT_REST row, or NULL */
	const char *notes;
};

/* The usage: "usage: PROG SYNOPSIS" lines, the about text, the options (each with its value's
 * name, its help wrapped to OPTDOC_WIDTH, the values listed with their descriptions; rows without
 * help by name at the end of their group; the OPT_REST row with the names of rest's options),
 * then the notes. prog, when not NULL, replaces d->prog (the drivers' names are known at run
 * time). */
void optdoc_usage(FILE *f, const struct opt_doc *d, const char *prog);

/* The man page's entries for d's options, in troff (man macros), one block per option and
 * heading, each between the lines `.\" {KEY` and `.\" }` where KEY is the option's long name
 * (else -x), the heading's text, or the first name of a run of rows without help followed by
 * "...". An option's block is `.TP`, its name and value, and its help as a sentence (with its
 * values and, for the OPT_REST row, the names of rest's options). scripts/manopts.sh merges the
 * blocks into docs/allocab.1, keeping what follows each block there. */
void optdoc_man(FILE *f, const struct opt_doc *d);

/* How option k is written in usage: "-a, --allocators LIST", "--reps N|auto", "--quiet"; into
 * buf (truncated to len). Returns buf. */
const char *optdoc_spelled(const struct opt *o, char *buf, size_t len);

/* A synopsis line of the rows opts[0..n-1] into buf (truncated to len): CMD, then each shown
 * option in brackets, "[--json]", "[--config KEY=VALUE]..." (a repeatable value), in the rows'
 * order; headings and hidden rows (--help) left out. Returns buf. */
const char *optdoc_synopsis(const char *cmd, const struct opt *opts, size_t n, char *buf,
                            size_t len);

/* The i-th value of o's list (NULL past the end, or when o lists none); *summary its
 * description or NULL. */
const char *optdoc_value(const struct opt *o, size_t i, const char **summary);

#endif
