"""Yatzy positions in text and JSON, and the value of every legal action in a position.

Text notation (fields separated by ``|``, in any order; ``dice`` and ``rerolls`` are
required, the others optional)::

    dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 5

- ``dice``: the five dice showing (pips 1-6, any order); ``dice -`` once every category
  is filled (the game is over);
- ``rerolls``: rerolls left this turn, 0-2;
- ``filled``: the categories already used (ids as in the rules), ``-`` for none (default);
- ``upper``: the total written in the upper section so far (uncapped; default 0);
- ``score``: points so far, bonuses included (default 0);
- American variants with the Yahtzee bonus: ``yahtzee-bonus yes`` when the Yahtzee box
  holds 50 (further Yahtzees earn the bonus), ``no`` (default) otherwise.

The canonical form (what :func:`format_position` prints) always lists dice, rerolls,
filled, upper and score in that order, plus ``yahtzee-bonus`` where the variant tracks
it and the Yahtzee box is filled. Actions: ``keep 3 3`` (keep those dice and reroll
the others; ``keep -`` rerolls all five; keeping all five is not an action: score a
category instead) and ``score chance``. Values are expected final scores (points so
far plus the expected rest, bonuses included).
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from diceopt.advice import ActionAdvice
from diceopt.errors import InputError
from diceopt.games.yatzy.engine_game import legal_categories, score_points
from diceopt.games.yatzy.kernel import NEG, YatzyTable
from diceopt.games.yatzy.rules import YatzyRules, reachable_upper_totals
from diceopt.notation import split_fields

FIELDS = ("dice", "rerolls", "filled", "upper", "score", "yahtzee-bonus")


@dataclass(frozen=True)
class Position:
    """A Yatzy position: dice (sorted pips, empty when over), rerolls left, filled ids..."""

    dice: tuple[int, ...]
    rerolls: int
    filled: tuple[str, ...] = ()
    upper: int = 0
    score: float = 0.0
    yahtzee_bonus: bool = False

    def mask(self, rules: YatzyRules) -> int:
        """Bit mask of the filled categories."""
        return sum(1 << rules.categories.index(c) for c in self.filled)

    def over(self, rules: YatzyRules) -> bool:
        """True when every category is filled."""
        return len(self.filled) == rules.num_categories


def in_rules_order(filled: tuple[str, ...], rules: YatzyRules) -> tuple[str, ...]:
    """The (known) category ids of ``filled`` in the order the rules list them."""
    return tuple(sorted(filled, key=rules.categories.index))


def _words(text: str, what: str) -> list[str]:
    words = text.split()
    if not words:
        raise InputError(f"{what} needs a value")
    return words


def _int(word: str, what: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise InputError(f"{what} must be a whole number, got {word!r}") from None


def parse_position(text: str, rules: YatzyRules) -> Position:
    """Parse the text notation (or the JSON form, text starting with ``{``) and check it
    against the rules; InputError if invalid."""
    if isinstance(text, str) and text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"malformed JSON position: {exc.msg} at character {exc.pos}") from None
        return position_from_json(data, rules)
    seen = split_fields(text, FIELDS, "dice 1 3 3 5 6 | rerolls 2 | filled -")
    if "dice" not in seen:
        raise InputError("the position needs dice, e.g. 'dice 1 3 3 5 6'")
    if "rerolls" not in seen:
        raise InputError("the position needs rerolls left, e.g. 'rerolls 2'")
    words = _words(seen["dice"], "dice")
    dice: tuple[int, ...] = ()
    if words != ["-"]:
        dice = tuple(sorted(_int(w, "a die") for w in words))
    words = _words(seen["rerolls"], "rerolls")
    if len(words) != 1:
        raise InputError(f"rerolls takes one number, got {seen['rerolls']!r}")
    rerolls = _int(words[0], "rerolls")
    filled: tuple[str, ...] = ()
    if seen.get("filled", "-").split() not in ([], ["-"]):
        filled = tuple(w.lower() for w in seen["filled"].split())
    upper = _int(seen["upper"], "upper") if "upper" in seen else 0
    score: float = 0.0
    if "score" in seen:
        try:
            score = float(seen["score"])
        except ValueError:
            raise InputError(f"score must be a number, got {seen['score']!r}") from None
        if score.is_integer():
            score = int(score)
    ybonus = False
    if "yahtzee-bonus" in seen:
        word = seen["yahtzee-bonus"].lower()
        if word not in ("yes", "no"):
            raise InputError(f"yahtzee-bonus must be yes or no, got {word!r}")
        ybonus = word == "yes"
    pos = Position(dice, rerolls, filled, upper, score, ybonus)
    validate(pos, rules)
    return replace(pos, filled=in_rules_order(filled, rules))


def validate(pos: Position, rules: YatzyRules) -> None:
    """InputError naming the first thing wrong with a position."""
    for c in pos.filled:
        if c not in rules.categories:
            raise InputError(f"unknown category {c!r}; categories are {' '.join(rules.categories)}")
    if len(set(pos.filled)) != len(pos.filled):
        raise InputError("a category is listed twice in filled")
    over = len(pos.filled) == rules.num_categories
    if over:
        if pos.dice:
            raise InputError("every category is filled: the game is over, use 'dice -'")
    else:
        if len(pos.dice) != rules.dice:
            raise InputError(f"expected {rules.dice} dice, got {len(pos.dice)}")
        for d in pos.dice:
            if not 1 <= d <= rules.sides:
                raise InputError(f"a die shows 1 to {rules.sides}, got {d}")
    if not 0 <= pos.rerolls <= 2:
        raise InputError(f"rerolls left must be 0, 1 or 2, got {pos.rerolls}")
    if rules.forced_order:
        want = rules.categories[: len(pos.filled)]
        if set(pos.filled) != set(want):
            raise InputError(
                f"forced order: the filled categories must be the first {len(pos.filled)}"
            )
    ups = [c for c in pos.filled if rules.upper_face[rules.categories.index(c)] >= 0]
    faces = [rules.upper_face[rules.categories.index(c)] for c in ups]
    if pos.upper not in reachable_upper_totals(faces, rules.dice):
        raise InputError(
            f"upper total {pos.upper} is impossible with the filled upper categories "
            f"({' '.join(ups) or 'none'})"
        )
    if pos.yahtzee_bonus:
        yz = rules.yahtzee_category
        if not rules.tracks_yahtzee:
            raise InputError("this variant has no Yahtzee bonus")
        if rules.categories[yz] not in pos.filled:
            raise InputError("yahtzee-bonus yes needs the yahtzee box filled (with 50)")
    try:
        finite = math.isfinite(pos.score)
    except OverflowError:  # an int too large for a float
        raise InputError("score is too large") from None
    except TypeError:
        raise InputError(f"score must be a number of points, got {pos.score!r}") from None
    if not finite:
        raise InputError(f"score must be a finite number of points, got {pos.score}")
    # the score holds the upper total, the upper bonus once earned and, with
    # yahtzee-bonus yes, the 50 in the Yahtzee box (lower boxes never score below 0)
    score = int(pos.score) if float(pos.score).is_integer() else pos.score  # as written
    least = pos.upper
    if pos.score < least:
        raise InputError(f"score {score} is less than the upper total {pos.upper}")
    if pos.upper >= rules.bonus_threshold:
        least += rules.bonus
        if pos.score < least:
            raise InputError(
                f"with upper total {pos.upper} the score must be at least {least} (the upper "
                f"total plus the {rules.bonus}-point bonus), got {score}"
            )
    if pos.yahtzee_bonus and pos.score < least + 50:
        raise InputError(
            f"with yahtzee-bonus yes the score must be at least {least + 50} (the 50 in the "
            f"Yahtzee box plus {least} in the upper section), got {score}"
        )


def format_position(pos: Position, rules: YatzyRules) -> str:
    """The canonical text of a position (parses back to the same position)."""
    dice = " ".join(map(str, pos.dice)) if pos.dice else "-"
    filled = " ".join(pos.filled) if pos.filled else "-"
    score = int(pos.score) if float(pos.score).is_integer() else pos.score
    text = f"dice {dice} | rerolls {pos.rerolls} | filled {filled} | upper {pos.upper}"
    text += f" | score {score}"
    yz = rules.yahtzee_category
    if rules.tracks_yahtzee and rules.categories[yz] in pos.filled:
        text += f" | yahtzee-bonus {'yes' if pos.yahtzee_bonus else 'no'}"
    return text


def position_to_json(pos: Position) -> dict[str, Any]:
    """The JSON form of a position."""
    return {
        "dice": list(pos.dice),
        "rerolls": pos.rerolls,
        "filled": list(pos.filled),
        "upper": pos.upper,
        "score": pos.score,
        "yahtzee_bonus": pos.yahtzee_bonus,
    }


def _shown(value: Any) -> str:
    """A JSON value as the user wrote it (for messages)."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _json_int(value: Any, what: str) -> int:
    """A JSON whole number (an integral float such as 2.0 too; never a boolean)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{what} must be a whole number, got {_shown(value)}")
    if isinstance(value, float):
        if not value.is_integer():
            raise InputError(f"{what} must be a whole number, got {_shown(value)}")
        return int(value)
    return value


def _json_list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise InputError(f"{what} must be a list, got {_shown(value)}")
    return value


def position_from_json(data: dict[str, Any], rules: YatzyRules) -> Position:
    """A position from its JSON form (validated like the text form).

    ``dice`` (list of whole numbers), ``rerolls`` (required) and ``upper`` are whole
    numbers, ``filled`` a list of category ids, ``score`` a number (points) and
    ``yahtzee_bonus`` true or false; InputError (one line) for anything else.
    """
    if not isinstance(data, dict):
        raise InputError("a JSON position must be an object")
    unknown = set(data) - {"dice", "rerolls", "filled", "upper", "score", "yahtzee_bonus"}
    if unknown:
        raise InputError(f"unknown position field(s): {', '.join(sorted(unknown))}")
    if "rerolls" not in data:
        raise InputError('the JSON position needs rerolls left, e.g. "rerolls": 2')
    dice = tuple(sorted(_json_int(d, "a die") for d in _json_list(data.get("dice", []), "dice")))
    filled = _json_list(data.get("filled", []), "filled")
    for c in filled:
        if not isinstance(c, str):
            raise InputError(f"filled must list category ids, got {_shown(c)}")
    score = data.get("score", 0)
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        raise InputError(f"score must be a number of points, got {_shown(score)}")
    if isinstance(score, float) and score.is_integer():
        score = int(score)
    ybonus = data.get("yahtzee_bonus", False)
    if not isinstance(ybonus, bool):
        raise InputError(f"yahtzee_bonus must be true or false, got {_shown(ybonus)}")
    pos = Position(
        dice=dice,
        rerolls=_json_int(data["rerolls"], "rerolls"),
        filled=tuple(filled),
        upper=_json_int(data.get("upper", 0), "upper"),
        score=score,
        yahtzee_bonus=ybonus,
    )
    validate(pos, rules)
    return replace(pos, filled=in_rules_order(pos.filled, rules))


def _counts(dice: tuple[int, ...], sides: int) -> np.ndarray:
    counts = np.zeros(sides, dtype=np.int64)
    for d in dice:
        counts[d - 1] += 1
    return counts


def _keep_text(counts: np.ndarray) -> str:
    pips = [str(f + 1) for f, c in enumerate(counts) for _ in range(int(c))]
    return "keep " + (" ".join(pips) if pips else "-")


def state_of(pos: Position, rules: YatzyRules) -> tuple[int, int, int]:
    """The kernel's turn-start state (mask, flag, capped upper) of a position."""
    flag = 1 if (pos.yahtzee_bonus and rules.tracks_yahtzee) else 0
    return pos.mask(rules), flag, min(pos.upper, rules.bonus_threshold)


def advise_position(pos: Position, rules: YatzyRules, table: YatzyTable) -> list[ActionAdvice]:
    """Every legal action with its expected final score and regret, best first."""
    if pos.over(rules):
        raise InputError("the game is over: every category is filled")
    mask, flag, upper = state_of(pos, rules)
    counts = _counts(pos.dice, rules.sides)
    lat = rules.lattice
    roll_flat = lat.index(counts)
    roll = roll_flat - int(lat.offset[rules.dice])
    options: list[tuple[str, float]] = []
    cv = table.category_values(mask, flag, upper, roll)
    legal, _ = legal_categories(rules, mask, counts)
    for c in legal:
        if cv[c] <= NEG / 2:  # pragma: no cover - the two rule paths disagree
            raise RuntimeError(f"kernel forbids legal category {rules.categories[c]}")
        options.append((f"score {rules.categories[c]}", float(pos.score) + float(cv[c])))
    if pos.rerolls > 0:
        _, keep_value, _, _ = table.widget(mask, flag, upper)
        for keep in itertools.product(*(range(int(c) + 1) for c in counts)):
            keep_counts = np.array(keep, dtype=np.int64)
            if keep_counts.sum() == rules.dice:
                continue
            k = lat.index(keep_counts)
            value = float(pos.score) + float(keep_value[pos.rerolls, k])
            options.append((_keep_text(keep_counts), value))
    options.sort(key=lambda o: -o[1])  # stable: scoring listed before keeps on ties
    best = options[0][1]
    return [ActionAdvice(a, v, max(0.0, best - v)) for a, v in options]


def apply_action(
    pos: Position, action: str, rules: YatzyRules, rng: np.random.Generator
) -> tuple[Position, bool]:
    """The position after ``action`` (new dice rolled with ``rng``) and whether it is over."""
    if pos.over(rules):
        raise InputError("the game is over: every category is filled")
    words = action.split()
    if len(words) < 2 or words[0].lower() not in ("keep", "score"):
        raise InputError(f"unknown action {action!r}; use 'keep 3 3', 'keep -' or 'score chance'")
    counts = _counts(pos.dice, rules.sides)
    if words[0].lower() == "keep":
        if pos.rerolls == 0:
            raise InputError("no rerolls left: score a category")
        kept: tuple[int, ...] = ()
        if words[1:] != ["-"]:
            kept = tuple(sorted(_int(w, "a kept die") for w in words[1:]))
        keep_counts = np.zeros(rules.sides, dtype=np.int64)
        for d in kept:
            if not 1 <= d <= rules.sides:
                raise InputError(f"a die shows 1 to {rules.sides}, got {d}")
            keep_counts[d - 1] += 1
        if (keep_counts > counts).any():
            raise InputError(
                f"cannot keep {' '.join(map(str, kept))}: the dice show "
                f"{' '.join(map(str, pos.dice))}"
            )
        if len(kept) == rules.dice:
            raise InputError("keeping all the dice is not a move: score a category instead")
        new = rng.integers(1, rules.sides + 1, size=rules.dice - len(kept))
        dice = tuple(sorted(kept + tuple(int(d) for d in new)))
        return replace(pos, dice=dice, rerolls=pos.rerolls - 1), False
    cat = " ".join(words[1:]).lower()
    if cat not in rules.categories:
        raise InputError(f"unknown category {cat!r}; categories are {' '.join(rules.categories)}")
    c = rules.categories.index(cat)
    if cat in pos.filled:
        raise InputError(f"category {cat} is already filled")
    mask, flag, _ = state_of(pos, rules)
    legal, _ = legal_categories(rules, mask, counts)
    if c not in legal:
        allowed = " ".join(rules.categories[x] for x in legal)
        raise InputError(f"{cat} may not be used with these dice now; allowed: {allowed}")
    pts, _, new_flag, _ = score_points(rules, mask, flag, pos.upper, counts, c)
    new_upper = pos.upper + (
        int(counts[rules.upper_face[c]]) * (int(rules.upper_face[c]) + 1)
        if rules.upper_face[c] >= 0
        else 0
    )
    filled = in_rules_order(pos.filled + (cat,), rules)
    score = pos.score + pts
    if float(score).is_integer():
        score = int(score)
    after = Position((), 2, filled, new_upper, score, bool(new_flag))
    if after.over(rules):
        return replace(after, rerolls=0), True
    dice = tuple(sorted(int(d) for d in rng.integers(1, rules.sides + 1, size=rules.dice)))
    return replace(after, dice=dice), False
