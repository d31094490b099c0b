"""Policies of many Yatzy states at once: the widget's choices over the solver's lanes.

Role: :func:`policy_lanes` gives the policy of many turn-start states of a
layer, as the widget's ``policy`` (:func:`~diceopt.games.yatzy.kernel.widget.widget_into`) gives
it for one, at a quarter of its cost; the exact score distribution
(:mod:`diceopt.games.yatzy.analyses.distribution`) follows these policies.

1. The solver's batch (:func:`~diceopt.games.yatzy.kernel.solve.solve_batch`) in float64 gives
   the widget's numbers bit for bit, with the keep values of one reroll left kept apart.
2. Step 2's category choice per lane (``_score_now_lanes``) with the widget's tie-break.
3. Step 4's keep choice per lane for 1 and 2 rerolls left (``_keep_policy``), the argmax
   taken with the lowest flat lattice index on ties.

Precision and performance: float64 throughout (the widget's numbers, so that the policy
is the widget's); the loops run over contiguous lanes (SIMD) and are the tagged twins of
the widget's scalar loops.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from diceopt.games.yatzy.kernel.arrays import NEG, KernelArrays, StateArrays
from diceopt.games.yatzy.kernel.solve import gather, solve_batch
from diceopt.games.yatzy.kernel.turn import joker_best, joker_rules


class PolicyBuffers(NamedTuple):
    """Work arrays of :func:`policy_lanes` (float64, ``lanes`` states at a time)."""

    A: np.ndarray  # (nk + 1, lanes): the solver's values (see solve_batch)
    M: np.ndarray  # (2 (nk + 1), lanes): the solver's choice; then the best sub-multisets
    E1: np.ndarray  # (nk + 1, lanes): keep values with one reroll left
    SR: np.ndarray  # (C * (dice + 1) + 1, lanes): successor rows, the last one NEG
    vecs: np.ndarray  # (4, lanes): the solver's per-lane vectors
    arg: np.ndarray  # (nk + 1, lanes): the lowest flat index of the best sub-multiset
    tmp: np.ndarray  # (3, lanes): step 2's best value and category, zc
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
        np.empty((2 * (nk + 1), lanes)),
        np.empty((nk + 1, lanes)),
        SR,
        np.empty((4, lanes)),
        np.empty((nk + 1, lanes)),
        np.empty((3, lanes)),
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
    best h = 0 row values Z (the solver's); ``tmp`` (3, lanes) is work space.

    Deliberate twin of step 2 in ``widget_into`` (the same argmax and tie-break: the
    lowest category index among equal values), here over contiguous lanes: per lane the
    scalar loop costs more than the rest of ``policy_lanes``. Yahtzee rolls under the
    joker rule go through the widget's ``joker_best`` per lane.
    """
    pos_id, pos_s, pos_c, yz_face = K.pos_id, K.pos_s, K.pos_c, K.yz_face
    R = pos_id.shape[0]
    width = pos_id.shape[1]
    stride = K.offset.size - 1
    pad = SR.shape[0] - 1
    best, bc, zc = tmp[0], tmp[1], tmp[2]
    # zc: the lowest category whose h = 0 row is the best (rows not allowed are NEG)
    for c in range(K.upper_face.size - 1, -1, -1):
        h0 = c * stride
        for ln in range(nb):
            zc[ln] = c if SR[h0, ln] == Z[ln] else zc[ln]
    for r in range(R):
        for ln in range(nb):
            best[ln] = Z[ln]
            bc[ln] = zc[ln]
        # one pass: the larger value, on equal values the lower category (the entries are
        # in category order: the widget's first pass and its pass over the categories
        # below a best zero row give the same category)
        for e in range(width):
            i = pos_id[r, e]
            if e > 0 and i == pad:
                break  # only padding left
            s = pos_s[r, e]
            c = pos_c[r, e]
            for ln in range(nb):
                v = s + SR[i, ln]
                take = (v > best[ln]) | ((v == best[ln]) & (c < bc[ln]))
                bc[ln] = c if take else bc[ln]
                best[ln] = v if take else best[ln]
        for ln in range(nb):
            pols[ln, 0, r] = -np.int64(bc[ln]) - 1
    if K.joker_code != 0 or K.ubonus != 0:
        for ln in range(nb):
            mask = st_mask[lo + ln]
            if joker_rules(mask, K):
                for r in range(R):
                    if yz_face[r] >= 0:
                        _, jc = joker_best(mask, r, K, SR, ln)
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
    # rows indexed in place, no view per row: a view costs atomic reference counts on
    # its array, more than a row's lanes
    for i in range(nk):
        if i < base:  # a keep: itself or a sub-multiset
            for ln in range(nb):
                SB[i, ln] = E[i, ln]
                SA[i, ln] = i
        else:  # a roll: its proper sub-multisets only
            for ln in range(nb):
                SB[i, ln] = NEG
                SA[i, ln] = nk
        # one pass: the larger value, on equal values the lower index (a sub-multiset's
        # index is below its own: the order of the widget's two passes)
        for e in range(rem_n[i]):
            j = rem_pad[i, e]
            for ln in range(nb):
                v = SB[j, ln]
                a = SA[j, ln]
                take = (v > SB[i, ln]) | ((v == SB[i, ln]) & (a < SA[i, ln]))
                SB[i, ln] = v if take else SB[i, ln]
                SA[i, ln] = a if take else SA[i, ln]
    for r in range(nk - base):
        i = base + r
        for ln in range(nb):
            pols[ln, t, r] = pols[ln, 0, r] if S0[i, ln] >= SB[i, ln] else np.int64(SA[i, ln])


@numba.njit(cache=True)
def policy_lanes(
    states: StateArrays,
    lo: int,
    nb: int,
    V: np.ndarray,
    K: KernelArrays,
    W: PolicyBuffers,
    theta: float,
) -> None:
    """The policy of ``states`` lo .. lo + nb - 1 (nb <= lanes) under the table of
    ``theta``: ``W.policy[ln]`` is ``widget_into``'s ``B.policy`` for state lo + ln, bit
    for bit.

    The values through the solver's lanes (``solve_batch`` in float64: the widget's
    numbers; with theta != 0 the roll and keep values are the widget's utilities, from
    the same reference), then the choices over lanes: the categories
    (``_score_now_lanes``, in points: the widget chooses them before its utilities) and
    the keeps (``_keep_policy``). ``K`` must be float64. Not for served scores (the
    category after the first roll differs): the distribution reads the widget there.
    """
    A, M, E1, SR, vecs, arg, tmp, pols = W
    st_mask, st_flag, st_u = states
    gather(st_mask, st_flag, st_u, lo, nb, V, SR, vecs[0], vecs[1], K, np.int64(0))
    solve_batch(st_mask, lo, nb, A, M, SR, vecs[0], vecs[1], vecs[2], vecs[3], K, theta, E1)
    _score_now_lanes(st_mask, lo, nb, K, SR, vecs[0], tmp, pols)
    # int(): int64 to numba, not literals (each literal compiles a variant of its own)
    _keep_policy(E1, A, M, arg, nb, K, pols, int(1))  # noqa: UP018
    _keep_policy(A, A, M, arg, nb, K, pols, int(2))  # noqa: UP018
