"""Parsers of the options that the command line and the games' own commands share
(argparse types: they raise ``argparse.ArgumentTypeError`` with one line)."""

from __future__ import annotations

import argparse

from diceopt.errors import InputError
from diceopt.notation import parse_int

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
