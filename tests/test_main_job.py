"""``make run``'s jobs: the games' sections and the page's tables in child processes."""

from __future__ import annotations

import pytest

from diceopt.main_job import Done, Job, run_job, run_jobs, start_order


def test_the_longest_section_starts_first_and_its_tables_last():
    weights = {"farkle": 20.0, "pig": 1.0, "yatzy": 75.0, "zombie": 1.0}
    order = start_order(list(weights), weights.__getitem__)
    assert order[:2] == [Job("section", "yatzy"), Job("section", "farkle")]
    assert order[-2:] == [Job("tables", "farkle"), Job("tables", "yatzy")]
    assert sorted(order) == sorted(Job(k, g) for k in ("section", "tables") for g in weights)


def test_every_game_weighs_its_section():
    from diceopt.games.registry import games

    weights = {g: spec.main_job_weight for g, spec in games().items()}
    assert max(weights, key=weights.__getitem__) == "yatzy"
    assert all(w > 0 for w in weights.values())


def test_results_are_shown_in_the_jobs_order_from_child_processes():
    # started in another order, on two child processes: shown in the order asked, the
    # same lines as each job run here
    jobs = [Job("section", "stick"), Job("section", "zombie"), Job("tables", "stick")]
    shown: list[tuple[Job, Done]] = []
    run_jobs(jobs, jobs[::-1], 2, lambda job, done: shown.append((job, done)))
    assert [job for job, _ in shown] == jobs
    for job, done in shown:  # the same lines (but the seconds some of them say)
        here = run_job(job).lines
        assert len(done.lines) == len(here) and done.lines[:1] == here[:1]
        assert done.missing == 0 and done.seconds > 0
    assert shown[1][1].lines == run_job(jobs[1]).lines  # Zombie Dice's: no times
    assert shown[0][1].lines[0].startswith("== Stick or reroll")
    assert shown[2][1].lines == []  # no stored tables for stick


def test_a_failing_job_raises_here():
    with pytest.raises(KeyError):
        run_jobs([Job("section", "no-such-game")], [Job("section", "no-such-game")], 2, print)


def test_ctrl_c_stops_make_run_and_its_children(tmp_path):
    # a Ctrl-C reaches the whole process group: one line, exit status 130, no child left
    import os
    import signal
    import subprocess
    import sys
    import time

    env = dict(os.environ, DICEOPT_CACHE=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "diceopt.main_job"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(4)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1] == "make run: interrupted"
    assert "Traceback" not in err
    for _ in range(100):  # the group empties: every child ends (the last within seconds)
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        left = subprocess.run(["ps", "-o", "args=", "-g", str(proc.pid)], capture_output=True)
        raise AssertionError(f"children left: {left.stdout!r}")


def test_a_child_killed_without_an_answer_is_an_error_not_a_wait(tmp_path, monkeypatch):
    # e.g. killed for memory: one error naming the job, not a wait for ever (an empty
    # table cache: Farkle's section solves for seconds, its worker is the first started)
    import multiprocessing
    import os
    import signal
    import threading
    import time

    from diceopt.errors import SolveError

    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    jobs = [Job("section", "farkle"), Job("section", "stick")]
    raised: list[BaseException] = []

    def run() -> None:
        try:
            run_jobs(jobs, jobs, 2, lambda job, done: None)
        except BaseException as exc:  # noqa: BLE001 - looked at below
            raised.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    for _ in range(200):
        children = [c for c in multiprocessing.active_children() if c.name == "make run"]
        if len(children) == 2:
            break
        time.sleep(0.05)
    time.sleep(1.0)  # each has taken its job: farkle's lasts seconds, stick's is done
    os.kill(min(child.pid for child in children), signal.SIGKILL)
    thread.join(60)
    assert not thread.is_alive() and len(raised) == 1
    assert isinstance(raised[0], SolveError)
    assert "section job of farkle ended without an answer" in str(raised[0])
    assert not [c for c in multiprocessing.active_children() if c.name == "make run"]


def _recorded_starts(monkeypatch):
    """subprocess.Popen in main_job replaced by a recorder (nothing is started)."""
    from diceopt import main_job

    started: list[tuple[list[str], dict]] = []
    monkeypatch.setattr(main_job.subprocess, "Popen", lambda argv, **kw: started.append((argv, kw)))
    return started


def test_make_run_leaves_the_warm_up_running_in_the_background(tmp_path, monkeypatch):
    from diceopt.main_job import warm_in_background

    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    (tmp_path / "warm.log").write_text("an earlier run's log\n")
    started = _recorded_starts(monkeypatch)
    line = warm_in_background()
    assert "compiling in the background" in line and str(tmp_path / "warm.log") in line
    [(argv, kw)] = started
    assert argv[-3:] == ["diceopt", "warm", "--low-priority"]
    assert kw["start_new_session"] and kw["stdin"] is not None
    assert (tmp_path / "warm.log").read_text() == ""  # a fresh log each make run


@pytest.mark.parametrize("kind", ["link", "folder", "pipe"])
def test_the_warm_up_log_is_a_regular_file_or_nothing_starts(tmp_path, monkeypatch, kind):
    import os

    from diceopt.main_job import warm_in_background

    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    log = tmp_path / "warm.log"
    if kind == "link":
        log.symlink_to(target)
    elif kind == "folder":
        log.mkdir()
    else:
        os.mkfifo(log)  # no reader: opening it must not wait
    started = _recorded_starts(monkeypatch)
    line = warm_in_background()
    assert "could not start here" in line and "diceopt warm" in line
    assert started == [] and target.read_text() == "keep me\n"
