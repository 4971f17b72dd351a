/* test_optdoc.c - usage texts and man page entries generated from option tables
 * (common/optdoc.h): the layout of --help (columns, wrapping, headings, values with their
 * descriptions, options listed by name, hidden rows, the options after an OPT_REST row), the troff
 * of the man page entries (keys, tags, escapes, folding), synopsis lines made from rows, and the
 * rows of every command's table. */
#include "check.h"
#include "common/optdoc.h"
#include "driver/params.h"
#include "front/cmd/commands.h"

#include <stdlib.h>
#include <string.h>

static const char *color_at(size_t i, const char **summary)
{
	static const char *const names[] = {"red", "green"};
	static const char *const sums[] = {"the colour of `stop`", "go on"};

	if (i >= 2)
		return NULL;
	*summary = sums[i];
	return names[i];
}
static const struct opt_values colors = {NULL, color_at};
static const char *const sizes_words[] = {"small", "large", NULL};
static const struct opt_values sizes = {sizes_words, NULL};

static const struct opt rest_opts[] = {
    {"--first", 0, OPT_VALUE, "N", .help = "one"},
    {"--second", 0, 0, NULL, .help = "two"},
};
static const struct opt_doc rest_doc = {.prog = "tool sub", .opts = rest_opts, .nopts = 2};

static const struct opt opts[] = {
    {"--all", 'a', OPT_VALUE, "LIST",
     .help = "every item, comma-separated, and a help long enough that it has to wrap onto the "
             "next line of the usage (see --size)"},
    {"--size", 0, OPT_VALUE, NULL, .help = "how big", .values = &sizes},
    {"--color", 0, OPT_VALUE, "C", .help = "one of:", .values = &colors},
    {"--help", 'h', OPT_HIDDEN, NULL, .help = NULL},
    {NULL, 0, 0, NULL, .help = "Passed on"},
    {"--workloads", 'w', OPT_VALUE, NULL, .help = NULL},
    {"--quiet", 0, 0, NULL, .help = NULL},
    {"--rest", 0, OPT_REST, "MORE...", .help = ".dot first \\ and a backslash"},
};

static const struct opt_doc doc = {
    .prog = "tool",
    .synopsis = (const char *const[]){"[OPTIONS] FILE", "--rest MORE...", NULL},
    .about = "About the tool, a paragraph written as one line that the usage wraps at the width "
             "of the terminal it assumes.\n",
    .opts = opts,
    .nopts = sizeof opts / sizeof opts[0],
    .rest = &rest_doc,
    .notes = "Exit status: 0 ok.\n  indented line\n",
};

static char *render(int man)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (man)
		optdoc_man(f, &doc);
	else
		optdoc_usage(f, &doc, NULL);
	fclose(f);
	return buf;
}

static size_t widest_line(const char *s)
{
	size_t w = 0;

	while (*s) {
		size_t n = strcspn(s, "\n");
		w = n > w ? n : w;
		s += n + (s[n] == '\n');
	}
	return w;
}

static void test_usage(void)
{
	char *u = render(0);

	CHECK(strncmp(u,
	              "usage: tool [OPTIONS] FILE\n       tool --rest MORE...\n\nAbout the tool,",
	              60) == 0,
	      "usage: synopsis lines, then the about text");
	CHECK(strstr(u, "\n  -a, --all LIST         every item, comma-separated, and a help long "
	                "enough\n                         that it has to wrap") != NULL,
	      "usage: an option's help starts at column 25 and wraps under itself");
	CHECK(widest_line(u) <= OPTDOC_WIDTH, "usage: no line wider than %d (%zu)", OPTDOC_WIDTH,
	      widest_line(u));
	CHECK(strstr(u, "\n  --size small|large     how big\n") != NULL,
	      "usage: a value list without arg is its values joined by |");
	CHECK(strstr(u, "\n  --color C              one of:\n                           red    the "
	                "colour of `stop`\n                           green  go on\n") != NULL,
	      "usage: values with a description are listed under the help, aligned");
	CHECK(!strstr(u, "--help"), "usage: hidden rows are not listed");
	CHECK(strstr(u, "\n\nPassed on:\n") != NULL, "usage: a heading row starts a group");
	CHECK(strstr(u, "\n  -w, --workloads, --quiet\n") != NULL,
	      "usage: rows without help are listed by name at the end of their group");
	CHECK(strstr(u, "after it, the options of `tool sub`: --first, --second\n") != NULL,
	      "usage: the OPT_REST row names the options that follow it");
	CHECK(strstr(u, "\nExit status: 0 ok.\n  indented line\n") != NULL,
	      "usage: the notes close it, indentation kept");
	free(u);
}

static void test_man(void)
{
	char *m = render(1);

	CHECK(strncmp(m, ".\\\" {usage\n.PP\n\\fBtool\\fR [\\fIOPTIONS\\fR] \\fIFILE\\fR\n.br\n",
	              50) == 0,
	      "man: the synopsis block comes first");
	CHECK(strstr(m,
	             ".\\\" {--all\n.TP\n\\fB\\-a\\fR, \\fB\\-\\-all\\fR \\fILIST\\fR\nEvery item, "
	             "comma\\-separated") != NULL,
	      "man: block key, .TP, the tag, the help as a sentence with hyphens escaped");
	CHECK(strstr(m, "(see \\fB\\-\\-size\\fR).\n.\\\" }\n") != NULL,
	      "man: option names in the help are bold; the sentence ends with a full stop");
	CHECK(strstr(m, "\\fB\\-\\-size\\fR \\fBsmall\\fR|\\fBlarge\\fR\n") != NULL,
	      "man: literal values bold in the tag, placeholders italic");
	CHECK(strstr(m, "One of:\n.RS\n.TP 7\n\\fBred\\fR\nthe colour of \\fBstop\\fR\n.TP\n"
	                "\\fBgreen\\fR\ngo on\n.RE\n") != NULL,
	      "man: described values as an indented list; `code` bold; no full stop after ':'");
	CHECK(!strstr(m, "{--help"), "man: hidden rows have no entry");
	CHECK(strstr(m, ".\\\" {Passed on\n.PP\n\\fIPassed on:\\fR\n.\\\" }\n") != NULL,
	      "man: a heading is its own block");
	CHECK(strstr(m, ".\\\" {--workloads...\n.PP\n\\fB\\-w\\fR, \\fB\\-\\-workloads\\fR,\n"
	                "\\fB\\-\\-quiet\\fR.\n.\\\" }\n") != NULL,
	      "man: rows without help are one block of names, keyed by the first and ...");
	CHECK(strstr(m,
	             "\\fB\\-\\-rest\\fR \\fIMORE\\fR...\n\\&.dot first \\e and a backslash. After "
	             "it, the options of \\fBtool sub\\fR: \\fB\\-\\-first\\fR,") != NULL,
	      "man: a leading dot and a backslash escaped; the rest's options named");
	CHECK(widest_line(m) <= 99, "man: source lines folded (%zu)", widest_line(m));
	free(m);
}

static void test_values(void)
{
	const char *sum;
	char buf[64];

	CHECK(strcmp(optdoc_value(&opts[1], 1, &sum), "large") == 0 && !sum,
	      "value: the i-th word of a list");
	CHECK(!optdoc_value(&opts[1], 2, &sum), "value: NULL past the end of a list");
	CHECK(strcmp(optdoc_value(&opts[2], 1, &sum), "green") == 0 && strcmp(sum, "go on") == 0,
	      "value: a registry's entry with its description");
	CHECK(!optdoc_value(&opts[0], 0, &sum), "value: none for a row without values");
	CHECK(strcmp(optdoc_spelled(&opts[0], buf, sizeof buf), "-a, --all LIST") == 0,
	      "spelled: short, long and the value's name");
	CHECK(strcmp(optdoc_spelled(&opts[6], buf, sizeof buf), "--quiet") == 0, "spelled: a flag");
}

static void test_synopsis(void)
{
	static const struct opt more[] = {
	    {"--config", 0, OPT_VALUE | OPT_REPEAT, "KEY=VALUE", .help = "a setting"},
	    {"--verbose", 'v', OPT_REPEAT, NULL, .help = "more"},
	    {NULL, 'x', 0, NULL, .help = "short only"},
	};
	char buf[256], small[12];

	CHECK(strcmp(optdoc_synopsis("tool", opts, sizeof opts / sizeof opts[0], buf, sizeof buf),
	             "tool [--all LIST] [--size small|large] [--color C] [--workloads "
	             "VALUE] [--quiet] [--rest MORE...]") == 0,
	      "synopsis: every shown row in brackets with its value's name, headings and hidden "
	      "rows left out ('%s')",
	      buf);
	CHECK(strcmp(optdoc_synopsis("env", more, 3, buf, sizeof buf),
	             "env [--config KEY=VALUE]... [--verbose] [-x]") == 0,
	      "synopsis: a repeatable value ends in '...', a repeatable flag does not, a short-only "
	      "row by its letter ('%s')",
	      buf);
	CHECK(strcmp(optdoc_synopsis("env", more, 3, small, sizeof small), "env [--conf") == 0,
	      "synopsis: truncated to the buffer ('%s')", small);
}

/* The rows of one table: every option described with a value names it; help is one line. */
static void check_rows(const char *what, const struct opt *o, size_t n)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		if ((o[i].flags & OPT_VALUE) && o[i].help && !o[i].arg && !o[i].values)
			bad++, printf("# %s row %zu: a value without a name\n", what, i);
		if (o[i].help && (strchr(o[i].help, '\n') || strlen(o[i].help) > 400))
			bad++, printf("# %s row %zu: help is not one short line\n", what, i);
		if (!o[i].name && !o[i].short_name && !o[i].help)
			bad++, printf("# %s row %zu: an empty row\n", what, i);
	}
	CHECK(bad == 0, "%s: every row is well formed", what);
}

static void test_tables(void)
{
	const struct opt_doc *docs[] = {&bench_doc,     &compare_doc, &gate_doc,
	                                &calibrate_doc, &record_doc,  &trace_doc};
	size_t n;
	const struct opt *run = params_run_options(&n);

	for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
		check_rows(docs[i]->prog, docs[i]->opts, docs[i]->nopts);
	check_rows("allocab-BACKEND run", run, n);
}

int main(void)
{
	test_usage();
	test_man();
	test_values();
	test_synopsis();
	test_tables();
	return CHECK_DONE();
}
