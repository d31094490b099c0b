"""``diceopt warm``: compile every kernel ahead, so that no command compiles on first use."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from diceopt.cli.common import add_json_flag, print_json


def process_count(text: str) -> int:
    """``--processes``: a whole number from 1 to the most allowed."""
    from diceopt.compile_ahead import MAX_PROCESSES

    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= n <= MAX_PROCESSES:
        raise argparse.ArgumentTypeError(f"use 1 to {MAX_PROCESSES} processes, got {n}")
    return n


def register(subparsers: Any) -> None:
    """Add ``warm [--processes N] [--game ID ...] [--low-priority] [--json]``."""
    parser = subparsers.add_parser(
        "warm",
        help="compile every kernel ahead (numba's cache), so no command compiles on first use",
        description=(
            "Run every game's documented commands on small rules, in child processes (one "
            "per core), so that numba's cache holds every kernel they use: a later command "
            "loads them in hundredths of a second instead of compiling them for seconds. "
            "Nothing is stored but the compiled kernels."
        ),
    )
    parser.add_argument(
        "--processes", type=process_count, help="child processes at once (default: the cores)"
    )
    parser.add_argument(
        "--game", action="append", metavar="ID", help="only this game (repeatable; default all)"
    )
    parser.add_argument(
        "--low-priority",
        action="store_true",
        help="run at the lowest CPU priority (nice 19), so that other work goes first",
    )
    add_json_flag(parser)
    parser.set_defaults(handler=cmd_warm)


def cmd_warm(args: argparse.Namespace) -> int:
    """Compile ahead with progress; 1 if a job failed (each named with its error)."""
    from diceopt.compile_ahead import compile_ahead
    from diceopt.progress import Stage

    if args.low_priority:
        os.nice(19 - os.nice(0))  # the child processes inherit it

    with Stage("compiling every kernel ahead", "jobs") as stage:
        report = compile_ahead(args.processes, args.game, progress=stage.update)
        if report.failed:
            stage.fail()
    if args.json:
        print_json(
            {
                "seconds": round(report.seconds, 2),
                "processes": report.processes,
                "jobs": report.jobs,
                "failed": report.failed,
            }
        )
    else:
        print(
            f"compiled the kernels of {len(report.jobs)} job{'s' * (len(report.jobs) != 1)} "
            f"in {report.seconds:.1f} s "
            f"({report.processes} processes at once)"
        )
    for name, error in report.failed.items():
        print(f"diceopt warm: {name}: {error}", file=sys.stderr)
    return 1 if report.failed else 0
