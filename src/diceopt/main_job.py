"""``make run``: every registered game's section, in registry order, then the tables the
web advisor reads and a rehearsal of the page's start (:mod:`diceopt.web.rehearse`, in a
child process: numba's cache then holds the server's kernels), so that ``diceopt serve``
plays the computer at once.

The sections, each game's tables and the warm-up of every game but the longest
(:mod:`diceopt.compile_ahead`: every kernel its commands use) are jobs for child
processes, as many at once as numba has threads: most of a section's first run is numba
compiling on one core, so two run side by side. The longest section
(:attr:`GameSpec.main_job_weight <diceopt.games.contract.GameSpec.main_job_weight>`)
starts first, the other sections and tables run beside it, then its tables, as soon as
a process is free, and the warm-ups. The output is written in the usual order as soon as
it is complete.
"""

from __future__ import annotations

import multiprocessing
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from multiprocessing.pool import AsyncResult
from typing import NamedTuple

from diceopt.cli.display import TerminalDisplay
from diceopt.games.registry import games
from diceopt.progress import Stage, shown_on
from diceopt.threads import threads


class Job(NamedTuple):
    """One piece of ``make run``: a game's section, or the tables its page reads."""

    kind: str  # "section", "tables" or "warm" (its other commands' kernels compiled ahead)
    game: str


class Done(NamedTuple):
    """What a job printed (its lines), the tables it could not make ready, its seconds."""

    lines: list[str]
    missing: int
    seconds: float


def main() -> None:
    """Print each game's ``main_job`` section, build (or load) every table the page reads
    for each game's default rules (as ``serve --prepare`` does; progress on stderr),
    rehearse the page's start, then say how to start the web advisor."""
    t0 = time.perf_counter()
    ids = list(games())
    weight = {g: spec.main_job_weight for g, spec in games().items()}
    order = start_order(ids, weight.__getitem__)
    sections = [Job("section", g) for g in ids]
    tables = [Job("tables", g) for g in ids]
    warms = [job for job in order if job.kind == "warm"]
    longest = order[0].game
    missing = 0

    def show(job: Job, result: Done) -> None:
        nonlocal missing
        if job == tables[0]:
            print()
            print("== The web advisor's tables ==")
        elif warms and job == warms[0]:
            print()
            print("== The other commands' kernels, compiled ahead ==")
        elif job.kind == "section" and job != sections[0]:
            print()
        missing += result.missing
        for line in result.lines:
            print(line, flush=True)

    try:
        with shown_on(TerminalDisplay()):
            run_jobs(sections + tables + warms, order, threads(), show)
    except KeyboardInterrupt:
        print("make run: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    seconds = time.perf_counter() - t0
    state = "ready" if not missing else f"ready but {missing} (built on first use instead)"
    print(f"every table the page reads: {state}, {seconds:.1f} s after the start")
    if not missing:
        print(rehearse_page())
    print()
    print("Web advisor: `.venv/bin/diceopt serve` then open http://127.0.0.1:8000/")
    print(f"  (`.venv/bin/diceopt warm --game {longest}` compiles its other commands' kernels")
    print("   ahead; those of the other games are compiled already)")


def start_order(ids: Sequence[str], weight: Callable[[str], float]) -> list[Job]:
    """The jobs in the order they start: the sections, longest first (``weight``: a
    game's section's cost), then the tables, longest section last (after that section
    has compiled the kernels its tables read), then the other games' warm-ups (every
    kernel of their commands compiled ahead, while the longest section still runs);
    ties in the order of ``ids``."""
    longest = sorted(ids, key=lambda g: -weight(g))
    return (
        [Job("section", g) for g in longest]
        + [Job("tables", g) for g in longest[::-1]]
        + [Job("warm", g) for g in longest[1:]]
    )


def run_job(job: Job) -> Done:
    """Run one job (in a child process): a section's lines, a game's tables made ready
    with one line each, or one line on its warm-up (:mod:`diceopt.compile_ahead`)."""
    t0 = time.perf_counter()
    lines: list[str] = []
    missing = 0
    if job.kind == "section":
        games()[job.game].main_job(lines.append)
    elif job.kind == "warm":
        from diceopt.compile_ahead import compile_ahead

        report = compile_ahead(1, [job.game])
        said = "; ".join(f"{name}: {error}" for name, error in report.failed.items())
        done = f"failed ({said})" if said else f"done in {report.seconds:.1f} s"
        lines.append(f"{job.game}: every command's kernels compiled ahead: {done}")
    else:
        from diceopt.cli.serve import page_tables, prepare_tables

        if page_tables([job.game]):
            missing = prepare_tables([job.game], out=lines.append)
    return Done(lines, missing, time.perf_counter() - t0)


def _quiet_interrupt() -> None:
    """A child's Ctrl-C ends it at once, without a traceback (the parent reports it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_jobs(
    jobs: Sequence[Job], order: Sequence[Job], processes: int, show: Callable[[Job, Done], None]
) -> None:
    """Run ``jobs``, ``processes`` at a time in child processes, each started in
    ``order`` once it may (:func:`may_start`), and ``show`` each result in the order of
    ``jobs`` as soon as it and those before it are done (one process: each in turn,
    here). A job's error is raised here; on an error or a Ctrl-C the children are
    stopped. Progress on stderr."""
    if processes <= 1:
        for job in jobs:
            show(job, run_job(job))
        return
    context = multiprocessing.get_context("spawn")  # no fork of numba's threads
    pool = context.Pool(processes, initializer=_quiet_interrupt)
    label = f"the games' sections and the page's tables, {processes} at a time"
    pending = list(order)
    running: dict[Job, AsyncResult[Done]] = {}
    done: dict[Job, Done] = {}
    shown = 0
    try:
        with Stage(label, "jobs") as stage:
            while shown < len(jobs):
                for finished in [j for j, r in running.items() if r.ready()]:
                    done[finished] = running.pop(finished).get()
                while len(running) < processes:
                    start = next((j for j in pending if may_start(j, done, order)), None)
                    if start is None:
                        break
                    pending.remove(start)
                    running[start] = pool.apply_async(run_job, (start,))
                while shown < len(jobs) and jobs[shown] in done:
                    show(jobs[shown], done[jobs[shown]])
                    shown += 1
                stage.update(len(done), len(order))
                if running:
                    next(iter(running.values())).wait(0.2)
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.close()
        pool.join()


def may_start(job: Job, done: Mapping[Job, Done], order: Sequence[Job]) -> bool:
    """Whether ``job`` may start: a game's warm-up once its section is done (both would
    compile the same kernels at once). Tables do not wait: the longest section's tables
    start while it still runs, the cores busy (measured: the kernels both compile at
    the same time cost less than a core left idle)."""
    section = Job("section", job.game)
    return job.kind != "warm" or section in done or section not in order


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
