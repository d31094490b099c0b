"""The simulation's random integers, drawn ahead of the games on a thread of their own.

Role: :func:`dice_stream` starts drawing the integers of every turn of a Yatzy simulation
(:mod:`diceopt.games.yatzy.kernel.simulation`) as soon as it is called, in order, one
draw at a time: ``rng.integers(0, top, size=(n, 3), dtype=np.int32)`` for each batch of n
games and each turn, the same numbers as drawing them in the caller. numpy releases the
GIL as it fills an array, so the draws run beside the caller's Python: a command starts
them before it imports numba and loads its kernels (about 0.3 s of one busy core), and
the games then find their dice drawn instead of sharing the cores with the draws (a
million games: 15 draws of 6 ms; the games took 0.54-0.55 s with their dice drawn
before, 0.60-0.63 s with each turn's drawn beside the one before).

Memory: the draws wait while ``most_bytes`` (192 MB: every turn of a million games, 12 MB
each) of them are drawn and not yet taken. numpy only (no numba): a command imports it
before numba.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

AHEAD_BYTES = 192 << 20  # dice drawn and not yet taken, at most (int32: 12 bytes a game-turn)
DEFAULT_BATCH = 1 << 21  # games a simulation advances together (memory about 60 bytes each)
POLL_SECONDS = 0.1  # how often a waiting draw looks whether the stream was closed


def turn_sizes(games: int, batch: int, turns: int) -> Iterator[int]:
    """The games of each draw: for each batch of at most ``batch`` games, one per turn."""
    for lo in range(0, games, batch):
        for _ in range(turns):
            yield min(batch, games - lo)


@dataclass
class DiceStream:
    """The turns' random integers of a simulation of ``games`` games in batches of
    ``batch`` with ``turns`` turns each, in order (iterate once); ``top`` is
    ``sides ** dice``."""

    top: int
    games: int
    batch: int
    turns: int
    _queue: queue.Queue = field(repr=False)
    _closed: threading.Event = field(repr=False)
    thread: threading.Thread = field(repr=False)

    def __iter__(self) -> Iterator[np.ndarray]:
        try:
            for _ in turn_sizes(self.games, self.batch, self.turns):
                got = self._queue.get()
                if isinstance(got, BaseException):
                    raise got
                yield got
        finally:
            self.close()

    def close(self) -> None:
        """Stop drawing (a simulation that ends early, or fails, lets the thread end)."""
        self._closed.set()


def dice_stream(
    rng: np.random.Generator,
    top: int,
    games: int,
    turns: int,
    batch: int = DEFAULT_BATCH,
    most_bytes: int = AHEAD_BYTES,
) -> DiceStream:
    """Start drawing, on a daemon thread, ``rng.integers(0, top, size=(n, 3),
    dtype=np.int32)`` for each n of :func:`turn_sizes` in turn (at least one draw ahead,
    more while they fit in ``most_bytes``); the returned stream yields them in order."""
    ahead = max(1, most_bytes // (12 * max(1, min(batch, games))))
    drawn: queue.Queue = queue.Queue(maxsize=ahead)
    closed = threading.Event()

    def draw() -> None:
        for n in turn_sizes(games, batch, turns):
            try:
                got: np.ndarray | BaseException = rng.integers(0, top, size=(n, 3), dtype=np.int32)
            except BaseException as e:  # handed to the simulation, which raises it
                got = e
            while not closed.is_set():
                try:
                    drawn.put(got, timeout=POLL_SECONDS)
                    break
                except queue.Full:
                    continue
            if closed.is_set() or isinstance(got, BaseException):
                return

    thread = threading.Thread(target=draw, name="diceopt-dice", daemon=True)
    thread.start()
    return DiceStream(top, games, batch, turns, drawn, closed, thread)
