/* test_trackmode.c - the table of process-tracking modes: the texts it writes are the ones old
 * files hold (docs/results-format.md, config.process_tracking), each reads back as a mode, and
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
		int known, every;
	} cases[] = {
	    {"ptrace", 1, 1},
	    {"probe only (ptrace: EPERM)", 1, 0},
	    {"probe only (ptrace: ESRCH)", 1, 0},
	    {"probe only (not tracked)", 1, 0},
	    {"ptrace, escapes not excluded (proc connector: EPERM)", 1, 0},
	    {"ptrace ", 0, 0},
	    {"Ptrace", 0, 0},
	    {"ptrace (x)", 0, 0},
	    {"probe only", 0, 0},
	    {"probe only (", 0, 0},
	    {"probe onlyx (y)", 0, 0},
	    {"ptrace, escapes not excluded", 0, 0},
	    {"", 0, 0},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		CHECK(trackmode_has(cases[i].text, 0) == cases[i].known, "'%s' is %s mode",
		      cases[i].text, cases[i].known ? "a" : "no");
		CHECK(trackmode_has(cases[i].text, TRACKMODE_EVERY_PROCESS) == cases[i].every,
		      "'%s': every process known: %d", cases[i].text, cases[i].every);
	}
	CHECK(!trackmode_has(NULL, 0) && !trackmode_has(NULL, TRACKMODE_EVERY_PROCESS),
	      "NULL (no arm probed) is no mode and promises nothing");
}

int main(void)
{
	test_texts();
	test_read_back();
	return CHECK_DONE();
}
