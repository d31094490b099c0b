"""Python's cyclic garbage collector held back while a command's process starts.

Role: the ``diceopt`` process (:func:`diceopt.cli.run`, not an in-process caller of the
command line) holds the collector from its start (:func:`hold_for_start`). A command
that runs kernels imports numpy and numba, installs numba's typing and lowering
registries and loads its cached kernels: objects by the hundred thousand, kept to the
exit, and next to no cyclic garbage. With the collector on, ``yatzy solve --force`` ran
about 260 collections as it started, two of them full ones over every object (about 15
and 55 ms): 0.08-0.11 s of collecting in a 0.65 s command.

The collector comes back (:func:`resume`) at the first of:

- numba starting a compile (its compiler leaves cyclic garbage by the megabyte; the
  compile listener of :mod:`diceopt.kernel_cache` calls it);
- ``HOLD_SECONDS`` after the start: a command that runs longer (the web server, a table
  build) collects as usual from then on.

Everything made until then is frozen out of the collector's reach (:func:`gc.freeze`:
never examined again, freed with the process), so the start-up's objects cost no later
full collection either. A child forked while the collector is held (no timer there) gets
it back at once.
"""

from __future__ import annotations

import gc
import os
import threading

HOLD_SECONDS = 3.0  # the longest the collector is held (seconds from the process start)

_held = False
_lock = threading.Lock()


def hold_for_start(seconds: float = HOLD_SECONDS) -> threading.Timer | None:
    """Pause the collector until :func:`resume` or for ``seconds`` at most (a daemon
    timer, returned); None, and nothing changed, when it is already paused or held."""
    global _held
    with _lock:
        if _held or not gc.isenabled():
            return None
        gc.disable()
        _held = True
    timer = threading.Timer(seconds, resume)
    timer.daemon = True
    timer.start()
    return timer


def resume() -> None:
    """End the hold, if any: the objects made so far frozen, the collector on again.
    Safe from any thread, and more than once."""
    global _held
    with _lock:
        if not _held:
            return
        _held = False
        gc.freeze()
        gc.enable()


def _after_fork_in_child() -> None:
    """A forked child has no timer, and a lock another thread held at the fork stays
    held there: a fresh lock, then :func:`resume`."""
    global _lock
    _lock = threading.Lock()
    resume()


os.register_at_fork(after_in_child=_after_fork_in_child)


def held() -> bool:
    """Whether the collector is held by :func:`hold_for_start` now."""
    return _held
