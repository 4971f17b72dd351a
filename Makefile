# allocab - one driver per allocator backend, one front end (bench / compare / gate).
# Usage: make [all|test|test-fleet|bench|bench-models|bench-stats|bench-compare|seq-sim|steady-sim|validate|fuzz|deps|install|uninstall|man|clean|format]  PREFIX=/usr/local DESTDIR=

VERSION := 0.3.0
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/allocab
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
BUILD ?= build

CC ?= cc
# What the code needs is appended with `override`, so `make CFLAGS=-O3` keeps it.
CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Wshadow -Wstrict-prototypes -pthread
override CPPFLAGS += -D_GNU_SOURCE -DALLOCAB_VERSION='"$(VERSION)"' -Isrc -I.
# GCC removes malloc/free pairs whose pointer does not escape; workloads must really allocate.
NOBUILTIN := -fno-builtin-malloc -fno-builtin-calloc -fno-builtin-realloc -fno-builtin-free
LDLIBS_COMMON := -lzstd -lcjson -lm -pthread
SANITIZE := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

# Backends: allocators/<name>.c builds build/allocab-<name>; LIBS_<name> is what it links.
# Adding one: its C file and one LIBS_ line here (docs/allocators.md).
BACKENDS := $(patsubst allocators/%.c,%,$(wildcard allocators/*.c))
LIBS_system :=
LIBS_mimalloc := -lmimalloc
LIBS_jemalloc := -ljemalloc
LIBS_tcmalloc := -ltcmalloc_minimal
LIBS_system_slow :=

# The folders say which program a file belongs to (docs/architecture.md, "Layout"): src/common/ and
# src/marks/ go into both programs, and of src/trace/ its reader (TRACE_READ_SRC, which the replay
# workload uses); src/driver/, workloads/lib/ and workloads/ into every driver; src/front/ and the
# rest of src/trace/ into allocab. Each program's main is the file named after it.
TRACE_READ_SRC := src/trace/trace.c src/trace/payload.c src/trace/load.c
COMMON_SRC := $(wildcard src/common/*.c) $(wildcard src/marks/*.c) $(TRACE_READ_SRC)
DRIVER_MAIN_SRC := src/driver/driver.c
DRIVER_LIB_SRC := $(filter-out $(DRIVER_MAIN_SRC),$(wildcard src/driver/*.c)) \
	$(wildcard workloads/lib/*.c) $(wildcard workloads/*.c)
FRONT_MAIN_SRC := src/front/allocab.c
FRONT_LIB_SRC := $(wildcard src/front/*/*.c) $(filter-out $(TRACE_READ_SRC),$(wildcard src/trace/*.c))
# Unit tests: tests/unit/MODULE/test_NAME.c builds $(BUILD)/tests/test_NAME and its ASan+UBSan twin
# $(BUILD)/asan/tests/test_NAME; the headers they share are in tests/unit/ (docs/HACKING.md,
# "Tests"). The programs the tests and make validate build are tests/tools/NAME.c.
TEST_SRC := $(wildcard tests/unit/*/test_*.c)
# A test left in the old flat place (tests/test_*.c, tests/e2e_*.sh) would be neither built nor
# run: the build stops, naming each and where it belongs.
MISPLACED_TESTS := $(wildcard tests/test_*.c tests/e2e_*.sh)
ifneq ($(MISPLACED_TESTS),)
$(foreach f,$(filter %.c,$(MISPLACED_TESTS)),$(info $(f): a unit test in the old flat place, never built: it belongs in tests/unit/MODULE/ (docs/HACKING.md, "Layout")))
$(foreach f,$(filter %.sh,$(MISPLACED_TESTS)),$(info $(f): an e2e script in the old flat place, never run: it belongs in tests/e2e/ (docs/HACKING.md, "Layout")))
$(error $(words $(MISPLACED_TESTS)) test(s) in the old flat place of tests/: git mv them where the lines above say)
endif
# Preload libraries (docs/programs.md): src/preload/NAME.c plus its src/preload/NAME_*.c files
# build build/liballocab-NAME.so, position-independent (rule below).
PRELOAD_MAINS := $(filter-out $(wildcard src/preload/*_*.c),$(wildcard src/preload/*.c))
PRELOAD_NAMES := $(patsubst src/preload/%.c,%,$(PRELOAD_MAINS))
PRELOAD_LIBS := $(patsubst %,$(BUILD)/liballocab-%.so,$(PRELOAD_NAMES))

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))
asan_obj = $(patsubst %.c,$(BUILD)/asan/%.o,$(1))
pic_obj = $(patsubst %.c,$(BUILD)/pic/%.o,$(1))
LIB_SRC := $(COMMON_SRC) $(DRIVER_LIB_SRC) $(FRONT_LIB_SRC)
DRIVERS := $(addprefix $(BUILD)/allocab-,$(BACKENDS))
FRONT := $(BUILD)/allocab
TEST_NAMES := $(basename $(notdir $(TEST_SRC)))
TESTS := $(addprefix $(BUILD)/tests/,$(TEST_NAMES))
ASAN_TESTS := $(addprefix $(BUILD)/asan/tests/,$(TEST_NAMES))
# Fuzz targets of the readers (tests/fuzz/NAME.c, corpus in tests/fuzz/corpus/NAME): replayed over
# their corpus by `make test` (gcc, sanitizers), fuzzed by `make fuzz` (clang, libFuzzer).
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(filter-out tests/fuzz/replay.c,$(wildcard tests/fuzz/*.c)))
FUZZ_REPLAYS := $(addprefix $(BUILD)/asan/fuzz-replay-,$(FUZZ_TARGETS))
# ptrack_cost measures what process tracking costs (docs/programs.md, "Process tracking"); the
# tests only build it.
TOOLS := $(BUILD)/tests/jget $(BUILD)/tests/sesim $(BUILD)/tests/inject_probe $(BUILD)/tests/naive \
	$(BUILD)/tests/alloc_threads $(BUILD)/tests/mktrace $(BUILD)/tests/ptrack_cost \
	$(BUILD)/tests/mkfleet $(BUILD)/tests/seqsim $(BUILD)/tests/famsim $(BUILD)/tests/jsleep \
	$(BUILD)/tests/phase_fixture $(BUILD)/tests/vardecomp $(BUILD)/tests/mkbench \
	$(BUILD)/tests/steadysim $(BUILD)/tests/solo_mech $(BUILD)/tests/acct_hide \
	$(BUILD)/tests/agreesim

.PHONY: all deps test unit bench validate install uninstall clean format fuzz man seq-sim
.SUFFIXES:

all: deps
	@$(MAKE) --no-print-directory $(BUILD_J) build-all

.PHONY: build-all
build-all: $(DRIVERS) $(FRONT) $(PRELOAD_LIBS)

deps:
	@scripts/deps.sh

# Every object is rebuilt when the compiler or its flags change (VERSION among them): the stamp
# holds the last command line used and is rewritten only when it differs.
FLAGS_STAMP := $(BUILD)/.flags
FLAGS_NOW := $(CC) $(CPPFLAGS) $(CFLAGS) $(NOBUILTIN)
ifneq ($(FLAGS_NOW),$(file <$(FLAGS_STAMP)))
$(shell mkdir -p $(BUILD))
$(file >$(FLAGS_STAMP),$(FLAGS_NOW))
endif

$(BUILD)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(NOBUILTIN) -MMD -MP -c -o $@ $<

$(BUILD)/asan/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(NOBUILTIN) $(SANITIZE) -MMD -MP -c -o $@ $<

# The backend object comes last so workload code has the same addresses in every driver.
# The code starts at a fixed address (DRIVER_CODE_START), whatever the size of the symbol tables
# before it, which grows with each backend's imports (docs/allocators.md).
DRIVER_CODE_START := 0x10000
# Kept after the link (make would delete them as intermediates): scripts/check_exports.sh reads
# every object of both programs.
.SECONDARY: $(patsubst %,$(BUILD)/allocators/%.o,$(BACKENDS))
$(BUILD)/allocab-%: $(call obj,$(COMMON_SRC) $(DRIVER_LIB_SRC) $(DRIVER_MAIN_SRC)) $(BUILD)/allocators/%.o
	$(CC) $(LDFLAGS) -Wl,--section-start=.init=$(DRIVER_CODE_START) -o $@ $^ -lzstd $(LDLIBS_COMMON) -ldl -Wl,--no-as-needed $(LIBS_$*) -Wl,--as-needed
# Nothing a backend adds may land before the shared code (docs/allocators.md): driver code calls
# libraries through the GOT, not the PLT (which precedes .text), and backend code stays out of the
# .text.startup/.text.unlikely sections that the linker places first.
$(call obj,$(COMMON_SRC) $(DRIVER_LIB_SRC) $(DRIVER_MAIN_SRC)): override CFLAGS += -fno-plt
$(BUILD)/allocators/%.o: override CFLAGS += -fno-plt -fno-reorder-functions -fno-reorder-blocks-and-partition

# Preload libraries link nothing of the project but header-only tables and formats; only what
# they mark visible is exported. PRELOAD_LDLIBS_<name>: what one of them links besides libdl.
$(BUILD)/pic/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -ftls-model=initial-exec $(NOBUILTIN) -MMD -MP -c -o $@ $<

PRELOAD_LDLIBS_record := -lzstd
define preload_rule
$(BUILD)/liballocab-$(1).so: $(call pic_obj,src/preload/$(1).c $(wildcard src/preload/$(1)_*.c))
	$$(CC) $$(LDFLAGS) -shared -Wl,-z,defs -o $$@ $$^ $$(PRELOAD_LDLIBS_$(1)) -ldl -pthread
endef
$(foreach n,$(PRELOAD_NAMES),$(eval $(call preload_rule,$(n))))

$(FRONT): $(call obj,$(COMMON_SRC) $(FRONT_LIB_SRC) $(FRONT_MAIN_SRC))
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_COMMON)

# The tests and tools include the unit tests' shared headers by name ("check.h").
$(BUILD)/tests/%.o $(BUILD)/asan/tests/%.o: override CPPFLAGS += -Itests/unit

define unit_rule
$(BUILD)/tests/$(basename $(notdir $(1))): $(call obj,$(1)) $(call obj,$(LIB_SRC))
	$$(CC) $$(LDFLAGS) -o $$@ $$^ -lzstd $$(LDLIBS_COMMON) -ldl
$(BUILD)/asan/tests/$(basename $(notdir $(1))): $(call asan_obj,$(1)) $(call asan_obj,$(LIB_SRC))
	$$(CC) $$(LDFLAGS) $$(SANITIZE) -o $$@ $$^ -lzstd $$(LDLIBS_COMMON) -ldl
endef
$(foreach t,$(TEST_SRC),$(eval $(call unit_rule,$(t))))

$(BUILD)/tests/%: $(BUILD)/tests/tools/%.o $(call obj,$(LIB_SRC))
	$(CC) $(LDFLAGS) -o $@ $^ -lzstd $(LDLIBS_COMMON) -ldl

$(BUILD)/tests/jget: $(BUILD)/tests/tools/jget.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_COMMON)

# An OpenMP job whose threads spin between short parallel loops (docs/programs.md, "Which time").
# Built on demand only: make test does not need libgomp.
$(BUILD)/tests/omp_spin: tests/tools/omp_spin.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fopenmp -o $@ $<

# A program with a known allocation stream for the record/replay tests (tests/e2e/e2e_record.sh).
$(BUILD)/tests/alloc_threads: $(BUILD)/tests/tools/alloc_threads.o
	$(CC) $(LDFLAGS) -o $@ $^ -pthread

# A program that hides CPU time from a run's accounting (tests/e2e/e2e_accounting.sh).
$(BUILD)/tests/acct_hide: $(BUILD)/tests/tools/acct_hide.o
	$(CC) $(LDFLAGS) -o $@ $^

# A program that marks its phases with phase/allocab_phase.h (tests/e2e/e2e_phases.sh).
$(BUILD)/tests/phase_fixture: $(BUILD)/tests/tools/phase_fixture.o
	$(CC) $(LDFLAGS) -o $@ $^

# Which interval a fleet takes a machine's standard error from, simulated (docs/fleet.md).
$(BUILD)/tests/sesim: $(BUILD)/tests/tools/sesim.o $(call obj,$(COMMON_SRC) $(FRONT_LIB_SRC))
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_COMMON)

# make se-sim: that simulation, SESIM_TRIALS per cell. Not part of make test.
SESIM_TRIALS ?= 20000
.PHONY: se-sim
se-sim: $(BUILD)/tests/sesim
	$(BUILD)/tests/sesim $(SESIM_TRIALS) 1

# The test of agreement between shared and solo rounds, simulated (tests/tools/agreesim.c;
# docs/validation.md, "One CPU against its solo rounds").
$(BUILD)/tests/agreesim: $(BUILD)/tests/tools/agreesim.o $(call obj,$(COMMON_SRC) $(FRONT_LIB_SRC))
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_COMMON)

# make agree-sim: that simulation, AGREESIM_TRIALS per cell at level AGREESIM_ALPHA. Not part of
# make test.
AGREESIM_TRIALS ?= 20000
AGREESIM_ALPHA ?= 0.05
.PHONY: agree-sim
agree-sim: $(BUILD)/tests/agreesim
	$(BUILD)/tests/agreesim $(AGREESIM_TRIALS) 1 $(AGREESIM_ALPHA)

# A/A program benches on CPU time simulated through the bench's marks judgement, the reader and
# compare (tests/tools/steadysim.c; docs/validation.md, "A/A program benches on CPU time, simulated").
$(BUILD)/tests/steadysim: $(BUILD)/tests/tools/steadysim.o $(call obj,$(COMMON_SRC) $(FRONT_LIB_SRC))
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_COMMON)

# make steady-sim: that simulation, STEADYSIM_TRIALS benches per setting, on a template written by
# one real bench of tests/phase_fixture (STEADYSIM_TEMPLATE to give one). Not part of make test.
STEADYSIM_TRIALS ?= 2000
STEADYSIM_TEMPLATE ?= $(BUILD)/steadysim-template.json
.PHONY: steady-sim
steady-sim: $(BUILD)/tests/steadysim $(FRONT) $(BUILD)/tests/phase_fixture
	@test -s $(STEADYSIM_TEMPLATE) || $(FRONT) bench --program '$(BUILD)/tests/phase_fixture 8' \
		-a system --arm s2=system --arm s3=system --arm s4=system --rounds 10 --warmup 0 \
		--allocation none --quiet -o $(STEADYSIM_TEMPLATE)
	$(BUILD)/tests/steadysim $(STEADYSIM_TEMPLATE) $(STEADYSIM_TRIALS) 1 $(STEADYSIM_SETTINGS)

# Programs of known mechanism for make validate's solo anchor part (scripts/validate_solo.sh).
$(BUILD)/tests/solo_mech: $(BUILD)/tests/tools/solo_mech.o
	$(CC) $(LDFLAGS) -o $@ $^ -pthread

# The synthetic command of make validate's sequential part: a sleep with log-normal jitter.
$(BUILD)/tests/jsleep: $(BUILD)/tests/tools/jsleep.o
	$(CC) $(LDFLAGS) -o $@ $^ -lm

# Synthetic traces for the replay tests (tests/e2e/e2e_limits.sh, tests/e2e/e2e_record_phases.sh).
$(BUILD)/tests/mktrace: $(BUILD)/tests/tools/mktrace.o $(BUILD)/src/marks/block.o \
		$(BUILD)/src/marks/phasemark.o $(BUILD)/src/common/errmsg.o $(BUILD)/src/common/utf8.o
	$(CC) $(LDFLAGS) -o $@ $^

# The slow backend alone with a probe main: proves its injection count (tests/e2e/e2e_calibrate.sh).
$(BUILD)/tests/inject_probe: $(BUILD)/tests/tools/inject_probe.o $(BUILD)/allocators/system_slow.o
	$(CC) $(LDFLAGS) -o $@ $^ -ldl -pthread

# The naive analysis (ratio of means, Welch t test) that make validate holds allocab against.
$(BUILD)/tests/naive: $(BUILD)/tests/tools/naive.o $(call obj,$(COMMON_SRC) $(FRONT_LIB_SRC))
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_COMMON)

# Where the variance of a bench is (make validate's variance part, docs/methodology.md).
$(BUILD)/tests/vardecomp: $(BUILD)/tests/tools/vardecomp.o $(call obj,$(COMMON_SRC) $(FRONT_LIB_SRC))
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_COMMON)

# make bench-stats: the Hodges-Lehmann statistics timed on 10^6 values, with peak RSS
# (tests/tools/bench_stats.c; BENCH_STATS_N=... for another size). Not part of make test.
BENCH_STATS_N ?= 1000000
$(BUILD)/tests/bench_stats: $(BUILD)/tests/tools/bench_stats.o $(call obj,$(COMMON_SRC) $(FRONT_LIB_SRC))
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_COMMON)

.PHONY: bench-stats
bench-stats: $(BUILD)/tests/bench_stats
	$(BUILD)/tests/bench_stats $(BENCH_STATS_N)

# make seq-sim: the candidate rules for a gate judged after every round, simulated on synthetic
# log ratios (tests/tools/seqsim.c; docs/methodology.md, "Sequential decisions"): SEQSIM_TRIALS per
# cell, budgets SEQSIM_BUDGETS rounds. Not part of make test.
SEQSIM_TRIALS ?= 40000
SEQSIM_BUDGETS ?= 20 40 80
seq-sim: $(BUILD)/tests/seqsim
	$(BUILD)/tests/seqsim $(SEQSIM_TRIALS) 1 $(SEQSIM_BUDGETS)

# make bench-compare: allocab compare timed end to end on a generated results file of
# BENCH_COMPARE_ROUNDS rounds with BENCH_COMPARE_REPS reps per run (scripts/bench_compare.sh;
# about 130 MB of TMPDIR at 10^5 rounds of one rep). Not part of make test.
BENCH_COMPARE_ROUNDS ?= 100000
BENCH_COMPARE_REPS ?= 1
.PHONY: bench-compare
bench-compare: $(BUILD)/allocab
	scripts/bench_compare.sh $(BUILD) $(BENCH_COMPARE_ROUNDS) 3 $(BENCH_COMPARE_REPS)

# make validate: the harness measured against itself on this machine (~20 min, ~17 more for the
# sequential gate, ~10 for where the variance is and ~22 for the primary family;
# VALIDATE_ONLY=machine|seq|fleet|variance|sessions|family runs one part), into docs/validation.md
# (VALIDATE_OUT=FILE: the report alone, into FILE).
validate: deps
	@$(MAKE) --no-print-directory build-all $(TOOLS)
	@BUILD=$(BUILD) scripts/validate.sh

# make bench: every driver, every workload, rounds until BENCH_BUDGET seconds (warm-up included)
# are spent, then the comparison table and a markdown report beside the results (scripts/bench.sh).
# Small scale by default: a default-scale round takes over a minute on 2 cores, so 5 minutes would
# hold too few rounds for an interval. BENCH_ARGS='--scale default' BENCH_BUDGET=3600 for full size.
BENCH_BUDGET ?= 270
BENCH_ARGS ?= --scale small
bench: deps
	@$(MAKE) --no-print-directory build-all
	@BUILD=$(BUILD) BENCH_BUDGET=$(BENCH_BUDGET) scripts/bench.sh $(BENCH_ARGS)

# make bench-models: the training examples (examples/, docs/models.md) under every allocator, each
# recorded once and replayed, docs/claims/models.json checked; installs python3-torch and cargo
# from Debian when they are missing. Not part of make test. MODELS_ROUNDS, MODELS, MODELS_ARGS_<m>:
# scripts/bench_models.sh.
.PHONY: bench-models
bench-models:
	@scripts/deps.sh --also python3-torch cargo
	@$(MAKE) --no-print-directory build-all
	@BUILD=$(BUILD) scripts/bench_models.sh $(MODELS_OUT)

# make test-fleet: the fleet launchers run where this machine can run them (docs/fleet.md,
# "Tested here"): the Slurm job-array script on a one-node Slurm, the Kubernetes manifest against
# the API models of python3-kubernetes; installs slurm-wlm, munge and python3-kubernetes, skips
# what cannot run here with a message. Not part of make test.
.PHONY: test-fleet
test-fleet: deps
	@$(MAKE) --no-print-directory build-all $(BUILD)/tests/jget
	@BUILD=$(BUILD) tests/e2e/fleet_slurm.sh

# make test-render: the HTML report laid out by headless Chromium and its chart of measured times
# checked against the data (tests/e2e/e2e_render.sh; make test runs it too, and skips it without
# Chromium); installs chromium, and says so and skips the check when it cannot.
.PHONY: test-render
test-render:
	@scripts/deps.sh --also chromium || echo "make test-render: chromium could not be installed"
	@$(MAKE) --no-print-directory build-all
	@BUILD=$(BUILD) bash tests/e2e/e2e_render.sh

# make test: builds with one job per CPU (unless make was given -j), then tests/run.sh: the e2e
# scripts, the unit binaries, their ASan+UBSan twins and the fuzz corpus replays, TEST_JOBS (2) at
# a time; every program's seconds, the slowest, how long it took, and the last line
# "N passed, N failed, N skipped".
TEST_JOBS ?= 2
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD_J = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(BUILD_JOBS))
test: deps
	@TEST_START=$$(date +%s) && $(MAKE) --no-print-directory $(BUILD_J) build-all $(TESTS) $(ASAN_TESTS) $(FUZZ_REPLAYS) $(TOOLS) && \
		TEST_START=$$TEST_START TEST_JOBS=$(TEST_JOBS) tests/run.sh $(BUILD) $(TESTS) $(ASAN_TESTS) $(FUZZ_REPLAYS)

# make man: the man page's option entries regenerated from the option tables (src/common/opt.h)
# between its BEGIN/END OPTIONS markers, keeping the text written below each entry
# (scripts/manopts.sh); `make test` fails while the committed page differs.
man: build-all
	@scripts/manopts.sh $(BUILD) docs/allocab.1 >docs/allocab.1.tmp && mv docs/allocab.1.tmp docs/allocab.1 || \
		{ rm -f docs/allocab.1.tmp; exit 1; }

# make layout: the layout table of docs/architecture.md regenerated from scripts/check_layers.sh
# (scripts/layout_doc.sh); `make test` fails while the committed table differs.
.PHONY: layout
layout:
	@scripts/layout_doc.sh

# What README.md and the man page point to: the drop-in script, the docs (the CI workflow among
# them) and bash completion.
DOCS := README.md $(wildcard docs/*.md)
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR)/ci \
		$(DESTDIR)$(COMPLETIONDIR)
	install -m 755 $(FRONT) $(DRIVERS) $(DESTDIR)$(BINDIR)
	install -m 755 scripts/benchmark_mimalloc.sh $(DESTDIR)$(BINDIR)/allocab-benchmark-mimalloc
	install -m 644 docs/allocab.1 $(DESTDIR)$(MANDIR)/man1/allocab.1
	install -d $(DESTDIR)$(PREFIX)/lib/allocab
	install -m 644 $(PRELOAD_LIBS) $(DESTDIR)$(PREFIX)/lib/allocab/
	install -m 755 scripts/deps.sh $(DESTDIR)$(PREFIX)/lib/allocab/deps.sh
	install -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)
	install -m 644 $(wildcard docs/ci/*.yml) $(DESTDIR)$(DOCDIR)/ci
	install -d $(DESTDIR)$(DOCDIR)/fleet
	install -m 644 $(wildcard docs/fleet/*) $(DESTDIR)$(DOCDIR)/fleet
	install -d $(DESTDIR)$(DOCDIR)/claims
	install -m 644 $(wildcard docs/claims/*.json) $(DESTDIR)$(DOCDIR)/claims
	install -m 644 scripts/completion/allocab.bash $(DESTDIR)$(COMPLETIONDIR)/allocab
	install -d $(DESTDIR)$(DOCDIR)/phase
	install -m 644 phase/allocab_phase.h phase/allocab_phase.py $(DESTDIR)$(DOCDIR)/phase

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/allocab $(addprefix $(DESTDIR)$(BINDIR)/allocab-,$(BACKENDS))
	rm -f $(DESTDIR)$(BINDIR)/allocab-benchmark-mimalloc
	rm -f $(DESTDIR)$(MANDIR)/man1/allocab.1 $(DESTDIR)$(COMPLETIONDIR)/allocab
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/lib/allocab/,$(notdir $(PRELOAD_LIBS)) deps.sh)
	-rmdir $(DESTDIR)$(PREFIX)/lib/allocab
	rm -rf $(DESTDIR)$(DOCDIR)

# What the fuzz targets link: the readers of both programs (the replay loader is a driver's).
FUZZ_LIB_SRC := $(COMMON_SRC) $(FRONT_LIB_SRC) workloads/lib/replay_load.c \
	workloads/lib/replay_marks.c workloads/lib/replay_cost.c
$(BUILD)/asan/fuzz-replay-%: $(BUILD)/asan/tests/fuzz/%.o $(BUILD)/asan/tests/fuzz/replay.o \
		$(call asan_obj,$(FUZZ_LIB_SRC))
	$(CC) $(LDFLAGS) $(SANITIZE) -o $@ $^ $(LDLIBS_COMMON)

# make fuzz: every reader's target under libFuzzer, ASan and UBSan for FUZZ_SECONDS each, starting
# from its committed corpus; new inputs collect in $(BUILD)/fuzz/corpus-NAME, crashes in
# $(BUILD)/fuzz/crash-NAME-* (docs/results-format.md, "Fuzzing"). Installs clang when missing.
FUZZ_SECONDS ?= 120
FUZZ_CC ?= clang
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
fuzz_obj = $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(1))
.PRECIOUS: $(BUILD)/fuzz/obj/%.o
fuzz: deps
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { echo "make fuzz: installing clang"; \
		apt-get install -y clang >/dev/null || sudo apt-get install -y clang >/dev/null; }
	@$(MAKE) --no-print-directory $(addprefix $(BUILD)/fuzz/fuzz-,$(FUZZ_TARGETS))
	@scripts/fuzz.sh $(BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) -g -O1 -std=gnu11 -pthread $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c -o $@ $<

$(BUILD)/fuzz/fuzz-%: $(BUILD)/fuzz/obj/tests/fuzz/%.o $(call fuzz_obj,$(FUZZ_LIB_SRC))
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LDLIBS_COMMON)

clean:
	rm -rf $(BUILD)

format:
	clang-format -i $$(find src allocators workloads tests -name '*.[ch]')

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
