/* trace.c - fuzz target of the trace reader (trace/trace.h, docs/trace-format.md): a bundled
 * trace decoded whole through trace_check_buffer, and the same bytes as one raw stream. Built by
 * `make fuzz`; replayed over tests/fuzz/corpus/trace in `make test`. A new reader gets its fuzz
 * target the same way: one file here defining LLVMFuzzerTestOneInput, and a seed corpus in
 * tests/fuzz/corpus/NAME (docs/results-format.md, "Fuzzing"). */
#include "trace/trace.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	struct trace_block b;
	struct trace_reader *r;

	trace_check_buffer(data, size, err, sizeof err);
	if (!(r = trace_open_mem(data, size, TRACE_STREAM, err, sizeof err)))
		return 0;
	while (trace_next(r, &b, err, sizeof err) == 1) {
		struct trace_cursor c;
		struct trace_event ev;

		if (b.kind == TRACE_K_EVENTS && trace_events_begin(&b, &c, err, sizeof err) == 0)
			while (trace_events_next(&c, &ev, err, sizeof err) == 1)
				;
	}
	trace_close(r);
	return 0;
}
