"""Shared by the benchmarks: wall and CPU seconds of a module's kernels, call by call.

Not a benchmark of its own (run directly, it does nothing). :func:`timed_calls` wraps
module-level functions that Python code calls (a numba kernel's callers inside numba
are compiled against the original and are not timed); :class:`TimedGenerator` times a
numpy Generator's ``integers`` (the dice of the simulation).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any


def _timed(fn: Callable[..., Any], acc: list[float]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        w, c = time.perf_counter(), time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            acc[0] += time.perf_counter() - w
            acc[1] += time.process_time() - c
            acc[2] += 1

    return call


@contextlib.contextmanager
def timed_calls(module: ModuleType, names: list[str]) -> Iterator[dict[str, list[float]]]:
    """Within the block, ``module.NAME`` for each name is timed: yields ``{name: [wall
    seconds, CPU seconds (the whole process: every thread), calls]}``."""
    acc = {name: [0.0, 0.0, 0] for name in names}
    saved = {name: getattr(module, name) for name in names}
    for name in names:
        setattr(module, name, _timed(saved[name], acc[name]))
    try:
        yield acc
    finally:
        for name, fn in saved.items():
            setattr(module, name, fn)


class TimedGenerator:
    """A numpy Generator whose ``integers`` calls are timed (``acc``: wall, CPU, calls)."""

    def __init__(self, rng: Any) -> None:
        self.acc = [0.0, 0.0, 0]
        self.integers = _timed(rng.integers, self.acc)


def split_of(acc: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """The accumulated times as JSON: ``{name: {"seconds", "core_seconds", "calls"}}``."""
    return {k: {"seconds": v[0], "core_seconds": v[1], "calls": int(v[2])} for k, v in acc.items()}


if __name__ == "__main__":
    pass
