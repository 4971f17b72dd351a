/* optman.c - the man page entries of option tables (common/optdoc.h, optdoc_man), in roff for
 * docs/allocab.1. */
#include "common/optdocint.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAN_WIDTH 99 /* lines of the man page's source */

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
	if (optdoc_shows_arg(o)) {
		fputc(' ', f);
		man_arg(f, optdoc_arg_of(o, arg, sizeof arg));
	}
	fputc('\n', f);
}

/* The values of o that have a description, as a list indented under its help (text after the
 * block continues the entry with `.IP`). */
static void man_values(FILE *f, const struct opt *o)
{
	const char *v, *sum;
	size_t width = optdoc_described_width(o);

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

	fprintf(f, ".\\\" {%s\n.TP\n", optdoc_name_of(o, nb));
	man_tag(f, o);
	if (m) {
		man_sentence(m, opt_help(o, help, sizeof help));
		man_values(m, o);
		if ((o->flags & OPT_REST) && d->rest) {
			fprintf(m, " After it, the options of \\fB%s\\fR: ", d->rest->prog);
			man_text(m, optdoc_rest_names(d->rest, names, sizeof names));
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

		if (!optdoc_is_named(o))
			continue;
		if (!any++)
			fprintf(f, ".\\\" {%s...\n.PP\n", optdoc_name_of(o, nb));
		else
			fputs(",\n", f);
		if (o->short_name && o->name)
			fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
		fputs("\\fB", f);
		man_chars(f, optdoc_name_of(o, nb), strlen(optdoc_name_of(o, nb)));
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

		if (optdoc_is_heading(o) && o->help) {
			man_names(f, d->opts, group, i);
			group = i;
			fprintf(f, ".\\\" {%s\n.PP\n\\fI", o->help);
			man_chars(f, o->help, strlen(o->help));
			fputs(":\\fR\n.\\\" }\n", f);
		} else if (optdoc_is_listed(o)) {
			man_option(f, d, o);
		}
	}
	man_names(f, d->opts, group, d->nopts);
}
