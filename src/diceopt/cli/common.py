"""Helpers shared by the game commands: JSON output, number lists, prompts."""

from __future__ import annotations

import argparse
import os
import sys

from diceopt.errors import InputError
from diceopt.notation import parse_numbers
from diceopt.options import MAX_GAMES as MAX_GAMES
from diceopt.options import games_count as games_count
from diceopt.options import seed_value as seed_value
from diceopt.output import PLOT_FORMATS as PLOT_FORMATS
from diceopt.output import check_output_path as check_output_path
from diceopt.output import check_plot_path as check_plot_path
from diceopt.output import print_json as print_json
from diceopt.output import write_plot as write_plot


def help_width() -> int:
    """Columns (characters) for help text, as argparse measures them by default: ``$COLUMNS``
    or the terminal's width (80 when neither is known), less 2. Measured here without
    ``shutil``, which argparse would import for it (and with it bz2 and lzma): start-up."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 80
    return max(columns, 12) - 2


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help layout at :func:`help_width`."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24) -> None:
        super().__init__(prog, indent_increment, max_help_position, help_width())


class RawDescriptionHelpFormatter(HelpFormatter, argparse.RawDescriptionHelpFormatter):
    """As :class:`HelpFormatter`, with descriptions printed as written (line breaks kept)."""


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


def resolve_seed(seed: int | None) -> int:
    """The given seed, or a fresh one (printed by the caller so a run can be repeated)."""
    if seed is None:
        import numpy as np

        entropy = np.random.SeedSequence().entropy
        assert isinstance(entropy, int)  # drawn from the OS: one int
        return int(entropy % (1 << 63))
    return seed
