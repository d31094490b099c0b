"""Yatzy written to the generic engine's game protocol: the slow, independent reference.

Only small variants fit (a few categories, fewer dice or sides): every roll and every
keep of every turn is a node. The legality of categories, jokers and bonuses is written
here again, separately from the kernel, so that the two paths check each other.

States:

- ``("turn", mask, flag, upper)``: chance over the first roll of a turn;
- ``("roll", mask, flag, upper, t, r)``: decision with roll r (flat lattice index) and t
  rerolls left: write into a category, or (t > 0) keep a proper sub-multiset;
- ``("keep", mask, flag, upper, t, k)``: chance over the dice rerolled next to keep k,
  after which t rerolls are left;
- ``("end",)``: terminal.

With saved rerolls (``rules.saved_rerolls``) a turn-start state also holds the rerolls
saved, ``("turn", mask, flag, upper, s)``; the turn's first roll comes with ``2 + s``
rerolls left, and writing with t rerolls left starts the next turn with ``min(t, cap)``
saved (``t`` without a cap).

Generala and Kniffel rules: a category written with two rerolls left (straight after the
first roll) scores its ``served`` points; a ``needs_yatzy`` category scores only while
the flag says the Yatzy box holds its points; under ``yatzy_bonus_rule = "upper"`` a
further Yatzy written into its upper box, the Yatzy box holding any entry, earns the
Yatzy bonus.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from diceopt.engine import Chance, Decision, Terminal
from diceopt.games.yatzy.rules import YatzyRules, legal_categories

# a state: one of the tuples the module docstring lists (a tag, then ints)
YatzyState = tuple[Any, ...]


class YatzyEngineGame:
    """A Yatzy variant as an engine game (actions: ``("score", c)`` or ``("keep", k)``)."""

    def __init__(self, rules: YatzyRules) -> None:
        self.rules = rules
        lat = rules.lattice
        self.lat = lat
        self.n = rules.dice
        self.base = int(lat.offset[rules.dice])
        self.ncat = rules.num_categories
        self.full = (1 << self.ncat) - 1
        start, target, prob = lat.keep_roll(np.full(rules.sides, 1.0 / rules.sides))
        self._outcomes: dict[int, list[tuple[int, float]]] = {}
        for k in range(len(lat.counts)):
            acc: dict[int, float] = {}
            for e in range(start[k], start[k + 1]):
                acc[int(target[e])] = acc.get(int(target[e]), 0.0) + float(prob[e])
            self._outcomes[k] = list(acc.items())
        self._subs: dict[int, list[int]] = {}

    def initial_state(self) -> YatzyState:
        """The first turn: nothing filled, upper total 0 (nothing saved)."""
        return ("turn", 0, 0, 0, 0) if self.rules.saved_rerolls else ("turn", 0, 0, 0)

    def _next_turn(self, mask: int, flag: int, upper: int, t: int) -> YatzyState:
        """The next turn-start state after writing with t rerolls left."""
        if not self.rules.saved_rerolls:
            return ("turn", mask, flag, upper)
        cap = self.rules.saved_cap
        return ("turn", mask, flag, upper, t if cap is None else min(t, cap))

    def legal(self, mask: int, counts: np.ndarray) -> tuple[list[int], bool]:
        """Categories this roll may be written into, and whether joker points apply."""
        return legal_categories(self.rules, mask, counts)

    def points(
        self, mask: int, flag: int, upper: int, r_flat: int, c: int, served: bool = False
    ) -> tuple:
        """(points now, next mask, next flag, next upper) for writing roll r into c
        (``served``: straight after the first roll)."""
        counts = self.lat.counts[r_flat]
        return score_points(self.rules, mask, flag, upper, counts, c, served)

    def sub_multisets(self, r_flat: int) -> list[int]:
        """Flat indices of the proper sub-multisets of a roll (by enumeration of counts)."""
        if r_flat not in self._subs:
            counts = self.lat.counts[r_flat]
            out = []
            for keep in itertools.product(*(range(int(c) + 1) for c in counts)):
                if sum(keep) < self.n:
                    out.append(self.lat.index(np.array(keep)))
            self._subs[r_flat] = out
        return self._subs[r_flat]

    # --- the protocol -------------------------------------------------------------------

    def node(self, state: YatzyState) -> Terminal | Chance | Decision:
        """The node of a state (see the module docstring)."""
        tag = state[0]
        if tag == "end":
            return Terminal(0.0)
        if tag == "turn":
            mask, flag, upper = state[1:4]
            saved = state[4] if len(state) > 4 else 0
            if mask == self.full:
                return Terminal(0.0)
            t = 2 + saved
            return Chance(
                [(p, 0.0, ("roll", mask, flag, upper, t, k)) for k, p in self._outcomes[0]]
            )
        if tag == "keep":
            _, mask, flag, upper, t, k = state
            return Chance(
                [(p, 0.0, ("roll", mask, flag, upper, t, j)) for j, p in self._outcomes[k]]
            )
        _, mask, flag, upper, t, r_flat = state
        actions = []
        legal, _ = self.legal(mask, self.lat.counts[r_flat])
        served = t == 2 and not self.rules.saved_rerolls  # the first roll: no reroll used
        for c in legal:
            pts, m2, f2, u2 = self.points(mask, flag, upper, r_flat, c, served)
            actions.append((("score", c), pts, self._next_turn(m2, f2, u2, t)))
        if t > 0:
            for k in self.sub_multisets(r_flat):
                actions.append((("keep", k), 0.0, ("keep", mask, flag, upper, t - 1, k)))
        return Decision(actions)


# --- rules, written independently of the kernel ----------------------------------------


def score_points(
    rules: YatzyRules,
    mask: int,
    flag: int,
    upper: int,
    counts: np.ndarray,
    c: int,
    served: bool = False,
) -> tuple[float, int, int, int]:
    """(points now, next mask, next flag, next capped upper) for writing a roll into c
    (``served``: straight after the first roll, no reroll used).

    Points include the upper bonus when this box reaches the threshold and the Yahtzee
    bonus of either rule. ``upper`` is capped at the threshold on return.
    """
    counts = np.asarray(counts)
    _, joker = legal_categories(rules, mask, counts)
    five = int(np.max(counts)) == rules.dice
    yz = rules.yahtzee_category
    pts = 0.0
    if rules.yatzy_bonus_rule == "points" and yz >= 0 and flag == 1 and five:
        pts += rules.yahtzee_bonus
    if rules.yatzy_bonus_rule == "upper" and yz >= 0 and mask >> yz & 1 and five:
        if rules.upper_face[c] == int(np.argmax(counts)):  # Kniffel: into its upper box
            pts += rules.yahtzee_bonus
    new_upper = min(rules.bonus_threshold, upper)
    new_flag = flag
    f = int(rules.upper_face[c])
    if f >= 0:
        got = int(counts[f]) * (f + 1)
        pts += got
        if upper < rules.bonus_threshold <= upper + got:
            pts += rules.bonus
        new_upper = min(rules.bonus_threshold, upper + got)
    else:
        ri = _roll_index(rules, counts)
        got = int(rules.score[ri, c])
        spec = rules.specs[c]
        if joker and spec.joker is not None:
            got = spec.joker
        if served and spec.served is not None and got > 0:
            got = spec.served
        if spec.needs_yatzy and flag == 0:  # the Yatzy box is open or crossed out
            got = 0
        pts += got
        if c == rules.yahtzee_category and got > 0 and rules.tracks_yahtzee:
            new_flag = 1
    return pts, mask | (1 << c), new_flag, new_upper


def _roll_index(rules: YatzyRules, counts: np.ndarray) -> int:
    """Index of a full roll among the R sorted rolls."""
    return rules.lattice.index(np.asarray(counts)) - int(rules.lattice.offset[rules.dice])
