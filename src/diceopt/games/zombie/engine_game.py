"""The race to the goal written to the engine's node protocol: a second, independent path.

``ZombieGame`` states are written from the mover's point of view (values: the mover's
win probability; an edge that passes the turn is a ``Handover``), with the same lead cap
and brains caps as ``race`` (so the two must agree to the engine's tolerance), but the
roll is enumerated here die by die (``roll_outcomes``: every set of dice drawn, every
face), not taken from ``dice``'s numba tables, and the engine finds the values by value
iteration over the whole cyclic graph instead of per-state fixed points. Meant for
small goals (tests): the graph grows with every context of scores.

:func:`independent_values` is the contract's second path (``GameSpec.independent_values``):
a position's state in this graph (:func:`engine_state`: the scores as the race keeps
them, the turn's dice, its brains capped) and the engine's values of its edges,
``bank`` and ``roll``; at the start of a turn, where the only action is to roll, the
value of the opening roll's chance node.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from itertools import combinations, product
from typing import TYPE_CHECKING, Any

from diceopt.engine.game import Chance, Decision, Handover, Terminal
from diceopt.errors import InputError
from diceopt.games.zombie.dice import BUST, FACES, HAND, TOTAL
from diceopt.games.zombie.game import ROLL, trio
from diceopt.games.zombie.position import ZombiePosition, ZombieRules, check_position

if TYPE_CHECKING:
    from diceopt.engine import CompiledGame, Solution

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


# goals up to this many brains have a second path (goal 3, lead cap 10: about a
# million engine nodes, half a minute to build on one core)
GOAL_LIMIT = 3
_SOLVED: dict[ZombieRules, tuple[CompiledGame, Solution]] = {}


def engine_solution(rules: ZombieRules) -> tuple[CompiledGame, Solution]:
    """The race of ``rules`` compiled and solved by the engine (value iteration, the
    win objective), once per process; InputError (one line) above :data:`GOAL_LIMIT`."""
    got = _SOLVED.get(rules)
    if got is None:
        if rules.goal > GOAL_LIMIT:
            raise InputError(
                f"the race to {rules.goal} brains is too large for the engine's second "
                f"path: goals to {GOAL_LIMIT} are checked"
            )
        from diceopt.engine import Objective, compile_game, solve

        graph = compile_game(ZombieGame(rules.goal, rules.lead_cap))
        got = _SOLVED[rules] = (graph, solve(graph, Objective("win")))
    return got


def engine_state(rules: ZombieRules, pos: ZombiePosition) -> tuple[Any, ...]:
    """The state of a (checked) position in :class:`ZombieGame`: a tie round as both at
    the goal, the second player behind a first player at the goal as (goal + lead, goal)
    with the lead capped, the turn's brains capped where more change nothing."""
    goal = rules.goal
    a, b = pos.scores
    if a >= goal:  # (check_position: with the mover first, a tie round)
        a, b = (goal, goal) if pos.seat == 0 else (goal + min(a - b, rules.lead_cap), goal)
    game = ZombieGame(goal, rules.lead_cap)
    config = (pos.shot, pos.feet, pos.aside)
    return ("turn", pos.seat, a, b, config, min(pos.brains, game.brains_cap(pos.seat, a, b)))


def independent_values(rules: ZombieRules, pos: ZombiePosition) -> dict[str, float]:
    """The mover's win probability after each legal action by the engine (``roll``;
    ``bank`` once the turn has rolled); InputError for a position that cannot occur or
    a goal too large."""
    check_position(rules, pos)
    graph, solution = engine_solution(rules)
    state = engine_state(rules, pos)
    assert graph.index is not None  # compiled from the game: states are named
    s = graph.index.get(state)
    if s is None:  # not reached from the first roll: solve the race from the position
        graph, solution = _solved_from(rules, state)
        s = 0
    if not pos.started:  # the opening roll: a chance node, its value the roll's
        return {ROLL: float(solution.values[s])}
    from diceopt.engine import action_values

    return {str(a.action): a.value for a in action_values(solution, s)}


def _solved_from(rules: ZombieRules, state: tuple[Any, ...]) -> tuple[CompiledGame, Solution]:
    """The race from ``state`` on (node 0) solved by the engine (not kept)."""
    from diceopt.engine import Objective, compile_game, solve

    class FromState(ZombieGame):
        def initial_state(self) -> Any:
            return state

    graph = compile_game(FromState(rules.goal, rules.lead_cap))
    return graph, solve(graph, Objective("win"))
