/* report.c - a report rendered into memory, then written atomically (report.h). */
#include "front/cmd/report.h"

#include "common/atomicio.h"
#include "common/errmsg.h"

#include <stdlib.h>

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
