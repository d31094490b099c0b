"""Yatzy-family rule files (TOML) compiled to Yatzy rules.

The rules are a :class:`~diceopt.games.yatzy.rulebook.rules.YatzyRules`.

Role: the single source of a category game's rules. A rule file names the dice, the
rerolls, the categories (each a kind from the closed vocabulary of
:mod:`diceopt.games.yatzy.rulebook.categories` with its parameters), the upper bonus, the Yatzy
bonus and the joker rule; the built-in variants are such files, shipped in
``diceopt/games/rules``. Steps:

1. read: a shipped file's name (``yacht``) or a path, or pasted text; TOML by the
   standard library's ``tomllib``;
2. extend: ``extends = "scandinavian"`` (a shipped name, or a path relative to the file)
   loads the parent first; the child's keys override the parent's, a child category
   without ``kind`` changes only the parameters it names, ``remove`` drops categories;
3. check: every problem becomes one line (an unknown key or kind, 0 dice, a negative
   score, a bonus no sheet can reach, a category no roll can score, ...);
   :class:`RuleFileError` carries them all. Every number is range-checked before
   anything loops over it or allocates by it (:data:`MAX_POINTS`, :data:`MAX_GROUPS`,
   ...), and the file itself is bounded before it is parsed (size, nesting, a regular
   file: :func:`diceopt.games.families.read_rule_file`);
4. compile: one :class:`~diceopt.games.yatzy.rulebook.categories.CategoryRule` per category into
   a ``YatzyRules``, whose score tables feed the same numba kernel as a built-in's. A file
   that is not shipped gets ``key`` = its name (a slug of at most :data:`KEY_SLUG_CHARS`
   characters) and the hash of its resolved rules, so a changed file never reuses a
   stored table.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from diceopt.errors import InputError
from diceopt.games.families import MAX_NAME_CHARS, SHIPPED_DIR, parse_toml, read_rule_file
from diceopt.games.families import shipped_names as family_files
from diceopt.games.yatzy.rulebook.categories import KINDS, CategoryRule
from diceopt.games.yatzy.rulebook.rules import (
    JOKER_MODES,
    YATZY_BONUS_RULES,
    YatzyRules,
    reachable_upper_totals,
)

BUILTIN = (
    "scandinavian",
    "scandinavian-accepts",
    "scandinavian-fh-accepts",
    "scandinavian-tp-accepts",
    "scandinavian-forced",
    "american",
    "american-forced-joker",
    "american-no-joker",
    "american-no-bonus",
    "maxi",
    "maxi-saved",
)
"""The built-in variants, in the order they are listed (each a shipped file)."""

TOP_KEYS = {
    "family": str,
    "name": str,
    "description": str,
    "style": str,
    "extends": str,
    "dice": int,
    "sides": int,
    "rerolls": int,
    "saved_rerolls": bool,
    "saved_cap": int,
    "forced_order": bool,
    "joker": str,
    "yatzy_bonus": int,
    "yatzy_bonus_rule": str,
    "remove": list,
    "order": list,
    "bonus": dict,
    "categories": dict,
}
BONUS_KEYS = {"threshold": int, "points": int}
# parameters each kind takes besides ``kind`` (every kind also takes ``joker``, ``served``
# and ``needs_yatzy``; the rules of CategoryRule say where they apply)
KIND_KEYS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "face": {"face": int},
    "chance": {},
    "yatzy": {"score": (int, str)},
    "of_a_kind": {"count": int, "score": (int, str)},
    "pairs": {"count": int, "score": (int, str), "same_face": bool},
    "full_house": {"score": (int, str), "same_face": bool},
    "groups": {"sizes": list, "score": (int, str), "same_face": bool},
    "straight": {"faces": list, "score": (int, str)},
}
REQUIRED = {
    "face": ("face",),
    "yatzy": ("score",),
    "of_a_kind": ("count", "score"),
    "pairs": ("score",),
    "full_house": ("score",),
    "groups": ("sizes", "score"),
    "straight": ("faces", "score"),
}
CATEGORY_ID = re.compile(r"^[a-z][a-z0-9_]*$")
STYLES = ("scandinavian", "american", "maxi", "custom")
MAX_DEPTH = 8  # extends chains longer than this are refused (and cycles)
# the bounds every number of a file is checked against before it is used
MAX_DICE = 8
MAX_CATEGORIES = 20  # the kernel's sheet: a bit per category in a state's index
MAX_ID_CHARS = 40  # characters of a category id
MAX_POINTS = 100_000  # one score: a category's points, joker or served score, a bonus
# a game's most points: float32 values hold every whole number up to it, and a simulated
# game's points fit the 28 bits it keeps for them
MAX_TOTAL = 2**24 - 1
MAX_GROUPS = 4  # groups of a category (pairs: 4 pairs of 8 dice; Maxi's three pairs: 3)
MAX_STRAIGHTS = 16  # alternatives of a straight
KEY_SLUG_CHARS = 40  # characters of a file's name in its storage key (before the hash)


class RuleFileError(InputError):
    """A rule file with problems: ``problems`` holds one line per problem."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = list(problems)
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(f"rule file {source}: {problems[0]}{more}")


# --- reading and extending --------------------------------------------------------------


def shipped_names() -> list[str]:
    """Names of the Yatzy-family rule files shipped with diceopt (``yacht``,
    ``scandinavian``, ...)."""
    return family_files("category")


def _locate(source: str | Path, base: Path | None = None, paths: bool = True) -> Path:
    """The file a rule-file reference names: a shipped name, or a path (relative to
    ``base``, the extending file's folder, when given; ``paths`` False: shipped names
    only, for text from elsewhere, e.g. pasted on the web page). InputError when there is
    none."""
    text = str(source).strip()
    if len(text) > 1024 or "\0" in text:
        raise InputError("a rule file's name or path must be at most 1024 characters, no NUL")
    if text and "/" not in text and "\\" not in text and not text.endswith(".toml"):
        shipped = SHIPPED_DIR / f"{text.lower()}.toml"
        if shipped.is_file():
            return shipped
        names = ", ".join(shipped_names())
        also = " (or give a path)" if paths else ""
        raise InputError(f"no shipped rule file {text!r}; shipped: {names}{also}")
    if not paths:
        raise InputError(f"extends {text!r}: here a rule file extends a shipped one only")
    path = Path(text).expanduser()
    if base is not None and not path.is_absolute():
        path = base / path
    try:
        found = path.exists()  # (read_text refuses a FIFO, a folder, ...: one line)
    except OSError as exc:  # e.g. a name too long for the file system
        raise InputError(f"no rule file at {text}: {exc.strerror or exc}") from None
    if not found:
        raise InputError(f"no rule file at {text}")
    return path


def read_text(path: Path) -> str:
    """A rule file's text (UTF-8, a byte order mark dropped); InputError (one line) when
    it cannot be read, is not a regular file or is too large
    (:func:`~diceopt.games.families.read_rule_file`)."""
    return read_rule_file(path)


def _parse(text: str, source: str) -> dict[str, Any]:
    """The TOML table of a rule file's text; RuleFileError with the parser's message, or
    when the file belongs to another family (``family = "push-luck"``)."""
    try:
        data = parse_toml(text)
    except InputError as exc:
        raise RuleFileError(source, [str(exc)]) from None
    family = data.get("family", "category")
    if family != "category":
        raise RuleFileError(
            source, [f'family {family!r}: not a Yatzy-family rule file (family = "category")']
        )
    return data


def _merge(parent: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    """The child's rules over the parent's (see the module doc, step 2)."""
    out = {k: v for k, v in parent.items() if k not in ("name", "description", "extends")}
    for key, value in child.items():
        if key in ("remove", "order"):
            continue
        if key == "bonus" and isinstance(value, dict) and isinstance(out.get("bonus"), dict):
            out["bonus"] = {**out["bonus"], **value}
        elif key == "categories" and isinstance(value, dict):
            cats = dict(out.get("categories") or {})
            for cid, table in value.items():
                old = cats.get(cid)
                if isinstance(table, dict) and "kind" not in table and isinstance(old, dict):
                    cats[cid] = {**old, **table}
                else:
                    cats[cid] = table
            out["categories"] = cats
        else:
            out[key] = value
    for key in ("remove", "order"):
        if key in child:
            out[key] = child[key]
        else:
            out.pop(key, None)
    return out


def resolve(
    text: str, source: str, base: Path | None = None, depth: int = 0, paths: bool = True
) -> dict[str, Any]:
    """The rules of a rule file's ``text`` with every ``extends`` applied (parents read
    from the shipped files, or relative to ``base``; ``paths`` False: shipped parents
    only); ``remove`` and ``order`` applied."""
    data = _parse(text, source)
    parent_ref = data.get("extends")
    if parent_ref is not None:
        if not isinstance(parent_ref, str):
            raise RuleFileError(source, ["extends must be a rule file's name or path"])
        if depth >= MAX_DEPTH:
            raise RuleFileError(source, [f"extends goes deeper than {MAX_DEPTH} files (a cycle?)"])
        try:
            path = _locate(parent_ref, base, paths)
        except InputError as exc:
            raise RuleFileError(source, [str(exc)]) from None
        try:
            parent = resolve(read_text(path), str(parent_ref), path.parent, depth + 1, paths)
        except RuleFileError as exc:  # the parent's problems, each naming the parent
            raise RuleFileError(
                source, [f"its parent {exc.source}: {p}" for p in exc.problems]
            ) from None
        except InputError as exc:
            raise RuleFileError(source, [f"its parent {parent_ref}: {exc}"]) from None
        data = _merge(parent, data)
    return _apply_remove_and_order(data, source)


def _apply_remove_and_order(data: dict[str, Any], source: str) -> dict[str, Any]:
    """``remove`` drops categories, ``order`` reorders them; both keys are consumed."""
    cats = data.get("categories")
    if not isinstance(cats, dict):
        return data
    problems = []
    remove = data.pop("remove", [])
    if not isinstance(remove, list):
        problems.append("remove must be a list of category ids")
        remove = []
    for cid in remove:
        if not isinstance(cid, str):
            problems.append(f"remove must be a list of category ids, got {cid!r}")
            continue
        if cid not in cats:
            problems.append(f"remove names {cid!r}, which is not a category")
        cats.pop(cid, None)
    order = data.pop("order", None)
    if order is not None:
        if (
            not isinstance(order, list)
            or not all(isinstance(cid, str) for cid in order)
            or sorted(order) != sorted(cats)
        ):
            problems.append("order must list every category exactly once")
        else:
            cats = {cid: cats[cid] for cid in order}
    if problems:
        raise RuleFileError(source, problems)
    data["categories"] = cats
    return data


# --- checking ---------------------------------------------------------------------------


def _typed(value: Any, kind: type | tuple[type, ...]) -> bool:
    """Whether a TOML value has the type a key wants (a bool is no int)."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        return False
    return isinstance(value, kinds)


def _type_name(kind: type | tuple[type, ...]) -> str:
    names = {
        int: "a whole number",
        str: "text",
        bool: "true or false",
        list: "a list",
        dict: "a table",
    }
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names[k] for k in kinds)


def _keys(table: dict[str, Any], allowed: dict[str, Any], where: str) -> Iterator[str]:
    """A problem line for each unknown or mistyped key of ``table``."""
    for key, value in table.items():
        if key not in allowed:
            near = [k for k in allowed if k.replace("_", "") == key.replace("_", "").lower()]
            hint = f" (did you mean {near[0]!r}?)" if near else f"; known: {', '.join(allowed)}"
            yield f"unknown key {key!r} in {where}{hint}"
        elif not _typed(value, allowed[key]):
            yield f"{where}: {key} must be {_type_name(allowed[key])}, got {value!r}"


def _score_of(value: Any, where: str, problems: list[str]) -> tuple[str, int]:
    """(score mode, fixed points) of a ``score`` value: a number of points (0 to
    :data:`MAX_POINTS`), ``"sum"`` (all the dice) or ``"matched"`` (the dice of the
    combination)."""
    if _whole(value):
        if value < 0:
            problems.append(f"{where}: a negative score ({value})")
            return "points", 0
        if value > MAX_POINTS:
            problems.append(f"{where}: a score of more than {MAX_POINTS:,} points ({value})")
            return "points", 0
        return "points", value
    if value in ("sum", "matched"):
        return value, 0
    problems.append(f"{where}: score must be a number of points, 'sum' or 'matched', got {value!r}")
    return "points", 0


def _points_problem(value: Any, what: str) -> str | None:
    """A line when a whole number of points is negative or above :data:`MAX_POINTS`."""
    if not _whole(value):
        return None
    if value < 0:
        return f"a negative {what} ({value})"
    if value > MAX_POINTS:
        return f"a {what} of more than {MAX_POINTS:,} points ({value})"
    return None


def _groups_of(kind: str, table: dict[str, Any], where: str, problems: list[str]) -> tuple:
    """The dice per group of a group kind (``of_a_kind``, ``pairs``, ``full_house``,
    ``groups``), each bound checked before the tuple is made; () with a problem line."""
    if kind == "full_house":
        return (3, 2)
    if kind == "of_a_kind":
        count = table["count"]
        if not 1 <= count <= MAX_DICE:
            problems.append(f"{where}: count must be 1..{MAX_DICE} dice, got {count}")
            return ()
        return (count,)
    if kind == "pairs":
        count = table.get("count", 1)
        if not 1 <= count <= MAX_GROUPS:
            problems.append(f"{where}: count must be 1..{MAX_GROUPS} pairs, got {count}")
            return ()
        return (2,) * count
    sizes = table["sizes"]
    if not 1 <= len(sizes) <= MAX_GROUPS or not all(
        _whole(g) and 1 <= g <= MAX_DICE for g in sizes
    ):
        problems.append(
            f"{where}: sizes must be 1 to {MAX_GROUPS} groups of 1..{MAX_DICE} dice, "
            f"got {_short(sizes)}"
        )
        return ()
    return tuple(sizes)


def _straights_of(faces: list, where: str, problems: list[str]) -> tuple:
    """The alternatives (pips) of a straight's ``faces`` (one list, or a list of lists),
    bounded; () with a problem line."""
    alts = faces if faces and all(isinstance(f, list) for f in faces) else [faces]
    if len(alts) > MAX_STRAIGHTS or not all(
        1 <= len(a) <= 6 and all(_whole(p) for p in a) for a in alts
    ):
        problems.append(
            f"{where}: faces must be pips 1..6 (or at most {MAX_STRAIGHTS} lists of them), "
            f"got {_short(faces)}"
        )
        return ()
    return tuple(tuple(a) for a in alts)


def _short(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters (a problem line echoes a value)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _category_rule(cid: str, table: Any, problems: list[str]) -> CategoryRule | None:
    """The CategoryRule of one ``[categories.<id>]`` table; problems appended, None if
    it cannot be built."""
    where = f"category {_short(cid, MAX_ID_CHARS + 2)}"
    if len(cid) > MAX_ID_CHARS:
        problems.append(f"{where}: an id is at most {MAX_ID_CHARS} characters")
    elif not CATEGORY_ID.match(cid):
        problems.append(
            f"{where}: an id is lower-case letters, digits and _, starting with a letter"
        )
    if not isinstance(table, dict):
        problems.append(f"{where} must be a table, e.g. [categories.{cid[:MAX_ID_CHARS]}]")
        return None
    kind = table.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        problems.append(
            f"{where}: unknown category kind {_short(kind)}; kinds are {', '.join(KINDS)}"
        )
        return None
    allowed = {"kind": str, "joker": int, "served": int, "needs_yatzy": bool, **KIND_KEYS[kind]}
    before = len(problems)
    problems.extend(_keys(table, allowed, where))
    for key in REQUIRED.get(kind, ()):
        if key not in table:
            problems.append(f"{where}: a {kind} category needs {key!r}")
    if len(problems) > before:
        return None
    score, points = _score_of(table.get("score", 0), where, problems)
    joker = table.get("joker")
    served = table.get("served")
    for value, what in ((joker, "joker score"), (served, "served score")):
        problem = _points_problem(value, what)
        if problem is not None:
            problems.append(f"{where}: {problem}")
    if len(problems) > before:
        return None
    args: dict[str, Any] = {"score": score, "points": points, "joker": joker, "served": served}
    args["needs_yatzy"] = bool(table.get("needs_yatzy", False))
    args["same_face"] = bool(table.get("same_face", False))
    if kind == "face":
        face = table["face"]
        if not 1 <= face <= 6:
            problems.append(f"{where}: face must be 1..6, got {face}")
            return None
        if served is not None or args["needs_yatzy"]:
            problems.append(f"{where}: served and needs_yatzy apply to lower categories only")
            return None
        args = {"face": face}
    elif kind in ("of_a_kind", "pairs", "full_house", "groups"):
        args["groups"] = _groups_of(kind, table, where, problems)
    elif kind == "straight":
        args["straights"] = _straights_of(table["faces"], where, problems)
    if len(problems) > before:
        return None
    try:
        return CategoryRule(kind, **args)
    except (InputError, TypeError) as exc:
        problems.append(f"{where}: {exc}")
        return None


def _can_qualify(spec: CategoryRule, dice: int, sides: int) -> bool:
    """Whether some roll of ``dice`` dice of ``sides`` sides qualifies for ``spec``,
    without scoring a roll: its groups on different faces (one face each, several on
    one face where ``same_face``) or one of its straights among the pips."""
    if spec.kind in ("of_a_kind", "pairs", "full_house", "groups"):
        faces_ok = spec.same_face or len(spec.groups) <= sides
        return sum(spec.groups) <= dice and faces_ok
    if spec.kind == "straight":
        return any(len(s) <= dice and max(s) <= sides for s in spec.straights)
    return True  # face (a face the dice lack is refused by YatzyRules), chance, yatzy


def _never_scores(rules: YatzyRules) -> list[str]:
    """A line for each category that no roll of the rules' dice can score (e.g. six of
    a kind with five dice, a straight of pips the dice do not have), jokers aside."""
    return [
        f"category {cid!r} can never score: no roll of {rules.dice} dice of "
        f"{rules.sides} sides qualifies"
        for cid, spec in zip(rules.categories, rules.specs, strict=True)
        if not (spec.joker and rules.joker_code) and not _can_qualify(spec, rules.dice, rules.sides)
    ]


def most_points(rules: YatzyRules) -> int:
    """An upper bound on a game's points from the rules' numbers alone (no score table):
    each category's most (its fixed, joker or served points, or every die at its top
    face), the upper bonus and a Yatzy bonus on every turn but one."""
    top = rules.dice * rules.sides
    per = [
        max(s.points if s.score == "points" and s.kind not in ("face", "chance") else top,
            s.joker or 0, s.served or 0)
        for s in rules.specs
    ]  # fmt: skip
    return sum(per) + rules.bonus + rules.yahtzee_bonus * (rules.num_categories - 1)


def compile_rules(
    data: dict[str, Any], source: str, name: str, key: str = "", digest: str = ""
) -> YatzyRules:
    """The YatzyRules of resolved rule-file data (:func:`resolve`); RuleFileError listing
    every problem found. Every number is checked against its bounds before anything
    loops over it or allocates by it."""
    problems = list(_keys(data, TOP_KEYS, "the rules"))
    if "bonus" in data and isinstance(data["bonus"], dict):
        problems.extend(_keys(data["bonus"], BONUS_KEYS, "[bonus]"))
    own = data.get("name")
    if isinstance(own, str) and len(own) > MAX_NAME_CHARS:
        problems.append(f"name must be at most {MAX_NAME_CHARS} characters, got {len(own):,}")
    raw_bonus = data.get("bonus")
    bonus: dict[str, Any] = raw_bonus if isinstance(raw_bonus, dict) else {}
    dice, sides = data.get("dice", 5), data.get("sides", 6)
    numbers = _numbers(data, bonus, dice, sides)
    problems.extend(numbers)
    dice_ok = _whole(dice) and 1 <= dice <= MAX_DICE
    cats = data.get("categories")
    specs: list[CategoryRule] = []
    if not isinstance(cats, dict) or not cats:
        problems.append("no categories: add [categories.<id>] tables")
        cats = {}
    elif len(cats) > MAX_CATEGORIES:
        problems.append(f"at most {MAX_CATEGORIES} categories, got {len(cats):,}")
        cats = {}
    for cid, table in cats.items():
        spec = _category_rule(str(cid), table, problems)
        if spec is not None:
            specs.append(spec)
    style = data.get("style", "custom")
    if style not in STYLES:
        problems.append(f"style must be one of {', '.join(STYLES)} (it names the sheet only)")
    joker = data.get("joker", "none")
    if joker not in JOKER_MODES:
        problems.append(f"joker must be one of {', '.join(JOKER_MODES)}, got {_short(joker)}")
    bonus_rule = data.get("yatzy_bonus_rule", "points")
    if bonus_rule not in YATZY_BONUS_RULES:
        problems.append(
            f"yatzy_bonus_rule must be one of {', '.join(YATZY_BONUS_RULES)}, "
            f"got {_short(bonus_rule)}"
        )
    fh = {s.same_face for s in specs if s.kind == "full_house"}
    tp = {s.same_face for s in specs if s.kind == "pairs" and len(s.groups) == 2}
    if len(fh) > 1 or len(tp) > 1:
        problems.append("same_face must agree across the full houses (and the two pairs)")
    upper = [s.face - 1 for s in specs if s.kind == "face"]
    threshold = bonus.get("threshold", 63)
    points = bonus.get("points", 0)
    if _whole(threshold) and _whole(points) and dice_ok and points > 0 and not numbers:
        best = max(reachable_upper_totals(upper, dice))
        if best < threshold:
            problems.append(
                f"the bonus threshold {threshold} cannot be reached: the upper categories "
                f"score at most {best}"
            )
    if problems:
        raise RuleFileError(source, problems)
    try:
        rules = YatzyRules(
            style=style if style in STYLES else "custom",
            categories=tuple(cats),
            dice=dice,
            sides=sides,
            # without a bonus the upper total changes nothing: one level, not 64
            bonus_threshold=threshold if points else 1,
            bonus=points,
            full_house_accepts_yatzy=bool(fh and fh.pop()),
            two_pairs_accepts_four=bool(tp and tp.pop()),
            forced_order=data.get("forced_order", False),
            joker=joker,
            yahtzee_bonus=data.get("yatzy_bonus", 0),
            yatzy_bonus_rule=bonus_rule,
            saved_rerolls=data.get("saved_rerolls", False),
            saved_cap=data.get("saved_cap"),
            specs=tuple(specs),
            name=name,
            key=key,
            digest=digest,
        )
    except InputError as exc:
        raise RuleFileError(source, [str(exc)]) from None
    problems = _never_scores(rules)
    most = most_points(rules)
    if most > MAX_TOTAL:  # (not with the bounds above; kept should they grow)
        problems.append(f"a game can score up to {most:,} points, more than {MAX_TOTAL:,}")
    if problems:
        raise RuleFileError(source, problems)
    return rules


def _whole(value: Any) -> bool:
    """Whether a TOML value is a whole number (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _numbers(data: dict[str, Any], bonus: dict[str, Any], dice: Any, sides: Any) -> list[str]:
    """Problems with the numbers of the rules (dice, sides, rerolls, the saved-rerolls
    cap, bonus points and threshold); values of the wrong type are left to the key
    checks."""
    out = []
    if _whole(dice) and not 1 <= dice <= MAX_DICE:
        out.append(f"dice must be 1..{MAX_DICE}, got {dice}")
    if _whole(sides) and not 2 <= sides <= 6:
        out.append(f"sides must be 2..6, got {sides}")
    rerolls = data.get("rerolls", 2)
    if _whole(rerolls) and rerolls != 2:
        out.append(f"rerolls per turn must be 2 (the solver's turn), got {rerolls}")
    for what, value in (
        ("bonus points", bonus.get("points", 0)),
        ("yatzy_bonus", data.get("yatzy_bonus", 0)),
    ):
        if _whole(value) and value < 0:
            out.append(f"a negative score: {what} {value}")
        elif _whole(value) and value > MAX_POINTS:
            out.append(f"a score of more than {MAX_POINTS:,} points: {what} {value}")
    threshold = bonus.get("threshold", 63)
    if _whole(threshold) and threshold < 1:
        out.append(f"the bonus threshold must be at least 1, got {threshold}")
    cap: Any = data.get("saved_cap")
    if cap is not None and data.get("saved_rerolls") is not True:
        out.append("saved_cap needs saved_rerolls = true")
    elif _whole(cap) and not 1 <= cap <= 40:
        out.append(f"saved_cap must be 1..40 rerolls, got {cap}")
    return out


# --- loading ----------------------------------------------------------------------------


def rules_hash(data: dict[str, Any]) -> str:
    """SHA-256 (hex) of resolved rule-file data in a canonical JSON form: the same rules
    give the same hash whatever the file's layout, comments or parents."""
    canon = {k: v for k, v in data.items() if k not in ("name", "description")}
    text = json.dumps(canon, sort_keys=True, separators=(",", ":"), default=str)
    import hashlib  # (OpenSSL: only for a rule file that is not shipped)

    return hashlib.sha256(text.encode()).hexdigest()


def load_rules_text(
    text: str, name: str = "pasted", base: Path | None = None, paths: bool = True
) -> YatzyRules:
    """The YatzyRules of a rule file's ``text`` (pasted or uploaded): ``name`` unless the
    file names itself; ``key`` = name (at most :data:`KEY_SLUG_CHARS` characters of it)
    and content hash (tables filed apart). ``paths`` False: ``extends`` names shipped
    files only (text from a web request reads no other file)."""
    data = resolve(text, name, base, paths=paths)
    own = data.get("name")
    label = own if isinstance(own, str) and own.strip() else name
    label = re.sub(r"[^a-z0-9_-]+", "-", label.lower()).strip("-") or "rules"
    slug = label[:KEY_SLUG_CHARS].strip("-") or "rules"
    digest = rules_hash(data)[:16]
    return compile_rules(data, name, label, f"{slug}-{digest}", digest)


def load_rules(source: str | Path) -> YatzyRules:
    """The YatzyRules of a rule file: a shipped name (``yacht``, ``scandinavian``) or a
    path. Built-in variants keep their name as storage key; any other file is filed under
    its name and content hash. InputError (RuleFileError) for a bad file."""
    path = _locate(source)
    text = read_text(path)
    if path.parent == SHIPPED_DIR and path.stem in BUILTIN:
        return builtin_rules(path.stem)
    return load_rules_text(text, path.stem, path.parent)


_BUILTINS: dict[str, YatzyRules] = {}


def builtin_rules(name: str) -> YatzyRules:
    """The built-in variant ``name`` from its shipped file (read once per process)."""
    if name not in _BUILTINS:
        path = SHIPPED_DIR / f"{name}.toml"
        data = resolve(path.read_text(encoding="utf-8"), name, SHIPPED_DIR)
        _BUILTINS[name] = compile_rules(data, name, name)
    return _BUILTINS[name]


def describe_file(source: str | Path) -> str:
    """A shipped file's ``description`` line ('' if none)."""
    data = _parse(read_text(_locate(source)), str(source))
    return str(data.get("description", ""))
