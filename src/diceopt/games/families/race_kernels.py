"""The numba kernels of the two-player race solver (see ``diceopt.games.families.race``).

The loops over the pairs of one sum (and over Pig's rows of roll values) are serial
``nogil`` shares run on the threads (:mod:`diceopt.threads`): compiled in a third of the
time of the ``prange`` loops they replace, and as fast or faster (the Farkle solve 8.0 s
against 8.9 s on 2 cores, Pig's roll values 6.8 s against 9.6 s).

Scores are in scoring steps; ``goal`` is the goal in steps. A roll of ``n`` dice is a list
of outcome groups (outcomes with the same options merged, their probabilities summed):
group ``g`` of ``n`` dice is ``group_start[n] <= g < group_start[n + 1]`` with probability
``group_prob[g]`` and options ``option_start[g]:option_start[g + 1]`` (points set aside,
dice to roll next: the hot-dice 0 already replaced by all the dice); ``bust[n]`` is the
probability that a roll of ``n`` dice scores nothing.

One turn of the mover with ``rem`` steps to go: decision states (turn total t >= 1, dice
to roll n) choose bank or roll; after a roll the best option is taken; a turn total of
``rem`` or more wins at once (value 1). ``turn`` evaluates one turn backwards in t: the
*choice* values decide (the mover's own values, or a given table ``given``/``gbank`` for
a fixed policy such as maximising the expected score), and the *evaluation* follows
those choices as an affine function ``a + b z`` of the value ``z`` of a bust (which is
the unknown that couples the two players' turn starts).

Every kernel takes the roll table as one tuple ``r`` = (group_start, group_prob,
option_start, option_points, option_dice, bust, dice) (``RaceRolls.arrays()``).
"""

from __future__ import annotations

import numba
import numpy as np

from diceopt.threads import run_shares, threads

Arr = np.ndarray  # every array argument: see the module docstring
Rolls = tuple  # (gs, gp, os_, op, od, bust, dice): see the module docstring

WIN_KEY = 1e300  # the choice key of an option that reaches the goal (a fixed policy takes it)


@numba.njit(cache=True)
def roll_value(
    r: Rolls, n: int, t: int, rem: int, z: float, v: Arr, given: Arr, use_given: bool
) -> tuple[float, float, float]:
    """(choice value, a, b) of rolling ``n`` dice at turn total ``t`` (see the module
    docstring): each outcome group takes its best option by the choice values.
    ``v[t, n]`` holds (choice, a, b) of the decision states already evaluated."""
    gs, gp, os_, op, od, bust, _ = r
    cr = bust[n] * z
    ar = 0.0
    br = bust[n]
    for g in range(gs[n], gs[n + 1]):
        best_key = -1.0
        best = -1
        for k in range(os_[g], os_[g + 1]):
            t2 = t + op[k]
            if t2 >= rem:
                best = -2  # reaching the goal wins: nothing beats it
                break
            key = given[t2, od[k]] if use_given else v[t2, od[k], 0]
            if key > best_key:
                best_key = key
                best = k
        p = gp[g]
        if best == -2:
            cr += p
            ar += p
        else:
            t2 = t + op[best]
            d = od[best]
            cr += p * v[t2, d, 0]
            ar += p * v[t2, d, 1]
            br += p * v[t2, d, 2]
    return cr, ar, br


@numba.njit(cache=True)
def turn(
    r: Rolls,
    rem: int,
    bank_choice: Arr,
    bank_eval: Arr,
    z: float,
    given: Arr,
    gbank: Arr,
    v: Arr,
) -> tuple[float, float, float]:
    """Fill v[t, n] = (choice, a, b) for one turn (t < rem) and return the turn start's.

    ``bank_choice[t]``/``bank_eval[t]``: the mover's value of banking turn total t (for
    choosing / evaluating); ``z``: the choice value of a bust; ``given``/``gbank`` (used
    when ``given`` has rows): a fixed policy's state values and bank flags [t, n]. Ties
    between bank and roll go to bank; between options, to the first (more dice left).
    """
    dice = r[6]
    use_given = given.shape[0] > 0
    for t in range(rem - 1, 0, -1):
        for n in range(1, dice + 1):
            cr, ar, br = roll_value(r, n, t, rem, z, v, given, use_given)
            bank = gbank[t, n] if use_given else bank_choice[t] >= cr
            if bank:
                v[t, n, 0] = bank_choice[t]
                v[t, n, 1] = bank_eval[t]
                v[t, n, 2] = 0.0
            else:
                v[t, n, 0] = cr
                v[t, n, 1] = ar
                v[t, n, 2] = br
    # int(0): numba types it int64, not a literal (a compiled variant of its own)
    return roll_value(r, dice, int(0), rem, z, v, given, use_given)  # noqa: UP018


@numba.njit(cache=True)
def bank_values(w: Arr, goal: int, i: int, j: int, out: Arr) -> None:
    """out[t] = 1 - w[j, i + t] for 1 <= t < goal - i: the mover's (at i against j)
    value of banking t when the other player's values are ``w``."""
    for t in range(1, goal - i):
        out[t] = 1.0 - w[j, i + t]


@numba.njit(cache=True)
def own_turn(
    r: Rolls, goal: int, w: Arr, i: int, j: int, z: float, v: Arr, bank: Arr
) -> tuple[float, float, float]:
    """The mover's optimal turn at (i, j) against the solved ``w`` for banking."""
    bank_values(w, goal, i, j, bank)
    empty = np.empty((0, 0))
    flags = np.empty((0, 0), dtype=np.bool_)
    return turn(r, goal - i, bank, bank, z, empty, flags, v)


@numba.njit(cache=True)
def guess(
    w: Arr,
    goal: int,
    i: int,
    j: int,
) -> float:
    """A first guess of w[i, j] from the solved neighbours (i + 1, j), (i, j + 1) and
    (i + 1, j + 1): a plane through them."""
    up = w[i + 1, j] if i + 1 < goal else 1.0
    right = w[i, j + 1] if j + 1 < goal else 0.0
    if i + 1 < goal and j + 1 < goal:
        g = up + right - w[i + 1, j + 1]
        return min(1.0, max(0.0, g))
    return up


def solve_sums(
    r: Rolls,
    goal: int,
    tol: float,
    max_iter: int,
    w: Arr,
    top: int,
    stop: int,
    counts: Arr,
    residual: Arr,
) -> None:
    """W[i, j]: the win probability of the mover at the start of a turn with i banked
    against j (steps, both < goal), both players optimal, for the pairs with i + j from
    ``top`` down to ``stop`` (excluded), those of larger sums solved already: a solve is
    a run of these calls from 2 goal - 2 down to -1 (Ctrl-C is seen between two).

    Pairs are solved in decreasing i + j, the pairs of one sum at once on the threads
    (:func:`_pairs_share`). Adds to ``counts`` (turn passes, decision states visited; the
    rounds of the slowest pair as a maximum) and ``residual[0]`` (the largest final
    residual, as a maximum).
    """
    for s in range(top, stop, -1):
        count = s // 2 - max(0, s - (goal - 1)) + 1
        p_passes = np.zeros(count, dtype=np.int64)
        p_states = np.zeros(count, dtype=np.int64)
        p_rounds = np.zeros(count, dtype=np.int64)
        p_resid = np.zeros(count)
        shares = min(count, threads())

        def share(t: int, s: int = s, shares: int = shares, p_passes: Arr = p_passes,
                  p_states: Arr = p_states, p_rounds: Arr = p_rounds,
                  p_resid: Arr = p_resid) -> None:  # fmt: skip
            _pairs_share(
                r, goal, tol, max_iter, w, s, t, shares, p_passes, p_states, p_rounds, p_resid
            )

        run_shares(share, shares)
        counts[0] += p_passes.sum()
        counts[1] += p_states.sum()
        counts[2] = max(counts[2], p_rounds.max())
        residual[0] = max(residual[0], p_resid.max())


@numba.njit(cache=True, nogil=True)
def _pairs_share(
    r: Rolls,
    goal: int,
    tol: float,
    max_iter: int,
    w: Arr,
    s: int,
    t: int,
    nthreads: int,
    p_passes: Arr,
    p_states: Arr,
    p_rounds: Arr,
    p_resid: Arr,
) -> None:
    """The pairs p = t, t + nthreads, ... of sum ``s`` (i = max(0, s - goal + 1) + p, j =
    s - i, i <= j): one thread's share of :func:`solve_sums`. The pair (i, j), (j, i) by
    policy iteration on its 2-cycle (a bust hands the turn over): each round evaluates
    both turns at the current guesses and solves the 2x2 linear system of the affine
    pieces, until both guesses reproduce themselves within ``tol``."""
    dice = r[6]
    lo = max(0, s - (goal - 1))
    count = s // 2 - lo + 1
    vals = np.empty((goal + 1, dice + 1, 3))
    bank = np.empty(goal + 1)
    for p in range(t, count, nthreads):
        i = lo + p
        j = s - i
        u = guess(w, goal, i, j)
        v = guess(w, goal, j, i)
        if i == j:
            v = u
        rounds = 0
        resid = 1.0
        while rounds < max_iter:
            rounds += 1
            _, a1, b1 = own_turn(r, goal, w, i, j, 1.0 - v, vals, bank)
            p_passes[p] += 1
            p_states[p] += (goal - i - 1) * dice + 1
            if i == j:
                resid = abs(a1 + b1 * (1.0 - u) - u)
                nu = (a1 + b1) / (1.0 + b1)
                if resid <= tol:
                    break
                u = nu
                v = nu
                continue
            _, a2, b2 = own_turn(r, goal, w, j, i, 1.0 - u, vals, bank)
            p_passes[p] += 1
            p_states[p] += (goal - j - 1) * dice + 1
            resid = max(abs(a1 + b1 * (1.0 - v) - u), abs(a2 + b2 * (1.0 - u) - v))
            if resid <= tol:
                break
            nu = (a1 + b1 - b1 * (a2 + b2)) / (1.0 - b1 * b2)
            v = a2 + b2 * (1.0 - nu)
            u = nu
        w[i, j] = u
        w[j, i] = v
        p_rounds[p] = rounds
        p_resid[p] = resid


@numba.njit(cache=True)
def turn_tables(r: Rolls, goal: int, w: Arr, i: int, j: int) -> tuple[Arr, float]:
    """The optimal turn at (i, j) given the solved ``w``: the decision values c[t, n]
    (win probability, t < goal - i) and the turn start's value."""
    v = np.zeros((goal + 1, r[6] + 1, 3))
    bank = np.empty(goal + 1)
    start, _, _ = own_turn(r, goal, w, i, j, 1.0 - w[j, i], v, bank)
    return v[:, :, 0].copy(), start


@numba.njit(cache=True)
def pair_roll_values(
    r: Rolls, goal: int, w: Arr, i: int, j: int, v: Arr, bank: Arr, out: Arr
) -> None:
    """out[t, n - 1]: the mover's win probability rolling ``n`` dice at turn total t (t <
    goal - i; 0: the turn start) at (i, j), both optimal from then on (``w`` solved);
    ``v``, ``bank``: scratch of ``own_turn``'s shapes."""
    z = 1.0 - w[j, i]
    own_turn(r, goal, w, i, j, z, v, bank)
    empty = np.empty((0, 0))
    for t in range(goal - i):
        for n in range(1, r[6] + 1):
            out[t, n - 1] = roll_value(r, n, t, goal - i, z, v, empty, False)[0]


@numba.njit(cache=True)
def turn_roll_values(r: Rolls, goal: int, w: Arr, i: int, j: int) -> Arr:
    """roll[t, n - 1] of ``pair_roll_values`` for one pair (nan from t = goal - i on)."""
    out = np.full((goal, r[6]), np.nan)
    v = np.zeros((goal + 1, r[6] + 1, 3))
    bank = np.empty(goal + 1)
    pair_roll_values(r, goal, w, i, j, v, bank, out)
    return out


def roll_values(r: Rolls, goal: int, w: Arr) -> Arr:
    """roll[i, j, t, n - 1] of ``pair_roll_values`` for every pair (i, j) (nan from t =
    goal - i on): goal³ x dice values, for games with small goals (Pig); the rows i on
    the threads."""
    out = np.full((goal, goal, goal, r[6]), np.nan)
    shares = min(goal, threads())
    run_shares(lambda t: _roll_values_share(r, goal, w, out, t, shares), shares)
    return out


@numba.njit(cache=True, nogil=True)
def _roll_values_share(r: Rolls, goal: int, w: Arr, out: Arr, t: int, nthreads: int) -> None:
    """The rows i = t, t + nthreads, ... of :func:`roll_values` into ``out``."""
    dice = r[6]
    v = np.zeros((goal + 1, dice + 1, 3))
    bank = np.empty(goal + 1)
    for i in range(t, goal, nthreads):
        for j in range(goal):
            pair_roll_values(r, goal, w, i, j, v, bank, out[i, j])


@numba.njit(cache=True)
def max_score(r: Rolls, top: int) -> tuple[Arr, Arr]:
    """The expected turn score (steps) of the policy that maximises it, m[t, n] for turn
    totals t <= top (banking assumed from ``top`` on), and its bank flags."""
    gs, gp, os_, op, od, _, dice = r
    m = np.zeros((top + 1, dice + 1))
    flag = np.zeros((top + 1, dice + 1), dtype=np.bool_)
    for t in range(top, -1, -1):
        for n in range(1, dice + 1):
            roll = 0.0
            for g in range(gs[n], gs[n + 1]):
                best = -1.0
                for k in range(os_[g], os_[g + 1]):
                    t2 = t + op[k]
                    v = m[t2, od[k]] if t2 <= top else float(t2)
                    if v > best:
                        best = v
                roll += gp[g] * best
            if t == top or t >= roll:
                m[t, n] = t
                flag[t, n] = True
            else:
                m[t, n] = roll
    return m, flag


def versus_fixed(r: Rolls, goal: int, w: Arr, given: Arr, gbank: Arr) -> tuple[Arr, Arr]:
    """Player A (optimal policy of ``w``) against player B (the fixed policy
    ``given``/``gbank``): x[i, j] = P(A wins) with A to move, A at i, B at j; y[j, i] =
    P(B wins) with B to move. Both policies fixed: each pair is a 2x2 linear system; the
    pairs of one sum i + j at once on the threads."""
    x = np.zeros((goal, goal))
    y = np.zeros((goal, goal))
    for s in range(2 * goal - 2, -1, -1):
        count = min(s, goal - 1) - max(0, s - (goal - 1)) + 1
        shares = min(count, threads())

        def share(t: int, s: int = s, shares: int = shares) -> None:
            _versus_share(r, goal, w, given, gbank, x, y, s, t, shares)

        run_shares(share, shares)
    return x, y


@numba.njit(cache=True, nogil=True)
def _versus_share(
    r: Rolls, goal: int, w: Arr, given: Arr, gbank: Arr, x: Arr, y: Arr, s: int, t: int,
    nthreads: int,
) -> None:  # fmt: skip
    """The pairs p = t, t + nthreads, ... of sum ``s`` of :func:`versus_fixed`."""
    empty = np.empty((0, 0))
    flags = np.empty((0, 0), dtype=np.bool_)
    lo = max(0, s - (goal - 1))
    hi = min(s, goal - 1)
    vals = np.empty((goal + 1, r[6] + 1, 3))
    choice = np.empty(goal + 1)
    ev = np.empty(goal + 1)
    for p in range(t, hi - lo + 1, nthreads):
        i = lo + p
        j = s - i
        bank_values(w, goal, i, j, choice)
        bank_values(y, goal, i, j, ev)
        _, a1, b1 = turn(r, goal - i, choice, ev, 1.0 - w[j, i], empty, flags, vals)
        bank_values(x, goal, j, i, ev)
        _, a2, b2 = turn(r, goal - j, ev, ev, 0.0, given, gbank, vals)
        # x = a1 + b1 (1 - y), y = a2 + b2 (1 - x)
        xv = (a1 + b1 - b1 * (a2 + b2)) / (1.0 - b1 * b2)
        x[i, j] = xv
        y[j, i] = a2 + b2 * (1.0 - xv)


@numba.njit(cache=True)
def simulate_race(
    r: Rolls, goal: int, w: Arr, start_opp: int, games: int, seed: int, cum: Arr
) -> Arr:
    """Seeded games of the optimal policy against itself from (0, start_opp): the first
    player's wins (1 or 0 per game). ``cum``: cumulative group probabilities per number
    of dice (busts last). Turn tables are computed once per (i, j) met and kept."""
    gs, _, os_, op, od, _, dice = r
    np.random.seed(seed)
    out = np.zeros(games)
    tables = {}
    for game in range(games):
        score = np.array([0, start_opp])
        mover = 0
        while True:
            i = score[mover]
            j = score[1 - mover]
            key = i * goal + j
            if key not in tables:
                tables[key] = turn_tables(r, goal, w, i, j)[0]
            c = tables[key]
            rem = goal - i
            t = 0
            n = dice
            won = False
            while True:
                u = np.random.random()
                g = gs[n]
                while g < gs[n + 1] and u >= cum[g]:
                    g += 1
                if g == gs[n + 1]:  # a bust
                    t = 0
                    break
                best = -1.0
                bt = 0
                bd = 0
                for k in range(os_[g], os_[g + 1]):
                    t2 = t + op[k]
                    v = 1.0 if t2 >= rem else c[t2, od[k]]
                    if v > best:
                        best, bt, bd = v, t2, od[k]
                t, n = bt, bd
                if t >= rem:
                    won = True
                    break
                if 1.0 - w[j, i + t] >= c[t, n]:
                    break  # bank
            if won:
                out[game] = 1.0 if mover == 0 else 0.0
                break
            score[mover] += t
            mover = 1 - mover
    return out
