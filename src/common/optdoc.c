/* optdoc.c - usage texts and man page entries from option tables (common/optdoc.h). */
#include "common/optdoc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define HELP_COL  25 /* where an option's help starts in --help */
#define VALUE_COL 27 /* where a listed value starts, under its option's help */
#define NAMES_COL 2  /* options listed by name only */
#define SPELL_MAX 256
#define MAN_WIDTH 99 /* lines of the man page's source */

static int is_heading(const struct opt *o)
{
	return !o->name && !o->short_name;
}

/* Whether o is an option that usage lists with its help. */
static int is_listed(const struct opt *o)
{
	return !is_heading(o) && o->help && !(o->flags & OPT_HIDDEN);
}

/* Whether o is an option that usage lists by name only. */
static int is_named(const struct opt *o)
{
	return !is_heading(o) && !o->help && !(o->flags & OPT_HIDDEN);
}

/* The long name, else "-x" in buf. */
static const char *name_of(const struct opt *o, char buf[3])
{
	if (o->name)
		return o->name;
	buf[0] = '-', buf[1] = o->short_name, buf[2] = '\0';
	return buf;
}

/* Whether usage shows a value after o's name. */
static int shows_arg(const struct opt *o)
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

/* The value's name as usage shows it: arg, else the values joined by '|', else "VALUE". */
static const char *arg_of(const struct opt *o, char *buf, size_t len)
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
	if (shows_arg(o) && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " %s", arg_of(o, arg, sizeof arg));
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
		if (shows_arg(o) && k < len)
			k += (size_t)snprintf(buf + k, len - k, " %s", arg_of(o, arg, sizeof arg));
		if (k < len)
			k += (size_t)snprintf(buf + k, len - k, "]%s",
			                      (o->flags & OPT_REPEAT) && shows_arg(o) ? "..." : "");
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

/* The length of o's longest value that has a description; 0 when none has. */
static size_t described_width(const struct opt *o)
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
	size_t width = described_width(o);

	for (size_t i = 0; (v = optdoc_value(o, i, &sum)); i++)
		if (sum) {
			fprintf(f, "%*s%-*s  ", VALUE_COL, "", (int)width, v);
			wrap(f, sum, VALUE_COL + width + 2, VALUE_COL + width + 2);
		}
}

/* The names of rest's options joined by ", " into buf. */
static const char *rest_names(const struct opt_doc *rest, char *buf, size_t len)
{
	size_t k = 0;
	char nb[3];

	buf[0] = '\0';
	for (size_t i = 0; i < rest->nopts && k < len; i++)
		if (is_listed(&rest->opts[i]) || is_named(&rest->opts[i]))
			k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "",
			                      name_of(&rest->opts[i], nb));
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
		         rest_names(d->rest, names, sizeof names));
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

		if (!is_named(o))
			continue;
		if (o->name && o->short_name)
			k += (size_t)snprintf(line + k, sizeof line - k, "%s-%c", k ? ", " : "",
			                      o->short_name);
		if (k < sizeof line)
			k += (size_t)snprintf(line + k, sizeof line - k, "%s%s", k ? ", " : "",
			                      name_of(o, nb));
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

		if (is_heading(o) && o->help) {
			usage_names(f, d->opts, group, i);
			group = i;
			fprintf(f, "%s%s:\n", listed ? "\n" : "", o->help);
		} else if (is_listed(o)) {
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

static int word_char(int c)
{
	return isalnum(c) || c == '_';
}

/* One character for a troff text line: hyphens and backslashes escaped. */
static void man_char(FILE *f, char c)
{
	if (c == '-')
		fputs("\\-", f);
	else if (c == '\\')
		fputs("\\e", f);
	else
		fputc(c, f);
}

static void man_chars(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		man_char(f, s[i]);
}

/* An option name at s ("--name" or "-x" ending there), as a reader would type it; its length,
 * or 0. prev is the character before s (0 at the start). */
static size_t option_at(const char *s, int prev)
{
	size_t n;

	if (s[0] != '-' || word_char(prev) || prev == '-' || prev == '/')
		return 0;
	if (s[1] == '-' && islower((unsigned char)s[2])) {
		n = 2 + strspn(s + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
		return s[n - 1] == '-' ? 0 : n;
	}
	return isalpha((unsigned char)s[1]) && !word_char(s[2]) && s[2] != '-' ? 2 : 0;
}

/* Text for a troff text line: escaped, option names and `code` in bold. */
static void man_text(FILE *f, const char *s)
{
	int prev = 0, code = 0;

	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s; prev = (unsigned char)*s++) {
		size_t n = code ? 0 : option_at(s, prev);

		if (n) {
			fputs("\\fB", f);
			man_chars(f, s, n);
			fputs("\\fR", f);
			s += n - 1;
		} else if (*s == '`') {
			fputs((code = !code) ? "\\fB" : "\\fR", f);
		} else {
			man_char(f, *s);
		}
	}
}

/* Help as a sentence: the first letter capitalised, a full stop at the end. */
static void man_sentence(FILE *f, const char *help)
{
	size_t n = strlen(help);
	char last = n ? help[n - 1] : '.';

	if (islower((unsigned char)help[0])) {
		fputc(toupper((unsigned char)help[0]), f);
		help++;
	}
	man_text(f, help);
	if (last != '.' && last != ':')
		fputc('.', f);
}

/* A value's name in a tag: words with a lower-case letter (literals) bold, other words
 * (placeholders) italic, '=' and ':' bold, the rest roman. */
static void man_arg(FILE *f, const char *a)
{
	static const char word[] =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
	char font = 'R';

	while (*a) {
		size_t n = strspn(a, word);
		char want = n ? 'I' : *a == '=' || *a == ':' ? 'B' : 'R';

		for (size_t i = 0; i < n; i++)
			if (islower((unsigned char)a[i]) || (n == 1 && a[i] == '-'))
				want = 'B';
		if (want != font)
			fprintf(f, "\\f%c", font = want);
		man_chars(f, a, n ? n : 1);
		a += n ? n : 1;
	}
	if (font != 'R')
		fputs("\\fR", f);
}

static void man_tag(FILE *f, const struct opt *o)
{
	char arg[SPELL_MAX];

	if (o->short_name)
		fprintf(f, "\\fB\\-%c\\fR%s", o->short_name, o->name ? ", " : "");
	if (o->name) {
		fputs("\\fB", f);
		man_chars(f, o->name, strlen(o->name));
		fputs("\\fR", f);
	}
	if (shows_arg(o)) {
		fputc(' ', f);
		man_arg(f, arg_of(o, arg, sizeof arg));
	}
	fputc('\n', f);
}

/* The values of o that have a description, as a list indented under its help (text after the
 * block continues the entry with `.IP`). */
static void man_values(FILE *f, const struct opt *o)
{
	const char *v, *sum;
	size_t width = described_width(o);

	if (!width)
		return;
	fprintf(f, "\n.RS\n.TP %zu", width + 2);
	for (size_t i = 0, k = 0; (v = optdoc_value(o, i, &sum)); i++) {
		if (!sum)
			continue;
		fputs(k++ ? "\n.TP\n\\fB" : "\n\\fB", f);
		man_chars(f, v, strlen(v));
		fputs("\\fR\n", f);
		man_text(f, sum);
	}
	fputs("\n.RE", f);
}

/* Copies troff text to f with its lines broken at spaces before MAN_WIDTH; a line that the
 * break would start with a control character is escaped. */
static void man_fold(FILE *f, const char *text)
{
	size_t col = 0;

	while (*text) {
		size_t w = strcspn(text, " \n");

		if (col && col + 1 + w > MAN_WIDTH) {
			fputc('\n', f);
			col = (*text == '.' || *text == '\'') ? (size_t)fprintf(f, "\\&") : 0;
		} else if (col) {
			fputc(' ', f);
			col++;
		}
		fwrite(text, 1, w, f);
		col += w;
		text += w;
		if (*text == '\n')
			fputc('\n', f), col = 0;
		if (*text)
			text++;
	}
}

static void man_option(FILE *f, const struct opt_doc *d, const struct opt *o)
{
	char names[1024], nb[3], help[2048], *para = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&para, &len);

	fprintf(f, ".\\\" {%s\n.TP\n", name_of(o, nb));
	man_tag(f, o);
	if (m) {
		man_sentence(m, opt_help(o, help, sizeof help));
		man_values(m, o);
		if ((o->flags & OPT_REST) && d->rest) {
			fprintf(m, " After it, the options of \\fB%s\\fR: ", d->rest->prog);
			man_text(m, rest_names(d->rest, names, sizeof names));
			fputc('.', m);
		}
		if (fclose(m) == 0)
			man_fold(f, para);
		free(para);
	}
	fputs("\n.\\\" }\n", f);
}

/* Rows without help from first to end (exclusive) as one paragraph of names. */
static void man_names(FILE *f, const struct opt *opts, size_t first, size_t end)
{
	char nb[3];
	int any = 0;

	for (size_t i = first; i < end; i++) {
		const struct opt *o = &opts[i];

		if (!is_named(o))
			continue;
		if (!any++)
			fprintf(f, ".\\\" {%s...\n.PP\n", name_of(o, nb));
		else
			fputs(",\n", f);
		if (o->short_name && o->name)
			fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
		fputs("\\fB", f);
		man_chars(f, name_of(o, nb), strlen(name_of(o, nb)));
		fputs("\\fR", f);
	}
	if (any)
		fputs(".\n.\\\" }\n", f);
}

/* The program's name in bold, an upper-case part (BACKEND) in italic. */
static void man_prog(FILE *f, const char *prog)
{
	while (*prog) {
		size_t n = strspn(prog, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");

		fputs(n ? "\\fI" : "\\fB", f);
		if (!n)
			n = strcspn(prog, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
		man_chars(f, prog, n);
		prog += n;
	}
	fputs("\\fR", f);
}

/* The synopsis lines, as the first block (KEY "usage"). */
static void man_synopsis(FILE *f, const struct opt_doc *d)
{
	fputs(".\\\" {usage\n.PP\n", f);
	for (size_t i = 0; d->synopsis[i]; i++) {
		fputs(i ? ".br\n" : "", f);
		man_prog(f, d->prog);
		fputc(' ', f);
		man_arg(f, d->synopsis[i]);
		fputc('\n', f);
	}
	fputs(".\\\" }\n", f);
}

void optdoc_man(FILE *f, const struct opt_doc *d)
{
	size_t group = 0;

	man_synopsis(f, d);
	for (size_t i = 0; i < d->nopts; i++) {
		const struct opt *o = &d->opts[i];

		if (is_heading(o) && o->help) {
			man_names(f, d->opts, group, i);
			group = i;
			fprintf(f, ".\\\" {%s\n.PP\n\\fI", o->help);
			man_chars(f, o->help, strlen(o->help));
			fputs(":\\fR\n.\\\" }\n", f);
		} else if (is_listed(o)) {
			man_option(f, d, o);
		}
	}
	man_names(f, d->opts, group, d->nopts);
}
