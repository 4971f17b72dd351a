/* report.c - a report rendered into memory, then written atomically (report.h). */
#include "front/cmd/report.h"

#include "common/atomicio.h"
#include "common/errmsg.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

size_t report_width(const char *path)
{
	const char *c = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	int digits = c && *c >= '0' && *c <= '9';
	unsigned long n = digits ? strtoul(c, &end, 10) : 0;

	if (digits && !*end && n > 0 && n < 100000)
		return n < REPORT_MIN_WIDTH ? REPORT_MIN_WIDTH : (size_t)n;
	if ((!path || strcmp(path, "-") == 0) && isatty(STDOUT_FILENO) &&
	    ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col < REPORT_MIN_WIDTH ? REPORT_MIN_WIDTH : ws.ws_col;
	return REPORT_WIDTH;
}

int report_write(const char *path, report_writer write, const void *ctx, char *err,
                 size_t errlen)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&buf, &n);
	int rc;

	if (!mem)
		return errmsg_fail(err, errlen, "out of memory");
	rc = write(mem, ctx, err, errlen);
	if (rc == 0 && ferror(mem))
		rc = errmsg_fail(err, errlen, "out of memory");
	if (fclose(mem) != 0 && rc == 0)
		rc = errmsg_fail(err, errlen, "out of memory");
	else if (rc == 0 && atomic_write(path ? path : "-", buf, n, err, errlen) != 0)
		rc = -1;
	free(buf);
	return rc;
}
