"""Stick or reroll written to the engine's game protocol (``diceopt.engine``).

The state is the multiset of dice shown; points so far do not change the best move.
To keep the graph small the choice of which dice to hold is written as a chain of
decisions through the keep lattice instead of one edge per subset:

- ``("roll", R)``: stick (score R, game over) or pay the penalty to reroll;
- ``("drop", R)``: put back one die of R (holding all of R would be sticking);
- ``("sub", K)``: hold exactly K, or put back one more die;
- ``("keep", K)``: roll one of the missing dice (chance), until n dice show.

Multisets are flat indices of a :class:`~diceopt.dice.KeepLattice`.
"""

from __future__ import annotations

from diceopt.engine import Chance, Decision, Terminal
from diceopt.games.stick.rules import REROLL, STICK, StickRules

END = ("end", -1)

StickState = tuple[str, int]  # an engine state: (tag, lattice index), see the module docstring


class StickGame:
    """Stick or reroll written to the engine's game protocol (optimal play chooses freely).

    With ``policy`` (a map from roll index to the held multiset's index, or None for
    stick) every roll has that single action: solving the game then evaluates the policy.
    """

    def __init__(self, rules: StickRules, policy: dict[int, int | None] | None = None) -> None:
        self.rules = rules
        self.policy = policy
        lat = rules.lattice
        self._n = rules.dice
        self._size = lat.size.tolist()
        self._add = lat.add_die.tolist()
        self._remove = lat.remove_die.tolist()
        self._probs = list(rules.die.probs)
        self._score = [
            rules.score(c) if s == self._n else 0.0 for c, s in zip(lat.counts, self._size)
        ]

    def initial_state(self) -> StickState:
        """Nothing kept yet: roll all the dice."""
        return ("keep", 0)

    def node(self, state: StickState) -> Terminal | Chance | Decision:
        """The node at ``state`` (see the module docstring)."""
        tag, i = state
        if tag == "keep":
            return Chance([(p, 0.0, self.keep_state(j)) for p, j in zip(self._probs, self._add[i])])
        if tag == "roll":
            stick = (STICK, self._score[i], END)
            if self.policy is not None:
                held = self.policy[i]
                if held is None:
                    return Decision([stick])
                return Decision([(REROLL, -self.rules.penalty, self.keep_state(held))])
            return Decision([stick, (REROLL, -self.rules.penalty, ("drop", i))])
        if tag in ("drop", "sub"):
            actions: list[tuple[str | int, float, StickState]] = (
                [("hold", 0.0, self.keep_state(i))] if tag == "sub" else []
            )
            for f, j in enumerate(self._remove[i]):
                if j >= 0:
                    actions.append((f, 0.0, ("sub", j)))
            return Decision(actions)
        return Terminal(0.0)

    def keep_state(self, i: int) -> StickState:
        """State after holding multiset i: a full roll if it has every die, else a keep."""
        return ("roll" if self._size[i] == self._n else "keep", i)
