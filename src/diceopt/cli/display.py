"""The command line's progress display: a rich bar per stage on a terminal, else one line a
stage, and notices as they are, all on standard error (standard output keeps
only the answer, so ``--json`` stays one object)."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from diceopt.progress import Display, Stage


class TerminalDisplay(Display):
    """Stages and notices on ``stream`` (standard error, as it is when each is shown)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream
        self._bars: dict[int, tuple[Any, Any]] = {}  # id(stage) -> (rich Progress, task)

    @property
    def stream(self) -> TextIO:
        """Where the display writes."""
        return self._stream or sys.stderr

    def begin(self, stage: Stage) -> None:
        """A bar on a terminal, else ``LABEL ...``."""
        if not self.stream.isatty():
            print(f"{stage.label} ...", file=self.stream, flush=True)
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        bar = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            stage.unit,
            TimeElapsedColumn(),
            console=Console(file=self.stream),
            transient=False,
        )
        bar.start()
        self._bars[id(stage)] = (bar, bar.add_task(stage.label, total=None))

    def advance(self, stage: Stage, done: int, total: int | None) -> None:
        """Moves the stage's bar (lines show only the start and the end)."""
        if id(stage) in self._bars:
            bar, task = self._bars[id(stage)]
            bar.update(task, completed=done, total=total)

    def end(self, stage: Stage, seconds: float, done: bool) -> None:
        """Stops the bar, or ``LABEL: done in S s`` when the stage did its work."""
        if id(stage) in self._bars:
            bar, _ = self._bars.pop(id(stage))
            bar.stop()
        elif done:
            print(f"{stage.label}: done in {seconds:.1f} s", file=self.stream, flush=True)

    def notice(self, text: str) -> None:
        """The line as it is."""
        print(text, file=self.stream, flush=True)
