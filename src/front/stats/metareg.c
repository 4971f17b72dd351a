/* metareg.c - mixed-effects meta-regression (stats.h): k estimates y_i with standard errors se_i
 * on an intercept and up to STATS_METAREG_MAX - 1 moderators, y = X b + u + e with u ~ N(0,
 * tau^2), e_i ~ N(0, se_i^2); the residual tau^2 by the method of moments (DerSimonian-Laird
 * generalised to moderators, Raudenbush 2009; metafor's rma(method = "DL", mods = ...)), the
 * coefficients by weighted least squares with weights 1 / (se_i^2 + tau^2), and the Knapp-Hartung
 * adjustment: standard errors scaled by max(1, s^2) (s^2 the weighted residual mean square, its
 * max(1, .) floor as for the pooled row) and t with k - p degrees of freedom; the omnibus QM test
 * of the moderators with F on p - 1 and k - p. The moderators are centred and scaled before the
 * fit and the results transformed back. docs/fleet.md, "A fleet that explains itself". */
#include "front/stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define P STATS_METAREG_MAX

/* Inverts the p x p symmetric positive definite a into inv by Gauss-Jordan with partial
 * pivoting. Returns 0, or -1 when a is singular (a moderator that is constant or collinear: the
 * moderators are standardised first, so the relative pivot bound compares like with like). */
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

/* The regression's data: k estimates y with standard errors se, on an intercept and the
 * moderators x (k rows of p - 1). */
struct mr_data {
	const double *y, *se, *x;
	size_t k, p;
};

/* A weighted least-squares fit: b, (X'WX)^-1 in inv, the weighted residual sum of squares. */
struct wls_fit {
	double b[P], inv[P][P], rss;
};

/* The standardisation of the moderators: column j's mean in mean[j + 1], its standard deviation
 * in sd[j + 1]. */
struct scaling {
	double mean[P], sd[P];
};

/* Weighted least squares of d with weights w into *f. Returns 0, or -1 for a singular design. */
static int wls(const struct mr_data *d, const double *w, struct wls_fit *f)
{
	const double *y = d->y, *x = d->x;
	const size_t k = d->k, p = d->p;
	double a[P][P] = {{0}}, v[P] = {0}, row[P];

	for (size_t i = 0; i < k; i++) {
		design_row(x, p, i, row);
		for (size_t r = 0; r < p; r++) {
			v[r] += w[i] * row[r] * y[i];
			for (size_t c = 0; c < p; c++)
				a[r][c] += w[i] * row[r] * row[c];
		}
	}
	if (invert(a, p, f->inv) != 0)
		return -1;
	for (size_t r = 0; r < p; r++) {
		f->b[r] = 0;
		for (size_t c = 0; c < p; c++)
			f->b[r] += f->inv[r][c] * v[c];
	}
	f->rss = 0;
	for (size_t i = 0; i < k; i++) {
		double fit = 0;
		design_row(x, p, i, row);
		for (size_t r = 0; r < p; r++)
			fit += row[r] * f->b[r];
		f->rss += w[i] * (y[i] - fit) * (y[i] - fit);
	}
	return 0;
}

/* The moderators of x (k rows of p - 1) centred and scaled into z, by their means and standard
 * deviations (the mean by two passes, exact for large offsets) into *s. Returns 0, or -1 for a
 * non-finite or constant moderator. */
static int standardise(const double *x, size_t k, size_t p, double *z, struct scaling *s)
{
	double *mean = s->mean, *sd = s->sd;

	for (size_t j = 0; j + 1 < p; j++) {
		double m = 0, c = 0, v = 0;
		for (size_t i = 0; i < k; i++) {
			if (!isfinite(x[i * (p - 1) + j]))
				return -1;
			m += x[i * (p - 1) + j] / (double)k;
		}
		for (size_t i = 0; i < k; i++)
			c += (x[i * (p - 1) + j] - m) / (double)k;
		m += c;
		for (size_t i = 0; i < k; i++) {
			double d = x[i * (p - 1) + j] - m;
			z[i * (p - 1) + j] = d;
			v += d * d / (double)k;
		}
		if (!(v > 0) || !isfinite(v))
			return -1;
		mean[j + 1] = m;
		sd[j + 1] = sqrt(v);
		for (size_t i = 0; i < k; i++)
			z[i * (p - 1) + j] /= sd[j + 1];
	}
	return 0;
}

/* The fit fz on the standardised moderators back on the moderators as given (s), for out's k, p
 * and level: b = T b', cov = T cov' T' with T the inverse of the standardisation; the
 * Knapp-Hartung standard errors, the intervals and p-values, and the omnibus test QM of the
 * moderators (on b', the same value). */
static int finish(struct stats_metareg *out, const struct wls_fit *fz, const struct scaling *s)
{
	const double *bz = fz->b, *mean = s->mean, *sd = s->sd;
	const size_t k = out->k, p = out->p;
	double t[P][P] = {{0}}, cov[P][P], blk[P][P], binv[P][P], scale = fmax(1, out->s2);
	double q = stats_t_quantile(1 - (1 - out->level) / 2, (double)(k - p)), qm = 0;

	t[0][0] = 1;
	for (size_t j = 1; j < p; j++) {
		t[0][j] = -mean[j] / sd[j];
		t[j][j] = 1 / sd[j];
	}
	for (size_t r = 0; r < p; r++) {
		out->b[r] = 0;
		for (size_t c = 0; c < p; c++) {
			out->b[r] += t[r][c] * bz[c];
			cov[r][c] = 0;
			for (size_t a = 0; a < p; a++)
				for (size_t e = 0; e < p; e++)
					cov[r][c] += t[r][a] * fz->inv[a][e] * t[c][e];
		}
	}
	for (size_t j = 0; j < p; j++) {
		out->se[j] = sqrt(scale * cov[j][j]);
		out->lo[j] = out->b[j] - q * out->se[j];
		out->hi[j] = out->b[j] + q * out->se[j];
		out->pval[j] =
		    2 * (1 - stats_t_cdf(fabs(out->b[j] / out->se[j]), (double)(k - p)));
	}
	out->qm = out->qm_p = NAN;
	if (p < 2)
		return 0;
	for (size_t r = 1; r < p; r++)
		for (size_t c = 1; c < p; c++)
			blk[r - 1][c - 1] = scale * fz->inv[r][c];
	if (invert(blk, p - 1, binv) != 0)
		return -1;
	for (size_t r = 1; r < p; r++)
		for (size_t c = 1; c < p; c++)
			qm += bz[r] * binv[r - 1][c - 1] * bz[c];
	out->qm = qm;
	out->qm_p = stats_f_sf(qm / (double)(p - 1), (double)(p - 1), (double)(k - p));
	return 0;
}

/* The fit on d (its moderators standardised by s), w the fixed-effect weights (used up); the
 * result on the moderators as given into *out. Returns 0, or -1 for a singular design. */
static int fit_z(const struct mr_data *d, double *w, double conf, const struct scaling *s,
                 struct stats_metareg *out)
{
	const size_t k = d->k, p = d->p;
	struct wls_fit f;
	double trp;
	struct stats_metareg m;

	if (wls(d, w, &f) != 0)
		return -1;
	/* tr(P) = sum w_i - tr((X'WX)^-1 X'W^2X) */
	trp = 0;
	for (size_t i = 0; i < k; i++) {
		double row[P], q = 0;
		design_row(d->x, p, i, row);
		for (size_t r = 0; r < p; r++)
			for (size_t c = 0; c < p; c++)
				q += row[r] * f.inv[r][c] * row[c];
		trp += w[i] - w[i] * w[i] * q;
	}
	memset(&m, 0, sizeof m);
	m.k = k;
	m.p = p;
	m.level = conf;
	m.qe = f.rss;
	m.tau2 = trp > 0 ? fmax(0, (f.rss - (double)(k - p)) / trp) : 0;
	for (size_t i = 0; i < k; i++)
		w[i] = 1 / (d->se[i] * d->se[i] + m.tau2);
	if (wls(d, w, &f) != 0)
		return -1;
	m.s2 = f.rss / (double)(k - p);
	if (finish(&m, &f, s) != 0)
		return -1;
	*out = m;
	return 0;
}

int stats_meta_reg(const double *y, const double *se, const double *x, size_t k, size_t p,
                   double conf, struct stats_metareg *out)
{
	double w[STATS_METAREG_MAX_K], *z;
	struct scaling s = {{0}, {0}};
	int rc;

	if (p < 1 || p > P || k < p + 1 || k > STATS_METAREG_MAX_K || !(conf > 0 && conf < 1))
		return -1;
	for (size_t i = 0; i < k; i++) {
		if (!isfinite(y[i]) || !isfinite(se[i]) || !(se[i] > 0))
			return -1;
		w[i] = 1 / (se[i] * se[i]);
	}
	if (!(z = malloc(k * (P - 1) * sizeof *z)))
		return -1;
	const struct mr_data d = {y, se, z, k, p};
	rc = standardise(x, k, p, z, &s) == 0 ? fit_z(&d, w, conf, &s, out) : -1;
	free(z);
	return rc;
}
