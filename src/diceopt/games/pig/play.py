"""Playing Pig: one action at a time (``play_action``) and whole games of optimal play
(``simulate``), with the die of the family's roll table (``rules/pig.toml``).

A die is drawn as the engine draws a chance outcome (``diceopt.engine.play``): one
``rng.random()`` per roll against the cumulative probabilities of the faces 1..K in
order, so a seed gives the rolls it gave on the engine graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from diceopt.errors import InputError
from diceopt.games.pig.position import HOLD, PigPosition, check_position, parse_action
from diceopt.games.pig.rules import PigRules
from diceopt.games.pig.solution import PigSolution

BUST = -1  # the points of a face that loses the turn total


@dataclass(frozen=True)
class Die:
    """The one die of Pig from the family's roll table: ``faces`` 1..K, ``cumulative``
    probabilities (float64, in face order) and ``points`` each face adds to the turn
    total (int64, points; ``BUST`` for a 1)."""

    faces: tuple[int, ...]
    cumulative: Any
    points: Any


def die(rules: PigRules) -> Die:
    """The die of ``rules``, read from the compiled roll table of one die."""
    from diceopt.games.families.push_luck import compile_rolls, rolls

    family = rules.family
    table = compile_rolls(family)
    lo, hi = int(table.outcome_start[1]), int(table.outcome_start[2])
    points = np.array(
        [
            int(table.option_points[table.option_start[o]]) * family.step
            if table.option_start[o] < table.option_start[o + 1]
            else BUST
            for o in range(lo, hi)
        ],
        dtype=np.int64,
    )
    faces = tuple(roll[0] for roll in rolls(family, 1))
    return Die(faces, np.cumsum(table.outcome_prob[lo:hi]), points)


def draw(d: Die, rng: np.random.Generator) -> int:
    """The index of one face drawn with ``rng`` (one ``rng.random()``)."""
    i = int(np.searchsorted(d.cumulative, rng.random() * d.cumulative[-1], side="right"))
    return min(i, len(d.faces) - 1)


@dataclass(frozen=True)
class PigStep:
    """What one action did: the new position and what was rolled.

    ``position`` is from the next mover's point of view, or the winner's final score as
    ``me`` when ``over``. ``rolled``: the die faces rolled (empty after a hold). ``passed``:
    the turn passed to the other player (a hold or a 1).
    """

    position: PigPosition
    over: bool
    rolled: tuple[int, ...]
    passed: bool


def play_action(
    rules: PigRules, pos: PigPosition, action: str, rng: np.random.Generator
) -> PigStep:
    """Play ``hold`` or ``roll`` from ``pos`` (a roll: one die from ``rng``)."""
    action = parse_action(action)
    check_position(rules, pos)
    other = 1 - pos.player
    if action == HOLD:
        if pos.turn == 0:
            raise InputError("a turn starts with a roll: you cannot hold with turn total 0")
        return PigStep(PigPosition(pos.opponent, pos.me + pos.turn, 0, other), False, (), True)
    d = die(rules)
    i = draw(d, rng)
    rolled = (d.faces[i],)
    points = int(d.points[i])
    if points == BUST:
        return PigStep(PigPosition(pos.opponent, pos.me, 0, other), False, rolled, True)
    turn = pos.turn + points
    if pos.me + turn >= rules.goal:
        return PigStep(PigPosition(pos.me + turn, pos.opponent, 0, pos.player), True, rolled, False)
    return PigStep(PigPosition(pos.me, pos.opponent, turn, pos.player), False, rolled, False)


def simulate(sol: PigSolution, games: int, rng: np.random.Generator) -> np.ndarray:
    """Seeded games of mutual optimal play from the start (``decision_table``'s policy,
    ties to hold): 1.0 per game the first player wins, else 0.0."""
    if games < 1:
        raise InputError(f"the number of games must be at least 1, got {games}")
    d = die(sol.rules)
    hold, _ = sol.decision_table()
    out = np.empty(games)
    play_games(sol.rules.goal, d.points, d.cumulative, hold, rng, out)
    return out


@numba.njit(cache=True)
def play_games(
    goal: int,
    points: np.ndarray,
    cumulative: np.ndarray,
    hold: np.ndarray,
    rng: np.random.Generator,
    out: np.ndarray,
) -> None:
    """Fill out[g] with 1.0 when the first player wins game g, else 0.0: both players
    hold where ``hold[me, opponent, turn]`` is 1 (``PigSolution.decision_table``); faces
    drawn as in ``draw``."""
    faces = cumulative.size
    for g in range(out.size):
        score = np.zeros(2, dtype=np.int64)
        mover = 0
        while True:
            me, opponent = score[mover], score[1 - mover]
            turn = 0
            while True:
                u = rng.random() * cumulative[faces - 1]
                e = 0
                while e < faces - 1 and cumulative[e] <= u:
                    e += 1
                if points[e] == BUST:
                    turn = 0
                    break
                turn += points[e]
                if me + turn >= goal or hold[me, opponent, turn] == 1:
                    break
            if me + turn >= goal:
                out[g] = 1.0 if mover == 0 else 0.0
                break
            score[mover] += turn
            mover = 1 - mover
