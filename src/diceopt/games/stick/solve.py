"""The solved game: values and best holds of every roll (points), solved on the engine,
stored in the table cache and kept once per process; policies evaluated exactly."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from diceopt import storage
from diceopt.engine import CompiledGame, Solution, compile_game, extract_policy, solve
from diceopt.errors import InputError
from diceopt.games.stick.game import StickGame, StickState
from diceopt.games.stick.rules import REROLL, STICK, StickRules
from diceopt.lazy import numpy as np

_SOLVED: dict[StickRules, StickSolution] = {}


@dataclass
class _Solved:
    """The engine objects of a fresh solve."""

    game: StickGame
    graph: CompiledGame[StickState]
    solution: Solution
    policy: np.ndarray


def _solve_graph(
    rules: StickRules, progress: Callable[[int], None] | None = None
) -> tuple[_Solved, float]:
    """Build and solve the engine graph; the objects and the build seconds."""
    import time

    t0 = time.perf_counter()
    game = StickGame(rules)
    graph = compile_game(game, progress)
    compile_seconds = time.perf_counter() - t0
    solution = solve(graph)
    return _Solved(game, graph, solution, extract_policy(solution)), compile_seconds


@dataclass
class StickSolution:
    """The solved game: expected points still to come, per multiset of the keep lattice.

    ``values[i]`` (points) is the value of the full roll i, or of holding the partial
    multiset i before rolling the rest (penalty not included). ``best[i]`` is the
    optimal hold of full roll i (a lattice index; i itself means stick; -1 for partial
    multisets). These two arrays answer every question and are what the table cache
    stores; ``game``, ``graph``, ``solution`` and ``policy`` (the engine's objects) are
    rebuilt on first use when the solution was loaded.
    """

    rules: StickRules
    values: np.ndarray
    best: np.ndarray
    compile_seconds: float
    solve_seconds: float
    loaded: bool = False
    _engine: _Solved | None = field(default=None, repr=False)

    @classmethod
    def from_engine(
        cls, rules: StickRules, solved: _Solved, compile_seconds: float
    ) -> StickSolution:
        """Lattice values and best holds read off a solved engine graph."""
        lat = rules.lattice
        g, game, pol = solved.graph, solved.game, solved.policy
        assert g.states is not None and g.actions is not None  # compile_game names them
        values = np.full(len(lat.counts), np.nan)
        best = np.full(len(lat.counts), -1, dtype=np.int64)
        for i in range(len(lat.counts)):
            node = g.index.get(game.keep_state(i)) if g.index is not None else None
            if node is not None:
                values[i] = solved.solution.values[node]
        for i in lat.full():
            s = g.state_id(("roll", int(i)))
            while True:
                e = int(pol[s])
                action, s = g.actions[e], int(g.target[e])
                if action == STICK:
                    best[i] = i
                    break
                if action == "hold":
                    best[i] = g.states[s][1]
                    break
        return cls(rules, values, best, compile_seconds, solved.solution.seconds, _engine=solved)

    def _engine_objects(self) -> _Solved:
        if self._engine is None:
            self._engine, _ = _solve_graph(self.rules)
        return self._engine

    @property
    def game(self) -> StickGame:
        """The engine game (rebuilt on first use when loaded)."""
        return self._engine_objects().game

    @property
    def graph(self) -> CompiledGame:
        """The compiled engine graph (rebuilt on first use when loaded)."""
        return self._engine_objects().graph

    @property
    def solution(self) -> Solution:
        """The engine solution (re-solved on first use when loaded)."""
        return self._engine_objects().solution

    @property
    def policy(self) -> np.ndarray:
        """The engine policy (re-solved on first use when loaded)."""
        return self._engine_objects().policy

    @property
    def value(self) -> float:
        """Expected final score of optimal play from the first roll (points)."""
        return float(self.values[0])

    def roll_value(self, counts: np.ndarray) -> float:
        """Expected points still to come from a roll showing ``counts``, before choosing.

        Penalties already paid are not included: add the points so far for the final score.
        """
        return float(self.values[self.rules.lattice.index(counts)])

    def hold_value(self, roll: np.ndarray, held: np.ndarray) -> float:
        """Expected points still to come after holding ``held`` out of ``roll`` (all = stick).

        Includes this reroll's penalty, not the ones already paid.
        """
        roll = np.asarray(roll)
        held = np.asarray(held)
        if (held > roll).any():
            raise InputError("you can only hold dice that show")
        if (held == roll).all():
            return self.rules.score(roll)
        return -self.rules.penalty + float(self.values[self.rules.lattice.index(held)])

    def best_hold(self, roll: np.ndarray) -> np.ndarray:
        """The optimal dice to hold (count vector); equal to ``roll`` means stick."""
        lat = self.rules.lattice
        return lat.counts[int(self.best[lat.index(roll)])].copy()

    def table(self) -> list[dict[str, Any]]:
        """Every roll with its optimal hold and values, in lattice order."""
        rows = []
        lat = self.rules.lattice
        for i in lat.full():
            counts = lat.counts[i]
            hold = self.best_hold(counts)
            rows.append(
                {
                    "dice": list(self.rules.values_of(counts)),
                    "action": STICK if (hold == counts).all() else REROLL,
                    "hold": list(self.rules.values_of(hold)),
                    "value": self.roll_value(counts),
                    "stick_score": self.rules.score(counts),
                }
            )
        return rows


def solve_stick(rules: StickRules, progress: Callable[[int], None] | None = None) -> StickSolution:
    """Solve stick or reroll exactly: the value of every roll and the optimal policy.

    ``progress`` (optional) is called with the number of graph nodes built so far.
    """
    solved_graph, compile_seconds = _solve_graph(rules, progress)
    return StickSolution.from_engine(rules, solved_graph, compile_seconds)


def evaluate_stick_policy(rules: StickRules, policy: dict[int, int | None]) -> float:
    """Exact expected final score (points) of a policy: roll index -> held index or None.

    Every roll of the policy's game has exactly one action, so solving it evaluates the
    policy; a policy that never sticks raises SolveError (its value diverges).
    """
    return solve(compile_game(StickGame(rules, policy))).value


def optimal_policy_map(solution: StickSolution) -> dict[int, int | None]:
    """The optimal policy as roll index -> held index (None = stick)."""
    lat = solution.rules.lattice
    out: dict[int, int | None] = {}
    for i in lat.full():
        hold = solution.best_hold(lat.counts[i])
        out[int(i)] = None if (hold == lat.counts[i]).all() else lat.index(hold)
    return out


def table_key(rules: StickRules) -> storage.TableKey:
    """The storage key of a solution: ``NdK`` for plain dice with penalty 1, else with a
    digest of the full rules (values, bias, penalty) appended."""
    variant = f"{rules.dice}d{rules.sides}"
    if rules != StickRules(rules.dice, rules.sides):
        text = json.dumps(rules.describe(), sort_keys=True)
        variant += "-" + hashlib.sha256(text.encode()).hexdigest()[:16]
    size = len(rules.lattice.counts)
    return storage.TableKey(
        "stick", variant, "expected", 0.0, "float64", shape=(size,), extra=("best",)
    )


def solved(rules: StickRules, cache_dir: str | None = None) -> StickSolution:
    """The solution of ``rules`` (values and best keeps): once per process, loaded from
    the table cache when stored there, else solved and stored (``cache_dir`` overrides
    the cache directory)."""

    def to_table(sol: StickSolution) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        times = storage.solve_times(sol.compile_seconds, sol.solve_seconds)
        meta = {**times, "value": sol.value, "rules": rules.describe()}
        return {"values": sol.values, "best": sol.best}, meta

    def from_table(stored: storage.Stored) -> StickSolution:
        h = stored.header
        if h.get("rules") != rules.describe():
            storage.warn("a cached stick table has other rules than its name says; re-solving")
            return solve_stick(rules)
        best = stored.arrays["best"].astype(np.int64)
        times = storage.stored_times(h)
        return StickSolution(rules, stored.arrays["values"], best, *times, loaded=True)

    return storage.solved_once(
        _SOLVED,
        rules,
        table_key(rules),
        lambda: solve_stick(rules),
        to_table,
        from_table,
        cache_dir,
    )


def play_games(solution: StickSolution, games: int, rng: np.random.Generator) -> np.ndarray:
    """Final scores (points) of ``games`` seeded games under optimal play."""
    from diceopt.simulate import simulate

    return simulate(solution.graph, solution.policy, games, rng)
