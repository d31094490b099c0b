"""The per-turn widget of Yatzy: one turn from one state, exactly, in numba (float64).

Role: evaluate one turn exactly from a turn-start state whose successors are solved,
with the policy (:func:`widget_into`); the advice, the simulation and the other kernels
read it (the advice of a stored table runs its plain-Python twin,
:mod:`diceopt.games.yatzy.kernel.plain`, without numpy or numba). The turn's rules are the
kernels of
:mod:`diceopt.games.yatzy.kernel.turn`.

A turn-start state is ``(mask, flag, upper)``: the bit mask of filled categories (bit c =
category c of the rules), ``flag`` = 1 when the Yahtzee box holds its points (American
with the Yahtzee bonus, or a ``needs_yatzy`` category such as Doble Generala; always 0
otherwise) and the upper total capped at the bonus threshold.
The table ``V[mask, flag, upper]`` holds the optimal value of the rest of the game from
the start of a turn in that state: expected points still to come (bonuses included),
or, with ``theta != 0``, their certainty equivalent under exponential utility
``(1/theta) log E[exp(theta X)]`` (points). Entries of unreachable states are NaN.

The widget (one turn from a state whose successors are solved):

1. Successor rows (:func:`~diceopt.games.yatzy.kernel.turn.successor_rows`): for every category
   c and h, the value of the rest of the game after writing into c,
   ``SR[c * (dice + 1) + h]``: an upper category with h dice of its face (points, upper
   bonus and next state included), a lower category scored normally (h = 0) or the
   Yahtzee box scored 50 (h = 1). Rows of categories that may not be used are NEG. One
   table read per row, not per roll.
2. Score now (0 rerolls left): the value of each of the R sorted rolls is the best of
   "write 0 somewhere" (the best h = 0 row) and ``points + SR[row]`` over the few
   categories where the roll scores (``pos_id`` / ``pos_s``); Yahtzee rolls under the
   joker rule are scored category by category
   (:func:`~diceopt.games.yatzy.kernel.turn.joker_best`); the Yahtzee bonus is added last.
3. With ``theta != 0`` every value X is replaced by the utility
   ``W = sign(theta) exp(theta (X - ref))`` (ref = best score-now value for theta > 0,
   raised by the most a served score adds, worst for theta < 0, so ``|W| <= 1``, the
   served score-now values included). W increases with X, so choices are still
   maxima, and chance nodes become plain averages.
4. Twice (1 and 2 rerolls left): chance, ``E[keep] = sum_f p_f E[keep + f]`` down the
   keep lattice (:class:`~diceopt.dice.KeepLattice`,
   :func:`~diceopt.games.yatzy.kernel.turn.chance`); choice, the best sub-multiset of every
   multiset through the remove-one-die edges; a roll's value is the best of scoring now
   and its best proper keep. O(462 * 6) per level for 5 dice, O(924 * 6) for 6 (Maxi
   Yatzy): the dice count, the categories and the bonus threshold all come from the
   rules, so one code path solves every variant.
5. The state's value is the average over the first roll (back to points for theta != 0).

Tie-break (one rule for the advice, the simulation and any policy read from here):
among equally good actions the first in this order wins: writing a category before
keeping dice; among categories the lowest category index (the rules' order); among
keeps the lowest flat lattice index (fewer dice kept first; among keeps of one size,
the sorted pips read as a word, ``1 1 2`` before ``1 2 2``). The solver itself only
takes maxima, where ties do not matter. With ``theta != 0`` the choice is made on the
utilities W; values shown in points may tie after rounding where the W differ.

Precision and performance: the widget always computes in float64 whatever the table's
dtype; its work arrays are made once (:func:`widget_buffers`) and reused per call; the
lattice loops here are the scalar twins of the solver's lane loops
(:mod:`diceopt.games.yatzy.kernel.solve`), each twin tagged with the reason.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from diceopt.games.yatzy.kernel.arrays import NEG, KernelArrays
from diceopt.games.yatzy.kernel.turn import (
    SavedLayer,
    allowed_categories,
    joker_best,
    joker_rules,
    roll_span,
    served_shift,
    successor_rows,
    write_value,
)

# Rerolls in a turn without saved rerolls: a numpy int, so that numba types it as the int
# a Python caller passes (a literal 2 or an omitted default would each compile the widget
# once more)
TURN_REROLLS = np.int64(2)
# widget_into's score_now as every caller passes it (an omitted default, a literal True or
# False would each compile the widget once more)
SCORE_NOW = np.bool_(True)


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
    # served scores with score_now False: the caller's values of writing roll r straight
    # after the first roll, and their categories (see widget_into)
    first_value: np.ndarray  # (R,)
    first_cat: np.ndarray  # (R,) int64


# ---------------------------------------------------------------------------------------
# The scalar widget: one state, float64, with the policy (advice and simulation).


def widget_buffers(K: KernelArrays) -> WidgetBuffers:
    """Fresh work arrays for :func:`widget_into` (float64), made in numpy and passed to the
    kernels (an allocation compiled in numba costs every kernel that calls it)."""
    nd = K.offset.size - 2
    nk = int(K.offset[nd + 1])
    R = nk - int(K.offset[nd])
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
        np.empty(R),
        np.zeros(R, dtype=np.int64),
    )


# the same function compiled, for a kernel that makes its work arrays in each of its
# parallel loop's chunks (a table's games); every other kernel takes them from its caller
widget_buffers_in_kernel = numba.njit(cache=True)(widget_buffers)


@numba.njit(cache=True)
def _score_now_scalar(
    mask: int,
    flag: int,
    upper: int,
    V: np.ndarray | SavedLayer,
    K: KernelArrays,
    B: WidgetBuffers,
    s: int | np.integer,
    served: bool | np.bool_ = False,
) -> None:
    """Steps 1-2 of the scalar widget, successors read with s rerolls saved: the value of
    writing each roll now into ``B.now_value`` and its category (lowest index among
    equal values) into ``B.now_cat`` (``served``: straight after the first roll)."""
    pos_id, pos_s, pos_c, yz_face = K.pos_id, K.pos_s, K.pos_c, K.yz_face
    SR = B.SR
    width = pos_id.shape[1]
    o = width if served else 0  # served points in the columns width..
    z, zc = successor_rows(mask, flag, upper, V, K, SR, np.int64(0), s, None)
    joker_filled = joker_rules(mask, K)
    yb = K.ybonus if flag == 1 else 0
    for r in range(yz_face.size):
        if joker_filled and yz_face[r] >= 0:
            best, bc = joker_best(mask, r, K, SR, int(0))  # noqa: UP018 (int64, not a literal)
        else:
            # twin of the lanes' ``_fill`` and ``_score_now_lanes``, tracking the argmax
            best = z
            bc = zc
            for e in range(width):
                v = pos_s[r, o + e] + SR[pos_id[r, e], 0]
                better = v > best
                bc = pos_c[r, e] if better else bc
                best = v if better else best
            if bc == zc:  # writing 0 is best: a lower category may score as much
                for e in range(width):
                    c = pos_c[r, e]
                    if c < bc and pos_s[r, o + e] + SR[pos_id[r, e], 0] == best:
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
    V: np.ndarray | SavedLayer,
    K: KernelArrays,
    theta: float,
    B: WidgetBuffers,
    levels: int | np.integer,
    score_now: bool | np.bool_,
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

    ``score_now`` False: steps 3-5 only (the rerolls, the first roll, the policy) from
    score-now values and categories already in ``B.now_value`` / ``B.now_cat``, for a
    score-now step with another objective (the win probability of
    :mod:`diceopt.games.yatzy.winning.win`, without saved rerolls); (mask, flag, upper) and
    ``V`` are then read only to refresh the score-now step with saved rerolls, and with
    served scores the choice after the first roll takes ``B.first_value`` /
    ``B.first_cat`` (the caller's, written straight after the first roll).
    """
    if score_now:  # 1-2. successor rows, score now: lowest category index among equals
        # np.int64 / np.bool_ arguments: one compiled variant, not one per literal constant
        _score_now_scalar(mask, flag, upper, V, K, B, np.int64(0), np.bool_(False))
    add_die, fprob, roll_p = K.add_die, K.fprob, K.roll_p
    rem_pad = K.rem_pad
    RV, E, pol = B.roll_value, B.keep_value, B.policy
    now_v, now_c = B.now_value, B.now_cat
    sub_best, sub_arg = B.sub_best, B.sub_arg
    base, nk = roll_span(K.offset)
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
        ref += served_shift(K, theta)  # (0 without served scores)
        for r in range(R):
            RV[0, r] = sgn * np.exp(theta * (RV[0, r] - ref))
            now_v[r] = RV[0, r]
    # 4. the rerolls: chance, then choice (twin of the lanes' ``_choose``, with the
    # argmax: lowest lattice index among equal values; scoring now wins ties)
    for t in range(1, levels + 1):
        Et = E[t]
        for r in range(R):
            Et[base + r] = RV[t - 1, r]
        # twin of the lanes' ``chance_rows`` (one lane through it costs a third more time)
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
            _score_now_scalar(mask, flag, upper, V, K, B, t, np.bool_(False))
        if K.served and t == levels:  # writing after the first roll: served scores
            if score_now:
                _score_now_scalar(mask, flag, upper, V, K, B, np.int64(0), np.bool_(True))
            else:  # element by element: a slice assignment compiles its shape error's text
                for r in range(R):
                    now_v[r] = B.first_value[r]
                    now_c[r] = B.first_cat[r]
            if theta != 0.0:
                for r in range(R):
                    now_v[r] = sgn * np.exp(theta * (now_v[r] - ref))
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
    mask: int,
    flag: int,
    upper: int,
    r: int,
    V: np.ndarray | SavedLayer,
    K: KernelArrays,
    rerolls: int = 0,
) -> np.ndarray:
    """Value of writing roll r into each category from state (mask, flag, upper).

    Points now (upper bonus and Yahtzee bonus included) plus the table value of the
    next turn-start state; NEG where the category may not be used. float64, the same
    numbers (bit for bit) as the widget's score-now choice for theta == 0. With saved
    rerolls (V the next layer) the ``rerolls`` left unused are saved (at most the cap);
    with served scores, two rerolls left (the first roll) scores them.
    """
    ncat = K.upper_face.size
    stride = K.offset.size - 1
    SR = np.empty((ncat * stride + 1, 1))
    SR[ncat * stride, 0] = NEG
    successor_rows(mask, flag, upper, V, K, SR, np.int64(0), min(rerolls, K.saved_cap), None)
    ok, use_joker = allowed_categories(mask, r, K)
    out = np.empty(ncat)
    for c in range(ncat):
        out[c] = write_value(mask, flag, r, c, use_joker, rerolls == 2, K, SR, 0) if ok[c] else NEG
    return out


def widget_detail(
    mask: int,
    flag: int,
    upper: int,
    V: np.ndarray | SavedLayer,
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
    return _widget_detail(mask, flag, upper, V, K, theta, levels, widget_buffers(K))


@numba.njit(cache=True)
def _widget_detail(
    mask: int, flag: int, upper: int, V: np.ndarray | SavedLayer, K: KernelArrays,
    theta: float, levels: int, B: WidgetBuffers,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:  # fmt: skip
    """:func:`widget_detail` with its work arrays ``B``."""
    value, ref = widget_into(mask, flag, upper, V, K, theta, B, levels, SCORE_NOW)
    keep_value = B.keep_value[: levels + 1].copy()
    keep_value[0] = 0.0
    roll_value = B.roll_value[: levels + 1].copy()
    to_points(roll_value, ref, theta)
    to_points(keep_value[1:], ref, theta)
    return roll_value, keep_value, B.policy[: levels + 1].copy(), value
