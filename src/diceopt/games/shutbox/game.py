"""Shut the Box on the engine's game protocol: ``ShutGame`` and its engine states.

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

from typing import Any

from diceopt.engine import Chance, Decision, Terminal
from diceopt.errors import InputError
from diceopt.games.shutbox.rules import ShutRules, roll_distribution, tiles_of
from diceopt.lazy import numpy as np

DICE_LABELS = {1: "roll one die", 2: "roll two dice"}
END_TURN = "end turn"
ROLL = "roll"
TERMINALS = ("end", "p1shut", "p2end", "p2won")
ShutState = tuple[Any, ...]  # an engine state: (tag, ...), see the module docstring


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
