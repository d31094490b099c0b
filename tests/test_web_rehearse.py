"""The rehearsal of the page's start (``make run``'s last step) and the quiet moments the
server's warm-up waits for."""

from __future__ import annotations

import subprocess
import sys
import threading

from diceopt.web.games import GameTables
from diceopt.web.middleware import Activity
from diceopt.web.rehearse import play_turn, rehearse
from diceopt.web.served import served_games


def test_rehearse_warms_and_plays_a_turn_against_the_computer(web_env):
    lines: list[str] = []
    seconds = rehearse(["stick", "zombie"], out=lines.append, variants={"zombie": "goal-3"})
    assert list(seconds) == ["stick", "zombie"]
    assert lines[0].startswith("stick/3d6: warmed in ")
    assert lines[1].startswith("zombie/goal-3: warmed, one turn against the computer (win) in ")


def test_a_rehearsed_turn_answers_as_the_same_turn_played_again(web_env):
    tables = GameTables(served_games(["zombie"]))
    assert play_turn(tables, "zombie", "goal-3", "win") >= 4
    first = tables.duel_new("zombie", "goal-3", "win", 1, estimate=False)
    again = GameTables(served_games(["zombie"])).duel_new("zombie", "goal-3", "win", 1, False)
    assert first == again


def test_main_job_rehearses_in_a_child_process(monkeypatch):
    from diceopt import main_job

    calls = []

    def run(cmd, **kwargs):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, "the page's start rehearsed (7 games): 2.0 s\n")

    monkeypatch.setattr(main_job.subprocess, "run", run)
    assert main_job.rehearse_page() == "the page's start rehearsed (7 games): 2.0 s"
    assert calls == [[sys.executable, "-m", "diceopt.web.rehearse"]]

    def fails(cmd, **kwargs):
        return subprocess.CompletedProcess(cmd, 1, "", "Traceback ...\nValueError: bad\n")

    monkeypatch.setattr(main_job.subprocess, "run", fails)
    line = main_job.rehearse_page()
    assert line.startswith("the page's start could not be rehearsed (ValueError: bad; ")
    assert "\n" not in line


def test_quiet_waits_while_a_request_is_in_flight():
    activity = Activity()
    activity.wait_quiet(0.0)  # nothing in flight: at once
    activity.enter()
    done = threading.Event()

    def wait() -> None:
        activity.wait_quiet(0.01)
        done.set()

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    assert not done.wait(0.2)  # a request in flight: it waits
    activity.leave()
    waiter.join()
    assert done.is_set()
    stop = threading.Event()
    stop.set()
    activity.enter()
    activity.wait_quiet(60.0, stop)  # stopping: at once, busy or not


def test_preload_loads_what_is_stored_and_builds_nothing(web_env):
    from diceopt.web.served import ServedGames, preload

    served = ServedGames(served_games(["zombie"]))
    wanted = served.duel_tables("zombie", served.variant("zombie", None), "win")
    stored = [t.is_stored() for t in wanted]
    preload(["zombie"])
    assert [t.ready() for t in wanted] == stored  # loaded if stored, else left to requests
    assert [t.is_stored() for t in wanted] == stored
