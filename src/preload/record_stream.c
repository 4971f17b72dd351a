/* record_stream.c - the process's stream file in $ALLOCAB_RECORD_DIR (record.h): its clock, its
 * file header and process block, whole blocks appended with one write() each, its end block. */
#include "preload/record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

atomic_int rec_stream_broken;

static int stream_fd = -1;
static uint64_t stream_start;

/* Event times are in ticks of the time-stamp counter when it is invariant (ticks since the
 * stream's start); each events block carries the ticks-to-ns factor measured at its flush. */
static int use_tsc;
static uint64_t tsc_start;

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static uint64_t ticks_now(void)
{
	return use_tsc ? __rdtsc() : 0;
}
#else
static uint64_t ticks_now(void)
{
	return 0;
}
#endif

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t rec_stream_ticks(void)
{
	return use_tsc ? ticks_now() - tsc_start : mono_ns() - stream_start;
}

uint64_t rec_tick_factor(void)
{
	uint64_t dt, dn;

	if (!use_tsc)
		return (uint64_t)1 << 32;
	dn = mono_ns() - stream_start;
	dt = ticks_now() - tsc_start;
	return dt ? (uint64_t)(((unsigned __int128)dn << 32) / dt) : (uint64_t)1 << 32;
}

/* Whether /proc/cpuinfo says the TSC ticks at a constant rate through sleep states. */
static int tsc_invariant(void)
{
	static char buf[8192];
	int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, " constant_tsc") && strstr(buf, " nonstop_tsc");
}

void rec_clock_init(void)
{
	use_tsc = tsc_invariant();
}

void rec_write_block(uint8_t *block, size_t n)
{
	ssize_t w;

	if (atomic_load(&rec_stream_broken) || stream_fd < 0)
		return;
	do
		w = write(stream_fd, block, n);
	while (w < 0 && errno == EINTR);
	if (w != (ssize_t)n)
		atomic_store(&rec_stream_broken, 1);
}

/* Writes a block whose payload is stored uncompressed (process, end). */
static void write_meta(unsigned kind, const uint8_t *payload, uint32_t len)
{
	uint8_t block[TRACE_BLOCK_HDR + TRACE_MAX_META];

	if (len > TRACE_MAX_META)
		return;
	trace_block_header(block, kind, 0, 0, len, len, 0, trace_fnv32(payload, len));
	memcpy(block + TRACE_BLOCK_HDR, payload, len);
	rec_write_block(block, TRACE_BLOCK_HDR + len);
}

/* Reads up to cap bytes of a /proc file into buf without allocating; returns the length. */
static uint32_t read_proc(const char *path, uint8_t *buf, uint32_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, cap) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 ? (uint32_t)n : 0;
}

static void write_process_block(void)
{
	uint8_t p[TRACE_MAX_META];
	struct timespec rt;
	ssize_t n;
	uint32_t len = 36, a;

	clock_gettime(CLOCK_REALTIME, &rt);
	trace_put64(p, (uint64_t)getpid());
	trace_put64(p + 8, (uint64_t)getppid());
	trace_put64(p + 16, (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec);
	trace_put64(p + 24, stream_start);
	n = readlink("/proc/self/exe", (char *)p + 36, 4096);
	trace_put32(p + 32, n > 0 ? (uint32_t)n : 0);
	len += n > 0 ? (uint32_t)n : 0;
	a = read_proc("/proc/self/cmdline", p + len + 4, 4096);
	trace_put32(p + len, a);
	write_meta(TRACE_K_PROCESS, p, len + 4 + a);
}

int rec_stream_open(const char *dir)
{
	char path[4096];
	uint8_t hdr[TRACE_FILE_HDR];

	atomic_store(&rec_stream_broken, 0);
	stream_start = mono_ns();
	tsc_start = ticks_now();
	snprintf(path, sizeof path, "%s/s.%ld.%llu.ats", dir, (long)getpid(),
	         (unsigned long long)stream_start);
	stream_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
	if (stream_fd < 0)
		return -1;
	trace_file_header(hdr);
	rec_write_block(hdr, sizeof hdr);
	write_process_block();
	return 0;
}

void rec_stream_close(void)
{
	if (stream_fd >= 0)
		close(stream_fd);
	stream_fd = -1;
}

void rec_write_end_block(void)
{
	uint8_t p[4 + 8 * TRACE_END_NCOUNTERS];

	rec_counter[TRACE_END_EVENTS] = rec_events();
	rec_counter[TRACE_END_THREADS] = atomic_load(&rec_nthreads);
	rec_counter[TRACE_END_DURATION_NS] = mono_ns() - stream_start;
	trace_put32(p, TRACE_END_NCOUNTERS);
	for (int k = 0; k < TRACE_END_NCOUNTERS; k++)
		trace_put64(p + 4 + 8 * k, atomic_load(&rec_counter[k]));
	write_meta(TRACE_K_END, p, sizeof p);
}
