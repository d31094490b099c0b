"""The built-in Yatzy variants by id, compiled from their shipped rule files on first use.

Role: the one place a variant's name becomes its :class:`~.rules.YatzyRules`
(:func:`get_rules`, :func:`variant_id`; ``SCANDINAVIAN``, ``AMERICAN``, ``MAXI`` and
``VARIANT_RULES`` are read on first use), above the rule-file compiler
(:mod:`~diceopt.games.yatzy.rulebook.compiler`), which only turns a file into rules.
"""

from __future__ import annotations

import difflib
from typing import Any

from diceopt.errors import InputError
from diceopt.games.yatzy.rulebook.rules import YatzyRules

_VARIANT_RULES: dict[str, YatzyRules] = {}  # the variants compiled so far (tests add some)


def _compiled(name: str) -> YatzyRules:
    """The rules of variant ``name``: compiled from its shipped rule file on first use
    (only that file: a command that needs one variant reads one), or added by a test."""
    rules = _VARIANT_RULES.get(name)
    if rules is None:
        # (the compiler reads TOML: loaded by a command that needs a variant's rules)
        from diceopt.games.yatzy.rulebook.compiler import builtin_rules

        rules = _VARIANT_RULES[name] = builtin_rules(name)
    return rules


def _variant_rules() -> dict[str, YatzyRules]:
    """Every variant by id: the built-in ones (:data:`VARIANTS` order, each compiled from
    its shipped file), then any a test added; the same dict every time, so that adding to
    it adds a variant."""
    builtin = {name: _compiled(name) for name in VARIANTS}
    added = {k: v for k, v in _VARIANT_RULES.items() if k not in VARIANTS}
    _VARIANT_RULES.clear()
    _VARIANT_RULES.update(builtin | added)
    return _VARIANT_RULES


_CONSTANTS = {"SCANDINAVIAN": "scandinavian", "AMERICAN": "american", "MAXI": "maxi"}


def __getattr__(name: str) -> Any:
    """``VARIANT_RULES`` (every built-in variant by id) and the ``SCANDINAVIAN``,
    ``AMERICAN`` and ``MAXI`` rules, read from the shipped rule files on first use."""
    if name == "VARIANT_RULES":
        return _variant_rules()
    if name in _CONSTANTS:
        return _compiled(_CONSTANTS[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


VARIANTS: dict[str, str] = {
    "scandinavian": "Scandinavian Yatzy: 15 categories, 50 bonus at 63 (default)",
    "scandinavian-accepts": "Scandinavian; full house accepts five of a kind, two pairs "
    "accepts four of a kind",
    "scandinavian-fh-accepts": "Scandinavian; full house accepts five of a kind",
    "scandinavian-tp-accepts": "Scandinavian; two pairs accepts four of a kind",
    "scandinavian-forced": "Scandinavian; categories filled top to bottom",
    "american": "American Yahtzee: 13 categories, 35 bonus at 63, Yahtzee bonus 100, "
    "free-choice joker",
    "american-forced-joker": "American Yahtzee with the forced joker rule",
    "american-no-joker": "American Yahtzee without jokers (Yahtzee bonus kept)",
    "american-no-bonus": "American Yahtzee without Yahtzee bonus and jokers",
    "maxi": "Maxi Yatzy (Finnish rules): 6 dice, 20 categories, 50 bonus at 75",
    "maxi-saved": "Maxi Yatzy with saved rerolls: rerolls not used are kept for later turns",
}

DEFAULT_VARIANT = "scandinavian"


def variant_id(variant: str | None) -> str:
    """The id of a variant name (None: the default): case, spaces and ``_`` for ``-`` are
    ignored (``American``, ``american_no_bonus``); InputError for an unknown name."""
    key = DEFAULT_VARIANT if variant is None else variant
    if not isinstance(key, str):
        raise InputError(f"a Yatzy variant is a name, got {key!r}")
    norm = "-".join(key.lower().replace("_", " ").replace("-", " ").split())
    if norm in VARIANTS or norm in _VARIANT_RULES:
        return norm
    variants = _variant_rules()
    close = difflib.get_close_matches(norm, list(variants), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise InputError(f"unknown Yatzy variant {key!r}{hint}; choose from {', '.join(variants)}")


def get_rules(variant: str | None) -> YatzyRules:
    """The rules of a variant (None: the default; names as :func:`variant_id` reads them);
    InputError for an unknown name."""
    return _compiled(variant_id(variant))
