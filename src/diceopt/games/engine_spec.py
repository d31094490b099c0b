"""A GameSpec for any game written to the engine protocol: positions are its states.

A game author gives the engine game (``game(rules)``: ``initial_state`` and ``node``,
chance outcomes labelled with the dice rolled), the text of a state and its parser;
solving, advice, playing (``apply`` walks the compiled graph with ``engine.advance``, so
the rules exist once) and fast simulation come from here. The points of a game are the
edge rewards plus the terminal value; a position's values count what is still to come
from it (a game that shows a running total keeps it in its state).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

from diceopt.advice import Advice, rank_actions
from diceopt.engine import (
    CompiledGame,
    Game,
    Objective,
    Solution,
    action_values,
    advance,
    compile_game,
    extract_policy,
    solve,
)
from diceopt.engine.compile import DECISION, TERMINAL
from diceopt.errors import InputError
from diceopt.games.contract import GameSpec, Report, Step
from diceopt.lazy import numpy as np


class EngineGameSpec(GameSpec):
    """GameSpec of a one-player engine game; fill in ``game``, ``parse_text``, ``format``."""

    objective: Objective = Objective("expected")

    def game(self, rules: Any) -> Game:
        """The engine game of ``rules``."""
        raise NotImplementedError

    def describe_label(self, label: Hashable | None) -> str:
        """A chance outcome's label in words (default: ``rolled 4``)."""
        return f"rolled {label}"

    def solved(self, rules: Any) -> tuple[CompiledGame, Solution, np.ndarray]:
        """The compiled game, its solution and optimal policy, built once per rules."""
        cache: dict[Any, Any] = self.__dict__.setdefault("_solved", {})
        if rules not in cache:
            graph = compile_game(self.game(rules))
            solution = solve(graph, self.objective)
            cache[rules] = (graph, solution, extract_policy(solution))
        return cache[rules]

    def node_of(self, rules: Any, pos: Hashable) -> int:
        """The node of a position; InputError when the rules cannot reach it."""
        graph, _, _ = self.solved(rules)
        if graph.index is None or pos not in graph.index:
            raise InputError(f"'{self.format(rules, pos)}' cannot occur under these rules")
        return graph.index[pos]

    def parse_json(self, rules: Any, data: Mapping[str, Any]) -> Hashable:
        """``{"position": "<text notation>"}``."""
        text = data.get("position")
        if set(data) != {"position"} or not isinstance(text, str):
            raise InputError('a JSON position is {"position": "<text notation>"}')
        return self.parse_text(rules, text)

    def to_json(self, rules: Any, pos: Hashable) -> dict[str, Any]:
        """``{"position": "<text notation>"}``."""
        return {"position": self.format(rules, pos)}

    def new_position(self, rules: Any, rng: np.random.Generator) -> Hashable:
        """The first decision of a game (chance nodes before it rolled with ``rng``)."""
        graph, _, _ = self.solved(rules)
        node = 0 if graph.kind[0] != 1 else advance(graph, 0, None, rng).node
        assert graph.states is not None  # compile_game names them
        return graph.states[node]

    def advise(self, rules: Any, pos: Hashable, **options: Any) -> Advice:
        """Every action of the position's decision node with its value, best first."""
        graph, solution, _ = self.solved(rules)
        node = self.node_of(rules, pos)
        if graph.kind[node] != DECISION:
            raise InputError(f"'{self.format(rules, pos)}' is not a decision: the game is over")
        values = [(str(a.action), a.value) for a in action_values(solution, node)]
        lower = self.objective.minimize
        return Advice(rank_actions(values, lower_is_better=lower), "value from here on")

    def independent_values(self, rules: Any, pos: Hashable) -> dict[str, float]:
        """Every action's value under the exact evaluation of the optimal policy (the
        solve's values are not read): the second path of the advice."""
        from diceopt.games.exact import policy_action_values

        graph, solution, policy = self.solved(rules)
        node = self.node_of(rules, pos)
        if graph.kind[node] != DECISION:
            raise InputError(f"'{self.format(rules, pos)}' is not a decision: the game is over")
        pairs = policy_action_values(graph, solution.objective, policy, node)
        return {str(action): value for action, value in pairs}

    def apply(self, rules: Any, pos: Hashable, action: str, rng: np.random.Generator) -> Step:
        """Take the action's edge and roll on to the next decision (labels as events)."""
        graph, solution, _ = self.solved(rules)
        node = self.node_of(rules, pos)
        wanted = self.canonical_action(rules, pos, action)
        edges = [a.edge for a in action_values(solution, node) if str(a.action) == wanted]
        if not edges:
            raise InputError(f"{action.strip()!r} is not a legal action here")
        walk = advance(graph, node, edges[0], rng)
        events = tuple(self.describe_label(label) for label in walk.labels)
        over = graph.kind[walk.node] == TERMINAL
        result = walk.reward + float(graph.terminal_value[walk.node]) if over else None
        assert graph.states is not None  # compile_game names them
        return Step(graph.states[walk.node], bool(over), 0, events, result)

    def solve(self, rules: Any, **options: Any) -> Report:
        """The optimal value from the start and the size of the game graph."""
        graph, solution, _ = self.solved(rules)
        data = {"states": graph.num_states, "edges": graph.num_edges, "sweeps": solution.sweeps}
        lines = [f"{graph.num_states:,} nodes, {graph.num_edges:,} edges"]
        return Report(solution.value, data, lines)

    def simulate(self, rules: Any, games: int, rng: np.random.Generator, **options: Any) -> Report:
        """Seeded games of optimal play on the engine's numba simulator."""
        from diceopt.simulate import simulate

        graph, solution, policy = self.solved(rules)
        return self.simulation_report(simulate(graph, policy, games, rng), solution.value)

    def env_codec(self, rules: Any) -> Any:
        """Environments: the distinct actions of the compiled graph (edge order) and one
        entry, the position's node number."""
        from diceopt.games.codec import Codec, observation

        graph, _, _ = self.solved(rules)
        assert graph.actions is not None  # compile_game names them
        seen: dict[str, None] = {}
        for s in np.flatnonzero(graph.kind == DECISION):
            for e in range(int(graph.start[s]), int(graph.start[s + 1])):
                seen.setdefault(str(graph.actions[e]), None)
        nvec = (int(graph.num_states),)

        def encode(pos: Any, viewer: int = 0) -> np.ndarray:
            return observation([self.node_of(rules, pos)], nvec)

        return Codec(tuple(seen), nvec, ("node",), encode)

    def exact_evaluation(
        self, rules: Any, choose: Callable[[Any, list[str]], str], seat: int = 1
    ) -> tuple[float, int]:
        """The policy queried at every decision node of the compiled graph: its exact
        value from the start (the objective's units). One-player rules only."""
        from diceopt.games.exact import edge_of, mixed_policy_value

        if self.players_of(rules) != 1:
            return super().exact_evaluation(rules, choose, seat)
        graph, solution, policy = self.solved(rules)
        states = graph.states
        assert states is not None  # compile_game names them
        decisions = np.flatnonzero(graph.kind == DECISION)

        def edge(s: int) -> int:
            pos = states[s]
            legal = sorted(a.action for a in self.advise(rules, pos).actions)
            return edge_of(graph, s, choose(pos, legal), str)

        value = mixed_policy_value(graph, solution.objective, policy, edge, decisions)
        return value, len(decisions)
