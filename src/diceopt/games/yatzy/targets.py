"""Target tables: the highest probability of scoring at least k more points.

Role: for every turn-start state ``(mask, flag, upper)`` (as in
:mod:`diceopt.games.yatzy.solve`) and every number of points still needed
``k = 0 .. kmax``, ``values[mask, flag, upper, k]`` = the highest achievable
P(points still to come >= k) (bonuses included). One table answers every target: a
target K with score s so far needs k = K - s. The values at k depend only on those at
k' <= k, so a table truncated to K is exact up to K.

Score cap (``kmax`` of the full table, :func:`table_kmax`): the variant's most points
(``rules.max_total``: 374 in Scandinavian), at most :data:`TABLE_KMAX` = 750 points.
Only American Yahtzee is capped (1575 with twelve Yahtzee bonuses would make 6.6 GB
of float32; 751 values of k make 3.1 GB, the size of the Scandinavian table): its table
holds P(points still to come >= k) for k <= 750, and a target needing more (750 points
still to come: only reachable with Yahtzee bonuses) is solved on demand from the
position (:func:`solve_target_from`, exact). Targets above ``rules.max_total`` or below
0 are refused (:func:`check_target`).

Method: the expected-value solver's backward induction over layers, with lanes over k
instead of over states. For one state and a chunk of up to :data:`LANES` values of k
(a state's k range in equal chunks of whole 16-lane vectors):

1. Successor rows ``G[row, j]`` (rows as the kernel's ``successor_rows``: category c
   and h dice of its face / the Yatzy box scored), for the open categories only: the
   successor's value at ``k - points``, 1 where that is <= 0, 0 above its most points
   to come. The chunk carries a margin of S columns (the most points one roll writes
   outside an upper row, Yahtzee bonus included) so that a shift by a roll's points is
   a column offset.
2. Score now: the best of "write 0 somewhere" and, for the open categories where the
   roll scores (the kernel's ``pos_id`` / ``pos_s`` less the filled ones, per state:
   :func:`_target_plan`), the row shifted by the points, four rows a pass; Yahtzee
   rolls under the joker rule or with the Yahtzee bonus go category by category (the
   kernel's ``allowed_categories`` and ``category_row``).
3. Rerolls and the first roll: the kernel's lane functions (``chance_level``,
   ``first_roll``; the choice step through a scratch row, :func:`_choose_via`), the
   lanes now values of k. Same values as the kernel's, bit for bit.

Work skipped, exactly: values at k above a state's most points still to come
(:func:`max_to_come`: every open category at its maximum, the upper bonus only while
those maxima reach the threshold, the Yahtzee bonus only where it can be earned) are
0 and not computed; P = 1 at k <= 0 is not stored but read as such; entries of
unreachable states are 0 and never touched; under the forced order the table has a
row per reachable mask only (:func:`mask_rows`). Threads take interleaved blocks of a
chunk of a layer's states as they finish (states differ a lot in their k range); the
chunks are called from Python so that Ctrl-C stops a solve between two. A single target
from one position (:func:`solve_target_from`) visits only the states whose filled mask
contains the position's (upper total and Yahtzee flag not below its own) and, per
state, only k up to the target less the least points scored on the way
(:func:`_gain_floor`), stored in rows of their own length (:class:`TargetRows`).

The policy is the same turn read at one k (:func:`target_turn`): advice ranks every
action by its probability, ties broken as in the expected-score advice. Tables are
float32 (default) or float64; the advice computes one turn in float64. Full tables are
stored memory-mapped (:func:`store_targets`, :func:`load_targets`: every block's
checksum checked at load, :mod:`diceopt.storage`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

import numba
import numpy as np

from diceopt import storage
from diceopt.advice import Advice
from diceopt.errors import InputError
from diceopt.games.yatzy.arrays import NEG, KernelArrays, kernel_arrays
from diceopt.games.yatzy.layers import iter_layer_states, layer_masks
from diceopt.games.yatzy.rules import YatzyRules, get_rules, variant_id
from diceopt.games.yatzy.solve import first_roll
from diceopt.games.yatzy.turn import allowed_categories, category_row, chance_level, may_write
from diceopt.interrupt import Pace, interruptible, run_chunks

LANES = 256  # most values of k per batch (measured best: the work arrays fill the L2 cache)
TABLE_KMAX = 750  # most points still needed a full table holds (see table_kmax)
OBJECTIVE = "target"


def margin(K: KernelArrays) -> int:
    """Most points one roll writes outside an upper row (Yahtzee bonus included)."""
    return int(max(K.score.max(), K.joker.max())) + K.ybonus


# ---------------------------------------------------------------------------------------
# numba kernels (``Vf``: the table as rows of k values, one row per state key)


@numba.njit(cache=True)
def _succ(
    G: np.ndarray, row: int, Vd: np.ndarray, at: int, last: int, pts: int, k0: int, n: int
) -> None:
    """G[row, j] = P(>= k0 + j - pts) from the state whose values start at Vd[at] and end at
    k = ``last`` (1 at k <= 0, 0 above ``last``), j < n."""
    d = k0 - pts
    m = min(n, max(0, 1 - d))  # columns where d + j <= 0
    e = min(n, max(m, last + 1 - d))  # columns where 0 < d + j <= last
    for j in range(m):
        G[row, j] = 1.0
    for j in range(m, e):
        G[row, j] = Vd[at + d + j]
    for j in range(e, n):
        G[row, j] = 0.0


@numba.njit(cache=True)
def _target_plan(
    mask: int, S: int, K: KernelArrays, live: np.ndarray, ent_i: np.ndarray, ent_o: np.ndarray,
    ent_n: np.ndarray,
) -> None:  # fmt: skip
    """Per state: the categories open to a normal roll (``live``) and, per roll r, the
    successor rows and column offsets of the open categories where r scores (the kernel's
    ``pos_id`` / ``pos_s`` without the filled ones: no work on dead rows), padded to a
    multiple of 4 with the row of -1 (``ent_n[r]``: entries with the padding)."""
    ncat = K.upper_face.size
    stride = K.offset.size - 1
    neg_row = ncat * stride
    for c in range(ncat):
        live[c] = may_write(mask, c, K)
    pos_id, pos_s, pos_c = K.pos_id, K.pos_s, K.pos_c
    for r in range(pos_id.shape[0]):
        n = 0
        for e in range(pos_id.shape[1]):
            i = pos_id[r, e]
            if i == neg_row:
                break
            if live[pos_c[r, e]]:
                ent_i[r, n] = i
                ent_o[r, n] = S - np.int64(pos_s[r, e])
                n += 1
        while n % 4 != 0:
            ent_i[r, n] = neg_row
            ent_o[r, n] = S
            n += 1
        ent_n[r] = n


@numba.njit(cache=True)
def _target_rows(
    mask: int, flag: int, u: int, k0: int, n: int, Vd: np.ndarray, off: np.ndarray,
    top: np.ndarray, flags: int, K: KernelArrays, live: np.ndarray, G: np.ndarray,
) -> None:  # fmt: skip
    """Step 1: the successor rows of the open categories for columns k0 .. k0 + n - 1 (k0
    already less S); the rows of the other categories are not written (never read).

    Twin of the kernel's ``successor_rows`` (same rows and successors), with a vector
    over k per row instead of one value: points move the column, not the value.
    """
    T = K.threshold
    width = T + 1
    ncat = K.upper_face.size
    stride = K.offset.size - 1
    for c in range(ncat):
        if not live[c]:
            continue
        b0 = c * stride
        nxt = mask | (1 << c)
        f = K.upper_face[c]
        if f < 0:
            key = (nxt * flags + flag) * width + u
            _succ(G, b0, Vd, off[key], top[key], 0, k0, n)
            if c == K.yz_cat:  # the Yatzy box scored (h = 1): the flag is set
                if K.ybonus > 0:
                    key = (nxt * flags + 1) * width + u
                    _succ(G, b0 + 1, Vd, off[key], top[key], 0, k0, n)
                else:
                    for j in range(n):
                        G[b0 + 1, j] = G[b0, j]
        else:
            for cnt in range(stride):
                pts = cnt * (f + 1)
                b = K.bonus if (u < T and u + pts >= T) else 0
                key = (nxt * flags + flag) * width + min(T, u + pts)
                _succ(G, b0 + cnt, Vd, off[key], top[key], pts + b, k0, n)


@numba.njit(cache=True)
def _score_now(
    A: np.ndarray, G: np.ndarray, Z: np.ndarray, nw: int, r: int, row: int, ent_i: np.ndarray,
    ent_o: np.ndarray, ent_n: np.ndarray,
) -> None:  # fmt: skip
    """A[row, :nw] = max(Z, G[i, o + ln] over roll r's entries), four entries a pass.

    Twin of the kernel's ``_fill``: points shift the column instead of adding.
    """
    dst = A[row]
    n = ent_n[r]
    if n == 0:
        for ln in range(nw):
            dst[ln] = Z[ln]
        return
    src = Z
    for e in range(0, n, 4):
        g0 = G[ent_i[r, e], ent_o[r, e] :]
        g1 = G[ent_i[r, e + 1], ent_o[r, e + 1] :]
        g2 = G[ent_i[r, e + 2], ent_o[r, e + 2] :]
        g3 = G[ent_i[r, e + 3], ent_o[r, e + 3] :]
        for ln in range(nw):
            dst[ln] = max(max(src[ln], g0[ln]), max(max(g1[ln], g2[ln]), g3[ln]))
        src = dst


@numba.njit(cache=True)
def _choose_via(
    A: np.ndarray, M: np.ndarray, T: np.ndarray, nb: int, rem_pad: np.ndarray, rem_n: np.ndarray
) -> None:  # fmt: skip
    """The kernel's ``_choose`` (M[i] = max(A[i], M[i - f]), the best sub-multiset), each
    row built in ``T`` then copied: LLVM vectorises a row of M read and written through
    the same array only on its scalar path, a third as fast (measured)."""
    nk = A.shape[0] - 1
    six = rem_pad.shape[1] == 6
    for ln in range(nb):
        M[0, ln] = A[0, ln]
    for i in range(1, nk):
        a = A[i]
        if six and rem_n[i] <= 3:
            m0, m1, m2 = M[rem_pad[i, 0]], M[rem_pad[i, 1]], M[rem_pad[i, 2]]
            for ln in range(nb):
                T[ln] = max(max(a[ln], m0[ln]), max(m1[ln], m2[ln]))
        elif six:
            m0, m1, m2 = M[rem_pad[i, 0]], M[rem_pad[i, 1]], M[rem_pad[i, 2]]
            m3, m4, m5 = M[rem_pad[i, 3]], M[rem_pad[i, 4]], M[rem_pad[i, 5]]
            for ln in range(nb):
                T[ln] = max(
                    max(max(a[ln], m0[ln]), max(m1[ln], m2[ln])),
                    max(max(m3[ln], m4[ln]), m5[ln]),
                )
        else:
            for ln in range(nb):
                T[ln] = a[ln]
            for e in range(rem_n[i]):
                m = M[rem_pad[i, e]]
                for ln in range(nb):
                    T[ln] = max(T[ln], m[ln])
        dst = M[i]
        for ln in range(nb):
            dst[ln] = T[ln]


@numba.njit(cache=True)
def _target_rerolls(
    A: np.ndarray, M: np.ndarray, T: np.ndarray, nb: int, K: KernelArrays, E1: np.ndarray
) -> None:  # fmt: skip
    """The kernel's ``_rerolls`` (step 4, both reroll levels) with :func:`_choose_via`:
    the same values, bit for bit."""
    add_die, offset, fprob = K.add_die, K.offset, K.fprob
    nd = offset.size - 2
    base = offset[nd]
    for level in range(2):
        for i in range(base - 1, -1, -1):
            src = M if (level == 1 and i >= offset[nd - 1]) else A
            chance_level(A, src, i, nb, add_die, fprob)
        if level == 0 and E1.shape[0] > 0:
            for i in range(base):
                for ln in range(nb):
                    E1[i, ln] = A[i, ln]
        _choose_via(A, M, T, nb, K.rem_pad, K.rem_n)


class TargetWork(NamedTuple):
    """Work arrays of :func:`_target_chunk` for up to ``lanes`` values of k."""

    G: np.ndarray  # (C * (dice + 1) + 1, lanes + S): successor rows, the last one -1
    A: np.ndarray  # (nk + 1, lanes): keep and roll values
    M: np.ndarray  # (nk + 1, lanes): best sub-multisets
    out: np.ndarray  # (lanes,)
    T: np.ndarray  # (lanes,): one row in the making
    E1: np.ndarray  # (rows, lanes): keep values with one reroll left (no rows: not kept)
    live: np.ndarray  # (C,) bool: categories open to a normal roll
    ent_i: np.ndarray  # (R, width) int64: per roll, the G rows where it scores
    ent_o: np.ndarray  # (R, width) int64: their column offsets
    ent_n: np.ndarray  # (R,) int64: entries per roll (a multiple of 4)


@numba.njit(cache=True)
def _target_work(K: KernelArrays, S: int, lanes: int, e1_rows: int, like: np.ndarray) -> TargetWork:
    """Fresh work arrays (``like``'s dtype) for ``lanes`` values of k, ``e1_rows`` rows of E1."""
    dtype = like.dtype
    nk = K.add_die.shape[0]
    ncat = K.upper_face.size
    stride = K.offset.size - 1
    G = np.empty((ncat * stride + 1, lanes + S), dtype=dtype)
    G[ncat * stride, :] = -1.0
    R, width = K.pos_id.shape
    return TargetWork(
        G,
        np.empty((nk + 1, lanes), dtype=dtype),
        np.empty((nk + 1, lanes), dtype=dtype),
        np.empty(lanes, dtype=dtype),
        np.empty(lanes, dtype=dtype),
        np.empty((e1_rows, lanes), dtype=dtype),
        np.zeros(ncat, dtype=np.bool_),
        np.empty((R, width), dtype=np.int64),
        np.empty((R, width), dtype=np.int64),
        np.empty(R, dtype=np.int64),
    )


@numba.njit(cache=True)
def _target_chunk(
    mask: int, flag: int, u: int, k0: int, nw: int, S: int, Vd: np.ndarray, off: np.ndarray,
    top: np.ndarray, flags: int, K: KernelArrays, W: TargetWork,
) -> None:  # fmt: skip
    """P(points to come >= k) for k = k0 .. k0 + nw - 1 from one state into W.out[:nw].

    ``W.live`` / ``W.ent_*`` hold the state's :func:`_target_plan`. Afterwards ``W.G``
    holds the successor rows of the open categories (column S + ln is k0 + ln), ``W.A``
    the keep values with two rerolls left and ``W.E1`` (when it has rows) with one.
    """
    G, A, M, out, live = W.G, W.A, W.M, W.out, W.live
    offset, yz_face = K.offset, K.yz_face
    nd = offset.size - 2
    base = offset[nd]
    nk = offset[nd + 1]
    R = nk - base
    ncat = K.upper_face.size
    stride = nd + 1
    _target_rows(mask, flag, u, k0 - S, nw + S, Vd, off, top, flags, K, live, G)
    for ln in range(nw):
        A[nk, ln] = NEG
        M[nk, ln] = NEG
    joker_filled = K.joker_code != 0 and K.yz_cat >= 0 and (mask >> K.yz_cat) & 1
    yb = K.ybonus if flag == 1 else 0
    # "write 0 somewhere" (kept in out until the end)
    for ln in range(nw):
        out[ln] = -1.0
    for c in range(ncat):
        if live[c]:
            g = G[c * stride, S:]
            for ln in range(nw):
                out[ln] = max(out[ln], g[ln])
    for r in range(R):
        row = base + r
        if yz_face[r] >= 0 and (joker_filled or yb != 0):
            ok, use_joker = allowed_categories(mask, r, K)
            for ln in range(nw):
                A[row, ln] = -1.0
            for c in range(ncat):
                if ok[c]:
                    i, s = category_row(r, c, use_joker, K)
                    o = S - np.int64(s) - yb
                    for ln in range(nw):
                        A[row, ln] = max(A[row, ln], G[i, o + ln])
            continue
        _score_now(A, G, out, nw, r, row, W.ent_i, W.ent_o, W.ent_n)
    _target_rerolls(A, M, W.T, nw, K, W.E1)
    first_roll(M, out, nw, K)


@numba.njit(cache=True)
def _target_state(
    mask: int, flag: int, u: int, Vd: np.ndarray, off: np.ndarray, top: np.ndarray,
    flags: int, K: KernelArrays, S: int, lanes: int, W: TargetWork,
) -> None:  # fmt: skip
    """One state's values for k = 0 .. its ``top`` (1 at k = 0), in equal chunks of at
    most ``lanes`` values of k (whole vectors of 16)."""
    key = (mask * flags + flag) * (K.threshold + 1) + u
    at = off[key]
    n = top[key]  # k = 1 .. n
    Vd[at] = 1.0
    if n <= 0:
        return
    _target_plan(mask, S, K, W.live, W.ent_i, W.ent_o, W.ent_n)
    nch = (n + lanes - 1) // lanes
    step = (n + nch - 1) // nch
    step = min(lanes, (step + 15) // 16 * 16)
    for k0 in range(1, n + 1, step):
        nw = min(step, n + 1 - k0)
        _target_chunk(mask, flag, u, k0, nw, S, Vd, off, top, flags, K, W)
        for ln in range(nw):
            Vd[at + k0 + ln] = W.out[ln]


@numba.njit(cache=True, parallel=True)
def _target_layer(
    st_mask: np.ndarray, st_flag: np.ndarray, st_u: np.ndarray, Vd: np.ndarray,
    off: np.ndarray, top: np.ndarray, flags: int, K: KernelArrays, S: int, lanes: int,
    nblocks: int,
) -> None:  # fmt: skip
    """One layer's states (k = 0 .. ``top[key]`` at ``Vd[off[key]:]``) from later layers'.

    The states are dealt into ``nblocks`` interleaved blocks (state i in block i mod
    nblocks, so the blocks carry similar work whatever the spread of ``top``); threads
    take blocks as they finish (the caller sets numba's parallel chunk size to 1), each
    block with its own work arrays.
    """
    nblocks = max(1, min(st_mask.size, nblocks))
    for b in numba.prange(nblocks):
        W = _target_work(K, S, lanes, 0, Vd)
        for i in range(b, st_mask.size, nblocks):
            _target_state(st_mask[i], st_flag[i], st_u[i], Vd, off, top, flags, K, S, lanes, W)


@numba.njit(cache=True)
def target_turn(
    mask: int, flag: int, u: int, k: int, Vd: np.ndarray, off: np.ndarray, top: np.ndarray,
    flags: int, K: KernelArrays, S: int,
) -> tuple[np.ndarray, np.ndarray, float]:  # fmt: skip
    """One turn at one k, in float64 (``K`` float64): returns ``(keep, category, value)``.

    ``keep[t, i]`` (t = 1, 2 rerolls left): P(>= k) after keeping multiset i (flat lattice
    index) and rerolling the rest; ``category[r, c]``: P(>= k) after writing roll r into
    c (-1 where c may not take r); ``value``: P(>= k) before the first roll. ``Vd``,
    ``off``, ``top``: the solved values of the later states (see :func:`_target_layer`).
    """
    nk = K.add_die.shape[0]
    ncat = K.upper_face.size
    stride = K.offset.size - 1
    base = K.offset[stride - 1]
    R = nk - base
    W = _target_work(K, S, 1, nk, K.fprob)
    _target_plan(mask, S, K, W.live, W.ent_i, W.ent_o, W.ent_n)
    _target_chunk(mask, flag, u, k, 1, S, Vd, off, top, flags, K, W)
    keep = np.zeros((3, nk))
    for i in range(base):
        keep[1, i] = W.E1[i, 0]
        keep[2, i] = W.A[i, 0]
    yb = K.ybonus if flag == 1 else 0
    cat = np.full((R, ncat), -1.0)
    for r in range(R):
        ok, use_joker = allowed_categories(mask, r, K)
        ybr = yb if K.yz_face[r] >= 0 else 0
        for c in range(ncat):
            if ok[c]:
                i, s = category_row(r, c, use_joker, K)
                cat[r, c] = W.G[i, S - np.int64(s) - ybr]
    return keep, cat, W.out[0]


# ---------------------------------------------------------------------------------------
# Python side


def table_kmax(rules: YatzyRules) -> int:
    """The largest k (points) a variant's full table holds: ``rules.max_total``, at most
    :data:`TABLE_KMAX` (American Yahtzee's 1575 would make a 6.6 GB table)."""
    return min(int(rules.max_total), TABLE_KMAX)


def max_to_come(rules: YatzyRules, mask: np.ndarray, flag: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Most points still to come from turn-start states (vectorised, points): every open
    category at its maximum, the upper bonus if those maxima still reach the threshold,
    and the Yahtzee bonus on every open turn that can earn it. P(>= k) is 0 above it."""
    cat_max = rules.category_max.astype(np.int64)
    T = rules.bonus_threshold
    out = np.zeros(mask.size, dtype=np.int64)
    up_left = np.zeros(mask.size, dtype=np.int64)
    n_open = np.zeros(mask.size, dtype=np.int64)
    for c in range(rules.num_categories):
        is_open = ((mask >> c) & 1) == 0
        out += np.where(is_open, cat_max[c], 0)
        n_open += is_open
        if rules.upper_face[c] >= 0:
            up_left += np.where(is_open, cat_max[c], 0)
    out += np.where((u < T) & (u + up_left >= T), rules.bonus, 0)
    if rules.tracks_yahtzee:
        yz_open = ((mask >> rules.yahtzee_category) & 1) == 0
        turns = np.where(flag == 1, n_open, np.where(yz_open, n_open - 1, 0))
        out += rules.yahtzee_bonus * np.maximum(turns, 0)
    return out


def _gain_floor(
    rules: YatzyRules, start: tuple[int, int, int], mask: np.ndarray, flag: np.ndarray,
    u: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """A lower bound on the points scored from turn-start state ``start`` to each state
    (the upper total's growth, the upper bonus, the Yahtzee box's 50, the least each
    newly filled lower category scores). It grows by at most a move's points, so a state
    reached from ``start`` with k points still needed never needs more than
    ``k - floor`` (vectorised, points)."""
    m0, f0, u0 = start
    T = rules.bonus_threshold
    low = np.minimum(rules.score, rules.joker_score).min(axis=0).astype(np.int64)
    out = np.maximum(u - u0, 0)
    if u0 < T:
        out += np.where(u >= T, rules.bonus, 0)
    if rules.tracks_yahtzee and f0 == 0:
        out += np.where(flag == 1, int(rules.category_max[rules.yahtzee_category]), 0)
    for c in range(rules.num_categories):
        if rules.upper_face[c] < 0 and low[c] > 0 and not (m0 >> c) & 1:
            out += np.where((mask >> c) & 1, low[c], 0)
    return out


def mask_rows(rules: YatzyRules) -> np.ndarray:
    """Row of each filled mask in a full table (first axis of ``values``), -1 for a mask
    no game reaches: every mask in order, or only the masks of the categories' order
    (forced order: row j for the first j filled), so the table holds no unreachable row."""
    c = rules.num_categories
    if not rules.forced_order:
        return np.arange(1 << c, dtype=np.int64)
    rows = np.full(1 << c, -1, dtype=np.int64)
    for j, masks in enumerate(layer_masks(rules)):
        rows[masks] = j
    return rows


def table_shape(rules: YatzyRules, kmax: int) -> tuple[int, int, int, int]:
    """Shape of a full target table holding k = 0 .. ``kmax``: (reachable masks, flags,
    upper totals, values of k)."""
    nrows = int((mask_rows(rules) >= 0).sum())
    return (nrows, rules.flags, rules.bonus_threshold + 1, kmax + 1)


def _row_keys(rules: YatzyRules, keys: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """State keys ``(mask * flags + flag) * (T + 1) + u`` as row indices of a table laid
    out by ``rows`` (:func:`mask_rows`)."""
    fw = rules.flags * (rules.bonus_threshold + 1)
    return rows[keys // fw] * fw + keys % fw


def _flat_index(rules: YatzyRules, kmax: int) -> tuple[np.ndarray, np.ndarray]:
    """``off``, ``top`` of a full table (over every state key; k up to kmax): a key's
    values start at its row (:func:`_row_keys`) times kmax + 1 (0 for unreachable keys,
    never read)."""
    nkeys = (1 << rules.num_categories) * rules.flags * (rules.bonus_threshold + 1)
    at = _row_keys(rules, np.arange(nkeys, dtype=np.int64), mask_rows(rules))
    return np.maximum(at, 0) * (kmax + 1), np.full(nkeys, kmax, dtype=np.int64)


@dataclass
class TargetTable:
    """``values[row, flag, upper, k]``: the highest P(points still to come >= k), k = 0 ..
    ``kmax`` (points), for every turn-start state (a 4-D array, possibly a read-only
    memory map; entries of unreachable states are 0); ``row`` is the filled mask, or its
    rank in the categories' order under the forced order (:func:`mask_rows`, read through
    :meth:`row`). ``seconds``: solve time;
    ``states``: states solved. ``check``: a stored table loaded with lazy checks (see
    :func:`load_targets`): :meth:`probability` and :meth:`turn` check the blocks they
    read; call :meth:`verify` before reading ``values`` directly."""

    rules: YatzyRules
    values: np.ndarray
    seconds: float = 0.0
    states: int = 0
    check: storage.BlockCheck | None = None

    @property
    def kmax(self) -> int:
        """The largest k held (points)."""
        return int(self.values.shape[-1]) - 1

    def verify(self) -> None:
        """Check every block of a lazily loaded table (TableFileError if one is bad)."""
        if self.check is not None:
            self.check.check_all()

    @cached_property
    def _rows(self) -> np.ndarray:
        return mask_rows(self.rules)

    def row(self, mask: int) -> int:
        """The row of ``values`` holding a filled mask (InputError if no game reaches it)."""
        r = int(self._rows[mask]) if 0 <= mask < self._rows.size else -1
        if r < 0:
            raise InputError(f"no game of {self.rules.name} reaches these filled categories")
        return r

    def _check_masks(self, masks: list[int]) -> None:
        """Check the blocks holding every state of these filled masks (masks no game
        reaches have no row and are never read)."""
        if self.check is None:
            return
        slab = int(np.prod(self.values.shape[1:])) * self.values.itemsize
        for r in sorted({int(self._rows[m]) for m in masks} - {-1}):
            self.check.check(r * slab, (r + 1) * slab)

    def probability(self, mask: int, flag: int, upper: int, k: int) -> float:
        """P(points still to come >= k) from a turn-start state under target-optimal play."""
        if k <= 0:
            return 1.0
        if k > self.kmax:
            raise InputError(f"this table holds targets up to {self.kmax} points, not {k}")
        self._check_masks([mask])
        return float(self.values[self.row(mask), flag, min(upper, self.rules.bonus_threshold), k])

    @cached_property
    def flat(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(Vd, off, top)``: P(>= k) of state key ``(mask * flags + flag) * (T + 1) + u``
        at ``Vd[off[key] + k]`` for k <= ``top[key]`` (what the kernels read)."""
        off, top = _flat_index(self.rules, self.kmax)
        return np.asarray(self.values).reshape(-1), off, top

    def turn(
        self, mask: int, flag: int, upper: int, k: int
    ) -> tuple[np.ndarray, np.ndarray, float]:
        """:func:`target_turn` for one state and k (probabilities; k <= kmax)."""
        self._check_masks(
            [mask | 1 << c for c in range(self.rules.num_categories) if not mask >> c & 1]
        )
        K = kernel_arrays(self.rules, np.float64)
        Vd, off, top = self.flat
        kk = max(0, min(int(k), self.kmax))
        u = min(upper, self.rules.bonus_threshold)
        return target_turn(mask, flag, u, kk, Vd, off, top, self.rules.flags, K, margin(K))


@dataclass
class TargetRows:
    """The values one target from one state needs (:func:`solve_target_from`): state key
    ``key`` = (mask * flags + flag) * (T + 1) + upper holds P(points still to come >= k)
    for k = 0 .. ``top[key]`` at ``data[off[key] + k]`` (0 above its most points to come;
    unknown above ``top`` where that is less). Exact for ``start`` and k <= ``kmax``.
    ``seconds``: solve time; ``states``: states solved; ``pairs``: (state, k) values."""

    rules: YatzyRules
    data: np.ndarray
    off: np.ndarray
    top: np.ndarray
    kmax: int
    start: tuple[int, int, int]
    seconds: float = 0.0
    states: int = 0
    pairs: int = 0

    def probability(self, mask: int, flag: int, upper: int, k: int) -> float:
        """P(points still to come >= k) from a state the solve covered (k <= its top)."""
        if k <= 0:
            return 1.0
        u = min(upper, self.rules.bonus_threshold)
        key = (mask * self.rules.flags + flag) * (self.rules.bonus_threshold + 1) + u
        if k > self.top[key]:
            return 0.0
        return float(self.data[self.off[key] + k])

    def turn(
        self, mask: int, flag: int, upper: int, k: int
    ) -> tuple[np.ndarray, np.ndarray, float]:
        """:func:`target_turn` for the start state (or a later one) and k <= kmax."""
        K = kernel_arrays(self.rules, np.float64)
        kk = max(0, min(int(k), self.kmax))
        u = min(upper, self.rules.bonus_threshold)
        return target_turn(
            mask, flag, u, kk, self.data, self.off, self.top, self.rules.flags, K, margin(K)
        )


def _check_dtype(dtype: str | np.dtype) -> np.dtype:
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise InputError(f"dtype must be float32 or float64, got {dtype}")
    return dt


def _solve_layer(
    rules: YatzyRules, st_mask: np.ndarray, st_flag: np.ndarray, st_u: np.ndarray,
    Vd: np.ndarray, off: np.ndarray, top: np.ndarray, K: KernelArrays, lanes: int,
    pace: Pace | None = None,
) -> None:  # fmt: skip
    """Solve one layer's states into ``Vd`` (see :func:`_target_layer`), in chunks of
    states so that Ctrl-C stops it between two (:func:`diceopt.interrupt.run_chunks`)."""
    threads = numba.get_num_threads()
    blocks = 8 * threads
    S = margin(K)

    def solve(lo: int, hi: int) -> None:
        with numba.parallel_chunksize(1):
            _target_layer(
                st_mask[lo:hi], st_flag[lo:hi], st_u[lo:hi], Vd, off, top, rules.flags, K, S,
                lanes, blocks,
            )  # fmt: skip

    run_chunks(solve, st_mask.size, align=blocks, pace=pace)


def solve_targets(
    rules: YatzyRules,
    *,
    kmax: int | None = None,
    dtype: str | np.dtype = "float32",
    lanes: int = LANES,
    progress: Callable[[int, int], None] | None = None,
) -> TargetTable:
    """The target table of a variant for k = 0 .. ``kmax`` points (default
    :func:`table_kmax`: every target the table holds). ``dtype`` float32 or float64;
    ``progress(done, total)`` after each layer; Ctrl-C stops it within a fraction of a
    second (KeyboardInterrupt). Memory: :func:`table_shape`, the reachable masks (2^C,
    or C + 1 under the forced order) x flags x (T + 1) x (kmax + 1) values (untouched
    pages of unreachable states cost nothing)."""
    dt = _check_dtype(dtype)
    top_k = table_kmax(rules) if kmax is None else int(kmax)
    if top_k < 0 or top_k > rules.max_total:
        raise InputError(f"the target must be between 0 and {rules.max_total} points, got {top_k}")
    t0 = time.perf_counter()
    K = kernel_arrays(rules, dt)
    c = rules.num_categories
    T = rules.bonus_threshold
    rows = mask_rows(rules)
    V = np.zeros(table_shape(rules, top_k), dtype=dt)
    Vf = V.reshape(-1, top_k + 1)
    off, top = _flat_index(rules, top_k)
    layers = iter_layer_states(rules, reverse=True)
    last = next(layers)  # every category filled: P(>= 0) = 1, else 0
    width = T + 1
    Vf[_row_keys(rules, (last.mask * rules.flags + last.flag) * width + last.upper, rows), 0] = 1
    Vf[_row_keys(rules, last.copy_dst, rows), 0] = 1.0
    states = last.mask.size
    pace = Pace()
    with interruptible():
        for j, st in zip(range(c - 1, -1, -1), layers, strict=True):
            keys = (st.mask * rules.flags + st.flag) * width + st.upper
            top[keys] = np.minimum(max_to_come(rules, st.mask, st.flag, st.upper), top_k)
            Vd = V.reshape(-1)
            _solve_layer(rules, st.mask, st.flag, st.upper, Vd, off, top, K, lanes, pace)
            Vf[_row_keys(rules, st.copy_dst, rows)] = Vf[_row_keys(rules, st.copy_src, rows)]
            states += st.mask.size
            if progress is not None:
                progress(c - j, c)
    return TargetTable(rules, V, time.perf_counter() - t0, states)


def solve_target_from(
    rules: YatzyRules,
    mask: int,
    flag: int,
    upper: int,
    k: int,
    *,
    dtype: str | np.dtype = "float32",
    lanes: int = LANES,
    progress: Callable[[int, int], None] | None = None,
    draw: bool = False,
) -> TargetRows:
    """P(points still to come >= k) from turn-start state (mask, flag, upper) and what its
    turn needs: only the states after it (filled mask containing ``mask``, flag and upper
    total not below its own) and, per state, only k up to ``k`` less the least points
    scored on the way there (:func:`_gain_floor`) and up to its most points to come.
    ``progress(done, total)`` after each layer. Memory: one value per (state, k) solved.

    ``draw``: the draw-aware table instead, the highest P(points to come >= k) + 1/2
    P(points to come = k - 1) (k points to beat a finished opponent, k - 1 to tie): the
    same recursion with the end of the game worth 1/2 at k = 1 (a tie) instead of 0."""
    dt = _check_dtype(dtype)
    most = rules.max_total + (1 if draw else 0)
    if k < 0 or k > most:
        raise InputError(f"the target must be between 0 and {most} points, got {k}")
    t0 = time.perf_counter()
    T = rules.bonus_threshold
    width = T + 1
    u0 = min(int(upper), T)
    start = (int(mask), int(flag), u0)
    faces = rules.upper_face
    up_max = rules.category_max.astype(np.int64)
    nkeys = (1 << rules.num_categories) * rules.flags * width
    off = np.zeros(nkeys, dtype=np.int64)
    top = np.zeros(nkeys, dtype=np.int64)
    plan = []
    ends: list[np.ndarray] = []  # draw: the offsets of the rows of the game's end
    cursor = 0
    full = (1 << rules.num_categories) - 1
    for st in iter_layer_states(rules, reverse=True):
        if bin(int(st.mask[0])).count("1") < bin(int(mask)).count("1"):
            break  # the layers before the start's
        sup = ((st.mask & mask) == mask) & (st.flag >= flag)
        up_left = np.zeros(st.mask.size, dtype=np.int64)
        for c in range(rules.num_categories):
            if faces[c] >= 0:
                up_left += np.where((st.mask >> c) & 1, 0, up_max[c])
        dead = st.upper + up_left < T
        reach = (st.upper >= u0) & ((u0 < T) | (st.upper == T))
        need = k - _gain_floor(rules, start, st.mask, st.flag, st.upper)
        bound = max_to_come(rules, st.mask, st.flag, st.upper) + (1 if draw else 0)
        last = np.minimum(need, bound)
        keep = sup & (reach | (dead & (u0 < T))) & (last >= 1)
        sm, sf, su, sl = st.mask[keep], st.flag[keep], st.upper[keep], last[keep]
        keys = (sm * rules.flags + sf) * width + su
        off[keys] = cursor + np.concatenate(([0], np.cumsum(sl + 1)[:-1]))
        top[keys] = sl
        cursor += int((sl + 1).sum())
        dst_mask = st.copy_dst // width // rules.flags
        alias = (dst_mask & mask) == mask
        off[st.copy_dst[alias]] = off[st.copy_src[alias]]
        top[st.copy_dst[alias]] = top[st.copy_src[alias]]
        if int(st.mask[0]) == full:
            ends.append(off[keys])  # rows (1, 1/2): written below, nothing to solve
        elif sm.size:
            plan.append((sm, sf, su))
    data = np.zeros(cursor, dtype=dt)
    for at in ends:
        data[at] = 1.0
        data[at + 1] = 0.5
    K = kernel_arrays(rules, dt)
    states = 0
    pace = Pace()
    with interruptible():
        for i, (sm, sf, su) in enumerate(plan):
            _solve_layer(rules, sm, sf, su, data, off, top, K, lanes, pace)
            states += sm.size
            if progress is not None:
                progress(i + 1, len(plan))
    return TargetRows(
        rules, data, off, top, k, start, time.perf_counter() - t0, states, int(cursor)
    )


def check_target(target: int, rules: YatzyRules) -> int:
    """A target score (points) in 0 .. ``rules.max_total``, else InputError (one line)."""
    if target < 0 or target > rules.max_total:
        raise InputError(f"the target must be between 0 and {rules.max_total} points, got {target}")
    return int(target)


def target_key(
    variant: str, dtype: str = "float32", rules: YatzyRules | None = None
) -> storage.TableKey:
    """The storage key of a variant's full target table (objective ``target``; ``rules``
    default: the named variant's)."""
    rules = rules or get_rules(variant)
    return storage.TableKey(
        game="yatzy",
        variant=variant,
        objective=OBJECTIVE,
        theta=0.0,
        dtype=np.dtype(dtype).name,
        shape=table_shape(rules, table_kmax(rules)),
    )


def _rules_text(rules: YatzyRules) -> dict[str, Any]:
    return {k: v for k, v in rules.describe().items() if k != "name"}


def targets_path(
    variant: str | None = None,
    dtype: str = "float32",
    directory: str | None = None,
    rules: YatzyRules | None = None,
) -> Path:
    """Where the full target table of a variant lives (a memory-mapped table file)."""
    name = variant if rules is not None and variant else variant_id(variant)
    return storage.mapped_path(target_key(name, dtype, rules), directory)


def load_targets(
    variant: str | None = None,
    dtype: str = "float32",
    directory: str | None = None,
    rules: YatzyRules | None = None,
    verify: str = "full",
    then: str = "rebuilding it",
) -> tuple[TargetTable, float] | None:
    """The stored full target table, memory-mapped (read-only), and its load seconds, or
    None (missing, or bad: one warning line). ``verify`` "full": every block's checksum
    checked now (``values`` may be read directly, e.g. from numba); "lazy": the header
    and size now, each block when :meth:`TargetTable.probability` / ``turn`` first read
    it (``TargetTable.verify()`` checks the rest). ``rules``: the rules of ``variant``
    when it is not a named variant (tests). ``then``: the warning's last words, what the
    caller does instead."""
    if rules is None:
        variant = variant_id(variant)
        rules = get_rules(variant)
    assert variant is not None
    t0 = time.perf_counter()
    got = storage.load(
        target_key(variant, dtype, rules), directory, mapped=True, verify=verify, then=then
    )
    if got is None:
        return None
    stored, _ = got
    h = stored.header
    if h.get("rules") != _rules_text(rules):
        path = storage.mapped_path(target_key(variant, dtype, rules), directory)
        storage.warn(f"ignoring cached table {path}: other rules; {then}")
        return None
    seconds, states = float(h.get("seconds", 0.0)), int(h.get("states", 0))
    table = TargetTable(rules, stored.arrays["values"], seconds, states, stored.check)
    return table, time.perf_counter() - t0


def store_targets(table: TargetTable, variant: str, directory: str | None = None) -> bool:
    """Save a full target table (memory-mappable); one warning line and False if it
    cannot be written (or is not a full table)."""
    if table.kmax != table_kmax(table.rules):
        raise InputError(f"only full tables are stored (k up to {table_kmax(table.rules)})")
    key = target_key(variant, table.values.dtype.name, table.rules)
    meta = {"seconds": table.seconds, "states": table.states, "rules": _rules_text(table.rules)}
    return storage.store(key, {"values": table.values}, meta, directory, mapped=True)


def get_targets(
    variant: str | None = None,
    dtype: str = "float32",
    directory: str | None = None,
    *,
    rules: YatzyRules | None = None,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[TargetTable, storage.TableInfo]:
    """Load the full target table of a variant, or solve it (``force``: always) and store
    it; ``info.saved`` is False (after one warning line) if it could not be written."""
    if rules is None:
        variant = variant_id(variant)
        rules = get_rules(variant)
    assert variant is not None
    _check_dtype(dtype)
    path = storage.mapped_path(target_key(variant, dtype, rules), directory)
    if not force:
        got = load_targets(variant, dtype, directory, rules)
        if got is not None:
            table, seconds = got
            return table, storage.TableInfo(path, True, seconds, table.seconds)
    table = solve_targets(rules, dtype=dtype, progress=progress)
    saved = store_targets(table, variant, directory)
    return table, storage.TableInfo(path, False, table.seconds, table.seconds, saved)


_LOADED: dict[tuple[str, str, str], TargetTable] = {}


def stored_table(
    variant: str, dtype: str = "float32", verified: bool = False
) -> TargetTable | None:
    """The stored full table of a named variant, checked lazily (loaded once per process
    and cache directory), or None. ``verified``: every block checked now (for readers of
    ``values`` that bypass the lazy checks, e.g. numba kernels); a bad block gives one
    warning line and None."""
    memo = (variant, np.dtype(dtype).name, str(storage.cache_root()))
    if memo not in _LOADED:
        got = load_targets(variant, dtype, verify="lazy", then="solving what is needed instead")
        if got is None:
            return None
        _LOADED[memo] = got[0]
    if verified:
        try:
            _LOADED[memo].verify()
        except storage.TableFileError as exc:
            del _LOADED[memo]
            storage.warn(f"ignoring cached table: {exc}; solving what is needed instead")
            return None
    return _LOADED[memo]


def target_turn_for(
    config: Any, mask: int, flag: int, upper: int, k: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """:func:`target_turn` at k points still needed from a turn-start state: from the
    stored full table when there is one and it holds k (the blocks read are checked:
    a bad one is reported in one line and the table not used), else from the stored
    target rows from the start (:mod:`diceopt.games.yatzy.tables`), else solved now for
    this state and k only (:func:`solve_target_from`, progress on stderr)."""
    from diceopt.progress import Stage

    rules = config.rules
    table = stored_table(config.variant, config.dtype)
    if table is not None and k <= table.kmax:
        try:
            return table.turn(mask, flag, upper, k)
        except storage.TableFileError as exc:
            path = targets_path(config.variant, config.dtype)
            storage.warn(
                f"ignoring cached table {path}: {exc}; `diceopt yatzy targets` rebuilds it"
            )
            _LOADED.clear()
            table = None
    from diceopt.games.yatzy.tables import load_rows

    rows = load_rows(config.variant, config.dtype, full=False)  # stored rows from the start
    if rows is not None and k <= rows.kmax:
        return rows.turn(mask, flag, upper, k)
    why = (
        f"no stored target table (`diceopt yatzy targets --variant {config.variant}` "
        "stores one for every target)"
        if table is None
        else f"stored table: k <= {table.kmax}"
    )
    label = f"{why}: solving P(>= {k} more points) from this position"
    with Stage(label, "layers") as stage:
        rows = solve_target_from(
            rules, mask, flag, upper, max(0, k), dtype=config.dtype, progress=stage.update
        )
    return rows.turn(mask, flag, upper, k)


def advise_target(pos: Any, config: Any, target: int) -> Advice:
    """Every legal action of ``pos`` ranked by P(final score >= target) (points; without
    a score in the position: P(points still to come >= target)), best first; regrets in
    probability, ``expected`` the action's expected final score (the ordinary table).
    Ties as in the expected-score advice (scoring first, categories in order, keeps in
    lattice order)."""
    from diceopt.games.yatzy.advice import rank_by_probability, roll_index, state_of

    rules = config.rules
    check_target(target, rules)
    if pos.over(rules):
        raise InputError("the game is over: every category is filled")
    k = target - (0 if pos.score is None else int(round(pos.score)))
    mask, flag, upper = state_of(pos, rules)
    if k <= 0:  # reached: every action keeps it
        keep, cat, _ = solve_target_from(rules, mask, flag, upper, 0).turn(mask, flag, upper, 0)
        keep[:] = 1.0
        cat[cat >= 0] = 1.0
    else:
        keep, cat, _ = target_turn_for(config, mask, flag, upper, k)
    what = "final score" if pos.score is not None else "points still to come"
    return rank_by_probability(
        pos, rules, config.table(), cat[roll_index(pos, rules)], keep,
        f"probability that the {what} is at least {target} (0-1)",
    )  # fmt: skip


def warm_up_targets(dtype: str | np.dtype = "float32") -> float:
    """Compile (or load from numba's cache) the target kernels for ``dtype``; seconds."""
    from diceopt.games.yatzy.rules import AMERICAN

    t0 = time.perf_counter()
    tiny = AMERICAN.reduced(("ones", "full_house", "yahtzee"), bonus_threshold=3, dice=3)
    table = solve_targets(tiny, dtype=dtype)
    table.turn(0, 0, 0, 5)
    solve_target_from(tiny, 0, 0, 0, 5, dtype=dtype).turn(0, 0, 0, 5)
    return time.perf_counter() - t0


def size_text(nbytes: int) -> str:
    """A size for people: GB from 0.1 GB up, else MB."""
    return f"{nbytes / 1e9:.2f} GB" if nbytes >= 1e8 else f"{nbytes / 1e6:.1f} MB"


START_TARGETS = (200, 250, 300)  # P(final score >= K) printed from the start (points)


def run_targets(config: Any, args: Any) -> int:
    """``diceopt yatzy targets``: load the stored full target table, or build it (progress
    on stderr) and store it; where it is, seconds, size, P(final >= K) from the start."""
    import resource

    from diceopt.output import print_json
    from diceopt.progress import Stage

    t0 = time.perf_counter()
    variant, dtype, rules = config.variant, config.dtype, config.rules
    path = targets_path(variant, dtype)
    loaded = None if args.force else load_targets(variant, dtype)
    compile_seconds = store_seconds = 0.0
    if loaded is not None:
        table, load_seconds = loaded
        saved = True
    else:
        load_seconds = 0.0
        compile_seconds = warm_up_targets(dtype)
        label = f"solving the {variant} target table (k = 0 .. {table_kmax(rules)})"
        with Stage(label, "layers") as stage:
            table = solve_targets(rules, dtype=dtype, progress=stage.update)
        t1 = time.perf_counter()
        with Stage(f"storing it ({size_text(table.values.nbytes)})") as stage:
            saved = store_targets(table, variant)
            if not saved:
                stage.fail()  # the warning above says why: no "done"
        store_seconds = time.perf_counter() - t1
    size = path.stat().st_size if saved else table.values.nbytes
    p_at = {k: table.probability(0, 0, 0, k) for k in START_TARGETS if k <= table.kmax}
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    if args.json:
        print_json(
            {
                "variant": variant,
                "dtype": dtype,
                "kmax": table.kmax,
                "states": table.states,
                "bytes": size,
                "loaded": loaded is not None,
                "path": str(path) if saved else None,
                "solve_seconds": table.seconds,
                "compile_seconds": compile_seconds,
                "store_seconds": store_seconds,
                "load_seconds": load_seconds,
                "seconds": time.perf_counter() - t0,
                "peak_rss_gb": peak,
                "p_at_least": {str(k): p for k, p in p_at.items()},
            }
        )
        return 0
    print(
        f"{variant}: target table, P(points still to come >= k) for k = 0 .. {table.kmax}, "
        f"{table.states:,} states, {size_text(size)} ({dtype})"
    )
    if loaded is not None:
        print(f"loaded {path} in {load_seconds:.2f} s (solved in {table.seconds:.1f} s)")
    else:
        where = f"stored {path} in {store_seconds:.1f} s" if saved else "not stored"
        print(
            f"solved in {table.seconds:.1f} s (numba compile {compile_seconds:.1f} s, "
            f"peak memory {peak:.2f} GB); {where}"
        )
    print("from the start: " + "  ".join(f"P(final >= {k}) {p:.6f}" for k, p in p_at.items()))
    print(f"{time.perf_counter() - t0:.1f} s")
    return 0
