"""Marks the phases of a program for allocab (docs/programs.md, "Phases your program marks").

    import allocab_phase as phase
    with phase.phase("import"):
        import torch
    for epoch in range(epochs):
        with phase.phase("epoch"):
            train_one_epoch()

No dependency beyond the standard library; does nothing unless the program runs under
`allocab bench` or `allocab record`, which name the marks file in ALLOCAB_PHASE_FILE. Each mark
is one line "begin NAME NS PID CPU" or "end NAME NS PID CPU", NS from time.monotonic_ns()
(CLOCK_MONOTONIC on Linux), PID the process writing it (a forked worker marks as itself), CPU
from time.process_time_ns() (CLOCK_PROCESS_CPUTIME_ID: every thread of the process, user and
system), appended with one os.write to a descriptor opened with O_APPEND. NAME: 1 to 64 of
[A-Za-z0-9_.-], not "total".
"""
import contextlib
import os
import time

_path = os.environ.get("ALLOCAB_PHASE_FILE")
try:
    _fd = os.open(_path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC) if _path else -1
except OSError:
    _fd = -1


def _mark(what, name):
    global _fd
    t = time.monotonic_ns()
    c = time.process_time_ns()
    if _fd >= 0:
        try:
            os.write(_fd, b"%s %s %d %d %d\n" % (what, name.encode(), t, os.getpid(), c))
        except OSError:
            _fd = -1


def begin(name):
    """Starts phase `name`; end it with end(name)."""
    _mark(b"begin", name)


def end(name):
    """Ends phase `name`, begun with begin(name)."""
    _mark(b"end", name)


@contextlib.contextmanager
def phase(name):
    """The body of the with statement is one span of phase `name`."""
    begin(name)
    try:
        yield
    finally:
        end(name)
