"""Shut the Box advice and play on the solved graph: the value of every move, an action
played and the rolls that follow it (in words), and the policy listed decision by decision.
"""

from __future__ import annotations

from typing import Any, cast

from diceopt.engine import Chance, Decision, advance
from diceopt.engine.compile import CHANCE, TERMINAL
from diceopt.errors import InputError
from diceopt.games.contract import Step
from diceopt.games.shutbox.game import ROLL, TERMINALS, ShutState, settle, target_of
from diceopt.games.shutbox.position import (
    ShutPosition,
    action_text,
    parse_move,
    position_of_state,
    position_state,
)
from diceopt.games.shutbox.rules import ShutRules, tiles_of
from diceopt.games.shutbox.solve import ShutSolution, solved
from diceopt.lazy import numpy as np


def move_values(rules: ShutRules, pos: ShutPosition) -> list[tuple[str, float]]:
    """Every legal action of a position and its value for the mover, in engine order.

    Units: expected final score (points, ``score``), P(shut) (``shut``), the mover's
    expected wins (``win``; player 2's own when the position has a target).
    """
    if pos.open == 0:
        raise InputError("every tile is shut: the game is over")
    sol = solved(rules)
    state = position_state(pos)
    node = sol.game.node(state)
    to_mover = (lambda v: 1.0 - v) if pos.target is not None else (lambda v: v)
    if isinstance(node, Chance):
        return [(ROLL, to_mover(sol.value_of(state)))]
    assert isinstance(node, Decision)  # tiles are open: the game is not over
    return [
        (action_text(a), to_mover(sol.value_of(cast(ShutState, nxt)))) for a, _, nxt in node.actions
    ]


def independent_move_values(rules: ShutRules, pos: ShutPosition) -> dict[str, float]:
    """Every legal action's value for the mover (units of :func:`move_values`) from the
    compiled graph's edges under the exact evaluation of the optimal policy: the second
    path of :func:`move_values` (the solve's values are not read)."""
    from diceopt.games.exact import evaluated_policy, policy_action_values

    if pos.open == 0:
        raise InputError("every tile is shut: the game is over")
    sub, node = solved(rules).locate(position_state(pos))
    objective = sub.solution.objective
    to_mover = (lambda v: 1.0 - v) if pos.target is not None else (lambda v: v)
    if sub.graph.kind[node] == CHANCE:
        return {
            ROLL: to_mover(float(evaluated_policy(sub.graph, objective, sub.policy).values[node]))
        }
    pairs = policy_action_values(sub.graph, objective, sub.policy, node)
    return {action_text(action): to_mover(value) for action, value in pairs}


def _consequence(rules: ShutRules, state: ShutState, target: int | None) -> list[str]:
    """What reaching ``state`` means, in words (the turn or the game ending)."""
    tag = state[0]
    if tag == "end":
        if state[1] == 0:
            return ["the box is shut: score 0"]
        return [f"the turn ends with score {rules.total(state[1])}"]
    if tag == "p1shut":
        return ["player 1 shut the box and wins"]
    if tag == "turn2" and target is None:  # player 1's turn ended
        return [f"player 1's turn ends with score {state[2]}; player 2 plays to beat it"]
    if tag == "p2end":
        u, t = state[1], state[2]
        result = "player 1 wins" if u > t else "a draw" if u == t else "player 2 wins"
        return [f"player 2's turn ends with score {u} against {t}: {result}"]
    if tag == "p2won":
        if state[1] == 0:
            return ["player 2 shut the box and wins"]
        return [
            f"player 2's open tiles sum to {rules.total(state[1])}, less than {target}: "
            "player 2 wins"
        ]
    return []


def _roll_event(rules: ShutRules, src: ShutState, roll: int, dst: ShutState) -> str:
    """One roll of a walk through the graph, in words (``rolled 11: no tiles sum to it,
    the turn ends with score 7``)."""
    mask, target = src[1], target_of(src)
    who = "" if rules.players == 1 else "player 2 " if target is not None else "player 1 "
    moves = rules.moves(mask, roll)
    head = f"{who}rolled {roll}"
    if len(moves) > 1:
        return head
    if moves:
        parts = [f"{action_text(tiles_of(moves[0]))} (the only move)"]
    else:
        parts = ["no tiles sum to it"]
    parts += _consequence(rules, dst, target)
    return f"{head}: {', '.join(parts)}"


def _final_position(state: ShutState, mask: int, roll: int | None, target: int | None) -> Any:
    """The position a game ended in: terminal ``state`` reached from tiles ``mask`` with
    ``roll`` shown (player 2's ``target``)."""
    tag = state[0]
    if tag == "end":
        return ShutPosition(state[1], roll if state[1] else None)
    if tag == "p1shut":
        return ShutPosition(0)
    if tag == "p2end":
        return ShutPosition(mask, roll, target)
    return ShutPosition(state[1], None, target)  # p2won


def play_on(
    rules: ShutRules,
    state: ShutState,
    context: tuple[int, int | None, int | None],
    rng: np.random.Generator,
    events: list[str],
) -> Step:
    """From engine ``state`` (just reached), roll through chance nodes of the solved
    graph (``engine.advance``) to the next decision or the end of the game.

    ``context``: (tiles, roll, target) of the position the state was reached from.
    """
    sol = solved(rules)
    state = settle(rules, state)
    if state[0] not in TERMINALS:
        owner, node = sol.locate(state)
        g = owner.graph
        assert g.states is not None  # compile_game names them
        if g.kind[node] == CHANCE:
            walk = advance(g, node, None, rng)
            src = node
            for e, label in zip(walk.edges, walk.labels):
                dst = int(g.target[e])
                roll = int(cast(int, label))  # every chance edge is labelled with its roll
                events.append(_roll_event(rules, g.states[src], roll, g.states[dst]))
                context = (g.states[src][1], roll, target_of(g.states[src]))
                src = dst
            node = walk.node
        state = g.states[node]
        if g.kind[node] != TERMINAL:
            pos = position_of_state(state)
            return Step(pos, False, 0 if pos.target is None else 1, tuple(events))
    pos = _final_position(state, *context)
    result = sol.game.terminal_value(state)
    return Step(pos, True, 0 if pos.target is None else 1, tuple(events), result)


def apply_action(
    rules: ShutRules, pos: ShutPosition, action: str, rng: np.random.Generator
) -> Step:
    """Play an action, then roll on through the solved graph to the next decision.

    Rolls with one legal move play it; a roll with none ends the turn (player 1's end
    starts player 2's turn). ``events`` say what was rolled and what it did.
    """
    move = parse_move(rules, pos, action)
    sol = solved(rules)
    state = position_state(pos)
    node = sol.game.node(state)
    context = (pos.open, pos.roll, pos.target)
    events: list[str] = []
    if isinstance(node, Decision):  # the action's successor
        found = [cast(ShutState, n) for a, _, n in node.actions if action_text(a) == move]
        if not found:
            raise InputError(f"{action.strip()!r} is not a legal action here")
        state = found[0]
        events += _consequence(rules, settle(rules, state), pos.target)
    return play_on(rules, state, context, rng, events)


def policy_rows(sol: ShutSolution) -> list[dict[str, Any]]:
    """Every decision of the game (player 1's in the two-player game): position, move and
    value (objective units), sorted by open tiles, then roll, numerically."""
    g = sol.graph
    assert g.states is not None and g.actions is not None  # compile_game names them
    rows = []
    for d in np.flatnonzero(g.kind == 2).tolist():
        if sol.objective == "win" and g.player[d] != 0:
            continue
        pos = position_of_state(g.states[d])
        rows.append(
            (
                (pos.target or 0, tiles_of(pos.open), -1 if pos.roll is None else pos.roll),
                {
                    "position": pos.text(),
                    "move": action_text(g.actions[int(sol.policy[d])]),
                    "value": float(sol.solution.values[d]),
                },
            )
        )
    rows.sort(key=lambda r: r[0])
    return [row for _, row in rows]
