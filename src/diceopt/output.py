"""What commands write, below the front ends: JSON on stdout, checked output paths, plots.

The games' own commands and the command line both use these, so that no game imports a
front end.
"""

from __future__ import annotations

import json
import os
import stat
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
    if _special(path):  # a device, a FIFO, /dev/stdout: written in place (write_file)
        if not os.access(path, os.W_OK):
            raise InputError(f"cannot write {path}: permission denied")
        return target
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


def _special(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` (its symlinks followed) is something other than a regular file
    or a directory: a device, a FIFO, a socket, a terminal, /dev/stdout."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # missing (or a dangling symlink): a new regular file
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def write_file(path: str, write: Callable[[str], object], what: str = "") -> None:
    """:func:`replace_file`, an OSError (no space, no permission, a broken pipe) as one
    InputError line: "cannot write PATH (what): reason"."""
    where = f" ({what})" if what else ""
    try:
        replace_file(path, write)
    except OSError as exc:
        raise InputError(f"cannot write {path}{where}: {exc.strerror or exc}") from None


def replace_file(path: str, write: Callable[[str], object]) -> None:
    """Write an output file at ``path`` with ``write(name)``, which writes the whole file
    at ``name``: the one way every command writes a file the user named.

    A regular file (or a new one) is written atomically: ``write`` fills a temporary file
    beside it (same suffix, so a plot's format is kept), which is then renamed over it
    (with the old file's permissions, else as ``open`` would create it). A symlink is
    written through: its target is the file replaced, the link stays. Anything else (a
    device such as /dev/full or /dev/null, a FIFO, /dev/stdout) is written in place and
    never renamed over. OSError when the write fails; no temporary file is left behind.
    """
    import tempfile

    if _special(path):
        write(path)
        return
    target = Path(os.path.realpath(path))  # through symlinks: the file they name
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=target.suffix or ".tmp", dir=target.parent
    )
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, mode)
        if _special(target):  # became a device or FIFO meanwhile: never renamed over
            raise OSError(f"{path} is not a regular file")
        os.replace(tmp, target)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


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


def write_plot(write: Callable[[str], object], path: str) -> None:
    """Save a figure to ``path`` with ``write(name)`` (:func:`write_file`: atomic for a
    regular file, in place for a device); OSError becomes one InputError line."""
    write_file(path, write)
