"""Typed Yatzy moves and the score sheet shown while playing.

``parse_move`` reads what a player types (``keep 3 3``, ``k 335``, ``r``, ``score chance``,
``s ch`` or just a category, with unique prefixes) into the action notation of
``advice`` (``keep 3 3``, ``keep -``, ``score chance``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from diceopt.errors import InputError
from diceopt.games.yatzy.play.engine_game import score_points
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.notation import is_digits

# What a move may be, in the words of an error (the CLI and the web API both show it);
# the category named is one of the rules' (:func:`moves_text`).
MOVES = (
    "moves are 'keep 3 3' (or 'k 33'), 'keep -' (reroll all) and 'score {box}' (or "
    "'s {short}', or the category alone)"
)


def example_category(rules: Any) -> str:
    """A category of the rules to name in an example: Chance where the rules have it,
    else their last."""
    categories = list(rules.categories)
    return "chance" if "chance" in categories else categories[-1]


def moves_text(rules: Any) -> str:
    """:data:`MOVES` with one of the rules' own categories as the example."""
    box = example_category(rules)
    return MOVES.format(box=box, short=box[:2])


def category_of(word: str, rules: Any) -> str:
    """A category id from its name or a unique prefix; InputError otherwise."""
    word = word.lower()
    if word in rules.categories:
        return word
    hits = [c for c in rules.categories if c.startswith(word)]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise InputError(f"'{word}' is ambiguous: {' '.join(hits)}")
    raise InputError(f"unknown category '{word}'; categories are {' '.join(rules.categories)}")


def parse_move(line: str, rules: Any) -> str:
    """A typed move in the canonical action notation (``keep 3 3``, ``score chance``)."""
    words = line.lower().replace(",", " ").split()
    if not words:
        raise InputError(f"no move given: {moves_text(rules)}")
    head, rest = words[0], words[1:]
    if head in ("r", "reroll", "roll"):
        if rest:
            raise InputError(f"'{head}' rerolls all dice and takes nothing after it")
        return "keep -"
    if head in ("k", "keep"):
        if not rest:
            raise InputError("keep which dice? e.g. 'keep 3 3', or 'keep -' to reroll all")
        if rest == ["-"]:
            return "keep -"
        if len(rest) == 1 and len(rest[0]) > 1 and is_digits(rest[0]):
            rest = list(rest[0])  # 'k 335' keeps 3 3 5
        pips: list[int] = []
        for w in rest:
            if not is_digits(w):
                raise InputError(f"dice are numbers 1 to {rules.sides}, got '{w}'")
            pips.append(int(w))
        return "keep " + " ".join(map(str, sorted(pips)))
    if head in ("s", "score"):
        if len(rest) != 1:
            raise InputError(f"score which category? e.g. 'score {example_category(rules)}'")
        return f"score {category_of(rest[0], rules)}"
    if len(words) == 1:
        try:
            return f"score {category_of(head, rules)}"
        except InputError:
            pass
    raise InputError(f"unknown move '{line.strip()}': {moves_text(rules)}")


def sheet_lines(pos: Any, rules: YatzyRules) -> list[str]:
    """The sheet of a position: filled categories, the open ones with their points for the
    dice showing, the upper total against the bonus threshold, and the score."""
    counts = np.zeros(rules.sides, dtype=np.int64)
    for d in pos.dice:
        counts[d - 1] += 1
    mask = pos.mask(rules)
    flag = 1 if pos.yahtzee_bonus else 0
    lines = []
    for c, name in enumerate(rules.categories):
        if name in pos.filled:
            lines.append(f"  {name:<16} filled")
        elif pos.dice:
            served = pos.rerolls == 2 and not rules.saved_rerolls  # after the first roll
            pts = score_points(rules, mask, flag, pos.upper, counts, c, served)[0]
            lines.append(f"  {name:<16} open   {pts:g} with these dice")
        else:
            lines.append(f"  {name:<16} open")
    score = "" if pos.score is None else f"; score {pos.score:g}"
    lines.append(f"  upper total {pos.upper} of {rules.bonus_threshold}{score}")
    return lines
