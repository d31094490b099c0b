"""``python -m diceopt.cli.sequence '[[...], ...]'``: several commands (a JSON list of
argv lists) run in order in one process, as the warm-up's child processes run them
(:mod:`diceopt.compile_ahead`): the kernels one command compiles serve the next."""

from __future__ import annotations

import json
import sys

from diceopt.compile_ahead import FAILED


def run_sequence(commands: list[list[str]]) -> int:
    """Run each command through :func:`diceopt.cli.main`; the first failing command's
    status (after a line naming it on stderr), else 0."""
    from diceopt.cli import main

    for argv in commands:
        status = main(argv)
        if status:
            print(f"{FAILED}{' '.join(argv)} (exit status {status})", file=sys.stderr)
            return status
    return 0


if __name__ == "__main__":
    raise SystemExit(run_sequence(json.loads(sys.argv[1])))
