"""The numba kernel of the one-player push-your-luck solve (see
``diceopt.games.families.push_luck_solo``): one turn's backward induction over the turn
total. Imported only when a turn is solved, so that a stored solution loads without numba.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def turn_kernel(
    outcome_start: np.ndarray,
    outcome_prob: np.ndarray,
    option_start: np.ndarray,
    option_points: np.ndarray,
    option_dice: np.ndarray,
    dice: int,
    cap: int,
    span: int,
    bank_min: int,
    step: float,
    bank_add: float,
    bust_value: float,
    tail: np.ndarray,
    fixed_bank_at: np.ndarray,
    value: np.ndarray,
    roll: np.ndarray,
    points: np.ndarray,
    busts: np.ndarray,
    t_top: int,
    t_stop: int,
) -> None:
    """Backward induction over the turn total t (steps) of one turn, for t = t_top down to
    t_stop + 1 (a slice: the rows above it already filled in; the whole turn is t =
    span - 1 down to 0), into ``value``, ``roll``, ``points`` and ``busts`` (span x dice + 1).

    Terminal values: banking t steps is worth t * step + bank_add, a bust bust_value.
    Fills value[t, n] (the best of bank and roll with n dice to roll), roll[t, n] (the
    value of rolling), points[t, n] (expected points banked) and busts[t, n] (bust
    probability) under the chosen decisions, for t = 0..span-1 (rows above ``cap``: bank
    when the dice can bust, else roll; ``tail[n]``: the expected points of that). With
    ``fixed_bank_at[1] >= 0`` the decisions are fixed instead: bank at t >=
    fixed_bank_at[n] (and t >= bank_min), set aside the most points.
    """
    fixed = fixed_bank_at[1] >= 0
    for t in range(t_top, t_stop, -1):
        bank = t * step + bank_add
        for n in range(1, dice + 1):
            if t > cap:
                value[t, n] = bank + tail[n]
                roll[t, n] = value[t, n]
                points[t, n] = t * step + tail[n]
                continue
            r = 0.0
            e = 0.0
            b = 0.0
            for o in range(outcome_start[n], outcome_start[n + 1]):
                p = outcome_prob[o]
                lo = option_start[o]
                hi = option_start[o + 1]
                if lo == hi:
                    r += p * bust_value
                    b += p
                    continue
                best = lo
                best_v = -1e300
                for k in range(lo, hi):
                    nd = option_dice[k] if option_dice[k] > 0 else dice
                    tt = min(t + option_points[k], span - 1)
                    v = option_points[k] if fixed else value[tt, nd]
                    if v > best_v:
                        best_v = v
                        best = k
                nd = option_dice[best] if option_dice[best] > 0 else dice
                tt = min(t + option_points[best], span - 1)
                r += p * value[tt, nd]
                e += p * points[tt, nd]
                b += p * busts[tt, nd]
            roll[t, n] = r
            may_bank = t >= bank_min and t > 0
            if fixed:
                banks = may_bank and t >= fixed_bank_at[n]
            else:
                banks = may_bank and bank >= r
            if banks:
                value[t, n] = bank
                points[t, n] = t * step
                busts[t, n] = 0.0
            else:
                value[t, n] = r
                points[t, n] = e
                busts[t, n] = b
