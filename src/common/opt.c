/* opt.c - the table-driven command-line parser (common/opt.h). */
#include "common/opt.h"

#include "common/errmsg.h"

#include <string.h>

void opt_init(struct opt_parser *p, int argc, char **argv, int first, const struct opt *opts,
              size_t nopts)
{
	memset(p, 0, sizeof *p);
	p->argc = argc;
	p->argv = argv;
	p->i = p->at = first;
	p->opts = opts;
	p->nopts = nopts < OPT_MAX ? nopts : OPT_MAX;
}

/* The name of option k as the user reads it: "--name", or "-x" for a short-only option. */
static const char *opt_name(struct opt_parser *p, int k)
{
	if (p->opts[k].name)
		return p->opts[k].name;
	p->short_buf[0] = '-';
	p->short_buf[1] = p->opts[k].short_name;
	p->short_buf[2] = '\0';
	return p->short_buf;
}

static int unknown(const struct opt_parser *p, char *err, size_t errlen, const char *arg)
{
	const char *pre = p->prefix ? p->prefix : "";

	if (p->help)
		errmsg_fail(err, errlen, "%sunknown option '%s' (%s --help lists them)", pre, arg,
		            p->help);
	else
		errmsg_fail(err, errlen, "%sunknown option '%s'", pre, arg);
	return OPT_ERROR;
}

/* "NAME WHAT" (e.g. "--rounds needs a value"). Returns OPT_ERROR. */
static int fail(const struct opt_parser *p, char *err, size_t errlen, const char *name,
                const char *what)
{
	errmsg_fail(err, errlen, "%s%s %s", p->prefix ? p->prefix : "", name, what);
	return OPT_ERROR;
}

/* Option k as the user wrote it: its long name, or -x. */
static const char *spelled(struct opt_parser *p, int k, const char *arg)
{
	if (arg[1] == '-')
		return opt_name(p, k);
	p->short_buf[0] = '-';
	p->short_buf[1] = arg[1];
	p->short_buf[2] = '\0';
	return p->short_buf;
}

/* The row of long option a ("--name" or "--name=..."), or -1; with abbrev, a unique prefix. */
static int find_long(const struct opt *opts, size_t nopts, int abbrev, const char *a)
{
	size_t n = strcspn(a, "=");
	int found = -1, matches = 0;

	for (size_t k = 0; k < nopts; k++) {
		const char *name = opts[k].name;

		if (!name || strncmp(name, a, n) != 0)
			continue;
		if (name[n] == '\0')
			return (int)k;
		if (abbrev && n > 2) {
			found = (int)k;
			matches++;
		}
	}
	return matches == 1 ? found : -1;
}

static int find_short(const struct opt *opts, size_t nopts, char c)
{
	for (size_t k = 0; c && k < nopts; k++)
		if (opts[k].short_name == c)
			return (int)k;
	return -1;
}

/* The row of option argument a (it starts with '-') and its inline value, or -1. */
static int find(const struct opt *opts, size_t nopts, int abbrev, const char *a, const char **inl)
{
	int k;

	*inl = NULL;
	if (a[1] == '-') {
		if ((k = find_long(opts, nopts, abbrev, a)) >= 0 && strchr(a, '='))
			*inl = strchr(a, '=') + 1;
		return k;
	}
	if ((k = find_short(opts, nopts, a[1])) < 0 || (a[2] && !(opts[k].flags & OPT_VALUE)))
		return -1;
	if (a[2])
		*inl = a + 2;
	return k;
}

int opt_find(const struct opt *opts, size_t nopts, const char *arg, const char **inl)
{
	*inl = NULL;
	if (arg[0] != '-' || arg[1] == '\0')
		return -1;
	return find(opts, nopts, 0, arg, inl);
}

/* Finds the option at argv[p->i] and its inline value (after '=' or a short letter), if any. */
static int lookup(struct opt_parser *p, const char **inl, char *err, size_t errlen)
{
	const char *a = p->argv[p->i];
	int k = find(p->opts, p->nopts, p->abbrev, a, inl);

	return k < 0 ? unknown(p, err, errlen, a) : k;
}

int opt_next(struct opt_parser *p, const char **val, char *err, size_t errlen)
{
	const char *a, *inl;
	int k;

	*val = NULL;
	if (p->i >= p->argc)
		return OPT_DONE;
	p->at = p->i;
	a = p->argv[p->i];
	if (p->dashdash && strcmp(a, "--") == 0) {
		p->i++;
		return OPT_DONE;
	}
	if (a[0] != '-' || a[1] == '\0') {
		*val = a;
		p->i++;
		return OPT_ARG;
	}
	if ((k = lookup(p, &inl, err, errlen)) < 0)
		return OPT_ERROR;
	if (p->given[k] && !(p->opts[k].flags & OPT_REPEAT))
		return fail(p, err, errlen, opt_name(p, k), "is given twice");
	p->given[k] = 1;
	p->i++;
	if (p->opts[k].flags & OPT_REST) {
		p->i = p->argc;
		return k;
	}
	if (!(p->opts[k].flags & OPT_VALUE)) {
		if (inl)
			return fail(p, err, errlen, spelled(p, k, a), "takes no value");
		return k;
	}
	if (!inl && p->i >= p->argc)
		return fail(p, err, errlen, spelled(p, k, a), "needs a value");
	*val = inl ? inl : p->argv[p->i++];
	return k;
}

int opt_seen(const struct opt_parser *p, int k)
{
	struct opt_parser q = *p;
	const char *v;
	char err[8];
	int r;

	while ((r = opt_next(&q, &v, err, sizeof err)) != OPT_DONE) {
		if (r == k)
			return 1;
		if (r == OPT_ERROR && q.i == q.at)
			q.i++; /* unknown, or given twice: not read */
	}
	return 0;
}
