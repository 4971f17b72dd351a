/* mkbench.c - a results file written by the production writer with a fake runner, as a program:
 * mkbench OUT [KEY=VALUE...] (tests/unit/fakebench.h: the keys, the fake, the exit statuses).
 * Exits 0 when the engine wrote OUT, 2 on a bad spec, 1 when the engine failed, with one line on
 * stderr. */
#include "fakebench.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char err[512] = "";
	int rc;

	if (argc < 2 || argv[1][0] == '\0' || strchr(argv[1], '=')) {
		fprintf(stderr,
		        "mkbench: usage: mkbench OUT [arms=NAME=F[/A],...] [rounds=N] [warmup=N] "
		        "[base=NS] [seed=N] [cpu=R] [fail=ARM:RUN[:CODE]] [signal=ARM:RUN] "
		        "[label=NAME] "
		        "[runnable=N] [id=NAME] [mode=drivers|commands] [wls=...] [reps=N] "
		        "[colds=ARM=F,...] [warmcold=F] [unsettled=ARM] [sum=ARM] [replay=NS] "
		        "[crash=ARM:M] [formula=cycle] [spread=S] [phase=N] [primary=ROWS] "
		        "[time=wall|cpu|auto] [load=L] [boot=ID]\n");
		return 2;
	}
	rc = fakebench_write(argv[1], argc - 2, argv + 2, err, sizeof err);
	if (rc != 0)
		fprintf(stderr, "mkbench: %s\n", err);
	return rc;
}
