/* metareg.c - mixed-effects meta-regression (stats.h): k estimates y_i with standard errors se_i
 * on an intercept and up to STATS_METAREG_MAX - 1 moderators, y = X b + u + e with u ~ N(0,
 * tau^2), e_i ~ N(0, se_i^2); the residual tau^2 by the method of moments (DerSimonian-Laird
 * generalised to moderators, Raudenbush 2009; metafor's rma(method = "DL", mods = ...)), the
 * coefficients by weighted least squares with weights 1 / (se_i^2 + tau^2), and the Knapp-Hartung
 * adjustment: standard errors scaled by max(1, s^2) (s^2 the weighted residual mean square, its
 * max(1, .) floor as for the pooled row) and t with k - p degrees of freedom. docs/fleet.md, "A
 * fleet that explains itself". */
#include "front/stats/stats.h"

#include <math.h>
#include <string.h>

#define P STATS_METAREG_MAX

/* Inverts the p x p symmetric positive definite a into inv by Gauss-Jordan with partial
 * pivoting. Returns 0, or -1 when a is singular (a moderator that is constant or collinear). */
static int invert(const double a[P][P], size_t p, double inv[P][P])
{
	double m[P][2 * P];
	double scale = 0;

	for (size_t i = 0; i < p; i++)
		for (size_t j = 0; j < p; j++) {
			m[i][j] = a[i][j];
			m[i][p + j] = i == j;
			scale = fmax(scale, fabs(a[i][j]));
		}
	for (size_t c = 0; c < p; c++) {
		size_t piv = c;
		for (size_t r = c + 1; r < p; r++)
			if (fabs(m[r][c]) > fabs(m[piv][c]))
				piv = r;
		if (!(fabs(m[piv][c]) > 1e-12 * scale))
			return -1;
		for (size_t j = 0; j < 2 * p; j++) {
			double t = m[c][j];
			m[c][j] = m[piv][j];
			m[piv][j] = t;
		}
		double d = m[c][c];
		for (size_t j = 0; j < 2 * p; j++)
			m[c][j] /= d;
		for (size_t r = 0; r < p; r++) {
			double f = m[r][c];
			if (r == c || f == 0)
				continue;
			for (size_t j = 0; j < 2 * p; j++)
				m[r][j] -= f * m[c][j];
		}
	}
	for (size_t i = 0; i < p; i++)
		for (size_t j = 0; j < p; j++)
			inv[i][j] = m[i][p + j];
	return 0;
}

/* Row i of the design: 1, then the moderators. */
static void design_row(const double *x, size_t p, size_t i, double *row)
{
	row[0] = 1;
	for (size_t j = 1; j < p; j++)
		row[j] = x[i * (p - 1) + (j - 1)];
}

/* Weighted least squares with weights w: b, (X'WX)^-1 in inv, the weighted residual sum of
 * squares in *rss. Returns 0, or -1 for a singular design. */
static int wls(const double *y, const double *x, const double *w, size_t k, size_t p,
               double b[P], double inv[P][P], double *rss)
{
	double a[P][P] = {{0}}, v[P] = {0}, row[P];

	for (size_t i = 0; i < k; i++) {
		design_row(x, p, i, row);
		for (size_t r = 0; r < p; r++) {
			v[r] += w[i] * row[r] * y[i];
			for (size_t c = 0; c < p; c++)
				a[r][c] += w[i] * row[r] * row[c];
		}
	}
	if (invert(a, p, inv) != 0)
		return -1;
	for (size_t r = 0; r < p; r++) {
		b[r] = 0;
		for (size_t c = 0; c < p; c++)
			b[r] += inv[r][c] * v[c];
	}
	*rss = 0;
	for (size_t i = 0; i < k; i++) {
		double fit = 0;
		design_row(x, p, i, row);
		for (size_t r = 0; r < p; r++)
			fit += row[r] * b[r];
		*rss += w[i] * (y[i] - fit) * (y[i] - fit);
	}
	return 0;
}

int stats_meta_reg(const double *y, const double *se, const double *x, size_t k, size_t p,
                   double conf, struct stats_metareg *out)
{
	double w[STATS_METAREG_MAX_K], b[P], inv[P][P], rss, trp, t;

	if (p < 1 || p > P || k < p + 1 || k > STATS_METAREG_MAX_K || !(conf > 0 && conf < 1))
		return -1;
	for (size_t i = 0; i < k; i++) {
		if (!isfinite(y[i]) || !isfinite(se[i]) || !(se[i] > 0))
			return -1;
		for (size_t j = 0; j + 1 < p; j++)
			if (!isfinite(x[i * (p - 1) + j]))
				return -1;
		w[i] = 1 / (se[i] * se[i]);
	}
	if (wls(y, x, w, k, p, b, inv, &rss) != 0)
		return -1;
	/* tr(P) = sum w_i - tr((X'WX)^-1 X'W^2X) */
	trp = 0;
	for (size_t i = 0; i < k; i++) {
		double row[P], q = 0;
		design_row(x, p, i, row);
		for (size_t r = 0; r < p; r++)
			for (size_t c = 0; c < p; c++)
				q += row[r] * inv[r][c] * row[c];
		trp += w[i] - w[i] * w[i] * q;
	}
	memset(out, 0, sizeof *out);
	out->k = k;
	out->p = p;
	out->level = conf;
	out->qe = rss;
	out->tau2 = trp > 0 ? fmax(0, (rss - (double)(k - p)) / trp) : 0;
	for (size_t i = 0; i < k; i++)
		w[i] = 1 / (se[i] * se[i] + out->tau2);
	if (wls(y, x, w, k, p, b, inv, &rss) != 0)
		return -1;
	out->s2 = rss / (double)(k - p);
	t = stats_t_quantile(1 - (1 - conf) / 2, (double)(k - p));
	for (size_t j = 0; j < p; j++) {
		out->b[j] = b[j];
		out->se[j] = sqrt(fmax(1, out->s2) * inv[j][j]);
		out->lo[j] = b[j] - t * out->se[j];
		out->hi[j] = b[j] + t * out->se[j];
		out->pval[j] = 2 * (1 - stats_t_cdf(fabs(b[j] / out->se[j]), (double)(k - p)));
	}
	return 0;
}
