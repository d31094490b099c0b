"""A push-your-luck race on the generic engine's node protocol: a cross-check of the race
solver (``families.race``) for small goals.

Written from the mover's point of view straight from the roll table (every outcome as
it is, not merged): ``("roll", i, j, t, n)`` is a chance node (n dice rolled at turn
total t, scores i and j in steps); an outcome that scores nothing hands the turn over
(``Handover(("roll", j, i, 0, dice))``); otherwise ``("pick", i, j, t, o)`` is a decision
among the outcome's options, each followed by bank (hand-over to the opponent's turn with
i + t' banked) or roll on; a turn total t' with i + t' >= goal wins (``"won"``, 1). The
game is cyclic (busts in a row repeat states): the engine solves it by value iteration.
"""

from __future__ import annotations

from typing import Any

from diceopt.engine.game import Chance, Decision, Handover, Terminal

WON = "won"


class RaceEngineGame:
    """The race of a roll table to ``goal`` steps on the engine's node protocol."""

    def __init__(self, table: Any, goal: int) -> None:
        self.table = table
        self.goal = goal
        self.dice = int(table.dice)

    def initial_state(self) -> tuple:
        """The first player's first roll: both scores 0."""
        return ("roll", 0, 0, 0, self.dice)

    def node(self, state: Any) -> Terminal | Chance | Decision:
        """The node of a state (see the module docstring)."""
        if state == WON:
            return Terminal(1.0)
        tb = self.table
        if state[0] == "roll":
            _, i, j, t, n = state
            outcomes: list[tuple[float, float, Any, int]] = []
            for o in range(int(tb.outcome_start[n]), int(tb.outcome_start[n + 1])):
                p = float(tb.outcome_prob[o])
                if tb.option_start[o] == tb.option_start[o + 1]:
                    outcomes.append((p, 0.0, Handover(("roll", j, i, 0, self.dice)), o))
                else:
                    outcomes.append((p, 0.0, ("pick", i, j, t, o), o))
            return Chance(outcomes)
        _, i, j, t, o = state
        actions: list[tuple[str, float, Any]] = []
        for k in range(int(tb.option_start[o]), int(tb.option_start[o + 1])):
            total = t + int(tb.option_points[k])
            left = int(tb.option_dice[k]) or self.dice
            if i + total >= self.goal:
                actions.append((f"{k} win", 0.0, WON))
                continue
            actions.append((f"{k} bank", 0.0, Handover(("roll", j, i + total, 0, self.dice))))
            actions.append((f"{k} roll", 0.0, ("roll", i, j, total, left)))
        return Decision(actions)


def engine_turn_starts(table: Any, goal: int) -> dict[tuple[int, int], float]:
    """W[i, j] (the mover's win probability at the start of a turn) from the generic
    engine: every turn start reachable from (0, 0), by value iteration."""
    from diceopt.engine import Objective, compile_game, solve

    game = RaceEngineGame(table, goal)
    graph = compile_game(game)
    sol = solve(graph, Objective("win"))
    out = {}
    assert graph.index is not None  # (compile_game keeps the states it explored)
    for state, index in graph.index.items():
        if state != WON and state[0] == "roll" and state[3] == 0:
            out[(state[1], state[2])] = float(sol.values[index])
    return out
