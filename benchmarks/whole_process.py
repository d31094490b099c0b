"""Shared by the benchmarks: a ``diceopt`` command timed as fresh processes.

Not a benchmark of its own (run directly, it does nothing).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from typing import Any


def child_cpu() -> float:
    """CPU seconds (user and system) of this process's finished children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_command(argv: list[str], cache: str, runs: int) -> dict[str, Any]:
    """``diceopt ARGV --cache-dir CACHE --json`` as fresh processes (one untimed run first,
    for the caches): the best run's wall and core seconds, every run's, the command, its
    JSON answer of the best run (``answer``) and the load average before and after."""
    env = dict(os.environ, DICEOPT_CACHE=cache)
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "diceopt", *argv, "--cache-dir", cache, "--json"]
    subprocess.run(cmd, env=env, capture_output=True, check=True)
    walls, cores, answers = [], [], []
    before = os.getloadavg()[0]
    for _ in range(runs):
        c0 = child_cpu()
        t0 = time.perf_counter()
        out = subprocess.run(cmd, env=env, capture_output=True, check=True, text=True)
        walls.append(time.perf_counter() - t0)
        cores.append(child_cpu() - c0)
        answers.append(json.loads(out.stdout))
    best = min(range(len(walls)), key=walls.__getitem__)
    return {
        "whole_seconds": walls[best],
        "whole_seconds_all": walls,
        "whole_core_seconds": cores[best],
        "whole_core_seconds_all": cores,
        "command": " ".join(["diceopt", *argv]),
        "answer": answers[best],
        "load_average": [before, os.getloadavg()[0]],
    }


if __name__ == "__main__":
    pass
