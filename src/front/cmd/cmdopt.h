/* cmdopt.h - private to this folder: the options that several commands take, declared once
 * (cmdopt.c): --time (bench and compare), and the rows compare, merge and gate share, each with
 * one help text. A command's table takes a shared row with CMDOPT_X(T, FIELD...), T its settings
 * struct and FIELD where the value goes in it. */
#ifndef ALLOCAB_CMDOPT_H
#define ALLOCAB_CMDOPT_H

#include "common/opt.h"

/* --time's words and the enum rf_time_policy stored for each. */
extern const struct opt_values cmdopt_time_values;
extern const int cmdopt_time_map[];

#endif
