"""Progress of long work, reported to whatever the front end supplies; games never draw it.

A game wraps long work in a :class:`Stage` (a context manager; ``update(done, total)``
matches the progress callbacks of the solvers: layers solved, graph nodes built) and says
what the user should know with :func:`notice` (e.g. a damaged table being rebuilt). Where
that goes is the front end's choice: it installs a :class:`Display` with :func:`shown_on`
(the command line draws a rich bar or one line a stage on stderr); with none installed,
stages and notices are silent.

``watching(callback)``: within the block, every Stage of this thread also reports
``callback(label, done, total)`` (at its start, then at each update). The callback may
raise to stop the work at that point (e.g. :class:`Cancelled`, when the client of a web
request has gone): long solves report between their layers, so they stop there.

``cancellable(check)``: within the block, :func:`checkpoint` calls ``check()``, which
raises to stop the work (e.g. :class:`Cancelled`). Long loops call :func:`checkpoint`
between two steps of a fraction of a second each (every chunk of
:func:`diceopt.interrupt.run_chunks`, every Stage report), so that work whose requester
has gone stops within about a chunk's time, not at the end of a layer.

``watching_parts(callback)``: within the block, :func:`part` in this thread calls
``callback(done, total)``: how far the current step of the work has got (a step: what a
progress report counts, e.g. one layer of a solve). :func:`diceopt.interrupt.run_chunks`
reports after every slice of a kernel's run, so a layer that takes a minute reports every
fraction of a second. The table store (:mod:`diceopt.tables`) refines a build's steps with
them; with no watcher, :func:`part` costs one attribute look-up.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType

Watcher = Callable[[str, int, "int | None"], None]
PartWatcher = Callable[[int, int], None]
_watchers = threading.local()


class Cancelled(Exception):
    """Work stopped at a progress report because whoever wanted it no longer does."""


@contextmanager
def watching(callback: Watcher) -> Iterator[None]:
    """Within the block, every :class:`Stage` of this thread also calls
    ``callback(label, done, total)`` (``total`` None: unknown); what it raises stops the
    work at that report. Blocks nest: the innermost callback is called."""
    before = getattr(_watchers, "callback", None)
    _watchers.callback = callback
    try:
        yield
    finally:
        _watchers.callback = before


@contextmanager
def cancellable(check: Callable[[], None]) -> Iterator[None]:
    """Within the block, :func:`checkpoint` in this thread calls ``check()``, which raises
    to stop the work there (e.g. :class:`Cancelled`). Blocks nest: the innermost check is
    called."""
    before = getattr(_watchers, "check", None)
    _watchers.check = check
    try:
        yield
    finally:
        _watchers.check = before


def checkpoint() -> None:
    """A point where the work of this thread may be stopped: calls the check of the
    innermost :func:`cancellable` block, if any (cheap: one attribute look-up without)."""
    check = getattr(_watchers, "check", None)
    if check is not None:
        check()


@contextmanager
def watching_parts(callback: PartWatcher) -> Iterator[None]:
    """Within the block, :func:`part` in this thread calls ``callback(done, total)``: units
    of the current step of the work done so far. Blocks nest: the innermost callback is
    called."""
    before = getattr(_watchers, "part", None)
    _watchers.part = callback
    try:
        yield
    finally:
        _watchers.part = before


def part(done: int, total: int) -> None:
    """``done`` of the ``total`` units of the current step are finished (e.g. states of a
    layer solved): to the callback of the innermost :func:`watching_parts` block, if any."""
    callback = getattr(_watchers, "part", None)
    if callback is not None:
        callback(done, total)


def _report(label: str, done: int, total: int | None) -> None:
    checkpoint()
    callback = getattr(_watchers, "callback", None)
    if callback is not None:
        callback(label, done, total)


class Display:
    """Where stages and notices go; the front end subclasses it (this base shows nothing)."""

    def begin(self, stage: Stage) -> None:
        """``stage`` has started."""

    def advance(self, stage: Stage, done: int, total: int | None) -> None:
        """``done`` units of ``total`` (None: unknown) of ``stage`` are finished."""

    def end(self, stage: Stage, seconds: float, done: bool) -> None:
        """``stage`` is over after ``seconds``; ``done`` False: it failed or was stopped."""

    def notice(self, text: str) -> None:
        """One line the user should read (e.g. ``warning: ...``)."""


_display = Display()


@contextmanager
def shown_on(display: Display) -> Iterator[Display]:
    """Within the block, every stage and notice of the process goes to ``display``."""
    global _display
    before, _display = _display, display
    try:
        yield display
    finally:
        _display = before


def notice(text: str) -> None:
    """Tell the user ``text`` (one line) through the installed display."""
    _display.notice(text)


class Stage:
    """One stage of work (e.g. "solving Yatzy", ``unit`` "layers"), shown by the display."""

    def __init__(self, label: str, unit: str = "") -> None:
        self.label = label
        self.unit = unit
        self._display = _display
        self._t0 = 0.0
        self._failed = False

    def __enter__(self) -> Stage:
        self._t0 = time.perf_counter()
        _report(self.label, 0, None)
        self._display.begin(self)
        return self

    def fail(self) -> None:
        """The stage did not do its work (the caller has said why): it is not "done"."""
        self._failed = True

    def update(self, done: int, total: int | None = None) -> None:
        """``done`` units of ``total`` (None: unknown) finished so far."""
        _report(self.label, done, total)
        self._display.advance(self, done, total)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        seconds = time.perf_counter() - self._t0
        self._display.end(self, seconds, kind is None and not self._failed)
