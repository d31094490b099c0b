"""Parsers of the options that the command line and the games' own commands share
(argparse types: they raise ``argparse.ArgumentTypeError`` with one line)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from diceopt.errors import InputError
from diceopt.notation import parse_int

MAX_GAMES = 10_000_000
MAX_SEED = 2**63 - 1  # seeds reach numba kernels as int64


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
    """argparse type for ``--seed``: an integer from 0 to MAX_SEED."""
    try:
        value = parse_int(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    if value > MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_SEED:,} (2**63 - 1), got {value}")
    return value


def int_in(low: int, high: int) -> Callable[[str], int]:
    """argparse type: a whole number from ``low`` to ``high`` (one line otherwise)."""

    def parse(text: str) -> int:
        try:
            value = parse_int(text)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low:,} to {high:,}, got {value}")
        return value

    parse.__name__ = f"int_{low}_{high}"
    return parse
