"""Compile ahead: every numba kernel that the documented commands use, compiled into
numba's cache before a user first needs it (``diceopt warm``).

Each registered game names its warm-up jobs (:meth:`GameSpec.warm_jobs
<diceopt.games.contract.GameSpec.warm_jobs>`): lists of commands on rules small enough
that their time is the compile. The jobs run in child processes, as many at once as
there are cores (largest first), each in a temporary table directory that is removed
afterwards; their output is dropped. A later command loads the kernels from the cache
(a few hundredths of a second each) instead of compiling them (seconds each).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from diceopt.errors import InputError
from diceopt.games.contract import WarmJob

MAX_PROCESSES = 16
FAILED = "command failed: "  # a child's last line when a command fails (cli.sequence)

CHILD_TIMEOUT = 900  # seconds for one job (a cold compile on a busy machine: minutes)


@dataclass
class WarmReport:
    """What :func:`compile_ahead` did: seconds of wall time, each job's seconds, and the
    jobs whose commands failed (with the first line of their error)."""

    seconds: float
    processes: int
    jobs: dict[str, float] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)


def warm_jobs(folder: Path, games: Sequence[str] | None = None) -> list[WarmJob]:
    """Every registered game's warm-up jobs (``games``: only these ids), largest first;
    rule files they need are written into ``folder``."""
    from diceopt.games.registry import games as registered

    specs = registered()
    unknown = sorted(set(games or ()) - set(specs))
    if unknown:
        raise InputError(f"unknown game {unknown[0]!r}; games are {', '.join(specs)}")
    jobs = [
        job for gid, spec in specs.items() if not games or gid in games
        for job in spec.warm_jobs(folder)
    ]  # fmt: skip
    return sorted(jobs, key=lambda job: -job.weight)


def _run_job(job: WarmJob, tables: str) -> tuple[float, str]:
    """Run one job in a child process; (seconds, the first line of its error or "")."""
    env = dict(os.environ, DICEOPT_CACHE=tables, NUMBA_NUM_THREADS="1")
    t0 = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "diceopt.cli.sequence", json.dumps(job.commands)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            timeout=CHILD_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return time.perf_counter() - t0, f"no answer in {CHILD_TIMEOUT} s"
    error = ""
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        failed = [line[len(FAILED) :] for line in lines if line.startswith(FAILED)]
        said = [line for line in lines if "error:" in line] or lines or ["no message"]
        error = f"{failed[-1]}: {said[-1]}" if failed else said[-1]
    return time.perf_counter() - t0, error


def compile_ahead(
    processes: int | None = None,
    games: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> WarmReport:
    """Compile (or load from numba's cache) every kernel of the documented commands of
    every game (``games``: only these ids) in ``processes`` child processes at once
    (default: the number of cores, at most :data:`MAX_PROCESSES`). ``progress(done,
    total)`` after each job."""
    n = min(os.cpu_count() or 1, MAX_PROCESSES) if processes is None else processes
    if not 1 <= n <= MAX_PROCESSES:
        raise InputError(f"processes must be 1 to {MAX_PROCESSES}, got {n}")
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="diceopt-warm-") as tmp:
        jobs = warm_jobs(Path(tmp), games)
        report = WarmReport(0.0, n)
        with ThreadPoolExecutor(max_workers=n) as pool:
            running = {pool.submit(_run_job, job, f"{tmp}/tables"): job for job in jobs}
            for done, future in enumerate(as_completed(running), 1):
                job = running[future]
                seconds, error = future.result()
                report.jobs[job.name] = round(seconds, 2)
                if error:
                    report.failed[job.name] = error
                if progress is not None:
                    progress(done, len(jobs))
    report.seconds = time.perf_counter() - t0
    return report
