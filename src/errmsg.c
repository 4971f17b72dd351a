/* errmsg.c - formatting a failure's reason into the caller's buffer (errmsg.h). */
#include "errmsg.h"

#include <stdarg.h>
#include <stdio.h>

int errmsg_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int errmsg_status(int status, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return status;
}
