/* test_optval.c - the declarative rows of common/opt.h: defaults written from the rows, every
 * type stored at its destination, the one message form of each type and range mistake, needs
 * and excludes, a setter, and the default and range printed into the help from the row. */
#include "check.h"
#include "common/errmsg.h"
#include "common/opt.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

struct s {
	unsigned rounds;
	int rounds_set;
	uint64_t seed;
	size_t pad;
	double budget, margin, level;
	const char *out, *mode_doc;
	int mode, quiet, odd;
	const char **items;
	size_t nitems;
	int64_t shift, bytes, big;
};

enum { S_ROUNDS, S_SEED, S_PAD, S_BUDGET, S_MARGIN, S_LEVEL, S_OUT, S_MODE, S_QUIET, S_ITEM,
       S_ODD, S_FIRST, S_SECOND, S_SHIFT, S_BYTES, S_BIG, S_COUNT };

static const char *const mode_words[] = {"fast", "slow", NULL};
static const int mode_map[] = {7, 9};
static const struct opt_values mode_values = {mode_words, NULL};

static int set_odd(void *settings, const struct opt *o, const char *v, char *err, size_t errlen)
{
	unsigned n;

	if (opt_value(o, v, &n, err, errlen) != 0)
		return -1;
	if (n % 2 == 0)
		return errmsg_fail(err, errlen, "%s: %u is even", o->name, n);
	((struct s *)settings)->odd = (int)n;
	return 0;
}

static const struct opt table[S_COUNT] = {
    [S_ROUNDS] = {"--rounds", 0, OPT_VALUE, "N", .help = "rounds", OPT_UINT(struct s, rounds),
                  OPT_GIVEN(struct s, rounds_set), .lo = 1, .hi = 100000, OPT_DEF_U(10),
                  .def_doc = "more with --gate"},
    [S_SEED] = {"--seed", 0, OPT_VALUE, "N", .help = "seed", OPT_U64(struct s, seed),
                OPT_DEF_U(42)},
    [S_PAD] = {"--pad", 0, OPT_VALUE, "B", .help = "pad", OPT_SIZE(struct s, pad), .lo = 0,
               .hi = 65536},
    [S_BUDGET] = {"--budget", 0, OPT_VALUE, "S", .help = "budget", OPT_SECONDS(struct s, budget),
                  .lo = 0.001, .hi = 1e7},
    [S_MARGIN] = {"--margin", 0, OPT_VALUE | OPT_OPEN_LO | OPT_OPEN_HI, "M%", .help = "margin",
                  OPT_PCT(struct s, margin), .lo = 0, .hi = 100, OPT_DEF_D(2)},
    [S_LEVEL] = {"--level", 0, OPT_VALUE | OPT_OPEN_HI, "L", .help = "level",
                 OPT_DOUBLE(struct s, level), .lo = 0.5, .hi = 1, OPT_DEF_D(0.95)},
    [S_OUT] = {"--output", 'o', OPT_VALUE, "FILE", .help = "output", OPT_STRING(struct s, out),
               OPT_DEF_S("a.json"), .excludes = OPT_NAMES("--quiet"), .why = "it is quiet"},
    [S_MODE] = {"--mode", 0, OPT_VALUE, NULL, .help = "the mode, one of:", .values = &mode_values,
                .map = mode_map, OPT_ENUM(struct s, mode), OPT_DEF_U(9)},
    [S_QUIET] = {"--quiet", 'q', 0, NULL, .help = "quiet", OPT_FLAG(struct s, quiet)},
    [S_ITEM] = {"--item", 0, OPT_VALUE | OPT_REPEAT, "X", .help = "item",
                OPT_LIST(struct s, items, nitems)},
    [S_ODD] = {"--odd", 0, OPT_VALUE, "N", .help = "odd", .type = OPT_T_UINT, .lo = 1, .hi = 99,
               .set = set_odd},
    [S_FIRST] = {"--first", 0, 0, NULL, .help = "first", .needs = OPT_NAMES("--second", "--quiet")},
    [S_SECOND] = {"--second", 0, 0, NULL, .help = "second"},
    [S_SHIFT] = {"--shift", 0, OPT_VALUE, "N", .help = "shift", OPT_I64(struct s, shift),
                 .lo = -50, .hi = 50, OPT_DEF_U(3)},
    [S_BYTES] = {"--bytes", 0, OPT_VALUE | OPT_BYTES, "B", .help = "bytes",
                 OPT_I64(struct s, bytes), .lo = 64, .hi = 1099511627776.0},
    [S_BIG] = {"--big", 0, OPT_VALUE, "N", .help = "big", OPT_I64(struct s, big), .lo = 0,
               .hi = (double)INT64_MAX},
};

static const char *items[8];

/* Parses the words of line into *o (after opt_defaults) and checks the rules; returns the last
 * result (OPT_DONE on success, OPT_ERROR with err, or a row without destination). */
static int run(const char *line, struct s *o, char *err, size_t errlen)
{
	char buf[256], *argv[32], *save;
	int argc = 0, k;
	struct opt_parser p;
	const char *v;

	snprintf(buf, sizeof buf, "cmd %s", line);
	for (char *t = strtok_r(buf, " ", &save); t && argc < 32; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	memset(o, 0, sizeof *o);
	o->items = items;
	opt_defaults(table, S_COUNT, o);
	opt_init(&p, argc, argv, 1, table, S_COUNT);
	err[0] = '\0';
	while ((k = opt_parse(&p, o, &v, err, errlen)) >= 0)
		;
	if (k == OPT_DONE && opt_check(&p, err, errlen) != 0)
		return OPT_ERROR;
	/* argv points into buf: keep the strings the settings point to valid for the caller */
	return k;
}

static void refused(const char *line, const char *msg)
{
	struct s o;
	char err[256];

	CHECK(run(line, &o, err, sizeof err) == OPT_ERROR && strcmp(err, msg) == 0 &&
	          !strchr(err, '\n'),
	      "'%s' refused: %s (got '%s')", line, msg, err);
}

static void help_is(int k, const char *want)
{
	char buf[512];
	const char *got = opt_help(&table[k], buf, sizeof buf);

	CHECK(got && strcmp(got, want) == 0, "help of %s: '%s' (got '%s')", table[k].name, want,
	      got ? got : "(null)");
}

int main(void)
{
	struct s o;
	char err[256];

	CHECK(run("", &o, err, sizeof err) == OPT_DONE && o.rounds == 10 && !o.rounds_set &&
	          o.seed == 42 && o.pad == 0 && o.margin == 2 && o.level == 0.95 &&
	          strcmp(o.out, "a.json") == 0 && o.mode == 9 && !o.quiet,
	      "defaults come from the rows");
	CHECK(run("--rounds 3 --seed 18446744073709551615 --pad 65536 --budget 0.5 --margin 2.5% "
	          "--level 0.99 --mode fast -q --item a --item b --odd 7",
	          &o, err, sizeof err) == OPT_DONE &&
	          o.rounds == 3 && o.rounds_set && o.seed == UINT64_MAX && o.pad == 65536 &&
	          o.budget == 0.5 && o.margin == 2.5 && o.level == 0.99 && o.mode == 7 && o.quiet &&
	          o.nitems == 2 && o.odd == 7,
	      "every type stored at its destination (got '%s')", err);
	refused("--rounds x", "--rounds: 'x' is not a whole number");
	refused("--rounds -1", "--rounds: '-1' is not a whole number");
	refused("--rounds 0", "--rounds: 0 is out of range [1, 100000]");
	refused("--rounds 100001", "--rounds: 100001 is out of range [1, 100000]");
	refused("--rounds 99999999999999999999", "--rounds: 99999999999999999999 is out of range [1, "
	                                         "100000]");
	refused("--seed 99999999999999999999", "--seed: 99999999999999999999 is too large");
	refused("--pad 65537", "--pad: 65537 is out of range [0, 65536]");
	refused("--budget 0", "--budget: 0 is out of range [0.001, 10000000]");
	refused("--budget nan", "--budget: 'nan' is not a time (90, 90s, 10m or 1.5h)");
	refused("--budget 1x", "--budget: '1x' is not a time (90, 90s, 10m or 1.5h)");
	refused("--budget m", "--budget: 'm' is not a time (90, 90s, 10m or 1.5h)");
	refused("--budget 10ms", "--budget: '10ms' is not a time (90, 90s, 10m or 1.5h)");
	refused("--budget 0m", "--budget: 0m is out of range [0.001, 10000000]");
	CHECK(run("--budget 10m", &o, err, sizeof err) == OPT_DONE && o.budget == 600,
	      "seconds: 10m is 600 (got %g, '%s')", o.budget, err);
	CHECK(run("--budget 1.5h", &o, err, sizeof err) == OPT_DONE && o.budget == 5400,
	      "seconds: 1.5h is 5400 (got %g, '%s')", o.budget, err);
	CHECK(run("--budget 90s", &o, err, sizeof err) == OPT_DONE && o.budget == 90,
	      "seconds: 90s is 90 (got %g, '%s')", o.budget, err);
	refused("--margin 0", "--margin: 0 is out of range (0%, 100%)");
	refused("--margin 100%", "--margin: 100% is out of range (0%, 100%)");
	refused("--margin x%", "--margin: 'x%' is not a percentage (5, 5% or 2.5%)");
	refused("--level 1", "--level: 1 is out of range [0.5, 1)");
	refused("--mode medium", "--mode: 'medium' is not one of fast, slow");
	refused("--output=", "--output: empty value");
	refused("--odd 4", "--odd: 4 is even");
	refused("--odd 100", "--odd: 100 is out of range [1, 99]");
	refused("-o x -q", "--output cannot be combined with --quiet: it is quiet");
	refused("-q -o x", "--output cannot be combined with --quiet: it is quiet");
	refused("--first", "--first needs --second or --quiet");
	CHECK(run("--first -q", &o, err, sizeof err) == OPT_DONE, "needs: one of the rows is enough");
	CHECK(run("--first --second", &o, err, sizeof err) == OPT_DONE,
	      "needs: the other row is enough (got '%s')", err);

	help_is(S_ROUNDS, "rounds, in [1, 100000] (default: 10; more with --gate)");
	help_is(S_SEED, "seed (default: 42)");
	help_is(S_PAD, "pad, in [0, 65536]");
	help_is(S_MARGIN, "margin, in (0%, 100%) (default: 2%)");
	help_is(S_LEVEL, "level, in [0.5, 1) (default: 0.95)");
	help_is(S_OUT, "output (default: a.json)");
	help_is(S_MODE, "the mode (default: slow), one of:");
	help_is(S_QUIET, "quiet");

	CHECK(run("", &o, err, sizeof err) == OPT_DONE && o.shift == 3 && o.bytes == 0,
	      "a signed row's default from the row (got %lld)", (long long)o.shift);
	CHECK(run("--shift -50 --bytes 3M", &o, err, sizeof err) == OPT_DONE && o.shift == -50 &&
	          o.bytes == 3 << 20,
	      "a negative whole number and a byte count with a suffix (got '%s')", err);
	CHECK(run("--bytes 1099511627776", &o, err, sizeof err) == OPT_DONE &&
	          o.bytes == 1LL << 40,
	      "a signed row's upper bound is inclusive and exact (got '%s')", err);
	refused("--shift 51", "--shift: 51 is out of range [-50, 50]");
	refused("--shift -51", "--shift: -51 is out of range [-50, 50]");
	refused("--shift 1k", "--shift: '1k' is not a whole number");
	refused("--shift -", "--shift: '-' is not a whole number");
	refused("--bytes 1T", "--bytes: '1T' is not a byte count (a whole number, optional k, M or G "
	                      "suffix)");
	refused("--bytes 1099511627777", "--bytes: 1099511627777 is out of range [64, 1099511627776]");
	refused("--bytes 9007199254740992G",
	        "--bytes: 9007199254740992G is out of range [64, 1099511627776]");
	CHECK(run("--big 9223372036854775807", &o, err, sizeof err) == OPT_DONE &&
	          o.big == INT64_MAX,
	      "a range up to INT64_MAX (as a double, 2^63) takes INT64_MAX (got '%s')", err);
	CHECK(run("--big 5", &o, err, sizeof err) == OPT_DONE && o.big == 5,
	      "a range up to INT64_MAX takes 5 (got '%s')", err);
	refused("--big 9223372036854775808",
	        "--big: 9223372036854775808 is out of range [0, 9223372036854775807]");
	help_is(S_SHIFT, "shift, in [-50, 50] (default: 3)");
	return CHECK_DONE();
}
