/* errmsg.h - the one-line reasons that library code leaves in its caller's buffer (err, errlen)
 * for the command line to print as "allocab: context: reason". */
#ifndef ALLOCAB_ERRMSG_H
#define ALLOCAB_ERRMSG_H

#include <stddef.h>
#include <stdio.h>

/* Formats the reason into err (errlen bytes, truncated, always terminated) and returns -1, so
 * that a function fails in one statement: return errmsg_fail(err, errlen, "...", ...). */
int errmsg_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same for functions that return an exit status: returns status. */
int errmsg_status(int status, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prints warning w of command cmd on f as "allocab: CMD: warning: W", or "WARNING:" when w starts
 * with "WARNING: " (a warning that changes what a result means). */
void errmsg_warn(FILE *f, const char *cmd, const char *w);

#endif
