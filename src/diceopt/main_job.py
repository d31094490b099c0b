"""``make run``: every registered game's section, in registry order, then the tables the
web advisor reads and a rehearsal of the page's start (:mod:`diceopt.web.rehearse`, in a
child process: numba's cache then holds the server's kernels), so that ``diceopt serve``
plays the computer at once. Last, ``diceopt warm`` starts in the background at low
priority: every other documented command's kernels compile while the page is playable.

The sections and each game's tables are jobs for child processes, as many at once as
numba has threads: most of a section's first run is numba compiling on one core, so two
run side by side, and a game's tables are built beside the sections still running.
The longest sections (:attr:`GameSpec.main_job_weight
<diceopt.games.contract.GameSpec.main_job_weight>`) start first and the tables in the
reverse order: the longest section's tables, which read the kernels it compiles, last.
The output is written in the usual order as soon as it is complete.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, NamedTuple

from diceopt.cli.display import TerminalDisplay
from diceopt.errors import SolveError
from diceopt.games.registry import games
from diceopt.progress import Stage, shown_on
from diceopt.threads import threads


class Job(NamedTuple):
    """One piece of ``make run``: a game's section, or the tables its page reads."""

    kind: str  # "section" or "tables"
    game: str


class Done(NamedTuple):
    """What a job printed (its lines), the tables it could not make ready, its seconds."""

    lines: list[str]
    missing: int
    seconds: float


def main() -> None:
    """Print each game's ``main_job`` section, build (or load) every table the page reads
    for each game's default rules (as ``serve --prepare`` does; progress on stderr),
    rehearse the page's start, say how to start the web advisor, and leave every other
    command's kernels compiling in the background (:func:`warm_in_background`)."""
    t0 = time.perf_counter()
    ids = list(games())
    sections = [Job("section", g) for g in ids]
    tables = [Job("tables", g) for g in ids]
    missing = 0

    def show(job: Job, result: Done) -> None:
        nonlocal missing
        if job == tables[0]:
            print()
            print("== The web advisor's tables ==")
        elif job.kind == "section" and job != sections[0]:
            print()
        missing += result.missing
        for line in result.lines:
            print(line, flush=True)

    try:
        with shown_on(TerminalDisplay()):
            order = start_order(ids, lambda g: games()[g].main_job_weight)
            run_jobs(sections + tables, order, threads(), show)
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
    print(warm_in_background())


def warm_in_background() -> str:
    """Start ``diceopt warm --low-priority`` in a session of its own (it outlives ``make
    run``: every other command's kernels compile while the page is already playable),
    its output into ``warm.log`` in the cache directory; the line that says so, or how
    to compile them ahead where it could not start."""
    from diceopt.storage import cache_root

    log_path = cache_root() / "warm.log"
    try:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        # a regular file only: a link there is not followed (ELOOP), a folder or a pipe
        # refused (EISDIR, ENXIO or the check below), never waited on
        flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
        with open(os.open(log_path, flags, 0o644), "w") as log:
            if not stat.S_ISREG(os.fstat(log.fileno()).st_mode):
                raise OSError(f"{log_path} is not a regular file")
            log.truncate(0)
            subprocess.Popen(
                [sys.executable, "-m", "diceopt", "warm", "--low-priority"],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C in this terminal later does not stop it
            )
    except OSError as exc:
        return (
            f"  (`.venv/bin/diceopt warm` compiles every other command's kernels ahead: it "
            f"could not start here, {exc.strerror or exc})"
        )
    return (
        "  every other command's kernels are compiling in the background at low priority "
        f"(about a minute on 2 cores; progress in {log_path})"
    )


def start_order(ids: Sequence[str], weight: Callable[[str], float]) -> list[Job]:
    """The jobs in the order they start: the sections, longest first (``weight``: a
    game's section's cost), then the tables, longest section last (after that section
    has compiled the kernels its tables read); ties in the order of ``ids``."""
    longest = sorted(ids, key=lambda g: -weight(g))
    return [Job("section", g) for g in longest] + [Job("tables", g) for g in longest[::-1]]


def run_job(job: Job) -> Done:
    """Run one job (in a child process): a section's lines, or a game's tables made ready
    with one line each."""
    t0 = time.perf_counter()
    lines: list[str] = []
    missing = 0
    if job.kind == "section":
        games()[job.game].main_job(lines.append)
    else:
        from diceopt.cli.serve import page_tables, prepare_listed

        wanted = page_tables([job.game])
        if wanted:
            missing = prepare_listed(wanted, lines.append)
    return Done(lines, missing, time.perf_counter() - t0)


def _worker(jobs: Connection) -> None:
    """A child process that runs the jobs it is sent, one at a time (the kernels it has
    loaded stay loaded), and sends back each result or the exception it raised, until it
    is sent None. A Ctrl-C ends it at once, without a traceback (the parent reports it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    while (job := jobs.recv()) is not None:
        try:
            jobs.send((True, run_job(job)))
        except Exception as exc:  # noqa: BLE001 - raised again in the parent
            jobs.send((False, exc))


def run_jobs(
    jobs: Sequence[Job], order: Sequence[Job], processes: int, show: Callable[[Job, Done], None]
) -> None:
    """Run ``jobs`` on ``processes`` child processes, each taking the next job in
    ``order`` when it is free, and ``show`` each result in the order of ``jobs`` as soon
    as it and those before it are done (one process: each in turn, here). A job's error
    is raised here, as is a child that ends without an answer (killed, e.g. out of
    memory); on an error or a Ctrl-C the children are stopped. Progress on stderr."""
    if processes <= 1:
        for job in jobs:
            show(job, run_job(job))
        return
    context = multiprocessing.get_context("spawn")  # no fork of numba's or rich's threads
    label = f"the games' sections and the page's tables, {processes} at a time"
    pending = list(order)
    workers: list[tuple[BaseProcess, Connection]] = []
    busy: dict[int, Job] = {}  # worker index -> the job it runs
    done: dict[Job, Done] = {}
    shown = 0
    try:
        for _ in range(min(processes, len(order))):
            here, there = context.Pipe()
            started = context.Process(target=_worker, args=(there,), name="make run")
            started.start()
            there.close()
            workers.append((started, here))
        with Stage(label, "jobs") as stage:
            while shown < len(jobs):
                for i, (_, pipe) in enumerate(workers):
                    if i not in busy and pending:
                        busy[i] = pending.pop(0)
                        pipe.send(busy[i])
                wait([pipe for _, pipe in workers] + [w.sentinel for w, _ in workers], 0.5)
                for i, (worker, pipe) in enumerate(workers):
                    got = _answer(pipe) if i in busy else None
                    if got is not None:
                        ok, value = got
                        if not ok:
                            raise value
                        done[busy.pop(i)] = value
                    elif not worker.is_alive():
                        lost = busy.get(i)
                        what = f"the {lost.kind} job of {lost.game}" if lost else "a job's process"
                        raise SolveError(
                            f"make run: {what} ended without an answer (exit status "
                            f"{worker.exitcode}; out of memory?)"
                        )
                while shown < len(jobs) and jobs[shown] in done:
                    show(jobs[shown], done[jobs[shown]])
                    shown += 1
                stage.update(len(done), len(order))
    except BaseException:
        for proc, _ in workers:
            proc.terminate()
        for proc, _ in workers:
            proc.join()
        raise
    for proc, pipe in workers:  # every job answered: the workers end
        pipe.send(None)
        proc.join()


def _answer(answer: Connection) -> tuple[bool, Any] | None:
    """A child's answer when it has sent it, else None (nothing yet, or it ended)."""
    try:
        return answer.recv() if answer.poll() else None
    except EOFError:
        return None


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
