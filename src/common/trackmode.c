/* trackmode.c - the table of process-tracking modes (trackmode.h). A new mode adds a row and,
 * where its runs are known differently, a flag. */
#include "common/trackmode.h"

#include <stdio.h>
#include <string.h>

struct trackmode_row {
	enum trackmode mode;
	const char *text; /* the recorded text, or its part before " (WHY)" */
	int why;          /* 1: the text is followed by " (WHY)", the reason */
	unsigned flags;   /* TRACKMODE_* */
};

static const struct trackmode_row modes[] = {
	{.mode = TRACKMODE_PTRACE, .text = "ptrace", .flags = TRACKMODE_EVERY_PROCESS},
	{.mode = TRACKMODE_PTRACE_ESCAPES, .text = "ptrace, escapes not excluded", .why = 1},
	{.mode = TRACKMODE_PROBE_ONLY, .text = "probe only", .why = 1},
};

#define NMODES (sizeof modes / sizeof modes[0])

static const struct trackmode_row *row_of(enum trackmode m)
{
	for (size_t i = 0; i < NMODES; i++)
		if (modes[i].mode == m)
			return &modes[i];
	return NULL;
}

const char *trackmode_text(enum trackmode m, const char *why, char *buf, size_t len)
{
	const struct trackmode_row *r = row_of(m);

	if (!r)
		snprintf(buf, len, "%s", "");
	else if (r->why)
		snprintf(buf, len, "%s (%s)", r->text, why ? why : "");
	else
		snprintf(buf, len, "%s", r->text);
	return buf;
}

/* Whether s is "TEXT" (a row without a reason) or "TEXT (...)" (a row with one). */
static int matches(const struct trackmode_row *r, const char *s)
{
	size_t n = strlen(r->text), k = strlen(s);

	if (strncmp(s, r->text, n) != 0)
		return 0;
	if (!r->why)
		return s[n] == 0;
	return k >= n + 3 && s[n] == ' ' && s[n + 1] == '(' && s[k - 1] == ')';
}

/* The row a recorded text is of, or NULL. */
static const struct trackmode_row *find(const char *recorded)
{
	for (size_t i = 0; recorded && i < NMODES; i++)
		if (matches(&modes[i], recorded))
			return &modes[i];
	return NULL;
}

int trackmode_has(const char *recorded, unsigned flags)
{
	const struct trackmode_row *r = find(recorded);

	return r && (r->flags & flags) == flags;
}
