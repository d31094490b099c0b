"""Helpers shared by the game commands: JSON output, number lists, prompts."""

from __future__ import annotations

import argparse

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
