/* test_optnames.c - the rows of every command's table name the options they need or exclude by
 * name (common/opt.h, OPT_NAMES): each name is a row of the same table, so that no rule is lost to
 * a misspelling; calibrate's table holds bench's rows flagged OPT_ALSO, parsed into its settings
 * with bench's types and messages, and the bench options its --from excludes. */
#include "check.h"
#include "common/opt.h"
#include "common/optdoc.h"
#include "front/cmd/benchopt.h"
#include "front/cmd/commands.h"

#include <stdio.h>

static void names_resolve(const char *cmd, const struct opt_doc *d)
{
	const char *inl;
	int bad = 0;

	for (size_t k = 0; k < d->nopts; k++)
		for (int w = 0; w < 2; w++)
			for (const char *const *x = w ? d->opts[k].excludes : d->opts[k].needs; x && *x;
			     x++)
				if (opt_find(d->opts, d->nopts, *x, &inl) < 0) {
					CHECK(0, "%s: %s names %s, which its table lacks", cmd,
					      d->opts[k].name, *x);
					bad = 1;
				}
	if (!bad)
		CHECK(1, "%s: every needs and excludes name is a row of its table", cmd);
}

static void test_calibrate_rows(void)
{
	size_t also = 0, found = 0;
	const char *inl;

	for (size_t i = 0; i < bench_nopts; i++) {
		if (!(bench_opt_table[i].flags & OPT_ALSO))
			continue;
		also++;
		found += opt_find(calibrate_doc.opts, calibrate_doc.nopts, bench_opt_table[i].name,
		                  &inl) >= 0;
	}
	CHECK(also >= 10 && found == also, "calibrate's table holds bench's %zu rows flagged "
	      "OPT_ALSO (%zu found)", also, found);
}

static void test_calibrate_parse(void)
{
	char *argv[] = {"calibrate", "--seed", "x", NULL};
	char *twice[] = {"calibrate", "--seed", "1", "--seed", "2", NULL};
	char *from[] = {"calibrate", "--from", "f.json", "--pad-max", "10", NULL};
	FILE *f;

	/* through the command itself: stderr is where its one line goes */
	f = freopen("/dev/null", "w", stderr);
	(void)f;
	CHECK(calibrate_main(3, argv) == 2, "calibrate --seed x: bad input, by bench's row");
	CHECK(calibrate_main(5, twice) == 2, "calibrate: a bench option given twice is refused");
	CHECK(calibrate_main(5, from) == 2, "calibrate --from with a bench option is refused");
}

int main(void)
{
	names_resolve("bench", &bench_doc);
	names_resolve("calibrate", &calibrate_doc);
	names_resolve("compare", &compare_doc);
	names_resolve("merge", &merge_doc);
	names_resolve("gate", &gate_doc);
	names_resolve("record", &record_doc);
	names_resolve("trace", &trace_doc);
	test_calibrate_rows();
	test_calibrate_parse();
	return CHECK_DONE();
}
