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
from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np

from diceopt.engine import Chance, Decision, Terminal
from diceopt.games.yatzy.rulebook.rules import YatzyRules, legal_categories

# a state: one of the tuples the module docstring lists (a tag, then ints)
YatzyState = tuple[Any, ...]


class YatzyEngineGame:
    """A Yatzy variant as an engine game (actions: ``("score", c)`` or ``("keep", k)``).

    What every node needs of a roll (its :class:`RollFacts`, its sub-multisets) and of a
    roll with a filled mask (its legal categories) is worked out once and kept: a node is
    then a few integer operations per action.
    """

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
        # per full roll (flat index): its facts, and its keep actions with their keeps
        self._rolls = {int(r): roll_facts(rules, lat.counts[r]) for r in lat.full()}
        self._keeps: dict[int, list[tuple[tuple[str, int], int]]] = {}
        self._legal: dict[tuple[int, int], tuple[list[int], bool]] = {}
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

    def legal(self, mask: int, r_flat: int) -> tuple[list[int], bool]:
        """Categories roll r (flat index) may be written into with ``mask`` filled, and
        whether joker points apply (kept: do not change the list)."""
        key = (mask, r_flat)
        got = self._legal.get(key)
        if got is None:
            got = self._legal[key] = legal_categories(self.rules, mask, self._rolls[r_flat].counts)
        return got

    def sub_multisets(self, r_flat: int) -> list[int]:
        """Flat indices of the proper sub-multisets of a roll (by enumeration of counts)."""
        if r_flat not in self._subs:
            counts = self._rolls[r_flat].counts
            out = []
            for keep in itertools.product(*(range(c + 1) for c in counts)):
                if sum(keep) < self.n:
                    out.append(self.lat.index(keep))
            self._subs[r_flat] = out
        return self._subs[r_flat]

    def _keep_actions(self, r_flat: int) -> list[tuple[tuple[str, int], int]]:
        """``(("keep", k), k)`` for every proper sub-multiset k of a roll."""
        got = self._keeps.get(r_flat)
        if got is None:
            got = self._keeps[r_flat] = [(("keep", k), k) for k in self.sub_multisets(r_flat)]
        return got

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
        rules = self.rules
        roll = self._rolls[r_flat]
        legal, joker = self.legal(mask, r_flat)
        served = t == 2 and not rules.saved_rerolls  # the first roll: no reroll used
        actions: list[tuple[Any, float, YatzyState]] = []
        for c in legal:
            pts, m2, f2, u2 = write_points(rules, mask, flag, upper, roll, c, joker, served)
            actions.append((("score", c), pts, self._next_turn(m2, f2, u2, t)))
        if t > 0:
            t1 = t - 1
            actions += [
                (action, 0.0, ("keep", mask, flag, upper, t1, k))
                for action, k in self._keep_actions(r_flat)
            ]
        return Decision(actions)


# --- rules, written independently of the kernel ----------------------------------------


class RollFacts(NamedTuple):
    """What scoring a full roll needs: its count per face (Python ints), its index among
    the sorted rolls (-1: not looked up) and the face all its dice show (-1: no Yatzy)."""

    counts: tuple[int, ...]
    sorted_index: int
    yatzy_face: int


def roll_facts(rules: YatzyRules, counts: Iterable[int], index: bool = True) -> RollFacts:
    """The :class:`RollFacts` of a full roll given as its count per face (``index``:
    look up its index among the sorted rolls; InputError if it is not a roll)."""
    key = tuple(int(x) for x in counts)
    ri = -1
    if index:
        ri = rules.lattice.index(key) - int(rules.lattice.offset[rules.dice])
    return RollFacts(key, ri, key.index(rules.dice) if max(key) == rules.dice else -1)


def score_points(
    rules: YatzyRules,
    mask: int,
    flag: int,
    upper: int,
    counts: np.ndarray,
    c: int,
    served: bool = False,
) -> tuple[float, int, int, int]:
    """(points now, next mask, next flag, next capped upper) for writing a roll (count per
    face) into c (``served``: straight after the first roll, no reroll used).

    Points include the upper bonus when this box reaches the threshold and the Yahtzee
    bonus of either rule. ``upper`` is capped at the threshold on return.
    """
    roll = roll_facts(rules, counts, index=rules.upper_faces[c] < 0)
    _, joker = legal_categories(rules, mask, roll.counts)
    return write_points(rules, mask, flag, upper, roll, c, joker, served)


def write_points(
    rules: YatzyRules,
    mask: int,
    flag: int,
    upper: int,
    roll: RollFacts,
    c: int,
    joker: bool,
    served: bool = False,
) -> tuple[float, int, int, int]:
    """:func:`score_points` of a roll's facts, ``joker`` as :func:`legal_categories` says
    for this roll and mask (the roll's index is needed for the lower categories only)."""
    five = roll.yatzy_face >= 0
    yz = rules.yahtzee_category
    threshold = rules.bonus_threshold
    pts = 0.0
    if rules.yatzy_bonus_rule == "points" and yz >= 0 and flag == 1 and five:
        pts += rules.yahtzee_bonus
    f = rules.upper_faces[c]
    if rules.yatzy_bonus_rule == "upper" and yz >= 0 and mask >> yz & 1 and five:
        if f == roll.yatzy_face:  # Kniffel: into its upper box
            pts += rules.yahtzee_bonus
    new_upper = min(threshold, upper)
    new_flag = flag
    if f >= 0:
        got = roll.counts[f] * (f + 1)
        pts += got
        if upper < threshold <= upper + got:
            pts += rules.bonus
        new_upper = min(threshold, upper + got)
    else:
        got = rules.score_rows[roll.sorted_index][c]
        spec = rules.specs[c]
        if joker and spec.joker is not None:
            got = spec.joker
        if served and spec.served is not None and got > 0:
            got = spec.served
        if spec.needs_yatzy and flag == 0:  # the Yatzy box is open or crossed out
            got = 0
        pts += got
        if c == yz and got > 0 and rules.tracks_yahtzee:
            new_flag = 1
    return pts, mask | (1 << c), new_flag, new_upper
