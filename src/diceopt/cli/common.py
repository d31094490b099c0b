"""Helpers shared by the game commands: JSON output, number lists, prompts."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from diceopt.errors import InputError
from diceopt.notation import parse_numbers


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


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--json``: print one JSON object instead of text."""
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def prompt(text: str) -> str:
    """Read one line from the user; EOFError ends an interactive session."""
    line = input(text)
    return line.strip()


def require_positive(value: int, what: str) -> int:
    """InputError unless value >= 1."""
    if value < 1:
        raise InputError(f"{what} must be at least 1, got {value}")
    return value
