"""Progress of long work on stderr: a rich progress bar on a terminal, else one line a stage.

Use as a context manager; ``update(done, total)`` matches the progress callbacks of the
solvers (layers solved, graph nodes built). Nothing is drawn on stdout, so ``--json``
output stays one object.

``watching(callback)``: within the block, every Stage of this thread also reports
``callback(label, done, total)`` (at its start, then at each update). The callback may
raise to stop the work at that point (e.g. :class:`Cancelled`, when the client of a web
request has gone): long solves report between their layers, so they stop there.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any, TextIO

Watcher = Callable[[str, int, "int | None"], None]
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


def _report(label: str, done: int, total: int | None) -> None:
    callback = getattr(_watchers, "callback", None)
    if callback is not None:
        callback(label, done, total)


class Stage:
    """One stage of work (e.g. "solving Yatzy"), reported on ``stream`` (stderr)."""

    def __init__(self, label: str, unit: str = "", stream: TextIO | None = None) -> None:
        self.label = label
        self.unit = unit
        self.stream = stream or sys.stderr
        self._bar: Any = None
        self._task: Any = None
        self._t0 = 0.0
        self._failed = False

    def __enter__(self) -> Stage:
        self._t0 = time.perf_counter()
        _report(self.label, 0, None)
        if self.stream.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

            self._bar = Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                self.unit,
                TimeElapsedColumn(),
                console=Console(file=self.stream),
                transient=False,
            )
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=None)
        else:
            print(f"{self.label} ...", file=self.stream, flush=True)
        return self

    def fail(self) -> None:
        """The stage did not do its work (the caller has said why): no "done" line."""
        self._failed = True

    def update(self, done: int, total: int | None = None) -> None:
        """``done`` units of ``total`` (None: unknown) finished so far."""
        _report(self.label, done, total)
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=total)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        seconds = time.perf_counter() - self._t0
        if self._bar is not None:
            self._bar.stop()
        elif kind is None and not self._failed:
            print(f"{self.label}: done in {seconds:.1f} s", file=self.stream, flush=True)
