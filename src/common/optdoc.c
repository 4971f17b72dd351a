/* optdoc.c - usage texts from option tables (common/optdoc.h), and what a row says of itself,
 * which the man page entries (optman.c) share (optdocint.h). */
#include "common/optdocint.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define HELP_COL  25 /* where an option's help starts in --help */
#define VALUE_COL 27 /* where a listed value starts, under its option's help */
#define NAMES_COL 2  /* options listed by name only */

int optdoc_is_heading(const struct opt *o)
{
	return !o->name && !o->short_name;
}

int optdoc_is_listed(const struct opt *o)
{
	return !optdoc_is_heading(o) && o->help && !(o->flags & OPT_HIDDEN);
}

int optdoc_is_named(const struct opt *o)
{
	return !optdoc_is_heading(o) && !o->help && !(o->flags & OPT_HIDDEN);
}

const char *optdoc_name_of(const struct opt *o, char buf[3])
{
	if (o->name)
		return o->name;
	buf[0] = '-', buf[1] = o->short_name, buf[2] = '\0';
	return buf;
}

int optdoc_shows_arg(const struct opt *o)
{
	return (o->flags & OPT_VALUE) || ((o->flags & OPT_REST) && o->arg);
}

const char *optdoc_value(const struct opt *o, size_t i, const char **summary)
{
	*summary = NULL;
	if (!o->values)
		return NULL;
	if (o->values->words) {
		for (size_t k = 0; k < i; k++)
			if (!o->values->words[k])
				return NULL;
		return o->values->words[i];
	}
	return o->values->at ? o->values->at(i, summary) : NULL;
}

const char *optdoc_arg_of(const struct opt *o, char *buf, size_t len)
{
	const char *v, *sum;
	size_t k = 0;

	if (o->arg || !o->values)
		return o->arg ? o->arg : "VALUE";
	buf[0] = '\0';
	for (size_t i = 0; (v = optdoc_value(o, i, &sum)) && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? "|" : "", v);
	return buf;
}

const char *optdoc_spelled(const struct opt *o, char *buf, size_t len)
{
	char arg[SPELL_MAX];
	int n = 0;

	if (o->short_name && o->name)
		n = snprintf(buf, len, "-%c, %s", o->short_name, o->name);
	else if (o->name)
		n = snprintf(buf, len, "%s", o->name);
	else
		n = snprintf(buf, len, "-%c", o->short_name);
	if (optdoc_shows_arg(o) && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " %s", optdoc_arg_of(o, arg, sizeof arg));
	return buf;
}

const char *optdoc_synopsis(const char *cmd, const struct opt *opts, size_t n, char *buf,
                            size_t len)
{
	char arg[SPELL_MAX];
	size_t k = (size_t)snprintf(buf, len, "%s", cmd);

	for (size_t i = 0; i < n && k < len; i++) {
		const struct opt *o = &opts[i];

		if ((!o->name && !o->short_name) || (o->flags & OPT_HIDDEN))
			continue;
		k += (size_t)snprintf(buf + k, len - k, " [%s", o->name ? o->name : "-");
		if (!o->name && k < len)
			k += (size_t)snprintf(buf + k, len - k, "%c", o->short_name);
		if (optdoc_shows_arg(o) && k < len)
			k += (size_t)snprintf(buf + k, len - k, " %s", optdoc_arg_of(o, arg, sizeof arg));
		if (k < len)
			k += (size_t)snprintf(buf + k, len - k, "]%s",
			                      (o->flags & OPT_REPEAT) && optdoc_shows_arg(o) ? "..." : "");
	}
	return buf;
}

/* ---- --help ---- */

/* Prints text word by word from column col, breaking lines before OPTDOC_WIDTH and starting each
 * new line at column indent; spaces between words on one line are kept. Ends the line. */
static void wrap(FILE *f, const char *text, size_t col, size_t indent)
{
	size_t gap = 0;

	while (*text) {
		size_t w = strcspn(text, " ");

		if (col > indent && col + gap + w > OPTDOC_WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else {
			fprintf(f, "%*s", (int)gap, "");
			col += gap;
		}
		fwrite(text, 1, w, f);
		col += w;
		text += w;
		gap = strspn(text, " ");
		text += gap;
	}
	fputc('\n', f);
}

size_t optdoc_described_width(const struct opt *o)
{
	const char *v, *sum;
	size_t width = 0;

	for (size_t i = 0; (v = optdoc_value(o, i, &sum)); i++)
		if (sum && strlen(v) > width)
			width = strlen(v);
	return width;
}

/* The values of o that have a description, one per line under its help. */
static void usage_values(FILE *f, const struct opt *o)
{
	const char *v, *sum;
	size_t width = optdoc_described_width(o);

	for (size_t i = 0; (v = optdoc_value(o, i, &sum)); i++)
		if (sum) {
			fprintf(f, "%*s%-*s  ", VALUE_COL, "", (int)width, v);
			wrap(f, sum, VALUE_COL + width + 2, VALUE_COL + width + 2);
		}
}

const char *optdoc_rest_names(const struct opt_doc *rest, char *buf, size_t len)
{
	size_t k = 0;
	char nb[3];

	buf[0] = '\0';
	for (size_t i = 0; i < rest->nopts && k < len; i++)
		if (optdoc_is_listed(&rest->opts[i]) || optdoc_is_named(&rest->opts[i]))
			k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "",
			                      optdoc_name_of(&rest->opts[i], nb));
	return buf;
}

static void usage_row(FILE *f, const struct opt_doc *d, const struct opt *o)
{
	char s[SPELL_MAX], names[1024], line[1200], help[2048];

	optdoc_spelled(o, s, sizeof s);
	if (strlen(s) + 2 <= HELP_COL - 2)
		fprintf(f, "  %-*s", HELP_COL - 2, s);
	else
		fprintf(f, "  %s\n%*s", s, HELP_COL, "");
	wrap(f, opt_help(o, help, sizeof help), HELP_COL, HELP_COL);
	usage_values(f, o);
	if ((o->flags & OPT_REST) && d->rest) {
		snprintf(line, sizeof line, "after it, the options of `%s`: %s", d->rest->prog,
		         optdoc_rest_names(d->rest, names, sizeof names));
		fprintf(f, "%*s", HELP_COL, "");
		wrap(f, line, HELP_COL, HELP_COL);
	}
}

/* Rows without help from first to end (exclusive), by name: "-w, --workloads, --scale". */
static void usage_names(FILE *f, const struct opt *opts, size_t first, size_t end)
{
	char line[2048], nb[3];
	size_t k = 0;

	line[0] = '\0';
	for (size_t i = first; i < end && k < sizeof line; i++) {
		const struct opt *o = &opts[i];

		if (!optdoc_is_named(o))
			continue;
		if (o->name && o->short_name)
			k += (size_t)snprintf(line + k, sizeof line - k, "%s-%c", k ? ", " : "",
			                      o->short_name);
		if (k < sizeof line)
			k += (size_t)snprintf(line + k, sizeof line - k, "%s%s", k ? ", " : "",
			                      optdoc_name_of(o, nb));
	}
	if (k) {
		fprintf(f, "%*s", NAMES_COL, "");
		wrap(f, line, NAMES_COL, NAMES_COL);
	}
}

/* Prose: each line of text wrapped on its own, its continuation lines indented as it is. */
static void usage_prose(FILE *f, const char *text)
{
	char line[4096];

	while (*text) {
		size_t n = strcspn(text, "\n"), indent = strspn(text, " ");

		snprintf(line, sizeof line, "%.*s", (int)(n - indent), text + indent);
		fprintf(f, "%*s", (int)indent, "");
		wrap(f, line, indent, indent);
		text += n + (text[n] == '\n');
	}
}

void optdoc_usage(FILE *f, const struct opt_doc *d, const char *prog)
{
	size_t group = 0;
	int listed = 0;

	prog = prog ? prog : d->prog;
	for (size_t i = 0; d->synopsis[i]; i++)
		fprintf(f, "%s %s %s\n", i ? "      " : "usage:", prog, d->synopsis[i]);
	if (d->about) {
		fputc('\n', f);
		usage_prose(f, d->about);
	}
	fputc('\n', f);
	for (size_t i = 0; i < d->nopts; i++) {
		const struct opt *o = &d->opts[i];

		if (optdoc_is_heading(o) && o->help) {
			usage_names(f, d->opts, group, i);
			group = i;
			fprintf(f, "%s%s:\n", listed ? "\n" : "", o->help);
		} else if (optdoc_is_listed(o)) {
			usage_row(f, d, o);
			listed = 1;
		}
	}
	usage_names(f, d->opts, group, d->nopts);
	if (d->notes) {
		fputc('\n', f);
		usage_prose(f, d->notes);
	}
}

/* ---- the man page ---- */
