"""Solving Shut the Box: one game compiled and solved exactly, stored and reused.

``solved`` solves a game once per process; the whole game is stored through
``diceopt.storage`` (graph, values, policy and the score order of the moves).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from diceopt import storage
from diceopt.engine import CompiledGame, Objective, Solution, compile_game, extract_policy, solve
from diceopt.games.shutbox.game import TERMINALS, ShutGame, ShutState, settle
from diceopt.games.shutbox.rules import ShutRules
from diceopt.lazy import numpy as np

ENGINE_OBJECTIVES = {
    "score": Objective("expected", minimize=True),
    "shut": Objective("expected"),
    "win": Objective("win"),
}


@dataclass
class ShutSolution:
    """A solved Shut the Box game.

    ``values`` (via ``solution``) are in the objective's units: expected final score
    (points, ``score``), probability of shutting the box (``shut``), or player 1's
    expected wins, a draw counting 1/2 (``win``).
    """

    rules: ShutRules
    graph: CompiledGame[ShutState]
    solution: Solution
    policy: np.ndarray
    compile_seconds: float
    solve_seconds: float
    order: np.ndarray | None = None

    @property
    def objective(self) -> str:
        """The rules' objective."""
        return self.rules.objective

    @property
    def value(self) -> float:
        """Value of the initial state (see the class docstring for units)."""
        return self.solution.value

    @property
    def game(self) -> ShutGame:
        """The protocol game behind the graph (for successor states)."""
        assert self.graph.states is not None  # compile_game names them
        return ShutGame(self.rules, self.order, self.graph.states[0])

    def locate(self, state: ShutState) -> tuple[ShutSolution, int]:
        """The solution holding a non-terminal state and its node there (a subgame is
        solved, once, for a state that is not reachable from the start)."""
        index = self.graph.index
        if index is not None and state in index:
            return self, index[state]
        for (rules, _), sol in list(_SOLVED.items()):  # a subgame solved before
            if rules == self.rules and sol.graph.index is not None and state in sol.graph.index:
                return sol, sol.graph.index[state]
        return solved(self.rules, start=state), 0

    def value_of(self, state: ShutState) -> float:
        """Engine value of any state of this game (see the class docstring for units)."""
        state = settle(self.rules, state)
        if state[0] in TERMINALS:
            return self.game.terminal_value(state)
        sol, node = self.locate(state)
        return float(sol.solution.values[node])


def score_state(state: ShutState) -> ShutState:
    """The one-player state with the same tiles and roll (player 2's target dropped)."""
    tag = state[0]
    if tag in ("turn2", "dice2", "roll2"):
        return (tag[:-1], *state[1:-1])
    return state


def _score_order(rules: ShutRules, starts: tuple[ShutState, ...]) -> np.ndarray:
    """Expected final score (points) by mask under score-optimal play (nan if not needed)."""
    order = np.full(1 << rules.tiles, np.nan)
    order[0] = 0.0
    for start in starts:
        sol = solved(rules.with_objective("score"), start=start)
        assert sol.graph.states is not None  # compile_game names them
        for s, state in enumerate(sol.graph.states):
            if state[0] == "turn":
                order[state[1]] = sol.solution.values[s]
    return order


_SOLVED: dict[tuple[ShutRules, ShutState], ShutSolution] = {}


def solve_shutbox(rules: ShutRules, *, start: ShutState | None = None) -> ShutSolution:
    """Compile and solve one Shut the Box game exactly (backward induction).

    ``start`` (optional) roots the game at another state (e.g. an unreachable position).
    ``compile_seconds`` includes the score-optimal solve that orders moves for ``shut``
    and ``win`` games.
    """
    t0 = time.perf_counter()
    order = None
    if rules.objective != "score":
        starts = [("turn", rules.full)]
        if start is not None:
            starts.append(score_state(start))
        order = _score_order(rules, tuple(dict.fromkeys(starts)))
    graph = compile_game(ShutGame(rules, order, start))
    t1 = time.perf_counter()
    sol = solve(graph, ENGINE_OBJECTIVES[rules.objective])
    policy = extract_policy(sol)
    t2 = time.perf_counter()
    return ShutSolution(rules, graph, sol, policy, t1 - t0, t2 - t1, order)


def solved(rules: ShutRules, start: ShutState | None = None) -> ShutSolution:
    """The solution of a game, solved once per process. The whole game (no ``start``) is
    stored through ``diceopt.storage`` (graph, values and policy) and loaded from there;
    subgames rooted at unreachable positions are small and only kept in memory."""
    if start is not None and start == ("turn", rules.full):
        start = None
    if start is not None:
        if (rules, start) not in _SOLVED:
            _SOLVED[(rules, start)] = solve_shutbox(rules, start=start)
        return _SOLVED[(rules, start)]
    return storage.solved_once(
        _SOLVED,
        (rules, None),
        table_key(rules),
        lambda: solve_shutbox(rules),
        solution_table,
        lambda stored: solution_from_table(rules, stored),
    )


def table_key(rules: ShutRules) -> storage.TableKey:
    """The storage key of a whole game's solution (values per node, graph and names)."""
    variant = f"{rules.dice_rule}-{rules.tiles}"
    extra = ("policy", "order", "names", *CompiledGame.ARRAYS, "label_code")
    return storage.TableKey("shutbox", variant, rules.objective, extra=extra)


def solution_table(sol: ShutSolution) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """A solution as arrays (node values first; the graph's names as JSON bytes)."""
    arrays, names = sol.graph.to_table()
    order = sol.order if sol.order is not None else np.zeros(0)
    meta = {
        "seconds": sol.compile_seconds + sol.solve_seconds,
        "compile_seconds": sol.compile_seconds,
        "solve_seconds": sol.solve_seconds,
        "sweeps": sol.solution.sweeps,
        "residual": sol.solution.residual,
        "value": sol.value,
    }
    table = {
        "values": sol.solution.values,
        "policy": sol.policy,
        "order": order,
        "names": np.frombuffer(json.dumps(names).encode(), dtype=np.uint8),
        **arrays,
    }
    return table, meta


def solution_from_table(rules: ShutRules, stored: storage.Stored) -> ShutSolution:
    """A solution stored by ``solution_table`` (no graph building, no solve)."""
    a, h = stored.arrays, stored.header
    names = json.loads(bytes(a["names"]).decode())
    graph = CompiledGame.from_table(a, names)
    objective = ENGINE_OBJECTIVES[rules.objective]
    solution = Solution(
        graph,
        a["values"],
        objective,
        1.0,
        int(h.get("sweeps", 1)),
        float(h.get("residual", 0.0)),
        0.0,
    )
    order = a["order"] if len(a["order"]) else None
    return ShutSolution(
        rules,
        graph,
        solution,
        a["policy"],
        float(h.get("compile_seconds", 0.0)),
        float(h.get("solve_seconds", 0.0)),
        order,
    )
