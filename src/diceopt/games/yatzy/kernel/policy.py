"""Policies of many Yatzy states at once: the widget's choices over the solver's lanes.

Role: :func:`policy_lanes` gives the policy of many turn-start states of a
layer, as the widget's ``policy`` (:func:`~diceopt.games.yatzy.kernel.widget.widget_into`) gives
it for one, at a quarter of its cost; the exact score distribution
(:mod:`diceopt.games.yatzy.analyses.distribution`) follows these policies.

1. The solver's batch (:func:`~diceopt.games.yatzy.kernel.solve.solve_batch`) in float64 gives
   the widget's numbers bit for bit, with the keep values of one reroll left kept apart.
2. Step 2's category choice per lane (``_score_now_lanes``) with the widget's tie-break.
3. Step 4's keep choice per lane for 1 and 2 rerolls left (``_keep_policy``), the argmax
   taken with the lowest flat lattice index on ties: the solver's choice
   (``choose_rows``) taken again with its index in one pass (``_choose_lowest``), over
   the keep values with one reroll left (``E1``) and with two.

For a simulation whose state few games reach, :func:`category_of` and :func:`lowest_best`
give the choices of one roll from the same lanes (:func:`lane_values`), without the
whole policy.

Precision and performance: float64 throughout (the widget's numbers, so that the policy
is the widget's); the loops run over contiguous lanes (SIMD) and are the tagged twins of
the widget's scalar loops. Scandinavian, one thread, 64 lanes, per state (a layer's
states side by side): the values 1.05 microseconds with the successor rows (2.4 with
theta != 0), the categories 0.65, the keeps 0.6 a level (half of it the choice with its
index, half writing the int16 policy); 2.8-2.9 in all, against 3.2-3.3 when a pass of
its own searched the index among the solver's maxima, taken again with one reroll left.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from diceopt.games.yatzy.kernel.arrays import NEG, KernelArrays, StateArrays
from diceopt.games.yatzy.kernel.solve import choose_rows, gather, solve_batch
from diceopt.games.yatzy.kernel.turn import joker_rolls, joker_rules
from diceopt.memory import aligned_empty


class PolicyBuffers(NamedTuple):
    """Work arrays of :func:`policy_lanes` (float64, ``lanes`` states at a time)."""

    A: np.ndarray  # (nk + 1, lanes): the solver's values (see solve_batch)
    M: np.ndarray  # (2 (nk + 1), lanes): the solver's choice (best sub-multisets, 2 rerolls)
    E1: np.ndarray  # (nk + 1, lanes): keep values with one reroll left (rolls: score now)
    M1: np.ndarray  # (2 (nk + 1), lanes): the best sub-multisets with one reroll left
    SR: np.ndarray  # (C * (dice + 1) + 1, lanes): successor rows, the last one NEG
    vecs: np.ndarray  # (4, lanes): the solver's per-lane vectors
    arg: np.ndarray  # (2 (nk + 1), lanes): the lowest flat index of the best sub-multiset
    tmp: np.ndarray  # (3, lanes): step 2's best value and category, zc
    policy: np.ndarray  # (lanes, 3, R) int16: each lane's policy, as WidgetBuffers.policy


def policy_buffers(K: KernelArrays, lanes: int) -> PolicyBuffers:
    """Fresh work arrays for :func:`policy_lanes` (float64 ``K``), made in numpy and aligned
    as numba's own (:func:`~diceopt.memory.aligned_empty`): an allocation compiled in
    numba cost its callers half a second of cold compile."""
    nd = K.offset.size - 2
    nk = int(K.offset[nd + 1])
    R = nk - int(K.offset[nd])
    rows = K.upper_face.size * (nd + 1) + 1
    SR = aligned_empty((rows, lanes))
    SR[rows - 1, :] = NEG
    M1 = aligned_empty((2 * (nk + 1), lanes))
    M1[nk, :] = NEG  # the padding edges' row (choose_rows copies it to the other half)
    return PolicyBuffers(
        aligned_empty((nk + 1, lanes)),
        aligned_empty((2 * (nk + 1), lanes)),
        aligned_empty((nk + 1, lanes)),
        M1,
        SR,
        aligned_empty((4, lanes)),
        aligned_empty((2 * (nk + 1), lanes)),
        aligned_empty((3, lanes)),
        aligned_empty((lanes, 3, R), dtype=np.int16),
    )


@numba.njit(cache=True)
def zero_categories(
    nb: int, K: KernelArrays, SR: np.ndarray, Z: np.ndarray, zc: np.ndarray
) -> None:
    """``zc[ln]``: the lowest category whose h = 0 successor row is the best zero, ``Z[ln]``
    (the solver's; rows not allowed are NEG), for lanes 0 .. nb - 1: where the category
    choice starts."""
    stride = K.offset.size - 1
    for c in range(K.upper_face.size - 1, -1, -1):
        h0 = c * stride
        for ln in range(nb):
            zc[ln] = c if SR[h0, ln] == Z[ln] else zc[ln]


@numba.njit(cache=True)
def joker_categories(
    mask: int, K: KernelArrays, SR: np.ndarray, ln: int, vals: np.ndarray, cats: np.ndarray
) -> None:
    """``cats[r]`` for the Yahtzee rolls r of lane ln (a state of mask ``mask``): the
    category the joker rule (or the Kniffel bonus rule) writes r into where it applies
    (``joker_best``, through :func:`~diceopt.games.yatzy.kernel.turn.joker_rolls`), -1
    where it does not; the other rows are left as they are (-1 for :func:`category_of`).
    ``vals`` (float64, R) is work space."""
    yz_face = K.yz_face
    joker = joker_rules(mask, K)
    if joker:
        joker_rolls(mask, K, SR, ln, vals, cats)
    for r in range(yz_face.size):
        if yz_face[r] >= 0 and not joker:
            cats[r] = -1


@numba.njit(cache=True, inline="always")
def category_of(
    r: int, ln: int, K: KernelArrays, SR: np.ndarray, Z: np.ndarray, zc: np.ndarray,
    joker: np.ndarray,
) -> int:  # fmt: skip
    """The category roll r is written into in lane ln, from the successor rows SR, the
    best zeros Z and their categories zc (:func:`zero_categories`); ``joker[r]``, when not
    -1, is the lane's joker category of r (:func:`joker_categories`).

    Deliberate twin of one (r, ln) of ``_score_now_lanes`` (the same argmax and
    tie-break), for a simulation that needs the choice of a few rolls only: there the
    lanes loop runs over all rolls at once (SIMD) and costs more than a few calls of this.
    No call that takes ``K`` in here: inlined into a loop, one (even never made) costs
    the loop about 0.15 microseconds a turn in reference counts.
    """
    pos_id, pos_s, pos_c = K.pos_id, K.pos_s, K.pos_c
    pad = SR.shape[0] - 1
    best = Z[ln]
    bc = int(zc[ln])
    for e in range(pos_id.shape[1]):
        i = pos_id[r, e]
        if e > 0 and i == pad:
            break  # only padding left
        v = pos_s[r, e] + SR[i, ln]
        c = pos_c[r, e]
        take = (v > best) | ((v == best) & (c < bc))  # selects: no mispredicted branch
        bc = c if take else bc
        best = v if take else best
    return bc if joker[r] < 0 else int(joker[r])


@numba.njit(cache=True, inline="always")
def lowest_best(i: int, M: np.ndarray, ln: int, K: KernelArrays, stack: np.ndarray) -> int:
    """The lowest flat index among the sub-multisets of multiset i (i included) whose value
    is i's best, ``M`` (:func:`~diceopt.games.yatzy.kernel.solve.choose_rows`' 2 (nk + 1)
    rows in halves), in lane ln: what :func:`_lowest_best_size` gives ``X[i]``, found by
    following only the edges that keep the best (usually one path down; ``stack``, int64,
    at least dice (dice + 1) / 2 + 1 long, is work space).

    Deliberate twin of ``_lowest_best_size`` for a simulation that needs the keep of a few
    rolls only (that one finds it for every multiset of a lane batch at once, SIMD)."""
    rem_pad, rem_n, offset = K.rem_pad, K.rem_n, K.offset
    nd = offset.size - 2
    nk = offset[nd + 1]
    size = nd
    while offset[size] > i:
        size -= 1
    m = M[((nd - size) % 2) * (nk + 1) + i, ln]
    found = i
    stack[0] = i
    top = 1
    while top > 0:
        top -= 1
        j = stack[top]
        s = 0
        while offset[s + 1] <= j:
            s += 1
        below = ((nd - s + 1) % 2) * (nk + 1)  # the half of the sub-multisets one die smaller
        leaf = True
        for e in range(rem_n[j]):
            c = rem_pad[j, e]
            if M[below + c, ln] == m:
                stack[top] = c
                top += 1
                leaf = False
        if leaf:
            found = min(found, j)
    return found


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
    at: int,
) -> None:
    """Step 2's category choice for lanes 0 .. nb - 1 (states lo ..): ``pols[at + ln, 0, r]
    = -c - 1``, c the category roll r is written into, from the successor rows SR and the
    best h = 0 row values Z (the solver's); ``tmp`` (3, lanes) is work space.

    Deliberate twin of step 2 in ``widget_into`` (the same argmax and tie-break: the
    lowest category index among equal values), here over contiguous lanes: per lane the
    scalar loop costs more than the rest of ``policy_lanes``. Yahtzee rolls under the
    joker rule go through ``joker_rolls`` (the widget's ``joker_best`` of each) per lane.
    """
    pos_id, pos_s, pos_c, yz_face = K.pos_id, K.pos_s, K.pos_c, K.yz_face
    R = pos_id.shape[0]
    width = pos_id.shape[1]
    pad = SR.shape[0] - 1
    best, bc, zc = tmp[0], tmp[1], tmp[2]
    zero_categories(nb, K, SR, Z, zc)
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
            pols[at + ln, 0, r] = -np.int64(bc[ln]) - 1
    if K.joker_code != 0 or K.ubonus != 0:
        vals = np.empty(R)
        cats = np.empty(R, dtype=np.int64)
        for ln in range(nb):
            mask = st_mask[lo + ln]
            if joker_rules(mask, K):
                joker_rolls(mask, K, SR, ln, vals, cats)  # joker_best of every Yatzy roll
                for r in range(R):
                    if yz_face[r] >= 0:
                        pols[at + ln, 0, r] = -cats[r] - 1


@numba.njit(cache=True, inline="always")
def _take(best: float, low: float, v: float, w: float) -> tuple[float, float]:
    """One sub-multiset's best value ``v`` and its lowest index ``w`` into the running
    best value and lowest index among those that reach it (selects, no branch)."""
    low = w if v > best else (min(low, w) if v == best else low)
    return max(best, v), low


@numba.njit(cache=True)
def _choose_lowest_size(
    E: np.ndarray, M: np.ndarray, MS: np.ndarray, X: np.ndarray, XS: np.ndarray, lo: int,
    hi: int, nb: int, rem_pad: np.ndarray, rem_n: np.ndarray,
) -> None:  # fmt: skip
    """:func:`_choose_lowest` for the multisets lo .. hi - 1 (one size): ``M[i]`` the best
    of E[i] and the rows one die smaller (``MS``), ``X[i]`` the lowest flat index among
    the sub-multisets that reach it (i's own where none of theirs does: their indices
    are below i's), from the smaller ones' (``XS``). The padding edges (row nk: NEG)
    never reach a best value. Each size reads one half and writes the other, as
    ``choose_rows`` does, so that LLVM vectorises the lanes."""
    six = rem_pad.shape[1] == 6
    for i in range(lo, hi):
        own = float(i)
        if six:  # six faces: three edges (padded with row nk), all six for 4 to 6
            j0, j1, j2 = rem_pad[i, 0], rem_pad[i, 1], rem_pad[i, 2]
            if rem_n[i] <= 3:
                for ln in range(nb):
                    b, x = _take(E[i, ln], own, MS[j0, ln], XS[j0, ln])
                    b, x = _take(b, x, MS[j1, ln], XS[j1, ln])
                    b, x = _take(b, x, MS[j2, ln], XS[j2, ln])
                    M[i, ln] = b
                    X[i, ln] = x
            else:
                j3, j4, j5 = rem_pad[i, 3], rem_pad[i, 4], rem_pad[i, 5]
                for ln in range(nb):
                    b, x = _take(E[i, ln], own, MS[j0, ln], XS[j0, ln])
                    b, x = _take(b, x, MS[j1, ln], XS[j1, ln])
                    b, x = _take(b, x, MS[j2, ln], XS[j2, ln])
                    b, x = _take(b, x, MS[j3, ln], XS[j3, ln])
                    b, x = _take(b, x, MS[j4, ln], XS[j4, ln])
                    b, x = _take(b, x, MS[j5, ln], XS[j5, ln])
                    M[i, ln] = b
                    X[i, ln] = x
        else:
            for ln in range(nb):
                M[i, ln] = E[i, ln]
                X[i, ln] = own
            for e in range(rem_n[i]):
                j = rem_pad[i, e]
                for ln in range(nb):
                    b, x = _take(M[i, ln], X[i, ln], MS[j, ln], XS[j, ln])
                    M[i, ln] = b
                    X[i, ln] = x


@numba.njit(cache=True)
def _choose_lowest(
    E: np.ndarray, M: np.ndarray, X: np.ndarray, nb: int, rem_pad: np.ndarray,
    rem_n: np.ndarray, offset: np.ndarray,
) -> None:  # fmt: skip
    """The solver's choice (:func:`~diceopt.games.yatzy.kernel.solve.choose_rows`: ``M``,
    2 (nk + 1) rows in halves, row nk NEG set by the caller) from the keep values ``E``,
    with its argmax: ``X`` (the same layout, float64: the lane loops stay in one type)
    the lowest flat index among the sub-multisets whose value is the best.

    Deliberate twin of ``choose_rows`` (which takes only the maximum: the solver's hot
    loop) and of the widget's scalar choice with its tie-break: here both in one pass
    over contiguous lanes, each edge read once (the choice and then a pass for the
    index cost 0.77 microseconds a state a level; this 0.35, Scandinavian, 64 lanes,
    one thread; the same values and indices)."""
    nk = E.shape[0] - 1
    nd = offset.size - 2
    M0, M1 = M[: nk + 1], M[nk + 1 :]
    X0, X1 = X[: nk + 1], X[nk + 1 :]
    for ln in range(nb):  # the padding edges' rows: NEG in both halves, never a best
        M1[nk, ln] = M0[nk, ln]
        X0[nk, ln] = nk
        X1[nk, ln] = nk
    em, ex = (M0, X0) if nd % 2 == 0 else (M1, X1)  # the empty keep: its own best
    for ln in range(nb):
        em[0, ln] = E[0, ln]
        ex[0, ln] = 0.0
    for size in range(1, nd + 1):
        lo, hi = offset[size], offset[size + 1]
        if (nd - size) % 2 == 0:
            _choose_lowest_size(E, M0, M1, X0, X1, lo, hi, nb, rem_pad, rem_n)
        else:
            _choose_lowest_size(E, M1, M0, X1, X0, lo, hi, nb, rem_pad, rem_n)


@numba.njit(cache=True)
def _keep_policy(
    E: np.ndarray, S0: np.ndarray, M: np.ndarray, X: np.ndarray, nb: int, K: KernelArrays,
    pols: np.ndarray, at: int, t: int,
) -> None:  # fmt: skip
    """Step 4's choice with the argmax for t rerolls left, per lane, from the keep values
    ``E`` (roll rows: scoring now) and the score-now values in S0's roll rows: every
    roll's action into ``pols[ln, t]`` (``pols[ln, 0]`` must hold the categories); ``M``
    (row nk NEG) and ``X`` (2 (nk + 1) rows each) are work space, left holding the
    choice (:func:`_choose_lowest`).

    Deliberate twin of the choice in ``widget_into`` (the maximum, then the lowest flat
    index among equal values; scoring now wins ties), here over contiguous lanes. A
    roll's best value M[r] includes scoring now (S0[r]): scoring now is chosen where
    S0[r] reaches it, else the roll's best proper sub-multiset, whose index is below the
    roll's own.
    """
    offset = K.offset
    nd = offset.size - 2
    base = offset[nd]
    nk = offset[nd + 1]
    _choose_lowest(E, M, X, nb, K.rem_pad, K.rem_n, offset)
    for r in range(nk - base):  # the rolls: in the first half (nd - nd is even)
        i = base + r
        for ln in range(nb):
            now = S0[i, ln] >= M[i, ln]
            pols[at + ln, t, r] = pols[at + ln, 0, r] if now else np.int64(X[i, ln])


@numba.njit(cache=True)
def _keep_values(
    states: StateArrays,
    lo: int,
    nb: int,
    V: np.ndarray,
    K: KernelArrays,
    W: PolicyBuffers,
    theta: float,
) -> None:
    """:func:`lane_values` without the choice with one reroll left (``M1``)."""
    A, M, E1, _, SR, vecs, _, _, _ = W
    st_mask, st_flag, st_u = states
    gather(st_mask, st_flag, st_u, lo, nb, V, SR, vecs[0], vecs[1], K, np.int64(0))
    solve_batch(st_mask, lo, nb, A, M, SR, vecs[0], vecs[1], vecs[2], vecs[3], K, theta, E1)
    offset = K.offset
    for i in range(offset[offset.size - 2], offset[offset.size - 1]):
        for ln in range(nb):
            E1[i, ln] = A[i, ln]


@numba.njit(cache=True)
def lane_values(
    states: StateArrays,
    lo: int,
    nb: int,
    V: np.ndarray,
    K: KernelArrays,
    W: PolicyBuffers,
    theta: float,
) -> None:
    """The values the choices of states lo .. lo + nb - 1 come from, in ``W``: the
    solver's batch in float64 (``solve_batch``: the widget's numbers; with theta != 0 its
    utilities) leaves the keep values with two rerolls left in ``A`` (the rolls' rows:
    scoring now), their best sub-multisets in ``M``, the successor rows in ``SR`` and the
    best zeros in ``vecs[0]``; with one reroll left the keep values are ``E1`` and the
    solver's choice is taken again over them into ``M1`` (its own choice is overwritten
    by the one of two rerolls left), the rolls' rows scoring now."""
    _keep_values(states, lo, nb, V, K, W, theta)
    choose_rows(W.E1, W.M1, nb, K.rem_pad, K.rem_n, K.offset)


@numba.njit(cache=True)
def policy_lanes(
    states: StateArrays,
    lo: int,
    nb: int,
    V: np.ndarray,
    K: KernelArrays,
    W: PolicyBuffers,
    theta: float,
    pols: np.ndarray,
    at: int,
) -> None:
    """The policy of ``states`` lo .. lo + nb - 1 (nb <= lanes) under the table of
    ``theta``: ``pols[at + ln]`` (int16, (3, R); ``W.policy`` with ``at`` 0) is
    ``widget_into``'s ``B.policy`` for state lo + ln, bit for bit.

    The values through the solver's lanes (:func:`lane_values` but the choice with one
    reroll left; with theta != 0 the roll and keep values are the widget's utilities,
    from the same reference), then the
    choices over lanes: the categories
    (``_score_now_lanes``, in points: the widget chooses them before its utilities) and
    the keeps (``_keep_policy``). ``K`` must be float64. Not for served scores (the
    category after the first roll differs): the distribution reads the widget there.
    """
    A, M, E1, M1, SR, vecs, arg, tmp, _ = W
    _keep_values(states, lo, nb, V, K, W, theta)
    _score_now_lanes(states.mask, lo, nb, K, SR, vecs[0], tmp, pols, at)
    # int(): int64 to numba, not literals (each literal compiles a variant of its own)
    _keep_policy(E1, A, M1, arg, nb, K, pols, at, int(1))  # noqa: UP018
    _keep_policy(A, A, M, arg, nb, K, pols, at, int(2))  # noqa: UP018
