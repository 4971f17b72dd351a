/* errmsg.h - the one-line reasons that library code leaves in its caller's buffer (err, errlen)
 * for the command line to print as "allocab: context: reason". */
#ifndef ALLOCAB_ERRMSG_H
#define ALLOCAB_ERRMSG_H

#include "common/status.h"

#include <stddef.h>
#include <stdio.h>

/* Formats the reason into err (errlen bytes, truncated, always terminated) and returns -1, so
 * that a function fails in one statement: return errmsg_fail(err, errlen, "...", ...). */
int errmsg_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same for functions that return an exit status (common/status.h): returns status. */
enum status errmsg_status(enum status status, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prints warning w of command cmd on f as "allocab: CMD: warning: W", or "WARNING:" when w starts
 * with "WARNING: " (a warning that changes what a result means). W is shown as
 * errmsg_print shows its text. */
void errmsg_warn(FILE *f, const char *cmd, const char *w);

/* Prints "allocab: CMD: TEXT" and a newline on f, TEXT formatted from fmt and shown with
 * utf8_quote (common/utf8.h): a control character (a newline, the ESC of a terminal sequence),
 * DEL or a byte that is not UTF-8 in a value the text quotes appears as \xNN, so that every
 * message is one line without terminal control sequences. TEXT is cut at about
 * ERRMSG_SHOWN_MAX bytes. The one way allocab shows a value from outside in a message. */
#define ERRMSG_SHOWN_MAX 4096
void errmsg_print(FILE *f, const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
