/* optdocint.h - private to optdoc.c (the usage) and optman.c (the man page entries): what a row
 * of an option table (common/opt.h) says of itself, which both write. */
#ifndef ALLOCAB_OPTDOCINT_H
#define ALLOCAB_OPTDOCINT_H

#include "common/optdoc.h"

#include <stddef.h>

#define SPELL_MAX 256 /* an option spelled with its value's name */

/* A heading row (neither name nor short name, with help). */
int optdoc_is_heading(const struct opt *o);
/* An option usage lists with its help (not a heading, not OPT_HIDDEN). */
int optdoc_is_listed(const struct opt *o);
/* An option usage lists by name only (no help, not OPT_HIDDEN). */
int optdoc_is_named(const struct opt *o);
/* "--name", or "-x" in buf for a short-only row. */
const char *optdoc_name_of(const struct opt *o, char buf[3]);
/* Whether the row shows its value's name. */
int optdoc_shows_arg(const struct opt *o);
/* The value's name as usage shows it, in buf: arg, else the values joined by '|', else "VALUE". */
const char *optdoc_arg_of(const struct opt *o, char *buf, size_t len);
/* The length of the row's longest value that has a description; 0 when none has. */
size_t optdoc_described_width(const struct opt *o);
/* The names of rest's options (those after an OPT_REST row) joined by ", " into buf. */
const char *optdoc_rest_names(const struct opt_doc *rest, char *buf, size_t len);

#endif
