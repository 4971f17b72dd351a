"""What the training examples share: the phase helper of allocab (phase/allocab_phase.py), the
command line (--epochs, --steps, --seed), deterministic single-threaded PyTorch, and the checksum
every example prints last."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "phase"))
import allocab_phase as phase  # noqa: E402  (after the path it lives in)


def arguments(doc, epochs, steps):
    p = argparse.ArgumentParser(description=doc)
    p.add_argument("--epochs", type=int, default=epochs, help="epochs (each one phase 'epoch')")
    p.add_argument("--steps", type=int, default=steps, help="training steps per epoch")
    p.add_argument("--seed", type=int, default=1, help="seed of every random choice")
    a = p.parse_args()
    if a.epochs < 1 or a.steps < 1:
        p.error("--epochs and --steps must be at least 1")
    return a


def deterministic(torch, seed):
    """One thread and fixed seeds: the same numbers under every allocator and on every run."""
    torch.set_num_threads(1)
    torch.manual_seed(seed)


def checksum(torch, model, extra=0.0):
    """The parameters' sum and sum of squares, rounded so that a different but equally valid
    summation order cannot change it, as one line."""
    with torch.no_grad():
        s = sum(float(p.double().sum()) for p in model.parameters())
        q = sum(float(p.double().pow(2).sum()) for p in model.parameters())
    print(f"checksum {s:.6e} {q:.6e} {extra:.6e}")
