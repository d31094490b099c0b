"""The ``diceopt`` command: one subcommand per game, each registered by its own module.

Each module in this package exposes ``register(subparsers)``, which adds its parser and
sets ``handler`` to a function taking the parsed arguments. Heavy imports stay inside
the handlers so that ``diceopt --help`` is quick.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from diceopt.errors import InputError, SolveError

COMMAND_MODULES = ("stick", "yatzy", "shutbox", "pig", "serve")


class Parser(argparse.ArgumentParser):
    """argparse with one error line, ``diceopt: error: ...``, and exit status 2."""

    def error(self, message: str) -> NoReturn:
        """Print one line naming the problem and where to get help, then exit 2."""
        self.exit(2, f"diceopt: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every game's subcommands."""
    parser = Parser(
        prog="diceopt", description="Exact optimal play for dice games (Bellman equation)."
    )
    sub = parser.add_subparsers(dest="game", metavar="GAME", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"diceopt.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (2 for bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except (InputError, SolveError) as exc:
        print(f"diceopt: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("diceopt: interrupted", file=sys.stderr)
        return 130
    except EOFError:
        print("", file=sys.stderr)
        return 0
    except BrokenPipeError:  # e.g. `diceopt ... | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
