"""Helpers shared by the game commands: JSON output, number lists, prompts."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from diceopt.errors import InputError
from diceopt.notation import parse_int, parse_numbers


def print_json(data: dict[str, Any]) -> None:
    """Print one JSON object on stdout."""
    json.dump(data, sys.stdout, allow_nan=False)
    sys.stdout.write("\n")


def number_list(text: str) -> list[float]:
    """argparse type: numbers separated by commas or spaces."""
    try:
        out = parse_numbers(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not out:
        raise argparse.ArgumentTypeError("expected at least one number")
    return out


def variant_name(text: str) -> str:
    """argparse type for ``--variant``: a name, not empty (an empty one is no variant at
    all, never read as the default)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            "needs a variant name (leave --variant out for the default)"
        )
    return text


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--json``: print one JSON object instead of text."""
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def prompt(text: str) -> str:
    """Read one line from the user; EOFError ends an interactive session (InputError when
    standard input is closed)."""
    from diceopt.cli.streams import check_stdin

    check_stdin("play")
    line = input(text)
    return line.strip()


MAX_GAMES = 10_000_000


def games_count(text: str) -> int:
    """argparse type for ``--games``: an integer from 1 to MAX_GAMES."""
    try:
        value = parse_int(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not 1 <= value <= MAX_GAMES:
        raise argparse.ArgumentTypeError(f"must be 1 to {MAX_GAMES:,}, got {value}")
    return value


def seed_value(text: str) -> int:
    """argparse type for ``--seed``: an integer >= 0."""
    try:
        value = parse_int(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def resolve_seed(seed: int | None) -> int:
    """The given seed, or a fresh one (printed by the caller so a run can be repeated)."""
    if seed is None:
        import numpy as np

        return int(np.random.SeedSequence().entropy % (1 << 63))
    return seed


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
