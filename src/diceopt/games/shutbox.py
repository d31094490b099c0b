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

Engine states (tuples; masks have bit i set when tile i + 1 is open):
- ``("turn", mask)``: before a roll (a chance node, or the one-or-two-dice decision);
  ``("dice", mask, n)``: n dice chosen; ``("roll", mask, r)``: roll r shown, at least two
  ways to shut (a roll with one legal move leads straight on, one with none ends the turn);
- player 2 (objective ``win``): ``("turn2", mask, t)``, ``("dice2", mask, n, t)``,
  ``("roll2", mask, r, t)``;
- terminals: ``("end", mask)`` (one player), ``("p1shut",)`` (player 1 shut the box),
  ``("p2end", u, t)`` (player 2 finished with score u >= t), ``("p2won", mask)`` (player
  2's open tiles already sum to less than t: player 2 wins whatever happens).

The score game minimises with the engine's ``expected`` objective (decisions by player 1,
the minimiser). In the ``shut`` and ``win`` games every decision lists its moves in
increasing order of the score-optimal expected score after the move, so the engine's
tie-break (first of the equally good moves) picks the score-best of them.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Hashable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from diceopt.advice import ActionAdvice
from diceopt.engine import (
    Chance,
    CompiledGame,
    Decision,
    Objective,
    Solution,
    Terminal,
    compile_game,
    evaluate_policy,
    extract_policy,
    q_values,
    solve,
)
from diceopt.errors import InputError
from diceopt.notation import split_fields

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
    """Shut the Box parameters: the number of tiles (1..12) and the dice rule."""

    tiles: int = 9
    dice_rule: str = "two-then-one"

    def __post_init__(self) -> None:
        if not isinstance(self.tiles, int) or not 1 <= self.tiles <= TILES_MAX:
            raise InputError(f"the number of tiles must be 1 to {TILES_MAX}, got {self.tiles}")
        if self.dice_rule not in DICE_RULES:
            raise InputError(
                f"unknown dice rule {self.dice_rule!r}; choose from {', '.join(DICE_RULES)}"
            )

    @property
    def full(self) -> int:
        """Mask of all tiles open."""
        return (1 << self.tiles) - 1

    def describe(self) -> dict[str, Any]:
        """The parameters as plain JSON-ready data."""
        return {"tiles": self.tiles, "dice_rule": self.dice_rule}

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

    def possible_rolls(self, mask: int) -> range | list[int]:
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


class ShutGame:
    """Shut the Box written to the engine's game protocol (see the module docstring).

    ``order`` (optional): expected score (points) by mask under score-optimal play;
    moves are listed best-score first (ties: canonical order). ``start`` (optional):
    the initial state, by default ``("turn", full)``.
    """

    def __init__(
        self,
        rules: ShutRules,
        objective: str,
        order: np.ndarray | None = None,
        start: Hashable | None = None,
    ) -> None:
        if objective not in OBJECTIVES:
            raise InputError(
                f"unknown objective {objective!r}; choose from {', '.join(OBJECTIVES)}"
            )
        self.rules = rules
        self.objective = objective
        self.order = order
        self.start = start if start is not None else ("turn", rules.full)
        self._mover = 1 if objective == "score" else 0  # engine player of one-player moves

    def initial_state(self) -> Hashable:
        """The first roll of the game (or the given start)."""
        return self.start

    # successors ----------------------------------------------------------------------
    def after(self, mask: int, target: int | None) -> Hashable:
        """State after a move leaves ``mask`` open (target None: player 1 / one player)."""
        if target is not None:
            if self.rules.total(mask) < target:
                return ("p2won", mask)
            return ("turn2", mask, target)
        if mask == 0:
            return ("p1shut",) if self.objective == "win" else ("end", 0)
        return ("turn", mask)

    def ended(self, mask: int, target: int | None) -> Hashable:
        """State when a roll leaves no move with ``mask`` open: the turn is over."""
        score = self.rules.total(mask)
        if target is not None:
            return ("p2end", score, target)
        if self.objective == "win":
            return self.after(self.rules.full, score)
        return ("end", mask)

    def _sorted_moves(self, mask: int, roll: int) -> list[int]:
        moves = self.rules.moves(mask, roll)
        if self.order is not None and len(moves) > 1:
            order = self.order
            moves.sort(key=lambda s: order[mask ^ s])  # stable: ties keep canonical order
        return moves

    def _roll_outcomes(self, mask: int, n: int, target: int | None) -> Chance:
        merged: dict[Hashable, float] = {}
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
            merged[nxt] = merged.get(nxt, 0.0) + p
        return Chance([(p, 0.0, s) for s, p in merged.items()])

    def node(self, state: Hashable) -> Terminal | Chance | Decision:
        """The node of a state (see the module docstring)."""
        tag = state[0]
        if tag in ("turn", "turn2"):
            mask = state[1]
            target = state[2] if tag == "turn2" else None
            options = self.rules.dice_options(mask)
            if len(options) == 1:
                return self._roll_outcomes(mask, options[0], target)
            player = 1 if target is not None else self._mover
            if target is None:
                nexts = [("dice", mask, n) for n in options]
            else:
                nexts = [("dice2", mask, n, target) for n in options]
            return Decision([(DICE_LABELS[n], 0.0, s) for n, s in zip(options, nexts)], player)
        if tag == "dice":
            return self._roll_outcomes(state[1], state[2], None)
        if tag == "dice2":
            return self._roll_outcomes(state[1], state[2], state[3])
        if tag == "roll":
            _, mask, roll = state
            return Decision(
                [
                    (tiles_of(s), 0.0, self.after(mask ^ s, None))
                    for s in self._sorted_moves(mask, roll)
                ],
                self._mover,
            )
        if tag == "roll2":
            _, mask, roll, target = state
            return Decision(
                [
                    (tiles_of(s), 0.0, self.after(mask ^ s, target))
                    for s in self._sorted_moves(mask, roll)
                ],
                1,
            )
        return Terminal(self.terminal_value(state))

    def terminal_value(self, state: Hashable) -> float:
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
            return 0.5 if state[1] == state[2] else 1.0
        if tag == "p2won":
            return 0.0
        raise InputError(f"not a shut-the-box state: {state!r}")


# --- solving ----------------------------------------------------------------------------


@dataclass
class ShutSolution:
    """A solved Shut the Box game.

    ``values`` (via ``solution``) are in the objective's units: expected final score
    (points, ``score``), probability of shutting the box (``shut``), or player 1's
    expected wins, a draw counting 1/2 (``win``).
    """

    rules: ShutRules
    objective: str
    graph: CompiledGame
    solution: Solution
    policy: np.ndarray
    compile_seconds: float
    solve_seconds: float
    order: np.ndarray | None = None

    @property
    def value(self) -> float:
        """Value of the initial state (see the class docstring for units)."""
        return self.solution.value

    @property
    def game(self) -> ShutGame:
        """The protocol game behind the graph (for successor states)."""
        return ShutGame(self.rules, self.objective, self.order, self.graph.states[0])

    def value_of(self, state: Hashable) -> float:
        """Engine value of any state of this game, solving a subgame if it is unreachable."""
        tag = state[0]
        if tag in ("end", "p1shut", "p2end", "p2won"):
            return self.game.terminal_value(state)
        index = self.graph.index
        if index is not None and state in index:
            return float(self.solution.values[index[state]])
        return solved(self.rules, self.objective, start=state).value


def score_state(state: Hashable) -> Hashable:
    """The one-player state with the same tiles and roll (player 2's target dropped)."""
    tag = state[0]
    if tag in ("turn2", "dice2", "roll2"):
        return (tag[:-1], *state[1:-1])
    return state


def _score_order(rules: ShutRules, starts: tuple[Hashable, ...]) -> np.ndarray:
    """Expected final score (points) by mask under score-optimal play (nan if not needed)."""
    order = np.full(1 << rules.tiles, np.nan)
    order[0] = 0.0
    for start in starts:
        sol = solved(rules, "score", start=start)
        for s, state in enumerate(sol.graph.states):
            if state[0] == "turn":
                order[state[1]] = sol.solution.values[s]
    return order


_SOLVED: dict[tuple[ShutRules, str, Hashable], ShutSolution] = {}


def solve_shutbox(
    rules: ShutRules, objective: str = "score", *, start: Hashable | None = None
) -> ShutSolution:
    """Compile and solve one Shut the Box game exactly (backward induction).

    ``start`` (optional) roots the game at another state (e.g. an unreachable position).
    ``compile_seconds`` includes the score-optimal solve that orders moves for ``shut``
    and ``win`` games.
    """
    t0 = time.perf_counter()
    order = None
    if objective != "score":
        starts = [("turn", rules.full)]
        if start is not None:
            starts.append(score_state(start))
        order = _score_order(rules, tuple(dict.fromkeys(starts)))
    game = ShutGame(rules, objective, order, start)
    graph = compile_game(game)
    t1 = time.perf_counter()
    sol = solve(graph, Objective("win" if objective == "win" else "expected"))
    policy = extract_policy(sol)
    t2 = time.perf_counter()
    return ShutSolution(rules, objective, graph, sol, policy, t1 - t0, t2 - t1, order)


def solved(rules: ShutRules, objective: str, start: Hashable | None = None) -> ShutSolution:
    """The solution of a game, solved once per process."""
    if start is not None and start == ("turn", rules.full):
        start = None
    key = (rules, objective, start)
    if key not in _SOLVED:
        _SOLVED[key] = solve_shutbox(rules, objective, start=start)
    return _SOLVED[key]


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
    win, score = solved(rules, "win"), solved(rules, "score")
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
        "rules": rules.describe(),
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
    win, score = solved(rules, "win"), solved(rules, "score")
    g, sg = win.graph, score.graph
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
    rows.sort(key=lambda r: (-r["win_lost"], r["player"], r["position"]))
    return rows


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


def position_of_state(state: Hashable) -> ShutPosition:
    """The position of a ``turn``/``dice``/``roll`` engine state (dice count dropped)."""
    tag = state[0]
    if tag == "turn":
        return ShutPosition(state[1])
    if tag == "turn2":
        return ShutPosition(state[1], None, state[2])
    if tag == "roll":
        return ShutPosition(state[1], state[2])
    if tag == "roll2":
        return ShutPosition(state[1], state[2], state[3])
    if tag == "dice":
        return ShutPosition(state[1])
    if tag == "dice2":
        return ShutPosition(state[1], None, state[3])
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
            out.append(int(word))
        except ValueError:
            raise InputError(f"{what}: {word!r} is not a whole number") from None
    return out


def parse_position(rules: ShutRules, text: str, two_player: bool = False) -> ShutPosition:
    """Parse ``open 1 3 4 7 | roll 8 | target 16``; InputError for impossible positions.

    ``roll`` is optional (before rolling); ``target`` is player 1's score and marks a
    player 2 position (two-player game only).
    """
    example = "open 1 3 4 7 | roll 8 | target 16"
    fields = split_fields(text, ("open", "roll", "target"), example)
    if "open" not in fields:
        raise InputError("the position needs the open tiles, e.g. 'open 1 3 4 7 | roll 8'")
    words = fields["open"].strip()
    tiles = [] if words in ("none", "-", "") else _numbers(words, "open tiles")
    for t in tiles:
        if not 1 <= t <= rules.tiles:
            raise InputError(f"tile {t} is not on a box with tiles 1 to {rules.tiles}")
    if len(set(tiles)) != len(tiles):
        raise InputError(f"a tile is listed twice in 'open {words}'")
    mask = mask_of(tiles)
    if mask == 0:
        raise InputError("every tile is shut: the box is shut and the turn is over")
    roll = None
    if "roll" in fields:
        numbers = _numbers(fields["roll"], "roll")
        if len(numbers) == 2 and all(1 <= x <= 6 for x in numbers):
            numbers = [sum(numbers)]  # two dice written separately
        if len(numbers) != 1:
            raise InputError(f"roll: expected one number (the dice total), got {fields['roll']!r}")
        roll = numbers[0]
        if roll not in rules.possible_rolls(mask):
            raise InputError(
                f"roll {roll} is impossible: with open tiles summing to {rules.total(mask)} "
                f"the {rules.dice_rule} rule rolls {rules.rule_text(mask)}"
            )
    target = None
    if "target" in fields:
        if not two_player:
            raise InputError(
                "a target is player 1's score in the two-player game: use a 'win' variant"
            )
        numbers = _numbers(fields["target"], "target")
        if len(numbers) != 1:
            raise InputError(f"target: expected one number, got {fields['target']!r}")
        target = numbers[0]
        top = rules.total(rules.full)
        if target == 0:
            raise InputError("target 0 means player 1 shut the box: player 1 has won")
        if not 1 <= target <= top:
            raise InputError(f"target must be player 1's score, 1 to {top}, got {target}")
    return ShutPosition(mask, roll, target)


def parse_move(rules: ShutRules, pos: ShutPosition, text: str) -> int | str:
    """A move in a position: a mask of tiles to shut, ``roll``/dice choice, or end turn."""
    words = " ".join(text.strip().lower().split())
    if pos.roll is None:
        options = rules.dice_options(pos.open)
        chosen = {
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
        if words not in chosen:
            raise InputError(f"no roll shown yet: type {' or '.join(_roll_actions(rules, pos))!r}")
        n = chosen[words]
        if n is None:
            if len(options) > 1:
                raise InputError("choose 'roll one die' or 'roll two dice'")
            n = options[0]
        if n not in options:
            raise InputError(
                f"with open tiles summing to {rules.total(pos.open)} you roll "
                f"{rules.rule_text(pos.open)}"
            )
        return DICE_LABELS[n]
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
    return mask_of(tiles)


def _roll_actions(rules: ShutRules, pos: ShutPosition) -> list[str]:
    options = rules.dice_options(pos.open)
    return [ROLL] if len(options) == 1 else [DICE_LABELS[n] for n in options]


# --- advice contract (diceopt.advice) ---------------------------------------------------

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


def variant_of(variant: str | None) -> tuple[ShutRules, str]:
    """Rules and objective of a variant id ``RULE/OBJECTIVE[/N]`` (parts in any order).

    RULE in DICE_RULES (default two-then-one), OBJECTIVE in OBJECTIVES (default score),
    N the number of tiles (default 9). None = ``two-then-one/score``.
    """
    rule, objective, tiles = "two-then-one", "score", 9
    for part in (variant or "").lower().replace(",", "/").split("/"):
        part = part.strip()
        if not part:
            continue
        if part in DICE_RULES:
            rule = part
        elif part in OBJECTIVES:
            objective = part
        elif part.removesuffix("-tiles").removesuffix("tiles").isdigit():
            tiles = int(part.removesuffix("-tiles").removesuffix("tiles"))
        else:
            raise InputError(
                f"unknown shutbox variant {variant!r}: use RULE/OBJECTIVE[/TILES], "
                f"e.g. two-then-one/score (rules: {', '.join(DICE_RULES)}; "
                f"objectives: {', '.join(OBJECTIVES)})"
            )
    return ShutRules(tiles, rule), objective


def position_state(pos: ShutPosition) -> Hashable:
    """The engine state before rolling (``turn``/``turn2``) of a position."""
    return ("turn", pos.open) if pos.target is None else ("turn2", pos.open, pos.target)


def move_values(rules: ShutRules, objective: str, pos: ShutPosition) -> list[tuple[str, float]]:
    """Every legal action of a position and its value for the mover, in engine order.

    Units: expected final score (points, ``score``), P(shut) (``shut``), the mover's
    expected wins (``win``; player 2 when the position has a target).
    """
    sol = solved(rules, objective)
    game = sol.game
    target = pos.target
    to_mover = (lambda v: 1.0 - v) if target is not None else (lambda v: v)
    out: list[tuple[str, float]] = []
    if pos.roll is None:
        options = rules.dice_options(pos.open)
        if len(options) == 1:
            return [(ROLL, to_mover(sol.value_of(_checked(game, position_state(pos)))))]
        for n in options:
            state = ("dice", pos.open, n) if target is None else ("dice2", pos.open, n, target)
            out.append((DICE_LABELS[n], to_mover(sol.value_of(_checked(game, state)))))
        return out
    moves = game._sorted_moves(pos.open, pos.roll)
    if not moves:
        return [(END_TURN, to_mover(sol.value_of(game.ended(pos.open, target))))]
    for s in moves:
        out.append(
            (action_text(tiles_of(s)), to_mover(sol.value_of(game.after(pos.open ^ s, target))))
        )
    return out


def _checked(game: ShutGame, state: Hashable) -> Hashable:
    """``turn2`` states whose tiles already beat the target are player 2's certain wins."""
    if state[0] == "turn2" and game.rules.total(state[1]) < state[2]:
        return ("p2won", state[1])
    if state[0] == "dice2" and game.rules.total(state[1]) < state[3]:
        return ("p2won", state[1])
    return state


def advise(position: str, variant: str | None = None) -> list[ActionAdvice]:
    """Every legal action with its value (see ``move_values``), best first."""
    rules, objective = variant_of(variant)
    pos = parse_position(rules, position, two_player=objective == "win")
    values = move_values(rules, objective, pos)
    lower_better = objective == "score"
    best = min(v for _, v in values) if lower_better else max(v for _, v in values)
    ranked = sorted(values, key=lambda av: av[1] if lower_better else -av[1])
    return [
        ActionAdvice(a, v, max(0.0, (v - best) if lower_better else (best - v))) for a, v in ranked
    ]


def roll_dice(n: int, rng: np.random.Generator) -> int:
    """Total of n six-sided dice."""
    return int(rng.integers(1, 7, size=n).sum())


def step(
    rules: ShutRules, objective: str, pos: ShutPosition, action: str, rng: np.random.Generator
) -> tuple[ShutPosition, bool, list[str]]:
    """Play one action; then roll when the dice are forced and end turns with no move.

    Returns the next position (a decision point, or the final position), whether the
    game is over, and one line per thing that happened.
    """
    two = objective == "win"
    events: list[str] = []
    who = ("player 2" if pos.target is not None else "player 1") if two else "you"
    move = parse_move(rules, pos, action)

    def says(verb: str) -> str:  # "you roll", "player 1 rolls"
        return f"{who} {verb}" if who == "you" else f"{who} {verb}s"

    def roll(p: ShutPosition, n: int) -> ShutPosition:
        r = roll_dice(n, rng)
        events.append(f"{says('roll')} {r} ({'one die' if n == 1 else 'two dice'})")
        return dataclasses.replace(p, roll=r)

    def settle(p: ShutPosition) -> tuple[ShutPosition, bool]:
        nonlocal who
        while True:
            if p.roll is None:
                options = rules.dice_options(p.open)
                if len(options) > 1:
                    return p, False
                p = roll(p, options[0])
            if rules.moves(p.open, p.roll):
                return p, False
            score = rules.total(p.open)
            whose = "your" if who == "you" else f"{who}'s"
            events.append(f"no tiles sum to {p.roll}: {whose} turn ends with score {score}")
            if not two or p.target is not None:
                if two:
                    u, t = score, p.target
                    result = "player 2 wins" if u < t else "a draw" if u == t else "player 1 wins"
                    events.append(f"player 2 scores {u} against {t}: {result}")
                return p, True
            who = "player 2"
            p = ShutPosition(rules.full, None, score)

    if move == END_TURN:
        p, _ = settle(dataclasses.replace(pos))
        return p, p.roll is not None and not rules.moves(p.open, p.roll), events
    if isinstance(move, str):  # dice choice
        n = 1 if move == DICE_LABELS[1] else 2
        p, over = settle(roll(pos, n))
        return p, over, events
    left = pos.open ^ move
    events.append(f"{says('shut')} {' '.join(map(str, tiles_of(move)))}")
    if left == 0:
        if not two:
            events.append("the box is shut: score 0")
        elif pos.target is None:
            events.append("player 1 shut the box and wins")
        else:
            events.append("player 2 shut the box and wins")
        return ShutPosition(0, None, pos.target), True, events
    p, over = settle(ShutPosition(left, None, pos.target))
    return p, over, events


def apply(
    position: str, action: str, variant: str | None = None, rng: np.random.Generator | None = None
) -> tuple[str, bool]:
    """Play an action (``shut 1 7``, ``roll``, ``roll one die``...); dice rolled with ``rng``.

    The returned position is the next decision point: forced rolls are made and a roll
    with no move ends the turn (player 1's end starts player 2's turn, with ``target``).
    """
    rules, objective = variant_of(variant)
    pos = parse_position(rules, position, two_player=objective == "win")
    rng = rng if rng is not None else np.random.default_rng()
    new, over, _ = step(rules, objective, pos, action, rng)
    return new.text(), over


def main_job() -> None:
    """``make run`` section: one- and two-player results for 9 tiles."""
    rules = ShutRules()
    score, shut = solved(rules, "score"), solved(rules, "shut")
    print("== Shut the Box (9 tiles, two dice then one die at 6 or less) ==")
    print(f"lowest expected score: {score.value:.9f} points")
    print(f"best probability of shutting the box: {shut.value:.9f}")
    r = duel_report(rules)
    print(f"two players, both win-optimal: player 1 wins {r['both_win_optimal']:.9f}")
    print(
        f"win-optimal instead of score-optimal play gains player 1 {r['p1_gain']:.6f} and "
        f"player 2 {r['p2_gain']:.6f} in win probability, giving up {r['p1_score_given_up']:.6f}"
        f" and {r['p2_score_given_up']:.6f} points of expected score"
    )
    rows = differing_positions(rules)
    print(f"{len(rows)} positions where the win-optimal move differs from the score-optimal one")
