/* allocab_phase.h - marks the phases of a program for allocab (docs/programs.md, "Phases your
 * program marks"). Header only, no dependency beyond libc; does nothing unless the program runs
 * under `allocab bench` or `allocab record`, which name the marks file in ALLOCAB_PHASE_FILE.
 *
 *     #include "allocab_phase.h"
 *     allocab_phase_begin("load");  ...  allocab_phase_end("load");
 *     for (int e = 0; e < epochs; e++) {
 *         allocab_phase_begin("epoch");  train_one_epoch();  allocab_phase_end("epoch");
 *     }
 *
 * Each mark is one line "begin NAME NS PID CPU" or "end NAME NS PID CPU", NS the program's own
 * CLOCK_MONOTONIC reading in nanoseconds, PID the process writing it (a forked child marks as
 * itself), CPU its CLOCK_PROCESS_CPUTIME_ID reading (every thread, user and system) in
 * nanoseconds, appended with a single write(2) to a descriptor opened with O_APPEND: lines from
 * several threads or processes never interleave. NAME: 1 to 64 of [A-Za-z0-9_.-], not "total". */
#ifndef ALLOCAB_PHASE_H
#define ALLOCAB_PHASE_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline void allocab_phase_mark(const char *what, const char *name)
{
	static int fd = -2;
	struct timespec ts, cpu;
	char line[128];
	int n;

	if (fd == -2) {
		const char *path = getenv("ALLOCAB_PHASE_FILE");
		fd = path && *path ? open(path, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;
	}
	if (fd < 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu) != 0)
		cpu.tv_sec = cpu.tv_nsec = 0;
	n = snprintf(line, sizeof line, "%s %s %lld %ld %lld\n", what, name,
	             (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec, (long)getpid(),
	             (long long)cpu.tv_sec * 1000000000LL + cpu.tv_nsec);
	if (n > 0 && n < (int)sizeof line && write(fd, line, (size_t)n) < 0)
		fd = -1;
}

#define allocab_phase_begin(name) allocab_phase_mark("begin", (name))
#define allocab_phase_end(name)   allocab_phase_mark("end", (name))

#endif
