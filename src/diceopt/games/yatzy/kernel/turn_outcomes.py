"""A Yatzy turn's outcomes under a table's policy, and their combination, in numba.

Role: the kernels of the exact score distribution
(:mod:`diceopt.games.yatzy.analyses.distribution`):
what one turn from a turn-start state leads to under the policy of a solved table, and
the backward combination of the successors' vectors. ``K`` is the float64
:class:`~diceopt.games.yatzy.kernel.arrays.KernelArrays` of the table.

1. The turn's policy (:func:`~diceopt.games.yatzy.kernel.policy.policy_lanes`; with served
   scores the scalar widget), ``LANES`` states at a time.
2. Probabilities pushed through the policy (:func:`turn_outcomes`): the first roll's
   distribution, for every roll either "write now" (its mass goes to that final roll) or
   a keep (its mass goes to the keep); the mass of every keep is spread up the keep
   lattice by one die at a time (the transpose of the solver's chance step, over lanes)
   into the rolls of the next level (:func:`finish_turn`). ``F[r]``, the probability
   that the turn ends with roll r written into the policy's category, is grouped into
   the turn's *outcomes*: (successor state, points incl. bonuses, probability).
3. A layer's states in parallel (:func:`layer_outcomes`, :func:`outcomes_share`), their
   vectors' lengths (:func:`support`), then each state's vector ``pmf[x]`` = the sum
   over its outcomes of probability x the successor's vector shifted by the points
   (:func:`combine`; successors lie in the next layer: no write conflicts).

Precision and performance: float64 throughout; lanes of 64 states (32: a tenth slower;
128: the same); serial shares of the states on the threads. Scandinavian from the start
(451,969 states, 13.4 million outcomes; per state on one thread): the policies 1.9-2.2
microseconds, ``finish_turn`` 0.95 (its work arrays' columns padded: ``LANE_PAD``),
``turn_outcomes`` 0.9; ``combine`` 0.8 CPU seconds in all (2 cores, load average 1). The grouping of
the rolls into outcomes (``turn_outcomes``) reads, under the plain rules, a table of
each category's groups of equal points, and takes a batch of states per call: 1.1
microseconds a state instead of 2.0 (the 201,456 states with 7 boxes filled, one
thread).
"""

from __future__ import annotations

import numba
import numpy as np

from diceopt.games.yatzy.kernel.arrays import KernelArrays, StateArrays, TableArrays
from diceopt.games.yatzy.kernel.policy import PolicyBuffers, policy_buffers, policy_lanes
from diceopt.games.yatzy.kernel.turn import box_points, roll_span, scores_plainly, upper_bonus
from diceopt.games.yatzy.kernel.widget import (
    SCORE_NOW,
    TURN_REROLLS,
    WidgetBuffers,
    widget_buffers,
    widget_into,
)
from diceopt.memory import aligned_empty
from diceopt.threads import run_shares

LANES = 64  # states per batch of the turn outcomes (32: a tenth slower; 128: the same)
# columns beyond the lanes in the work arrays whose columns are walked (a row's bytes not
# a power of two: a column spreads over the cache's sets; ``finish_turn`` 1.09 -> 0.82
# microseconds a state, measured)
LANE_PAD = 8


@numba.njit(cache=True)
def finish_turn(
    P: np.ndarray,
    t0: int,
    pols: np.ndarray,
    nb: int,
    K: KernelArrays,
    mass: np.ndarray,
    out: np.ndarray,
    first: np.ndarray,
) -> None:
    """For lanes ln < nb (states): ``out[ln, r]`` = probability that the turn ends
    writing roll r, from roll probabilities ``P[r, ln]`` (R, lanes) with t0 rerolls
    left, under the turn policy ``pols[ln]`` (3, R) (P is consumed; ``mass`` (nk + R,
    lanes) is work space). With served scores (``K.served``) and t0 = 2
    the rolls written straight after the first roll go to ``first[ln, r]`` instead
    (out holds the rest). The spread up the keep lattice runs over contiguous lanes
    (SIMD)."""
    add_die, fprob = K.add_die, K.fprob
    base, nk = roll_span(K.offset)
    R = nk - base
    k = add_die.shape[1]
    # mass rows 0 .. nk - 1: the lattice; rows nk + r: F, the rolls written (one array:
    # a roll's mass goes to row a or nk + r without a branch, which mispredicts)
    for r in range(R):
        for ln in range(nb):
            mass[nk + r, ln] = 0.0
    for t in range(t0, 0, -1):
        for i in range(nk):
            for ln in range(nb):
                mass[i, ln] = 0.0
        for ln in range(nb):
            for r in range(R):
                a = pols[ln, t, r]
                mass[a if a >= 0 else nk + r, ln] += P[r, ln]
        if K.served and t == 2:  # written after the first roll: served, kept apart
            for ln in range(nb):
                for r in range(R):
                    first[ln, r] = mass[nk + r, ln]
                    mass[nk + r, ln] = 0.0
        # smaller multisets first: one more die of each face (rows indexed in place: a
        # view per row costs atomic reference counts, more than a row's lanes)
        for i in range(base):
            for f in range(k):
                j = add_die[i, f]
                p = fprob[f]
                for ln in range(nb):
                    mass[j, ln] += p * mass[i, ln]
        for r in range(R):
            for ln in range(nb):
                P[r, ln] = mass[base + r, ln]
    for ln in range(nb):  # one state's row contiguous: its outcomes read it roll by roll
        for r in range(R):
            out[ln, r] = mass[nk + r, ln] + P[r, ln]


def _groups(score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rolls of each category grouped by their points when written normally
    (``score``, R x C: ``K.score``): ``gid[r, c]`` the group of roll r written into c,
    ``gval[g]`` its points; category c's groups are ``goff[c] .. goff[c + 1] - 1``, in the
    order of their first roll."""
    R, ncat = score.shape
    gid = np.empty((R, ncat), dtype=np.int64)
    gval, goff = [], [0]
    for c in range(ncat):
        points, first, group = np.unique(
            score[:, c].astype(np.int64), return_index=True, return_inverse=True
        )
        order = np.argsort(first, kind="stable")  # the groups as their first rolls come
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        gid[:, c] = goff[-1] + rank[group.reshape(-1)]
        gval.append(points[order])
        goff.append(goff[-1] + points.size)
    return gid, np.concatenate(gval), np.array(goff, dtype=np.int64)


def _scratch(
    K: KernelArrays,
    groups: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
    canon: tuple[np.ndarray, np.ndarray],
) -> tuple[np.ndarray, ...]:
    """Work arrays of ``turn_outcomes``: ``idx`` (C, most points of a turn + 1), -1 where
    no outcome yet; per outcome its probability, points, event bits, successor and the
    next outcome of its category (``head[c]``: the first, -1 for none); the plain rules'
    groups (``groups``, read only, or None: :func:`_groups` of ``K.score``), each group's
    probability (zeros between states) and first roll, and a category's groups in their
    order; last the rules' upper totals that stand for others (``canon``, read only:
    :func:`~diceopt.games.yatzy.kernel.layers.upper_canon`)."""
    ncat = K.upper_face.size
    R = K.roll_p.size
    # a box's normal, joker or served points (columns width.. of pos_s), then the bonuses
    most = max(0, int(K.score.max()), int(K.joker.max()), int(K.pos_s.max()))
    most += int(K.bonus) + int(K.ybonus) + int(K.ubonus) + 1
    gid, gval, goff = _groups(K.score) if groups is None else groups
    ng = gval.size
    return (
        np.full((ncat, most), -1, dtype=np.int64),
        np.empty(R),
        np.empty(R, dtype=np.int64),
        np.empty(R, dtype=np.int64),
        np.empty(R, dtype=np.int64),
        np.empty(R, dtype=np.int64),
        np.full(ncat, -1, dtype=np.int64),
        gid,
        gval,
        goff,
        np.zeros(ng),
        np.zeros(ng, dtype=np.int64),
        np.empty(ng, dtype=np.int64),
        *canon,
    )


@numba.njit(cache=True)
def turn_outcomes(
    states: StateArrays,
    lo: int,
    nb: int,
    pols: np.ndarray,
    F: np.ndarray,
    first: np.ndarray,
    K: KernelArrays,
    flags: int,
    width: int,
    scratch: tuple,
    o_key: np.ndarray,
    o_pts: np.ndarray,
    o_q: np.ndarray,
    bound_off: np.ndarray,
    count: np.ndarray,
) -> None:
    """The outcomes of the turns from states lo + ln, ln < nb, that end writing roll r
    with probability ``F[ln, r]`` (``finish_turn``; with served scores ``first[ln, r]``
    straight after the first roll) into the category of the state's policy ``pols[ln]``
    (3, R; ``pols[ln, 2]`` after the first roll): state i's from ``bound_off[i]`` (before
    ``bound_off[i + 1]``), their number into ``count[i]``: the successor's flat state key
    (of the state that stands for it: a bonus-dead upper total is its representative's),
    ``points * 4 + events`` (points of the turn incl. bonuses; event bit 1: the upper
    bonus is reached, bit 2: a Yatzy 50 is written) and probability.

    Rolls with the same (category, points) lead to the same successor and are summed
    first, roll by roll; the outcomes are written category by category (rows of one
    category are mostly the same successor: it is read once from memory when
    combining), within one the latest first roll with mass first. One call for a batch
    of states: a call per state counts references on its arrays (the grouping 1.5
    microseconds a state with a call per state, 1.1 per batch, measured).
    """
    idx, oq, opts, oev, osucc, onext, head, gid, gval, goff, gq, gfirst, order, sub, rep = scratch
    st_mask, st_flag, st_u = states
    R = K.roll_p.size
    ncat = head.size
    # the rules' arrays as locals (a call or attribute per roll costs more than the work)
    T, bon, ybonus, yz_cat, track = K.threshold, K.bonus, K.ybonus, K.yz_cat, K.track
    yz_face, upper_face, score, needs = K.yz_face, K.upper_face, K.score, K.needs
    # rules where a box's points are more than K.score (jokers, served scores, needs_yatzy,
    # the Kniffel bonus): box_points; the plain path reads the score (box_points on every
    # roll doubled the Scandinavian distribution's time, measured)
    special = K.joker_code != 0 or K.served != 0 or K.track != 0 or K.ubonus != 0
    for ln in range(nb):
        i = lo + ln
        mask, flag, u = st_mask[i], st_flag[i], st_u[i]
        at, end = bound_off[i], bound_off[i + 1]
        yb = ybonus if flag == 1 else 0
        w = at
        if not special and yb == 0:
            # plain rules: a roll's outcome is its category's group of equal points (a
            # table read; the bonus and the successor follow from the points), summed
            # roll by roll as in the general path below, in the same order
            for r in range(R):
                g = gid[r, -pols[ln, 0, r] - 1]
                gfirst[g] = r if gq[g] == 0.0 else gfirst[g]  # the first roll with mass
                gq[g] += F[ln, r]
            for c in range(ncat):
                if (mask >> c) & 1:
                    continue  # a filled box: no roll is written there, no group has mass
                m = 0  # the groups of c with mass, latest first roll first (insertion sort)
                for g in range(goff[c], goff[c + 1]):
                    if gq[g] != 0.0:
                        j = m
                        while j > 0 and gfirst[order[j - 1]] < gfirst[g]:
                            order[j] = order[j - 1]
                            j -= 1
                        order[j] = g
                        m += 1
                if w + m > end:
                    raise ValueError("more turn outcomes than the bound")
                up = upper_face[c] >= 0
                for j in range(m):
                    g = order[j]
                    got = gval[g]
                    cross = up & (u < T) & (u + got >= T)
                    yzw = (c == yz_cat) & (got > 0)
                    nxt = mask | (1 << c)
                    u2 = rep[sub[nxt], min(T, u + got) if up else u]
                    o_key[w] = (nxt * flags + flag) * width + u2
                    o_pts[w] = 4 * (got + (bon if cross else 0)) + cross + 2 * yzw
                    o_q[w] = gq[g]
                    gq[g] = 0.0
                    w += 1
            count[i] = w - at
            continue
        n = 0
        for rr in range(2 * R if K.served else R):  # served: the first roll's writes after
            served = rr >= R
            r = rr - R if served else rr
            q = first[ln, r] if served else F[ln, r]
            if q == 0.0:
                continue
            c = -pols[ln, 2 if served else 0, r] - 1
            # points and successor of writing roll r into c (as the simulation scores it;
            # selects rather than branches: the category changes from roll to roll)
            yzr = yz_face[r] >= 0
            got = np.int64(score[r, c])
            plain = scores_plainly(r, c, served, yz_face, needs)  # else the calls with K
            if not plain:
                got = np.int64(box_points(mask, flag, r, c, served, K))
            up = upper_face[c] >= 0
            cross = up & (u < T) & (u + got >= T)
            yzw = (c == yz_cat) & (got > 0)
            pts = got + (bon if cross else 0) + (yb if yzr else 0)
            if K.ubonus != 0 and not plain:
                pts += np.int64(upper_bonus(mask, r, c, K))
            e = idx[c, pts]
            if e < 0:
                e = n
                idx[c, pts] = n
                n += 1
                oq[e] = 0.0
                opts[e] = pts
                oev[e] = (1 if cross else 0) + (2 if yzw else 0)
                f2 = 1 if (yzw and track) else flag
                nxt = mask | (1 << c)
                u2 = rep[sub[nxt], min(T, u + got) if up else u]
                osucc[e] = (nxt * flags + f2) * width + u2
                onext[e] = head[c]
                head[c] = e
            oq[e] += q
        if at + n > end:
            raise ValueError("more turn outcomes than the bound")
        for c in range(ncat):
            e = head[c]
            while e >= 0:
                o_key[w] = osucc[e]
                o_pts[w] = 4 * opts[e] + oev[e]
                o_q[w] = oq[e]
                w += 1
                idx[c, opts[e]] = -1
                e = onext[e]
            head[c] = -1
        count[i] = w - at


@numba.njit(cache=True, nogil=True)
def _batch_outcomes(
    states: StateArrays,
    lo: int,
    nb: int,
    pols: np.ndarray,
    roll: int,
    t0: int,
    K: KernelArrays,
    flags: int,
    width: int,
    work: tuple,
    bound_off: np.ndarray,
    count: np.ndarray,
    o_key: np.ndarray,
    o_pts: np.ndarray,
    o_q: np.ndarray,
) -> None:
    """The outcomes of states lo .. lo + nb - 1 under their turn policies ``pols[ln]``
    (3, R): the first roll to come or the roll showing, :func:`finish_turn`, then
    :func:`turn_outcomes` (``work``: :func:`outcome_work`)."""
    P, mass, out, first, scratch = work
    R = K.roll_p.size
    for r in range(R):  # the first roll to come, or the roll showing
        p = K.roll_p[r] if roll < 0 else (1.0 if r == roll else 0.0)
        for ln in range(nb):
            P[r, ln] = p
    finish_turn(P, t0, pols, nb, K, mass, out, first)
    turn_outcomes(
        states, lo, nb, pols, out, first, K, flags, width, scratch, o_key, o_pts, o_q,
        bound_off, count,
    )  # fmt: skip


def outcome_work(
    K: KernelArrays,
    lanes: int,
    canon: tuple[np.ndarray, np.ndarray],
    groups: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> tuple:
    """Work arrays of :func:`_batch_outcomes` for ``lanes`` states: P, mass, out, first
    (served scores) and ``turn_outcomes``'s scratch (:func:`_scratch`, ``groups`` its
    rules' groups, ``canon`` their representative upper totals), made in numpy
    (compiled, they cost 2.5 s of cold compile) and aligned as numba's own
    (:func:`~diceopt.memory.aligned_empty`). P and mass have ``LANE_PAD`` columns more
    than lanes: ``finish_turn`` walks their columns, and a row of 64 float64 lanes (512
    bytes) would put a column in a few of the cache's sets."""
    R = K.roll_p.size
    first = aligned_empty((lanes, R) if K.served else (1, 1))
    first[:] = 0.0
    return (
        aligned_empty((R, lanes + LANE_PAD)),
        aligned_empty((K.add_die.shape[0] + R, lanes + LANE_PAD)),
        aligned_empty((lanes, R)),
        first,
        _scratch(K, groups, canon),
    )


# The two shares below differ only in where the policies come from: one kernel with both
# compiled the widget into every distribution (seconds of a cold compile) for the served
# scores of a few rule files; apart, each is compiled when first needed.
@numba.njit(cache=True, nogil=True)
def outcomes_share(
    t: int | np.integer,
    nthreads: int,
    states: StateArrays,
    roll: int,
    t0: int,
    tab: TableArrays,
    K: KernelArrays,
    bound_off: np.ndarray,
    count: np.ndarray,
    o_key: np.ndarray,
    o_pts: np.ndarray,
    o_q: np.ndarray,
    W: PolicyBuffers,
    work: tuple,
) -> None:
    """Batches t, t + nthreads, ... of ``lanes`` states (the lanes of ``W``): one thread's
    share of ``outcomes``, with its own work arrays (``W``: :func:`policy_buffers`,
    ``work``: :func:`outcome_work`). The policies from the solver's lanes
    (``policy_lanes``, the widget's bit for bit); not for served scores
    (:func:`widget_outcomes_share`)."""
    V, theta, flags, width = tab
    lanes = W.policy.shape[0]
    n = states.mask.size
    for b in range(t, (n + lanes - 1) // lanes, nthreads):
        lo = b * lanes
        nb = min(lanes, n - lo)
        policy_lanes(states, lo, nb, V, K, W, theta, W.policy, int(0))  # noqa: UP018
        _batch_outcomes(
            states, lo, nb, W.policy, roll, t0, K, flags, width, work, bound_off, count,
            o_key, o_pts, o_q,
        )  # fmt: skip


@numba.njit(cache=True, nogil=True)
def widget_outcomes_share(
    t: int | np.integer,
    nthreads: int,
    states: StateArrays,
    roll: int,
    t0: int,
    tab: TableArrays,
    K: KernelArrays,
    bound_off: np.ndarray,
    count: np.ndarray,
    o_key: np.ndarray,
    o_pts: np.ndarray,
    o_q: np.ndarray,
    pols: np.ndarray,
    work: tuple,
    B: WidgetBuffers,
) -> None:
    """:func:`outcomes_share` with served scores (which ``policy_lanes`` does not know):
    the policies from the scalar widget state by state into ``pols`` (lanes, 3, R; as
    ``PolicyBuffers.policy``), ``B`` the widget's work arrays."""
    V, theta, flags, width = tab
    st_mask, st_flag, st_u = states
    lanes = pols.shape[0]
    n = st_mask.size
    for b in range(t, (n + lanes - 1) // lanes, nthreads):
        lo = b * lanes
        nb = min(lanes, n - lo)
        for ln in range(nb):
            i = lo + ln
            widget_into(st_mask[i], st_flag[i], st_u[i], V, K, theta, B, TURN_REROLLS, SCORE_NOW)
            pols[ln] = B.policy
        _batch_outcomes(
            states, lo, nb, pols, roll, t0, K, flags, width, work, bound_off, count,
            o_key, o_pts, o_q,
        )  # fmt: skip


def layer_outcomes(
    states: StateArrays,
    roll: int,
    t0: int,
    tab: TableArrays,
    K: KernelArrays,
    canon: tuple[np.ndarray, np.ndarray],
    where: np.ndarray | None,
    bound_off: np.ndarray,
    o_key: np.ndarray,
    o_succ: np.ndarray,
    o_pts: np.ndarray,
    o_q: np.ndarray,
    nthreads: int,
    lanes: int,
) -> np.ndarray:
    """The turn outcomes of ``states`` under the policy of ``tab`` (see ``turn_outcomes``;
    ``canon``: :func:`~diceopt.games.yatzy.kernel.layers.upper_canon` of the rules) into
    work arrays at least ``bound_off[n]`` long (``bound_off``: prefix sums of an upper
    bound on each state's number of outcomes), then packed to their front: state i's
    outcomes at start[i] .. start[i + 1] - 1 (returns ``start``), the successor as its
    index in the next layer in ``o_succ`` (``where`` of its key ``o_key``; None: left to
    the caller, :func:`successor_index`). ``nthreads`` shares (:mod:`diceopt.threads`)."""
    n = states.mask.size
    count = np.zeros(n, dtype=np.int64)
    shares = max(1, min(nthreads, n))

    groups = _groups(K.score)  # read only: one copy for every share

    def share(t: int) -> None:
        work = outcome_work(K, lanes, canon, groups)
        if K.served:
            pols = aligned_empty((lanes, 3, K.roll_p.size), dtype=np.int16)
            widget_outcomes_share(
                t, shares, states, roll, t0, tab, K, bound_off, count, o_key, o_pts, o_q, pols,
                work, widget_buffers(K),
            )  # fmt: skip
        else:
            outcomes_share(
                t, shares, states, roll, t0, tab, K, bound_off, count, o_key, o_pts, o_q,
                policy_buffers(K, lanes), work,
            )  # fmt: skip

    run_shares(share, shares)
    start = _pack_outcomes(count, bound_off, o_key, o_pts, o_q)
    total = int(start[n])

    if where is not None:
        index = where

        def successors(t: int) -> None:
            _successors(index, o_key, o_succ, total * t // shares, total * (t + 1) // shares)

        run_shares(successors, shares)
    return start


@numba.njit(cache=True, nogil=True)
def _pack_outcomes(
    count: np.ndarray, bound_off: np.ndarray, o_key: np.ndarray, o_pts: np.ndarray, o_q: np.ndarray
) -> np.ndarray:
    """Move each state's ``count`` outcomes from ``bound_off`` to the front, in order (in
    place: start[i] <= bound_off[i]); returns ``start`` (prefix sums of count)."""
    n = count.size
    start = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        start[i + 1] = start[i] + count[i]
    for i in range(n):
        src = bound_off[i] - start[i]
        if src > 0:
            for e in range(start[i], start[i + 1]):
                o_key[e] = o_key[src + e]
                o_pts[e] = o_pts[src + e]
                o_q[e] = o_q[src + e]
    return start


@numba.njit(cache=True, nogil=True)
def _successors(where: np.ndarray, o_key: np.ndarray, o_succ: np.ndarray, lo: int, hi: int) -> None:
    """o_succ[e] = where[o_key[e]] for lo <= e < hi: the successors' indices in a loop of
    independent reads (each is a cache miss: one at a time between the rolls' work they
    cost a sixth of the layer's time)."""
    for e in range(lo, hi):
        o_succ[e] = where[o_key[e]]


@numba.njit(cache=True, nogil=True)
def successor_index(
    o_key: np.ndarray, slot: np.ndarray, keys: np.ndarray, o_succ: np.ndarray
) -> int:
    """The distinct successors of a layer's outcomes in the order they first come: their
    flat keys into ``keys`` (returns how many), each outcome's index among them into
    ``o_succ``. ``slot`` (one entry per flat key, int32) may hold anything on entry: a
    slot is believed only where ``keys`` points back to its key (a sparse set), so the
    array needs no clearing, and only the pages of the keys met are touched (Maxi Yatzy
    has 89 million keys). One pass, 13.4 million outcomes in 0.02 s."""
    n = 0
    for e in range(o_key.size):
        k = o_key[e]
        p = slot[k]
        if p < 0 or p >= n or keys[p] != k:
            p = n
            slot[k] = n
            keys[n] = k
            n += 1
        o_succ[e] = p
    return n


def support(
    start: np.ndarray, o_succ: np.ndarray, o_pts: np.ndarray, ln: np.ndarray, nthreads: int
) -> np.ndarray:
    """Length of every state's vector: 1 + the most points still to come with positive
    probability (the successors' rows have lengths ``ln``); ``nthreads``
    shares of the states."""
    n = start.size - 1
    out = np.empty(n, dtype=np.int64)
    shares = max(1, min(nthreads, n))

    def share(t: int) -> None:
        _support_share(start, o_succ, o_pts, ln, out, n * t // shares, n * (t + 1) // shares)

    run_shares(share, shares)
    return out


@numba.njit(cache=True, nogil=True)
def _support_share(
    start: np.ndarray, o_succ: np.ndarray, o_pts: np.ndarray, ln: np.ndarray, out: np.ndarray,
    lo: int, hi: int,
) -> None:  # fmt: skip
    """:func:`support` of the states lo .. hi - 1 into ``out``."""
    for i in range(lo, hi):
        m = 1
        for e in range(start[i], start[i + 1]):
            m = max(m, (o_pts[e] >> 2) + ln[o_succ[e]])
        out[i] = m


@numba.njit(cache=True, nogil=True)
def combine(
    start: np.ndarray,
    o_succ: np.ndarray,
    o_pts: np.ndarray,
    o_q: np.ndarray,
    off: np.ndarray,
    ln: np.ndarray,
    data: np.ndarray,
    pb: np.ndarray,
    py: np.ndarray,
    new_off: np.ndarray,
    new_data: np.ndarray,
    new_pb: np.ndarray,
    new_py: np.ndarray,
    narrow: np.ndarray,
) -> None:
    """Every state's ``pmf[x]`` = P(points to come = x) (row i of new_data, at new_off[i])
    = sum over its outcomes of probability x the successor's row (off/ln/data, row
    ``succ``) shifted by the outcome's points; the probabilities of reaching the
    upper bonus and of writing a Yatzy 50 from the state into new_pb / new_py. With
    entries in ``narrow`` (float32, laid out as new_data) each finished row is also
    written there, rounded to float32 as numpy's ``astype`` rounds (while the row is in
    the cache: a copy of the whole layer afterwards, on one thread, cost 1.3-1.7 s of the
    Scandinavian state distributions). A serial kernel: the caller runs shares of the
    states on its threads (as a parallel loop it compiled four times as long, and ran as
    fast)."""
    for i in range(start.size - 1):
        o0 = new_off[i]
        n = new_off[i + 1] - o0
        for x in range(n):
            new_data[o0 + x] = 0.0
        bonus = 0.0
        yatzy = 0.0
        for e in range(start[i], start[i + 1]):
            row = o_succ[e]
            pe = o_pts[e]
            q = o_q[e]
            d = o0 + (pe >> 2)
            src = data[off[row] : off[row] + ln[row]]
            dst = new_data[d : d + src.size]  # slices: the loop is vectorised (indices: not)
            for x in range(src.size):
                dst[x] += q * src[x]
            bonus += q * (1.0 if pe & 1 else pb[row])
            yatzy += q * (1.0 if pe & 2 else py[row])
        new_pb[i] = bonus
        new_py[i] = yatzy
        if narrow.size:
            for x in range(n):
                narrow[o0 + x] = new_data[o0 + x]
