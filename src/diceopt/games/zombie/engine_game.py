"""The race to the goal written to the engine's node protocol: a second, independent path.

``ZombieGame`` states are written from the mover's point of view (values: the mover's
win probability; an edge that passes the turn is a ``Handover``), with the same lead cap
and brains caps as ``race`` (so the two must agree to the engine's tolerance), but the
roll is enumerated here die by die (``roll_outcomes``: every set of dice drawn, every
face), not taken from ``dice``'s numba tables, and the engine finds the values by value
iteration over the whole cyclic graph instead of per-state fixed points. Meant for
small goals (tests): the graph grows with every context of scores.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from itertools import combinations, product
from typing import Any

from diceopt.engine.game import Chance, Decision, Handover, Terminal
from diceopt.games.zombie.dice import BUST, FACES, HAND, TOTAL
from diceopt.games.zombie.game import trio

Dice = tuple[int, int, int]
Config = tuple[Dice, Dice, Dice]  # shotgun dice, footprint dice in hand, brain dice aside
EMPTY: Config = ((0, 0, 0), (0, 0, 0), (0, 0, 0))


@cache
def roll_outcomes(config: Config) -> tuple[tuple[float, int, Config | None], ...]:
    """Every outcome of a roll as (probability, brains rolled, next configuration; None:
    three shotguns), enumerating the dice drawn one set at a time and each die's face."""
    shot, feet, aside = config
    cup = [TOTAL[i] - shot[i] - feet[i] - aside[i] for i in range(3)]
    need = HAND - sum(feet)
    kept = list(aside)
    if sum(cup) < need:
        cup = [cup[i] + aside[i] for i in range(3)]
        kept = [0, 0, 0]
    pool = [colour for colour in range(3) for _ in range(cup[colour])]
    draws = list(combinations(range(len(pool)), need))
    hand = [colour for colour in range(3) for _ in range(feet[colour])]
    found: dict[tuple[int, Config | None], float] = defaultdict(float)
    # the faces of one colour sequence, (outcome, probability) in face order: draws of the
    # same colours share them (added draw by draw all the same)
    rolled: dict[tuple[int, ...], list[tuple[tuple[int, Config | None], float]]] = {}
    for draw in draws:
        dice = tuple(hand + [pool[i] for i in draw])
        faces_of = rolled.get(dice)
        if faces_of is None:
            faces_of = rolled[dice] = []
            for faces in product(range(3), repeat=len(dice)):
                p = 1.0 / len(draws)
                new_shot, new_feet, new_aside = list(shot), [0, 0, 0], list(kept)
                for colour, face in zip(dice, faces, strict=True):
                    p *= FACES[colour][face] / 6.0
                    (new_aside, new_shot, new_feet)[face][colour] += 1
                brains = faces.count(0)
                nxt = (
                    None
                    if sum(new_shot) >= BUST
                    else (trio(new_shot), trio(new_feet), trio(new_aside))
                )
                faces_of.append(((brains, nxt), p))
        for key, p in faces_of:
            found[key] += p
    return tuple((p, brains, nxt) for (brains, nxt), p in found.items() if p > 0)


class ZombieGame:
    """Two players to ``goal`` brains (leads counted to ``lead_cap``), mover's view.

    States: ``("turn", seat, a, b, config, g)`` (a, b: the first and second player's
    brains; a tie round as a = b = goal; the second player behind a first player at the
    goal as (goal + lead, goal); g: the brains of the turn, capped where more no longer
    matter), ``("roll", ...)`` (the same fields: a roll asked for) and ``("over",
    value)``.
    """

    def __init__(self, goal: int, lead_cap: int) -> None:
        self.goal = goal
        self.lead_cap = lead_cap

    def initial_state(self) -> Any:
        """The first player's first roll."""
        return ("turn", 0, 0, 0, EMPTY, 0)

    def brains_cap(self, seat: int, a: int, b: int) -> int:
        """The turn's brains from which more change nothing for the mover."""
        if seat == 0:
            return self.lead_cap if a >= self.goal else max(b + self.lead_cap, self.goal) - a
        return a - b + 1 if a >= self.goal else self.goal - b

    def after_turn(self, seat: int, a: int, b: int, gained: int) -> Any:
        """The state after a turn that banked ``gained`` brains (0: a bust)."""
        g = self.goal
        if seat == 0:
            a += gained
            if a >= g:
                lead = min(a - b, self.lead_cap)
                return Handover(("turn", 1, g + lead, g, EMPTY, 0))
            return Handover(("turn", 1, a, b, EMPTY, 0))
        b += gained
        if max(a, b) >= g and a != b:
            return ("over", 1.0 if b > a else 0.0)
        if a == b and a >= g:
            return Handover(("turn", 0, g, g, EMPTY, 0))
        return Handover(("turn", 0, a, b, EMPTY, 0))

    def node(self, state: Any) -> Terminal | Chance | Decision:
        """The node of a state: the opening roll, bank-or-roll, or the game's end."""
        if state[0] == "over":
            return Terminal(state[1])
        _, seat, a, b, config, g = state
        if state[0] == "turn" and config != EMPTY:
            return Decision(
                [
                    ("bank", 0.0, self.after_turn(seat, a, b, g)),
                    ("roll", 0.0, ("roll", seat, a, b, config, g)),
                ]
            )
        cap = self.brains_cap(seat, a, b)
        outcomes = []
        for p, brains, nxt in roll_outcomes(config):
            if nxt is None:
                outcomes.append((p, 0.0, self.after_turn(seat, a, b, 0)))
            else:
                outcomes.append((p, 0.0, ("turn", seat, a, b, nxt, min(g + brains, cap))))
        return Chance(outcomes)
