"""Shares of serial kernels on threads (``diceopt.threads``): each share runs once, on at
most numba's number of threads, and errors come back; work in the background likewise."""

from __future__ import annotations

import threading

import numba
import pytest

from diceopt.threads import in_background, run_shares, run_wavefront, threads


@pytest.mark.parametrize("n", [0, 1, 2, 7, 64])
def test_every_share_runs_once(n):
    seen: list[int] = []
    lock = threading.Lock()

    def share(t: int) -> None:
        with lock:
            seen.append(t)

    run_shares(share, n)
    assert sorted(seen) == list(range(n))


def test_one_thread_runs_every_share_here_in_order():
    here = threading.get_ident()
    seen: list[tuple[int, int]] = []
    numba.set_num_threads(1)
    try:
        assert threads() == 1
        run_shares(lambda t: seen.append((t, threading.get_ident())), 5)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert seen == [(t, here) for t in range(5)]


def test_at_most_numbas_threads_at_once():
    names: set[str] = set()
    lock = threading.Lock()

    def share(t: int) -> None:
        with lock:
            names.add(threading.current_thread().name)

    run_shares(share, 50)
    assert 1 <= len(names) <= threads()


@pytest.mark.parametrize("failing", [0, 5, 99])
def test_an_error_in_a_share_comes_back(failing):
    def share(t: int) -> None:
        if t == failing:
            raise ValueError(f"share {t} failed")

    with pytest.raises(ValueError, match=f"share {failing} failed"):
        run_shares(share, 100)


def test_on_one_thread_an_error_stops_the_rest():
    ran: list[int] = []

    def share(t: int) -> None:
        ran.append(t)
        if t == 2:
            raise ValueError("share 2 failed")

    numba.set_num_threads(1)
    try:
        with pytest.raises(ValueError, match="share 2 failed"):
            run_shares(share, 10)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert ran == [0, 1, 2]


def test_background_work_runs_on_the_pool_or_here_on_one_thread():
    here = threading.get_ident()
    got = in_background(lambda: (threading.get_ident(), 6 * 7)).result()
    assert got[1] == 42
    assert (got[0] != here) == (threads() > 1)
    numba.set_num_threads(1)
    try:
        ahead = in_background(lambda: threading.get_ident())
        assert ahead.done() and ahead.result() == here
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


@pytest.mark.parametrize("one_thread", [False, True])
def test_an_error_in_background_work_comes_back(one_thread):
    def work() -> int:
        raise ValueError("the draw failed")

    if one_thread:
        numba.set_num_threads(1)
    try:
        ahead = in_background(work)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    with pytest.raises(ValueError, match="the draw failed"):
        ahead.result()


@pytest.mark.parametrize("rows, cols", [(0, 3), (1, 1), (1, 5), (4, 1), (6, 6), (3, 7)])
def test_a_wavefront_runs_each_cell_once_after_its_two_neighbours(rows, cols):
    done: dict[tuple[int, int], int] = {}
    order = iter(range(rows * cols))
    lock = threading.Lock()

    def cell(a: int, b: int) -> None:
        with lock:
            for after in ((a + 1, b), (a, b + 1)):
                if after[0] < rows and after[1] < cols:
                    assert after in done, (a, b, after)  # a neighbour not done yet
            assert (a, b) not in done
            done[(a, b)] = next(order)

    run_wavefront(rows, cols, cell)
    assert sorted(done) == [(a, b) for a in range(rows) for b in range(cols)]


def test_an_error_in_a_wavefront_stops_the_cells_not_taken():
    seen: list[tuple[int, int]] = []

    def cell(a: int, b: int) -> None:
        seen.append((a, b))
        if (a, b) == (3, 3):
            raise ValueError("cell (3, 3)")

    with pytest.raises(ValueError, match="cell"):
        run_wavefront(5, 5, cell)
    assert (0, 0) not in seen and len(seen) < 25
