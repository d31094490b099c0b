"""The batch API: numpy in, numpy out, for many Yatzy situations at once.

Two calls, both vectorised (no Python loop per situation):

- :func:`state_values`: the value of turn-start states ``(mask, flag, upper)``, one
  indexed read of the solved table per state;
- :func:`option_values`: for situations (a turn-start state, the roll showing and the
  rerolls left), the value of every legal action, the best action and every action's
  regret, computed by numba kernels in parallel over the distinct turn-start states.
  The turn rules exist once, in :mod:`diceopt.games.yatzy.kernel.turn`: with theta == 0 the
  distinct states go through the solver's lanes (``solve_batch`` in float64, 32 states
  at a time, which also hands back the keep values with one reroll left), with theta !=
  0 through the scalar widget (:func:`widget_into`); scoring values come from
  ``successor_rows``, ``allowed_categories`` and ``write_value`` (a roll that is no Yatzy
  and not served: ``row_of`` on the rules' arrays the kernel holds). The numbers are those of
  ``advise_position`` (the advice) bit for bit (tests), for every rule the solver knows
  (Generala's served scores and Doble Generala, Kniffel's bonus included).

Units: every value is in points, the expected points still to come from the situation
(bonuses included, the score so far excluded), or with a table of ``theta != 0`` their
certainty equivalent; ``regret`` is the best value minus the action's value (points, >= 0).

Situations (arrays of one length n, or scalars; whole numbers of any integer or float
dtype: a fraction, NaN, an infinity, a number beyond int64, a non-number or arrays of
different lengths is an InputError naming the first such situation):

- ``mask``: bit mask of the filled categories (bit c = category c of the rules' order);
- ``flag``: 1 when the Yahtzee box holds its points where the state tracks it (American
  with the Yahtzee bonus: further Yahtzees earn it; Generala: a Doble Generala scores),
  else 0;
- ``upper``: the upper-section total so far (points; capped at the bonus threshold here);
- ``roll``: the dice showing as a roll index, 0 .. R-1 among the sorted rolls in lattice
  order (:func:`roll_index` turns dice into it, :func:`roll_dice` back);
- ``rerolls``: rerolls left this turn, 0, 1 or 2 (2: the turn's first roll, where
  served scores apply).

Action encoding (``codes``): code ``c`` for ``0 <= c < C`` writes the roll into category
c (the rules' order, ``score <id>``); code ``C + k`` keeps multiset k of the keep lattice
(flat lattice index, ``0 <= k < K``: keeps of fewer than all dice, fewer dice first, then
the sorted pips read as a word; ``keep -`` is k = 0) and rerolls the rest. There are
``C + K`` codes (225 for Scandinavian Yatzy: 15 + 210; 223 for American: 13 + 210);
:func:`action_names` lists their notation, as ``advise`` writes actions. Ascending code
order is the advice's tie-break order, so the best action is the lowest code with the
highest value: the action ``advise`` lists first and the simulation plays.

Layout of :class:`BatchOptions` (flat, like the ``yatzy-solver`` peer): row i holds the
legal actions of situation i in ascending code order, ``count[i]`` of them, padded with
code -1 and NaN up to ``width`` (the most legal actions any situation has: C + 31 for
five dice); :meth:`BatchOptions.dense` scatters them into an ``(n, C + K)`` array.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numba
import numpy as np

from diceopt.errors import InputError
from diceopt.games.yatzy.kernel.arrays import KernelArrays
from diceopt.games.yatzy.kernel.solve import LANES, gather, lane_batches, solve_batch
from diceopt.games.yatzy.kernel.table import YatzyTable
from diceopt.games.yatzy.kernel.turn import (
    allowed_categories,
    row_of,
    successor_rows,
    write_value,
)
from diceopt.games.yatzy.kernel.widget import (
    SCORE_NOW,
    TURN_REROLLS,
    WidgetBuffers,
    widget_buffers,
    widget_into,
)
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.threads import run_shares

__all__ = [
    "BatchOptions",
    "OptionRows",
    "action_names",
    "num_codes",
    "option_values",
    "roll_dice",
    "roll_index",
    "state_index",
    "state_values",
]


# --- encodings -----------------------------------------------------------------------------


def num_codes(rules: YatzyRules) -> int:
    """Number of action codes: categories plus keeps of fewer than all dice."""
    return rules.num_categories + int(rules.lattice.offset[rules.dice])


@lru_cache(maxsize=32)
def action_names(rules: YatzyRules) -> tuple[str, ...]:
    """The notation of every action code (``score chance``, ``keep 3 3``, ``keep -``)."""
    names = [f"score {c}" for c in rules.categories]
    lat = rules.lattice
    for k in range(int(lat.offset[rules.dice])):
        pips = [str(f + 1) for f, n in enumerate(lat.counts[k]) for _ in range(int(n))]
        names.append("keep " + (" ".join(pips) if pips else "-"))
    return tuple(names)


def _whole_numbers(name: str, values: Any) -> np.ndarray:
    """``values`` (any shape) as int64; InputError naming the first entry that is not a
    whole number within int64 (a fraction, NaN, an infinity, a number too large) or
    when they are not numbers at all. A float array of whole numbers is taken."""
    a = np.asarray(values)
    if a.dtype == np.bool_ or np.issubdtype(a.dtype, np.signedinteger):
        return a.astype(np.int64, copy=False)
    if np.issubdtype(a.dtype, np.unsignedinteger):
        ok = a <= np.iinfo(np.int64).max
    elif np.issubdtype(a.dtype, np.floating):
        with np.errstate(invalid="ignore"):
            ok = np.isfinite(a) & (np.floor(a) == a) & (np.abs(a) < 2.0**62)
    else:
        raise InputError(f"{name} must be whole numbers, got an array of {a.dtype}")
    if not ok.all():
        i = int(np.flatnonzero(~ok.reshape(-1))[0])
        raise InputError(f"situation {i}: {name} must be a whole number, got {a.flat[i]}")
    return a.astype(np.int64, copy=False)


def _broadcast(what: str, **arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """The arrays broadcast together (``np.broadcast_arrays``); InputError naming their
    shapes when they do not fit (``what``: whose arrays, for the message)."""
    try:
        return tuple(np.broadcast_arrays(*arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{k} {np.shape(v)}" for k, v in arrays.items())
        raise InputError(f"the {what}' arrays differ in length: {shapes}") from None


def _same_length(**arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """The arrays broadcast to one 1-D length (scalars repeat); InputError naming their
    shapes when they do not fit together."""
    out = _broadcast("situations", **arrays)
    if out[0].ndim > 1:
        raise InputError(f"the situations' arrays must be 1-D, got shape {out[0].shape}")
    return tuple(np.ascontiguousarray(np.atleast_1d(a)) for a in out)


@lru_cache(maxsize=32)
def roll_lookup(rules: YatzyRules) -> np.ndarray:
    """Roll index of every count vector, by its base-(dice + 1) key (-1: not a roll)."""
    base = rules.dice + 1
    lookup = np.full(base**rules.sides, -1, dtype=np.int64)
    weights = base ** np.arange(rules.sides, dtype=np.int64)
    lookup[rules.roll_counts.astype(np.int64) @ weights] = np.arange(len(rules.roll_counts))
    return lookup


def roll_index(rules: YatzyRules, dice: np.ndarray) -> np.ndarray:
    """Roll indices (int64, 0 .. R-1) of dice given as pips, shape ``(n, dice)``, any order.

    InputError if a die is outside 1..sides or a row has the wrong number of dice.
    """
    d = _whole_numbers("dice", dice)
    if d.ndim != 2 or d.shape[1] != rules.dice:
        raise InputError(f"dice must have shape (n, {rules.dice}), got {d.shape}")
    if d.size and (d.min() < 1 or d.max() > rules.sides):
        raise InputError(f"a die shows 1 to {rules.sides}")
    base = rules.dice + 1
    key = np.zeros(d.shape[0], dtype=np.int64)
    for j in range(rules.dice):
        key += base ** (d[:, j].astype(np.int64) - 1)
    return roll_lookup(rules)[key]


def roll_dice(rules: YatzyRules, roll: np.ndarray) -> np.ndarray:
    """Sorted pips (uint8, shape ``(n, dice)``) of roll indices (InputError for an index
    outside 0 .. R-1)."""
    r = _whole_numbers("roll", roll)
    bad = (r < 0) | (r >= len(rules.roll_counts))
    if bad.any():
        raise InputError(
            f"situation {int(np.flatnonzero(bad.reshape(-1))[0])}: roll index out of range"
        )
    counts = rules.roll_counts[r]
    faces = np.arange(1, rules.sides + 1, dtype=np.uint8)
    return (
        np.stack([np.repeat(faces, c) for c in counts])
        if len(counts)
        else np.zeros((0, rules.dice), dtype=np.uint8)
    )


@lru_cache(maxsize=32)
def _sub_keeps(rules: YatzyRules) -> np.ndarray:
    """``(R, width)`` int64: the flat lattice indices of the proper sub-multisets of each
    roll, ascending, padded with -1 (the keeps legal with that roll)."""
    lat = rules.lattice
    rows = []
    for counts in rules.roll_counts:
        subs = []
        for keep in itertools.product(*(range(int(c) + 1) for c in counts)):
            if sum(keep) < rules.dice:
                subs.append(lat.index(np.array(keep, dtype=np.int64)))
        rows.append(sorted(subs))
    width = max(len(r) for r in rows)
    out = np.full((len(rows), width), -1, dtype=np.int64)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


def state_index(
    table: YatzyTable, mask: np.ndarray, flag: np.ndarray, upper: np.ndarray
) -> np.ndarray:
    """Flat indices into ``table.values`` of turn-start states (upper capped); InputError
    naming the first state out of range or unreachable."""
    rules = table.rules
    m, f, u = _broadcast(
        "states",
        mask=_whole_numbers("mask", mask),
        flag=_whole_numbers("flag", flag),
        upper=_whole_numbers("upper", upper),
    )
    T = rules.bonus_threshold
    bad = (m < 0) | (m >= 1 << rules.num_categories) | (f < 0) | (f >= rules.flags) | (u < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"situation {i}: state (mask {m.flat[i]}, flag {f.flat[i]}, upper {u.flat[i]}) "
            f"is out of range for {rules.name}"
        )
    idx = (m * rules.flags + f) * (T + 1) + np.minimum(u, T)
    values = table.values.reshape(-1)[idx]
    if np.isnan(values).any():
        i = int(np.flatnonzero(np.isnan(values))[0])
        raise InputError(
            f"situation {i}: state (mask {m.flat[i]}, flag {f.flat[i]}, upper {u.flat[i]}) "
            "cannot occur in a game"
        )
    return idx


def state_values(
    table: YatzyTable, mask: np.ndarray, flag: np.ndarray, upper: np.ndarray
) -> np.ndarray:
    """Values (float64 points: expected points still to come, bonuses included) of
    turn-start states; arrays broadcast together. InputError for an unreachable state."""
    idx = state_index(table, mask, flag, upper)
    return table.values.reshape(-1)[idx].astype(np.float64)


# --- option values ---------------------------------------------------------------------------


@dataclass
class OptionRows:
    """The legal actions of n situations, one row each (the module docstring's layout).

    ``codes`` (n, width) int16, ascending per row, -1 padding; ``values`` (n, width)
    float64 points, NaN padding; ``regret`` (n, width) points (>= 0, NaN padding);
    ``count`` (n,) legal actions per row; ``best`` (n,) int16 the best action's code;
    ``best_value`` (n,) float64 its value (points).
    """

    codes: np.ndarray
    values: np.ndarray
    regret: np.ndarray
    count: np.ndarray
    best: np.ndarray
    best_value: np.ndarray

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The six arrays in field order: what the numba kernels fill (``rows``)."""
        return self.codes, self.values, self.regret, self.count, self.best, self.best_value


@dataclass
class BatchOptions(OptionRows):
    """Every legal action of n situations (:class:`OptionRows`); ``num_codes`` C + K."""

    num_codes: int

    def dense(self, what: str = "values") -> np.ndarray:
        """``values`` or ``regret`` scattered to ``(n, num_codes)`` float64 (NaN: illegal)."""
        src = self.values if what == "values" else self.regret
        n = self.codes.shape[0]
        out = np.full((n, self.num_codes), np.nan)
        rows, cols = np.nonzero(self.codes >= 0)
        out[rows, self.codes[rows, cols]] = src[rows, cols]
        return out


@numba.njit(cache=True)
def _fill_situation(
    i: int,
    mask: int,
    r: int,
    t: int,
    flag: int,
    K: KernelArrays,
    SR: np.ndarray,
    ln: int,
    E: np.ndarray,
    ref: float,
    theta: float,
    subs: np.ndarray,
    rows: tuple[np.ndarray, ...],
) -> None:
    """Row i of ``rows`` (:meth:`OptionRows.arrays`): scoring values (successor rows
    ``SR[:, ln]`` of the state; :func:`write_value`, served with t = 2), keep values
    (``E[k, ln]``: keeping k with t rerolls left; utilities when theta != 0), the best
    code and the regrets."""
    codes, values, regret, count, best, best_value = rows
    upper_face = K.upper_face
    ncat = upper_face.size
    n = 0
    if K.yz_face[r] < 0 and not (t == 2 and K.served != 0):
        # no Yatzy roll, no served points: every open box (the first under a forced order)
        # at its points plus its successor row, what write_value gives there, from the
        # rules' arrays held here (a call per box that takes K cost more than the row's
        # other work: 200,000 situations on as many states 0.36 s against 0.19 s)
        score, roll_cnt, needs = K.score, K.roll_cnt, K.needs
        yz_cat, stride, zero, forced = K.yz_cat, K.offset.size - 1, K.zero, K.forced
        for c in range(ncat):
            if (mask >> c) & 1:
                continue
            row, s = row_of(r, c, score[r, c], upper_face, roll_cnt, needs, yz_cat, stride, zero)
            codes[i, n] = c
            values[i, n] = s + SR[row, ln]
            n += 1
            if forced:
                break
    else:
        ok, use_joker = allowed_categories(mask, r, K)
        for c in range(ncat):
            if ok[c]:
                codes[i, n] = c
                values[i, n] = write_value(mask, flag, r, c, use_joker, t == 2, K, SR, ln)
                n += 1
    if t > 0:
        sgn = 1.0 if theta > 0.0 else -1.0
        for e in range(subs.shape[1]):
            k = subs[r, e]
            if k < 0:
                break
            w = E[k, ln]
            codes[i, n] = ncat + k
            values[i, n] = w if theta == 0.0 else ref + np.log(sgn * w) / theta
            n += 1
    count[i] = n
    b = 0
    for e in range(1, n):
        if values[i, e] > values[i, b]:
            b = e
    best[i] = codes[i, b]
    bv = values[i, b]
    best_value[i] = bv
    for e in range(n):
        regret[i, e] = max(0.0, bv - values[i, e])
    for e in range(n, codes.shape[1]):
        codes[i, e] = -1
        values[i, e] = np.nan
        regret[i, e] = np.nan


@numba.njit(cache=True, nogil=True)
def _options_lanes_share(
    ch: int,
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    order: np.ndarray,
    starts: np.ndarray,
    roll: np.ndarray,
    rerolls: np.ndarray,
    V: np.ndarray,
    K: KernelArrays,
    subs: np.ndarray,
    As: np.ndarray,
    Ms: np.ndarray,
    E1s: np.ndarray,
    SRs: np.ndarray,
    vecs: np.ndarray,
    rows: tuple[np.ndarray, ...],
) -> None:
    """theta == 0: the distinct states (``st_*``, group g = situations
    ``order[starts[g]:starts[g + 1]]``) through the solver's lanes (``solve_batch``,
    float64), ``lanes`` states at a time, batches b = ch, ch + nchunks, ... (share ``ch``); then
    every situation's row from its lane."""
    nst = st_mask.size
    nchunks, lanes, nbatch = lane_batches(As, nst)
    A = As[ch]
    M = Ms[ch]
    E1 = E1s[ch]
    SR = SRs[ch]
    for b in range(ch, nbatch, nchunks):
        lo = b * lanes
        nb = min(lanes, nst - lo)
        Z, YB, TMP, out = vecs[ch, 0], vecs[ch, 1], vecs[ch, 2], vecs[ch, 3]
        gather(st_mask, st_flag, st_u, lo, nb, V, SR, Z, YB, K, np.int64(0))
        solve_batch(st_mask, lo, nb, A, M, SR, Z, YB, TMP, out, K, 0.0, E1)
        for ln in range(nb):
            g = lo + ln
            for j in range(starts[g], starts[g + 1]):
                i = order[j]
                t = rerolls[i]
                _fill_situation(
                    i,
                    st_mask[g],
                    roll[i],
                    t,
                    st_flag[g],
                    K,
                    SR,
                    ln,
                    E1 if t == 1 else A,
                    0.0,
                    0.0,
                    subs,
                    rows,
                )


@numba.njit(cache=True, nogil=True)
def _options_kernel_share(
    ch: int,
    order: np.ndarray,
    starts: np.ndarray,
    mask: np.ndarray,
    flag: np.ndarray,
    upper: np.ndarray,
    roll: np.ndarray,
    rerolls: np.ndarray,
    V: np.ndarray,
    K: KernelArrays,
    theta: float,
    subs: np.ndarray,
    rows: tuple[np.ndarray, ...],
    nchunks: int,
    B: WidgetBuffers,
) -> None:
    """theta != 0: every situation's row; situations grouped by state (``order`` sorted
    by state, group g is ``order[starts[g]:starts[g + 1]]``), one scalar widget per
    group (its utilities and reference; ``B``: the share's work arrays), groups g = ch,
    ch + nchunks, ... (share ``ch``)."""
    ngroups = starts.size - 1
    for g in range(ch, ngroups, nchunks):
        lo = starts[g]
        hi = starts[g + 1]
        i0 = order[lo]
        m = mask[i0]
        f = flag[i0]
        u = upper[i0]
        tmax = 0
        for j in range(lo, hi):
            tmax = max(tmax, rerolls[order[j]])
        ref = 0.0
        if tmax > 0:
            _, ref = widget_into(m, f, u, V, K, theta, B, TURN_REROLLS, SCORE_NOW)
        else:  # scoring only: the successor rows are all it needs
            successor_rows(m, f, u, V, K, B.SR, np.int64(0), np.int64(0), None)
        for j in range(lo, hi):
            i = order[j]
            t = rerolls[i]
            _fill_situation(
                i,
                m,
                roll[i],
                t,
                f,
                K,
                B.SR,
                0,
                B.keep_value[t].reshape((-1, 1)),
                ref,
                theta,
                subs,
                rows,
            )


def option_values(
    table: YatzyTable,
    mask: np.ndarray,
    flag: np.ndarray,
    upper: np.ndarray,
    roll: np.ndarray,
    rerolls: np.ndarray,
    threads: int | None = None,
) -> BatchOptions:
    """Every legal action's value (points still to come), the best action and the regrets
    of n situations (arrays of length n; see the module docstring), as
    :class:`BatchOptions`. ``threads``: numba threads (default: all numba has).

    InputError naming the first situation that is out of range, unreachable, or a game
    already over.
    """
    rules = table.rules
    m, f, u, r, t = _same_length(
        mask=_whole_numbers("mask", mask),
        flag=_whole_numbers("flag", flag),
        upper=_whole_numbers("upper", upper),
        roll=_whole_numbers("roll", roll),
        rerolls=_whole_numbers("rerolls", rerolls),
    )
    idx = state_index(table, m, f, u)
    n = idx.size
    u = np.minimum(u, rules.bonus_threshold)
    full = (1 << rules.num_categories) - 1
    for bad, what in (
        (m == full, "the game is over (every category filled)"),
        ((r < 0) | (r >= len(rules.roll_counts)), "roll index out of range"),
        ((t < 0) | (t > 2), "rerolls left must be 0, 1 or 2"),
    ):
        if bad.any():
            raise InputError(f"situation {int(np.flatnonzero(bad)[0])}: {what}")
    subs = _sub_keeps(rules)
    width = rules.num_categories + int((subs >= 0).sum(axis=1).max())
    out = BatchOptions(
        codes=np.empty((n, width), dtype=np.int16),
        values=np.empty((n, width)),
        regret=np.empty((n, width)),
        count=np.empty(n, dtype=np.int16),
        best=np.empty(n, dtype=np.int16),
        best_value=np.empty(n),
        num_codes=num_codes(rules),
    )
    if n:
        order = np.argsort(idx, kind="stable")
        sorted_idx = idx[order]
        starts = np.concatenate(
            ([0], np.flatnonzero(sorted_idx[1:] != sorted_idx[:-1]) + 1, [n])
        ).astype(np.int64)
        nchunks = max(1, min(threads or numba.get_num_threads(), starts.size - 1))
        if table.theta == 0.0:
            _run_lanes(table, order, starts, idx, r, t, subs, nchunks, out.arrays())
        else:
            V, K, theta = table.values, table.arrays64, float(table.theta)
            rows = out.arrays()

            def share(ch: int) -> None:
                _options_kernel_share(
                    ch, order, starts, m, f, u, r, t, V, K, theta, subs, rows, nchunks,
                    widget_buffers(K),
                )  # fmt: skip

            run_shares(share, nchunks)
    return out


def _run_lanes(
    table: YatzyTable,
    order: np.ndarray,
    starts: np.ndarray,
    idx: np.ndarray,
    roll: np.ndarray,
    rerolls: np.ndarray,
    subs: np.ndarray,
    nchunks: int,
    rows: tuple[np.ndarray, ...],
) -> None:
    """The distinct states of the groups and the lanes' work arrays; ``_options_lanes_share``
    on ``nchunks`` threads."""
    rules = table.rules
    T = rules.bonus_threshold
    first = idx[order[starts[:-1]]]  # flat table index of each group's state
    st_u = first % (T + 1)
    st_flag = (first // (T + 1)) % rules.flags
    st_mask = first // ((T + 1) * rules.flags)
    K = table.arrays64
    lanes = LANES[np.dtype(np.float64)]
    nk = int(rules.lattice.offset[-1])
    As = np.empty((nchunks, nk + 1, lanes))
    Ms = np.empty((nchunks, 2 * (nk + 1), lanes))  # the choice's rows (solve.choose_rows)
    E1s = np.empty((nchunks, nk + 1, lanes))
    SRs = np.empty((nchunks, rules.num_categories * (rules.dice + 1) + 1, lanes))
    SRs[:, -1, :] = K.neg
    vecs = np.empty((nchunks, 4, lanes))
    V = table.values

    def share(ch: int) -> None:
        _options_lanes_share(
            ch, st_mask, st_flag, st_u, order, starts, roll, rerolls, V, K, subs,
            As, Ms, E1s, SRs, vecs, rows,
        )  # fmt: skip

    run_shares(share, nchunks)
