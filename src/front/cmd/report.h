/* report.h - private to this folder: a report rendered into memory, then written whole and
 * atomically to its path (common/atomicio.h), for compare and merge. */
#ifndef ALLOCAB_CMD_REPORT_H
#define ALLOCAB_CMD_REPORT_H

#include <stddef.h>
#include <stdio.h>

/* Writes the whole report to f; returns 0, or -1 with a one-line reason in err. */
typedef int (*report_writer)(FILE *f, const void *ctx, char *err, size_t errlen);

/* Renders write(ctx) into memory and writes it to path ("-" or NULL: standard output). Returns 0,
 * or -1 with the reason in err (out of memory, the writer's, or the file's). */
int report_write(const char *path, report_writer write, const void *ctx, char *err,
                 size_t errlen);

#endif
