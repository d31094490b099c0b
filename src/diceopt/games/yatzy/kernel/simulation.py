"""Seeded simulation of optimal Yatzy/Yahtzee play from a solved table (any variant, theta).

Role: play many games with the table's optimal policy, the same policy the advice ranks
first (one scalar widget, :func:`diceopt.games.yatzy.kernel.widget.widget_into`, and its
documented tie-break). All games of a batch advance together, one turn at a time:

1. Group the games by their turn-start state ``(mask, flag, upper)`` (a counting sort
   on the table index, or where those are too many to sweep each turn, as in Maxi
   Yatzy, on the turn's layer's own states; argsort for layers too large to count, or
   few games).
2. States that ``DIRECT_BELOW`` or more games reach: the widget's policy for the turn
   (what to keep with 2 and 1 rerolls left for every roll, which category to write for
   every final roll), in parallel over the states, ``BLOCK`` states at a time: without
   served scores from the solver's lanes (any theta), ``LANES`` states together
   (:func:`~diceopt.games.yatzy.kernel.policy.policy_lanes`: the widget's policy bit for
   bit at a quarter of its cost), else state by state from the widget. Then every game
   of such a state plays its turn with its own pre-drawn random numbers, in parallel
   over the games, and its word (state, points, events) is updated.
3. States that fewer games reach (without served scores): the same lanes' values, and
   each game's turn played from them, every choice found only for the roll it meets
   (:func:`_play_lanes`: the policy's argmax and tie-break for that roll, the same
   games as step 2 would play). Of 318,000 distinct states in a million games, 131,000
   are reached by fewer than 5 games; for them a whole policy's 756 choices cost more
   than the few games' own.

Random numbers: per game and turn, three integers uniform in ``[0, sides**dice)``, drawn
with the numpy Generator; the base-``sides`` digits of the first give the first roll, the
leading digits of the second and third give the dice rerolled at the first and second
reroll (exactly uniform, independent faces). They are drawn ahead on a thread of their
own, one draw at a time and in order
(:func:`~diceopt.games.yatzy.kernel.dice_stream.dice_stream`; a command starts it before
it loads the kernels, so that the games find their dice drawn). Results
depend only on the seed (and ``batch``), never on thread scheduling or on which of steps 2
and 3 plays a state.

Precision and performance: the widget computes in float64 from the table's values
(float32 or float64); a game is one int64 word; policies are stored as int16; steps 2
and 3 run as serial shares on a pool of threads (:func:`diceopt.threads.run_shares`:
as fast as a parallel loop, and half its cold compile: the policies 5.8 s against 11.9
s, the turns 1.6 s against 3.0 s; 1M games' turns 0.21 s either way, the same games;
inside a parallel loop's own body the turn ran at half speed); the turns read the rules'
arrays as locals and inline the plain rules' writing (a call that takes the kernel
arrays costs more than the turn) and find each roll by one table read
(:func:`reroll_tables`); a tile of ``TILE`` games goes through the turn one roll at a
time (independent lookups: the turns 0.12-0.13 s instead of 0.17). Scandinavian, 1M
games (318,247 distinct states), CPU seconds on 2 cores, load average 0.6-0.9: the
whole policies of 187,000 states 0.46-0.51, their games' turns 0.23-0.29, the 131,000
states played roll by roll 0.22-0.23, the grouping 0.09-0.11, the dice 0.14-0.26 (on
their own thread); 0.54-0.65 s wall in the process, the whole command 0.98-1.05 s
(medians of 8 interleaved runs: 1.03 s against 1.19 s without step 3, the tiles and the
dice drawn from the command's start, in the same minutes; ``benchmarks/yatzy_simulate.py``),
0.90-0.98 s since the command holds the collector as it starts (:mod:`diceopt.collector`).

Scores are points (bonuses included). ``bonus`` flags the games that reached the upper
bonus, ``yatzy`` the games that wrote five of a kind into the Yatzy/Yahtzee box for 50.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import numba
import numpy as np

from diceopt.errors import InputError
from diceopt.games.yatzy.kernel.arrays import KernelArrays, StateArrays, TableArrays
from diceopt.games.yatzy.kernel.dice_stream import DEFAULT_BATCH, DiceStream, dice_stream
from diceopt.games.yatzy.kernel.layers import layer_masks
from diceopt.games.yatzy.kernel.policy import (
    PolicyBuffers,
    category_of,
    joker_categories,
    lane_values,
    lowest_best,
    policy_buffers,
    policy_lanes,
    zero_categories,
)
from diceopt.games.yatzy.kernel.table import YatzyTable, expected_table
from diceopt.games.yatzy.kernel.turn import box_points, scores_plainly, upper_bonus
from diceopt.games.yatzy.kernel.widget import (
    SCORE_NOW,
    TURN_REROLLS,
    WidgetBuffers,
    widget_buffers,
    widget_into,
)
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.threads import run_shares

if TYPE_CHECKING:
    from diceopt.games.yatzy.kernel.saved import SavedTable

PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)
LANES = 64  # states whose policies the solver's lanes compute together
BLOCK = 2048  # distinct states whose policies are computed before their games play
MAX_COUNTING_KEYS = 1 << 24  # larger state spaces are grouped with argsort
COUNTING_KEYS_PER_GAME = 64  # and so are fewer games than the keys / this (one game: 1 ms)
TILE = 64  # games whose turns go through the rolls together (see _play_share)
DIRECT_BELOW = 5  # states that fewer games reach play without their whole policy (measured)


@dataclass
class SimulationResult:
    """Final scores (points) of simulated games and what happened in them.

    ``scores``: int64 per game (bonuses included); ``bonus``: the upper bonus was reached;
    ``yatzy``: five of a kind was written into the Yatzy box for 50. ``exact``: the table's
    value of the whole game (expected points for theta 0, else the certainty equivalent).
    ``distinct_states[t]``: distinct turn-start states at turn t (summed over batches).
    ``seconds``: wall time of the simulation (numba compile excluded if warmed up).
    """

    rules: YatzyRules
    theta: float
    scores: np.ndarray
    bonus: np.ndarray
    yatzy: np.ndarray
    exact: float
    seconds: float = 0.0
    distinct_states: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def games(self) -> int:
        """Number of games simulated."""
        return int(self.scores.size)

    def summary(self) -> dict[str, Any]:
        """Mean, std, std error, percentiles, min, max (points), bonus and Yatzy rates."""
        return summarize(self.scores, self.bonus, self.yatzy) | {
            "exact": self.exact,
            "theta": self.theta,
            "seconds": self.seconds,
        }


def summarize(scores: np.ndarray, bonus: np.ndarray, yatzy: np.ndarray) -> dict[str, Any]:
    """Summary statistics of final scores (whole points) and the two event rates
    (probability).

    From the count of each score (a few hundred values), not from a sort of the games:
    the mean exactly (an integer total), the std (ddof 1) and numpy's linear percentiles
    ((n - 1) p / 100 between the two order statistics around it) to rounding; a million
    games in 3 ms instead of 21-43 ms."""
    n = int(scores.size)
    lo = int(scores.min())
    counts = np.bincount(scores - lo)
    values = np.arange(lo, lo + counts.size, dtype=np.int64)
    mean = int(counts @ values) / n
    std = float(np.sqrt(counts @ (values - mean) ** 2 / (n - 1))) if n > 1 else 0.0
    above = np.cumsum(counts)  # above[k] games score values[k] or less
    pct = []
    for p in PERCENTILES:
        h = (n - 1) * p / 100
        i = int(np.floor(h))
        a = values[np.searchsorted(above, i, side="right")]
        b = values[np.searchsorted(above, min(i + 1, n - 1), side="right")]
        pct.append(float(a + (b - a) * (h - i)))
    return {
        "games": n,
        "mean": mean,
        "std": std,
        "std_error": std / np.sqrt(n),
        "percentiles": {str(p): v for p, v in zip(PERCENTILES, pct)},
        "min": lo,
        "max": int(values[-1]),
        "bonus_rate": float(np.mean(bonus)),
        "yatzy_rate": float(np.mean(yatzy)),
    }


def histogram_lines(scores: np.ndarray, bins: int = 20, width: int = 50) -> list[str]:
    """A text histogram of final scores: one line per bin, ``lo-hi  bar  percent``."""
    scores = np.asarray(scores)
    lo, hi = int(scores.min()), int(scores.max())
    step = max(1, -(-(hi - lo + 1) // bins))
    step = int(np.ceil(step / 5) * 5) if step > 2 else step  # round bin widths to 5 points
    start = lo - lo % step
    edges = np.arange(start, hi + step + 1, step)
    counts, _ = np.histogram(scores, bins=edges)
    top = max(1, int(counts.max()))
    lines = []
    for i, c in enumerate(counts):
        bar = "#" * round(width * c / top)
        pct = 100.0 * c / scores.size
        lines.append(f"{int(edges[i]):>5}-{int(edges[i + 1]) - 1:<5} {bar:<{width}} {pct:5.2f}%")
    return lines


def histogram_png(scores: np.ndarray, path: str, title: str, mean: float | None = None) -> None:
    """A histogram of final scores (points, share of games) written as PNG to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scores = np.asarray(scores)
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    edges = np.arange(int(scores.min()), int(scores.max()) + 6, 5)
    ax.hist(
        scores,
        bins=edges.tolist(),
        weights=np.full(scores.size, 1.0 / scores.size),
        color="#4c78a8",
    )
    if mean is not None:
        ax.axvline(mean, color="#e45756", linestyle="--", label=f"mean {mean:.2f}")
        ax.legend()
    ax.set_xlabel("final score (points)")
    ax.set_ylabel("share of games")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# ---------------------------------------------------------------------------------------
# numba kernels. ``K`` is the float64 ``KernelArrays`` (``YatzyTable.arrays64``), ``tab``
# the table (``YatzyTable.policy_arrays``).
#
# A game is one int64 word: bits 0-31 the turn-start state as the flat index of the table
# ((mask * flags + flag) * (threshold + 1) + upper), bits 32-59 the points so far, bit 60
# the upper bonus reached, bit 61 five of a kind written into the Yatzy box for 50.

KEY_BITS = 32
KEY_MASK = (1 << KEY_BITS) - 1
SCORE_MASK = (1 << 28) - 1
BONUS_BIT = 1 << 60
YATZY_BIT = 1 << 61


@numba.njit(cache=True, nogil=True)
def _group(
    words: np.ndarray, count: np.ndarray, out: np.ndarray, rank: np.ndarray, masks: np.ndarray,
    fw: int, lkey: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Counting sort of the games by state into ``out`` (as long as ``words``): (group
    starts, group keys). ``count`` (int32, one per key counted: half the memory to sweep)
    is work space; the caller keeps both buffers from turn to turn (on this kind of
    machine new memory costs more than the sort: 8 MB of fresh pages took about 3 ms).

    ``fw`` 0: the keys counted are the games' flat keys. ``fw`` > 0 (flags x width): every
    game's filled mask is one of ``masks`` (a layer's, ascending; ``rank[mask]`` its index
    there) and the keys counted are the layer's own, ``rank[mask] * fw + key % fw``
    (``lkey``, as long as ``words``, keeps them between the two passes): ``count`` then
    needs the layer's keys only (Maxi Yatzy: 15.7 million at most, against 89 million for
    every mask, too many to sweep each turn). A mask's rank grows with the mask, so the
    groups and their order are the same either way."""
    n = words.size
    layered = fw > 0
    nkeys = masks.size * fw if layered else count.size
    count[:nkeys] = 0
    # each pass over the games written twice, not one loop testing ``layered``: the flat
    # keys' passes ran 8% slower with the test (Scandinavian, a turn of a million games)
    if layered:
        for g in range(n):
            key = words[g] & KEY_MASK
            m = key // fw
            key = rank[m] * fw + key - m * fw
            lkey[g] = key
            count[key] += 1
    else:
        for g in range(n):
            count[words[g] & KEY_MASK] += 1
    starts = np.empty(min(n, nkeys) + 1, dtype=np.int64)
    gkey = np.empty(min(n, nkeys), dtype=np.int64)
    ngroups = 0
    at = 0
    for key in range(nkeys):
        c = count[key]
        if c > 0:
            starts[ngroups] = at
            gkey[ngroups] = key
            ngroups += 1
            count[key] = at  # from here: where the key's next game goes
            at += c
    starts[ngroups] = n
    if layered:
        for i in range(ngroups):  # the groups' flat keys (a test in the sweep cost 5%)
            gkey[i] = masks[gkey[i] // fw] * fw + gkey[i] % fw
        for g in range(n):
            key = lkey[g]
            out[count[key]] = words[g]
            count[key] += 1
    else:
        for g in range(n):
            key = words[g] & KEY_MASK
            out[count[key]] = words[g]
            count[key] += 1
    return starts[: ngroups + 1].copy(), gkey[:ngroups].copy()


@numba.njit(cache=True)
def _decode(gkey: np.ndarray, flags: int, width: int) -> StateArrays:
    """The turn-start states (mask, flag, upper) of the flat table keys ``gkey``."""
    n = gkey.size
    mask = np.empty(n, dtype=np.int64)
    flag = np.empty(n, dtype=np.int64)
    upper = np.empty(n, dtype=np.int64)
    for i in range(n):
        key = gkey[i]
        upper[i] = key % width
        rest = key // width
        flag[i] = rest % flags
        mask[i] = rest // flags
    return StateArrays(mask, flag, upper)


class Games(NamedTuple):
    """Games that :func:`_lanes_share` plays from its lanes: those of group
    ``groups[i]`` for state i, at positions ``starts[g] .. starts[g + 1] - 1`` of
    ``words`` with the random integers ``rnd`` and the dice tables ``dice``
    (:func:`reroll_tables`). Empty ``groups``: none (the policies are written instead)."""

    groups: np.ndarray  # int64
    starts: np.ndarray  # int64
    words: np.ndarray  # int64
    rnd: np.ndarray  # (games, 3) int32
    dice: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def no_games() -> Games:
    """No games (:class:`Games` of empty arrays of its dtypes): :func:`_lanes_share` writes
    the policies."""
    z = np.zeros(0, dtype=np.int64)
    dice = (np.zeros(0, np.int16), z, z, np.zeros((0, 0), np.int32))
    return Games(z, z, z, np.zeros((0, 3), dtype=np.int32), dice)


@numba.njit(cache=True, nogil=True)
def _lanes_share(
    states: StateArrays,
    lo: int,
    hi: int,
    t: int | np.integer,
    nthreads: int,
    tab: TableArrays,
    K: KernelArrays,
    pol: np.ndarray,
    games: Games,
    W: PolicyBuffers,
) -> None:
    """The states lo .. hi - 1 of ``states`` through the solver's lanes (those of the
    share's work arrays ``W``, :func:`~diceopt.games.yatzy.kernel.policy.policy_buffers`),
    batches t, t + nthreads, ... (the t-th share): without ``games``, their policies into
    ``pol[i - lo]`` (``policy_lanes``, the widget's policy bit for bit); with them, their
    games played from the lanes' values (:func:`_play_lanes`). Not for served scores
    (:func:`_widget_policies_of`). One kernel for both: each cached kernel carries its
    own copy of the lanes' code (0.6 MB), and loading one took 15 ms."""
    V, theta, flags, width = tab
    lanes = W.policy.shape[0]
    nd = K.offset.size - 2
    stack = np.empty(nd * (nd + 1) // 2 + 1, dtype=np.int64)
    for b in range(t, (hi - lo + lanes - 1) // lanes, nthreads):
        s0 = lo + b * lanes
        nb = min(lanes, hi - s0)
        if games.groups.size == 0:
            policy_lanes(states, s0, nb, V, K, W, theta, pol, s0 - lo)  # written in place
            continue
        lane_values(states, s0, nb, V, K, W, theta)  # as policy_lanes has them
        zero_categories(nb, K, W.SR, W.vecs[0], W.tmp[2])
        _play_lanes(states, s0, nb, games, W, K, flags, width, stack)


@numba.njit(cache=True)
def _play_lanes(
    states: StateArrays,
    s0: int,
    nb: int,
    games: Games,
    W: PolicyBuffers,
    K: KernelArrays,
    flags: int,
    width: int,
    stack: np.ndarray,
) -> None:
    """The games of states s0 .. s0 + nb - 1 (lanes 0 .. nb - 1 of ``W``, as
    :func:`_lanes_share` leaves them), each roll's choice found as it comes
    (:func:`~diceopt.games.yatzy.kernel.policy.category_of`,
    :func:`~diceopt.games.yatzy.kernel.policy.lowest_best`) instead of the whole policy:
    for states that few games reach (a whole policy's choices cost about 1.2
    microseconds of a state's 2.0, a game's three choices about 0.3-0.45; Scandinavian,
    one thread). ``stack``: work space of ``lowest_best``."""
    groups, starts, words, rnd, dice = games
    rolled, koff, kroll, mods = dice
    A, M, _, M1, SR, vecs, _, tmp, _ = W
    st_mask, st_flag, st_u = states
    score, upper_face, yz_face, needs = K.score, K.upper_face, K.yz_face, K.needs
    T, bon, yz_cat = K.threshold, K.bonus, K.yz_cat
    # rules where a box's points can be more than K.score: write_state where a roll does not
    # score plainly (a call that takes K costs more than the turn)
    special = K.joker_code != 0 or K.served != 0 or K.track != 0 or K.ubonus != 0
    jokers = K.joker_code != 0 or K.ubonus != 0
    base = K.offset[K.offset.size - 2]
    joker = np.full(yz_face.size, -1, dtype=np.int64)  # the lane's joker categories
    vals = np.empty(yz_face.size)
    for ln in range(nb):
        i = s0 + ln
        ms, fl, u = st_mask[i], st_flag[i], st_u[i]
        if jokers:
            joker_categories(ms, K, SR, ln, vals, joker)
        g = groups[i]
        for p in range(starts[g], starts[g + 1]):
            # the turn as _play_share plays it with the policy's choices (_keep_policy:
            # scoring now where its value reaches the best)
            r = rolled[rnd[p, 0]] + 0
            level = 2
            k = base + r
            if A[k, ln] < M[k, ln]:
                k = lowest_best(k, M, ln, K, stack)
                level = 1
                r = rolled[koff[k] + mods[rnd[p, 1], kroll[k]]] + 0
                k = base + r
                if A[k, ln] < M1[k, ln]:
                    k = lowest_best(k, M1, ln, K, stack)
                    level = 0
                    r = rolled[koff[k] + mods[rnd[p, 2], kroll[k]]] + 0
            c = category_of(r, ln, K, SR, vecs[0], tmp[2], joker)
            if special and not scores_plainly(r, c, level == 2, yz_face, needs):
                words[p] = write_state(words[p], ms, fl, u, r, c, level == 2, K, flags, width)
            else:
                words[p] = write_plain(
                    words[p], ms, fl, u, r, c, score, upper_face, T, bon, yz_cat, flags, width
                )


@numba.njit(cache=True, nogil=True)
def _widget_policies_of(
    states: StateArrays,
    lo: int,
    hi: int,
    t: int | np.integer,
    nthreads: int,
    tab: TableArrays,
    K: KernelArrays,
    pol: np.ndarray,
    B: WidgetBuffers,
) -> None:
    """:func:`_lanes_share`'s policies with served scores (which ``policy_lanes`` does not
    know): the scalar widget state by state (``B``: the share's work arrays)."""
    V, theta, flags, width = tab
    st_mask, st_flag, st_u = states
    R = K.roll_p.size
    lanes = LANES
    for b in range(t, (hi - lo + lanes - 1) // lanes, nthreads):
        s0 = lo + b * lanes
        for i in range(s0, min(hi, s0 + lanes)):
            widget_into(st_mask[i], st_flag[i], st_u[i], V, K, theta, B, TURN_REROLLS, SCORE_NOW)
            for a in range(3):
                for r in range(R):
                    pol[i - lo, a, r] = B.policy[a, r]


def _policies(
    states: StateArrays,
    lo: int,
    hi: int,
    tab: TableArrays,
    K: KernelArrays,
    pol: np.ndarray,
    nthreads: int,
) -> None:
    """pol[i - lo] = the turn policy (3, R) of state i of ``states``, lo <= i < hi: one
    serial share per thread (:func:`diceopt.threads.run_shares`; with served scores the
    widget's share, compiled only for the rules that have them)."""
    shares = max(1, min(nthreads, (hi - lo + LANES - 1) // LANES))
    none = no_games()

    def share(t: int) -> None:
        if K.served:
            _widget_policies_of(states, lo, hi, t, shares, tab, K, pol, widget_buffers(K))
        else:
            _lanes_share(states, lo, hi, t, shares, tab, K, pol, none, policy_buffers(K, LANES))

    run_shares(share, shares)


def _direct(
    states: StateArrays, games: Games, tab: TableArrays, K: KernelArrays, pol: np.ndarray,
    nthreads: int,
) -> None:  # fmt: skip
    """Play one turn for ``games`` (group ``games.groups[i]`` in state i of ``states``)
    without their whole policies (:func:`_lanes_share`), one serial share per thread;
    ``pol`` is only passed on (the kernel's one signature)."""
    n = states.mask.size
    shares = max(1, min(nthreads, (n + LANES - 1) // LANES))

    def share(t: int) -> None:
        _lanes_share(states, 0, n, t, shares, tab, K, pol, games, policy_buffers(K, LANES))

    run_shares(share, shares)


@numba.njit(cache=True)
def play_turn(
    pol: np.ndarray, rnd: np.ndarray, digits: np.ndarray, ksize: np.ndarray, K: KernelArrays
) -> tuple[int, int, bool]:
    """One turn with the turn policy ``pol`` (3, R) and the turn's three random integers
    ``rnd`` (see the module docstring): returns (final roll index r, category c, whether
    it is written straight after the first roll)."""
    add_die, offset = K.add_die, K.offset
    nd = offset.size - 2
    base = offset[nd]
    idx = 0  # the empty keep: roll every die
    act = 0
    for level in range(2, -1, -1):  # rerolls left
        x = rnd[2 - level]
        for j in range(nd - ksize[idx]):
            idx = add_die[idx, digits[x, j]]
        act = pol[level, idx - base]
        if act < 0 or level == 0:
            break
        idx = act  # keep these dice, roll the rest
    return idx - base, -act - 1, level == 2


@numba.njit(cache=True)
def word_state(w: int, flags: int, width: int) -> tuple[int, int, int, int, int]:
    """(mask, flag, upper, score, flat key) of a game word (the state and score a game
    carries in one int64)."""
    key = w & KEY_MASK
    u = key % width
    rest = key // width
    return rest // flags, rest % flags, u, (w >> KEY_BITS) & SCORE_MASK, key


@numba.njit(cache=True)
def write_roll(w: int, r: int, c: int, first: bool, K: KernelArrays, flags: int, width: int) -> int:
    """The game word ``w`` (state, points, events) after writing roll r into category c
    (``first``: straight after the first roll; the points of
    :func:`~diceopt.games.yatzy.kernel.turn.box_points` and the bonuses)."""
    key = w & KEY_MASK
    rest = key // width
    return write_state(w, rest // flags, rest % flags, key % width, r, c, first, K, flags, width)


@numba.njit(cache=True)
def write_state(
    w: int,
    ms: int,
    fl: int,
    u: int,
    r: int,
    c: int,
    first: bool,
    K: KernelArrays,
    flags: int,
    width: int,
) -> int:
    """As :func:`write_roll` with the word's state ``(ms, fl, u)`` already decoded."""
    T = K.threshold
    pts = 0
    if fl == 1 and K.yz_face[r] >= 0:
        pts += K.ybonus
    got = box_points(ms, fl, r, c, first, K)
    pts += got
    if K.upper_face[c] >= 0:
        if K.ubonus != 0:
            pts += int(upper_bonus(ms, r, c, K))
        if u < T and u + got >= T:
            pts += K.bonus
            if K.bonus > 0:  # rules without an upper bonus (Generala) never earn one
                w |= BONUS_BIT
        u = min(T, u + got)
    elif c == K.yz_cat and got > 0:
        w |= YATZY_BIT
        if K.track:
            fl = 1
    ms |= 1 << c
    sc = ((w >> KEY_BITS) & SCORE_MASK) + pts
    flags_bits = w & (BONUS_BIT | YATZY_BIT)
    return flags_bits | (sc << KEY_BITS) | ((ms * flags + fl) * width + u)


@numba.njit(cache=True, inline="always")
def write_plain(
    w: int, ms: int, fl: int, u: int, r: int, c: int, score: np.ndarray,
    upper_face: np.ndarray, T: int, bon: int, yz_cat: int, flags: int, width: int,
) -> int:  # fmt: skip
    """:func:`write_state` where the roll scores plainly (a box's points are ``score[r,
    c]``: :func:`~diceopt.games.yatzy.kernel.turn.scores_plainly`; under the plain rules,
    with no jokers, served scores, tracked Yatzy or Kniffel bonus, every roll does),
    inlined where games are played:
    a call that takes the kernel arrays costs more than the turn (their reference counts).
    Its conditions are selects: without the branches (mispredicted as often as they go
    either way) 1M games' turns take 0.19 s of wall time, not 0.22."""
    got = int(score[r, c])  # whole points
    up = upper_face[c] >= 0
    cross = up & (u < T) & (u + got >= T)  # &: no short-circuit branches
    pts = got + (bon if cross else 0)
    w |= BONUS_BIT if cross & (bon > 0) else 0
    w |= YATZY_BIT if (c == yz_cat) & (got > 0) else 0  # the Yatzy box is never upper
    u = min(T, u + got) if up else u
    sc = ((w >> KEY_BITS) & SCORE_MASK) + pts
    return (
        (w & (BONUS_BIT | YATZY_BIT))
        | (sc << KEY_BITS)
        | (((ms | (1 << c)) * flags + fl) * width + u)
    )


@numba.njit(cache=True, nogil=True)
def _play_share(
    words: np.ndarray,
    starts: np.ndarray,
    states: StateArrays,
    glo: int,
    ghi: int,
    a: int,
    b: int,
    pol: np.ndarray,
    prow: np.ndarray,
    rnd: np.ndarray,
    dice: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    flags: int,
    width: int,
    K: KernelArrays,
) -> None:
    """Games at positions a .. b - 1 of groups glo..ghi (one chunk of ``_play``; a
    function of its own: inside the parallel loop the same code runs slower); group gi
    plays with policy ``pol[prow[gi - glo]]``, or not at all where that is -1 (its games
    were played by :func:`_play_lanes`)."""
    st_mask, st_flag, st_u = states
    # the rules' arrays as locals: a call that takes K costs more than the turn (its
    # arrays' reference counts)
    score, upper_face, yz_face, needs = K.score, K.upper_face, K.yz_face, K.needs
    rolled, koff, kroll, mods = dice
    T, bon, yz_cat = K.threshold, K.bonus, K.yz_cat
    # rules where a box's points can be more than K.score (jokers, served scores,
    # needs_yatzy and the Yahtzee bonus, the Kniffel bonus): write_state where a roll does
    # not score plainly (scores_plainly), write_plain elsewhere
    special = K.joker_code != 0 or K.served != 0 or K.track != 0 or K.ubonus != 0
    lo = glo
    hi = ghi
    while hi - lo > 1:  # the group holding position a
        m = (lo + hi) // 2
        if starts[m] <= a:
            lo = m
        else:
            hi = m
    gi = lo
    at = a
    # a tile of games goes through the turn one roll at a time for all of them: each pass
    # is a loop of independent lookups (no branch on how many rolls a game takes), so the
    # lookups of many games overlap; a game that has written keeps its roll and choice
    rolls = np.empty((3, TILE), dtype=np.int64)
    acts = np.empty((3, TILE), dtype=np.int64)
    while at < b:
        end = min(b, starts[gi + 1])
        g = prow[gi - glo]
        ms0, fl, u0 = st_mask[gi], st_flag[gi], st_u[gi]
        for t0 in range(at if g >= 0 else end, end, TILE):
            m = min(end - t0, TILE)
            # the turn (twin of play_turn, the dice added by table: see reroll_tables)
            # + 0: the roll as int64 (the table is int16; int() keeps int16), so that
            # write_state and the box points have one compiled variant
            for j in range(m):  # the first roll: the empty keep, every die rolled
                r = rolled[rnd[t0 + j, 0]] + 0
                rolls[0, j] = r
                acts[0, j] = pol[g, 2, r]
            for level in (1, 2):  # the rerolls, rerolls left: 2 - level
                for j in range(m):
                    act = acts[level - 1, j]
                    k = act if act >= 0 else 0  # written: any keep's lookups, unused
                    r = rolled[koff[k] + mods[rnd[t0 + j, level], kroll[k]]] + 0
                    rolls[level, j] = r if act >= 0 else rolls[level - 1, j]
                    acts[level, j] = pol[g, 2 - level, r] if act >= 0 else act
            for j in range(m):
                p = t0 + j
                r = rolls[2, j]
                c = -acts[2, j] - 1
                first = acts[0, j] < 0
                if special and not scores_plainly(r, c, first, yz_face, needs):
                    words[p] = write_state(words[p], ms0, fl, u0, r, c, first, K, flags, width)
                else:
                    words[p] = write_plain(
                        words[p], ms0, fl, u0, r, c, score, upper_face, T, bon, yz_cat, flags,
                        width,
                    )  # fmt: skip
        at = end
        gi += 1


def _play(
    words: np.ndarray,
    starts: np.ndarray,
    states: StateArrays,
    glo: int,
    ghi: int,
    pol: np.ndarray,
    prow: np.ndarray,
    rnd: np.ndarray,
    dice: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    flags: int,
    width: int,
    K: KernelArrays,
    nchunks: int,
) -> None:
    """Play one turn for the games of groups glo..ghi (words sorted by state, in place;
    group g's state is ``states[g]``, its policy ``pol[prow[g - glo]]``, none where -1),
    in ``nchunks`` chunks of games on the threads."""
    p0 = int(starts[glo])
    size = (int(starts[ghi]) - p0 + nchunks - 1) // nchunks

    def share(ch: int) -> None:
        a = p0 + ch * size
        b = min(int(starts[ghi]), a + size)
        if a < b:
            _play_share(
                words, starts, states, glo, ghi, a, b, pol, prow, rnd, dice, flags, width, K
            )

    run_shares(share, nchunks)


def die_digits(dice: int, sides: int) -> np.ndarray:
    """digits[x, j]: the j-th base-``sides`` digit of x, for x < sides**dice (int8)."""
    n, s = dice, sides
    x = np.arange(s**n, dtype=np.int64)
    return np.stack([(x // s**j) % s for j in range(n)], axis=1).astype(np.int8)


def reroll_tables(
    rules: YatzyRules, K: KernelArrays
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The dice of a turn by table lookup, ``(rolled, koff, kroll, mods)``: keeping
    multiset k (flat lattice index) and rolling ``kroll[k]`` dice whose faces are the
    leading base-``sides`` digits of x gives roll ``rolled[koff[k] + mods[x, kroll[k]]]``
    (index among the sorted rolls; ``mods[x, m] = x % sides**m``; the empty keep is k =
    0 at offset 0, so the first roll is ``rolled[x]``). The same rolls as adding the
    digits one die at a time (:func:`play_turn`), one read instead of a chain of them."""
    n, s = rules.dice, rules.sides
    ksize = rules.lattice.size.astype(np.int64)
    return _reroll_tables(K.add_die, ksize, K.offset, n, s)


@numba.njit(cache=True)
def _reroll_tables(
    add_die: np.ndarray, ksize: np.ndarray, offset: np.ndarray, n: int, s: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    base = offset[n]
    kroll = np.zeros(base, dtype=np.int64)
    koff = np.zeros(base, dtype=np.int64)
    total = 0
    for k in range(base):
        kroll[k] = n - ksize[k]
        koff[k] = total
        total += s ** kroll[k]
    rolled = np.empty(total, dtype=np.int16)
    for k in range(base):
        for v in range(s ** kroll[k]):
            idx = k
            x = v
            for _ in range(kroll[k]):
                idx = add_die[idx, x % s]
                x //= s
            rolled[koff[k] + v] = idx - base
    top = s**n
    mods = np.empty((top, n + 1), dtype=np.int32)
    for x in range(top):
        m = 1
        for j in range(n + 1):
            mods[x, j] = x % m
            m *= s
    return rolled, koff, kroll, mods


def _group_numpy(words: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """As ``_group`` for key spaces too large for a counting sort (stable argsort):
    (sorted words, group starts, group keys)."""
    keys = words & KEY_MASK
    order = np.argsort(keys, kind="stable")
    words = words[order]
    keys = keys[order]
    cut = np.flatnonzero(np.diff(keys)) + 1
    starts = np.concatenate(([0], cut, [words.size])).astype(np.int64)
    return words, starts, keys[starts[:-1]].copy()


def turn_policy(table: YatzyTable, mask: int, flag: int, upper: int) -> np.ndarray:
    """The optimal turn the simulation plays from a turn-start state, shape (3, R) int64.

    ``[t, r]`` with t rerolls left and roll r: ``>= 0`` keep that multiset (flat lattice
    index) and reroll the rest, ``< 0`` write into category ``-value - 1``. The policy of
    ``widget.widget_into`` (the module's tie-break), as the advice ranks its actions.
    """
    K = table.arrays64
    B = widget_buffers(K)
    widget_into(
        int(mask), int(flag), int(upper), table.values, K, float(table.theta), B, TURN_REROLLS,
        SCORE_NOW,
    )  # fmt: skip
    return B.policy.copy()


def warm_up(
    dtype: str | np.dtype = "float32", table: YatzyTable | SavedTable | None = None
) -> float:
    """Compile (or load from numba's cache) the simulation for tables of ``dtype``; seconds.

    Plays a few games of a small American variant (jokers and the Yahtzee bonus included)
    with theta 0 and theta != 0; with ``table``, one game of that table instead (what a
    simulation of it loads, without the solver's code).
    """
    from diceopt.games.yatzy.kernel.solve import solve_table
    from diceopt.games.yatzy.rulebook.variants import AMERICAN

    t0 = time.perf_counter()
    if table is not None:
        simulate(table, 1, np.random.default_rng(0))
        return time.perf_counter() - t0
    tiny = AMERICAN.reduced(("ones", "full_house", "yahtzee"), bonus_threshold=3)
    for theta in (0.0, 0.1):
        table = solve_table(tiny, dtype=dtype, theta=theta)
        simulate(table, 64, np.random.default_rng(0))
    return time.perf_counter() - t0


def simulate(
    table: YatzyTable | SavedTable,
    games: int,
    rng: np.random.Generator,
    *,
    batch: int = DEFAULT_BATCH,
    drawn: DiceStream | None = None,
) -> SimulationResult:
    """Play ``games`` games with the optimal policy of ``table`` (its variant and theta).

    ``rng``: the seeded numpy Generator all dice come from. ``batch``: games advanced
    together (memory bound); results depend on the seed and ``batch`` only. ``drawn``: the
    dice of these games already being drawn from ``rng``
    (:func:`~diceopt.games.yatzy.kernel.dice_stream.dice_stream`, started by a command
    before it loads the kernels); by default they are drawn from here on.
    """
    try:
        return _simulate(table, games, rng, batch, drawn)
    finally:
        if drawn is not None:
            drawn.close()  # also where the games never started


def _simulate(
    table: YatzyTable | SavedTable,
    games: int,
    rng: np.random.Generator,
    batch: int,
    drawn: DiceStream | None,
) -> SimulationResult:
    if not isinstance(games, (int, np.integer)) or games < 1:
        raise InputError(f"the number of games must be at least 1, got {games}")
    if batch < 1:
        raise InputError(f"batch must be at least 1, got {batch}")
    table = expected_table(table, "the simulation")
    t0 = time.perf_counter()
    rules = table.rules
    tab, K = table.policy_arrays, table.arrays64
    theta, flags, width = tab.theta, tab.flags, tab.width
    nkeys = (1 << rules.num_categories) * flags * width
    R = len(rules.roll_counts)
    dice = reroll_tables(rules, K)
    ncat = rules.num_categories
    threads = numba.get_num_threads()
    scores = np.zeros(games, dtype=np.int64)
    bonus = np.zeros(games, dtype=np.bool_)
    yatzy = np.zeros(games, dtype=np.bool_)
    distinct = np.zeros(ncat, dtype=np.int64)
    pol = np.empty((BLOCK, 3, R), dtype=np.int16)
    # the counting sort sweeps every key it counts each turn (for a few games argsort is
    # cheaper): the flat keys where they are few enough, else each turn the keys of its
    # layer where those are (every game has filled as many boxes: one of the layer's
    # masks), else argsort
    limit = min(MAX_COUNTING_KEYS, COUNTING_KEYS_PER_GAME * min(batch, games))
    fw = flags * width
    flat = nkeys <= limit
    layers = [] if flat else [m if m.size * fw <= limit else None for m in layer_masks(rules)]
    countable = [m for m in layers if m is not None]
    rank = np.zeros((1 << rules.num_categories) if countable else 0, dtype=np.int64)
    for m in countable:
        rank[m] = np.arange(m.size)
    count = np.empty(nkeys if flat else max((m.size * fw for m in countable), default=0), np.int32)
    no_layer = np.zeros(0, dtype=np.int64)
    spare = np.empty(min(batch, games), dtype=np.int64)  # the sorted words' next home
    lkey = np.empty(spare.size if countable else 0, dtype=np.int32)
    top = rules.sides**rules.dice
    if drawn is None:
        drawn = dice_stream(rng, top, games, ncat, batch)
    elif (drawn.top, drawn.games, drawn.turns, drawn.batch) != (top, games, ncat, batch):
        drawn.close()
        raise ValueError("the dice stream was started for other games")
    draws = iter(drawn)
    for lo in range(0, games, batch):
        n = min(batch, games - lo)
        words = np.zeros(n, dtype=np.int64)
        for turn in range(ncat):
            rnd = next(draws)
            layer = None if flat else layers[turn]
            if flat or layer is not None:
                out = spare[:n]
                if layer is None:
                    starts, gkey = _group(words, count, out, no_layer, no_layer, 0, lkey)
                else:
                    starts, gkey = _group(words, count, out, rank, layer, fw, lkey[:n])
                words, spare = out, words
            else:
                words, starts, gkey = _group_numpy(words)
            ngroups = gkey.size
            distinct[turn] += ngroups
            states = _decode(gkey, flags, width)
            played = np.diff(starts)
            # states few games reach: each roll's choice as it comes (not for served scores)
            few = played < (0 if K.served else DIRECT_BELOW)
            direct = np.flatnonzero(few)
            if direct.size:
                some = StateArrays(*(a[direct] for a in states))
                _direct(some, Games(direct, starts, words, rnd, dice), tab, K, pol, threads)
            rich = np.flatnonzero(~few)
            for blo in range(0, rich.size, BLOCK):
                block = rich[blo : blo + BLOCK]
                glo, ghi = int(block[0]), int(block[-1]) + 1
                some = StateArrays(*(a[block] for a in states))
                _policies(some, 0, block.size, tab, K, pol, threads)
                prow = np.full(ghi - glo, -1, dtype=np.int64)
                prow[block - glo] = np.arange(block.size)
                chunks = max(1, min(4 * threads, (starts[ghi] - starts[glo]) // 256))
                _play(
                    words, starts, states, glo, ghi, pol, prow, rnd, dice, flags, width, K,
                    chunks,
                )  # fmt: skip
        scores[lo : lo + n] = (words >> KEY_BITS) & SCORE_MASK
        bonus[lo : lo + n] = (words & BONUS_BIT) != 0
        yatzy[lo : lo + n] = (words & YATZY_BIT) != 0
    return SimulationResult(
        rules,
        theta,
        scores,
        bonus,
        yatzy,
        table.value,
        time.perf_counter() - t0,
        distinct,
    )
