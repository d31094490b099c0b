"""Whole Yatzy games at a table of N players on seeded dice: one seat plays to win against
the others' sheets, the others play for the expected score; and the calibration of the
chances shown at every turn.

Role: ``benchmarks/table_play.py``. The duel of :mod:`diceopt.games.yatzy.duel`
generalised to N players: the same game words, turns and random numbers (per game,
player and turn three integers, :mod:`diceopt.games.yatzy.simulation`), the same
expected-score widget for the other seats, and for the advised seat the win-seeking turn
of :mod:`diceopt.games.yatzy.win` against the best of the others' final scores, the
N-player tie split folded in (:mod:`diceopt.games.yatzy.winning.table`: ``so = -1``,
``draw=True``, the steps of W as the opponent's pmf). Seats are rotated: in game g the
advised player is seat g mod N (seat 0 always plays first). The highest final score wins;
a k-way tie gives each 1/k.

Calibration (``calibrate``): at the start of every turn, every player's chance of
winning from all the sheets (exactly what ``diceopt yatzy chances`` shows: everyone
playing for the expected score) is put in one of ``bins`` equal bins of [0, 1], apart for
the advised seat and for the others, with the player's result in that game (1/k for a
k-way win, else 0). Per bin: the count, the mean predicted chance, the observed frequency
and its 95% interval, clustered by game (the turns of one game are not independent:
the variance of the ratio estimator sum(outcomes) / count over games as clusters).

Results depend only on the seed, never on threads (games are split into a fixed number of
chunks; every sum is over a chunk, then over the chunks in order).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from diceopt.games.yatzy.kernel.arrays import KernelArrays
from diceopt.games.yatzy.kernel.simulation import (
    KEY_BITS,
    SCORE_MASK,
    die_digits,
    play_turn,
    word_state,
    write_roll,
)
from diceopt.games.yatzy.kernel.widget import (
    SCORE_NOW,
    TURN_REROLLS,
    widget_buffers_in_kernel,
    widget_into,
)
from diceopt.games.yatzy.winning.table import beat_steps_into, cdfs_into, chances_into
from diceopt.games.yatzy.winning.win import support, win_buffers_in_kernel, win_turn

BATCH = 1 << 13  # games whose random numbers are drawn together
CHUNKS = 64  # parallel chunks per batch (fixed: sums do not depend on the threads)
BINS = 20  # calibration bins of [0, 1]
Z95 = 1.959963984540054
# per bin: count, sum of predictions, sum of outcomes, and over games (clusters) the sums
# of S_g^2, N_g^2, S_g N_g (S_g, N_g: outcome sum and count of game g in the bin)
STATS = 6


@numba.njit(cache=True)
def _finals(
    w: np.ndarray, n: int, full: int, flags: int, width: int, slot: np.ndarray,
    off: np.ndarray, length: np.ndarray, data: np.ndarray, f: np.ndarray, G: np.ndarray,
) -> int:  # fmt: skip
    """Every player's final-score pmf (score + points to come under expected-score play,
    normalised) into the rows of ``f`` and their cdfs into ``G``; returns L (every final
    score is below L)."""
    L = 1
    for j in range(n):
        mask, _, _, score, key = word_state(w[j], flags, width)
        f[j, :] = 0.0
        if mask == full:
            f[j, score] = 1.0
            L = max(L, score + 1)
            continue
        row = slot[key]
        o = off[row]
        m = length[row]
        total = 0.0
        for x in range(m):
            total += data[o + x]
        for x in range(m):
            f[j, score + x] = data[o + x] / total
        L = max(L, score + m)
    cdfs_into(f, G, n, L)
    return L


@numba.njit(cache=True)
def _games(
    g0: int, g1: int, batch0: int, n: int, V: np.ndarray, Td: np.ndarray, toff: np.ndarray,
    ttop: np.ndarray, slot: np.ndarray, off: np.ndarray, length: np.ndarray, data: np.ndarray,
    K: KernelArrays, flags: int, width: int, most: int, rnd: np.ndarray, digits: np.ndarray,
    ksize: np.ndarray, out: np.ndarray, calibrate: bool, bins: int, stats: np.ndarray,
    advised: bool,
) -> None:  # fmt: skip
    """Games g0..g1-1 (rows of ``out``: every seat's final score); ``rnd`` rows start at
    game ``batch0``. The advised seat of game g is g mod n (``advised`` False: none, every
    seat plays for the expected score). ``stats[group, bin, k]`` (group 0: the advised
    seat, 1: the others) gathers the calibration."""
    ncat = K.upper_face.size
    full = (1 << ncat) - 1
    B = widget_buffers_in_kernel(K)
    cache, rowkey, rowpts = win_buffers_in_kernel(K, most)
    f = np.zeros((n, most + 2))
    G = np.zeros((n, most + 3))
    dw = np.zeros(most + 3)
    poly = np.zeros(n + 1)
    ch = np.zeros(n)
    w = np.zeros(n, dtype=np.int64)
    pred = np.zeros((ncat * n, n))
    share = np.zeros(n)
    game = np.zeros((2, bins, 2))  # this game's outcome sum and count per group and bin
    L = 0
    for g in range(g0, g1):
        w[:] = 0
        adv = g % n if advised else -1
        for t in range(ncat):
            for pl in range(n):
                mask, flag, u, score, _ = word_state(w[pl], flags, width)
                if calibrate or pl == adv:
                    L = _finals(w, n, full, flags, width, slot, off, length, data, f, G)
                    if calibrate:
                        chances_into(f, G, n, L, ch, poly)
                        for j in range(n):  # not a slice assignment: see widget_into
                            pred[t * n + pl, j] = ch[j]
                if pl == adv:
                    beat_steps_into(f, G, pl, n, L, dw, poly)
                    p = dw[: L + 1]
                    lo, hi = support(p)
                    win_turn(
                        mask, flag, u, score, -1, p, lo, hi, Td, toff, ttop, K, flags, B,
                        cache, rowkey, rowpts, True,
                    )  # fmt: skip
                else:
                    widget_into(mask, flag, u, V, K, 0.0, B, TURN_REROLLS, SCORE_NOW)
                r, c, first = play_turn(B.policy, rnd[g - batch0, pl, t], digits, ksize, K)
                w[pl] = write_roll(w[pl], r, c, first, K, flags, width)
        top = -1
        for pl in range(n):
            out[g, pl] = (w[pl] >> KEY_BITS) & SCORE_MASK
            top = max(top, out[g, pl])
        k = 0
        for pl in range(n):
            if out[g, pl] == top:
                k += 1
        for pl in range(n):
            share[pl] = 1.0 / k if out[g, pl] == top else 0.0
        if not calibrate:
            continue
        game[:] = 0.0
        for i in range(ncat * n):
            for pl in range(n):
                q = pred[i, pl]
                b = min(bins - 1, int(q * bins))
                grp = 0 if pl == adv else 1
                stats[grp, b, 0] += 1.0
                stats[grp, b, 1] += q
                stats[grp, b, 2] += share[pl]
                game[grp, b, 0] += share[pl]
                game[grp, b, 1] += 1.0
        for grp in range(2):
            for b in range(bins):
                s = game[grp, b, 0]
                m = game[grp, b, 1]
                if m > 0.0:
                    stats[grp, b, 3] += s * s
                    stats[grp, b, 4] += m * m
                    stats[grp, b, 5] += s * m


@numba.njit(cache=True, parallel=True)
def _play_batch(
    g0: int, g1: int, n: int, V: np.ndarray, Td: np.ndarray, toff: np.ndarray,
    ttop: np.ndarray, slot: np.ndarray, off: np.ndarray, length: np.ndarray, data: np.ndarray,
    K: KernelArrays, flags: int, width: int, most: int, rnd: np.ndarray, digits: np.ndarray,
    ksize: np.ndarray, out: np.ndarray, calibrate: bool, bins: int, stats: np.ndarray,
    advised: bool, nchunks: int,
) -> None:  # fmt: skip
    """Games g0..g1-1 in ``nchunks`` parallel chunks (``stats[chunk]`` each)."""
    size = (g1 - g0 + nchunks - 1) // nchunks
    for ch in numba.prange(nchunks):
        a = g0 + ch * size
        b = min(g1, a + size)
        if a < b:
            _games(
                a, b, g0, n, V, Td, toff, ttop, slot, off, length, data, K, flags, width,
                most, rnd, digits, ksize, out, calibrate, bins, stats[ch], advised,
            )  # fmt: skip


# ---------------------------------------------------------------------------------------
# Python side


@dataclass
class TableResult:
    """Final scores (points) of ``games`` games of ``players`` seats (column = seat), the
    advised seat of each game (g mod N), the calibration sums (``stats[group, bin, k]``,
    module docstring) and the wall time."""

    players: int
    scores: np.ndarray
    stats: np.ndarray
    seconds: float
    bins: int = BINS

    @property
    def games(self) -> int:
        """Games played."""
        return int(self.scores.shape[0])

    def shares(self) -> np.ndarray:
        """Per game and seat: 1 for the winner, 1/k for a k-way tie at the top, else 0."""
        top = self.scores.max(axis=1, keepdims=True)
        at_top = self.scores == top
        return at_top / at_top.sum(axis=1, keepdims=True)

    def advised(self) -> np.ndarray:
        """Per game: the advised seat's share (1, 1/k or 0)."""
        g = np.arange(self.games)
        return self.shares()[g, g % self.players]

    def to_json(self) -> dict[str, Any]:
        """The advised seat's win rate (ties 1/k) with its 95% interval (the normal
        interval of the mean of the per-game shares), 1/N, games, mean scores (advised,
        others), per seat position the advised seat's win rate, and the calibration."""
        y = self.advised()
        n = y.size
        rate = float(y.mean())
        half = Z95 * float(y.std(ddof=1)) / math.sqrt(n) if n > 1 else 1.0
        g = np.arange(self.games)
        adv = g % self.players
        mine = self.scores[g, adv].astype(np.float64)
        others = (self.scores.sum(axis=1) - mine) / (self.players - 1)
        by_seat = [float(y[adv == s].mean()) if (adv == s).any() else None
                   for s in range(self.players)]  # fmt: skip
        return {
            "players": self.players,
            "games": n,
            "win_rate": rate,
            "ci95": [max(0.0, rate - half), min(1.0, rate + half)],
            "half_width": half,
            "fair_share": 1.0 / self.players,
            "mean_score": {"advised": float(mine.mean()), "others": float(others.mean())},
            "win_rate_by_seat": by_seat,
            "seconds": self.seconds,
            "calibration": calibration_json(self.stats, self.bins),
        }


def calibration_json(stats: np.ndarray, bins: int) -> dict[str, list[dict[str, Any]]]:
    """Per group (``advised``, ``others``, ``all``) the bins with any count: range, count,
    mean predicted chance, observed frequency and its 95% interval (clustered by game)."""
    out: dict[str, list[dict[str, Any]]] = {}
    groups = {"advised": stats[0], "others": stats[1], "all": stats[0] + stats[1]}
    for name, st in groups.items():
        rows = []
        for b in range(bins):
            count, spred, sout, s2, n2, sn = (float(x) for x in st[b])
            if count <= 0:
                continue
            freq = sout / count
            # clustered variance of the ratio: sum_g (S_g - freq N_g)^2 / count^2
            var = max(0.0, s2 - 2.0 * freq * sn + freq * freq * n2) / (count * count)
            half = Z95 * math.sqrt(var)
            rows.append(
                {
                    "bin": [b / bins, (b + 1) / bins],
                    "count": int(count),
                    "predicted": spred / count,
                    "observed": freq,
                    "ci95": [max(0.0, freq - half), min(1.0, freq + half)],
                }
            )
        out[name] = rows
    return out


def play_tables(
    expected: Any,
    targets: Any,
    pmfs: Any,
    players: int,
    games: int,
    rng: np.random.Generator,
    *,
    calibrate: bool = True,
    advised: bool = True,
    bins: int = BINS,
    batch: int = BATCH,
    progress: Callable[[int, int], None] | None = None,
) -> TableResult:
    """``games`` games at a table of ``players`` (2 to 6) from the solved expected-score
    table ``expected``, the target rows ``targets`` (a full target table or the rows from
    the start) and the distributions of every turn-start state ``pmfs`` (``slot``, ``off``,
    ``length``, ``data``: :class:`~diceopt.games.yatzy.analyses.distribution.StateDistributions`
    or :class:`~diceopt.games.yatzy.stored.store.StatePmfs`). ``advised`` False: no seat is
    advised, every seat plays for the expected score (the chances' own model: a control
    of the calibration). ``progress(done, total)`` after each batch."""
    from diceopt.games.yatzy.winning.table import check_count

    check_count(players)
    t0 = time.perf_counter()
    rules = expected.rules
    K = expected.arrays64
    Td, toff, ttop = targets.flat
    flags = rules.flags
    width = rules.bonus_threshold + 1
    ncat = rules.num_categories
    digits = die_digits(rules.dice, rules.sides)
    ksize = rules.lattice.size.astype(np.int64)
    top = rules.sides**rules.dice
    out = np.zeros((games, players), dtype=np.int64)
    stats = np.zeros((CHUNKS, 2, bins, STATS))
    slot, off, length = (np.asarray(a, dtype=np.int64) for a in (pmfs.slot, pmfs.off, pmfs.length))
    for g0 in range(0, games, batch):
        g1 = min(games, g0 + batch)
        rnd = rng.integers(0, top, size=(g1 - g0, players, ncat, 3), dtype=np.int32)
        _play_batch(
            g0, g1, players, expected.values, Td, toff, ttop, slot, off, length, pmfs.data, K,
            flags, width, int(rules.max_total), rnd, digits, ksize, out, calibrate, bins,
            stats, advised, CHUNKS,
        )  # fmt: skip
        if progress is not None:
            progress(g1, games)
    return TableResult(players, out, stats.sum(axis=0), time.perf_counter() - t0, bins)
