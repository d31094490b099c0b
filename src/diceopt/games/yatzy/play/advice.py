"""Yatzy positions in text and JSON, and the value of every legal action in a position.

Text notation (fields separated by ``|``, in any order; ``dice`` and ``rerolls`` are
required, the others optional)::

    dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 3

- ``dice``: the five dice showing (pips 1-6, any order); ``dice -`` once every category
  is filled (the game is over);
- ``rerolls``: rerolls left this turn, 0-2;
- ``filled``: the categories already used, ``-`` for none (default). Names as
  :meth:`~diceopt.games.yatzy.rulebook.rules.YatzyRules.category_id` reads them: any case, ``-``,
  ``_`` or spaces between words (``full-house``, ``Full House``), ``yahtzee`` and
  ``yatzy`` alike; a typo is answered with the nearest name;
- ``upper``: the total written in the upper section so far (uncapped; default 0);
- ``score``: points so far, bonuses included. Optional: without it the values are the
  expected points still to come; with it, the expected final score (:func:`value_is`).
  A score the position cannot have is refused: below the least the filled categories
  can hold (:func:`points_range`: Chance holds at least the sum of the dice, the others
  may hold 0), or above the most;
- American variants with the Yahtzee bonus: ``yahtzee-bonus yes`` when the Yahtzee box
  holds 50 (further Yahtzees earn the bonus), ``no`` (default) otherwise;
- variants with saved rerolls (``maxi-saved``): ``saved``, the rerolls saved from
  earlier turns (default 0; at most two per filled category and the variant's cap). The
  turn may reroll ``rerolls + saved`` more times; those left unused when a category is
  written are saved for the next turn. Other variants refuse the field.

The canonical form (what :func:`format_position` prints) lists dice, rerolls, saved
(variants with saved rerolls), filled, upper and score (when given) in that order, plus
``yahtzee-bonus`` where the variant tracks it and the Yahtzee box is filled. Actions:
``keep 3 3`` (keep those dice and reroll the others; ``keep -`` rerolls all five;
keeping all five is not an action: score a category instead) and ``score chance``
(category names as in ``filled``).

Actions are listed best first; equally good actions in the order of the widget's
tie-break (:mod:`diceopt.games.yatzy.kernel.widget`): scoring before keeping, categories in
the rules' order, keeps in lattice order; so the first action is the one the
simulation plays.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from diceopt.advice import ActionAdvice, Advice
from diceopt.errors import InputError
from diceopt.games.yatzy.kernel.plain import NEG, PlainTable
from diceopt.games.yatzy.rulebook.rules import YatzyRules, legal_categories, reachable_upper_totals
from diceopt.notation import load_json, parse_int, parse_number, split_fields

if TYPE_CHECKING:  # saved.py loads numba; advice from a stored table does without numpy
    import numpy as np

    from diceopt.games.yatzy.kernel.saved import SavedTable
    from diceopt.games.yatzy.kernel.table import YatzyTable
else:
    from diceopt.lazy import numpy as np

FIELDS = ("dice", "rerolls", "saved", "filled", "upper", "score", "yahtzee-bonus")
VALUE_IS_FINAL = "expected final score (points)"
VALUE_IS_TO_COME = "expected points still to come (points)"
# with theta != 0 (exponential utility) a value is a certainty equivalent, not a mean
CE_FINAL = "certainty equivalent of the final score (points)"
CE_TO_COME = "certainty equivalent of the points still to come (points)"


@dataclass(frozen=True)
class Position:
    """A Yatzy position: dice (sorted pips, empty when over), rerolls left, filled ids...

    ``score``: points so far, or None when not given (values are then the points still
    to come; :func:`parse_position` leaves it None when the text has no ``score``).
    ``saved``: rerolls saved from earlier turns (variants with saved rerolls only).
    """

    dice: tuple[int, ...]
    rerolls: int
    filled: tuple[str, ...] = ()
    upper: int = 0
    score: float | None = 0
    yahtzee_bonus: bool = False
    saved: int = 0

    def mask(self, rules: YatzyRules) -> int:
        """Bit mask of the filled categories."""
        return sum(1 << rules.categories.index(c) for c in self.filled)

    def over(self, rules: YatzyRules) -> bool:
        """True when every category is filled."""
        return len(self.filled) == rules.num_categories

    def points(self) -> float:
        """``score`` (points so far); InputError when the position does not give it."""
        if self.score is None:
            raise InputError("the position needs its score ('score N')")
        return self.score


def value_is(pos: Position, theta: float = 0.0) -> str:
    """What the advice values of ``pos`` are: ``"expected final score (points)"`` when the
    position gives its score, ``"expected points still to come (points)"`` when not; with
    ``theta`` != 0 the certainty equivalent of the one or the other (:data:`CE_FINAL`,
    :data:`CE_TO_COME`)."""
    if theta != 0.0:
        return CE_TO_COME if pos.score is None else CE_FINAL
    return VALUE_IS_TO_COME if pos.score is None else VALUE_IS_FINAL


def filled_ids(words: list[str], rules: YatzyRules) -> tuple[str, ...]:
    """Category ids from the words of a ``filled`` field: names of several words (``full
    house``, ``three of a kind``) are read as one where they spell a category."""
    out: list[str] = []
    i = 0
    while i < len(words):
        for n in (4, 3, 2):
            found = rules.find_category(" ".join(words[i : i + n])) if i + n <= len(words) else None
            if found is not None:
                out.append(found)
                i += n
                break
        else:
            out.append(rules.category_id(words[i]))
            i += 1
    return tuple(out)


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
        return parse_int(word)
    except InputError as exc:
        reason = "is too large" if str(exc).startswith("too large") else "must be a whole number"
        raise InputError(f"{what} {reason}, got {word!r}") from None


def _one_int(seen: dict[str, str], field: str) -> int:
    """The one whole number of a field (``rerolls 2``)."""
    words = _words(seen[field], field)
    if len(words) != 1:
        raise InputError(f"{field} takes one number, got {seen[field]!r}")
    return _int(words[0], field)


def parse_position(text: str, rules: YatzyRules) -> Position:
    """Parse the text notation (or the JSON form, text starting with ``{``) and check it
    against the rules; InputError if invalid. ``score`` is None when not given."""
    if isinstance(text, str) and text.lstrip().startswith("{"):
        try:
            data = load_json(text)
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
    rerolls = _one_int(seen, "rerolls")
    filled: tuple[str, ...] = ()
    if seen.get("filled", "-").split() not in ([], ["-"]):
        filled = filled_ids(seen["filled"].split(), rules)
    upper = _int(seen["upper"], "upper") if "upper" in seen else 0
    score: float | None = None
    if "score" in seen:
        try:
            score = parse_number(seen["score"])
        except InputError as exc:
            reason = "too large" if str(exc).startswith("too large") else "must be a number"
            raise InputError(f"score {reason}, got {seen['score']!r}") from None
        if score.is_integer():
            score = int(score)
    ybonus = False
    if "yahtzee-bonus" in seen:
        word = seen["yahtzee-bonus"].lower()
        if word not in ("yes", "no"):
            raise InputError(f"yahtzee-bonus must be yes or no, got {word!r}")
        ybonus = word == "yes"
    saved = 0
    if "saved" in seen:
        _no_saved(rules)
        saved = _one_int(seen, "saved")
    pos = Position(dice, rerolls, filled, upper, score, ybonus, saved)
    validate(pos, rules)
    return replace(pos, filled=in_rules_order(filled, rules))


def _no_saved(rules: YatzyRules) -> None:
    """InputError when the variant has no saved rerolls (a position gives ``saved``)."""
    if not rules.saved_rerolls:
        raise InputError(
            f"variant {rules.name} has no saved rerolls: drop 'saved' (maxi-saved has them)"
        )


def _check_saved(pos: Position, rules: YatzyRules) -> None:
    """InputError for a saved count the position cannot have."""
    if pos.saved == 0:
        return
    _no_saved(rules)
    if pos.saved < 0:
        raise InputError(f"saved rerolls cannot be negative, got {pos.saved}")
    n = len(pos.filled)
    cap = rules.saved_cap
    if cap is not None and pos.saved > cap:
        raise InputError(f"saved {pos.saved} is above the cap of {cap} saved rerolls")
    if pos.saved > 2 * n:
        raise InputError(
            f"saved {pos.saved} is impossible with {n} categories filled: at most {2 * n} "
            "rerolls can have been saved (two per turn played)"
        )


def validate(pos: Position, rules: YatzyRules) -> None:
    """InputError naming the first thing wrong with a position."""
    for c in pos.filled:
        if c not in rules.categories:
            known = rules.category_id(c)  # InputError for an unknown name
            raise InputError(f"category {c!r} must be given by its id {known!r}")
    if len(set(pos.filled)) != len(pos.filled):
        raise InputError("a category is listed twice in filled")
    over = len(pos.filled) == rules.num_categories
    if over:
        if pos.dice:
            raise InputError("every category is filled: the game is over, use 'dice -'")
    else:
        if len(pos.dice) != rules.dice:
            raise InputError(
                f"expected {rules.dice} dice, got {len(pos.dice)} (variant {rules.name})"
            )
        for d in pos.dice:
            if not 1 <= d <= rules.sides:
                raise InputError(f"a die shows 1 to {rules.sides}, got {d}")
    if not 0 <= pos.rerolls <= 2:
        raise InputError(f"rerolls left must be 0, 1 or 2, got {pos.rerolls}")
    _check_saved(pos, rules)
    if rules.forced_order:
        want = rules.categories[: len(pos.filled)]
        if set(pos.filled) != set(want):
            raise InputError(
                f"forced order: the filled categories must be the first {len(pos.filled)}"
            )
    ups = [c for c in pos.filled if rules.upper_faces[rules.categories.index(c)] >= 0]
    faces = [rules.upper_faces[rules.categories.index(c)] for c in ups]
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
    if pos.score is None:
        return
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
    score = _fmt(pos.score)  # as written
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
    if pos.score > rules.max_total:
        raise InputError(
            f"score {score} is impossible: a game of {rules.name} scores at most "
            f"{rules.max_total} points"
        )
    fewest, most = points_range(pos, rules)
    if pos.score < fewest:
        raise InputError(
            f"score {score} is impossible: upper total {pos.upper} and the filled categories "
            f"({' '.join(pos.filled)}) hold at least {fewest} points"
        )
    if pos.score > most:
        raise InputError(
            f"score {score} is impossible: upper total {pos.upper} and the filled categories "
            f"({' '.join(pos.filled) or 'none'}) hold at most {most} points"
        )


def points_range(pos: Position, rules: YatzyRules) -> tuple[int, int]:
    """The fewest and the most points a position's filled categories can hold: its upper
    total, the upper bonus once earned, each filled lower category at its minimum or its
    maximum (:attr:`~diceopt.games.yatzy.rulebook.rules.YatzyRules.min_points`: 0 for a
    scratch, the sum of the dice for Chance; ``max_points``) and, with ``yahtzee-bonus
    yes``, 50 in the Yahtzee box (at most: a Yahtzee bonus in every other filled one)."""
    least = most = pos.upper + (rules.bonus if pos.upper >= rules.bonus_threshold else 0)
    yz = rules.categories[rules.yahtzee_category] if pos.yahtzee_bonus else None
    for name in pos.filled:
        c = rules.categories.index(name)
        if rules.upper_faces[c] < 0:
            least += rules.max_points[c] if name == yz else rules.min_points[c]
            most += rules.max_points[c]
    if pos.yahtzee_bonus:
        most += rules.yahtzee_bonus * (len(pos.filled) - 1)
    return least, most


def _fmt(x: float) -> str:
    """A number of points as written: whole numbers without a decimal point."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def format_position(pos: Position, rules: YatzyRules) -> str:
    """The canonical text of a position (parses back to the same position; ``score``
    only when given)."""
    dice = " ".join(map(str, pos.dice)) if pos.dice else "-"
    filled = " ".join(pos.filled) if pos.filled else "-"
    saved = f" | saved {pos.saved}" if rules.saved_rerolls else ""
    text = f"dice {dice} | rerolls {pos.rerolls}{saved} | filled {filled} | upper {pos.upper}"
    if pos.score is not None:
        text += f" | score {_fmt(pos.score)}"
    yz = rules.yahtzee_category
    if rules.tracks_yahtzee and rules.categories[yz] in pos.filled:
        text += f" | yahtzee-bonus {'yes' if pos.yahtzee_bonus else 'no'}"
    return text


def position_to_json(pos: Position, rules: YatzyRules | None = None) -> dict[str, Any]:
    """The JSON form of a position (``score`` only when given; ``saved`` for variants with
    saved rerolls, or when not 0)."""
    data: dict[str, Any] = {"dice": list(pos.dice), "rerolls": pos.rerolls}
    if pos.saved or (rules is not None and rules.saved_rerolls):
        data["saved"] = pos.saved
    data |= {"filled": list(pos.filled), "upper": pos.upper}
    if pos.score is not None:
        data["score"] = pos.score
    data["yahtzee_bonus"] = pos.yahtzee_bonus
    return data


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

    ``dice`` (list of whole numbers), ``rerolls`` (required), ``saved`` (variants with
    saved rerolls) and ``upper`` are whole numbers, ``filled`` a list of category names
    (read as in the text form), ``score`` a number (points; optional, null or missing:
    not given) and ``yahtzee_bonus`` true or false; InputError (one line) for anything
    else.
    """
    if not isinstance(data, dict):
        raise InputError("a JSON position must be an object")
    known = {"dice", "rerolls", "saved", "filled", "upper", "score", "yahtzee_bonus"}
    unknown = set(data) - known
    if unknown:
        raise InputError(f"unknown position field(s): {', '.join(sorted(unknown))}")
    if "rerolls" not in data:
        raise InputError('the JSON position needs rerolls left, e.g. "rerolls": 2')
    dice = tuple(sorted(_json_int(d, "a die") for d in _json_list(data.get("dice", []), "dice")))
    filled = _json_list(data.get("filled", []), "filled")
    for c in filled:
        if not isinstance(c, str):
            raise InputError(f"filled must list category ids, got {_shown(c)}")
    filled = [rules.category_id(c) for c in filled]
    score = data.get("score")
    if score is not None:
        if isinstance(score, bool) or not isinstance(score, (int, float)):
            raise InputError(f"score must be a number of points, got {_shown(score)}")
        if isinstance(score, float) and score.is_integer():
            score = int(score)
    ybonus = data.get("yahtzee_bonus", False)
    if not isinstance(ybonus, bool):
        raise InputError(f"yahtzee_bonus must be true or false, got {_shown(ybonus)}")
    if "saved" in data:
        _no_saved(rules)
    pos = Position(
        dice=dice,
        rerolls=_json_int(data["rerolls"], "rerolls"),
        filled=tuple(filled),
        upper=_json_int(data.get("upper", 0), "upper"),
        score=score,
        yahtzee_bonus=ybonus,
        saved=_json_int(data.get("saved", 0), "saved"),
    )
    validate(pos, rules)
    return replace(pos, filled=in_rules_order(pos.filled, rules))


def face_counts(dice: tuple[int, ...], sides: int) -> tuple[int, ...]:
    """How many dice show each face (length ``sides``; pips 1 .. sides)."""
    counts = [0] * sides
    for d in dice:
        counts[d - 1] += 1
    return tuple(counts)


def dice_counts(dice: tuple[int, ...], sides: int) -> np.ndarray:
    """:func:`face_counts` as an int64 array."""
    return np.array(face_counts(dice, sides), dtype=np.int64)


def keep_text(counts: Sequence[int]) -> str:
    """The action of keeping the dice counted in ``counts`` (``keep 3 3``; none: ``keep -``)."""
    pips = [str(f + 1) for f, c in enumerate(counts) for _ in range(int(c))]
    return "keep " + (" ".join(pips) if pips else "-")


def state_of(pos: Position, rules: YatzyRules) -> tuple[int, int, int]:
    """The kernel's turn-start state (mask, flag, capped upper) of a position."""
    flag = 1 if (pos.yahtzee_bonus and rules.tracks_yahtzee) else 0
    return pos.mask(rules), flag, min(pos.upper, rules.bonus_threshold)


def advise_position(
    pos: Position, rules: YatzyRules, table: YatzyTable | SavedTable | PlainTable
) -> list[ActionAdvice]:
    """Every legal action with its value and regret, best first.

    Values are what :func:`value_is` says: the expected final score when the position
    gives its score, else the expected points still to come (certainty equivalents for
    a table with theta != 0). Equally good actions come in the kernel's tie-break order
    (scoring before keeping, categories in the rules' order, keeps in lattice order), so
    the first action is the one the simulation plays.
    """
    if pos.over(rules):
        raise InputError("the game is over: every category is filled")
    mask, flag, upper = state_of(pos, rules)
    t = pos.rerolls + pos.saved  # rerolls still possible (saved rerolls: this turn's too)
    cv = table.category_values(mask, flag, upper, roll_index(pos, rules), t)
    keep = table.widget(mask, flag, upper, max(2, t))[1][t] if t > 0 else None
    options = ranked_options(pos, rules, cv, keep)
    base = 0.0 if pos.score is None else float(pos.score)
    best = base + options[0][0]
    return [ActionAdvice(action, base + v, max(0.0, best - (base + v))) for v, action in options]


def ranked_options(
    pos: Position,
    rules: YatzyRules,
    category: Sequence[float] | np.ndarray,
    keep: Sequence[float] | np.ndarray | None,
) -> list[tuple[float, str]]:
    """``(value, action)`` of every legal action of ``pos``, best first: writing the roll
    into category c has ``category[c]``, keeping multiset i (flat lattice index)
    ``keep[i]`` (None: no reroll left). Equal values in the widget's tie-break order
    (scoring before keeping, categories in the rules' order, keeps in lattice order)."""
    counts = face_counts(pos.dice, rules.sides)
    legal, _ = legal_categories(rules, pos.mask(rules), counts)
    if any(category[c] <= NEG / 2 for c in legal):  # pragma: no cover - rule paths disagree
        raise RuntimeError(f"the kernel forbids a legal category of {pos}")
    # (value, kind, index, action): kind 0 scores category index, 1 keeps the multiset
    # of that lattice index
    options = [(float(category[c]), 0, c, f"score {rules.categories[c]}") for c in legal]
    if keep is not None:
        for kept in itertools.product(*(range(int(n) + 1) for n in counts)):
            if sum(kept) < rules.dice:
                i = rules.lattice_index[kept]
                options.append((float(keep[i]), 1, i, keep_text(kept)))
    options.sort(key=lambda o: (-o[0], o[1], o[2]))
    return [(v, action) for v, _, _, action in options]


def apply_action(
    pos: Position, action: str, rules: YatzyRules, rng: np.random.Generator
) -> tuple[Position, bool]:
    """The position after ``action`` (new dice rolled with ``rng``) and whether it is over."""
    if pos.over(rules):
        raise InputError("the game is over: every category is filled")
    words = action.split()
    if len(words) < 2 or words[0].lower() not in ("keep", "score"):
        from diceopt.games.yatzy.play.moves import example_category

        raise InputError(
            f"unknown action {action!r}; use 'keep 3 3', 'keep -' or "
            f"'score {example_category(rules)}'"
        )
    counts = dice_counts(pos.dice, rules.sides)
    if words[0].lower() == "keep":
        if pos.rerolls + pos.saved == 0:
            raise InputError("no rerolls left: score a category")
        kept: tuple[int, ...] = ()
        if words[1:] != ["-"]:
            kept = tuple(sorted(_int(w, "a kept die") for w in words[1:]))
        for d in kept:
            if not 1 <= d <= rules.sides:
                raise InputError(f"a die shows 1 to {rules.sides}, got {d}")
        keep_counts = dice_counts(kept, rules.sides)
        if (keep_counts > counts).any():
            raise InputError(
                f"cannot keep {' '.join(map(str, kept))}: the dice show "
                f"{' '.join(map(str, pos.dice))}"
            )
        if len(kept) == rules.dice:
            raise InputError("keeping all the dice is not a move: score a category instead")
        new = rng.integers(1, rules.sides + 1, size=rules.dice - len(kept))
        dice = tuple(sorted(kept + tuple(int(d) for d in new)))
        if pos.rerolls == 0:  # a saved reroll
            return replace(pos, dice=dice, saved=pos.saved - 1), False
        return replace(pos, dice=dice, rerolls=pos.rerolls - 1), False
    cat = rules.category_id(" ".join(words[1:]))
    c = rules.categories.index(cat)
    if cat in pos.filled:
        raise InputError(f"category {cat} is already filled")
    mask, flag, _ = state_of(pos, rules)
    legal, _ = legal_categories(rules, mask, counts)
    if c not in legal:
        allowed = " ".join(rules.categories[x] for x in legal)
        raise InputError(f"{cat} may not be used with these dice now; allowed: {allowed}")
    from diceopt.games.yatzy.play.engine_game import score_points

    served = pos.rerolls == 2 and not rules.saved_rerolls  # written after the first roll
    pts, _, new_flag, _ = score_points(rules, mask, flag, pos.upper, counts, c, served)
    f = rules.upper_faces[c]
    new_upper = pos.upper + (int(counts[f]) * (f + 1) if f >= 0 else 0)
    filled = in_rules_order(pos.filled + (cat,), rules)
    score = None if pos.score is None else pos.score + pts  # not given: still not given
    if score is not None and float(score).is_integer():
        score = int(score)
    saved = 0
    if rules.saved_rerolls:  # the rerolls not used are saved (at most the cap)
        saved = pos.rerolls + pos.saved
        if rules.saved_cap is not None:
            saved = min(saved, rules.saved_cap)
    after = Position((), 2, filled, new_upper, score, bool(new_flag), saved)
    if after.over(rules):
        return replace(after, rerolls=0), True
    dice = tuple(sorted(int(d) for d in rng.integers(1, rules.sides + 1, size=rules.dice)))
    return replace(after, dice=dice), False


def written_words(before: Position, after: Position, rules: YatzyRules) -> str:
    """What writing a box scored, in words: ``wrote 18 points``; an upper box that earns
    the upper bonus ``wrote 18 points (+50 bonus)``, so that a box never shows a bonus as
    its own points (a lower box's points are all it added)."""
    total = after.points() - before.points()
    cat = next(c for c in after.filled if c not in before.filled)
    upper_box = rules.upper_faces[rules.categories.index(cat)] >= 0
    box = after.upper - before.upper if upper_box else total
    extra = total - box
    return f"wrote {box:g} points" + (f" (+{extra:g} bonus)" if extra else "")


def step_events(before: Position, after: Position, rules: YatzyRules) -> tuple[str, ...]:
    """What a move did, in words (``apply``'s events and a record's ``~>`` line): the box
    written (where the score is given), then the dice rolled next (where there are)."""
    events = []
    if after.filled != before.filled and before.score is not None:
        events.append(written_words(before, after, rules))
    if after.dice:
        events.append(f"rolled: dice {' '.join(map(str, after.dice))}")
    return tuple(events)


def rank_by_probability(
    pos: Position,
    rules: YatzyRules,
    table: YatzyTable,
    category: np.ndarray,
    keep: np.ndarray,
    value_is: str,
) -> Advice:
    """Every legal action of ``pos`` ranked by a probability (0-1): writing the roll into
    category c has ``category[c]``, keeping multiset i (flat lattice index) with t rerolls
    left ``keep[t, i]``; best first, regrets in probability, each action's expected final
    score from ``table`` beside. Ties in the expected-score advice's order (scoring first,
    categories in order, keeps in lattice order)."""
    options = ranked_options(pos, rules, category, keep[pos.rerolls] if pos.rerolls else None)
    expected = {a.action: a.value for a in advise_position(pos, rules, table)}
    best = options[0][0]
    actions = [ActionAdvice(text, v, max(0.0, best - v), expected[text]) for v, text in options]
    return Advice(actions, value_is)


def roll_index(pos: Position, rules: YatzyRules) -> int:
    """The index of the position's dice among the sorted rolls (the kernel's ``r``)."""
    first = rules.lattice_lists[1][rules.dice]
    return rules.lattice_index[face_counts(pos.dice, rules.sides)] - first
