"""What commands write, below the front ends: JSON on stdout, checked output paths, plots.

The games' own commands and the command line both use these, so that no game imports a
front end.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from diceopt.errors import InputError


def print_json(data: dict[str, Any]) -> None:
    """Print one JSON object on stdout."""
    json.dump(data, sys.stdout, allow_nan=False)
    sys.stdout.write("\n")


PLOT_FORMATS = ("png", "svg", "pdf")


def check_output_path(path: str, what: str = "the output") -> Path:
    """InputError before any work if no file could be written at ``path``; the path.

    Refused: an empty name, a directory, a missing directory, and a directory that cannot
    take a new file (read-only file system, no permission, a special file system such as
    /proc; tried by creating and removing a temporary file there), or an existing file
    that cannot be written. ``what`` names the file in the message (e.g. ``--plot``).
    """
    target = Path(path)
    if not path.strip() or target.is_dir():
        raise InputError(f"{what} needs a file name, got {path!r}")
    folder = target.resolve().parent
    if not folder.is_dir():
        raise InputError(f"cannot write {path}: no such directory")
    try:
        import tempfile  # (only when an output path is checked: advice does not load it)

        fd, probe = tempfile.mkstemp(prefix=".diceopt-", dir=folder)
    except OSError as exc:
        reason = exc.strerror or exc
        raise InputError(
            f"cannot write {path}: no file can be made in {folder} ({reason})"
        ) from None
    os.close(fd)
    os.unlink(probe)
    if target.exists() and not os.access(target, os.W_OK):
        raise InputError(f"cannot write {path}: permission denied")
    return target


def check_plot_path(path: str | None) -> None:
    """InputError before any work if a plot could not be written to ``path``.

    The format comes from the extension (png, svg or pdf); the file must be writable
    (:func:`check_output_path`). None means no plot.
    """
    if path is None:
        return
    if not path.strip() or Path(path).is_dir():
        raise InputError(f"--plot needs a file name such as scores.png, got {path!r}")
    ext = Path(path).suffix.lower().lstrip(".")
    if ext not in PLOT_FORMATS:
        raise InputError(
            f"cannot tell the plot format of {path!r}: end the name with "
            + ", ".join(f".{f}" for f in PLOT_FORMATS)
        )
    check_output_path(path, "--plot")


def write_plot(write: Callable[[], None], path: str) -> None:
    """Run ``write`` (which saves a figure to ``path``); OSError becomes one InputError line."""
    try:
        write()
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
