/* test_opt.c - the one command-line parser (common/opt.h): every spelling of an option and its
 * value, positionals, repeats, the rest after an OPT_REST option, abbreviations, and the one-line
 * messages. */
#include "check.h"
#include "common/opt.h"

#include <string.h>

enum { T_ALLOC, T_ROUNDS, T_PARAM, T_QUIET, T_OUT, T_GATE, T_RATE, T_COUNT };

static const struct opt table[T_COUNT] = {
    [T_ALLOC] = {"--allocators", 'a', OPT_VALUE, NULL, .help = "h"},
    [T_ROUNDS] = {"--rounds", 0, OPT_VALUE, NULL, .help = "h"},
    [T_PARAM] = {"--param", 0, OPT_VALUE | OPT_REPEAT, NULL, .help = "h"},
    [T_QUIET] = {"--quiet", 'q', OPT_REPEAT, NULL, .help = "h"},
    [T_OUT] = {NULL, 'o', OPT_VALUE, NULL, .help = "h"},
    [T_GATE] = {"--gate", 0, OPT_REST, NULL, .help = "h"},
    [T_RATE] = {"--rate", 0, OPT_VALUE, NULL, .help = "h"},
};

/* Parses the space-separated words of line (argv[0] is "cmd"); writes "k=value;" per result
 * into got ("A=x;" for a positional, "E" on an error, then stops). */
static void parse(const char *line, int abbrev, char *got, size_t len, char *err, size_t errlen)
{
	char buf[256], *argv[32], *save;
	int argc = 0, k;
	struct opt_parser p;
	const char *v;
	size_t used = 0;

	snprintf(buf, sizeof buf, "cmd %s", line);
	for (char *t = strtok_r(buf, " ", &save); t && argc < 32; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	opt_init(&p, argc, argv, 1, table, T_COUNT);
	p.abbrev = abbrev;
	got[0] = err[0] = '\0';
	while ((k = opt_next(&p, &v, err, errlen)) != OPT_DONE && used < len) {
		if (k == OPT_ERROR) {
			snprintf(got + used, len - used, "E");
			return;
		}
		if (k == T_GATE)
			used += (size_t)snprintf(got + used, len - used, "rest@%d;", p.at);
		else
			used += (size_t)snprintf(got + used, len - used, "%c=%s;",
			                         k == OPT_ARG ? 'A' : '0' + k, v ? v : "-");
	}
}

static void expect(const char *line, const char *want)
{
	char got[512], err[256];

	parse(line, 0, got, sizeof got, err, sizeof err);
	CHECK(strcmp(got, want) == 0, "'%s' -> %s (got %s %s)", line, want, got, err);
}

static void expect_err(const char *line, int abbrev, const char *msg)
{
	char got[512], err[256];

	parse(line, abbrev, got, sizeof got, err, sizeof err);
	CHECK(strchr(got, 'E') && strcmp(err, msg) == 0, "'%s' refused: %s (got %s)", line, msg,
	      err);
}

/* Whether row k is seen (opt_seen) among the words of line, argv[0] "cmd". */
static int seen(const char *line, int k)
{
	char buf[256], *argv[32], *save;
	int argc = 0;
	struct opt_parser p;

	snprintf(buf, sizeof buf, "cmd %s", line);
	for (char *t = strtok_r(buf, " ", &save); t && argc < 32; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	opt_init(&p, argc, argv, 1, table, T_COUNT);
	return opt_seen(&p, k);
}

int main(void)
{
	char got[512], err[256];

	expect("--allocators=a,b", "0=a,b;");
	expect("--allocators a,b", "0=a,b;");
	expect("-a a,b", "0=a,b;");
	expect("-aa,b", "0=a,b;");
	expect("--rounds -5", "1=-5;");
	expect("--rounds=", "1=;");
	expect("x - y", "A=x;A=-;A=y;");
	expect("--param a=1 --param b=2", "2=a=1;2=b=2;");
	expect("-q --quiet", "3=-;3=-;");
	expect("-o f -ofile", "4=f;E");
	expect("--rounds 3 --gate --candidate x --rounds 4", "1=3;rest@3;");
	expect_err("--frob", 0, "unknown option '--frob'");
	expect_err("--round 3", 0, "unknown option '--round'");
	expect_err("--rounds", 0, "--rounds needs a value");
	expect_err("-a", 0, "-a needs a value");
	expect_err("--rounds 1 --rounds=2", 0, "--rounds is given twice");
	expect_err("-o x -o y", 0, "-o is given twice");
	expect_err("--quiet=1", 0, "--quiet takes no value");
	expect_err("-qx", 0, "unknown option '-qx'");
	expect_err("--", 0, "unknown option '--'");
	expect_err("--r 3", 1, "unknown option '--r'");
	expect_err("--rate 1 --ra 2", 1, "--rate is given twice");
	parse("--roun 3 --all=x", 1, got, sizeof got, err, sizeof err);
	CHECK(strcmp(got, "1=3;0=x;") == 0, "abbrev: unique prefixes accepted (got %s %s)", got,
	      err);
	parse("--roun 3", 0, got, sizeof got, err, sizeof err);
	CHECK(strcmp(got, "E") == 0, "no abbreviation unless asked");

	struct opt_parser p;
	char *argv[] = {"cmd", "--frob"};
	const char *v;
	opt_init(&p, 2, argv, 1, table, T_COUNT);
	p.prefix = "run: ";
	p.help = "allocab bench";
	CHECK(opt_next(&p, &v, err, sizeof err) == OPT_ERROR &&
	          strcmp(err, "run: unknown option '--frob' (allocab bench --help lists them)") ==
	              0,
	      "prefix and help hint: %s", err);
	char *cmdline[] = {"cmd", "-q", "--", "--quiet", "x"};
	opt_init(&p, 5, cmdline, 1, table, T_COUNT);
	p.dashdash = 1;
	CHECK(opt_next(&p, &v, err, sizeof err) == T_QUIET &&
	          opt_next(&p, &v, err, sizeof err) == OPT_DONE && p.i == 3,
	      "dashdash: \"--\" ends the options, the rest starts after it");

	const char *inl;
	CHECK(opt_find(table, T_COUNT, "--rounds=3", &inl) == T_ROUNDS && strcmp(inl, "3") == 0,
	      "opt_find: a long option and its inline value");
	CHECK(opt_find(table, T_COUNT, "-afoo", &inl) == T_ALLOC && strcmp(inl, "foo") == 0,
	      "opt_find: a short option with its value attached");
	CHECK(opt_find(table, T_COUNT, "-qx", &inl) < 0 &&
	          opt_find(table, T_COUNT, "--roun", &inl) < 0,
	      "opt_find: a flag with text attached, and a prefix, are no option");
	CHECK(opt_find(table, T_COUNT, "-", &inl) < 0 && opt_find(table, T_COUNT, "file", &inl) < 0,
	      "opt_find: \"-\" and a positional argument are no option");

	CHECK(seen("x --frob -q", T_QUIET) && seen("--rounds 3 --rounds 4 -q", T_QUIET) &&
	          seen("--rounds= -q", T_QUIET) && seen("--quiet=1 -q", T_QUIET),
	      "opt_seen: found after an unknown option, an option given twice, a value problem");
	CHECK(!seen("--rounds -q", T_QUIET) && !seen("-o -q", T_QUIET) &&
	          !seen("--gate -q", T_QUIET) && !seen("x y", T_QUIET) && !seen("", T_QUIET),
	      "opt_seen: not as another option's value, not after an OPT_REST option, not absent");
	char *twice[] = {"cmd", "--rounds", "1", "-q"};
	opt_init(&p, 4, twice, 1, table, T_COUNT);
	CHECK(opt_seen(&p, T_QUIET) && p.i == 1 && !p.given[T_QUIET] &&
	          opt_next(&p, &v, err, sizeof err) == T_ROUNDS,
	      "opt_seen leaves the parser as it was");
	return CHECK_DONE();
}
