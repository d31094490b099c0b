"""Progress of long work on stderr: a rich progress bar on a terminal, else one line a stage.

Use as a context manager; ``update(done, total)`` matches the progress callbacks of the
solvers (layers solved, graph nodes built). Nothing is drawn on stdout, so ``--json``
output stays one object.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import Any, TextIO


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
