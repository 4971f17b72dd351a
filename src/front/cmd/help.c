/* help.c - `allocab help --complete WORD...` (commands.h): what bash completion offers, from the
 * commands' option tables, the drivers found beside allocab and the workloads they list. */
#include "front/cmd/commands.h"

#include "common/optdoc.h"
#include "common/status.h"
#include "front/cmd/benchopt.h"
#include "front/plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints word when it completes cur: its last item in a comma-separated list, or what follows
 * "--name=" when the shell kept it in the word. */
static void offer(const char *cur, const char *word)
{
	const char *item = strrchr(cur, ',');
	size_t head;

	if (!item && cur[0] == '-')
		item = strchr(cur, '=');
	head = item ? (size_t)(item + 1 - cur) : 0;

	if (strncmp(word, cur + head, strlen(cur + head)) == 0)
		printf("%.*s%s\n", (int)head, cur, word);
}

static void offer_options(const char *cur, const struct opt *opts, size_t n)
{
	char s[3] = "-";

	for (size_t i = 0; i < n; i++) {
		if (opts[i].flags & OPT_HIDDEN)
			continue;
		if (opts[i].name)
			offer(cur, opts[i].name);
		if (opts[i].short_name) {
			s[1] = opts[i].short_name;
			offer(cur, s);
		}
	}
}

/* The drivers' backend names, or the workloads of the first driver. */
static void offer_drivers(const char *cur, int workloads)
{
	static const volatile sig_atomic_t stop = 0;
	char dir[4096], err[1024], *path;
	char **names = NULL;
	struct bench_wl_list l = {0};
	int n;

	if (bench_driver_dir(NULL, dir, sizeof dir, err, sizeof err) != 0 ||
	    (n = bench_find_drivers(dir, &names, err, sizeof err)) < 0)
		return;
	for (int i = 0; !workloads && i < n; i++)
		offer(cur, names[i]);
	if (workloads && n > 0 && asprintf(&path, "%s/allocab-%s", dir, names[0]) >= 0) {
		if (bench_list_workloads(path, &stop, &l, err, sizeof err) == 0)
			for (size_t i = 0; i < l.n; i++)
				offer(cur, l.names[i]);
		bench_wl_list_free(&l);
		free(path);
	}
	bench_free_list(names, (size_t)n);
}

/* The candidates for the value of option o. */
static void offer_values(const char *cur, const struct opt *o)
{
	const char *v, *summary;

	if (!o->values && (o->flags & (OPT_FILE | OPT_DIR))) {
		puts(o->flags & OPT_FILE ? "files" : "dirs");
		return;
	}
	puts("words");
	for (size_t i = 0; (v = optdoc_value(o, i, &summary)); i++)
		offer(cur, v);
	if (!o->values && (o->flags & (OPT_ALLOCATOR | OPT_WORKLOAD)))
		offer_drivers(cur, (o->flags & OPT_WORKLOAD) != 0);
}

static const struct command *find(const struct command *cmds, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(cmds[i].name, name) == 0)
			return &cmds[i];
	return NULL;
}

/* words[0] is a command, words[n-1] the word being completed. */
static void complete_command(int n, char **words, const struct opt_doc *d)
{
	const char *cur = strcmp(words[n - 1], "=") == 0 ? "" : words[n - 1], *inl;
	int k;

	for (int i = 1; i < n - 1; i++) {
		int v;

		k = opt_find(d->opts, d->nopts, words[i], &inl);
		if (k >= 0 && (d->opts[k].flags & OPT_REST) && d->rest) {
			d = d->rest;
			continue;
		}
		if (k < 0 || !(d->opts[k].flags & OPT_VALUE) || inl)
			continue;
		/* bash splits "--name=VALUE" into "--name", "=", "VALUE" */
		v = i + 1 + (i + 2 < n && strcmp(words[i + 1], "=") == 0);
		if (v == n - 1) {
			offer_values(cur, &d->opts[k]);
			return;
		}
		i = v;
	}
	if (cur[0] == '-' && strchr(cur, '=') &&
	    (k = opt_find(d->opts, d->nopts, cur, &inl)) >= 0 && (d->opts[k].flags & OPT_VALUE)) {
		offer_values(cur, &d->opts[k]);
	} else if (cur[0] == '-') {
		puts("words");
		offer_options(cur, d->opts, d->nopts);
	} else {
		puts("files");
	}
}

enum status help_complete(int nwords, char **words, const struct command *cmds, size_t ncmds,
                          const struct opt *main_opts, size_t nmain)
{
	const struct command *c = nwords > 1 ? find(cmds, ncmds, words[0]) : NULL;
	const char *cur = nwords > 0 ? words[nwords - 1] : "";

	if (c) {
		complete_command(nwords, words, c->doc);
	} else if (nwords <= 1 || (nwords == 2 && strcmp(words[0], "help") == 0)) {
		puts("words");
		for (size_t i = 0; i < ncmds; i++)
			offer(cur, cmds[i].name);
		if (nwords <= 1) {
			offer(cur, "help");
			offer_options(cur, main_opts, nmain);
		}
	} else {
		puts("files");
	}
	return fflush(stdout) == 0 ? ST_OK : ST_FAIL;
}
