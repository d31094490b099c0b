"""Exact Yatzy/Yahtzee solver and the per-turn widget: backward induction in numba.

Role: solve every reachable turn-start state of a variant (the lane-vectorised solver,
:func:`solve_table`) and evaluate one turn exactly (the scalar widget,
:func:`widget_into`, shared by the simulation and the other kernels; the advice of a
stored table runs its numpy twin, :mod:`diceopt.games.yatzy.table`, without numba).
The rules as arrays (``K``) are built in :mod:`diceopt.games.yatzy.arrays`.

A turn-start state is ``(mask, flag, upper)``: the bit mask of filled categories (bit c =
category c of the rules), ``flag`` = 1 when the Yahtzee box holds 50 (American with the
Yahtzee bonus; always 0 otherwise) and the upper total capped at the bonus threshold.
The table ``V[mask, flag, upper]`` holds the optimal value of the rest of the game from
the start of a turn in that state: expected points still to come (bonuses included),
or, with ``theta != 0``, their certainty equivalent under exponential utility
``(1/theta) log E[exp(theta X)]`` (points). Entries of unreachable states are NaN.

The widget (one turn from a state whose successors are solved):

1. Successor rows (:func:`_successor_rows`): for every category c and h, the value of
   the rest of the game after writing into c, ``SR[c * (dice + 1) + h]``: an upper
   category with h dice of its face (points, upper bonus and next state included), a
   lower category scored normally (h = 0) or the Yahtzee box scored 50 (h = 1). Rows of
   categories that may not be used are NEG. One table read per row, not per roll.
2. Score now (0 rerolls left): the value of each of the R sorted rolls is the best of
   "write 0 somewhere" (the best h = 0 row) and ``points + SR[row]`` over the few
   categories where the roll scores (``pos_id`` / ``pos_s``); Yahtzee rolls under the
   joker rule are scored category by category (:func:`_joker_best`); the Yahtzee bonus
   is added last.
3. With ``theta != 0`` every value X is replaced by the utility
   ``W = sign(theta) exp(theta (X - ref))`` (ref = best score-now value for theta > 0,
   worst for theta < 0, so ``|W| <= 1``). W increases with X, so choices are still
   maxima, and chance nodes become plain averages.
4. Twice (1 and 2 rerolls left): chance, ``E[keep] = sum_f p_f E[keep + f]`` down the
   keep lattice (:class:`~diceopt.dice.KeepLattice`, :func:`_chance`); choice, the best
   sub-multiset of every multiset through the remove-one-die edges; a roll's value is
   the best of scoring now and its best proper keep. O(462 * 6) per level for 5 dice,
   O(924 * 6) for 6 (Maxi Yatzy): the dice count, the categories and the bonus
   threshold all come from the rules, so one code path solves every variant.
5. The state's value is the average over the first roll (back to points for theta != 0).

Tie-break (one rule for the advice, the simulation and any policy read from here):
among equally good actions the first in this order wins: writing a category before
keeping dice; among categories the lowest category index (the rules' order); among
keeps the lowest flat lattice index (fewer dice kept first; among keeps of one size,
the sorted pips read as a word, ``1 1 2`` before ``1 2 2``). The solver itself only
takes maxima, where ties do not matter. With ``theta != 0`` the choice is made on the
utilities W; values shown in points may tie after rounding where the W differ.

Solver (:func:`solve_table`): layer by layer (number of filled categories, last turn
first; only the layer being solved has its state list in memory, see
:func:`iter_layer_states`); within a layer all states are laid out as *lanes* and
solved ``lanes`` at a time by the steps above, every lattice operation a loop over
contiguous lanes (SIMD), batches in parallel (``prange``), a layer's states in chunks
of about 0.2 s called from Python so that Ctrl-C stops a solve between two
(:func:`solve_states_chunked`, :mod:`diceopt.interrupt`). Step 1 and the joker scoring
of step 2 are the scalar widget's functions applied per lane; the lattice loops are
written twice (lanes and scalar), each twin tagged with the reason.

Policies of many states (:func:`policy_lanes`, theta == 0; the exact distribution): the
solver's lanes in float64 give the widget's numbers bit for bit, and the argmax of steps
2 and 4 with the widget's tie-break runs over the lanes too (``_score_now_lanes``,
``_keep_policy``: tagged twins): the widget's ``policy`` at a quarter of its cost.

Saved rerolls (:mod:`diceopt.games.yatzy.saved`): a turn has ``2 + s`` rerolls and
writing with t left saves ``min(t, saved_cap)`` for the next turn; ``V`` is then the next
layer (:class:`SavedLayer`, read through ``_next_value``), step 4 runs ``2 + s`` levels
(:func:`_solve_batch_saved`: every s of a state in one pass) and the score-now rows are
refreshed per level from the successor lanes found once per batch (index mode of
:func:`_successor_rows`, :func:`_rows_at`).

Precision and performance: tables are float32 (default) or float64; the scalar widget
always computes in float64. Upper totals from which the bonus can no longer be reached
have the same value: one is solved and copied. The remove-one-die edges are padded with
a NEG row so the choice loops have no branches; ``_fill`` takes four maxima at a time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np
from numba import types
from numba.extending import overload

from diceopt.errors import InputError
from diceopt.games.yatzy.arrays import NEG, KernelArrays, kernel_arrays
from diceopt.games.yatzy.rules import YatzyRules, check_theta, reachable_upper_totals
from diceopt.games.yatzy.table import YatzyTable
from diceopt.interrupt import Pace, interruptible, run_chunks

LANES = {np.dtype(np.float32): 256, np.dtype(np.float64): 128}  # states per batch (measured best)
# Rerolls in a turn without saved rerolls: a numpy int, so that numba types it as the int
# a Python caller passes (a literal 2 or an omitted default would each compile the widget
# once more)
TURN_REROLLS = np.int64(2)


class SavedLayer(NamedTuple):
    """One solved layer of a saved-rerolls table as the kernels read it (``V`` of
    :func:`_successor_rows` for the layer before it).

    The layer's lanes are its turn-start states ``(mask, flag, upper)`` with a solved
    upper total (totals from which the bonus is out of reach share their representative's
    lane): lane = ``moff[mask] + flag * nsolve[msub[mask]] + urank[msub[mask], upper]``.
    ``values[lane, s]``: the state's value (points to come) with s rerolls saved.
    """

    values: np.ndarray  # (lanes, saved + 1) dt
    moff: np.ndarray  # (2^C,) int64: first lane of each mask (within its own layer)
    msub: np.ndarray  # (2^C,) int64: the mask's filled upper categories (bits over ranks)
    urank: np.ndarray  # (subsets, T + 1) int64: lane of each upper total, -1 unreachable
    nsolve: np.ndarray  # (subsets,) int64: solved upper totals of each subset


@numba.njit(cache=True)
def _next_lane(V: SavedLayer, mask: int, flag: int, u: int) -> int:
    """The lane of turn-start state (mask, flag, u) in a :class:`SavedLayer`."""
    sub = V.msub[mask]
    return V.moff[mask] + flag * V.nsolve[sub] + V.urank[sub, u]


def _next_value(V: np.ndarray | SavedLayer, mask: int, flag: int, u: int, s: int) -> float:
    """Value of the turn-start state (mask, flag, u) with s rerolls saved: ``V[mask,
    flag, u]`` for a table (s is 0 there), or the lane of a :class:`SavedLayer` (the
    kernels use the numba overload below, chosen by the type of V when compiling)."""
    if isinstance(V, np.ndarray):
        return V[mask, flag, u]
    return V.values[_next_lane(V, mask, flag, u), s]


@overload(_next_value)
def _next_value_nb(V, mask, flag, u, s):  # noqa: ANN001 - numba types
    """Compile-time choice by the type of V (a 3-d table or a SavedLayer)."""
    if isinstance(V, types.Array):
        return lambda V, mask, flag, u, s: V[mask, flag, u]

    def packed(V, mask, flag, u, s):  # noqa: ANN001
        return V.values[_next_lane(V, mask, flag, u), s]

    return packed


class WidgetBuffers(NamedTuple):
    """Work arrays of the scalar widget (float64; see :func:`widget_into`)."""

    SR: np.ndarray  # (C * (dice + 1) + 1, 1): successor rows, the last one NEG
    roll_value: np.ndarray  # (L + 1, R): value of roll r with t rerolls left (L: K.levels)
    keep_value: np.ndarray  # (L + 1, nk): value of keeping multiset k with t rerolls left
    sub_best: np.ndarray  # (nk + 1,): best sub-multiset value (index nk: NEG padding)
    sub_arg: np.ndarray  # (nk + 1,) int64: its flat lattice index
    policy: np.ndarray  # (L + 1, R) int64: the chosen action (see widget_into)
    cv: np.ndarray  # (C,): value of writing one roll into each category
    now_value: np.ndarray  # (R,): value of writing roll r now (the level being solved)
    now_cat: np.ndarray  # (R,) int64: the category it is written into


def upper_lanes(faces: np.ndarray, dice: int, threshold: int) -> tuple[np.ndarray, np.ndarray]:
    """Reachable capped upper totals for every subset of the upper categories.

    ``faces[i]`` is the face index of upper category i (rank order). Returns ``lanes_n``
    (count per subset) and ``lanes_u`` (the totals, sorted, padded with -1), indexed by
    the subset as a bit mask over ranks.
    """
    m = len(faces)
    lanes_n = np.zeros(1 << m, dtype=np.int64)
    lanes_u = np.full((1 << m, threshold + 1), -1, dtype=np.int64)
    for s in range(1 << m):
        vals = reachable_upper_totals([faces[i] for i in range(m) if s >> i & 1], dice, threshold)
        lanes_n[s] = len(vals)
        lanes_u[s, : len(vals)] = vals
    return lanes_n, lanes_u


def reachable_uppers(rules: YatzyRules, mask: int) -> list[int]:
    """Upper totals (capped) reachable with the filled upper categories of ``mask``."""
    faces = [f for c, f in enumerate(rules.upper_face) if f >= 0 and mask >> c & 1]
    return reachable_upper_totals(faces, rules.dice, rules.bonus_threshold)


# ---------------------------------------------------------------------------------------
# The rules of one turn, shared by the scalar widget and the lanes (``K`` is a
# KernelArrays; ``SR[row, ln]`` the successor rows of lane ln, one lane for the widget).


@numba.njit(cache=True)
def _may_write(mask: int, c: int, K: KernelArrays) -> bool:
    """Whether category c is open to a non-joker roll (open; first open if forced order)."""
    if (mask >> c) & 1:
        return False
    if K.forced:
        for d in range(c):
            if not (mask >> d) & 1:
                return False
    return True


@numba.njit(cache=True)
def _allowed(mask: int, r: int, K: KernelArrays):
    """Categories roll r (-1: any non-Yahtzee roll) may be written into, and whether as joker."""
    upper_face = K.upper_face
    ncat = upper_face.size
    ok = np.zeros(ncat, dtype=np.bool_)
    for c in range(ncat):
        ok[c] = _may_write(mask, c, K)
    use_joker = False
    f = K.yz_face[r] if r >= 0 else -1
    if K.joker_code != 0 and f >= 0 and K.yz_cat >= 0 and (mask >> K.yz_cat) & 1:
        use_joker = True
        if K.joker_code == 2:  # forced joker: matching upper box, else a lower one, else any
            match = -1
            lower_open = False
            for c in range(ncat):
                if ok[c]:
                    if upper_face[c] == f:
                        match = c
                    elif upper_face[c] < 0:
                        lower_open = True
            if match >= 0:
                for c in range(ncat):
                    ok[c] = c == match
            elif lower_open:
                for c in range(ncat):
                    if upper_face[c] >= 0:
                        ok[c] = False
        else:  # free choice: any open box; joker points once the matching upper box is used
            for c in range(ncat):
                if upper_face[c] == f and not (mask >> c) & 1:
                    use_joker = False
    return ok, use_joker


@numba.njit(cache=True)
def _successor_rows(
    mask: int,
    flag: int,
    u: int,
    V: np.ndarray,
    K: KernelArrays,
    SR: np.ndarray,
    ln: int,
    s: int = 0,
    IDX: np.ndarray | None = None,
):
    """Step 1 for lane ln: SR[c * (dice + 1) + h, ln]; returns the best h = 0 row and its
    category (lowest index on ties).

    Lower category c: h = 0 scored normally (Yahtzee box: scored 0), h = 1 Yahtzee box
    scored 50. Upper category c: h = count of its face (points and bonus included).
    Rows of categories that may not be used are NEG. ``V``: the table, or with saved
    rerolls the next layer (:class:`SavedLayer`), read with ``s`` rerolls saved.

    Index mode (``IDX`` given, V a SavedLayer; compiled apart, numba prunes the branch):
    nothing is read; ``IDX[row, ln]`` gets the row's successor lane times the layer's
    width and ``SR[row, ln]`` the points beside it (NEG rows: index 0), so that the rows
    at any s are ``SR + values.flat[IDX + s]`` (:func:`_rows_at`); the returned best
    row is then meaningless.
    """
    T = K.threshold
    neg = K.neg
    ncat = K.upper_face.size
    stride = K.offset.size - 1  # dice + 1
    z = neg
    zc = 0
    for c in range(ncat):
        b0 = c * stride
        if not _may_write(mask, c, K):
            for h in range(stride):
                SR[b0 + h, ln] = neg
                if IDX is not None:
                    IDX[b0 + h, ln] = 0
            continue
        nxt = mask | (1 << c)
        f = K.upper_face[c]
        if f < 0:
            _put(V, SR, IDX, b0, ln, 0.0, nxt, flag, u, s)
            if c == K.yz_cat and K.ybonus > 0:
                _put(V, SR, IDX, b0 + 1, ln, 0.0, nxt, 1, u, s)
            else:
                SR[b0 + 1, ln] = SR[b0, ln]
                if IDX is not None:
                    IDX[b0 + 1, ln] = IDX[b0, ln]
        else:
            for cnt in range(stride):
                pts = cnt * (f + 1)
                b = K.bonus if (u < T and u + pts >= T) else 0
                _put(V, SR, IDX, b0 + cnt, ln, pts + b, nxt, flag, min(T, u + pts), s)
        if SR[b0, ln] > z:
            z = SR[b0, ln]
            zc = c
    return z, zc


@numba.njit(cache=True)
def _put(
    V: np.ndarray,
    SR: np.ndarray,
    IDX: np.ndarray | None,
    row: int,
    ln: int,
    add: float,
    nxt: int,
    flag: int,
    u: int,
    s: int,
) -> None:
    """One successor row of :func:`_successor_rows`: ``SR[row, ln] = add + value of (nxt,
    flag, u) with s saved``; in index mode SR gets ``add`` and IDX the lane's offset."""
    if IDX is None:
        SR[row, ln] = add + _next_value(V, nxt, flag, u, s)
    else:
        IDX[row, ln] = _next_lane(V, nxt, flag, u) * V.values.shape[1]
        SR[row, ln] = add


@numba.njit(cache=True)
def _rows_at(
    ADD: np.ndarray,
    IDX: np.ndarray,
    flat: np.ndarray,
    s: int,
    SR: np.ndarray,
    Z: np.ndarray,
    nb: int,
    K: KernelArrays,
) -> None:
    """The successor rows of lanes 0 .. nb with s rerolls saved from index mode's ``ADD``
    (points) and ``IDX`` (see :func:`_successor_rows`; ``flat``: the next layer's values,
    flattened), and Z, the best h = 0 row of each lane."""
    stride = K.offset.size - 1
    ncat = K.upper_face.size
    for row in range(ncat * stride):
        for ln in range(nb):
            SR[row, ln] = ADD[row, ln] + flat[IDX[row, ln] + s]
    for ln in range(nb):
        Z[ln] = SR[0, ln]
    for c in range(1, ncat):
        b0 = c * stride
        for ln in range(nb):
            Z[ln] = max(Z[ln], SR[b0, ln])


@numba.njit(cache=True)
def _category_row(r: int, c: int, use_joker: bool, K: KernelArrays):
    """Successor row and the points beside it of writing roll r into (allowed) category
    c: ``(row, s)``; the row of an upper category holds its points (s = 0)."""
    stride = K.offset.size - 1
    f = K.upper_face[c]
    if f >= 0:
        return c * stride + K.roll_cnt[r, f], K.zero
    s = K.joker[r, c] if use_joker else K.score[r, c]
    h = 1 if (c == K.yz_cat and s > 0) else 0
    return c * stride + h, s


@numba.njit(cache=True)
def _category_value(r: int, c: int, use_joker: bool, K: KernelArrays, SR: np.ndarray, ln: int):
    """Value of writing roll r into (allowed) category c: points + successor row, without
    the Yahtzee bonus (added by the caller)."""
    row, s = _category_row(r, c, use_joker, K)
    return s + SR[row, ln]


@numba.njit(cache=True)
def _joker_best(mask: int, r: int, K: KernelArrays, SR: np.ndarray, ln: int):
    """Best value and category (lowest index on ties) of Yahtzee roll r when the Yahtzee
    box is filled (joker rules apply), without the Yahtzee bonus."""
    ok, use_joker = _allowed(mask, r, K)
    best = K.neg
    bc = -1
    for c in range(ok.size):
        if ok[c]:
            v = _category_value(r, c, use_joker, K, SR, ln)
            if bc < 0 or v > best:
                best = v
                bc = c
    return best, bc


@numba.njit(cache=True)
def _chance(
    A: np.ndarray, src: np.ndarray, i: int, nb: int, add_die: np.ndarray, fprob: np.ndarray
) -> None:
    """A[i] = sum_f p_f src[i + f] per lane (expected value over one more die)."""
    k = add_die.shape[1]
    if k == 6:
        j0, j1, j2 = add_die[i, 0], add_die[i, 1], add_die[i, 2]
        j3, j4, j5 = add_die[i, 3], add_die[i, 4], add_die[i, 5]
        p0, p1, p2, p3, p4, p5 = fprob[0], fprob[1], fprob[2], fprob[3], fprob[4], fprob[5]
        for ln in range(nb):
            A[i, ln] = (
                p0 * src[j0, ln]
                + p1 * src[j1, ln]
                + p2 * src[j2, ln]
                + p3 * src[j3, ln]
                + p4 * src[j4, ln]
                + p5 * src[j5, ln]
            )
    else:
        j0 = add_die[i, 0]
        p0 = fprob[0]
        for ln in range(nb):
            A[i, ln] = p0 * src[j0, ln]
        for f in range(1, k):
            j = add_die[i, f]
            p = fprob[f]
            for ln in range(nb):
                A[i, ln] = A[i, ln] + p * src[j, ln]


# ---------------------------------------------------------------------------------------
# The lanes: steps 2, 4 and 5 over ``nb`` states at once (SIMD loops over lanes).


@numba.njit(cache=True)
def _gather(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    lo: int,
    nb: int,
    V: np.ndarray,
    SR: np.ndarray,
    Z: np.ndarray,
    YB: np.ndarray,
    K: KernelArrays,
    s: int,
    IDX: np.ndarray | None = None,
) -> None:
    """Step 1 for every lane (successors read with s rerolls saved), the best zero score Z
    and the Yahtzee bonus YB per lane (``IDX``: index mode, see :func:`_successor_rows`)."""
    for ln in range(nb):
        flag = st_flag[lo + ln]
        z, _ = _successor_rows(st_mask[lo + ln], flag, st_u[lo + ln], V, K, SR, ln, s, IDX)
        Z[ln] = z
        YB[ln] = K.ybonus if flag == 1 else 0


@numba.njit(cache=True)
def _fill(A: np.ndarray, TMP: np.ndarray, SR: np.ndarray, Z: np.ndarray, nb: int, K: KernelArrays):
    """Step 2, rows of the rolls: value of writing each roll now (0 rerolls left), per lane.

    max(Z, s + SR[row]) over the rows of the roll's positive scores, four at a time.
    Deliberate twin of the scalar loop in ``widget_into`` (which tracks the argmax):
    here the lanes need only the maximum, four rows per pass over contiguous lanes.
    """
    offset, pos_id, pos_s = K.offset, K.pos_id, K.pos_s
    nd = offset.size - 2
    base = offset[nd]
    R = pos_id.shape[0]
    width = pos_id.shape[1]
    for r in range(R):
        row = base + r
        src = Z
        tmp_is_dst = True
        for e in range(0, width, 4):
            i0, i1, i2, i3 = pos_id[r, e], pos_id[r, e + 1], pos_id[r, e + 2], pos_id[r, e + 3]
            if e > 0 and i0 == SR.shape[0] - 1:
                break  # only padding left
            s0, s1, s2, s3 = pos_s[r, e], pos_s[r, e + 1], pos_s[r, e + 2], pos_s[r, e + 3]
            dst = TMP if tmp_is_dst else A[row]
            for ln in range(nb):
                dst[ln] = max(
                    max(src[ln], s0 + SR[i0, ln]),
                    max(max(s1 + SR[i1, ln], s2 + SR[i2, ln]), s3 + SR[i3, ln]),
                )
            src = dst
            tmp_is_dst = not tmp_is_dst
        if not tmp_is_dst:  # result is in TMP
            for ln in range(nb):
                A[row, ln] = TMP[ln]


@numba.njit(cache=True)
def _joker_rows(
    A: np.ndarray,
    SR: np.ndarray,
    st_mask: np.ndarray,
    lo: int,
    nb: int,
    K: KernelArrays,
) -> None:
    """Step 2 for Yahtzee rolls in lanes where the joker rule applies (per lane)."""
    base = K.offset[K.offset.size - 2]
    yz_cat = K.yz_cat
    for ln in range(nb):
        mask = st_mask[lo + ln]
        if not (yz_cat >= 0 and (mask >> yz_cat) & 1):
            continue
        for r in range(K.yz_face.size):
            if K.yz_face[r] >= 0:
                best, _ = _joker_best(mask, r, K, SR, ln)
                A[base + r, ln] = best


@numba.njit(cache=True)
def _score_now(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    lo: int,
    nb: int,
    V: np.ndarray,
    A: np.ndarray,
    SR: np.ndarray,
    Z: np.ndarray,
    YB: np.ndarray,
    TMP: np.ndarray,
    K: KernelArrays,
    s: int,
) -> None:
    """Steps 1-2 per lane: the value of writing each roll now into A's roll rows, the
    successors read with ``s`` rerolls saved (0 without saved rerolls)."""
    _gather(st_mask, st_flag, st_u, lo, nb, V, SR, Z, YB, K, s)
    _score_rows(st_mask, lo, nb, A, SR, Z, YB, TMP, K)


@numba.njit(cache=True)
def _score_rows(
    st_mask: np.ndarray,
    lo: int,
    nb: int,
    A: np.ndarray,
    SR: np.ndarray,
    Z: np.ndarray,
    YB: np.ndarray,
    TMP: np.ndarray,
    K: KernelArrays,
) -> None:
    """Step 2 per lane from the successor rows SR: the value of writing each roll now
    into A's roll rows (jokers and the Yahtzee bonus included)."""
    offset, yz_face = K.offset, K.yz_face
    base = offset[offset.size - 2]
    _fill(A, TMP, SR, Z, nb, K)
    if K.joker_code != 0:
        _joker_rows(A, SR, st_mask, lo, nb, K)
    if K.ybonus != 0:
        for r in range(yz_face.size):
            if yz_face[r] >= 0:
                for ln in range(nb):
                    A[base + r, ln] += YB[ln]


@numba.njit(cache=True)
def _choose(A: np.ndarray, M: np.ndarray, nb: int, rem_pad: np.ndarray, rem_n: np.ndarray):
    """Step 4 choice, M[i] = max(A[i], M[i - f]): the best sub-multiset, per lane.

    Deliberate twin of the scalar choice in ``widget_into`` (which tracks the argmax and
    its tie-break): here only the maximum, branch-free over contiguous lanes.
    """
    nk = A.shape[0] - 1
    for ln in range(nb):
        M[0, ln] = A[0, ln]
    for i in range(1, nk):
        j0, j1, j2 = rem_pad[i, 0], rem_pad[i, 1], rem_pad[i, 2]
        if rem_n[i] <= 3:
            for ln in range(nb):
                M[i, ln] = max(max(A[i, ln], M[j0, ln]), max(M[j1, ln], M[j2, ln]))
        else:
            j3, j4, j5 = rem_pad[i, 3], rem_pad[i, 4], rem_pad[i, 5]
            for ln in range(nb):
                M[i, ln] = max(
                    max(max(A[i, ln], M[j0, ln]), max(M[j1, ln], M[j2, ln])),
                    max(max(M[j3, ln], M[j4, ln]), M[j5, ln]),
                )


@numba.njit(cache=True)
def _choose_generic(A: np.ndarray, M: np.ndarray, nb: int, rem_pad: np.ndarray, rem_n: np.ndarray):
    """As ``_choose`` for any number of faces."""
    nk = A.shape[0] - 1
    for i in range(nk):
        for ln in range(nb):
            M[i, ln] = A[i, ln]
        for e in range(rem_n[i]):
            j = rem_pad[i, e]
            for ln in range(nb):
                v = M[j, ln]
                M[i, ln] = v if v > M[i, ln] else M[i, ln]


@numba.njit(cache=True)
def _solve_batch(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    lo: int,
    nb: int,
    V: np.ndarray,
    A: np.ndarray,
    M: np.ndarray,
    SR: np.ndarray,
    Z: np.ndarray,
    YB: np.ndarray,
    TMP: np.ndarray,
    out: np.ndarray,
    K: KernelArrays,
    theta: float,
    E1: np.ndarray,
) -> None:
    """Values of the turn-start states lo .. lo + nb of a layer into out[:nb].

    Afterwards ``A[k, ln]`` (k below the rolls) is the value of keeping multiset k with
    two rerolls left and ``SR[:, ln]`` the successor rows; when ``E1`` has rows (the
    batch API), ``E1[k, ln]`` gets the value of keeping k with one reroll left (the
    solver passes an empty ``E1``).
    """
    offset = K.offset
    neg = K.neg
    nd = offset.size - 2
    base = offset[nd]
    nk = offset[nd + 1]
    R = nk - base
    for ln in range(nb):
        A[nk, ln] = neg
        M[nk, ln] = neg
    _score_now(st_mask, st_flag, st_u, lo, nb, V, A, SR, Z, YB, TMP, K, 0)
    sgn = 1.0 if theta >= 0.0 else -1.0
    if theta != 0.0:
        # step 3 with ref per lane (kept in TMP)
        for ln in range(nb):
            TMP[ln] = A[base, ln]
        for r in range(1, R):
            for ln in range(nb):
                x = A[base + r, ln]
                TMP[ln] = max(TMP[ln], x) if theta > 0.0 else min(TMP[ln], x)
        for r in range(R):
            for ln in range(nb):
                A[base + r, ln] = sgn * np.exp(theta * (A[base + r, ln] - TMP[ln]))
    _rerolls(A, M, nb, K, E1)
    _first_roll(M, out, nb, K)
    if theta != 0.0:
        for ln in range(nb):
            out[ln] = TMP[ln] + np.log(sgn * out[ln]) / theta


@numba.njit(cache=True)
def _keep_chance(A: np.ndarray, M: np.ndarray, nb: int, K: KernelArrays, first: bool) -> None:
    """Step 4 chance of one reroll level per lane: the keep values (A below the rolls) from
    the roll values one level down (the roll rows of A at the first level, of M after)."""
    add_die, offset, fprob = K.add_die, K.offset, K.fprob
    nd = offset.size - 2
    base = offset[nd]
    # keeps of size nd-1 .. 0 from the rows with one more die
    for i in range(base - 1, -1, -1):
        src = M if (not first and i >= offset[nd - 1]) else A
        _chance(A, src, i, nb, add_die, fprob)


@numba.njit(cache=True)
def _keep_choose(A: np.ndarray, M: np.ndarray, nb: int, K: KernelArrays) -> None:
    """Step 4 choice of one reroll level per lane: the best sub-multiset of every multiset
    into M; a roll's row of M is its value (the roll rows of A hold scoring now: keeping
    all dice is never better than the best of scoring now and a proper keep, so
    max(score now, proper keeps) is the roll's value)."""
    if K.rem_pad.shape[1] == 6:
        _choose(A, M, nb, K.rem_pad, K.rem_n)
    else:
        _choose_generic(A, M, nb, K.rem_pad, K.rem_n)


@numba.njit(cache=True)
def _rerolls(A: np.ndarray, M: np.ndarray, nb: int, K: KernelArrays, E1: np.ndarray) -> None:
    """Step 4 per lane: from the score-now values in the roll rows of A, the keep values
    with two rerolls left into A (below the rolls) and the roll values into M's roll rows
    (``E1``, when it has rows: the keep values with one reroll left)."""
    base = K.offset[K.offset.size - 2]
    _keep_chance(A, M, nb, K, True)
    if E1.shape[0] > 0:
        for i in range(base):
            for ln in range(nb):
                E1[i, ln] = A[i, ln]
    _keep_choose(A, M, nb, K)
    _keep_chance(A, M, nb, K, False)
    _keep_choose(A, M, nb, K)


@numba.njit(cache=True)
def _solve_batch_saved(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    lo: int,
    nb: int,
    V: SavedLayer,
    A: np.ndarray,
    M: np.ndarray,
    SR: np.ndarray,
    Z: np.ndarray,
    YB: np.ndarray,
    TMP: np.ndarray,
    out: np.ndarray,
    K: KernelArrays,
    nsaved: int,
    ADD: np.ndarray,
    IDX: np.ndarray,
) -> None:
    """Saved rerolls (theta 0): ``out[s, ln]`` for s = 0 .. nsaved - 1, the value of the
    turn-start states lo .. lo + nb of a layer with s rerolls saved; V the next layer.

    One pass of ``nsaved + 1`` reroll levels: roll values with t rerolls left do not
    depend on how many were saved, and the value with s saved is the first-roll average
    at level 2 + s. Writing with t rerolls left saves min(t, cap) for the next turn, so
    before the choice of level t the roll rows of A get the score-now values of level t.
    The successor lanes are found once (``ADD``, ``IDX``: index mode of
    :func:`_successor_rows`) and each level reads its rows from them (:func:`_rows_at`).
    """
    nk = K.offset[K.offset.size - 1]
    for ln in range(nb):
        A[nk, ln] = K.neg
        M[nk, ln] = K.neg
    flat = V.values.reshape(V.values.size)
    _gather(st_mask, st_flag, st_u, lo, nb, V, ADD, Z, YB, K, 0, IDX)
    _rows_at(ADD, IDX, flat, 0, SR, Z, nb, K)
    _score_rows(st_mask, lo, nb, A, SR, Z, YB, TMP, K)
    for t in range(1, nsaved + 2):
        _keep_chance(A, M, nb, K, t == 1)
        if t <= K.saved_cap:  # (the chance above has read the previous level's rows)
            _rows_at(ADD, IDX, flat, t, SR, Z, nb, K)
            _score_rows(st_mask, lo, nb, A, SR, Z, YB, TMP, K)
        _keep_choose(A, M, nb, K)
        if t >= 2:
            _first_roll(M, out[t - 2], nb, K)


@numba.njit(cache=True)
def _first_roll(M: np.ndarray, out: np.ndarray, nb: int, K: KernelArrays) -> None:
    """Step 5 per lane: out = sum_r p_r M[roll r] (the turn's value before its first roll)."""
    offset, roll_p = K.offset, K.roll_p
    nd = offset.size - 2
    base = offset[nd]
    R = offset[nd + 1] - base
    for ln in range(nb):
        out[ln] = K.zero
    roll_p = K.roll_p
    r = 0
    while r + 4 <= R:
        p0, p1, p2, p3 = roll_p[r], roll_p[r + 1], roll_p[r + 2], roll_p[r + 3]
        b = base + r
        for ln in range(nb):
            out[ln] = out[ln] + (
                p0 * M[b, ln] + p1 * M[b + 1, ln] + p2 * M[b + 2, ln] + p3 * M[b + 3, ln]
            )
        r += 4
    while r < R:
        p0 = roll_p[r]
        for ln in range(nb):
            out[ln] = out[ln] + p0 * M[base + r, ln]
        r += 1


@numba.njit(cache=True, parallel=True)
def _solve_states(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    V: np.ndarray,
    As: np.ndarray,
    Ms: np.ndarray,
    SRs: np.ndarray,
    vecs: np.ndarray,
    K: KernelArrays,
    theta: float,
    res: np.ndarray,
) -> None:
    """Values of the states (st_mask, st_flag, st_u) of one layer into ``res``, batch by
    batch; ``V`` is only read (the solved later layers), so it may be read-only (Ray)."""
    nchunks = As.shape[0]
    lanes = As.shape[2]
    nst = st_mask.size
    nbatch = (nst + lanes - 1) // lanes
    for ch in numba.prange(nchunks):
        A = As[ch]
        M = Ms[ch]
        SR = SRs[ch]
        Z = vecs[ch, 0]
        YB = vecs[ch, 1]
        TMP = vecs[ch, 2]
        out = vecs[ch, 3]
        for b in range(ch, nbatch, nchunks):
            lo = b * lanes
            nb = min(lanes, nst - lo)
            _solve_batch(
                st_mask, st_flag, st_u, lo, nb, V, A, M, SR, Z, YB, TMP, out, K, theta, As[ch, :0]
            )
            for ln in range(nb):
                res[lo + ln] = out[ln]


@numba.njit(cache=True, parallel=True)
def _solve_states_saved(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    V: SavedLayer,
    As: np.ndarray,
    Ms: np.ndarray,
    SRs: np.ndarray,
    vecs: np.ndarray,
    outs: np.ndarray,
    K: KernelArrays,
    res: np.ndarray,
    ADDs: np.ndarray,
    IDXs: np.ndarray,
) -> None:
    """Saved rerolls: ``res[i, s]``, the value of state i of a layer with s rerolls saved
    (s < res.shape[1]), batch by batch from the next layer V (read only). The batch loop
    of :func:`_solve_states` around :func:`_solve_batch_saved` (separate so that the
    published solver and its Ray caller keep their signature)."""
    nchunks = As.shape[0]
    lanes = As.shape[2]
    nst = st_mask.size
    nsaved = res.shape[1]
    nbatch = (nst + lanes - 1) // lanes
    for ch in numba.prange(nchunks):
        out = outs[ch]
        for b in range(ch, nbatch, nchunks):
            lo = b * lanes
            nb = min(lanes, nst - lo)
            _solve_batch_saved(
                st_mask, st_flag, st_u, lo, nb, V, As[ch], Ms[ch], SRs[ch],
                vecs[ch, 0], vecs[ch, 1], vecs[ch, 2], out, K, nsaved, ADDs[ch], IDXs[ch],
            )  # fmt: skip
            for s in range(nsaved):
                for ln in range(nb):
                    res[lo + ln, s] = out[s, ln]


def solve_states_chunked(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    kernel: Callable[..., None],
    head: tuple,
    tail: tuple,
    res: np.ndarray,
    align: int,
    pace: Pace | None = None,
) -> None:
    """``kernel(st_mask, st_flag, st_u, *head, res, *tail)`` (:func:`_solve_states` or
    :func:`_solve_states_saved`) on slices of the states and of ``res`` in turn, so that
    Ctrl-C stops a layer between two slices (:func:`diceopt.interrupt.run_chunks`;
    ``align``: states per round of batches, a multiple of the lanes; ``pace``: shared by
    the layers of one solve)."""

    def solve(lo: int, hi: int) -> None:
        kernel(st_mask[lo:hi], st_flag[lo:hi], st_u[lo:hi], *head, res[lo:hi], *tail)

    run_chunks(solve, st_mask.size, align=align, pace=pace)


def _solve_layer(
    st: LayerStates,
    V: np.ndarray,
    As: np.ndarray,
    Ms: np.ndarray,
    SRs: np.ndarray,
    vecs: np.ndarray,
    K: KernelArrays,
    theta: float,
    pace: Pace,
) -> None:
    """Solve the states of one layer into V (:func:`_solve_states`, in chunks)."""
    res = np.empty(st.mask.size, dtype=V.dtype)
    align = As.shape[0] * As.shape[2]
    head = (V, As, Ms, SRs, vecs, K, theta)
    solve_states_chunked(st.mask, st.flag, st.upper, _solve_states, head, (), res, align, pace)
    V[st.mask, st.flag, st.upper] = res


class PolicyBuffers(NamedTuple):
    """Work arrays of :func:`policy_lanes` (float64, ``lanes`` states at a time)."""

    A: np.ndarray  # (nk + 1, lanes): the solver's values (see _solve_batch)
    M: np.ndarray  # (nk + 1, lanes): the solver's choice; then the best sub-multiset values
    E1: np.ndarray  # (nk + 1, lanes): keep values with one reroll left
    SR: np.ndarray  # (C * (dice + 1) + 1, lanes): successor rows, the last one NEG
    vecs: np.ndarray  # (4, lanes): the solver's per-lane vectors
    arg: np.ndarray  # (nk + 1, lanes): the lowest flat index of the best sub-multiset
    tmp: np.ndarray  # (4, lanes): step 2's best value and category, zc, the tie flag
    policy: np.ndarray  # (lanes, 3, R) int64: each lane's policy, as WidgetBuffers.policy


@numba.njit(cache=True)
def policy_buffers(K: KernelArrays, lanes: int) -> PolicyBuffers:
    """Fresh work arrays for :func:`policy_lanes` (float64 ``K``)."""
    nd = K.offset.size - 2
    nk = K.offset[nd + 1]
    R = nk - K.offset[nd]
    rows = K.upper_face.size * (nd + 1) + 1
    SR = np.empty((rows, lanes))
    SR[rows - 1, :] = NEG
    return PolicyBuffers(
        np.empty((nk + 1, lanes)),
        np.empty((nk + 1, lanes)),
        np.empty((nk + 1, lanes)),
        SR,
        np.empty((4, lanes)),
        np.empty((nk + 1, lanes)),
        np.empty((4, lanes)),
        np.empty((lanes, 3, R), dtype=np.int64),
    )


@numba.njit(cache=True)
def _score_now_lanes(
    st_mask: np.ndarray,
    lo: int,
    nb: int,
    K: KernelArrays,
    SR: np.ndarray,
    Z: np.ndarray,
    tmp: np.ndarray,
    pols: np.ndarray,
) -> None:
    """Step 2's category choice for lanes 0 .. nb - 1 (states lo ..): ``pols[ln, 0, r] =
    -c - 1``, c the category roll r is written into, from the successor rows SR and the
    best h = 0 row values Z (the solver's); ``tmp`` (4, lanes) is work space.

    Deliberate twin of step 2 in ``widget_into`` (the same argmax and tie-break: the
    lowest category index among equal values), here over contiguous lanes: per lane the
    scalar loop costs more than the rest of ``policy_lanes``. Yahtzee rolls under the
    joker rule go through the widget's ``_joker_best`` per lane.
    """
    pos_id, pos_s, pos_c, yz_face = K.pos_id, K.pos_s, K.pos_c, K.yz_face
    R = pos_id.shape[0]
    width = pos_id.shape[1]
    stride = K.offset.size - 1
    pad = SR.shape[0] - 1
    best, bc, zc, fix = tmp[0], tmp[1], tmp[2], tmp[3]
    # zc: the lowest category whose h = 0 row is the best (rows not allowed are NEG)
    for c in range(K.upper_face.size - 1, -1, -1):
        row = SR[c * stride]
        for ln in range(nb):
            zc[ln] = c if row[ln] == Z[ln] else zc[ln]
    for r in range(R):
        for ln in range(nb):
            best[ln] = Z[ln]
            bc[ln] = zc[ln]
        for e in range(width):
            i = pos_id[r, e]
            if e > 0 and i == pad:
                break  # only padding left
            s = pos_s[r, e]
            c = pos_c[r, e]
            row = SR[i]
            for ln in range(nb):
                v = s + row[ln]
                better = v > best[ln]
                bc[ln] = c if better else bc[ln]
                best[ln] = v if better else best[ln]
        for ln in range(nb):  # writing 0 is best: a lower category may score as much
            fix[ln] = 1.0 if bc[ln] == zc[ln] else 0.0
        for e in range(width):
            i = pos_id[r, e]
            if e > 0 and i == pad:
                break
            s = pos_s[r, e]
            c = pos_c[r, e]
            row = SR[i]
            for ln in range(nb):
                tie = (fix[ln] == 1.0) & (c < bc[ln]) & (s + row[ln] == best[ln])
                bc[ln] = c if tie else bc[ln]
        for ln in range(nb):
            pols[ln, 0, r] = -np.int64(bc[ln]) - 1
    if K.joker_code != 0 and K.yz_cat >= 0:
        for ln in range(nb):
            mask = st_mask[lo + ln]
            if (mask >> K.yz_cat) & 1:
                for r in range(R):
                    if yz_face[r] >= 0:
                        _, jc = _joker_best(mask, r, K, SR, ln)
                        pols[ln, 0, r] = -jc - 1


@numba.njit(cache=True)
def _keep_policy(
    E: np.ndarray,
    S0: np.ndarray,
    SB: np.ndarray,
    SA: np.ndarray,
    nb: int,
    K: KernelArrays,
    pols: np.ndarray,
    t: int,
) -> None:
    """Step 4's choice with the argmax for t rerolls left, per lane: from the keep values
    in E's rows below the rolls and the score-now values in S0's roll rows, every roll's
    action into ``pols[ln, t]`` (``pols[ln, 0]`` must hold the categories).

    Deliberate twin of the choice in ``widget_into`` (the same two passes, maximum then
    the lowest flat index among equal values; scoring now wins ties), here over
    contiguous lanes: the distribution needs the policy of every state, and per state
    this costs a fifth of the scalar loop. ``SB`` / ``SA``: the best sub-multiset value
    and its index (a float64 array: the lane loops stay in one type).
    """
    rem_pad, rem_n, offset = K.rem_pad, K.rem_n, K.offset
    nd = offset.size - 2
    base = offset[nd]
    nk = offset[nd + 1]
    for i in range(nk):
        sb = SB[i]
        sa = SA[i]
        if i < base:  # a keep: itself or a sub-multiset
            ei = E[i]
            for ln in range(nb):
                sb[ln] = ei[ln]
                sa[ln] = i
        else:  # a roll: its proper sub-multisets only
            for ln in range(nb):
                sb[ln] = NEG
                sa[ln] = nk
        for e in range(rem_n[i]):
            vb = SB[rem_pad[i, e]]
            for ln in range(nb):
                sb[ln] = max(sb[ln], vb[ln])
        for e in range(rem_n[i]):
            j = rem_pad[i, e]
            vb = SB[j]
            va = SA[j]
            for ln in range(nb):
                sa[ln] = min(sa[ln], va[ln] if vb[ln] == sb[ln] else nk)
    for r in range(nk - base):
        i = base + r
        for ln in range(nb):
            pols[ln, t, r] = pols[ln, 0, r] if S0[i, ln] >= SB[i, ln] else np.int64(SA[i, ln])


@numba.njit(cache=True)
def policy_lanes(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    lo: int,
    nb: int,
    V: np.ndarray,
    K: KernelArrays,
    W: PolicyBuffers,
) -> None:
    """The policy of turn-start states lo .. lo + nb - 1 (nb <= lanes) for theta == 0:
    ``W.policy[ln]`` is ``widget_into``'s ``B.policy`` for state lo + ln, bit for bit.

    The values through the solver's lanes (``_solve_batch`` in float64: the widget's
    numbers), then the choices over lanes: the categories (``_score_now_lanes``) and the
    keeps (``_keep_policy``). ``K`` must be float64.
    """
    A, M, E1, SR, vecs, arg, tmp, pols = W
    _solve_batch(
        st_mask, st_flag, st_u, lo, nb, V, A, M, SR, vecs[0], vecs[1], vecs[2], vecs[3], K, 0.0, E1
    )
    _score_now_lanes(st_mask, lo, nb, K, SR, vecs[0], tmp, pols)
    _keep_policy(E1, A, M, arg, nb, K, pols, 1)
    _keep_policy(A, A, M, arg, nb, K, pols, 2)


# ---------------------------------------------------------------------------------------
# The scalar widget: one state, float64, with the policy (advice and simulation).


@numba.njit(cache=True)
def widget_buffers(K: KernelArrays) -> WidgetBuffers:
    """Fresh work arrays for :func:`widget_into` (float64)."""
    nd = K.offset.size - 2
    nk = K.offset[nd + 1]
    R = nk - K.offset[nd]
    ncat = K.upper_face.size
    SR = np.empty((ncat * (nd + 1) + 1, 1))
    SR[ncat * (nd + 1), 0] = NEG
    sub_best = np.empty(nk + 1)
    sub_best[nk] = NEG
    sub_arg = np.empty(nk + 1, dtype=np.int64)
    sub_arg[nk] = nk
    levels = K.levels
    return WidgetBuffers(
        SR,
        np.zeros((levels + 1, R)),
        np.zeros((levels + 1, nk)),
        sub_best,
        sub_arg,
        np.zeros((levels + 1, R), dtype=np.int64),
        np.empty(ncat),
        np.empty(R),
        np.zeros(R, dtype=np.int64),
    )


@numba.njit(cache=True)
def _score_now_scalar(
    mask: int, flag: int, upper: int, V: np.ndarray, K: KernelArrays, B: WidgetBuffers, s: int
) -> None:
    """Steps 1-2 of the scalar widget, successors read with s rerolls saved: the value of
    writing each roll now into ``B.now_value`` and its category (lowest index among
    equal values) into ``B.now_cat``."""
    pos_id, pos_s, pos_c, yz_face = K.pos_id, K.pos_s, K.pos_c, K.yz_face
    SR = B.SR
    width = pos_id.shape[1]
    z, zc = _successor_rows(mask, flag, upper, V, K, SR, 0, s)
    joker_filled = K.joker_code != 0 and K.yz_cat >= 0 and (mask >> K.yz_cat) & 1
    yb = K.ybonus if flag == 1 else 0
    for r in range(yz_face.size):
        if joker_filled and yz_face[r] >= 0:
            best, bc = _joker_best(mask, r, K, SR, 0)
        else:
            # twin of the lanes' ``_fill`` and ``_score_now_lanes``, tracking the argmax
            best = z
            bc = zc
            for e in range(width):
                v = pos_s[r, e] + SR[pos_id[r, e], 0]
                better = v > best
                bc = pos_c[r, e] if better else bc
                best = v if better else best
            if bc == zc:  # writing 0 is best: a lower category may score as much
                for e in range(width):
                    c = pos_c[r, e]
                    if c < bc and pos_s[r, e] + SR[pos_id[r, e], 0] == best:
                        bc = c
        if yb != 0 and yz_face[r] >= 0:
            best += yb
        B.now_value[r] = best
        B.now_cat[r] = bc


@numba.njit(cache=True)
def widget_into(
    mask: int,
    flag: int,
    upper: int,
    V: np.ndarray,
    K: KernelArrays,
    theta: float,
    B: WidgetBuffers,
    levels: int,
) -> tuple[float, float]:
    """One turn from state (mask, flag, upper), steps 1-5, into the buffers B.

    Returns ``(value, ref)``: the state's value (points) and the reference of step 3
    (0 for theta == 0). Afterwards, with t rerolls left and roll r (index among the R
    sorted rolls):

    - ``B.roll_value[t, r]``: value of having roll r, acting optimally from there;
    - ``B.keep_value[t, k]`` (t = 1 .. levels): value of keeping multiset k (flat
      lattice index) and rerolling the other dice;
    - ``B.policy[t, r]``: the chosen action by the module's tie-break: ``>= 0`` keep that
      multiset (a proper sub-multiset of the roll) and reroll the rest; ``< 0`` write
      the roll into category ``-policy - 1`` now (``policy[0]`` always writes).

    ``levels``: rerolls the turn has (2; with saved rerolls 2 + the rerolls saved, at most
    ``K.levels``, and V the next layer, :class:`SavedLayer`): the value returned is the
    first-roll average at that level, and writing with t rerolls left saves
    ``min(t, K.saved_cap)`` for the next turn. Saved rerolls need theta == 0.
    Roll and keep values are utilities ``W`` when theta != 0 (see :func:`to_points`).
    ``K`` must be float64 arrays.
    """
    # 1-2. successor rows, score now: lowest category index among equal values
    _score_now_scalar(mask, flag, upper, V, K, B, 0)
    return turn_choices(mask, flag, upper, V, K, theta, B, levels)


@numba.njit(cache=True)
def turn_choices(
    mask: int,
    flag: int,
    upper: int,
    V: np.ndarray,
    K: KernelArrays,
    theta: float,
    B: WidgetBuffers,
    levels: int,
) -> tuple[float, float]:
    """Steps 3-5 of :func:`widget_into` from the score-now values and categories already
    in ``B.now_value`` / ``B.now_cat``: the rerolls, the first roll and the turn's policy.
    Returns ``(value, ref)`` as :func:`widget_into` does. (mask, flag, upper) and ``V``
    are read only to refresh the score-now step with saved rerolls.

    Shared by the expected-score widget and any score-now step with another objective
    (the win probability of :mod:`diceopt.games.yatzy.win`, without saved rerolls).
    """
    add_die, offset, fprob, roll_p = K.add_die, K.offset, K.fprob, K.roll_p
    rem_pad = K.rem_pad
    RV, E, pol = B.roll_value, B.keep_value, B.policy
    now_v, now_c = B.now_value, B.now_cat
    sub_best, sub_arg = B.sub_best, B.sub_arg
    nd = offset.size - 2
    base = offset[nd]
    nk = offset[nd + 1]
    R = nk - base
    k = add_die.shape[1]
    for r in range(R):
        RV[0, r] = now_v[r]
        pol[0, r] = -now_c[r] - 1
    # 3. utilities
    ref = 0.0
    sgn = 1.0 if theta >= 0.0 else -1.0
    if theta != 0.0:
        ref = RV[0, 0]
        for r in range(1, R):
            ref = max(ref, RV[0, r]) if theta > 0.0 else min(ref, RV[0, r])
        for r in range(R):
            RV[0, r] = sgn * np.exp(theta * (RV[0, r] - ref))
            now_v[r] = RV[0, r]
    # 4. the rerolls: chance, then choice (twin of the lanes' ``_choose``, with the
    # argmax: lowest lattice index among equal values; scoring now wins ties)
    for t in range(1, levels + 1):
        Et = E[t]
        for r in range(R):
            Et[base + r] = RV[t - 1, r]
        # twin of the lanes' ``_chance`` (one lane through it costs a third more time)
        if k == 6:
            for i in range(base - 1, -1, -1):
                Et[i] = (
                    fprob[0] * Et[add_die[i, 0]]
                    + fprob[1] * Et[add_die[i, 1]]
                    + fprob[2] * Et[add_die[i, 2]]
                    + fprob[3] * Et[add_die[i, 3]]
                    + fprob[4] * Et[add_die[i, 4]]
                    + fprob[5] * Et[add_die[i, 5]]
                )
        else:
            for i in range(base - 1, -1, -1):
                acc = 0.0
                for f in range(k):
                    acc += fprob[f] * Et[add_die[i, f]]
                Et[i] = acc
        for i in range(base):
            sb = Et[i]
            for f in range(k):
                sb = max(sb, sub_best[rem_pad[i, f]])
            sa = i
            for f in range(k):
                j = rem_pad[i, f]
                a = sub_arg[j]
                sa = a if (sub_best[j] == sb) & (a < sa) else sa
            sub_best[i] = sb
            sub_arg[i] = sa
        if t <= K.saved_cap:  # saved rerolls: writing now saves t rerolls
            _score_now_scalar(mask, flag, upper, V, K, B, t)
        for r in range(R):
            pb = NEG
            for f in range(k):
                pb = max(pb, sub_best[rem_pad[base + r, f]])
            if now_v[r] >= pb:  # scoring now wins ties
                pol[t, r] = -now_c[r] - 1
                RV[t, r] = now_v[r]
                continue
            pa = nk
            for f in range(k):
                j = rem_pad[base + r, f]
                a = sub_arg[j]
                pa = a if (sub_best[j] == pb) & (a < pa) else pa
            pol[t, r] = pa
            RV[t, r] = pb
    # 5. the first roll
    value = 0.0
    for r in range(R):
        value += roll_p[r] * RV[levels, r]
    if theta != 0.0:
        value = ref + np.log(sgn * value) / theta
    return value, ref


@numba.njit(cache=True)
def to_points(W: np.ndarray, ref: float, theta: float) -> None:
    """Utilities W (2-d) back to points in place: ``ref + log(sign(theta) W) / theta``."""
    if theta == 0.0:
        return
    sgn = 1.0 if theta > 0.0 else -1.0
    for i in range(W.shape[0]):
        for j in range(W.shape[1]):
            W[i, j] = ref + np.log(sgn * W[i, j]) / theta


@numba.njit(cache=True)
def category_values(
    mask: int, flag: int, upper: int, r: int, V: np.ndarray, K: KernelArrays, rerolls: int = 0
) -> np.ndarray:
    """Value of writing roll r into each category from state (mask, flag, upper).

    Points now (upper bonus and Yahtzee bonus included) plus the table value of the
    next turn-start state; NEG where the category may not be used. float64, the same
    numbers (bit for bit) as the widget's score-now choice for theta == 0. With saved
    rerolls (V the next layer) the ``rerolls`` left unused are saved (at most the cap).
    """
    ncat = K.upper_face.size
    stride = K.offset.size - 1
    SR = np.empty((ncat * stride + 1, 1))
    SR[ncat * stride, 0] = NEG
    _successor_rows(mask, flag, upper, V, K, SR, 0, min(rerolls, K.saved_cap))
    ok, use_joker = _allowed(mask, r, K)
    yb = K.ybonus if (flag == 1 and K.yz_face[r] >= 0) else 0
    out = np.empty(ncat)
    for c in range(ncat):
        if ok[c]:
            v = _category_value(r, c, use_joker, K, SR, 0)
            if yb != 0:
                v += yb
            out[c] = v
        else:
            out[c] = NEG
    return out


@numba.njit(cache=True)
def widget_detail(
    mask: int,
    flag: int,
    upper: int,
    V: np.ndarray,
    K: KernelArrays,
    theta: float,
    levels: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Everything about one turn from state (mask, flag, upper), in float64 points.

    ``K`` must be float64. Returns ``(roll_value, keep_value, policy, value)``:
    ``roll_value[t, r]`` (R rolls, t = 0 .. levels rerolls left), ``keep_value[t, k]``
    (t = 1 .. levels; row 0 unused), ``policy[t, r]`` and ``value`` as in
    :func:`widget_into` (``levels``: see there), with values in points (certainty
    equivalents for theta != 0).
    """
    B = widget_buffers(K)
    value, ref = widget_into(mask, flag, upper, V, K, theta, B, levels)
    keep_value = B.keep_value[: levels + 1].copy()
    keep_value[0] = 0.0
    roll_value = B.roll_value[: levels + 1].copy()
    to_points(roll_value, ref, theta)
    to_points(keep_value[1:], ref, theta)
    return roll_value, keep_value, B.policy[: levels + 1].copy(), value


# ---------------------------------------------------------------------------------------
# Python side


@dataclass
class LayerStates:
    """The states one layer solves (mask, flag, upper per lane) and the copies to make.

    ``copy_dst`` / ``copy_src``: flat indices into the table of states whose value equals
    that of a solved state (upper totals from which the bonus is out of reach).
    """

    mask: np.ndarray
    flag: np.ndarray
    upper: np.ndarray
    copy_dst: np.ndarray
    copy_src: np.ndarray


def layer_masks(rules: YatzyRules) -> list[np.ndarray]:
    """Reachable filled masks per layer (number of filled categories), int64 arrays."""
    c = rules.num_categories
    if rules.forced_order:
        return [np.array([(1 << j) - 1], dtype=np.int64) for j in range(c + 1)]
    allm = np.arange(1 << c, dtype=np.int64)
    pop = np.zeros(1 << c, dtype=np.int64)
    for b in range(c):
        pop += (allm >> b) & 1
    return [allm[pop == j] for j in range(c + 1)]


class _UpperPlan(NamedTuple):
    """Per subset of the upper categories (bit mask over their ranks): the upper totals to
    solve and, per reachable total, the solved total with the same value."""

    up_cats: list[int]  # category index of each upper category, in rank order
    solve_u: np.ndarray  # (subsets, T + 1) totals to solve, padded with -1
    solve_n: np.ndarray  # (subsets,) how many
    rep: np.ndarray  # (subsets, T + 1) representative solved total, -1 if unreachable
    # the same, row by row without padding (for a layer's states, ``_ragged``): the
    # totals to solve, and the reachable totals that copy another's value (ascending)
    solve_flat: np.ndarray  # solve_u's rows, concatenated
    solve_off: np.ndarray  # (subsets,) where each row starts
    copy_u: np.ndarray  # totals whose value is their representative's, concatenated
    copy_rep: np.ndarray  # that representative
    copy_n: np.ndarray  # (subsets,) how many
    copy_off: np.ndarray  # (subsets,) where each row starts


def _upper_plan(rules: YatzyRules) -> _UpperPlan:
    c = rules.num_categories
    T = rules.bonus_threshold
    up_cats = [i for i in range(c) if rules.upper_face[i] >= 0]
    faces = rules.upper_face[up_cats]
    lanes_n, lanes_u = upper_lanes(faces, rules.dice, T)
    nsub = len(lanes_n)
    max_left = np.zeros(nsub, dtype=np.int64)  # most upper points still possible
    for s in range(nsub):
        max_left[s] = sum(
            rules.dice * (int(faces[i]) + 1) for i in range(len(faces)) if not s >> i & 1
        )
    solve_u = np.full((nsub, T + 1), -1, dtype=np.int64)
    solve_n = np.zeros(nsub, dtype=np.int64)
    rep = np.full((nsub, T + 1), -1, dtype=np.int64)  # u -> solved u with the same value
    for s in range(nsub):
        us = lanes_u[s, : lanes_n[s]]
        live = us[us + max_left[s] >= T]
        dead = us[us + max_left[s] < T]
        chosen = list(live) + ([int(dead[0])] if len(dead) else [])
        solve_n[s] = len(chosen)
        solve_u[s, : len(chosen)] = chosen
        for u in us:
            rep[s, u] = u if u in live or (len(dead) and u == dead[0]) else dead[0]
    copies = [np.flatnonzero((rep[s] >= 0) & (rep[s] != np.arange(T + 1))) for s in range(nsub)]
    copy_n = np.array([len(c) for c in copies], dtype=np.int64)
    copy_u = np.concatenate(copies).astype(np.int64)
    return _UpperPlan(
        up_cats,
        solve_u,
        solve_n,
        rep,
        solve_flat=solve_u[solve_u >= 0],  # row by row: each row's totals come first
        solve_off=np.cumsum(solve_n) - solve_n,
        copy_u=copy_u,
        copy_rep=rep[np.repeat(np.arange(nsub), copy_n), copy_u],
        copy_n=copy_n,
        copy_off=np.cumsum(copy_n) - copy_n,
    )


def _ragged(flat: np.ndarray, off: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``flat[off[i] : off[i] + n[i]]`` for every i, concatenated."""
    return flat[np.arange(int(n.sum())) + np.repeat(off - (np.cumsum(n) - n), n)]


def _layer(rules: YatzyRules, masks: np.ndarray, plan: _UpperPlan) -> LayerStates:
    """The states of one layer (its filled masks) and their equal-value copies."""
    T = rules.bonus_threshold
    yz = rules.yahtzee_category
    sub = np.zeros(masks.size, dtype=np.int64)
    for rank, cat in enumerate(plan.up_cats):
        sub |= ((masks >> cat) & 1) << rank
    flags_list = [np.zeros(masks.size, dtype=np.int64)]
    mask_list = [masks]
    sub_list = [sub]
    if rules.flags == 2 and yz >= 0:
        has = ((masks >> yz) & 1) == 1
        mask_list.append(masks[has])
        flags_list.append(np.ones(int(has.sum()), dtype=np.int64))
        sub_list.append(sub[has])
    m_all = np.concatenate(mask_list)
    f_all = np.concatenate(flags_list)
    s_all = np.concatenate(sub_list)
    n = plan.solve_n[s_all]
    st_mask = np.repeat(m_all, n)
    st_flag = np.repeat(f_all, n)
    st_u = _ragged(plan.solve_flat, plan.solve_off[s_all], n)
    # copies: every reachable u whose representative differs from itself
    cn = plan.copy_n[s_all]
    row = np.repeat((m_all * rules.flags + f_all) * (T + 1), cn)
    off = plan.copy_off[s_all]
    dst = row + _ragged(plan.copy_u, off, cn)
    src = row + _ragged(plan.copy_rep, off, cn)
    return LayerStates(st_mask, st_flag, st_u, dst, src)


def iter_layer_states(rules: YatzyRules, reverse: bool = False) -> Iterator[LayerStates]:
    """The layers of :func:`layer_states` one at a time (last layer first if ``reverse``),
    so that only one layer's state arrays are held (Maxi Yatzy: up to ~7 million states)."""
    plan = _upper_plan(rules)
    masks = layer_masks(rules)
    order = range(len(masks) - 1, -1, -1) if reverse else range(len(masks))
    for j in order:
        yield _layer(rules, masks[j], plan)


def layer_states(rules: YatzyRules) -> list[LayerStates]:
    """For every layer, the states to solve and the equal-value copies (vectorised numpy)."""
    return list(iter_layer_states(rules))


def count_states(rules: YatzyRules) -> int:
    """Number of reachable turn-start states (mask, flag, upper total)."""
    return int(sum(s.mask.size + s.copy_dst.size for s in iter_layer_states(rules)))


def solve_table(
    rules: YatzyRules,
    *,
    dtype: str | np.dtype = "float32",
    theta: float = 0.0,
    progress: Callable[[int, int], None] | None = None,
    lanes: int | None = None,
) -> YatzyTable:
    """Solve a variant exactly: the value of every reachable turn-start state.

    ``dtype`` float32 (default) or float64; ``theta`` exponential-utility parameter (0:
    expected points; |theta| <= 1). ``progress(done, total)`` is called after each layer.
    ``lanes``: states per SIMD batch (default by dtype). Ctrl-C stops it within a
    fraction of a second (KeyboardInterrupt; the layers are solved in chunks).
    """
    dt = np.dtype(dtype)
    if dt not in LANES:
        raise InputError(f"dtype must be float32 or float64, got {dtype}")
    theta = check_theta(theta)
    if rules.saved_rerolls:
        raise InputError("saved rerolls need diceopt.games.yatzy.saved.solve_saved")
    t0 = time.perf_counter()
    K = kernel_arrays(rules, dt)
    c = rules.num_categories
    T = rules.bonus_threshold
    nk = int(rules.lattice.offset[-1])
    V = np.full((1 << c, rules.flags, T + 1), np.nan, dtype=dt)
    Vflat = V.reshape(-1)
    layers = iter_layer_states(rules, reverse=True)
    last = next(layers)  # every category filled: nothing more to score
    V[last.mask, last.flag, last.upper] = 0.0
    Vflat[last.copy_dst] = 0.0
    width = lanes or LANES[dt]
    nchunks = max(1, numba.get_num_threads())
    As = np.empty((nchunks, nk + 1, width), dtype=dt)
    Ms = np.empty((nchunks, nk + 1, width), dtype=dt)
    SRs = np.empty((nchunks, c * (rules.dice + 1) + 1, width), dtype=dt)
    SRs[:, -1, :] = NEG
    vecs = np.empty((nchunks, 4, width), dtype=dt)
    states = last.mask.size + last.copy_dst.size
    pace = Pace()
    with interruptible():
        for j, st in zip(range(c - 1, -1, -1), layers, strict=True):
            _solve_layer(st, V, As, Ms, SRs, vecs, K, theta, pace)
            Vflat[st.copy_dst] = Vflat[st.copy_src]
            states += st.mask.size + st.copy_dst.size
            if progress is not None:
                progress(c - j, c)
    seconds = time.perf_counter() - t0
    return YatzyTable(rules, V, theta, seconds, states)


def warm_up(dtype: str | np.dtype = "float32") -> float:
    """Compile (or load from numba's cache) the solver for ``dtype``; returns seconds.

    Solves a two-category variant, which runs every kernel the full solve runs.
    """
    t0 = time.perf_counter()
    from diceopt.games.yatzy.rules import SCANDINAVIAN

    tiny = SCANDINAVIAN.reduced(("ones", "chance"), bonus_threshold=3)
    solve_table(tiny, dtype=dtype)
    solve_table(tiny, dtype=dtype, theta=0.1)
    return time.perf_counter() - t0
