"""Shut the Box (RULES §4) on the generic engine: one player (score or P(shut)) and two.

Tiles 1..N (N = 1..12) start open. A turn: roll, then shut open tiles whose sum equals
the roll; the turn ends when no set of open tiles sums to the roll. The score is the sum
of the tiles left open (0 when the box is shut). Dice rules (ids in ``DICE_RULES``):
``two-then-one`` (two dice while the open tiles sum to more than 6, then one die),
``optional-one`` (at 6 or less the player chooses one or two dice), ``always-two``.

Objectives: ``score`` (one player, minimise the expected score, points), ``shut`` (one
player, maximise the probability of shutting the box), ``win`` (two players, RULES §4:
player 1 plays a whole turn scoring t, shutting wins outright; player 2 then plays knowing
t; lower score wins, a tie is half a win; values are player 1's expected wins).

The rules are written once, in ``ShutGame.node``: the solver compiles them into a graph,
and playing (``ShutSpec.apply``) walks that graph with the engine's ``advance``, the
chance outcomes labelled with the roll.

Engine states (tuples; masks have bit i set when tile i + 1 is open):
- ``("turn", mask)``: before a roll (a chance node, or the one-or-two-dice decision);
  ``("dice", mask, n)``: n dice chosen; ``("roll", mask, r)``: roll r shown, at least two
  ways to shut (in the graph a roll with one legal move leads straight on, one with none
  ends the turn; ``node`` still answers such roll states, for advice and play);
- player 2 (objective ``win``): ``("turn2", mask, t)``, ``("dice2", mask, n, t)``,
  ``("roll2", mask, r, t)``;
- terminals: ``("end", mask)`` (one player), ``("p1shut",)`` (player 1 shut the box),
  ``("p2end", u, t)`` (player 2 finished with score u), ``("p2won", mask)`` (player 2's
  open tiles already sum to less than t: player 2 wins whatever happens).

The score game minimises with ``Objective("expected", minimize=True)``; the shut game
maximises P(shut); the win game is written with absolute values (player 1's expected
wins; player 2's decisions minimise them). In the ``shut`` and ``win`` games every
decision lists its moves in increasing order of the score-optimal expected score after
the move, so the engine's tie-break (first of the equally good moves) picks the
score-best of them.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, cast

from diceopt import storage
from diceopt.advice import Advice, rank_actions
from diceopt.engine import (
    Chance,
    CompiledGame,
    Decision,
    Objective,
    Solution,
    Terminal,
    advance,
    compile_game,
    evaluate_policy,
    extract_policy,
    q_values,
    sample_edge,
    solve,
)
from diceopt.engine.compile import CHANCE, TERMINAL
from diceopt.errors import InputError
from diceopt.games.contract import (
    Command,
    CommandOutput,
    GameSpec,
    Parameter,
    Report,
    Step,
    check_variant_params,
)
from diceopt.lazy import numpy as np
from diceopt.notation import parse_int, split_fields

DICE_RULES = ("two-then-one", "optional-one", "always-two")
OBJECTIVES = ("score", "shut", "win")
TILES_MAX = 12
ONE_DIE_AT = 6  # open tiles summing to this or less allow (or force) one die
ONE_DIE = tuple((r, 1.0 / 6.0) for r in range(1, 7))
TWO_DICE = tuple((s, (6 - abs(s - 7)) / 36.0) for s in range(2, 13))
DICE_LABELS = {1: "roll one die", 2: "roll two dice"}
END_TURN = "end turn"
ROLL = "roll"
DIFF_TOLERANCE = 1e-12  # win probability a move must lose to count as a different move
DIFF_LIMIT = 25  # rows ``diff`` prints without --limit
TERMINALS = ("end", "p1shut", "p2end", "p2won")
ShutState = tuple[Any, ...]  # an engine state: (tag, ...), see the module docstring
ENGINE_OBJECTIVES = {
    "score": Objective("expected", minimize=True),
    "shut": Objective("expected"),
    "win": Objective("win"),
}
UNITS = {
    "score": "expected final score (points, lower is better)",
    "shut": "probability of shutting the box",
    "win": "expected wins of the player to move (a draw counts 1/2)",
}


def tiles_of(mask: int) -> tuple[int, ...]:
    """Tile numbers of a bit mask (bit i = tile i + 1), ascending."""
    return tuple(i + 1 for i in range(mask.bit_length()) if mask >> i & 1)


def mask_of(tiles: tuple[int, ...] | list[int]) -> int:
    """Bit mask of tile numbers."""
    mask = 0
    for t in tiles:
        mask |= 1 << (t - 1)
    return mask


def tile_sum(mask: int) -> int:
    """Sum of the tiles in a mask (points)."""
    return sum(tiles_of(mask))


@dataclass(frozen=True)
class ShutRules:
    """Shut the Box: the number of tiles (1..12), the dice rule and the objective."""

    tiles: int = 9
    dice_rule: str = "two-then-one"
    objective: str = "score"

    def __post_init__(self) -> None:
        if not isinstance(self.tiles, int) or not 1 <= self.tiles <= TILES_MAX:
            raise InputError(f"the number of tiles must be 1 to {TILES_MAX}, got {self.tiles}")
        if self.dice_rule not in DICE_RULES:
            raise InputError(
                f"unknown dice rule {self.dice_rule!r}; choose from {', '.join(DICE_RULES)}"
            )
        if self.objective not in OBJECTIVES:
            raise InputError(
                f"unknown objective {self.objective!r}; choose from {', '.join(OBJECTIVES)}"
            )

    @property
    def players(self) -> int:
        """2 in the win game, else 1."""
        return 2 if self.objective == "win" else 1

    @property
    def full(self) -> int:
        """Mask of all tiles open."""
        return (1 << self.tiles) - 1

    def with_objective(self, objective: str) -> ShutRules:
        """The same box and dice rule with another objective."""
        return dataclasses.replace(self, objective=objective)

    def describe(self) -> dict[str, Any]:
        """The parameters as plain JSON-ready data."""
        return {
            "tiles": self.tiles,
            "dice_rule": self.dice_rule,
            "objective": self.objective,
            "players": self.players,
        }

    @cached_property
    def _sums(self) -> list[int]:
        return [tile_sum(m) for m in range(1 << self.tiles)]

    @cached_property
    def _by_sum(self) -> dict[int, list[int]]:
        """Submasks of the full box by their sum (2..12 and 1..6 only matter)."""
        out: dict[int, list[int]] = {r: [] for r in range(1, 13)}
        for m in range(1, 1 << self.tiles):
            s = self._sums[m]
            if s <= 12:
                out[s].append(m)
        for r in out:  # canonical order: fewer tiles first, then higher tiles first
            out[r].sort(key=lambda m: (m.bit_count(), [-t for t in reversed(tiles_of(m))]))
        return out

    def total(self, mask: int) -> int:
        """Sum of the open tiles (points)."""
        return self._sums[mask]

    def dice_options(self, mask: int) -> tuple[int, ...]:
        """Numbers of dice the player may roll with these tiles open."""
        if self.dice_rule == "always-two" or self._sums[mask] > ONE_DIE_AT:
            return (2,)
        return (1,) if self.dice_rule == "two-then-one" else (1, 2)

    def possible_rolls(self, mask: int) -> range:
        """Rolls that can show with these tiles open under the dice rule."""
        options = self.dice_options(mask)
        if options == (2,):
            return range(2, 13)
        if options == (1,):
            return range(1, 7)
        return range(1, 13)

    def moves(self, mask: int, roll: int) -> list[int]:
        """Submasks of ``mask`` summing to ``roll`` (canonical order)."""
        if not 1 <= roll <= 12:
            return []
        return [s for s in self._by_sum[roll] if s & mask == s]

    def rule_text(self, mask: int) -> str:
        """How many dice may be rolled here, in words."""
        options = self.dice_options(mask)
        if options == (1, 2):
            return "one or two dice"
        return "one die" if options == (1,) else "two dice"


def roll_distribution(n: int) -> tuple[tuple[int, float], ...]:
    """(roll, probability) pairs of one die or the sum of two dice."""
    return ONE_DIE if n == 1 else TWO_DICE


def target_of(state: ShutState) -> int | None:
    """Player 2's target (player 1's score) in a player-2 state, else None."""
    tag = state[0]
    if tag == "turn2":
        return state[2]
    if tag in ("dice2", "roll2"):
        return state[3]
    return None


class ShutGame:
    """Shut the Box written to the engine's game protocol (see the module docstring).

    ``order`` (optional): expected score (points) by mask under score-optimal play;
    moves are listed best-score first (ties: canonical order). ``start`` (optional):
    the initial state, by default ``("turn", full)``.
    """

    def __init__(
        self, rules: ShutRules, order: np.ndarray | None = None, start: ShutState | None = None
    ) -> None:
        self.rules = rules
        self.objective = rules.objective
        self.order = order
        self.start = start if start is not None else ("turn", rules.full)

    def initial_state(self) -> ShutState:
        """The first roll of the game (or the given start)."""
        return self.start

    # successors ----------------------------------------------------------------------
    def after(self, mask: int, target: int | None) -> ShutState:
        """State after a move leaves ``mask`` open (target None: player 1 / one player)."""
        if target is not None:
            if self.rules.total(mask) < target:
                return ("p2won", mask)
            return ("turn2", mask, target)
        if mask == 0:
            return ("p1shut",) if self.objective == "win" else ("end", 0)
        return ("turn", mask)

    def ended(self, mask: int, target: int | None) -> ShutState:
        """State when a roll leaves no move with ``mask`` open: the turn is over."""
        score = self.rules.total(mask)
        if target is not None:
            return ("p2end", score, target)
        if self.objective == "win":
            return self.after(self.rules.full, score)
        return ("end", mask)

    def sorted_moves(self, mask: int, roll: int) -> list[int]:
        """Moves of a roll, best score-optimal expected score first (see ``order``)."""
        moves = self.rules.moves(mask, roll)
        if self.order is not None and len(moves) > 1:
            order = self.order
            moves.sort(key=lambda s: order[mask ^ s])  # stable: ties keep canonical order
        return moves

    def _roll_outcomes(self, mask: int, n: int, target: int | None) -> Chance:
        """One outcome per roll, labelled with the roll."""
        outcomes = []
        for roll, p in roll_distribution(n):
            moves = self.rules.moves(mask, roll)
            if not moves:
                nxt = self.ended(mask, target)
            elif len(moves) == 1:
                nxt = self.after(mask ^ moves[0], target)
            elif target is None:
                nxt = ("roll", mask, roll)
            else:
                nxt = ("roll2", mask, roll, target)
            outcomes.append((p, 0.0, nxt, roll))
        return Chance(outcomes)

    def node(self, state: ShutState) -> Terminal | Chance | Decision:
        """The node of a state (see the module docstring)."""
        tag = state[0]
        if tag in ("turn", "turn2"):
            mask, target = state[1], target_of(state)
            options = self.rules.dice_options(mask)
            if len(options) == 1:
                return self._roll_outcomes(mask, options[0], target)
            nexts: list[ShutState]
            if target is None:
                nexts = [("dice", mask, n) for n in options]
            else:
                nexts = [("dice2", mask, n, target) for n in options]
            player = 0 if target is None else 1
            return Decision([(DICE_LABELS[n], 0.0, s) for n, s in zip(options, nexts)], player)
        if tag in ("dice", "dice2"):
            return self._roll_outcomes(state[1], state[2], target_of(state))
        if tag in ("roll", "roll2"):
            mask, roll, target = state[1], state[2], target_of(state)
            player = 0 if target is None else 1
            moves = self.sorted_moves(mask, roll)
            if not moves:  # only outside the graph (advice and play on such a roll)
                return Decision([(END_TURN, 0.0, self.ended(mask, target))], player)
            return Decision(
                [(tiles_of(s), 0.0, self.after(mask ^ s, target)) for s in moves], player
            )
        return Terminal(self.terminal_value(state))

    def terminal_value(self, state: ShutState) -> float:
        """Value of a terminal state: points (score), 0/1 (shut), player 1's win share (win)."""
        tag = state[0]
        if tag == "end":
            score = self.rules.total(state[1])
            if self.objective == "score":
                return float(score)
            return 1.0 if score == 0 else 0.0
        if tag == "p1shut":
            return 1.0
        if tag == "p2end":
            u, t = state[1], state[2]
            return 1.0 if u > t else 0.5 if u == t else 0.0
        if tag == "p2won":
            return 0.0
        raise InputError(f"not a shut-the-box state: {state!r}")


def settle(rules: ShutRules, state: ShutState) -> ShutState:
    """A player-2 state before the roll whose open tiles already beat the target: won."""
    target = target_of(state)
    if state[0] in ("turn2", "dice2") and target is not None and rules.total(state[1]) < target:
        return ("p2won", state[1])
    return state


# --- solving ----------------------------------------------------------------------------


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


# --- two players: win-optimal versus score-optimal ----------------------------------


def _decision_players(graph: CompiledGame) -> tuple[np.ndarray, np.ndarray]:
    """Decision nodes of a two-player graph and their engine player (0 = player 1)."""
    d = np.flatnonzero(graph.kind == 2)
    return d, graph.player[d]


def score_policy_in(target: ShutSolution, score: ShutSolution) -> np.ndarray:
    """The score-optimal policy written on ``target``'s graph (edge per decision node).

    At every decision of ``target`` (player 1's or player 2's) the move is the one the
    score-minimising player takes with the same tiles and roll.
    """
    g, sg = target.graph, score.graph
    # compile_game names every state and action
    assert g.states is not None and g.actions is not None and sg.actions is not None
    choice = np.full(g.num_states, -1, dtype=np.int64)
    for d in np.flatnonzero(g.kind == 2).tolist():
        label = sg.actions[score.policy[sg.state_id(score_state(g.states[d]))]]
        for e in range(g.start[d], g.start[d + 1]):
            if g.actions[e] == label:
                choice[d] = e
                break
    return choice


def policy_on_score_graph(
    source: ShutSolution, score: ShutSolution, choice: np.ndarray
) -> np.ndarray:
    """A policy of player 1's moves in ``source`` written on the one-player score graph."""
    g, sg = source.graph, score.graph
    # compile_game names every state and action
    assert g.actions is not None and sg.states is not None and sg.actions is not None
    out = np.full(sg.num_states, -1, dtype=np.int64)
    for d in np.flatnonzero(sg.kind == 2).tolist():
        label = g.actions[choice[g.state_id(sg.states[d])]]
        for e in range(sg.start[d], sg.start[d + 1]):
            if sg.actions[e] == label:
                out[d] = e
                break
    return out


def duel_report(rules: ShutRules) -> dict[str, Any]:
    """Two players: player 1's expected wins under each mix of win- and score-optimal play.

    Policies are evaluated exactly with the engine. ``*_expected_score`` are points:
    player 1's expected score, and player 2's expected score given that player 2 plays
    (player 1 did not shut the box), under each player's own two policies.
    """
    win, score = solved(rules.with_objective("win")), solved(rules.with_objective("score"))
    g = win.graph
    d, who = _decision_players(g)
    p1_nodes, p2_nodes = d[who == 0], d[who == 1]
    win_pol = win.policy
    score_pol = score_policy_in(win, score)

    def wins(p1: np.ndarray | None, p2: np.ndarray | None) -> float:
        choice = np.full(g.num_states, -1, dtype=np.int64)
        if p1 is not None:
            choice[p1_nodes] = p1[p1_nodes]
        if p2 is not None:
            choice[p2_nodes] = p2[p2_nodes]
        return evaluate_policy(g, choice, Objective("win")).value

    both_win = win.value
    p1_score = wins(score_pol, win_pol)
    p2_score = wins(win_pol, score_pol)
    p2_score_best_reply = wins(None, score_pol)
    both_score = wins(score_pol, score_pol)

    # player 1's expected score with each of its policies (one-player score graph)
    p1_win_on_score = policy_on_score_graph(win, score, win_pol)
    p1_win_points = evaluate_policy(score.graph, p1_win_on_score, Objective("expected")).value

    # player 2's expected score (given that it plays) with each of its policies
    tv = np.zeros(g.num_states)
    shut = np.zeros(g.num_states)
    order = win.order
    assert g.states is not None and order is not None  # the win game has a score order
    for s, state in enumerate(g.states):
        tag = state[0]
        if tag == "p2end":
            tv[s] = state[1]
        elif tag == "p2won":
            tv[s] = order[state[1]]
        elif tag == "p1shut":
            shut[s] = 1.0
    points = dataclasses.replace(g, terminal_value=tv)
    shut_game = dataclasses.replace(g, terminal_value=shut)
    p1_choice = np.full(g.num_states, -1, dtype=np.int64)
    p1_choice[p1_nodes] = win_pol[p1_nodes]
    p_plays = 1.0 - evaluate_policy(shut_game, win_pol, Objective("expected")).value

    def p2_points(policy: np.ndarray) -> float:
        choice = p1_choice.copy()
        choice[p2_nodes] = policy[p2_nodes]
        return evaluate_policy(points, choice, Objective("expected")).value / p_plays

    p2_win_points = p2_points(win_pol)
    p2_score_points = p2_points(score_pol)
    return {
        "rules": rules.with_objective("win").describe(),
        "both_win_optimal": both_win,
        "p1_score_optimal": p1_score,
        "p2_score_optimal": p2_score,
        "p2_score_optimal_p1_best_reply": p2_score_best_reply,
        "both_score_optimal": both_score,
        "p1_gain": both_win - p1_score,
        "p2_gain": p2_score - both_win,
        "p1_expected_score_win_policy": p1_win_points,
        "p1_expected_score_score_policy": score.value,
        "p1_score_given_up": p1_win_points - score.value,
        "p2_expected_score_win_policy": p2_win_points,
        "p2_expected_score_score_policy": p2_score_points,
        "p2_score_given_up": p2_win_points - p2_score_points,
        "p1_shuts": 1.0 - p_plays,
    }


def differing_positions(rules: ShutRules) -> list[dict[str, Any]]:
    """Two-player positions where the win-optimal move differs from the score-optimal one.

    A position counts when the score-minimising move loses win probability (more than
    DIFF_TOLERANCE). Each row: player (1 or 2), position text, both moves, the mover's
    win probability with each (``win_value``, ``score_move_win_value``; probability),
    ``win_lost`` (probability) and the expected score the win-optimal move gives up
    (``score_given_up``, points). Sorted by ``win_lost``, largest first.
    """
    win, score = solved(rules.with_objective("win")), solved(rules.with_objective("score"))
    g, sg = win.graph, score.graph
    # compile_game names every state and action
    assert g.states is not None and g.actions is not None and sg.actions is not None
    score_pol = score_policy_in(win, score)
    rows = []
    for d in np.flatnonzero(g.kind == 2).tolist():
        ew, es = int(win.policy[d]), int(score_pol[d])
        if ew == es:
            continue
        q = q_values(win.solution, d)
        player = int(g.player[d])
        sign = 1.0 if player == 0 else -1.0
        lost = sign * (q[ew - g.start[d]] - q[es - g.start[d]])
        if lost <= DIFF_TOLERANCE:
            continue
        sd = sg.state_id(score_state(g.states[d]))
        sq = q_values(score.solution, sd)
        labels = [sg.actions[e] for e in range(sg.start[sd], sg.start[sd + 1])]
        win_label, score_label = g.actions[ew], g.actions[es]
        points_cost = sq[labels.index(win_label)] - sq[labels.index(score_label)]
        mover = (lambda v: v) if player == 0 else (lambda v: 1.0 - v)
        pos = position_of_state(g.states[d])
        rows.append(
            {
                "player": player + 1,
                "position": pos.text(),
                "win_move": action_text(win_label),
                "score_move": action_text(score_label),
                "win_value": mover(float(q[ew - g.start[d]])),
                "score_move_win_value": mover(float(q[es - g.start[d]])),
                "win_lost": float(lost),
                "score_given_up": float(points_cost),
            }
        )
    # ties (to rounding) by player, then position
    rows.sort(key=lambda r: (-round(r["win_lost"], 12), r["player"], r["position"]))
    return rows


def diff_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The ``diff`` table: one header and one line per row, every column aligned."""
    header = ("pl", "position", "win move", "score move", "P(win) lost", "score cost")
    right = (True, False, False, False, True, True)
    cells = [
        (
            str(r["player"]),
            r["position"],
            r["win_move"],
            r["score_move"],
            f"{r['win_lost']:.6f}",
            f"{r['score_given_up']:.4f}",
        )
        for r in rows
    ]
    widths = [max(len(c[i]) for c in [header, *cells]) for i in range(len(header))]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)
        ).rstrip()

    return [line(header), *(line(c) for c in cells)]


# --- positions -------------------------------------------------------------------------


@dataclass(frozen=True)
class ShutPosition:
    """Open tiles (mask), the roll shown (None before rolling) and player 2's target."""

    open: int
    roll: int | None = None
    target: int | None = None

    def text(self) -> str:
        """``open 1 3 4 7 | roll 8 | target 16`` (``open none`` when all are shut)."""
        parts = ["open " + (" ".join(map(str, tiles_of(self.open))) or "none")]
        if self.roll is not None:
            parts.append(f"roll {self.roll}")
        if self.target is not None:
            parts.append(f"target {self.target}")
        return " | ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """``{"open": [1, 3, 4, 7], "roll": 8, "target": 16}`` (roll, target when known)."""
        out: dict[str, Any] = {"open": list(tiles_of(self.open))}
        if self.roll is not None:
            out["roll"] = self.roll
        if self.target is not None:
            out["target"] = self.target
        return out


def position_state(pos: ShutPosition) -> ShutState:
    """The engine state of a position (``turn``/``roll`` and their player-2 forms)."""
    if pos.roll is None:
        return ("turn", pos.open) if pos.target is None else ("turn2", pos.open, pos.target)
    if pos.target is None:
        return ("roll", pos.open, pos.roll)
    return ("roll2", pos.open, pos.roll, pos.target)


def position_of_state(state: ShutState) -> ShutPosition:
    """The position of a ``turn``/``dice``/``roll`` engine state (dice count dropped)."""
    tag = state[0]
    if tag in ("turn", "dice"):
        return ShutPosition(state[1])
    if tag in ("turn2", "dice2"):
        return ShutPosition(state[1], None, target_of(state))
    if tag == "roll":
        return ShutPosition(state[1], state[2])
    if tag == "roll2":
        return ShutPosition(state[1], state[2], state[3])
    raise InputError(f"not a position: {state!r}")


def action_text(label: Any) -> str:
    """Text of an engine action: ``shut 1 7``, ``roll one die``, ``roll two dice``."""
    if isinstance(label, tuple):
        return "shut " + " ".join(map(str, label))
    return str(label)


def _numbers(text: str, what: str) -> list[int]:
    out = []
    for word in text.replace(",", " ").replace("+", " ").split():
        try:
            out.append(parse_int(word))
        except InputError as exc:
            too_large = str(exc).startswith("too large")
            reason = exc if too_large else f"{word!r} is not a whole number"
            raise InputError(f"{what}: {reason}") from None
    return out


def make_position(
    rules: ShutRules, tiles: list[int], roll: int | None, target: int | None
) -> ShutPosition:
    """A checked position (InputError, one line, for an impossible one).

    ``open none`` (every tile shut) is the end of a game: no roll can follow it.
    """
    for t in tiles:
        if not 1 <= t <= rules.tiles:
            raise InputError(f"tile {t} is not on a box with tiles 1 to {rules.tiles}")
    if len(set(tiles)) != len(tiles):
        raise InputError(f"a tile is listed twice in 'open {' '.join(map(str, tiles))}'")
    mask = mask_of(tiles)
    if roll is not None:
        if mask == 0:
            raise InputError("every tile is shut: the box is shut and the turn is over")
        if roll not in rules.possible_rolls(mask):
            raise InputError(
                f"roll {roll} is impossible: with open tiles summing to {rules.total(mask)} "
                f"the {rules.dice_rule} rule rolls {rules.rule_text(mask)}"
            )
    if target is not None:
        if rules.objective != "win":
            raise InputError(
                "a target is player 1's score in the two-player game: "
                "use the win objective (--objective win, or a win variant)"
            )
        top = rules.total(rules.full)
        if target == 0:
            raise InputError("target 0 means player 1 shut the box: player 1 has won")
        if not 1 <= target <= top:
            raise InputError(f"target must be player 1's score, 1 to {top}, got {target}")
    return ShutPosition(mask, roll, target)


def parse_position(rules: ShutRules, text: str) -> ShutPosition:
    """Parse ``open 1 3 4 7 | roll 8 | target 16``; InputError for impossible positions.

    ``roll`` is optional (before rolling; two dice may be written apart, ``roll 3 5``);
    ``target`` is player 1's score and marks a player 2 position (win objective only).
    """
    example = "open 1 3 4 7 | roll 8 | target 16"
    fields = split_fields(text, ("open", "roll", "target"), example)
    if "open" not in fields:
        raise InputError("the position needs the open tiles, e.g. 'open 1 3 4 7 | roll 8'")
    words = fields["open"].strip()
    tiles = [] if words in ("none", "-", "") else _numbers(words, "open tiles")
    roll = None
    if "roll" in fields:
        numbers = _numbers(fields["roll"], "roll")
        if len(numbers) == 2 and all(1 <= x <= 6 for x in numbers):
            numbers = [sum(numbers)]  # two dice written separately
        if len(numbers) != 1:
            raise InputError(f"roll: expected one number (the dice total), got {fields['roll']!r}")
        roll = numbers[0]
    target = None
    if "target" in fields:
        numbers = _numbers(fields["target"], "target")
        if len(numbers) != 1:
            raise InputError(f"target: expected one number, got {fields['target']!r}")
        target = numbers[0]
    return make_position(rules, tiles, roll, target)


def position_from_json(rules: ShutRules, data: Mapping[str, Any]) -> ShutPosition:
    """``{"open": [1, 3, 4, 7], "roll": 8, "target": 16}`` (roll and target optional)."""
    unknown = sorted(set(data) - {"open", "roll", "target"})
    if unknown:
        raise InputError(f"unknown field {unknown[0]!r} (fields: open, roll, target)")
    if "open" not in data:
        raise InputError('the position needs the open tiles, e.g. {"open": [1, 3, 4, 7]}')

    def whole(value: Any, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{what}: {value!r} is not a whole number")
        return value

    tiles = data["open"]
    if not isinstance(tiles, list):
        raise InputError(f'"open" must be a list of tile numbers, got {tiles!r}')
    tiles = [whole(t, "open tiles") for t in tiles]
    roll = data.get("roll")
    target = data.get("target")
    return make_position(
        rules,
        tiles,
        None if roll is None else whole(roll, "roll"),
        None if target is None else whole(target, "target"),
    )


DICE_WORDS = {
    "roll": None,
    "r": None,
    "roll one die": 1,
    "one die": 1,
    "one": 1,
    "1 die": 1,
    "roll two dice": 2,
    "two dice": 2,
    "two": 2,
    "2 dice": 2,
}


def parse_move(rules: ShutRules, pos: ShutPosition, text: str) -> str:
    """A typed move as advice writes it: ``shut 1 7``, ``roll``, ``roll one die``,
    ``roll two dice`` or ``end turn`` (InputError, one line, for an illegal move)."""
    words = " ".join(text.strip().lower().split())
    if pos.open == 0:
        raise InputError("every tile is shut: the game is over")
    if pos.roll is None:
        options = rules.dice_options(pos.open)
        if words not in DICE_WORDS:
            legal = [ROLL] if len(options) == 1 else [DICE_LABELS[n] for n in options]
            raise InputError(f"no roll shown yet: type {' or '.join(map(repr, legal))}")
        n = DICE_WORDS[words]
        if n is None:
            if len(options) > 1:
                raise InputError("choose 'roll one die' or 'roll two dice'")
            return ROLL
        if n not in options:
            raise InputError(
                f"with open tiles summing to {rules.total(pos.open)} you roll "
                f"{rules.rule_text(pos.open)}"
            )
        return ROLL if len(options) == 1 else DICE_LABELS[n]
    moves = rules.moves(pos.open, pos.roll)
    if words in (END_TURN, "end", "none", "-"):
        if moves:
            raise InputError(
                f"roll {pos.roll} can be shut: e.g. {action_text(tiles_of(moves[0]))!r}"
            )
        return END_TURN
    if words.startswith("shut"):
        words = words[4:]
    tiles = _numbers(words, "tiles to shut")
    if not tiles:
        raise InputError("name the tiles to shut, e.g. 'shut 1 7'")
    for t in tiles:
        if not 1 <= t <= rules.tiles or not pos.open >> (t - 1) & 1:
            raise InputError(f"tile {t} is not open")
    if len(set(tiles)) != len(tiles):
        raise InputError("a tile is listed twice")
    if sum(tiles) != pos.roll:
        if len(tiles) == 1:
            raise InputError(f"tile {tiles[0]} is not the roll {pos.roll}")
        shown = " + ".join(map(str, tiles))
        raise InputError(f"tiles {shown} = {sum(tiles)}, not the roll {pos.roll}")
    return action_text(tuple(sorted(tiles)))


# --- variants --------------------------------------------------------------------------

VARIANTS = {
    f"{rule}/{objective}": f"9 tiles, {rule.replace('-', ' ')} dice rule: {desc}"
    for objective, desc in (
        ("score", "one player, lowest expected score"),
        ("shut", "one player, best chance to shut the box"),
        ("win", "two players, most wins (add '| target T' for player 2)"),
    )
    for rule in DICE_RULES
}
POSITION_EXAMPLE = "open 1 3 4 7 | roll 8"


def variant_parts(variant: str | None) -> dict[str, Any]:
    """What a variant id ``RULE/OBJECTIVE[/N]`` names (parts in any order, any case), as
    rules parameters: ``dice_rule``, ``objective``, ``tiles`` (only those it names)."""
    parts: dict[str, Any] = {}
    for part in (variant or "").lower().replace(",", "/").split("/"):
        part = part.strip()
        if not part:
            continue
        if part in DICE_RULES:
            parts["dice_rule"] = part
        elif part in OBJECTIVES:
            parts["objective"] = part
        elif part.removesuffix("-tiles").removesuffix("tiles").isdigit():
            parts["tiles"] = parse_int(part.removesuffix("-tiles").removesuffix("tiles"))
        else:
            raise InputError(
                f"unknown shutbox variant {variant!r}: use RULE/OBJECTIVE[/TILES], "
                f"e.g. two-then-one/score (rules: {', '.join(DICE_RULES)}; "
                f"objectives: {', '.join(OBJECTIVES)})"
            )
    if variant is not None and not parts:
        raise InputError(f"unknown shutbox variant {variant!r}: use RULE/OBJECTIVE[/TILES]")
    return parts


def variant_of(variant: str | None) -> ShutRules:
    """Rules of a variant id ``RULE/OBJECTIVE[/N]`` (:func:`variant_parts`).

    RULE in DICE_RULES (default two-then-one), OBJECTIVE in OBJECTIVES (default score),
    N the number of tiles (default 9). None = ``two-then-one/score``.
    """
    parts = variant_parts(variant)
    return ShutRules(
        parts.get("tiles", 9),
        parts.get("dice_rule", "two-then-one"),
        parts.get("objective", "score"),
    )


# --- advice and play -----------------------------------------------------------------


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


# --- the game contract -------------------------------------------------------------


class ShutSpec(GameSpec):
    """Shut the Box in the registry (see ``diceopt.games.contract``).

    ``players`` is 2 (the win objective); the rules say how many play
    (``players_of``), what values mean (``units_of``) and whether lower is better.
    """

    id = "shutbox"
    title = "Shut the Box"
    env_name = "ShutTheBox"
    summary = "one player (lowest score or best chance to shut) or two players (most wins)"
    rules_help = (
        "Tiles 1..N start open. Roll (two dice; one die once the open tiles sum to 6 or\n"
        "less, as the dice rule says), then shut open tiles summing to the roll; the turn\n"
        "ends when no open tiles sum to the roll, scoring the open tiles. Objectives:\n"
        "score (lowest expected score), shut (best chance to shut the box), win (two\n"
        "players: player 2 plays after player 1, knowing player 1's score; lower wins).\n"
        "Positions: 'open 1 3 4 7 | roll 8' ('| target 16' for player 2; no roll: before\n"
        "the roll) or {\"open\": [1, 3, 4, 7], \"roll\": 8}. Actions: 'shut 1 7', 'roll',\n"
        "'roll one die', 'roll two dice', 'end turn'."
    )
    units = "the objective value (expected final score, probability of shutting, or wins)"
    players = 2
    lower_is_better = True  # the default objective, score
    parameters = (
        Parameter("tiles", "tiles 1..N, N = 1..12 (default 9)", type=int),
        Parameter(
            "dice_rule",
            "two-then-one (default): two dice while the open tiles sum to more than 6; "
            "optional-one: one die allowed at 6 or less; always-two",
            type=str.lower,
            choices=DICE_RULES,
        ),
        Parameter(
            "objective",
            "score: lowest expected score; shut: best P(shut); win: two players "
            "(default: score, or win with --players 2)",
            type=str.lower,
            choices=OBJECTIVES,
        ),
        Parameter("players", "1 or 2 (2 is the win objective)", type=int, choices=(1, 2)),
    )
    variants = VARIANTS
    position_example = POSITION_EXAMPLE
    solve_options = (
        Parameter("policy", "list every decision (player 1's in the two-player game)", flag=True),
    )

    # --- rules ---------------------------------------------------------------------------
    def rules(self, variant: str | None = None, **params: Any) -> ShutRules:
        """Rules of a variant ``RULE/OBJECTIVE[/TILES]``; the parameters set what its name
        leaves open (InputError when they contradict it)."""
        base = variant_of(variant)
        check_variant_params(variant, variant_parts(variant), params)
        objective = params.get("objective")
        players = params.get("players")
        if players == 2:
            if objective not in (None, "win"):
                raise InputError(f"two players play for wins: use --objective win, not {objective}")
            named = variant_parts(variant).get("objective", "win")
            if named != "win":
                raise InputError(
                    f"--variant {variant} sets objective {named}, but --players 2 plays for "
                    "wins: drop one"
                )
            objective = "win"
        elif players == 1 and (objective or base.objective) == "win":
            raise InputError("the win objective is the two-player game: use --players 2")
        tiles = params.get("tiles")
        return ShutRules(
            base.tiles if tiles is None else tiles,
            params.get("dice_rule") or base.dice_rule,
            objective or base.objective,
        )

    def describe(self, rules: ShutRules) -> dict[str, Any]:
        """Tiles, dice rule, objective and players."""
        return rules.describe()

    def players_of(self, rules: ShutRules) -> int:
        """2 in the win game, else 1."""
        return rules.players

    def units_of(self, rules: ShutRules) -> str:
        """Points (lower is better), P(shut), or the mover's expected wins."""
        return UNITS[rules.objective]

    def lower_is_better_of(self, rules: ShutRules) -> bool:
        """True for the score objective."""
        return rules.objective == "score"

    # --- positions -------------------------------------------------------------------------
    def parse_text(self, rules: ShutRules, text: str) -> ShutPosition:
        """``open 1 3 4 7 | roll 8`` (``| target 16`` for player 2; no roll: before it)."""
        return parse_position(rules, text)

    def parse_json(self, rules: ShutRules, data: Mapping[str, Any]) -> ShutPosition:
        """``{"open": [1, 3, 4, 7], "roll": 8, "target": 16}`` (roll, target optional)."""
        return position_from_json(rules, data)

    def new_position(self, rules: ShutRules, rng: np.random.Generator) -> ShutPosition:
        """Every tile open and the first roll shown (before it, where dice are chosen)."""
        g = solved(rules).graph
        if g.kind[0] != CHANCE:
            return ShutPosition(rules.full)
        roll = g.label(sample_edge(g, 0, rng))
        return ShutPosition(rules.full, int(cast(int, roll)))  # labelled with its roll

    def show(self, rules: ShutRules, pos: ShutPosition) -> list[str]:
        """The position, who is to move, and what may be done before a roll."""
        lines = [pos.text()]
        if not pos.open:
            return [*lines, "the box is shut"]
        if pos.roll is not None and not rules.moves(pos.open, pos.roll):
            return [*lines, f"no open tiles sum to {pos.roll}: the turn is over"]
        if pos.target is not None and rules.total(pos.open) < pos.target:
            return [*lines, f"player 2's open tiles sum to less than {pos.target}: player 2 won"]
        if rules.players == 2:
            if pos.target is None:
                lines.append("player 1 to move")
            else:
                lines.append(f"player 2 to move, to beat player 1's score {pos.target}")
        if pos.roll is None:
            options = rules.dice_options(pos.open)
            if len(options) > 1:
                lines.append("choose: 'roll one die' or 'roll two dice'")
            else:
                lines.append(f"'roll' ({rules.rule_text(pos.open)})")
        return lines

    def to_move(self, rules: ShutRules, pos: ShutPosition) -> int:
        """Player 2 (1) when the position has a target, else player 1 (0)."""
        return 0 if pos.target is None else 1

    # --- play ------------------------------------------------------------------------------
    def advise(self, rules: ShutRules, pos: ShutPosition, **options: Any) -> Advice:
        """Every legal action with its value for the mover, best first."""
        values = move_values(rules, pos)
        lower = self.lower_is_better_of(rules)
        if rules.objective == "win":
            value_is = (
                f"expected wins of player {1 if pos.target is None else 2}, "
                "the player to move (a draw counts 1/2)"
            )
        else:
            value_is = UNITS[rules.objective]
        return Advice(rank_actions(values, lower_is_better=lower), value_is)

    def canonical_action(self, rules: ShutRules, pos: ShutPosition, text: str) -> str:
        """``shut 1 7`` from ``7 1``, ``roll one die`` from ``one``, ``end turn`` from ``end``."""
        return parse_move(rules, pos, text)

    def apply(
        self, rules: ShutRules, pos: ShutPosition, action: str, rng: np.random.Generator
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

    # --- solving -----------------------------------------------------------------------
    def solve(self, rules: ShutRules, policy: bool = False, **options: Any) -> Report:
        """The optimal value from the start, the two-player comparison (win objective)
        and, with ``policy``, every decision."""
        t0 = time.perf_counter()
        sol = solved(rules)
        seconds = time.perf_counter() - t0
        data: dict[str, Any] = {
            "players": rules.players,
            "objective": rules.objective,
            "compile_seconds": sol.compile_seconds,
            "solve_seconds": sol.solve_seconds,
            "states": sol.graph.num_states,
            "edges": sol.graph.num_edges,
        }
        players = "two players" if rules.players == 2 else "one player"
        lines = [f"Shut the Box: {rules.tiles} tiles, {rules.dice_rule} dice rule, {players}"]
        if policy:
            rows = policy_rows(sol)
            data["policy"] = rows
            lines.append(f"{'position':<40} {'move':<16} value")
            for row in rows:
                lines.append(f"{row['position']:<40} {row['move']:<16} {row['value']:.6f}")
        label = {
            "score": "lowest expected score (points)",
            "shut": "highest probability of shutting the box",
            "win": "player 1's expected wins, both players win-optimal",
        }[rules.objective]
        lines.append(f"{label}: {sol.value:.9f}")
        if rules.objective == "win":
            t1 = time.perf_counter()
            r = duel_report(rules)
            data["comparison"] = r
            data["comparison_seconds"] = time.perf_counter() - t1
            lines += [
                "player 1's expected wins when...",
                f"  both play win-optimal              {r['both_win_optimal']:.9f}",
                f"  player 1 plays score-optimal        {r['p1_score_optimal']:.9f}"
                f"  (win-optimal play gains player 1 {r['p1_gain']:.6f})",
                f"  player 2 plays score-optimal        {r['p2_score_optimal']:.9f}"
                f"  (win-optimal play gains player 2 {r['p2_gain']:.6f})",
                f"  both play score-optimal             {r['both_score_optimal']:.9f}",
                "expected score given up by win-optimal play: player 1 "
                f"{r['p1_score_given_up']:.6f} points ({r['p1_expected_score_win_policy']:.6f} "
                f"vs {r['p1_expected_score_score_policy']:.6f}), player 2 "
                f"{r['p2_score_given_up']:.6f} points ({r['p2_expected_score_win_policy']:.6f} "
                f"vs {r['p2_expected_score_score_policy']:.6f}, when player 2 plays)",
            ]
        lines.append(
            f"{sol.graph.num_states} nodes; compile {sol.compile_seconds:.3f} s, solve "
            f"{sol.solve_seconds:.3f} s (this call {seconds:.3f} s)"
        )
        return Report(sol.value, data, lines)

    def simulate(
        self, rules: ShutRules, games: int, rng: np.random.Generator, **options: Any
    ) -> Report:
        """Seeded games of optimal play on the engine's simulator: final scores (points),
        shut or not (1/0), or player 1's wins (1, 1/2, 0)."""
        from diceopt.simulate import simulate

        sol = solved(rules)
        outcomes = simulate(sol.graph, sol.policy, games, rng)
        report = self.simulation_report(outcomes, sol.value)
        d = report.data
        spread = f" +/- {d['std_error']:.6f} (standard error)" if games > 1 else ""
        report.lines = [
            f"{games:,} games of optimal play: mean {d['mean']:.6f}{spread}",
            f"exact value {sol.value:.9f} ({self.units_of(rules)}); "
            f"range {d['min']:g} to {d['max']:g}",
        ]
        return report

    def commands(self) -> tuple[Command, ...]:
        """``diff``: two-player positions where win- and score-optimal moves differ."""
        return (
            Command(
                "diff",
                "two players: positions where the win- and score-optimal moves differ",
                run_diff,
                (
                    Parameter(
                        "player",
                        "whose decisions: 1, 2 or both",
                        "both",
                        choices=("1", "2", "both"),
                    ),
                    Parameter("limit", f"rows to show (text default {DIFF_LIMIT})", type=int),
                ),
            ),
        )

    def env_codec(self, rules: ShutRules) -> Any:
        """Environments: ``roll``, ``roll one die``, ``roll two dice``, ``end turn``, then
        ``shut T ...`` for every set of tiles summing to 12 or less (by sum, then the
        game's canonical order); entries: each tile open (0/1), the roll shown (0 = none
        yet), player 2's target (0 = none: player 1's or the only player's position)."""
        from diceopt.games.codec import Codec, observation

        shut = [
            action_text(tiles_of(m)) for roll in range(1, 13) for m in rules.moves(rules.full, roll)
        ]
        top = rules.total(rules.full)
        nvec = (2,) * rules.tiles + (13, top + 1)
        fields = tuple(f"tile {t} open" for t in range(1, rules.tiles + 1)) + ("roll", "target")

        def encode(pos: Any, viewer: int = 0) -> np.ndarray:
            tiles = [(pos.open >> t) & 1 for t in range(rules.tiles)]
            return observation([*tiles, pos.roll or 0, pos.target or 0], nvec)

        return Codec((ROLL, DICE_LABELS[1], DICE_LABELS[2], END_TURN, *shut), nvec, fields, encode)

    def exact_evaluation(
        self, rules: ShutRules, choose: Callable[[Any, list[str]], str], seat: int = 1
    ) -> tuple[float, int]:
        """The policy queried at every decision of the seat in the solved graph, the other
        player optimal: its exact value (the seat's terms)."""
        from diceopt.engine.compile import DECISION
        from diceopt.games.exact import edge_of, mixed_policy_value

        sol = solved(rules)
        g = sol.graph
        states, actions = g.states, g.actions
        assert states is not None and actions is not None  # compile_game names them
        decisions = np.flatnonzero(g.kind == DECISION)
        if rules.players == 2:
            decisions = decisions[g.player[decisions] == seat - 1]

        def edge(s: int) -> int:
            edges = range(int(g.start[s]), int(g.start[s + 1]))
            legal = sorted(action_text(actions[e]) for e in edges)
            return edge_of(g, s, choose(position_of_state(states[s]), legal), action_text)

        value = mixed_policy_value(g, sol.solution.objective, sol.policy, edge, decisions)
        if rules.players == 2 and seat == 2:
            value = 1.0 - value
        return value, len(decisions)

    def main_job(self, out: Callable[[str], None]) -> None:
        """``make run`` section: one- and two-player results for 9 tiles."""
        rules = ShutRules()
        score, shut = solved(rules), solved(rules.with_objective("shut"))
        out("== Shut the Box (9 tiles, two dice then one die at 6 or less) ==")
        out(f"lowest expected score: {score.value:.9f} points")
        out(f"best probability of shutting the box: {shut.value:.9f}")
        r = duel_report(rules)
        out(f"two players, both win-optimal: player 1 wins {r['both_win_optimal']:.9f}")
        out(
            f"win-optimal instead of score-optimal play gains player 1 {r['p1_gain']:.6f} and "
            f"player 2 {r['p2_gain']:.6f} in win probability, giving up "
            f"{r['p1_score_given_up']:.6f} and {r['p2_score_given_up']:.6f} points of "
            "expected score"
        )
        rows = differing_positions(rules)
        out(f"{len(rows)} positions where the win-optimal move differs from the score-optimal one")


def run_diff(rules: ShutRules, args: argparse.Namespace) -> CommandOutput:
    """``shutbox diff``: the table (or JSON: every position unless ``--limit``) of positions
    where the win-optimal and the score-optimal moves differ."""
    if args.limit is not None and args.limit < 0:
        raise InputError(f"--limit must be >= 0, got {args.limit}")
    t0 = time.perf_counter()
    rows = differing_positions(rules)
    seconds = time.perf_counter() - t0
    counts = {p: sum(1 for r in rows if r["player"] == p) for p in (1, 2)}
    if args.player != "both":
        rows = [r for r in rows if r["player"] == int(args.player)]
    data = {
        "game": "shutbox",
        "rules": {"tiles": rules.tiles, "dice_rule": rules.dice_rule},
        "count": counts[1] + counts[2],
        "count_player1": counts[1],
        "count_player2": counts[2],
        "seconds": seconds,
        "positions": rows[: args.limit if args.limit is not None else len(rows)],
    }
    limit = args.limit if args.limit is not None else DIFF_LIMIT
    lines = [
        f"Shut the Box, {rules.tiles} tiles, {rules.dice_rule}: {counts[1] + counts[2]} positions "
        f"where the score-minimising move loses win probability (player 1: {counts[1]}, "
        f"player 2: {counts[2]}); largest losses first",
        *diff_lines(rows[:limit]),
    ]
    if len(rows) > limit:
        lines.append(f"... {len(rows) - limit} more (--limit N, or --json for all)")
    return CommandOutput(data, lines)


SPEC = ShutSpec()


def main_job(out: Callable[[str], None]) -> None:
    """``make run`` section (see ``ShutSpec.main_job``)."""
    SPEC.main_job(out)
