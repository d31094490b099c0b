"""Zombie Dice's numba kernels (``cache=True``): the roll's transitions and the turn's
backward induction. Imported only by the functions that run them."""

from __future__ import annotations

import numpy as np
from numba import njit

# a bank-or-roll margin this small against the values (relative) may have its sign from
# rounding: the turn then reports no step along which its decisions are sure to hold
MARGIN_ROUNDING = 1e-12


@njit(cache=True)
def choose(n: int, k: int) -> float:
    """Binomial coefficient as a float (0 outside 0 <= k <= n)."""
    if k < 0 or k > n:
        return 0.0
    r = 1.0
    for i in range(k):
        r = r * (n - i) / (i + 1)
    return r


@njit(cache=True)
def build_rolls(configs, index, total, faces):  # noqa: ANN001, ANN201
    """Outcomes of one roll from every configuration, CSR: two passes (count, fill)."""
    n = configs.shape[0]
    start = np.zeros(n + 1, dtype=np.int64)
    bust = np.zeros(n)
    selfp = np.zeros(n)
    cap = n * 300
    nxt = np.empty(cap, dtype=np.int64)
    brains = np.empty(cap, dtype=np.int64)
    prob = np.empty(cap)
    e = 0
    for c in range(n):
        start[c] = e
        shot = configs[c, 0:3]
        feet = configs[c, 3:6]
        aside = configs[c, 6:9]
        cup = total - shot - feet - aside
        k = 3 - feet.sum()
        pool = cup.copy()
        kept = aside.copy()
        if cup.sum() < k:  # the brain dice set aside go back into the cup
            pool = cup + aside
            kept[:] = 0
        ways = choose(pool.sum(), k)
        nshot = shot.sum()
        for dg in range(min(k, pool[0]) + 1):
            for dy in range(min(k - dg, pool[1]) + 1):
                dr = k - dg - dy
                if dr > pool[2]:
                    continue
                pdraw = choose(pool[0], dg) * choose(pool[1], dy) * choose(pool[2], dr) / ways
                rg = feet[0] + dg
                ry = feet[1] + dy
                rr = feet[2] + dr
                rolled = (rg, ry, rr)
                # faces of each colour: brains b, shotguns s, footprints the rest
                for bg in range(rg + 1):
                    for sg in range(rg - bg + 1):
                        for by in range(ry + 1):
                            for sy in range(ry - by + 1):
                                for br in range(rr + 1):
                                    for sr in range(rr - br + 1):
                                        b = (bg, by, br)
                                        s = (sg, sy, sr)
                                        p = pdraw
                                        for i in range(3):
                                            f = rolled[i] - b[i] - s[i]
                                            p *= (
                                                choose(rolled[i], b[i])
                                                * choose(rolled[i] - b[i], s[i])
                                                * faces[i, 0] ** b[i]
                                                * faces[i, 1] ** s[i]
                                                * faces[i, 2] ** f
                                                / 6.0 ** rolled[i]
                                            )
                                        if nshot + sg + sy + sr >= 3:
                                            bust[c] += p
                                            continue
                                        key = 0
                                        for i in range(3):
                                            key = key * 3 + shot[i] + s[i]
                                        for i in range(3):
                                            key = key * 4 + rolled[i] - b[i] - s[i]
                                        for i in range(3):
                                            key = key * (total[i] + 1) + kept[i] + b[i]
                                        target = index[key]
                                        if target == c and bg + by + br == 0:
                                            selfp[c] += p
                                            continue
                                        nxt[e] = target
                                        brains[e] = bg + by + br
                                        prob[e] = p
                                        e += 1
    start[n] = e
    return start, nxt[:e].copy(), brains[:e].copy(), prob[:e].copy(), bust, selfp


@njit(cache=True, nogil=True)
def solve_turn(start, packed, probs, bust, selfp, order, aside, shots, h, hd, extra, fixed):  # noqa: ANN001, ANN201, E501
    """Backward induction over one turn: ``values[g, c]`` is the value of the decision
    (bank or roll) in configuration c with g brains this turn, for a payoff ``h[g]``
    when the turn ends with g brains (a bust pays ``h[0]``); states with g >= cap =
    len(h) - 1 are worth ``h[cap] + extra[shots]``. ``slopes``: the derivative of each
    value along ``hd`` (a change of the payoffs) under the chosen decisions. ``fixed[c]``:
    -1 decide, 0 always roll, 1 always bank. Ties bank. Order: brains descending, then
    ``order`` (shotguns, then footprint dice in hand, descending), so every outcome
    other than the self-loop is done before its state. ``packed[e]``: outcome e's
    successor as ``brains * n + next`` (its place after row g of the flat tables) in the
    low 16 bits, the index of its probability in ``probs`` in the high 16
    (:func:`diceopt.games.zombie.turn.packed_outcomes`).
    Returns values and slopes (strided views of one array), the value and slope of the
    turn's first roll, and the steps ``lo <= 0 <= hi`` along ``hd`` over which every
    decision made stays best (each bank-or-roll margin keeps its sign; the values are
    linear in the payoffs while the decisions hold, so at ``h + t hd`` for lo <= t <= hi
    they are ``values + t slopes``; a margin within rounding of 0 gives lo = hi = 0)."""
    cap = len(h) - 1
    n = len(start) - 1
    # rows cap + 1 .. cap + 3 repeat row cap (at most 3 brains a roll): g + brains needs
    # no clamp. Each value sits beside its slope, so an outcome's two reads share one
    # cache line (7% faster than two tables, measured at 78 rows)
    both = np.zeros((cap + 4, n, 2))
    for g in range(cap, cap + 4):
        for c in range(n):
            both[g, c, 0] = h[cap] + extra[shots[c]]
            both[g, c, 1] = hd[cap]
    flat = both.reshape(-1)
    lo, hi = -np.inf, np.inf
    for g in range(cap - 1, -1, -1):
        row = g * n
        for i in range(n):
            c = order[i]
            if aside[c] > g:
                continue  # cannot occur: every brain die set aside counts
            roll = bust[c] * h[0]
            droll = bust[c] * hd[0]
            for e in range(start[c], start[c + 1]):
                w = packed[e]
                at = 2 * (row + (w & 0xFFFF))
                q = probs[w >> 16]
                roll += q * flat[at]
                droll += q * flat[at + 1]
            roll /= 1.0 - selfp[c]
            droll /= 1.0 - selfp[c]
            bank = fixed[c] == 1 or (fixed[c] == -1 and h[g] >= roll)
            dm = hd[g] - droll  # the margin bank - roll moves by dm per step along hd
            if fixed[c] == -1 and dm != 0.0:  # (a margin that does not move keeps its sign)
                m = h[g] - roll
                if abs(m) <= MARGIN_ROUNDING * (abs(h[g]) + abs(roll)):
                    lo, hi = 0.0, 0.0  # a tie within rounding: no step is safe
                else:
                    step = -m / dm  # where the margin crosses 0
                    if step > 0.0:
                        hi = min(hi, step)
                    else:
                        lo = max(lo, step)
            if bank:
                both[g, c, 0] = h[g]
                both[g, c, 1] = hd[g]
            else:
                both[g, c, 0] = roll
                both[g, c, 1] = droll
    first = 0  # the empty configuration: the turn's first roll (forced)
    v0 = bust[first] * h[0]
    d0 = bust[first] * hd[0]
    for e in range(start[first], start[first + 1]):
        w = packed[e]
        q = probs[w >> 16]
        v0 += q * flat[2 * (w & 0xFFFF)]
        d0 += q * flat[2 * (w & 0xFFFF) + 1]
    return both[: cap + 1, :, 0], both[: cap + 1, :, 1], v0, d0, lo, hi
