"""The ``diceopt`` command: the generic commands of every registered game, ``serve``,
``evaluate``, ``rules`` and ``warm``.

Games come from the registry (``diceopt.games.registry``); each gets ``solve``,
``advise``, ``play`` and ``simulate`` and its own extra commands (``diceopt.cli.game``).
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from diceopt import __version__
from diceopt.cli.common import HelpFormatter
from diceopt.collector import hold_for_start
from diceopt.errors import InputError, SolveError, one_line
from diceopt.interrupt import interruptible

# a value that starts with "-" but is a number: "-1", "-0.5", "-1e-3", "-1/6", "-1,2"
NEGATIVE_NUMBER = re.compile(r"^-(\d|\.\d)[\d.eE+\-/,]*$")
NUMBER = re.compile(r"^-?(\d|\.\d)[\d.eE+\-/,]*$")


class Parser(argparse.ArgumentParser):
    """argparse with one error line, ``diceopt: error: ...``, and exit status 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """As argparse, but a command (a parser without subcommands) refuses words it
        does not know itself, so that the message points to its own help (``diceopt
        zombie turn --help``), not the top level's."""
        parsed, extras = super().parse_known_args(args, namespace)
        leaf = not any(isinstance(a, argparse._SubParsersAction) for a in self._actions)
        if extras and leaf:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras

    def error(self, message: str) -> NoReturn:
        """Print one line naming the problem and where to get help, then exit 2."""
        self.exit(2, f"diceopt: error: {one_line(message)} (see '{self.prog} --help')\n")


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The argument parser with every game's subcommands, ``serve``, ``evaluate``,
    ``rules`` and ``warm``.

    ``argv``: the command line it is about to parse. When its first word is the id of a
    built-in game (then only that game is loaded, and of its commands only the one
    named next, if any), ``serve``, ``evaluate``, ``rules`` or ``warm``, only what parsing it needs
    is built: a command starts faster. Anything else (``--help``, a plug-in's id, a typo)
    gets the whole parser.
    """
    from diceopt.cli.game import register_game
    from diceopt.games.registry import builtin_game, games

    parser = Parser(
        prog="diceopt", description="Exact optimal play for dice games (Bellman equation)."
    )
    parser.add_argument("--version", action="version", version=f"diceopt {__version__}")
    sub = parser.add_subparsers(dest="game", metavar="GAME", required=True, parser_class=Parser)
    first = argv[0] if argv else None
    spec = builtin_game(first) if first else None
    if spec is not None:
        register_game(sub, spec, only=argv[1] if len(argv) > 1 else None)
        return parser
    if first not in ("serve", "evaluate", "rules", "warm"):
        for spec in games().values():
            register_game(sub, spec)
    from diceopt.cli import evaluate, rules, serve, warm  # (serve loads socket: not a game's)

    serve.register(sub)
    evaluate.register(sub)
    rules.register(sub)
    warm.register(sub)
    return parser


def join_negative_values(argv: Sequence[str]) -> list[str]:
    """``--opt -1e-3`` as ``--opt=-1e-3``, so that negative numbers reach the option.

    argparse reads a word such as ``-1e-3`` or ``-1/6`` as an unknown option; joined with
    ``=`` it is the option's value and gets the option's own validation message. Numbers
    that follow it join it too, separated by commas (``--values -1 2 3``).
    """
    out: list[str] = []
    joining = False
    for word in argv:
        prev = out[-1] if out else ""
        if NEGATIVE_NUMBER.match(word) and prev.startswith("--") and "=" not in prev:
            out[-1] = f"{prev}={word}"
            joining = True
        elif joining and NUMBER.match(word):
            out[-1] = f"{prev},{word}"
        else:
            out.append(word)
            joining = False
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (2 for bad input)."""
    from diceopt.cli.display import TerminalDisplay
    from diceopt.cli.streams import check_streams, drop_output, stdout_failed
    from diceopt.kernel_cache import compile_notices
    from diceopt.progress import notice, shown_on

    closed = check_streams()
    if closed is not None:
        return closed
    # numpy's OpenBLAS starts a thread per core as numpy loads (half the CPU of importing
    # numpy); no command does BLAS work worth threads, so one unless the user sets it
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # (numba's OpenMP threads sleep between parallel loops and numpy's large arrays take
    # small pages: both set as diceopt is imported)
    argv = join_negative_values(sys.argv[1:] if argv is None else argv)
    if argv and not argv[0].startswith("-"):
        argv[0] = argv[0].lower()  # game ids are case-insensitive
    try:
        parser = build_parser(argv)
        args = parser.parse_args(argv)
        # Ctrl-C never lost in a finalizer (numba's, llvmlite's); progress on stderr, and
        # on a terminal one line when a kernel compiles (seconds of silence otherwise)
        said = notice if sys.stderr.isatty() else None
        with interruptible(), shown_on(TerminalDisplay()), compile_notices(said):
            status = int(args.handler(args) or 0)
        sys.stdout.flush()  # a full or failing output is an error, not a lost answer
        return status
    except (InputError, SolveError) as exc:
        print(f"diceopt: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("diceopt: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `diceopt ... | head`
        drop_output()
        return 0
    except OSError as exc:
        if not stdout_failed(exc):
            raise
        drop_output()
        print(f"diceopt: error: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
        return 2


def run() -> int:
    """The ``diceopt`` command as a process: the collector held while it starts
    (:mod:`diceopt.collector`), :func:`main`, then the collector's objects frozen for the
    exit. The interpreter's final collections over numba's objects would otherwise take
    about 0.15 s of a 0.7 s command (measured on ``yatzy solve --force``); the process
    ends, so the memory goes back either way. In-process callers use :func:`main`, which
    leaves the collector as it was."""
    hold_for_start()
    status = main()
    gc.freeze()
    return status


if __name__ == "__main__":
    sys.exit(run())
