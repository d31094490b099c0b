"""Game families: compilers from rule files (TOML) to the arrays of a family's solver.

- ``category``: the Yatzy family (dice, rerolls, categories, bonuses, jokers) compiled to
  :class:`~diceopt.games.yatzy.rules.YatzyRules`, the rules the Yatzy kernel reads;
- ``push_luck``: the push-your-luck family (combinations set aside, hot dice, busts, a
  minimum to bank, a goal) compiled to roll tables for the one- and two-player solvers.

A rule file names its family (``family = "push-luck"``); a file without one is a
Yatzy-family file. The shipped rule files live in ``diceopt/games/rules``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from diceopt.errors import InputError

FAMILIES = {  # a rule file's ``family`` -> the module that compiles and checks it
    "category": "diceopt.games.families.category",
    "push-luck": "diceopt.games.families.push_luck",
}
DEFAULT_FAMILY = "category"
SHIPPED_DIR = Path(__file__).resolve().parent.parent / "rules"


def shipped_path(name: str) -> Path | None:
    """The shipped rule file of a name (``yacht``, ``zilch``), or None."""
    text = name.strip().lower()
    if not text or "/" in text or "\\" in text or text.endswith(".toml"):
        return None
    path = SHIPPED_DIR / f"{text}.toml"
    return path if path.is_file() else None


def shipped_family(path: Path) -> str:
    """The family a rule file names (``DEFAULT_FAMILY`` when it names none), read without
    checking the rest; InputError (one line) when it cannot be read or names no family."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"no rule file at {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read rule file {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"rule file {path}: not valid TOML: {exc}") from None
    family = data.get("family", DEFAULT_FAMILY)
    if family not in FAMILIES:
        known = ", ".join(f'"{f}"' for f in FAMILIES)
        raise InputError(f"rule file {path}: family must be one of {known}, got {family!r}")
    return str(family)


def family_of(source: str) -> str:
    """The family of a rule file: a shipped name or a path (see :func:`shipped_family`)."""
    path = shipped_path(source)
    return shipped_family(path if path is not None else Path(source).expanduser())


def shipped_names(family: str | None = None) -> list[str]:
    """Names of the shipped rule files, of one family or (None) of all, sorted."""
    names = sorted(p.stem for p in SHIPPED_DIR.glob("*.toml"))
    if family is None:
        return names
    return [n for n in names if shipped_family(SHIPPED_DIR / f"{n}.toml") == family]
