"""Ctrl-C during long solves: the kernels run in chunks (diceopt.interrupt), a SIGINT stops
a solve between two chunks, never inside a finalizer, and the CLI exits 130 with one line,
nothing half-written (saved rerolls: the finished layers kept, and resumed from)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numba
import numpy as np
import pytest

from diceopt import interrupt, storage
from diceopt.games.yatzy.analyses import targets
from diceopt.games.yatzy.kernel import layers, saved, solve
from diceopt.games.yatzy.rulebook.variants import MAXI, SCANDINAVIAN, get_rules
from diceopt.games.yatzy.stored import saved_files
from diceopt.interrupt import Pace, check, interruptible, run_chunks

SRC = Path(__file__).resolve().parent.parent / "src"


def test_run_chunks_covers_everything_once_in_aligned_slices():
    seen: list[tuple[int, int]] = []
    run_chunks(lambda lo, hi: seen.append((lo, hi)), 1000, align=7, seconds=1e-9)
    assert seen[0] == (0, 7)
    assert [lo for lo, _ in seen[1:]] == [hi for _, hi in seen[:-1]] and seen[-1][1] == 1000
    assert all((hi - lo) % 7 == 0 for lo, hi in seen[:-1])
    assert len(seen) > 10  # tiny slices for a tiny time aim
    one: list[tuple[int, int]] = []
    pace = Pace()
    run_chunks(lambda lo, hi: one.append((lo, hi)), 1000, align=7, seconds=1e9, pace=pace)
    assert one[-1] == (one[-1][0], 1000) and pace.per_item > 0
    run_chunks(lambda lo, hi: one.append((lo, hi)), 500, align=7, seconds=1e9, pace=pace)
    assert one[-1] == (0, 500)  # the pace says it all fits in one slice


def test_interrupt_inside_a_finalizer_is_raised_after_it(monkeypatch):
    """Python would print "Exception ignored ... KeyboardInterrupt" and drop the interrupt
    if it were raised inside ``__del__`` (llvmlite's, while numba works): it waits for the
    next check instead."""
    unraisable: list = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)

    class Finalized:
        def __del__(self) -> None:
            signal.raise_signal(signal.SIGINT)
            total = 0
            for i in range(1000):  # the handler runs somewhere in here
                total += i

    reached = False
    with pytest.raises(KeyboardInterrupt):
        with interruptible():
            Finalized()  # freed at once: the signal arrives inside __del__
            reached = True
            check()
    assert reached and unraisable == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def _layer_sizes(rules) -> list[int]:
    """States of each layer (by categories filled) a solve works on."""
    return [st.mask.size for st in layers.iter_layer_states(rules)]


def test_interruptible_elsewhere_than_the_main_thread_changes_nothing():
    """Worker threads (the web server's solves) chunk their work but leave SIGINT alone,
    also while the main thread is inside a block."""
    seen: list = []

    def worker() -> None:
        with interruptible():
            seen.append((signal.getsignal(signal.SIGINT), interrupt._depth))
        seen.append(interrupt._depth)

    with interruptible():
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        assert seen == [(interrupt._handler, 1), 1]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert interrupt._depth == 0


def test_cli_exits_130_on_a_ctrl_c_inside_a_finalizer(monkeypatch, capsys):
    """A command whose Ctrl-C arrives inside a finalizer still stops: status 130, one line,
    no "Exception ignored" (before: the interrupt was dropped and the command went on)."""
    import argparse

    from diceopt import cli

    unraisable: list = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    went_on: list[bool] = []

    class Finalized:
        def __del__(self) -> None:
            signal.raise_signal(signal.SIGINT)
            total = 0
            for i in range(1000):
                total += i

    def handler(args: argparse.Namespace) -> int:
        Finalized()
        went_on.append(True)  # the rest of the command runs up to the next check
        return 0

    parser = argparse.ArgumentParser()
    parser.set_defaults(handler=handler)
    monkeypatch.setattr(cli, "build_parser", lambda argv=(): parser)
    assert cli.main([]) == 130
    assert capsys.readouterr().err == "diceopt: interrupted\n" and unraisable == []
    assert went_on == [True]  # raised at the block's end, the next check


def _stop_in_layer(monkeypatch, module, name, j):
    """Replace ``module.name`` by a wrapper that runs it and sends SIGINT after its first
    slice of layer ``j`` (j categories filled); returns the slice lengths of that layer."""
    real = getattr(module, name)
    calls: list[int] = []

    def wrapper(states, *args):
        got = real(states, *args)
        st_mask = getattr(states, "mask", states)  # StateArrays, or the masks
        if bin(int(st_mask[0])).count("1") == j:
            calls.append(st_mask.size)
            if len(calls) == 1:
                signal.raise_signal(signal.SIGINT)
        return got

    monkeypatch.setattr(module, name, wrapper)
    monkeypatch.setattr(interrupt, "CHUNK_SECONDS", 1e-9)  # every slice one round of work
    return calls


MID = 3  # the layer interrupted: categories filled


@pytest.mark.parametrize("solver", ["expected", "theta", "maxi"])
def test_expected_score_solve_stops_between_chunks(monkeypatch, solver):
    """Ctrl-C stops a layer after one slice (before: the layer was one numba call)."""
    base = MAXI if solver == "maxi" else SCANDINAVIAN
    rules = base.reduced(base.categories[:6] + ("chance",))
    calls = _stop_in_layer(monkeypatch, solve, "solve_states", MID)
    with pytest.raises(KeyboardInterrupt):
        solve.solve_table(rules, theta=0.05 if solver == "theta" else 0.0, lanes=8)
    assert len(calls) == 1 and calls[0] < _layer_sizes(rules)[MID]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_saved_rerolls_solve_stops_between_chunks(monkeypatch, tmp_path):
    rules = MAXI.reduced(MAXI.categories[:6] + ("chance",), saved_rerolls=True)
    calls = _stop_in_layer(monkeypatch, saved, "solve_states_saved", MID)
    with pytest.raises(KeyboardInterrupt):
        saved_files.solve_into(rules, tmp_path, lanes=8)
    assert len(calls) == 1 and calls[0] < saved.saved_layout(rules).lanes[MID]
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"layer0{j}.mmap" for j in range(4, 8)]


@pytest.mark.parametrize("single", [False, True])
def test_target_solves_stop_between_chunks(monkeypatch, single):
    rules = SCANDINAVIAN.reduced(SCANDINAVIAN.categories[:6] + ("chance",))
    calls = _stop_in_layer(monkeypatch, targets, "target_layer", MID)
    with pytest.raises(KeyboardInterrupt):
        if single:
            targets.solve_target_from(rules, 0, 0, 0, 60)
        else:
            targets.solve_targets(rules)
    assert len(calls) == 1 and calls[0] < _layer_sizes(rules)[MID]


@pytest.mark.parametrize("step", ["layer_outcomes", "combine"])
def test_state_distributions_stop_between_chunks(monkeypatch, step):
    from diceopt.games.yatzy.analyses import distribution

    rules = SCANDINAVIAN.reduced(SCANDINAVIAN.categories[:6] + ("chance",))
    table = solve.solve_table(rules, dtype="float64")
    sizes = _layer_sizes(rules)
    if step == "layer_outcomes":
        calls = _stop_in_layer(monkeypatch, distribution, step, MID)
        layer = sizes[MID]
    else:  # the first layer combined: one category open
        real = distribution.combine
        calls = []
        lock = threading.Lock()

        def first_slice(start, *args):
            real(start, *args)
            # the chunk's shares run at once: one signal only (a second reaches the next test)
            with lock:
                calls.append(start.size - 1)
                first = len(calls) == 1
            if first:
                signal.raise_signal(signal.SIGINT)

        monkeypatch.setattr(distribution, "combine", first_slice)
        monkeypatch.setattr(interrupt, "CHUNK_SECONDS", 1e-9)
        layer = sizes[rules.num_categories - 1]
    with pytest.raises(KeyboardInterrupt):
        distribution.state_distributions(table)
    if step == "combine":  # some of the first chunk's shares, then the stop
        shares = numba.get_num_threads() * distribution.COMBINE_SHARES
        assert 1 <= len(calls) <= shares and sum(calls) < layer
    else:
        assert len(calls) == 1 and calls[0] < layer


def test_chunked_distributions_are_the_same(monkeypatch):
    """Outcomes and rows computed in many chunks (packed one after the other) are the
    ones computed in one call per layer, bit for bit."""
    from diceopt.games.yatzy.analyses import distribution

    rules = SCANDINAVIAN.reduced(SCANDINAVIAN.categories[:6] + ("chance",))
    table = solve.solve_table(rules, dtype="float64")
    whole = distribution.state_distributions(table)
    one = distribution.distribution(table, mask=0b1, upper=2)
    monkeypatch.setattr(interrupt, "CHUNK_SECONDS", 1e-9)
    parts = distribution.state_distributions(table)
    for name in ("slot", "off", "length", "data", "bonus_rate", "yatzy_rate"):
        np.testing.assert_array_equal(getattr(parts, name), getattr(whole, name))
    again = distribution.distribution(table, mask=0b1, upper=2)
    np.testing.assert_array_equal(again.pmf, one.pmf)


def test_engine_solve_stops_between_chunks_of_components(monkeypatch):
    from diceopt.engine import kernels, solver
    from diceopt.games.pig.graph import build_graph, win_objective
    from diceopt.games.pig.rules import PigRules

    game = build_graph(PigRules(30, 6))
    total = game.components()[1].size - 1
    real = kernels.solve_components
    calls: list[int] = []

    def first_chunk(order, comp_start, *args):
        got = real(order, comp_start, *args)
        calls.append(comp_start.size - 1)
        signal.raise_signal(signal.SIGINT)
        return got

    monkeypatch.setattr(kernels, "solve_components", first_chunk)
    monkeypatch.setattr(interrupt, "CHUNK_SECONDS", 1e-9)
    with pytest.raises(KeyboardInterrupt):
        solver.solve(game, win_objective())
    assert len(calls) == 1 and calls[0] < total


@pytest.mark.parametrize("large", [False, True])
def test_engine_solve_in_chunks_is_the_same(monkeypatch, large):
    """Chunks of components, or of sweeps (every cyclic component "large"): the same
    values, sweeps and residual, and a never-ending policy still fails the same way."""
    from diceopt.engine import solver
    from diceopt.games.pig.graph import build_graph, win_objective
    from diceopt.games.pig.rules import PigRules
    from tests.test_engine import test_policy_evaluation_and_never_ending_policy

    game = build_graph(PigRules(30, 6))
    whole = solver.solve(game, win_objective())
    monkeypatch.setattr(interrupt, "CHUNK_SECONDS", 1e-9)
    if large:
        monkeypatch.setattr(solver, "LARGE_COMPONENT", 1)
    parts = solver.solve(game, win_objective())
    np.testing.assert_array_equal(parts.values, whole.values)
    assert (parts.sweeps, parts.residual) == (whole.sweeps, whole.residual)
    test_policy_evaluation_and_never_ending_policy()


def test_engine_value_iteration_of_a_large_component_stops_between_sweeps(monkeypatch):
    from diceopt.engine import kernels, solver
    from diceopt.games.pig.graph import build_graph, win_objective
    from diceopt.games.pig.rules import PigRules

    game = build_graph(PigRules(30, 6))
    real = kernels.iterate_component
    calls: list[int] = []

    def first_chunk(*args):
        done = real(*args)
        calls.append(int(args[-1][2]))  # sweeps done (carry)
        signal.raise_signal(signal.SIGINT)
        return done

    monkeypatch.setattr(kernels, "iterate_component", first_chunk)
    monkeypatch.setattr(solver, "LARGE_COMPONENT", 1)
    monkeypatch.setattr(interrupt, "CHUNK_SECONDS", 1e-9)
    with pytest.raises(KeyboardInterrupt):
        solver.solve(game, win_objective())
    assert calls == [1]  # one sweep, then the interrupt


# --- the CLI, end to end: SIGINT to a full-size solve once it reports progress -------

# ``python -m diceopt`` with Ctrl-C's usual handler: a shell without job control starts a
# background job with SIGINT ignored, Python keeps it so (as a program should), and then
# the SIGINT of these tests would be lost when the suite itself runs in the background
DICEOPT = [
    sys.executable,
    "-c",
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from diceopt.cli import main; sys.exit(main())",
]


def _interrupt(args: list[str], cache: Path, ready, timeout: float = 600.0):
    """Run ``diceopt args`` with its own cache, send SIGINT once ``ready(stderr lines)``
    holds; returns (status, stdout, stderr). The timeout only guards against a hang."""
    env = dict(os.environ, DICEOPT_CACHE=str(cache), PYTHONPATH=str(SRC))
    proc = subprocess.Popen(
        [*DICEOPT, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines: list[str] = []

    def read() -> None:
        for line in proc.stderr:
            lines.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + timeout
    try:
        while not ready(lines) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert proc.poll() is None, "the solve ended before it was interrupted"
        proc.send_signal(signal.SIGINT)
        out = proc.stdout.read()
        status = proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
    reader.join(timeout)
    return status, out, "".join(lines)


def _clean_stop(status: int, out: str, err: str) -> None:
    assert status == 130 and out == ""
    assert err.endswith("diceopt: interrupted\n")
    assert "Traceback" not in err and "Exception ignored" not in err and "Warning" not in err


def test_cli_targets_interrupted_writes_nothing(tmp_path):
    def solving(lines: list[str]) -> bool:
        return any(line.startswith("solving the scandinavian target table") for line in lines)

    status, out, err = _interrupt(
        ["yatzy", "targets", "--variant", "scandinavian"], tmp_path, solving
    )
    _clean_stop(status, out, err)
    assert len(err.splitlines()) == 2  # the stage line, then the interrupt
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_cli_saved_solve_interrupted_keeps_its_layers_and_resumes(tmp_path):
    rules = get_rules("maxi-saved")
    c = rules.num_categories
    folder = saved_files.layers_dir(get_rules("maxi-saved"), "float32", str(tmp_path))
    solve = ["yatzy", "solve", "--variant", "maxi-saved"]
    status, out, err = _interrupt(solve, tmp_path, lambda _: (folder / "layer17.mmap").exists())
    _clean_stop(status, out, err)
    names = sorted(p.name for p in folder.iterdir())
    assert not [n for n in names if not n.endswith(".mmap")]  # no temporary file
    assert f"kept the {len(names)} layers solved so far in {folder}" in err
    low = saved_files.finished_layers(folder, rules)
    assert (
        low is not None and low <= 17 and names == [f"layer{j:02d}.mmap" for j in range(low, c + 1)]
    )
    # the next run resumes from them (and is interrupted again)
    status, out, err = _interrupt(
        solve, tmp_path, lambda lines: any("resuming" in x for x in lines)
    )
    _clean_stop(status, out, err)
    assert f"resuming from the layers already solved in {folder}: layers {low} to {c}" in err


# --- resuming, at the library level ---------------------------------------------------


def test_saved_solve_resumes_from_checked_layers(tmp_path):
    rules = MAXI.reduced(("ones", "twos", "sixes", "chance"), saved_rerolls=True)
    c = rules.num_categories
    fresh = saved.solve_saved(rules)

    def stop_after_two(done: int, total: int) -> None:
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        saved_files.solve_into(rules, tmp_path, progress=stop_after_two)
    assert saved_files.finished_layers(tmp_path, rules) == c - 2
    resumed = saved_files.solve_into(rules, tmp_path, resume=c - 2)
    for j in range(c + 1):
        np.testing.assert_array_equal(resumed.layer(j), fresh.layer(j))
    # a damaged layer is never resumed from: only the layers after it are
    path = tmp_path / f"layer{c - 1:02d}.mmap"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    assert saved_files.finished_layers(tmp_path, rules) == c
    with pytest.raises(storage.TableFileError):
        storage.read_mapped(
            path, saved_files._layer_key("t", c - 1, "float32", fresh.layer(c - 1).shape)
        )


# --- every game's solve, end to end: SIGINT once it is solving ------------------------

ZILCH = Path(__file__).resolve().parent.parent / "src/diceopt/games/rules/zilch.toml"


def _zilch_fine(folder: Path) -> str:
    """Zilch with single fives worth 25: scores in steps of 25, a solve of seconds (made
    of kernel calls of a few tenths of a second each)."""
    text = ZILCH.read_text(encoding="utf-8")
    text = text.replace("points = [100, 0, 0, 0, 50, 0]", "points = [100, 0, 0, 0, 25, 0]")
    path = folder / "zilch-fine.toml"
    path.write_text(text.replace('name = "zilch"', 'name = "zilch-fine"'), encoding="utf-8")
    return str(path)


# (a solve of several seconds in each family: race, one-player push-your-luck, Zombie
# Dice's turn solves, the engine's value iteration). Pig's largest solve (goal 150, 20
# sides) ends in under a second, too soon to be interrupted on a fast machine: its
# solver is the race solver that the Farkle case interrupts.
GAME_SOLVES = {
    "farkle": ["farkle", "solve"],
    "zilch": ["zilch", "solve", "--rules", "ZILCH_FINE"],
    "zombie": ["zombie", "solve"],
    "shutbox": ["shutbox", "solve", "--tiles", "12", "--objective", "win", "--players", "2"],
    "stick": ["stick", "solve", "--dice", "10", "--sides", "10"],
}


DELAY = {"zilch": 1.2}  # CPU seconds before Ctrl-C (default 1.5): past start-up, inside the solve
# CPU seconds from Ctrl-C to the exit: a second or two of each of the (at most 2) threads
# a solve keeps busy. CPU time, not wall time: a busy machine slows the clock, not this.
LIMIT_CPU = 2.0 * min(2, os.cpu_count() or 1)
HANG_GUARD = 300.0  # wall seconds: only a hang reaches it


def _cpu(pid: int) -> tuple[str, float]:
    """(state letter, user + system CPU seconds of every thread so far) of a process, from
    Linux's /proc; a finished one that is not yet reaped reads "Z" and its final time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return fields[0], (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.parametrize("game", sorted(GAME_SOLVES))
def test_cli_solve_of_every_game_stops_within_two_seconds(tmp_path, game):
    """SIGINT once a solve has used a second and a half of CPU (past start-up, far from
    its end): exit status 130 after at most :data:`LIMIT_CPU` more CPU seconds, one line
    ``diceopt: interrupted``, no traceback, and no table (nor a temporary file) stored:
    only the empty lock file may be left."""
    cache = tmp_path / "cache"
    cache.mkdir()
    args = [_zilch_fine(tmp_path) if a == "ZILCH_FINE" else a for a in GAME_SOLVES[game]]
    env = dict(os.environ, DICEOPT_CACHE=str(cache), PYTHONPATH=str(SRC))
    proc = subprocess.Popen(
        [*DICEOPT, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    guard = time.monotonic() + HANG_GUARD
    try:
        while (now := _cpu(proc.pid))[0] != "Z" and now[1] < DELAY.get(game, 1.5):
            assert time.monotonic() < guard, f"{game} solve hangs before its work"
            time.sleep(0.02)
        state, at_signal = now
        assert state != "Z", "the solve ended before it was interrupted"
        proc.send_signal(signal.SIGINT)
        while (now := _cpu(proc.pid))[0] != "Z" and time.monotonic() < guard:
            time.sleep(0.02)
        took = now[1] - at_signal
        assert now[0] == "Z", f"{game} solve still running after Ctrl-C ({took:.1f} CPU s)"
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert took < LIMIT_CPU
    _clean_stop(proc.returncode, out, err)
    assert err.splitlines()[-1] == "diceopt: interrupted"
    assert not [line for line in err.splitlines() if "Error" in line or "error" in line]
    # nothing of the interrupted table; Shut the Box's win solve first solves and stores
    # the whole score table (it orders the moves): that one is complete
    left = [p for p in cache.rglob("*") if p.is_file() and not p.name.endswith(".lock")]
    done = [p for p in left if game == "shutbox" and p.name.endswith("-score-theta0.0-float64.tbl")]
    assert left == done, left
    assert all(p.stat().st_size == 0 for p in cache.rglob("*.lock"))
