"""The course's ``DiceGame`` interface: an optimal agent for it, and the discounted
value-iteration agents of earlier course solutions (imitated, to be evaluated exactly)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from diceopt.errors import InputError
from diceopt.games.stick.rules import StickRules
from diceopt.games.stick.solve import solved
from diceopt.lazy import numpy as np

DISCOUNTED_AGENTS = ((0.96, 0.1), (0.97, 0.001))  # (discount, threshold) of course agents


def course_hold_candidates(rules: StickRules) -> tuple[np.ndarray, np.ndarray]:
    """For every roll, the distinct holds in the course's action order.

    The course lists actions as tuples of dice indices, by size then lexicographically
    (``itertools.combinations``); holding every index is sticking and comes last.
    Returns (roll flat indices, candidate held flat indices padded with -1); the last
    real candidate of each row is the roll itself (stick).
    """
    lat = rules.lattice
    n = rules.dice
    index_sets = [c for r in range(n + 1) for c in itertools.combinations(range(n), r)]
    rolls = lat.full()
    rows = []
    for i in rolls:
        faces = [f for f, c in enumerate(lat.counts[i]) for _ in range(int(c))]
        seen: dict[int, None] = {}
        for held in index_sets:
            counts = np.zeros(rules.sides, dtype=np.int64)
            for d in held:
                counts[faces[d]] += 1
            seen.setdefault(lat.index(counts), None)
        rows.append(list(seen))
    width = max(len(r) for r in rows)
    out = np.full((len(rows), width), -1, dtype=np.int64)
    for r, row in enumerate(rows):
        out[r, : len(row)] = row
    return rolls, out


def discounted_agent_policy(
    rules: StickRules, discount: float, threshold: float
) -> dict[int, int | None]:
    """The policy of the discounted value-iteration agents of earlier course solutions.

    Synchronous value iteration over the rolls with discount ``discount`` from V = 0,
    stopped when no value changes by ``threshold`` or more; then greedy in the course's
    action order (first best action wins). Returns roll index -> held index (None = stick).
    """
    lat = rules.lattice
    start, target, prob = lat.keep_roll(rules.die.prob_array)
    first_roll = lat.offset[rules.dice]
    rolls, candidates = course_hold_candidates(rules)
    stick_score = np.array([rules.score(lat.counts[i]) for i in rolls])
    is_stick = candidates == rolls[:, None]
    valid = candidates >= 0
    values = np.zeros(len(rolls))

    def action_values(v: np.ndarray) -> np.ndarray:
        expected = np.add.reduceat(prob * v[target - first_roll], start[:-1])
        q = -rules.penalty + discount * expected[np.where(valid, candidates, 0)]
        q = np.where(is_stick, stick_score[:, None], q)
        return np.where(valid, q, -np.inf)

    for _ in range(1_000_000):
        new = action_values(values).max(axis=1)
        delta = np.abs(new - values).max()
        values = new
        if delta < threshold:
            break
    best = candidates[np.arange(len(rolls)), action_values(values).argmax(axis=1)]
    return {int(r): (None if b == r else int(b)) for r, b in zip(rolls, best)}


class OptimalAgent:
    """An agent for the course's ``DiceGame`` interface that plays optimally.

    ``OptimalAgent(game)`` reads the game's parameters (``_dice``, ``_sides``,
    ``_values``, ``_bias``, ``_penalty``) and solves once; ``play(state)`` takes the
    sorted tuple of dice values shown and returns the tuple of dice indices to hold
    (all indices = stick).
    """

    def __init__(self, game: Any) -> None:
        values = getattr(game, "_values", None)
        bias = getattr(game, "_bias", None)
        self.game = game
        self.rules = StickRules(
            dice=int(game._dice),
            sides=int(game._sides),
            values=None if values is None else tuple(float(v) for v in values),
            bias=None if bias is None else tuple(float(p) for p in bias),
            penalty=float(getattr(game, "_penalty", 1.0)),
        )
        self.solution = solved(self.rules)

    def play(self, state: Sequence[float]) -> tuple[int, ...]:
        """Indices of the dice to hold in ``state`` (holding every index means stick)."""
        roll = self.rules.counts_of(state)
        if roll.sum() != self.rules.dice:
            raise InputError(f"expected {self.rules.dice} dice, got {len(state)}: {state}")
        remaining = self.solution.best_hold(roll)
        held = []
        for i, v in enumerate(state):
            f = self.rules.face_of(v)
            if remaining[f] > 0:
                remaining[f] -= 1
                held.append(i)
        return tuple(held)
