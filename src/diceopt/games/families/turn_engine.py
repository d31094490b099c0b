"""One turn of a push-your-luck game on the generic engine: the second path of the
family's action values (``PushLuckSpec.independent_values``).

Written from the rules alone (``push_luck.set_asides`` and ``roll_probability``, every
roll as it is), not from the compiled roll table or the solvers' kernels. With the
turn's terminal values given (banking t points: ``bank(t)``; a bust: ``bust``), the turn
is a finite game over (turn total, dice to roll), which the engine solves by backward
induction:

- ``("roll", t, n)``: chance over every roll of n dice at turn total t (points);
- ``("pick", t, options)``: the decision after a roll that scores, keyed by its
  set-asides (rolls with the same set-asides share it): each set-aside followed by
  rolling on (where offered) or banking (where allowed), the action ``(set-aside,
  banks)``;
- ``("end", value)``: a terminal (a bank, a bust or a win).

Above a cap (``cap``, in steps, for a one-player game whose turn totals are unbounded)
the turn banks whenever the dice to roll can bust and rolls while they cannot, as the
solver's banking tail does; a cap above every total at which optimal play still rolls
dice that can bust leaves the values below it exact. There the total no longer matters
but as points: ``("tail", n)`` (n dice to roll) banks (``tail_bank``) or rolls on, the
points of each set-aside carried as edge rewards (hot dice make this part cyclic: the
engine solves it by value iteration).

The turn is compiled once per context (``TurnValues.key``: the scores, or the streak)
from its first roll, and every roll of the turn is a node of it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import cache
from typing import Any

from diceopt.engine.game import Chance, Decision, Terminal
from diceopt.games.families.push_luck import (
    PushLuckRules,
    SetAside,
    roll_probability,
    rolls,
    set_asides,
)


@dataclass(frozen=True)
class TurnValues:
    """A turn's terminal values and limits: ``bank(total)`` (None: banking ``total``
    points is not allowed), ``bust``, whether rolling on is offered at a total
    (``may_roll``), the cap (steps) above which the banking tail holds (None: no tail)
    with ``tail_bank``, and ``key``: what tells this turn's context from another's
    under the same rules."""

    bank: Callable[[int], float | None]
    bust: float
    may_roll: Callable[[int], bool]
    key: Hashable
    cap: int | None = None
    tail_bank: float = 0.0  # above the cap, what a bank is worth beyond its points


class TurnGame:
    """One turn of ``rules`` on the engine's node protocol (see the module docstring)."""

    def __init__(self, rules: PushLuckRules, values: TurnValues, start: Any) -> None:
        self.rules = rules
        self.values = values
        self.start = start

    def initial_state(self) -> Any:
        """The state the turn is asked about."""
        return self.start

    def node(self, state: Any) -> Terminal | Chance | Decision:
        """The node of a state (see the module docstring)."""
        tag = state[0]
        if tag == "end":
            return Terminal(state[1])
        if tag == "tail":  # above the cap: bank when the dice can bust, else roll on
            n = state[1]
            if _can_bust(self.rules, n):
                return Terminal(self.values.tail_bank)
            state = ("roll", None, n)
            tag = "roll"
        if tag == "roll":
            _, t, n = state
            outcomes: list[tuple[float, float, Any, Any]] = []
            for roll in _rolls(self.rules, n):
                options = _options(self.rules, roll)
                nxt = ("pick", t, options) if options else ("end", self.values.bust)
                outcomes.append((roll_probability(self.rules, roll), 0.0, nxt, roll))
            return Chance(outcomes)
        _, t, options = state
        return Decision(self.choices(t, options))

    def choices(
        self, t: int | None, options: tuple[SetAside, ...]
    ) -> list[tuple[tuple[SetAside, bool], float, Any]]:
        """Every set-aside of a pick at turn total t (None: above the cap, where only
        the points still to come count), with rolling on and banking."""
        rules, values = self.rules, self.values
        out: list[tuple[tuple[SetAside, bool], float, Any]] = []
        for option in options:
            left = option.left or rules.dice
            if t is None:  # in the tail: the points as the edge's reward
                out.append(((option, False), float(option.points), ("tail", left)))
                continue
            total = t + option.points
            if values.cap is not None and total > values.cap * rules.step:
                # into the tail: the total so far as the edge's reward
                banks = _can_bust(rules, left)
                out.append(((option, banks), float(total), ("tail", left)))
                continue
            bank = values.bank(total)
            if values.may_roll(total):
                out.append(((option, False), 0.0, ("roll", total, left)))
            if bank is not None:
                out.append(((option, True), 0.0, ("end", bank)))
        return out


@cache
def _rolls(rules: PushLuckRules, n: int) -> tuple[tuple[int, ...], ...]:
    return tuple(rolls(rules, n))


@cache
def _options(rules: PushLuckRules, roll: tuple[int, ...]) -> tuple[SetAside, ...]:
    return tuple(set_asides(rules, roll))


@cache
def _can_bust(rules: PushLuckRules, n: int) -> bool:
    return any(not _options(rules, roll) for roll in _rolls(rules, n))


_COMPILED: dict[tuple[PushLuckRules, Hashable], tuple[Any, Any]] = {}
CONTEXTS_KEPT = 16  # compiled turns kept (each a few MB at most)


def _solved_turn(rules: PushLuckRules, values: TurnValues, start: Any) -> tuple[Any, Any]:
    """The turn game compiled from ``start`` and solved by the engine (kept per context
    when ``start`` is the turn's first roll)."""
    from diceopt.engine import Objective, compile_game, solve

    graph = compile_game(TurnGame(rules, values, start))
    return graph, solve(graph, Objective("expected"))


def turn_action_values(
    rules: PushLuckRules, values: TurnValues, t: int, dice: tuple[int, ...]
) -> list[tuple[tuple[SetAside, bool] | None, float]]:
    """Every action's value after rolling ``dice`` at turn total ``t`` (points), as
    ((set-aside, banks), value), or [(None, the bust's value)] for a roll that scores
    nothing: the engine's action values of the turn game at that roll."""
    from diceopt.engine import action_values

    options = _options(rules, tuple(sorted(dice)))
    if not options:
        return [(None, values.bust)]
    state = ("pick", t, options)
    key = (rules, values.key)
    if key not in _COMPILED:
        while len(_COMPILED) >= CONTEXTS_KEPT:
            del _COMPILED[next(iter(_COMPILED))]
        _COMPILED[key] = _solved_turn(rules, values, ("roll", 0, rules.dice))
    graph, solution = _COMPILED[key]
    if graph.index is None or state not in graph.index:  # not reached from a first roll
        graph, solution = _solved_turn(rules, values, state)
    node = graph.index[state]
    return [(a.action, a.value) for a in action_values(solution, node)]
