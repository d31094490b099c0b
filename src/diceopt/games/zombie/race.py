"""Two players to the goal (13 brains), rounds and ties (RULES §10), solved exactly.

Between turns the state is (first player's brains a, second player's brains b, whose
turn in the round). A round ends after the second player's turn; once someone has the
goal at the end of a round, the most brains wins and tied leaders play further rounds.
Values are win probabilities (ties cannot last: a round ends in a tie again with
probability below 1).

- ``first[a, b]`` (a, b < goal): the first player's chance at the start of a round;
- ``second[a, b]`` (a, b < goal): the second player's chance at the start of their turn;
- ``behind[d]``: the second player's chance when the first player has reached the goal
  and leads by d >= 0 (only the lead matters: the game ends after this turn unless the
  second player ties it; a tie at or above the goal is the state ``tie``);
- ``tie``: the first player's chance at the start of a round with both players level at
  or above the goal.

Each turn is a ``turn.solve`` with the payoff of each brains total: for the second
player, 1 from the goal on (or from the lead + 1 when behind), else one minus the first
player's chance next round; for the first player, one minus the second player's chance.
Both players ending a round with nothing (or a tie repeating) returns to the same
state: each such cycle is a scalar fixed point x = F(x), F increasing with slope below
1, found by safeguarded Newton steps (slopes from ``turn.solve``) to machine precision.
Between the steps of a cell only the first player's h[0] moves; their turn (the long one)
is solved again only where it leaves the range in which its decisions surely hold
(``TurnValues.first_at``): 901 turn solves for the race to 13 instead of 1,063.
A cell needs only the cells with more points in its row and column: the threads take
each cell as soon as its two neighbours toward the goal are solved
(:func:`diceopt.threads.run_wavefront`; a diagonal a + b at a time left a thread idle on
each diagonal of odd length), the race to 13 in about 4.7 s on 2 cores (7 s before the
reuse).

The lead is counted up to ``lead_cap``: a larger lead is treated as that lead. It only
matters in the one round that ends the game, so it changes any win probability by at
most the chance of gaining ``lead_cap`` brains in one turn, which ``lead_bound``
computes (an exact turn solve) and ``RaceSolution.cap_error`` reports.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from diceopt.errors import SolveError
from diceopt.games.zombie import turn
from diceopt.lazy import numpy as np

ROOT_TOLERANCE = 1e-15  # |F(x) - x| at a cycle's fixed point (probabilities)
MAX_STEPS = 200


def fixed_point(f: Callable[[float], tuple[float, float]], x: float = 0.5) -> tuple[float, int]:
    """The fixed point x = f(x) in [0, 1] of an increasing f with slope below 1 (``f``
    returns the value and its slope), from the guess ``x``: Newton steps kept inside a
    shrinking bracket, bisection where a step leaves it. Returns f(x) at the last x
    evaluated (within ``ROOT_TOLERANCE`` of it) and the evaluations made."""
    lo, hi = 0.0, 1.0
    for step in range(1, MAX_STEPS + 1):
        fx, slope = f(x)
        r = fx - x
        if abs(r) <= ROOT_TOLERANCE:
            return fx, step
        if r > 0:
            lo = x
        else:
            hi = x
        nxt = x + r / (1.0 - slope) if slope < 1.0 else 0.5 * (lo + hi)
        if not lo < nxt < hi:
            nxt = 0.5 * (lo + hi)
        if hi - lo <= 1e-17:
            return fx, step
        x = nxt
    raise SolveError(f"a Zombie Dice cycle did not converge in {MAX_STEPS} steps")


def unit(n: int, i: int, scale: float = 1.0) -> np.ndarray:
    """A vector of n zeros with ``scale`` at i."""
    v = np.zeros(n)
    v[i] = scale
    return v


@dataclass
class RaceSolution:
    """The solved race (see the module docstring); ``seconds``: the solve's time,
    ``turn_solves``: turns solved, ``cap_error``: the lead cap's bound."""

    goal: int
    lead_cap: int
    first: np.ndarray
    second: np.ndarray
    behind: np.ndarray
    tie: float
    seconds: float = 0.0
    turn_solves: int = 0
    cap_error: float = 0.0

    @property
    def value(self) -> float:
        """The first player's chance of winning from 0 to 0."""
        return float(self.first[0, 0])

    def second_payoffs(self, a: int, b: int) -> np.ndarray:
        """The second player's payoff of each brains total of the turn (first player at a,
        second at b): a win probability."""
        g = self.goal
        if a >= g:
            lead = min(a - b, self.lead_cap)
            h = np.zeros(lead + 2)
            h[lead] = 1.0 - self.tie
            h[lead + 1] = 1.0
            return h
        h = np.ones(g - b + 1)
        h[: g - b] = 1.0 - self.first[a, b:g]
        return h

    def first_payoffs(self, a: int, b: int) -> np.ndarray:
        """The first player's payoff of each brains total (a, b: the scores; a = b >= goal:
        a tie round)."""
        g = self.goal
        if a >= g:
            return 1.0 - self.behind[: self.lead_cap + 1]
        top = max(b + self.lead_cap, g)  # the total from which more brains change nothing
        totals = np.arange(a, top + 1)
        h = np.empty(len(totals))
        low = totals < g
        h[low] = 1.0 - self.second[totals[low], b]
        h[~low] = 1.0 - self.behind[np.minimum(totals[~low] - b, self.lead_cap)]
        return h


def lead_bound(lead_cap: int) -> float:
    """The most likely a player gains ``lead_cap`` brains or more in one turn (exact)."""
    h = np.zeros(lead_cap + 1)
    h[lead_cap] = 1.0
    return turn.solve(h).first


def solve_race(goal: int, lead_cap: int) -> RaceSolution:
    """Solve the race to ``goal`` brains (leads counted up to ``lead_cap``)."""
    from diceopt.threads import run_wavefront  # numba: only once a race is solved

    t0 = time.perf_counter()
    sol = RaceSolution(
        goal,
        lead_cap,
        np.zeros((goal, goal)),
        np.zeros((goal, goal)),
        np.zeros(lead_cap + 1),
        0.0,
    )
    count = [0]

    def run(h: np.ndarray, hd: np.ndarray) -> turn.TurnValues:
        count[0] += 1
        return turn.solve(h, hd)

    def tie_round(x: float) -> tuple[float, float]:
        # the second player's chance behind by d (a tie is worth 1 - x to them): behind
        # by d >= 1, a turn is the turn behind by the cap with cap - d brains counted
        # already (a bust pays 0 either way), so one solve gives them all
        sol.tie = x
        slopes = np.empty(lead_cap + 1)
        h = sol.second_payoffs(goal, goal)
        tv = run(h, unit(len(h), 0, -1.0))
        sol.behind[0], slopes[0] = tv.first, tv.first_slope
        h = sol.second_payoffs(goal + lead_cap, goal)
        tv = run(h, unit(len(h), lead_cap, -1.0))
        for d in range(1, lead_cap + 1):
            sol.behind[d] = tv.opening(lead_cap - d)
            slopes[d] = tv.opening(lead_cap - d, slope=True)
        tv = run(sol.first_payoffs(goal, goal), -slopes)
        return tv.first, tv.first_slope

    # each evaluation leaves the tables at its x, within ROOT_TOLERANCE of the fixed point
    sol.tie, _ = fixed_point(tie_round)
    # a cell (a, b) reads only cells (a, b' > b) and (a' > a, b): it is solved once
    # (a, b + 1) and (a + 1, b) are (the threads take the cells as they become ready; the
    # turn kernel releases the GIL), from its neighbours' values (a good start)
    solves = np.zeros((goal, goal), dtype=np.int64)  # turn solves of each cell

    def cell(a: int, b: int) -> None:
        # the first player's payoffs change from one evaluation to the next only in h1[0]
        # (1 - the second player's chance at (a, b), a bust's payoff too): their turn,
        # the long one (a lead counts up to lead_cap), is solved again only where the
        # decisions of the last solve may not hold (TurnValues.first_at)
        h1 = sol.first_payoffs(a, b)
        last: list[turn.TurnValues] = []

        def round_from(x: float) -> tuple[float, float]:
            sol.first[a, b] = x
            h2 = sol.second_payoffs(a, b)
            second = turn.solve(h2, unit(len(h2), 0, -1.0))
            sol.second[a, b] = second.first
            y = 1.0 - second.first
            value = last[0].first_at((y - last[0].h[0]) / last[0].hd0) if last else None
            if value is None:
                h1[0] = y
                last[:] = [turn.solve(h1.copy(), unit(len(h1), 0, 1.0))]
                solves[a, b] += 1
                value = last[0].first
            solves[a, b] += 1
            # d/dx of the first player's chance: along h1[0], which moves by -second's slope
            return value, -last[0].first_slope * second.first_slope

        first = sol.first
        if a + 1 < goal and b + 1 < goal:  # the neighbours' plane: a closer start
            guess = first[a, b + 1] + first[a + 1, b] - first[a + 1, b + 1]
            guess = min(1.0, max(0.0, guess))
        else:
            guess = first[a, b + 1] if b + 1 < goal else first[a + 1, b] if a + 1 < goal else 0.5
        sol.first[a, b], _ = fixed_point(round_from, float(guess))

    run_wavefront(goal, goal, cell)  # each cell once the two beside it toward the goal
    count[0] += int(solves.sum())
    sol.turn_solves = count[0]
    sol.cap_error = lead_bound(lead_cap)
    sol.seconds = time.perf_counter() - t0
    return sol
