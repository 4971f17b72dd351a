/* test_containmode.c - the table of containment modes (docs/programs.md, "Containment"): the
 * texts it writes are the ones files hold (containment.mechanism), each reads back with its
 * flags, and only the modes with the proc connector see escapes (what bench_setup_probe asks to
 * choose "ptrace" or "ptrace, escapes not excluded"). */
#include "check.h"
#include "front/proc/proc.h"
#include "front/proc/contain.h"

#include <string.h>

static void test_texts(void)
{
	static const struct {
		unsigned flags;
		const char *text;
	} rows[] = {
	    {CONTAINMODE_CGROUP | CONTAINMODE_SEES_ESCAPES, "cgroup+proc-connector"},
	    {CONTAINMODE_CGROUP, "cgroup"},
	    {CONTAINMODE_SEES_ESCAPES, "proc-connector"},
	    {0, "none"},
	};

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		CHECK(strcmp(containmode_text(rows[i].flags), rows[i].text) == 0,
		      "flags %u are recorded as %s: %s", rows[i].flags, rows[i].text,
		      containmode_text(rows[i].flags));
		CHECK(containmode_has(rows[i].text, rows[i].flags) && containmode_has(rows[i].text, 0),
		      "'%s' reads back with its flags", rows[i].text);
	}
	CHECK(strcmp(contain_mechanism(NULL), "none") == 0, "no containment is none");
}

static void test_read_back(void)
{
	static const struct {
		const char *text;
		int known, escapes, cgroup;
	} cases[] = {
	    {"cgroup+proc-connector", 1, 1, 1},
	    {"proc-connector", 1, 1, 0},
	    {"cgroup", 1, 0, 1},
	    {"none", 1, 0, 0},
	    {"cgroup+proc-connectorx", 0, 0, 0},
	    {"proc-connector ", 0, 0, 0},
	    {"no proc-connector", 0, 0, 0},
	    {"Cgroup", 0, 0, 0},
	    {"", 0, 0, 0},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		CHECK(containmode_has(cases[i].text, 0) == cases[i].known, "'%s' is %s mode",
		      cases[i].text, cases[i].known ? "a" : "no");
		CHECK(containmode_has(cases[i].text, CONTAINMODE_SEES_ESCAPES) == cases[i].escapes,
		      "'%s': sees escapes: %d", cases[i].text, cases[i].escapes);
		CHECK(containmode_has(cases[i].text, CONTAINMODE_CGROUP) == cases[i].cgroup,
		      "'%s': a cgroup: %d", cases[i].text, cases[i].cgroup);
	}
	CHECK(!containmode_has(NULL, 0) && !containmode_has(NULL, CONTAINMODE_SEES_ESCAPES),
	      "NULL promises nothing");
}

int main(void)
{
	test_texts();
	test_read_back();
	return CHECK_DONE();
}
