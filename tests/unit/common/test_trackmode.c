/* test_trackmode.c - the table of process-tracking modes: the texts it writes are the ones old
 * files hold (docs/results-format.md, config.process_tracking), each reads back as its mode, and
 * only full tracking has every process known. */
#include "check.h"
#include "common/trackmode.h"

#include <string.h>

static void test_texts(void)
{
	char buf[128];

	CHECK(strcmp(trackmode_text(TRACKMODE_PTRACE, "ignored", buf, sizeof buf), "ptrace") == 0,
	      "full tracking is recorded as ptrace, without a reason: %s", buf);
	CHECK(strcmp(trackmode_text(TRACKMODE_PROBE_ONLY, "ptrace: EPERM", buf, sizeof buf),
	             "probe only (ptrace: EPERM)") == 0,
	      "probe only with its reason: %s", buf);
	CHECK(strcmp(trackmode_text(TRACKMODE_PROBE_ONLY, "not tracked", buf, sizeof buf),
	             "probe only (not tracked)") == 0,
	      "probe only, not tracked: %s", buf);
	CHECK(strcmp(trackmode_text(TRACKMODE_PTRACE_ESCAPES, "proc connector: EPERM", buf,
	                            sizeof buf),
	             "ptrace, escapes not excluded (proc connector: EPERM)") == 0,
	      "ptrace without the proc connector: %s", buf);
	trackmode_text(TRACKMODE_PROBE_ONLY, "ptrace: EPERM", buf, 8);
	CHECK(strcmp(buf, "probe o") == 0, "a short buffer is cut, terminated: %s", buf);
}

static void test_read_back(void)
{
	static const struct {
		const char *text;
		int mode; /* -1: no row */
		int every;
	} cases[] = {
	    {"ptrace", TRACKMODE_PTRACE, 1},
	    {"probe only (ptrace: EPERM)", TRACKMODE_PROBE_ONLY, 0},
	    {"probe only (ptrace: ESRCH)", TRACKMODE_PROBE_ONLY, 0},
	    {"probe only (not tracked)", TRACKMODE_PROBE_ONLY, 0},
	    {"ptrace, escapes not excluded (proc connector: EPERM)", TRACKMODE_PTRACE_ESCAPES, 0},
	    {"ptrace ", -1, 0},
	    {"Ptrace", -1, 0},
	    {"ptrace (x)", -1, 0},
	    {"probe only", -1, 0},
	    {"probe only (", -1, 0},
	    {"probe onlyx (y)", -1, 0},
	    {"", -1, 0},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct trackmode_row *r = trackmode_find(cases[i].text);

		CHECK(cases[i].mode < 0 ? r == NULL : r && (int)r->mode == cases[i].mode,
		      "'%s' reads as mode %d", cases[i].text, cases[i].mode);
		CHECK(trackmode_has(cases[i].text, TRACKMODE_EVERY_PROCESS) == cases[i].every,
		      "'%s': every process known: %d", cases[i].text, cases[i].every);
	}
	CHECK(trackmode_find(NULL) == NULL && !trackmode_has(NULL, TRACKMODE_EVERY_PROCESS),
	      "NULL (no arm probed) is no mode and promises nothing");
	CHECK(trackmode_has("probe only (x)", 0), "flags 0 asks only that the mode is known");
	CHECK(!trackmode_has("unknown", 0), "an unknown text is no mode even for flags 0");
}

int main(void)
{
	test_texts();
	test_read_back();
	return CHECK_DONE();
}
