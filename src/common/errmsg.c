/* errmsg.c - formatting a failure's reason into the caller's buffer (errmsg.h). */
#include "common/errmsg.h"
#include "common/utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int errmsg_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

enum status errmsg_status(enum status status, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return status;
}

void errmsg_warn(FILE *f, const char *cmd, const char *w)
{
	int loud = strncmp(w, "WARNING: ", 9) == 0;
	char shown[ERRMSG_SHOWN_MAX];

	fprintf(f, "allocab: %s: %s %s\n", cmd, loud ? "WARNING:" : "warning:",
	        utf8_quote(shown, sizeof shown, loud ? w + 9 : w));
}

void errmsg_print(FILE *f, const char *cmd, const char *fmt, ...)
{
	char text[ERRMSG_SHOWN_MAX], shown[ERRMSG_SHOWN_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	fprintf(f, "allocab: %s: %s\n", cmd, utf8_quote(shown, sizeof shown, text));
}
