"""The collector held while a command's process starts (diceopt.collector)."""

from __future__ import annotations

import gc
import os

import numba
import pytest

from diceopt import collector, kernel_cache


@pytest.fixture(autouse=True)
def collector_restored():
    """Each test starts with the collector on and not held, and leaves it so (objects
    frozen by a test are given back to the collector)."""
    collector.resume()
    assert gc.isenabled()
    yield
    collector.resume()
    gc.enable()
    gc.unfreeze()


def test_hold_then_resume_freezes_the_start_up():
    timer = collector.hold_for_start(seconds=600)
    assert timer is not None
    try:
        assert collector.held() and not gc.isenabled()
        assert collector.hold_for_start() is None  # one hold at a time
        made = [[] for _ in range(1000)]  # objects of the "start-up"
        frozen_before = gc.get_freeze_count()
        collector.resume()
        assert not collector.held() and gc.isenabled()
        assert gc.get_freeze_count() >= frozen_before + len(made)
        collector.resume()  # again: nothing more
        assert gc.isenabled()
    finally:
        timer.cancel()


def test_the_hold_ends_by_itself():
    timer = collector.hold_for_start(seconds=0.0)
    assert timer is not None
    timer.join(timeout=60)  # a safety net against a hang, not a time limit on the work
    assert not timer.is_alive()
    assert not collector.held() and gc.isenabled()


def test_a_collector_paused_by_someone_else_is_left_alone():
    gc.disable()
    assert collector.hold_for_start() is None
    collector.resume()
    assert not gc.isenabled()  # not ours to turn on
    gc.enable()


def test_a_numba_compile_ends_the_hold():
    kernel_cache.listen_for_compiles()  # numba's entry point calls it; once per process
    timer = collector.hold_for_start(seconds=600)
    assert timer is not None
    try:

        @numba.njit(cache=False)
        def doubled(x):
            return 2 * x

        assert doubled(21) == 42  # compiled now
        assert not collector.held() and gc.isenabled()
    finally:
        timer.cancel()


def test_a_child_forked_during_the_hold_collects():
    timer = collector.hold_for_start(seconds=600)
    assert timer is not None
    try:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report whether its collector is on, then leave at once
            os.write(write, b"1" if gc.isenabled() and not collector.held() else b"0")
            os._exit(0)
        os.close(write)
        got = os.read(read, 1)
        os.close(read)
        os.waitpid(pid, 0)
        assert got == b"1"
        assert collector.held()  # the parent still holds it
    finally:
        timer.cancel()
