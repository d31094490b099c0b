"""Benchmark: how long the command takes to start, as whole processes.

Times (median of ``--runs`` runs, each a fresh subprocess, after one untimed run that
writes the bytecode caches) ``diceopt --help``, every ``diceopt GAME --help``, ``python
-c "import diceopt"`` and ``diceopt yatzy advise POSITION`` with a stored Scandinavian
table (solved once into a temporary cache directory first, unless ``--cache-dir`` names
one that holds it); for scale also ``python -c pass`` and ``python -c "import numpy"``,
the floor of any command that computes, ``python -c "import numpy, numba"``, the floor
of any that runs a kernel, and the fixed part of Yatzy's commands that compute (``yatzy
solve`` of the stored table, ``yatzy simulate --games 1``). Targets: 0.15 s for a help,
0.1 s for the advice (start-up, table load and checks, the advice). Then every other
game's ``diceopt GAME advise EXAMPLE`` (its position example), the game's default table
stored by the untimed first run: target 1 s. Prints one JSON object per line: wall
seconds (median, min), the child's CPU seconds (median) and pass/fail against the target
(the median wall time); then a summary line with the load average. On a shared machine
compare with the numpy row of the same run.

    .venv/bin/python benchmarks/startup.py [--runs 15] [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HELP_TARGET = 0.15
ADVISE_TARGET = 0.10
GAME_ADVISE_TARGET = 1.0  # another game's advice, a whole process: no wait a user can feel
POSITION = "dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 3"


def emit(**data: object) -> None:
    print(json.dumps(data), flush=True)


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], env: dict[str, str], runs: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of ``runs`` runs of ``cmd`` (one untimed run first)."""
    subprocess.run(cmd, env=env, capture_output=True, check=True)
    walls, cpus = [], []
    for _ in range(runs):
        c0 = child_cpu()
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True)
        walls.append(time.perf_counter() - t0)
        cpus.append(child_cpu() - c0)
    return walls, cpus


def report(name: str, cmd: list[str], env: dict[str, str], runs: int, target: float | None):
    walls, cpus = timed(cmd, env, runs)
    median = statistics.median(walls)
    row = {
        "benchmark": "startup",
        "command": name,
        "seconds_median": round(median, 4),
        "seconds_min": round(min(walls), 4),
        "cpu_seconds_median": round(statistics.median(cpus), 4),
        "runs": runs,
    }
    if target is not None:
        row |= {"target_seconds": target, "pass": median < target}
    emit(**row)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each command")
    parser.add_argument("--cache-dir", help="a cache directory holding the Scandinavian table")
    args = parser.parse_args()

    import diceopt
    from diceopt.games.registry import games

    src = str(Path(diceopt.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode
    py = [sys.executable]
    cli = [*py, "-m", "diceopt"]
    rows = [report("python -c pass", [*py, "-c", "pass"], env, args.runs, None)]
    # the floor of any command that computes with numpy (advice from a stored table reads
    # its rows without it: games.yatzy.plain)
    rows.append(report("import numpy", [*py, "-c", "import numpy"], env, args.runs, None))
    rows.append(report("import diceopt", [*py, "-c", "import diceopt"], env, args.runs, None))
    # the floor of any command that runs a kernel (then numba's registries and the cached
    # kernels load: "yatzy simulate --games 1" below)
    numba_floor = [*py, "-c", "import numpy, numba"]
    rows.append(report("import numpy, numba", numba_floor, env, args.runs, None))
    rows.append(report("diceopt --help", [*cli, "--help"], env, args.runs, HELP_TARGET))
    for game in games():
        rows.append(
            report(f"diceopt {game} --help", [*cli, game, "--help"], env, args.runs, HELP_TARGET)
        )

    with tempfile.TemporaryDirectory() as tmp:
        cache = args.cache_dir or tmp
        env["DICEOPT_CACHE"] = cache
        if args.cache_dir is None:  # solve the table once (not timed)
            subprocess.run([*cli, "yatzy", "solve"], env=env, capture_output=True, check=True)
        advise = [*cli, "yatzy", "advise", POSITION]
        rows.append(report("diceopt yatzy advise POSITION", advise, env, args.runs, ADVISE_TARGET))
        # the fixed part of the Yatzy commands that compute: the stored table without
        # numba, then one game (numba, its registries, the simulation's cached kernels)
        solve = [*cli, "yatzy", "solve"]
        rows.append(report("diceopt yatzy solve (stored)", solve, env, args.runs, None))
        one_game = [*cli, "yatzy", "simulate", "--games", "1"]
        rows.append(report("diceopt yatzy simulate --games 1", one_game, env, args.runs, None))
        # every other game's advice on its position example, its default table stored by
        # the untimed first run (as make run's sections store them)
        for game, spec in games().items():
            if game == "yatzy" or not spec.position_example:
                continue
            cmd = [*cli, game, "advise", spec.position_example]
            name = f"diceopt {game} advise EXAMPLE"
            rows.append(report(name, cmd, env, args.runs, GAME_ADVISE_TARGET))

    checked = [r for r in rows if "pass" in r]
    emit(
        benchmark="startup_summary",
        passed=sum(r["pass"] for r in checked),
        checked=len(checked),
        all_pass=all(r["pass"] for r in checked),
        load_average=list(os.getloadavg()),
        cpus=os.cpu_count(),
        note="wall medians against the targets; CPU seconds are the child's user + system",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
