/* report.h - private to this folder: a report rendered into memory, then written whole and
 * atomically to its path (common/atomicio.h), for compare and merge. */
#ifndef ALLOCAB_CMD_REPORT_H
#define ALLOCAB_CMD_REPORT_H

#include <stddef.h>
#include <stdio.h>

/* Writes the whole report to f; returns 0, or -1 with a one-line reason in err. */
typedef int (*report_writer)(FILE *f, const void *ctx, char *err, size_t errlen);

/* The columns a text report fits (docs/methodology.md, "Reading the output"): $COLUMNS when it
 * is a whole number (at least REPORT_MIN_WIDTH), else the terminal's width when the report goes
 * to standard output (path NULL or "-") and that is a terminal, else REPORT_WIDTH. */
#define REPORT_WIDTH     100
#define REPORT_MIN_WIDTH 20
size_t report_width(const char *path);

/* Renders write(ctx) into memory and writes it to path ("-" or NULL: standard output). Returns 0,
 * or -1 with the reason in err (out of memory, the writer's, or the file's). */
int report_write(const char *path, report_writer write, const void *ctx, char *err,
                 size_t errlen);

#endif
