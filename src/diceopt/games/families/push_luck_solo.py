"""One player of the push-your-luck family: the maximum long-run expected score per turn.

An infinite sequence of turns; the state carried between turns is the number of busts in
a row (the streak, 0..bust_streak-1; the bust that completes ``bust_streak`` costs
``bust_penalty`` banked points and starts the count again). An average-reward MDP: the
gain g (points per turn) and relative values h(streak) (points, h(0) = 0) satisfy

    g + h(s) = max over turn policies [ E(points banked, less the penalty) + E h(s') ].

Within a turn, with the turn's terminal values fixed (banking t points: t + h(0); a
bust: h(s') less the penalty), the turn is an optimal-stopping problem over (turn total
t in steps, dice to roll n); every set-aside scores, so t grows with every roll and
backward induction over t is exact, from a cap (:func:`turn_cap`) at and above which the
turn banks whenever the dice to roll can bust and rolls when they cannot (tests check
that raising the cap changes nothing). Policy iteration on the streak chain (greedy turn
policies for the h of the last evaluation, then the 3-by-3 linear evaluation) stops when
g and h repeat; the Bellman residual is then reported (about 1e-12).

Values of a position are in "turn worth" terms: the expected points of the rest of the
turn plus E h(streak after) - h(streak before), so every turn start is worth g.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from diceopt.errors import InputError, SolveError
from diceopt.games.families.push_luck import (
    PushLuckRules,
    RollTable,
    compile_rolls,
    max_roll_points,
    turn_cap,
)
from diceopt.interrupt import run_chunks

TAIL_TOLERANCE = 1e-14
POLICY_ITERATIONS_MAX = 50


def bust_chance(table: RollTable, n: int) -> float:
    """The probability that a roll of n dice is a bust."""
    lo, hi = table.outcome_start[n], table.outcome_start[n + 1]
    empty = table.option_start[lo + 1 : hi + 1] == table.option_start[lo:hi]
    return float(table.outcome_prob[lo:hi][empty].sum())


def never_bust(rules: PushLuckRules) -> list[int]:
    """The dice counts from which a player can roll on forever without a bust risk (every
    roll of them has a set-aside leaving such a count): empty for a game that must end."""
    table = compile_rolls(rules)
    safe = {n for n in range(1, rules.dice + 1) if bust_chance(table, n) == 0.0}
    while True:
        keep = set()
        for n in safe:
            ok = True
            for o in range(table.outcome_start[n], table.outcome_start[n + 1]):
                opts = range(table.option_start[o], table.option_start[o + 1])
                if not any((table.option_dice[k] or rules.dice) in safe for k in opts):
                    ok = False
                    break
            if ok:
                keep.add(n)
        if keep == safe:
            return sorted(safe)
        safe = keep


def tail_points(rules: PushLuckRules) -> np.ndarray:
    """Expected further points (points) above the cap, by dice to roll: 0 where the dice
    can bust (bank), else the points of rolling on while the dice cannot bust."""
    table = compile_rolls(rules)
    if never_bust(rules):
        raise InputError(f"{rules.name}: a player can roll forever without risk (unbounded)")
    safe = [n for n in range(1, rules.dice + 1) if bust_chance(table, n) == 0.0]
    tail = np.zeros(rules.dice + 1)
    for _ in range(10_000):
        new = np.zeros_like(tail)
        for n in safe:
            for o in range(table.outcome_start[n], table.outcome_start[n + 1]):
                best = 0.0
                for k in range(table.option_start[o], table.option_start[o + 1]):
                    nd = table.option_dice[k] or rules.dice
                    best = max(best, table.option_points[k] * rules.step + tail[nd])
                new[n] += table.outcome_prob[o] * best
        if np.max(np.abs(new - tail)) <= TAIL_TOLERANCE * max(1.0, np.max(new)):
            return new
        tail = new
    raise SolveError(f"{rules.name}: the points above the cap do not converge")


@dataclass(frozen=True)
class TurnSolution:
    """One streak's turn: arrays indexed [t (steps), n (dice to roll)] as the kernel
    returns them (points, in turn-worth terms: see the module docstring)."""

    value: np.ndarray
    roll: np.ndarray
    points: np.ndarray
    busts: np.ndarray


@dataclass(frozen=True)
class SoloSolution:
    """The long-run solution: gain (points per turn), relative values h by streak
    (points, h[0] = 0), each streak's turn arrays, and how it was found."""

    rules: PushLuckRules
    gain: float
    h: tuple[float, ...]
    turns: tuple[TurnSolution, ...]
    cap: int
    iterations: int
    residual: float

    def banks(self, streak: int, n: int) -> np.ndarray:
        """Whether optimal play banks at each turn total 0..cap (steps) with n dice to
        roll after ``streak`` busts in a row (as the kernel decides: a tie banks)."""
        t = np.arange(self.cap + 1)
        bank = t * self.rules.step + self.bank_add(streak)
        allowed = (t >= self.bank_min_steps) & (t > 0)
        return allowed & (bank >= self.turns[streak].roll[: self.cap + 1, n])

    def bank_at(self, streak: int, n: int) -> int | None:
        """The least turn total (points) at which optimal play banks with n dice to roll
        after ``streak`` busts in a row (None: it never banks below the cap)."""
        where = np.flatnonzero(self.banks(streak, n))
        return int(where[0]) * self.rules.step if len(where) else None

    def rolls_above(self, streak: int, n: int) -> list[int]:
        """Turn totals (points) above ``bank_at`` at which optimal play still rolls."""
        banks = self.banks(streak, n)
        where = np.flatnonzero(banks)
        if not len(where):
            return []
        return [int(t) * self.rules.step for t in np.flatnonzero(~banks) if t > where[0]]

    @property
    def bank_min_steps(self) -> int:
        """The bank minimum in steps (rounded up)."""
        return -(-self.rules.bank_minimum // self.rules.step)

    def bank_add(self, streak: int) -> float:
        """What banking adds to the turn total in turn-worth terms: h(0) - h(streak)."""
        return self.h[0] - self.h[streak]

    def policy_summary(self) -> dict[str, dict[str, int | None]]:
        """The least turn total (points) at which optimal play banks, by streak and dice
        to roll (None: never, below the cap)."""
        return {
            str(s): {str(n): self.bank_at(s, n) for n in range(1, self.rules.dice + 1)}
            for s in range(len(self.h))
        }


def streak_states(rules: PushLuckRules) -> int:
    """Streak values carried between turns: max(bust_streak, 1)."""
    return max(rules.bust_streak, 1)


def bust_outcome(rules: PushLuckRules, streak: int) -> tuple[int, float]:
    """The streak after a bust at ``streak`` and the points it costs."""
    nxt = streak + 1
    if nxt >= rules.bust_streak:
        return 0, float(rules.bust_penalty if rules.bust_streak else 0)
    return nxt, 0.0


def solve_turn(
    rules: PushLuckRules,
    bank_add: float,
    bust_value: float,
    cap: int | None = None,
    fixed_bank_at: np.ndarray | None = None,
) -> TurnSolution:
    """One turn by backward induction (values in points; the kernel:
    :func:`~diceopt.games.families.solo_kernels.turn_kernel`)."""
    from diceopt.games.families.solo_kernels import turn_kernel  # numba: only to solve

    table = compile_rolls(rules)
    cap = turn_cap(rules) if cap is None else cap
    span = cap + max_roll_points(rules) // rules.step + 2
    fixed = np.full(rules.dice + 1, -1, dtype=np.int64)
    if fixed_bank_at is not None:
        fixed = np.asarray(fixed_bank_at, dtype=np.int64)
    bank_min = -(-rules.bank_minimum // rules.step)
    tail = tail_points(rules)
    value, roll, points, busts = (np.zeros((span, rules.dice + 1)) for _ in range(4))

    def rows(lo: int, hi: int) -> None:  # t = span - 1 - lo down to span - hi
        turn_kernel(
            table.outcome_start,
            table.outcome_prob,
            table.option_start,
            table.option_points,
            table.option_dice,
            rules.dice,
            cap,
            span,
            bank_min,
            float(rules.step),
            bank_add,
            bust_value,
            tail,
            fixed,
            value,
            roll,
            points,
            busts,
            span - 1 - lo,
            span - 1 - hi,
        )

    run_chunks(rows, span)  # the largest totals first; Ctrl-C between two slices
    return TurnSolution(value, roll, points, busts)


def evaluate_chain(rules: PushLuckRules, turns: list[TurnSolution]) -> tuple[float, np.ndarray]:
    """Gain (points per turn) and relative values h (h[0] = 0) of the streak chain when
    the turn at streak s plays as ``turns[s]`` does: g + h(s) = r(s) + E h(s')."""
    size = len(turns)
    a = np.zeros((size + 1, size + 1))  # unknowns: g, h(0..size-1)
    rhs = np.zeros(size + 1)
    for s, turn in enumerate(turns):
        nxt, penalty = bust_outcome(rules, s)
        bust = turn.busts[0, rules.dice]
        a[s, 0] = 1.0
        a[s, 1 + s] += 1.0
        a[s, 1 + 0] -= 1.0 - bust
        a[s, 1 + nxt] -= bust
        rhs[s] = turn.points[0, rules.dice] - penalty * bust
    a[size, 1] = 1.0  # h(0) = 0
    x = np.linalg.solve(a, rhs)
    return float(x[0]), x[1:]


def streak_turns(
    rules: PushLuckRules, h: np.ndarray, cap: int | None, fixed: np.ndarray | None = None
) -> list[TurnSolution]:
    """Each streak's turn with terminal values in turn-worth terms for the given h."""
    turns = []
    for s in range(streak_states(rules)):
        nxt, penalty = bust_outcome(rules, s)
        turns.append(solve_turn(rules, h[0] - h[s], h[nxt] - penalty - h[s], cap, fixed))
    return turns


def solve_solo(rules: PushLuckRules, cap: int | None = None) -> SoloSolution:
    """The maximum long-run expected score per turn by policy iteration (see the module
    docstring); ``cap``: the turn total (steps) of the banking tail (default turn_cap)."""
    if rules.players != 1:
        raise InputError(f"{rules.name} is a two-player race, not a one-player game")
    h = np.zeros(streak_states(rules))
    gain = -np.inf
    iteration = 0
    while True:
        iteration += 1
        if iteration > POLICY_ITERATIONS_MAX:
            raise SolveError(f"{rules.name}: policy iteration did not settle")
        turns = streak_turns(rules, h, cap)
        new_gain, new_h = evaluate_chain(rules, turns)
        done = abs(new_gain - gain) <= 1e-12 * abs(new_gain) and np.allclose(
            new_h, h, rtol=0, atol=1e-9
        )
        gain, h = new_gain, new_h
        if done:
            break
    turns = streak_turns(rules, h, cap)
    residual = max(abs(t.value[0, rules.dice] - gain) for t in turns)
    return SoloSolution(
        rules,
        gain,
        tuple(float(x) for x in h),
        tuple(turns),
        cap or turn_cap(rules),
        iteration,
        float(residual),
    )


_SOLVED: dict[Any, SoloSolution] = {}  # solutions kept in this process, oldest first
KEEP_SOLVED = 4  # at most this many (each a few MB)
TURN_ARRAYS = ("value", "roll", "points", "busts")  # a TurnSolution's, stored per streak


def stored_name(field: str) -> str:
    """A TurnSolution array's name in the stored table (the main array is ``values``)."""
    return "values" if field == "value" else field


def solved(game: str, rules: PushLuckRules, cache_dir: Any = None) -> SoloSolution:
    """The solution of one-player rules solved once: loaded from the table cache (stored
    under ``game``, keyed by the rules' hash), else solved (:func:`solve_solo`) and stored,
    so that a later process loads it instead of solving it again (Zilch: 1.1 s)."""
    from diceopt import storage
    from diceopt.games.families.race import rules_hash

    def to_table(sol: SoloSolution) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        arrays = {
            stored_name(name): np.stack([getattr(turn, name) for turn in sol.turns])
            for name in TURN_ARRAYS
        }
        header = {"value": sol.gain, "h": list(sol.h), "cap": sol.cap}
        return arrays, {**header, "iterations": sol.iterations, "residual": sol.residual}

    def from_table(stored: storage.Stored) -> SoloSolution:
        arrays, head = stored.arrays, stored.header
        streaks = arrays["values"].shape[0]
        turns = tuple(
            TurnSolution(*(arrays[stored_name(name)][s] for name in TURN_ARRAYS))
            for s in range(streaks)
        )
        h = tuple(float(x) for x in head["h"])
        return SoloSolution(
            rules, float(head["value"]), h, turns, int(head["cap"]), int(head["iterations"]),
            float(head["residual"]),
        )  # fmt: skip

    key = storage.TableKey(
        game, f"solo-{rules_hash(rules)[:16]}", "long-run", 0.0, "float64", None,
        extra=TURN_ARRAYS[1:],
    )  # fmt: skip
    sol = storage.solved_once(
        _SOLVED, (game, rules), key, lambda: solve_solo(rules), to_table, from_table, cache_dir
    )
    while len(_SOLVED) > KEEP_SOLVED:  # the oldest let go (a script may try many rule files)
        del _SOLVED[next(iter(_SOLVED))]
    return sol


def fixed_policy_gain(
    rules: PushLuckRules, bank_at: list[int], cap: int | None = None
) -> tuple[float, np.ndarray]:
    """Exact gain (points per turn) and h of the policy: bank at a turn total of at least
    ``bank_at[n - 1]`` points with n dice to roll (and the bank minimum), set aside the
    most points; the same at every streak."""
    steps = np.array([0] + [-(-b // rules.step) for b in bank_at], dtype=np.int64)
    turns = streak_turns(rules, np.zeros(streak_states(rules)), cap, steps)
    return evaluate_chain(rules, turns)
