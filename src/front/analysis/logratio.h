/* logratio.h - the per-round log ratio d = ln(t_num / t_den) of two times, decided on the times
 * themselves: results files hold integer nanoseconds (medians of reps may end in .5), and two
 * rounds whose times stand in the same ratio must give the same d to the last bit, a ratio and
 * its inverse exact negatives, or the rank tests miss the tie (docs/methodology.md). */
#ifndef ALLOCAB_LOGRATIO_H
#define ALLOCAB_LOGRATIO_H

/* ln(num / den) for num, den > 0. When both are whole or half units below 2^52, computed as
 * log(a) - log(b) of the fraction a/b = num/den in lowest terms: 0 exactly for equal times,
 * bit-identical for equal ratios, lr(x, y) == -lr(y, x). Otherwise log(num / den). */
double lr_log_ratio(double num, double den);

#endif
