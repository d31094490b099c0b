"""The exit status of a command line run in-process, whether the command returned it or
the option parser exited with it (a value refused as the options are read)."""

from __future__ import annotations

from collections.abc import Sequence

from diceopt.cli import main


def exit_status(argv: Sequence[str]) -> int:
    """``main(argv)``'s status, or the code of the SystemExit its parser raised."""
    try:
        return main(list(argv))
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 1
