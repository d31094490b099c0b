"""The rules of one Yatzy turn as numba kernels: step 1 and the scoring of step 2.

Role: what the scalar widget (:mod:`diceopt.games.yatzy.kernel.widget`), the solver's lanes
(:mod:`diceopt.games.yatzy.kernel.solve`, :mod:`diceopt.games.yatzy.kernel.policy`) and the
other kernels
(targets, win, distribution, simulation, batch) share about one turn, so that each rule
is written once: which categories a roll may be written into (forced order, the joker
rules), the successor rows and one chance level of the keep lattice. ``K`` is a
:class:`~diceopt.games.yatzy.kernel.arrays.KernelArrays`; ``SR[row, ln]`` the successor rows of
lane ln (one lane for the widget).

1. :func:`may_write` / :func:`allowed`: the categories open to a roll, and whether it is
   scored as a joker.
2. :func:`successor_rows`: for every category c and h, the value of the rest of the game
   after writing into c, ``SR[c * (dice + 1) + h]`` (an upper category with h dice of its
   face, points, upper bonus and next state included; a lower category scored normally,
   h = 0, or the Yahtzee box scored 50, h = 1). One table read per row, not per roll.
   ``V`` is a table ``V[mask, flag, upper]`` or, with saved rerolls, the next layer
   (:class:`SavedLayer`, read through :func:`next_value`, chosen when compiling).
3. :func:`category_row` / :func:`category_value` / :func:`joker_best`: the value of
   writing one roll into one category (joker rolls category by category);
   :func:`write_value` with every bonus and the served points (the advice's numbers);
   :func:`served_shift`, the utilities' reference with served scores.
4. :func:`chance`: ``E[keep] = sum_f p_f E[keep + f]`` down the keep lattice, per lane.

Precision and performance: the functions take one lane index so that the scalar widget
and the SIMD lanes call the same code; NEG rows replace branches on forbidden
categories; index mode of :func:`successor_rows` (saved rerolls) finds the successor
lanes once per batch and :func:`rows_at` rereads them per level.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba import types
from numba.extending import overload

from diceopt.games.yatzy.kernel.arrays import KernelArrays


class SavedLayer(NamedTuple):
    """One solved layer of a saved-rerolls table as the kernels read it (``V`` of
    :func:`successor_rows` for the layer before it).

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
def next_lane(V: SavedLayer, mask: int, flag: int | np.integer, u: int) -> int:
    """The lane of turn-start state (mask, flag, u) in a :class:`SavedLayer`."""
    sub = V.msub[mask]
    return V.moff[mask] + flag * V.nsolve[sub] + V.urank[sub, u]


def next_value(
    V: np.ndarray | SavedLayer, mask: int, flag: int | np.integer, u: int, s: int | np.integer
) -> float:
    """Value of the turn-start state (mask, flag, u) with s rerolls saved: ``V[mask,
    flag, u]`` for a table (s is 0 there), or the lane of a :class:`SavedLayer` (the
    kernels use the numba overload below, chosen by the type of V when compiling)."""
    if isinstance(V, np.ndarray):
        return V[mask, flag, u]
    return V.values[next_lane(V, mask, flag, u), s]


@overload(next_value)
def _next_value_nb(V, mask, flag, u, s):  # noqa: ANN001 - numba types
    """Compile-time choice by the type of V (a 3-d table or a SavedLayer)."""
    if isinstance(V, types.Array):
        return lambda V, mask, flag, u, s: V[mask, flag, u]

    def packed(V, mask, flag, u, s):  # noqa: ANN001
        return V.values[next_lane(V, mask, flag, u), s]

    return packed


# ---------------------------------------------------------------------------------------
# The rules of one turn, shared by the scalar widget and the lanes (``K`` is a
# KernelArrays; ``SR[row, ln]`` the successor rows of lane ln, one lane for the widget).


@numba.njit(cache=True, inline="always")
def roll_span(offset: np.ndarray) -> tuple[int, int]:
    """Where the rolls lie in the flat keep lattice (``K.offset``): indices base .. nk - 1
    (every die showing; the keeps of fewer dice come before), as ``(base, nk)``."""
    nd = offset.size - 2
    return offset[nd], offset[nd + 1]


@numba.njit(cache=True)
def may_write(mask: int, c: int, K: KernelArrays) -> bool:
    """Whether category c is open to a non-joker roll (open; first open if forced order)."""
    if (mask >> c) & 1:
        return False
    if K.forced:
        for d in range(c):
            if not (mask >> d) & 1:
                return False
    return True


@numba.njit(cache=True)
def uses_joker(mask: int, r: int, K: KernelArrays) -> bool:
    """Whether roll r (-1: any non-Yahtzee roll) is written as a joker from a state of mask
    ``mask``: a Yahtzee roll, a joker rule, the Yahtzee box filled, and under the free
    choice the matching upper box used too (the flag :func:`allowed_categories` returns)."""
    f = K.yz_face[r] if r >= 0 else -1
    if not (K.joker_code != 0 and f >= 0 and K.yz_cat >= 0 and (mask >> K.yz_cat) & 1):
        return False
    if K.joker_code == 2:  # forced joker
        return True
    for c in range(K.upper_face.size):  # free choice: once the matching upper box is used
        if K.upper_face[c] == f and not (mask >> c) & 1:
            return False
    return True


@numba.njit(cache=True)
def allowed_categories(mask: int, r: int, K: KernelArrays) -> tuple[np.ndarray, bool]:
    """Categories roll r (-1: any non-Yahtzee roll) may be written into, and whether as
    joker (:func:`uses_joker`)."""
    upper_face = K.upper_face
    ncat = upper_face.size
    ok = np.zeros(ncat, dtype=np.bool_)
    for c in range(ncat):
        ok[c] = may_write(mask, c, K)
    use_joker = uses_joker(mask, r, K)
    f = K.yz_face[r] if r >= 0 else -1
    if use_joker:
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
    return ok, use_joker


@numba.njit(cache=True)
def successor_rows(
    mask: int,
    flag: int,
    u: int,
    V: np.ndarray | SavedLayer,
    K: KernelArrays,
    SR: np.ndarray,
    ln: int | np.integer,
    s: int | np.integer = 0,
    IDX: np.ndarray | None = None,
) -> tuple[float | np.floating, int]:
    """Step 1 for lane ln: SR[c * (dice + 1) + h, ln]; returns the best h = 0 row and its
    category (lowest index on ties).

    Lower category c: h = 0 scored normally (Yahtzee box: scored 0), h = 1 Yahtzee box
    scored 50 (a needs_yatzy category: scored, its points included when the flag is
    set, none otherwise). Upper category c: h = count of its face (points and bonus included).
    Rows of categories that may not be used are NEG. ``V``: the table, or with saved
    rerolls the next layer (:class:`SavedLayer`), read with ``s`` rerolls saved.

    Index mode (``IDX`` given, V a SavedLayer; compiled apart, numba prunes the branch):
    nothing is read; ``IDX[row, ln]`` gets the row's successor lane times the layer's
    width and ``SR[row, ln]`` the points beside it (NEG rows: index 0), so that the rows
    at any s are ``SR + values.flat[IDX + s]`` (:func:`rows_at`); the returned best
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
        if not may_write(mask, c, K):
            for h in range(stride):
                SR[b0 + h, ln] = neg
                if IDX is not None:
                    IDX[b0 + h, ln] = 0
            continue
        nxt = mask | (1 << c)
        f = K.upper_face[c]
        if f < 0:
            _put(V, SR, IDX, b0, ln, 0.0, nxt, flag, u, s)
            if c == K.yz_cat and K.track:
                _put(V, SR, IDX, b0 + 1, ln, 0.0, nxt, np.int64(1), u, s)
            elif K.needs[c] >= 0:  # scored: its points only while the Yatzy box holds its own
                pts = float(K.needs[c]) if flag == 1 else 0.0
                _put(V, SR, IDX, b0 + 1, ln, pts, nxt, flag, u, s)
            else:
                SR[b0 + 1, ln] = SR[b0, ln]
                if IDX is not None:
                    IDX[b0 + 1, ln] = IDX[b0, ln]
        else:
            for cnt in range(stride):
                pts = cnt * (f + 1)
                b = K.bonus if (u < T and u + pts >= T) else 0
                # points as a float: one type of _put (int + float32 is float64 anyway)
                _put(V, SR, IDX, b0 + cnt, ln, float(pts + b), nxt, flag, min(T, u + pts), s)
        if SR[b0, ln] > z:
            z = SR[b0, ln]
            zc = c
    return z, zc


@numba.njit(cache=True)
def _put(
    V: np.ndarray | SavedLayer,
    SR: np.ndarray,
    IDX: np.ndarray | None,
    row: int,
    ln: int | np.integer,
    add: float,
    nxt: int,
    flag: int | np.integer,
    u: int,
    s: int | np.integer,
) -> None:
    """One successor row of :func:`successor_rows`: ``SR[row, ln] = add + value of (nxt,
    flag, u) with s saved``; in index mode SR gets ``add`` and IDX the lane's offset."""
    if IDX is None:
        SR[row, ln] = add + next_value(V, nxt, flag, u, s)
    else:
        # index mode reads a SavedLayer (numba compiles each V apart; no isinstance there)
        IDX[row, ln] = next_lane(V, nxt, flag, u) * V.values.shape[1]  # type: ignore[arg-type,union-attr]
        SR[row, ln] = add


@numba.njit(cache=True)
def rows_at(
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
    (points) and ``IDX`` (see :func:`successor_rows`; ``flat``: the next layer's values,
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
def category_row(
    r: int, c: int, use_joker: bool, K: KernelArrays
) -> tuple[int, float | np.floating]:
    """Successor row and the points beside it of writing roll r into (allowed) category
    c: ``(row, s)``; the row of an upper category, and of a needs_yatzy one, holds its
    points (s = 0). Served scores: :func:`served_extra`."""
    s = K.joker[r, c] if use_joker else K.score[r, c]
    return row_of(r, c, s, K.upper_face, K.roll_cnt, K.needs, K.yz_cat, K.offset.size - 1, K.zero)


@numba.njit(cache=True, inline="always")
def row_of(
    r: int, c: int, s: float | np.floating, upper_face: np.ndarray, roll_cnt: np.ndarray,
    needs: np.ndarray, yz_cat: int, stride: int, zero: float | np.floating,
) -> tuple[int, float | np.floating]:  # fmt: skip
    """:func:`category_row` from the rules' arrays (no ``K``: a loop that holds them calls
    this without a call's reference counts on ``K``), ``s`` the points roll r scores in
    category c (its normal or joker points), ``stride`` the rows per category
    (``K.offset.size - 1``) and ``zero`` 0 in the table's dtype."""
    f = upper_face[c]
    if f >= 0:
        return c * stride + roll_cnt[r, f], zero
    if needs[c] >= 0:
        return c * stride + (1 if s > 0 else 0), zero
    h = 1 if (c == yz_cat and s > 0) else 0
    return c * stride + h, s


@numba.njit(cache=True)
def category_value(
    r: int, c: int, use_joker: bool, K: KernelArrays, SR: np.ndarray, ln: int
) -> float:
    """Value of writing roll r into (allowed) category c: points + successor row, without
    the Yahtzee bonus of either rule (added by the caller, see :func:`upper_bonus`) and
    without served points (:func:`served_extra`)."""
    row, s = category_row(r, c, use_joker, K)
    return s + SR[row, ln]


@numba.njit(cache=True)
def served_extra(r: int, c: int, K: KernelArrays) -> float:
    """Points more for writing roll r (not a joker) into category c straight after the
    first roll: its served points less its usual ones (found beside c's row in the
    columns width.. of ``K.pos_s``); 0 where c has no served score. Kept out of
    :func:`category_row`, which the solver's joker loop calls per lane."""
    width = K.pos_id.shape[1]
    for e in range(width):
        if K.pos_c[r, e] == c:
            return K.pos_s[r, width + e] - K.pos_s[r, e]
    return 0.0


@numba.njit(cache=True)
def served_shift(K: KernelArrays, theta: float) -> float:
    """What the reference of the utilities (step 3) is raised by: with served scores and
    theta > 0 the most points a served score adds (so that ``exp(theta (x - ref))``
    stays at most 1 for the served score-now values too); 0 otherwise (theta < 0: the
    reference is the least value, and served points only add)."""
    if K.served == 0 or theta <= 0.0:
        return 0.0
    width = K.pos_id.shape[1]
    most = 0.0
    for r in range(K.pos_id.shape[0]):
        for e in range(width):
            most = max(most, float(K.pos_s[r, width + e] - K.pos_s[r, e]))
    return most


@numba.njit(cache=True)
def write_value(
    mask: int,
    flag: int,
    r: int,
    c: int,
    use_joker: bool,
    first: bool,
    K: KernelArrays,
    SR: np.ndarray,
    ln: int,
) -> float:
    """Value of writing roll r into (allowed) category c from state (mask, flag), every
    rule included: :func:`category_value`, the Kniffel bonus (:func:`upper_bonus`), with
    ``first`` (straight after the first roll) the served points (:func:`served_extra`,
    never for a joker) and the American Yahtzee bonus while the flag is set."""
    v = category_value(r, c, use_joker, K, SR, ln) + upper_bonus(mask, r, c, K)
    if first and K.served != 0 and not use_joker:
        v += served_extra(r, c, K)
    if flag == 1 and K.ybonus != 0 and K.yz_face[r] >= 0:
        v += K.ybonus
    return v


@numba.njit(cache=True, inline="always")  # per chunk and state: no reference counts on K
def joker_rules(mask: int, K: KernelArrays) -> bool:
    """Whether a Yatzy roll is scored category by category (:func:`joker_best`): the
    Yatzy box is filled and a joker rule or the Kniffel bonus rule applies."""
    filled = K.yz_cat >= 0 and ((mask >> K.yz_cat) & 1) == 1
    return filled and (K.joker_code != 0 or K.ubonus != 0)


@numba.njit(cache=True)
def upper_bonus(mask: int, r: int, c: int, K: KernelArrays) -> float:
    """The Kniffel bonus of writing roll r into category c: ``K.ubonus`` points when r is
    a Yatzy, the Yatzy box holds any entry and c is r's upper box; 0 otherwise."""
    f = K.yz_face[r]
    if K.ubonus == 0 or f < 0 or K.upper_face[c] != f or not (mask >> K.yz_cat) & 1:
        return 0.0
    return float(K.ubonus)


@numba.njit(cache=True, inline="always")
def scores_plainly(r: int, c: int, first: bool, yz_face: np.ndarray, needs: np.ndarray) -> bool:
    """Whether writing roll r into category c scores ``K.score[r, c]`` in every state,
    with nothing added but the upper bonus (as under the plain rules): not a Yatzy roll
    (jokers, the American Yahtzee bonus, the Kniffel bonus, a tracked Yatzy), not a
    needs_yatzy box, not written straight after the first roll (``first``: served
    points). Where it holds, :func:`box_points` is ``K.score[r, c]`` and the bonuses of
    those rules need no call: hot loops test it on arrays they hold (a call that takes
    ``K`` costs about 0.2 microseconds in reference counts, more than a turn's writing)
    and call the full rules only where it fails."""
    return (yz_face[r] < 0) & (needs[c] < 0) & (not first)


@numba.njit(cache=True)
def box_points(
    mask: int, flag: int, r: int, c: int, first: bool, K: KernelArrays
) -> int | np.integer:
    """Points roll r puts into (allowed) category c from state (mask, flag), bonuses
    excluded (the upper bonus, the American Yahtzee bonus, the Kniffel bonus of
    :func:`upper_bonus`): an upper box its face's dice, a lower one its normal or joker
    points, a needs_yatzy one its points only while the flag is set, and with ``first``
    (written straight after the first roll) the served points (:func:`served_extra`).
    What the simulation and the score distribution write, as the solver scores it.
    For the plain rules without jokers this is ``K.score[r, c]``."""
    got = np.int64(K.score[r, c])
    if K.joker_code != 0 and K.yz_face[r] >= 0 and K.upper_face[c] < 0:
        got = np.int64(K.joker[r, c]) if uses_joker(mask, r, K) else got
    if K.needs[c] >= 0 and flag != 1:
        got = np.int64(0)
    if first and K.served != 0:  # never with jokers (the rules refuse the combination)
        got += np.int64(served_extra(r, c, K))
    return got


@numba.njit(cache=True)
def joker_best(
    mask: int, r: int, K: KernelArrays, SR: np.ndarray, ln: int
) -> tuple[float | np.floating, int]:
    """Best value and category (lowest index on ties) of Yahtzee roll r when the Yahtzee
    box is filled (:func:`joker_rules`), without the American Yahtzee bonus (the Kniffel
    bonus included)."""
    ok, use_joker = allowed_categories(mask, r, K)
    best: float | np.floating = K.neg
    bc = -1
    for c in range(ok.size):
        if ok[c]:
            v = category_value(r, c, use_joker, K, SR, ln)
            if K.ubonus != 0:
                v += upper_bonus(mask, r, c, K)
            if bc < 0 or v > best:
                best = v
                bc = c
    return best, bc


@numba.njit(cache=True)
def joker_rolls(
    mask: int, K: KernelArrays, SR: np.ndarray, ln: int, vals: np.ndarray, cats: np.ndarray
) -> None:
    """:func:`joker_best` of every Yahtzee roll r in lane ln: ``vals[r]`` (float64) and
    ``cats[r]``, for the rolls with ``K.yz_face[r] >= 0`` (the other entries untouched).

    Deliberate twin of :func:`joker_best` with :func:`allowed_categories` and
    :func:`upper_bonus` written out over local arrays, :func:`category_row` through its
    core :func:`row_of` (the same expressions in the same types, so the same numbers bit
    for bit): one call per lane for the solver's and the policies' lanes, where a call
    per roll that takes ``K`` costs about 0.2 microseconds in reference counts, more than
    the roll's work."""
    upper_face, yz_face, roll_cnt = K.upper_face, K.yz_face, K.roll_cnt
    score, joker, needs = K.score, K.joker, K.needs
    yz_cat, joker_code, ubonus = K.yz_cat, K.joker_code, K.ubonus
    zero, neg = K.zero, K.neg
    ncat = upper_face.size
    stride = K.offset.size - 1
    open_bits = 0  # may_write of every category
    for c in range(ncat):
        free = ((mask >> c) & 1) == 0
        if K.forced:
            for d in range(c):
                free = free and ((mask >> d) & 1) == 1
        open_bits |= (1 << c) if free else 0
    filled = yz_cat >= 0 and ((mask >> yz_cat) & 1) == 1
    for r in range(yz_face.size):
        f = yz_face[r]
        if f < 0:
            continue
        ok = open_bits  # allowed_categories
        use_joker = False
        if joker_code != 0 and filled:
            use_joker = True
            if joker_code == 2:  # forced joker: matching upper box, else a lower one, else any
                match = -1
                lower_open = False
                for c in range(ncat):
                    if (ok >> c) & 1:
                        if upper_face[c] == f:
                            match = c
                        elif upper_face[c] < 0:
                            lower_open = True
                if match >= 0:
                    ok = 1 << match
                elif lower_open:
                    for c in range(ncat):
                        if upper_face[c] >= 0:
                            ok &= ~(1 << c)
            else:  # free choice: joker points once the matching upper box is used
                for c in range(ncat):
                    if upper_face[c] == f and not (mask >> c) & 1:
                        use_joker = False
        best = neg
        bc = -1
        for c in range(ncat):
            if not (ok >> c) & 1:
                continue
            points = joker[r, c] if use_joker else score[r, c]
            row, s = row_of(r, c, points, upper_face, roll_cnt, needs, yz_cat, stride, zero)
            fc = upper_face[c]
            v = s + SR[row, ln]
            if ubonus != 0:  # upper_bonus: its upper box, the Yatzy box filled
                v += float(ubonus) if (fc == f and filled) else 0.0
            if bc < 0 or v > best:
                best = v
                bc = c
        vals[r] = best
        cats[r] = bc


@numba.njit(cache=True)
def chance_rows(
    A: np.ndarray, src: np.ndarray, hi: int, lo: int | np.integer, nb: int, add_die: np.ndarray,
    fprob: np.ndarray,
) -> None:  # fmt: skip
    """A[i] = sum_f p_f src[i + f] per lane (expected value over one more die) for the rows
    i = hi - 1 down to lo. One call for a range of rows, not one per row: a call costs
    atomic reference counts on its arrays, more than a row's lanes at a few lanes."""
    k = add_die.shape[1]
    for i in range(hi - 1, lo - 1, -1):
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
