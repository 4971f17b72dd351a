/* record_stream.c - the process's raw stream in $ALLOCAB_RECORD_DIR (record.h): its clock, its
 * header and process block, the status block right after them (rewritten in place, so the end
 * counters reach the disk even when it is full, and stay there if the process is killed), and
 * whole blocks appended with one write() each. */
#include "preload/record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STATUS_LEN (4 + 8 * TRACE_END_NCOUNTERS)

atomic_int rec_stream_broken;

static int stream_fd = -1, status_fd = -1;
static off_t status_off;
static long stream_pid;
static uint64_t stream_start;
static atomic_int status_lock;

/* Event times are in ticks of the time-stamp counter when the kernel itself keeps time with it
 * (ticks since the stream's start); each events block carries the ticks-to-ns factor measured at
 * its flush. */
static int use_tsc;
static uint64_t tsc_start;

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
/* RDTSCP reads the counter once every instruction before it has executed and its loads are
 * globally visible: an allocation stamped after its call is stamped after every load that call
 * made, including the one that saw another thread release the block. */
static uint64_t ticks_now(void)
{
	unsigned aux;

	return use_tsc ? __rdtscp(&aux) : 0;
}

/* RDTSC may read the counter late, but before it retires, and a store after it in program order
 * becomes visible only after that: a release stamped before its call is stamped before the store
 * that hands the block to another thread. */
static uint64_t ticks_early(void)
{
	return use_tsc ? __rdtsc() : 0;
}
#else
static uint64_t ticks_now(void)
{
	return 0;
}

static uint64_t ticks_early(void)
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

uint64_t rec_now(void)
{
	return use_tsc ? ticks_now() - tsc_start : mono_ns() - stream_start;
}

uint64_t rec_now_release(void)
{
	return use_tsc ? ticks_early() - tsc_start : mono_ns() - stream_start;
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

/* Reads up to cap - 1 bytes of a file into buf (NUL-terminated) without allocating; returns the
 * length. */
static uint32_t read_small(const char *path, uint8_t *buf, uint32_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, cap - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 ? (uint32_t)n : 0;
}

/* The TSC orders events of different CPUs only when it ticks at a constant rate through sleep
 * states and the kernel keeps time with it (it checked that the CPUs' counters agree). */
static int tsc_usable(void)
{
	static uint8_t buf[8192];

	read_small("/sys/devices/system/clocksource/clocksource0/current_clocksource", buf, 64);
	if (strncmp((char *)buf, "tsc", 3) != 0)
		return 0;
	read_small("/proc/cpuinfo", buf, sizeof buf);
	return strstr((char *)buf, " constant_tsc") && strstr((char *)buf, " nonstop_tsc");
}

void rec_clock_init(void)
{
	use_tsc = tsc_usable();
}

/* The test-only fault hook (docs/trace-format.md, "Faults"): ALLOCAB_RECORD_FAULT_BLOCKS=N lets
 * the first N block writes of each stream succeed and fails the later ones with ENOSPC, as a full
 * TMPDIR would. */
static long fault_blocks = -1, blocks_written;

void rec_fault_init(const char *v)
{
	char *end;

	if (v && *v && (fault_blocks = strtol(v, &end, 10)) >= 0 && !*end)
		return;
	fault_blocks = -1;
}

static ssize_t write_stream(const void *block, size_t n)
{
	if (fault_blocks >= 0 && blocks_written++ >= fault_blocks) {
		errno = ENOSPC;
		return -1;
	}
	return write(stream_fd, block, n);
}

int rec_write_block(uint8_t *block, size_t n)
{
	ssize_t w;

	if (atomic_load(&rec_stream_broken) || stream_fd < 0)
		return -1;
	do
		w = write_stream(block, n);
	while (w < 0 && errno == EINTR);
	if (w == (ssize_t)n)
		return 0;
	if (!atomic_exchange(&rec_stream_broken, 1))
		atomic_store(&rec_counter[TRACE_END_WRITE_ERRNO], w < 0 ? (uint64_t)errno : ENOSPC);
	return -1;
}

/* Writes a block whose payload is stored uncompressed (process, status) into block. */
static size_t meta_block(uint8_t *block, unsigned kind, const uint8_t *payload, uint32_t len)
{
	trace_block_header(block, kind, 0, 0, len, len, 0, trace_fnv32(payload, len));
	memcpy(block + TRACE_BLOCK_HDR, payload, len);
	return TRACE_BLOCK_HDR + len;
}

static void write_process_block(void)
{
	uint8_t p[TRACE_MAX_META], block[TRACE_BLOCK_HDR + TRACE_MAX_META];
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
	a = read_small("/proc/self/cmdline", p + len + 4, 4097);
	trace_put32(p + len, a);
	rec_write_block(block, meta_block(block, TRACE_K_PROCESS, p, len + 4 + a));
}

/* The status block: the counters now, how the stream ends (running while it does not). */
static size_t status_block(uint8_t *block, unsigned how)
{
	uint8_t p[STATUS_LEN];

	atomic_store(&rec_counter[TRACE_END_THREADS], atomic_load(&rec_nthreads));
	atomic_store(&rec_counter[TRACE_END_DURATION_NS], mono_ns() - stream_start);
	atomic_store(&rec_counter[TRACE_END_HOW], how);
	trace_put32(p, TRACE_END_NCOUNTERS);
	for (int k = 0; k < TRACE_END_NCOUNTERS; k++)
		trace_put64(p + 4 + 8 * k, atomic_load(&rec_counter[k]));
	return meta_block(block, TRACE_K_STATUS, p, sizeof p);
}

void rec_status_write(unsigned how)
{
	uint8_t block[TRACE_BLOCK_HDR + STATUS_LEN];
	size_t n;

	if (status_fd < 0)
		return;
	rec_spin_lock(&status_lock);
	n = status_block(block, how);
	if (pwrite(status_fd, block, n, status_off) != (ssize_t)n)
		atomic_store(&rec_stream_broken, 1);
	rec_spin_unlock(&status_lock);
}

int rec_stream_open(const char *dir)
{
	char path[4096];
	uint8_t hdr[TRACE_FILE_HDR], block[TRACE_BLOCK_HDR + STATUS_LEN];
	int e;

	atomic_store(&rec_stream_broken, 0);
	blocks_written = 0;
	stream_start = mono_ns();
	tsc_start = ticks_now();
	stream_pid = (long)getpid();
	snprintf(path, sizeof path, "%s/s.%ld.%llu.ats", dir, stream_pid,
	         (unsigned long long)stream_start);
	stream_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
	if (stream_fd < 0)
		return -1;
	status_fd = open(path, O_WRONLY | O_CLOEXEC);
	trace_file_header(hdr, TRACE_RAW_MAGIC);
	rec_write_block(hdr, sizeof hdr);
	write_process_block();
	status_off = lseek(stream_fd, 0, SEEK_END);
	if (status_fd < 0 || status_off < 0 ||
	    rec_write_block(block, status_block(block, TRACE_HOW_RUNNING)) != 0) {
		e = status_fd < 0 || status_off < 0 ? errno : ENOSPC;
		rec_stream_close();
		errno = e;
		return -1;
	}
	return 0;
}

void rec_stream_close(void)
{
	if (stream_fd >= 0)
		close(stream_fd);
	if (status_fd >= 0)
		close(status_fd);
	stream_fd = status_fd = -1;
}

long rec_stream_pid(void)
{
	return stream_pid;
}
