/* cmdopt.c - the values of the options several commands share (front/cmd/cmdopt.h). */
#include "front/cmd/cmdopt.h"

#include "front/results/results.h"

static const char *const time_words[] = {"cpu", "auto", "wall", NULL};
const struct opt_values cmdopt_time_values = {time_words, NULL};
const int cmdopt_time_map[] = {RF_POLICY_CPU, RF_POLICY_AUTO, RF_POLICY_WALL};
