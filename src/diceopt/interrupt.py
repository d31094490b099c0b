"""Ctrl-C during long numba work: solves run in short chunks called from Python.

A numba kernel holds the interpreter until it returns, so Ctrl-C (SIGINT) is only seen
when the call ends: a layer solved in one call ignores it for minutes. The solvers
therefore call their kernels on consecutive slices of the work (:func:`run_chunks`),
each sized to take about :data:`CHUNK_SECONDS`, and Python raises KeyboardInterrupt
between two slices.

:func:`interruptible` replaces the SIGINT handler for a block: the handler raises
KeyboardInterrupt at once, except inside an object finalizer (``__del__``, e.g. llvmlite's
while numba compiles) or llvmlite's ctypes callbacks, where Python would print "Exception
ignored ..." and drop the interrupt; there it is only recorded, and raised at the next
chunk boundary (:func:`check`), when the block ends, or when SIGINT is sent again
:data:`RETRY_SECONDS` later (out of the finalizer by then: a cold numba compile that
takes seconds stops too).

A Ctrl-C that arrives while a numba kernel returns surfaces as SystemError ("returned a
result with an exception set") caused by the KeyboardInterrupt; :func:`interruptible`
raises it as the KeyboardInterrupt it is (:func:`interrupt_of`), so that every solve
stops the same way: ``diceopt: interrupted``, exit status 130.

Between two slices :func:`run_chunks` also calls :func:`diceopt.progress.checkpoint`: the
web server stops the work of a request whose client has gone, or that has run past its
time limit, there (within about a slice, :data:`CHUNK_SECONDS`); and it reports how far
its run has got (:func:`diceopt.progress.part`: items done of all), which the table store
shows as progress within a step of a build.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from diceopt.progress import checkpoint, part

CHUNK_SECONDS = 0.2  # aim of one chunk (an interrupt is seen within about that)
_GROWTH = 4.0  # most a chunk grows over the previous one (a slow first call: compile)

_pending: list[int] = []  # SIGINTs recorded inside a finalizer, not raised yet
_depth = 0  # nesting of interruptible() blocks that installed the handler


RETRY_SECONDS = 0.05  # a Ctrl-C recorded in a finalizer or callback is sent again after
_LLVMLITE = f"{os.sep}llvmlite{os.sep}"


def _in_finalizer(frame: FrameType | None) -> bool:
    """True inside ``__del__``, a ``weakref.finalize`` callback or llvmlite's code (its
    ctypes callbacks, while numba compiles), where an exception is printed as "Exception
    ignored" and dropped."""
    while frame is not None:
        code = frame.f_code
        if (
            code.co_name == "__del__"
            or (code.co_name == "__call__" and code.co_filename.endswith("weakref.py"))
            or _LLVMLITE in code.co_filename
        ):
            return True
        frame = frame.f_back
    return False


def _handler(signum: int, frame: FrameType | None) -> None:
    if _in_finalizer(frame):
        if not _pending:  # sent again shortly: raised then, out of the finalizer
            retry = threading.Timer(RETRY_SECONDS, _resend)
            retry.daemon = True
            retry.start()
        _pending.append(signum)
        return
    _pending.clear()
    raise KeyboardInterrupt


def _resend() -> None:
    """SIGINT to the main thread again if a recorded Ctrl-C is still waiting (e.g. numba
    compiling for seconds, with no chunk boundary to see it)."""
    if _pending and _depth > 0:
        main = threading.main_thread().ident
        if main is not None:
            _pending.clear()
            signal.pthread_kill(main, signal.SIGINT)


def interrupt_of(exc: BaseException) -> bool:
    """True when ``exc`` is a Ctrl-C: KeyboardInterrupt, or the SystemError a compiled
    (numba) call raises when the interrupt arrived as it returned."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        if not isinstance(cause, SystemError):
            return False
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def check() -> None:
    """Raise KeyboardInterrupt if a Ctrl-C was recorded and not raised yet (in the main
    thread only: the one Ctrl-C is meant for)."""
    if _pending and threading.current_thread() is threading.main_thread():
        _pending.clear()
        raise KeyboardInterrupt


@contextmanager
def interruptible() -> Iterator[None]:
    """Within the block Ctrl-C raises KeyboardInterrupt, never inside a finalizer (see the
    module). Nested blocks share the outer handler; outside the main thread, or when
    SIGINT has a handler other than Python's default, the block changes nothing."""
    global _depth
    own = threading.current_thread() is threading.main_thread() and (
        _depth > 0 or signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )
    if not own:
        with _as_interrupt():
            yield
        return
    old = signal.signal(signal.SIGINT, _handler) if _depth == 0 else None
    _depth += 1
    try:
        with _as_interrupt():
            yield
        check()
    finally:
        _depth -= 1
        if _depth == 0:
            signal.signal(signal.SIGINT, old)
            _pending.clear()


@contextmanager
def _as_interrupt() -> Iterator[None]:
    """Within the block, a SystemError that is a Ctrl-C (:func:`interrupt_of`) is raised
    as KeyboardInterrupt."""
    try:
        yield
    except SystemError as exc:
        if interrupt_of(exc):
            raise KeyboardInterrupt from None
        raise


class Pace:
    """Seconds per item of the last chunk run with it: a solve passes one to every layer,
    so that each layer starts with chunks of about the right size."""

    def __init__(self) -> None:
        self.per_item = 0.0


def run_chunks(
    solve: Callable[[int, int], bool | None],
    n: int,
    *,
    align: int = 1,
    seconds: float | None = None,
    pace: Pace | None = None,
) -> None:
    """Call ``solve(lo, hi)`` on consecutive slices covering ``0 .. n``, Ctrl-C checked
    between slices; a call that returns True ends the work early (e.g. converged). After
    each slice, ``diceopt.progress.part(hi, n)``: how far the run has got.

    Slice lengths are multiples of ``align`` (the last one takes the rest, up to half a
    slice more), sized so that a slice takes about ``seconds`` (default
    :data:`CHUNK_SECONDS`): the first from ``pace``
    (one ``align`` without it), the next ones from the time of the previous one (growing
    at most :data:`_GROWTH` times a slice), so the calls add no measurable time.
    """
    if n <= 0:
        return
    align = max(1, int(align))
    seconds = CHUNK_SECONDS if seconds is None else seconds
    pace = pace or Pace()
    size = _size(seconds, pace.per_item, align, n)
    lo = 0
    with interruptible():
        while lo < n:
            hi = lo + size
            if n - hi < size // 2:  # no short slice at the end: one call more is not free
                hi = n
            t0 = time.perf_counter()
            stop = solve(lo, hi)
            took = time.perf_counter() - t0
            check()
            checkpoint()
            part(hi, n)
            if stop:
                return
            per_item = took / (hi - lo)
            if hi - lo >= align:  # a short last slice says little
                pace.per_item = per_item
            lo = hi
            size = min(_size(seconds, per_item, align, n), int(size * _GROWTH) // align * align)
            size = max(align, size)


def _size(seconds: float, per_item: float, align: int, n: int) -> int:
    """Items (a multiple of ``align``, at least one ``align``) that take about ``seconds``."""
    if per_item <= 0:
        return align
    want = min(float(n), seconds / per_item)
    return max(align, int(want) // align * align)
