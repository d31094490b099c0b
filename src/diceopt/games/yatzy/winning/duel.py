"""Head-to-head Yatzy: two strategies play whole games against each other on seeded dice.

Role: ``diceopt yatzy duel``. Both players play the same variant, alternating turns,
each seeing the other's sheet and score; the first-named strategy starts the even
games (0, 2, ...) and the second-named the odd ones. The higher final score wins; equal
scores are a draw worth 1/2 to each.

Strategies:
- ``expected``: the optimal expected-score policy (the table's widget, as the advice
  ranks first and the simulation plays);
- ``theta:T``: the optimal policy of the exponential-utility table with theta T;
- ``win``: the win-seeking turn of :mod:`diceopt.games.yatzy.winning.win` against the opponent's
  sheet (its distribution: exact, under expected-score play, from the state
  distributions of :func:`diceopt.games.yatzy.analyses.distribution.state_distributions`, or
  where the opponent plays ``expected`` of
  :func:`~diceopt.games.yatzy.analyses.distribution.reached_distributions`, the same rows for
  the states it can meet; the rest of the game through the variant's full target table).

Random numbers: each player has its own dice: per game, player and turn three integers
as in :mod:`diceopt.games.yatzy.kernel.simulation` (so a strategy's dice do not depend on the
other's choices). Results depend only on the seed (and ``batch``), never on threads.

The win rate is the first-named strategy's, draws as 1/2; its 95% interval is the
normal interval of the mean of the per-game results (1, 1/2 or 0).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from diceopt.errors import InputError, SolveError
from diceopt.games.contract import CommandOutput
from diceopt.games.yatzy.kernel.arrays import KernelArrays
from diceopt.games.yatzy.kernel.simulation import (
    KEY_BITS,
    SCORE_MASK,
    die_digits,
    play_turn,
    word_state,
    write_roll,
)
from diceopt.games.yatzy.kernel.target_turn import margin
from diceopt.games.yatzy.kernel.widget import (
    SCORE_NOW,
    TURN_REROLLS,
    WidgetBuffers,
    widget_buffers,
    widget_into,
)
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.games.yatzy.stored.store import full_targets
from diceopt.games.yatzy.winning.win import (
    support,
    win_buffers,
    win_turn,
)
from diceopt.threads import run_shares

STRATEGIES = "expected, win, theta:T (e.g. theta:0.05)"
BATCH = 1 << 15  # games whose random numbers are drawn together


@dataclass(frozen=True)
class Strategy:
    """A duel strategy: ``name`` as typed, ``theta`` of its table (win: None)."""

    name: str
    theta: float | None

    @property
    def wins(self) -> bool:
        """Whether this is the win-seeking strategy."""
        return self.theta is None


def parse_strategy(text: str) -> Strategy:
    """``expected``, ``win`` or ``theta:T``; InputError (one line) otherwise."""
    from diceopt.games.yatzy.rulebook.rules import check_theta

    word = str(text).strip().lower()
    if word == "expected":
        return Strategy("expected", 0.0)
    if word == "win":
        return Strategy("win", None)
    if word.startswith("theta:"):
        try:
            theta = float(word[6:])
        except ValueError:
            raise InputError(f"theta:T needs a number, got {text!r}") from None
        return Strategy(f"theta:{theta:g}", check_theta(theta))
    raise InputError(f"unknown strategy {text!r}: use {STRATEGIES}")


# ---------------------------------------------------------------------------------------
# numba kernels


@numba.njit(cache=True, nogil=True)
def _games(
    g0: int, g1: int, batch0: int, kinds: np.ndarray, thetas: np.ndarray, V0: np.ndarray,
    V1: np.ndarray, Td: np.ndarray, toff: np.ndarray, ttop: np.ndarray, slot: np.ndarray,
    off: np.ndarray, length: np.ndarray, data: np.ndarray, one: np.ndarray, K: KernelArrays,
    flags: int, width: int, rnd: np.ndarray, digits: np.ndarray, ksize: np.ndarray, out: np.ndarray,
    B: WidgetBuffers, cache: np.ndarray, rowkey: np.ndarray, rowpts: np.ndarray,
) -> None:  # fmt: skip
    """Games g0..g1-1 (rows of ``out``: final scores of players 0 and 1); ``rnd`` rows
    start at game ``batch0``. kinds[i]: 0 the table V_i with thetas[i], 1 win. ``B`` and
    ``cache``, ``rowkey``, ``rowpts``: the share's work arrays (:func:`widget_buffers`,
    :func:`win_buffers`)."""
    ncat = K.upper_face.size
    full = (1 << ncat) - 1
    w = np.zeros(2, dtype=np.int64)
    for g in range(g0, g1):
        w[0] = 0
        w[1] = 0
        swap = g & 1  # odd games: player 1 starts
        for t in range(ncat):
            for seat in range(2):
                pl = seat ^ swap
                mask, flag, u, score, _ = word_state(w[pl], flags, width)
                if kinds[pl] == 0:
                    V = V0 if pl == 0 else V1
                    widget_into(mask, flag, u, V, K, thetas[pl], B, TURN_REROLLS, SCORE_NOW)
                else:
                    om, _, _, so, okey = word_state(w[1 - pl], flags, width)
                    p = one
                    if om != full:
                        row = slot[okey]
                        if row < 0:  # not reached by the policy the rows were made for
                            raise ValueError("the opponent's state has no distribution")
                        p = data[off[row] : off[row] + length[row]]
                    lo, hi = support(p)
                    win_turn(
                        mask, flag, u, score, so, p, lo, hi, Td, toff, ttop, K, flags, B,
                        cache, rowkey, rowpts,
                    )  # fmt: skip
                r, c, first = play_turn(B.policy, rnd[g - batch0, pl, t], digits, ksize, K)
                w[pl] = write_roll(w[pl], r, c, first, K, flags, width)
        for pl in range(2):
            out[g, pl] = (w[pl] >> KEY_BITS) & SCORE_MASK


def _play_batch(
    g0: int, g1: int, kinds: np.ndarray, thetas: np.ndarray, V0: np.ndarray, V1: np.ndarray,
    Td: np.ndarray, toff: np.ndarray, ttop: np.ndarray, slot: np.ndarray, off: np.ndarray,
    length: np.ndarray, data: np.ndarray,
    one: np.ndarray, K: KernelArrays, flags: int, width: int, rnd: np.ndarray,
    digits: np.ndarray, ksize: np.ndarray, out: np.ndarray, nchunks: int,
) -> None:  # fmt: skip
    """Games g0..g1-1 in ``nchunks`` chunks on the threads (each a call of ``_games``)."""
    size = (g1 - g0 + nchunks - 1) // nchunks
    most = margin(K)

    def share(ch: int) -> None:
        a = g0 + ch * size
        b = min(g1, a + size)
        if a >= b:
            return
        try:
            _games(
                a, b, g0, kinds, thetas, V0, V1, Td, toff, ttop, slot, off, length, data, one,
                K, flags, width, rnd, digits, ksize, out, widget_buffers(K), *win_buffers(K, most),
            )  # fmt: skip
        except ValueError as exc:  # the kernel's one raise: a state without a row
            raise SolveError(f"the duel stopped: {exc} (a defect: please report it)") from None

    run_shares(share, nchunks)


# ---------------------------------------------------------------------------------------
# Python side


@dataclass
class DuelResult:
    """Final scores (points) of ``first`` (column 0) and ``second`` (column 1)."""

    first: Strategy
    second: Strategy
    scores: np.ndarray
    seconds: float

    @property
    def games(self) -> int:
        """Games played."""
        return int(self.scores.shape[0])

    def outcomes(self) -> np.ndarray:
        """Per game, the first-named strategy's result: 1 win, 0.5 draw, 0 loss."""
        a, b = self.scores[:, 0], self.scores[:, 1]
        return np.where(a > b, 1.0, np.where(a == b, 0.5, 0.0))

    def to_json(self) -> dict[str, Any]:
        """Counts, the first-named strategy's win rate (draws 1/2) with its 95% interval,
        mean scores (points) and seconds."""
        y = self.outcomes()
        n = y.size
        rate = float(y.mean())
        half = 1.959963984540054 * float(y.std(ddof=1)) / math.sqrt(n) if n > 1 else 1.0
        means = self.scores.mean(axis=0)
        return {
            "first": self.first.name,
            "second": self.second.name,
            "games": n,
            "wins": int((y == 1.0).sum()),
            "draws": int((y == 0.5).sum()),
            "losses": int((y == 0.0).sum()),
            "win_rate": rate,
            "ci95": [max(0.0, rate - half), min(1.0, rate + half)],
            "mean_score": {"first": float(means[0]), "second": float(means[1])},
            "seconds": self.seconds,
        }


def duel(
    rules: YatzyRules,
    first: Strategy,
    second: Strategy,
    games: int,
    rng: np.random.Generator,
    *,
    dtype: str = "float32",
    batch: int = BATCH,
    progress: Callable[[int, int], None] | None = None,
) -> DuelResult:
    """Play ``games`` games of ``first`` against ``second`` under ``rules`` (see the
    module docstring). Tables come from the cache (solved and stored on first use); a
    ``win`` strategy also needs the variant's full target table and the expected-score
    table's state distributions. ``progress(done, total)`` after each batch of games."""
    from diceopt.games.yatzy.stored.store import get_solved

    check_games(games)
    expected = get_solved(rules, 0.0, dtype)
    first_table, second_table = (
        expected if s.theta is None else get_solved(rules, s.theta, dtype) for s in (first, second)
    )
    targets = dist = None
    if first.wins or second.wins:
        # a win-seeker reads its opponent's distributions under expected-score play: only
        # the states that play reaches when the opponent plays it
        facing = [o for s, o in ((first, second), (second, first)) if s.wins]
        targets, dist = win_inputs(rules, expected, all(o.theta == 0.0 for o in facing))
    return play_duel(
        first, second, (first_table, second_table), games, rng, targets=targets, dist=dist,
        batch=batch, progress=progress,
    )  # fmt: skip


def check_games(games: Any) -> int:
    """A number of games >= 1, else InputError (one line)."""
    if not isinstance(games, (int, np.integer)) or isinstance(games, bool) or games < 1:
        raise InputError(f"the number of games must be at least 1, got {games}")
    return int(games)


def play_duel(
    first: Strategy,
    second: Strategy,
    tables: tuple[Any, Any],
    games: int,
    rng: np.random.Generator,
    *,
    targets: np.ndarray | None = None,
    dist: Any = None,
    batch: int = BATCH,
    progress: Callable[[int, int], None] | None = None,
) -> DuelResult:
    """The duel itself, from solved tables of one variant: ``tables[i]`` the table of
    strategy i (for ``win``: the expected-score table), ``targets`` the full target
    table's values (any shape ending in k) and ``dist`` the state distributions of the
    expected-score table (both needed only when a strategy is ``win``)."""
    check_games(games)
    t0 = time.perf_counter()
    rules = tables[0].rules
    K = tables[0].arrays64
    kinds = np.array([1 if s.wins else 0 for s in (first, second)], dtype=np.int64)
    thetas = np.array([float(t.theta) for t in tables], dtype=np.float64)
    if kinds.any():
        if targets is None or dist is None:
            raise ValueError("the win strategy needs the target table and distributions")
        Td, toff, ttop = targets.flat
        slot, off, length, data = dist.slot, dist.off, dist.length, dist.data
    else:
        Td = np.zeros(1, dtype=np.float32)
        toff = ttop = np.zeros(1, dtype=np.int64)
        slot = off = length = np.zeros(1, dtype=np.int64)
        data = np.zeros(1)
    one = np.ones(1, dtype=data.dtype)
    flags = rules.flags
    width = rules.bonus_threshold + 1
    ncat = rules.num_categories
    digits = die_digits(rules.dice, rules.sides)
    ksize = rules.lattice.size.astype(np.int64)
    top = rules.sides**rules.dice
    out = np.zeros((games, 2), dtype=np.int64)
    threads = numba.get_num_threads()
    V0, V1 = tables[0].values, tables[1].values
    for g0 in range(0, games, batch):
        g1 = min(games, g0 + batch)
        rnd = rng.integers(0, top, size=(g1 - g0, 2, ncat, 3), dtype=np.int32)
        chunks = max(1, min(8 * threads, g1 - g0))
        _play_batch(
            g0, g1, kinds, thetas, V0, V1, Td, toff, ttop, slot, off, length, data, one, K,
            flags, width, rnd, digits, ksize, out, chunks,
        )  # fmt: skip
        if progress is not None:
            progress(g1, games)
    return DuelResult(first, second, out, time.perf_counter() - t0)


def win_inputs(rules: YatzyRules, expected: Any, reached: bool = False) -> tuple[Any, Any]:
    """Target rows for every state of the rules (:func:`full_targets`) and the state
    distributions of the expected-score table: of every state, or (``reached``: the
    win-seekers' opponents play for the expected score) of those that play reaches from
    the start (:func:`reached_distributions`: the same rows, in half the time and memory)."""
    from diceopt.games.yatzy.analyses.distribution import (
        reached_distributions,
        state_distributions,
    )
    from diceopt.progress import Stage

    table = full_targets(rules)
    what = "the states expected-score play reaches" if reached else "every state"
    with Stage(f"score distributions of {what}", "states") as stage:
        dist = reached_distributions(expected) if reached else state_distributions(expected)
        stage.update(1, 1)
    return table, dist


def run_duel(config: Any, args: Any) -> CommandOutput:
    """``diceopt yatzy duel``: play, then the win rate with its interval."""
    from diceopt.progress import Stage

    first = parse_strategy(args.first)
    second = parse_strategy(args.second)
    games = check_games(args.games)
    rng = np.random.default_rng(args.seed)
    with Stage(f"{first.name} against {second.name}", "games") as stage:
        result = duel(config.rules, first, second, games, rng, progress=stage.update)
    data = result.to_json() | {"variant": config.variant, "seed": args.seed}
    lo, hi = data["ci95"]
    means = data["mean_score"]
    lines = [
        f"{config.variant}: {first.name} against {second.name}, {games:,} games "
        f"(seed {args.seed}; the first-named starts the even games)",
        f"  {first.name} wins {data['wins']:,}, draws {data['draws']:,}, loses "
        f"{data['losses']:,}: win rate {100 * data['win_rate']:.2f}% "
        f"(draws 1/2; 95% interval {100 * lo:.2f}% to {100 * hi:.2f}%)",
        f"  mean final score: {first.name} {means['first']:.2f}, {second.name} "
        f"{means['second']:.2f} points; {result.seconds:.1f} s",
    ]
    return CommandOutput(data, lines)


MAIN_JOB_GAMES = 20_000  # about 6 s on 2 cores (forced order); interval +- 0.7 points


def main_job(out: Callable[[str], None]) -> None:
    """`make run`'s head-to-head section: a small seeded duel, win against expected, on
    Scandinavian Yatzy when its full target table is stored, else on the forced-order
    variant (whose tables take seconds)."""
    from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN, get_rules
    from diceopt.games.yatzy.stored.store import stored_table

    variant = "scandinavian" if stored_table(SCANDINAVIAN) else "scandinavian-forced"
    out(f"== Yatzy head to head ({variant}): playing to win against the expected score ==")
    if variant != "scandinavian":
        out(
            "  (Scandinavian needs its target table: `diceopt yatzy targets`, 0.84 GB, "
            "about 40 s on 2 cores)"
        )
    first, second = parse_strategy("win"), parse_strategy("expected")
    res = duel(get_rules(variant), first, second, MAIN_JOB_GAMES, np.random.default_rng(0))
    data = res.to_json()
    lo, hi = data["ci95"]
    out(
        f"  {MAIN_JOB_GAMES:,} games, seed 0: win rate {100 * data['win_rate']:.1f}% (draws 1/2; "
        f"95% interval {100 * lo:.1f}% to {100 * hi:.1f}%; a small sample)"
    )
    means = data["mean_score"]
    out(
        f"  mean final score: win {means['first']:.1f}, expected {means['second']:.1f} points; "
        f"{res.seconds:.1f} s"
    )
