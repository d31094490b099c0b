"""Serial numba kernels on several threads: one call per share, from a pool of Python threads.

A numba function compiled with ``parallel=True`` costs about four times the compile of
the same loop compiled serially: the parallel pipeline and the outlined loop body each
optimize the whole call tree again (measured on a cold cache: the distribution's layer
kernel 12.8 s against 3.0 s, the solver's 5.1 s against 1.5 s). Kernels whose speed
is the same either way (the solver, the distribution's outcomes and its combining, the
batch API, the simulation's policies: 5.8 s of cold compile instead of 11.9 s) are
therefore serial ``nogil`` shares (as are the race solver's pairs, Zombie Dice's turn
solves and Pig's roll values, which run faster so), ``share(t)`` doing the t-th of ``n``
parts of the work, and :func:`run_shares` runs them on the calling thread and a pool of threads,
each taking the next share; numba releases the GIL inside each call. The split is the
caller's, so results do not depend on which thread runs which share.

Kernels that run faster as a parallel loop keep ``prange``: the games of a table played
in numba. There the outlined loop body's array arguments do not alias, and code
inlined into it is optimized knowing so. The simulation's turns run as fast either way
on 2 threads (0.21 s for 1M games), a duel's games 4-5% slower as shares (they took
twice as long until the win-seeking turn stopped reading the rules' arrays through
calls in its inner loop), the target layer faster (the Scandinavian rows 33.4-35.4 s
against 37.2-38.2 s, alternating in one process): all three are shares, for 5-6 s less
of cold compile each.

:func:`in_background` runs one piece of numpy work (which releases the GIL) on a pool
thread beside the caller's serial step: the simulation draws a turn's dice so.

:func:`run_wavefront` runs a grid of such calls where each cell waits for its two
neighbours toward the far corner (a race's cells: a player's chance at (a, b) reads the
cells with more points): the threads take the cells as they become ready.

The number of threads is numba's (:func:`numba.get_num_threads`: ``NUMBA_NUM_THREADS``,
or ``numba.set_num_threads`` in the calling thread). A Ctrl-C (or an error) stops the
shares not yet taken; those running finish their call, each a part of a short chunk of
work (:mod:`diceopt.interrupt`).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

import numba

T = TypeVar("T")

_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def threads() -> int:
    """Threads the kernels use in the calling thread (numba's setting, at least 1)."""
    return max(1, numba.get_num_threads())


def _executor() -> ThreadPoolExecutor:
    """The shared pool, as many workers as numba may use (created on first use)."""
    global _pool
    with _lock:
        if _pool is None:
            workers = max(1, numba.config.NUMBA_NUM_THREADS - 1)  # type: ignore[attr-defined]
            _pool = ThreadPoolExecutor(workers, thread_name_prefix="diceopt-share")
        return _pool


def run_shares(share: Callable[[int], object], n: int) -> None:
    """``share(t)`` for t = 0 .. n - 1 on :func:`threads` threads at most (this one and
    the pool's), each thread taking the next share not yet taken. Returns when all are
    done; the first exception is raised."""
    workers = min(n, threads())
    if workers <= 1:
        for t in range(n):
            share(t)
        return
    taken = itertools.count()  # next() of a count is atomic under the GIL
    stop = threading.Event()

    def take() -> None:
        for t in taken:
            if t >= n or stop.is_set():
                return
            try:
                share(t)
            except BaseException:
                stop.set()
                raise

    futures: list[Future[None]] = [_executor().submit(take) for _ in range(workers - 1)]
    try:
        take()
        for future in futures:
            future.result()
    except BaseException:  # Ctrl-C while waiting, or a share's error: no new shares
        stop.set()
        raise


def run_wavefront(rows: int, cols: int, cell: Callable[[int, int], object]) -> None:
    """``cell(a, b)`` for every 0 <= a < rows, 0 <= b < cols, on :func:`threads` threads,
    each once ``cell(a + 1, b)`` and ``cell(a, b + 1)`` are done (where they exist):
    from the far corner (rows - 1, cols - 1) to (0, 0), a thread taking the next ready
    cell as it finishes one. The first exception (a Ctrl-C included) stops the cells not
    yet taken and is raised."""
    if rows <= 0 or cols <= 0:
        return
    waiting = [[(a + 1 < rows) + (b + 1 < cols) for b in range(cols)] for a in range(rows)]
    ready = [(rows - 1, cols - 1)]
    left = [rows * cols]  # cells not done
    change = threading.Condition()
    failed = threading.Event()

    def work(_: int) -> None:
        try:
            while True:
                with change:
                    while not ready and left[0] and not failed.is_set():
                        change.wait()
                    if failed.is_set() or not left[0]:
                        return
                    a, b = ready.pop()
                cell(a, b)
                with change:
                    left[0] -= 1
                    for na, nb in ((a - 1, b), (a, b - 1)):
                        if na >= 0 and nb >= 0:
                            waiting[na][nb] -= 1
                            if not waiting[na][nb]:
                                ready.append((na, nb))
                    change.notify_all()
        except BaseException:
            failed.set()
            with change:
                change.notify_all()
            raise

    run_shares(work, min(threads(), rows * cols))


def in_background(work: Callable[[], T]) -> Future[T]:
    """``work()`` on a thread of the pool while the caller goes on (its result or error
    through the future); done at once, on this thread, when the kernels have one thread
    (:func:`threads`). For numpy work that releases the GIL beside a serial step."""
    if threads() <= 1:
        done: Future[T] = Future()
        try:
            done.set_result(work())
        except Exception as exc:  # the future carries it, as the pool's futures do
            done.set_exception(exc)
        return done
    return _executor().submit(work)
