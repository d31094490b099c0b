"""Every action's value at a Yatzy position by the generic engine: the second path.

Role: the contract's ``independent_values`` (item 14 of ``diceopt.games.contract``) for
Yatzy. The rules are written once more as an engine game
(:class:`~diceopt.games.yatzy.play.engine_game.YatzyEngineGame`), compiled and solved by
:mod:`diceopt.engine` (cached per rules and theta in this process), and a position's
action values are the engine's values of the edges of its decision node; nothing of the
kernel's tables, widget or advice is read.

The mapping:

- a position (filled boxes, upper total, Yahtzee-bonus flag, dice, rerolls left and
  saved) is the engine's decision state ``("roll", mask, flag, min(upper, threshold), t,
  r)``: ``t`` the rerolls still possible (``rerolls + saved``), ``r`` the dice's flat
  lattice index;
- the engine's action ``("score", c)`` is ``score <category c>``, ``("keep", k)`` is
  ``keep <the dice of multiset k>`` (``keep -``: none);
- an engine edge's value counts the points still to come (the written box's points and
  any bonus on the edge, then the value of what follows); the advice adds the points on
  the sheet when the position gives its ``score``, and so does this (certainty
  equivalents with theta != 0: the engine's exponential objective, whose values shift
  with a constant as the advice's do).

Only small rules fit: every roll and every keep of every turn is a node. Rules whose
engine graph would exceed :data:`STATE_LIMIT` nodes (estimated from the rules before
anything is built) are refused, one InputError line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from diceopt.errors import InputError
from diceopt.games.yatzy.play.advice import Position, face_counts, keep_text
from diceopt.games.yatzy.rulebook.rules import YatzyRules

if TYPE_CHECKING:
    from diceopt.engine import CompiledGame, Solution
    from diceopt.games.yatzy.stored.store import YatzyConfig

STATE_LIMIT = 400_000  # engine nodes: about 3 s to compile and solve on one core

# (rules, theta) -> the compiled engine game and its solution
_SOLVED: dict[tuple[YatzyRules, float], tuple[CompiledGame, Solution]] = {}


def engine_states_bound(rules: YatzyRules) -> int:
    """How many nodes the engine graph of ``rules`` has at most: per turn-start state
    (and rerolls saved), a roll state for every roll and rerolls left, a keep state for
    every proper sub-multiset and rerolls left after it. Rules with far too many masks
    are answered before their turn-start states are counted: the first rolls of every
    mask, fewer than the graph has."""
    offset = rules.lattice_lists[1]
    rolls = offset[rules.dice + 1] - offset[rules.dice]
    keeps = offset[rules.dice]
    most = rules.max_rerolls
    per_turn = (most + 1) * rolls + most * keeps
    saved = rules.max_saved(rules.num_categories) + 1
    masks = rules.num_categories + 1 if rules.forced_order else 1 << rules.num_categories
    if masks * rolls > 10 * STATE_LIMIT:  # every mask's first roll: far too many already
        return masks * rolls
    from diceopt.games.yatzy.kernel.layers import count_states

    return count_states(rules) * saved * per_turn + 1


def check_size(rules: YatzyRules) -> None:
    """InputError (one line) when the engine graph of ``rules`` is too large to build."""
    bound = engine_states_bound(rules)
    if bound > STATE_LIMIT:
        raise InputError(
            f"{rules.name} is too large for the engine's second path (about {bound:,} "
            f"nodes, at most {STATE_LIMIT:,}): only small rules are checked"
        )


def engine_solution(rules: YatzyRules, theta: float = 0.0) -> tuple[CompiledGame, Solution]:
    """The engine graph of ``rules`` and its solution (theta != 0: exponential utility),
    built once per process; InputError when the rules are too large (:func:`check_size`)."""
    key = (rules, float(theta))
    got = _SOLVED.get(key)
    if got is None:
        check_size(rules)
        from diceopt.engine import Objective, compile_game, solve
        from diceopt.games.yatzy.play.engine_game import YatzyEngineGame

        graph = compile_game(YatzyEngineGame(rules))
        objective = Objective("exponential", theta) if theta else Objective()
        got = _SOLVED[key] = (graph, solve(graph, objective))
    return got


def engine_state(pos: Position, rules: YatzyRules) -> tuple[Any, ...]:
    """The engine's decision state of a position (see the module docstring)."""
    mask = sum(1 << rules.categories.index(c) for c in pos.filled)
    flag = 1 if pos.yahtzee_bonus and rules.tracks_yahtzee else 0
    upper = min(pos.upper, rules.bonus_threshold)
    r = rules.lattice_index[face_counts(pos.dice, rules.sides)]
    return ("roll", mask, flag, upper, pos.rerolls + pos.saved, r)


def action_text(action: tuple[str, int], rules: YatzyRules) -> str:
    """The advice's text of an engine action (``("score", c)`` or ``("keep", k)``)."""
    kind, i = action
    if kind == "score":
        return f"score {rules.categories[i]}"
    return keep_text(rules.lattice_lists[0][i])


def independent_values(pos: Position, config: YatzyConfig) -> dict[str, float]:
    """Every legal action's value at ``pos`` by the engine, keyed and in units as the
    expected-score advice gives them (the points on the sheet added when the position
    gives its score); InputError for a game over or rules too large."""
    rules = config.rules
    if pos.over(rules):
        raise InputError("the game is over: every category is filled")
    graph, solution = engine_solution(rules, config.theta)
    state = engine_state(pos, rules)
    assert graph.index is not None  # compiled from the game: states are named
    s = graph.index.get(state)
    if s is None:  # not reached from the first turn: solve what follows the position
        graph, solution = _solved_from(rules, config.theta, state)
        s = 0
    from diceopt.engine import action_values

    base = 0.0 if pos.score is None else float(pos.score)
    return {action_text(a.action, rules): base + a.value for a in action_values(solution, s)}


def _solved_from(
    rules: YatzyRules, theta: float, state: tuple[Any, ...]
) -> tuple[CompiledGame, Solution]:
    """The engine graph from ``state`` on (node 0) and its solution (not kept)."""
    from diceopt.engine import Objective, compile_game, solve
    from diceopt.games.yatzy.play.engine_game import YatzyEngineGame

    class FromState(YatzyEngineGame):
        def initial_state(self) -> tuple[Any, ...]:
            return state

    graph = compile_game(FromState(rules))
    return graph, solve(graph, Objective("exponential", theta) if theta else Objective())
