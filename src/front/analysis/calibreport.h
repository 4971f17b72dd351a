/* calibreport.h - the report of `allocab calibrate`: an A/A document analysed (calibrate.h),
 * printed for the reader and written as the allocab-calibration/1 file. */
#ifndef ALLOCAB_CALIBREPORT_H
#define ALLOCAB_CALIBREPORT_H

#include "front/analysis/calibrate.h"

#include <stdio.h>
#include <cjson/cJSON.h>

/* Analyses arms a and b of an A/A allocab-bench/1 document (named runs_path in messages and in the
 * file), prints the noise-floor report to f and writes the calibration to out atomically. Returns
 * ST_OK, or with err set ST_FAIL on a runtime failure or ST_USAGE when the document is not an A/A
 * comparison (common/status.h). */
int calib_report(const cJSON *doc, const char *runs_path, const char *a, const char *b,
                 const struct calib_plan *plan, const char *phase, const char *out, FILE *f,
                 char *err, size_t errlen);

#endif
