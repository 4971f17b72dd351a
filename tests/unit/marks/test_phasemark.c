/* test_phasemark.c - the phase marks a program writes (marks/marks.h): spans and their
 * order, nesting of different phases, and every way a marks file is refused with one reason:
 * malformed and overlong lines, unbalanced begin and end, names that are not phase names, "total",
 * timestamps that are not CLOCK_MONOTONIC nanoseconds of the run, too many names or spans, a
 * line cut short; the writer's pid each line may carry; and reading: a FIFO, a symbolic link or
 * a file over the size cap is refused without being read past the cap; and the writer programs
 * include (phase/allocab_phase.h), which cannot include marks.h, writes what marks.h reads at the
 * bounds marks.h sets. */
#include "check.h"
#include "marks/marks.h"
#include "phase/allocab_phase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char err[512];

static int parse(const char *text, int64_t lo, int64_t hi, struct phasemark_set *s)
{
	return phasemark_parse(text, strlen(text), (struct phasemark_window){lo, hi}, s, err,
	                       sizeof err);
}

/* Whether text is refused with a reason containing want. */
static int refused(const char *text, int64_t lo, int64_t hi, const char *want)
{
	struct phasemark_set s;
	int rc = parse(text, lo, hi, &s);

	phasemark_free(&s);
	if (rc == 0 || !strstr(err, want))
		printf("# got rc %d, '%s'\n", rc, err);
	return rc != 0 && strstr(err, want) != NULL;
}

static void good(void)
{
	struct phasemark_set s;
	const char *t = "begin import 100\nend import 350\n"
	                "begin epoch 400\nbegin step 410\nend step 420\nend epoch 500\n"
	                "begin epoch 500\nend epoch 650\n";

	CHECK(parse(t, 0, 0, &s) == 0, "well-formed marks are read: %s", err);
	CHECK(s.nphases == 3 && strcmp(s.phase[0].name, "import") == 0 &&
	          strcmp(s.phase[1].name, "epoch") == 0 && strcmp(s.phase[2].name, "step") == 0,
	      "phases in the order first begun: import, epoch, step");
	CHECK(s.phase[1].n == 2 && s.phase[1].ns[0] == 100 && s.phase[1].ns[1] == 150,
	      "epoch's two spans in order: 100 and 150 ns");
	CHECK(s.phase[0].n == 1 && s.phase[0].ns[0] == 250, "import: one span of 250 ns");
	CHECK(s.nlines == 8 && s.nspans == 4, "8 lines, 4 spans");
	phasemark_free(&s);
	CHECK(parse("", 0, 0, &s) == 0 && s.nphases == 0, "an empty file: no phase, no error");
	phasemark_free(&s);
	CHECK(parse("begin a.b-c_9 5\nend a.b-c_9 6\n", 1, 10, &s) == 0,
	      "a name of [A-Za-z0-9_.-] inside the run's window");
	phasemark_free(&s);
}

/* The pid a line may carry: the span's writer, checked and kept. */
static void pids(void)
{
	static const struct {
		const char *text, *want, *name;
	} bad[] = {
	    {"begin epoch 1 12\nend epoch 2 13\n",
	     "line 2: pid 13 ends 'epoch', begun by pid 12 at line 1",
	     "a span begun by one process and ended by another"},
	    {"begin epoch 1 0\n", "pid '0' is not a process id (1 to 4194304)", "pid 0"},
	    {"begin epoch 1 4194305\n", "pid '4194305' is not", "a pid above Linux's limit"},
	    {"begin epoch 1 12 x\n", "CPU time 'x' is not", "a fifth field that is not a CPU time"},
	    {"begin epoch 1 12 5 x\n", "CPU time '5 x' is not", "a sixth field"},
	    {"begin epoch 1 -3\n", "pid '-3' is not", "a negative pid"},
	};
	struct phasemark_set s;

	CHECK(parse("begin epoch 10 4242\nend epoch 30 4242\nbegin epoch 40\nend epoch 50 7\n"
	            "begin epoch 60\nend epoch 70\n",
	            0, 0, &s) == 0,
	      "lines with and without a pid are read: %s", err);
	CHECK(s.phase[0].n == 3 && s.phase[0].pid[0] == 4242 && s.phase[0].pid[1] == 7 &&
	          s.phase[0].pid[2] == 0,
	      "each span keeps its writer: 4242, the end line's 7, none");
	CHECK(s.phase[0].at[0] == 10 && s.phase[0].at[1] == 40 && s.phase[0].ns[0] == 20,
	      "each span keeps its begin time and its duration");
	phasemark_free(&s);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK(refused(bad[i].text, 0, 0, bad[i].want), "%s is refused", bad[i].name);
}

/* The process's CPU clock as a fifth field: a span's CPU time, or none for older lines. */
static void cpu(void)
{
	struct phasemark_set s;

	CHECK(parse("begin epoch 10 42 1000\nend epoch 30 42 1700\nbegin load 40 42\n"
	            "end load 50 42\nbegin epoch 60 42 1800\nend epoch 90 42 1800\n",
	            0, 0, &s) == 0,
	      "lines with and without a CPU time are read: %s", err);
	CHECK(s.nphases == 2 && s.phase[0].n == 2 && s.phase[0].cpu[0] == 700 &&
	          s.phase[0].cpu[1] == 0 && s.phase[1].cpu[0] == -1 && s.cpu_spans == 2,
	      "epoch's spans used 700 and 0 ns of CPU; load's has none (-1); 2 spans have one");
	CHECK(s.phase[0].ns[0] == 20 && s.phase[0].ns[1] == 30, "the wall times stay");
	phasemark_free(&s);
	CHECK(refused("begin epoch 1 7 500\nend epoch 2 7 400\n", 0, 0,
	              "used -100 ns of CPU"),
	      "a CPU clock that goes back within a span is refused");
	CHECK(refused("begin epoch 1 7 500\nend epoch 2 7\n", 0, 0,
	              "'epoch' ends without a CPU time and its begin at line 1 has one"),
	      "a span whose end has no CPU time and whose begin has one is refused");
	CHECK(refused("begin epoch 1 7\nend epoch 2 7 9\n", 0, 0,
	              "'epoch' ends with a CPU time and its begin at line 1 has none"),
	      "a span whose end has a CPU time and whose begin has none is refused");
	CHECK(refused("begin epoch 1 7 -5\n", 0, 0, "CPU time '-5' is not"),
	      "a negative CPU time is refused");
}

static void hostile(void)
{
	char big[PHASEMARK_MAX_LINE + 40], *many;
	size_t k = 0;

	CHECK(refused("begin epoch 1\nend epoch 2", 0, 0, "line 2: no newline"),
	      "a last line without its newline (a mark cut short)");
	CHECK(refused("start epoch 1\n", 0, 0, "line 1: not 'begin NAME NS [PID [CPU]]'"),
	      "an unknown verb");
	CHECK(refused("begin epoch\n", 0, 0, "line 1: not 'begin NAME NS [PID [CPU]]'"),
	      "a missing timestamp");
	CHECK(refused("begin  epoch 1\n", 0, 0, "is not a phase name"), "two blanks");
	CHECK(refused("begin epoch 1 \n", 0, 0, "pid '' is not a process id"), "a trailing blank");
	CHECK(refused("begin epoch -5\n", 0, 0, "timestamp '-5' is not"), "a negative timestamp");
	CHECK(refused("begin epoch 99999999999999999999\n", 0, 0,
	              "timestamp '99999999999999999999' is too long (20 digits; at most 19)"),
	      "a timestamp beyond 19 digits is too long");
	CHECK(refused("begin epoch 000000000000000000000000000022\n", 0, 0,
	              "is too long (30 digits; at most 19)"),
	      "a timestamp with leading zeros past 19 digits is too long, not 'not an integer'");
	CHECK(refused("begin epoch 9999999999999999999\n", 0, 0,
	              "is not a decimal integer of ns below 2^63"),
	      "a 19-digit timestamp past 2^63");
	CHECK(refused("begin total 1\n", 0, 0, "'total' is not a phase name"),
	      "total is reserved for the whole run");
	CHECK(refused("begin ep\xc3\xb6" "ch 1\n", 0, 0, "'ep??ch' is not a phase name"),
	      "a name outside [A-Za-z0-9_.-], shown with '?' for its bytes");
	CHECK(refused("begin \x01\x1b[2J 1\n", 0, 0, "is not a phase name"),
	      "control bytes in a name are refused and never echoed");
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	memcpy(big, "begin ", 6);
	big[sizeof big - 2] = '\n';
	CHECK(refused(big, 0, 0, "line 1: longer than 128 bytes"), "a line over 128 bytes");
	CHECK(refused("end epoch 5\n", 0, 0, "line 1: end of 'epoch' that was not begun"),
	      "an end without its begin");
	CHECK(refused("begin epoch 5\nbegin epoch 6\n", 0, 0,
	              "line 2: begin of 'epoch' while it is open (begun at line 1)"),
	      "a begin while the phase is open");
	CHECK(refused("begin epoch 5\n", 0, 0, "'epoch' begun at line 1 never ended"),
	      "a phase never ended");
	CHECK(refused("begin epoch 9\nend epoch 9\n", 0, 0, "lasts 0 ns"),
	      "a span of no time");
	CHECK(refused("begin epoch 9\nend epoch 3\n", 0, 0, "lasts -6 ns"),
	      "an end before its begin");
	CHECK(refused("begin epoch 1700000000000000000\n", 100, 200000, "outside the run"),
	      "a wall-clock (CLOCK_REALTIME) timestamp lies outside the run");
	CHECK(refused("begin a 1\nbegin b 1\nbegin c 1\nbegin d 1\nbegin e 1\nbegin f 1\n"
	              "begin g 1\nbegin h 1\n",
	              0, 0, "line 8: more than 7 phase names"),
	      "an eighth phase name");
	many = malloc((PHASEMARK_MAX_SPANS + 1) * 32);
	for (int i = 0; many && i <= PHASEMARK_MAX_SPANS; i++)
		k += (size_t)sprintf(many + k, "begin s %d\nend s %d\n", 2 * i + 1, 2 * i + 2);
	CHECK(many && refused(many, 0, 0, "more than 4096 phases ended"),
	      "more than 4096 spans in one run");
	free(many);
}

static void files(void)
{
	char dir[] = "/tmp/allocab-test-phasemark.XXXXXX", path[64], link[64], fifo[64];
	struct phasemark_set s;
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(0, "a scratch directory");
		return;
	}
	snprintf(path, sizeof path, "%s/marks", dir);
	snprintf(link, sizeof link, "%s/link", dir);
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	f = fopen(path, "w");
	fputs("begin epoch 10\nend epoch 20\n", f);
	fclose(f);
	CHECK(phasemark_read(path, 0, 0, &s, err, sizeof err) == 0 && s.phase[0].ns[0] == 10,
	      "a marks file read back: %s", err);
	phasemark_free(&s);
	CHECK(symlink("/dev/zero", link) == 0 &&
	          phasemark_read(link, 0, 0, &s, err, sizeof err) != 0 &&
	          strstr(err, "a symbolic link replaced it"),
	      "a symbolic link (to /dev/zero) is not followed: %s", err);
	CHECK(mkfifo(fifo, 0600) == 0 && phasemark_read(fifo, 0, 0, &s, err, sizeof err) != 0 &&
	          strstr(err, "not a regular file"),
	      "a FIFO is refused without blocking: %s", err);
	f = fopen(path, "w");
	for (unsigned i = 0; i < PHASEMARK_MAX_BYTES / 16 + 2; i++)
		fputs("begin x 1\nend x 2\n", f);
	fclose(f);
	CHECK(phasemark_read(path, 0, 0, &s, err, sizeof err) != 0 &&
	          strstr(err, "exceed 1048576 bytes"),
	      "a file over 1 MiB is refused: %s", err);
	CHECK(phasemark_read("/nonexistent/marks", 0, 0, &s, err, sizeof err) != 0 &&
	          strstr(err, "cannot open the marks file"),
	      "a missing file: %s", err);
	unlink(path);
	unlink(link);
	unlink(fifo);
	rmdir(dir);
}

/* The C helper of phase/ against marks.h: a name of PHASEMARK_MAX_NAME bytes, the longest its
 * documentation allows (64), makes lines the parser takes, with the pid and CPU time it adds. */
static void helper(void)
{
	char path[] = "/tmp/allocab-test-helper.XXXXXX", name[PHASEMARK_MAX_NAME + 1];
	struct phasemark_set s = {0};
	int fd = mkstemp(path);

	memset(name, 'n', PHASEMARK_MAX_NAME);
	name[PHASEMARK_MAX_NAME] = '\0';
	CHECK(fd >= 0, "helper: a marks file");
	if (fd < 0)
		return;
	close(fd);
	setenv(PHASEMARK_ENV, path, 1);
	allocab_phase_begin(name);
	allocab_phase_end(name);
	unsetenv(PHASEMARK_ENV);
	CHECK(phasemark_read(path, 0, 0, &s, err, sizeof err) == 0 && s.nphases == 1 &&
	          s.nspans == 1 && strcmp(s.phase[0].name, name) == 0 && s.phase[0].pid[0] > 0 &&
	          s.cpu_spans == 1,
	      "helper: a %d-byte name's span reads back with its pid and CPU time (%s)",
	      PHASEMARK_MAX_NAME, err);
	phasemark_free(&s);
	unlink(path);
	CHECK(phasemark_valid_name(name, PHASEMARK_MAX_NAME) && PHASEMARK_MAX_NAME == 64,
	      "helper: its documented 1 to 64 bytes are PHASEMARK_MAX_NAME");
}

int main(void)
{
	helper();
	good();
	pids();
	cpu();
	hostile();
	files();
	CHECK(phasemark_valid_name("epoch", 5) && !phasemark_valid_name("", 0) &&
	          !phasemark_valid_name("total", 5) && phasemark_valid_name("totals", 6),
	      "phasemark_valid_name: epoch yes, empty and total no, totals yes");
	return CHECK_DONE();
}
