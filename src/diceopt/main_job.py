"""``make run``: every registered game's section, in registry order, then the tables the
web advisor reads and a rehearsal of the page's start (:mod:`diceopt.web.rehearse`, in a
child process: numba's cache then holds the server's kernels), so that ``diceopt serve``
plays the computer at once."""

from __future__ import annotations

import subprocess
import sys
import time

from diceopt.cli.display import TerminalDisplay
from diceopt.games.registry import games
from diceopt.progress import shown_on


def main() -> None:
    """Print each game's ``main_job`` section (progress on stderr), build (or load) every
    table the page reads for each game's default rules (as ``serve --prepare`` does),
    then say how to start the web advisor."""
    from diceopt.cli.serve import prepare_tables

    with shown_on(TerminalDisplay()):
        for i, spec in enumerate(games().values()):
            if i:
                print()
            spec.main_job(print)
        print()
        print("== The web advisor's tables ==")
        t0 = time.perf_counter()
        missing = prepare_tables(False)
    seconds = time.perf_counter() - t0
    state = "ready" if not missing else f"ready but {missing} (built on first use instead)"
    print(f"every table the page reads: {state} in {seconds:.1f} s")
    if not missing:
        print(rehearse_page())
    print()
    print("Web advisor: `.venv/bin/diceopt serve` then open http://127.0.0.1:8000/")
    print("  (`.venv/bin/diceopt warm` compiles every other command's kernels ahead)")


def rehearse_page() -> str:
    """Run :mod:`diceopt.web.rehearse` in a child process (it loads the tables from their
    files, as the server does); its one line, or one line saying that it failed."""
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "diceopt.web.rehearse"],
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    if done.returncode == 0 and lines:
        return lines[-1]
    said = [line for line in done.stderr.splitlines() if line.strip()] or ["no message"]
    seconds = time.perf_counter() - t0
    return (
        f"the page's start could not be rehearsed ({said[-1]}; {seconds:.1f} s): the "
        "server compiles its kernels on first use instead"
    )


if __name__ == "__main__":
    main()
