"""The text notation shared by every game's positions: ``key value | key value | ...``."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from diceopt.errors import InputError


def split_fields(
    text: str,
    fields: Sequence[str],
    example: str,
    aliases: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Split a position into {field: value text}; fields may come in any order.

    Keys are matched case-insensitively (``aliases`` maps short forms to field names);
    empty parts are ignored. InputError (one line, with ``example``) for an empty
    position, an unknown field or a field given twice.
    """
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"empty position; example: {example}")
    aliases = aliases or {}
    found: dict[str, str] = {}
    for part in text.split("|"):
        part = part.strip()
        if not part:
            continue
        key, _, rest = part.partition(" ")
        key = aliases.get(key.lower(), key.lower())
        if key not in fields:
            raise InputError(
                f"cannot read {part!r}: unknown field {key!r} "
                f"(fields: {', '.join(fields)}; e.g. '{example}')"
            )
        if key in found:
            raise InputError(f"{key!r} given twice in {text.strip()!r}")
        found[key] = rest.strip()
    return found


def parse_number(word: str) -> float:
    """A number such as ``3``, ``-0.5``, ``1e-3`` or a fraction ``1/6``; InputError if not.

    ``inf`` and ``nan`` are returned as such (callers say which values they take); a
    finite number too large for a float (``1e400``, 400 digits) is refused as too large,
    never read as infinite.
    """
    num, slash, den = word.partition("/")
    try:
        value = float(num) / float(den) if slash else float(word)
    except (ValueError, ZeroDivisionError, OverflowError):
        raise InputError(f"not a number: {word!r}") from None
    if math.isinf(value) and "inf" not in word.lower():
        raise InputError(f"too large: {word!r} (numbers go up to about {sys.float_info.max:.1e})")
    return value


def is_digits(word: str) -> bool:
    """Whether ``word`` is one or more of the digits 0-9 (``str.isdigit`` also takes
    ``²`` and other digits that ``int`` refuses or reads otherwise)."""
    return word.isascii() and word.isdigit()


def parse_int(word: str) -> int:
    """A whole number such as ``3`` or ``-2``; InputError if not, or if it has more digits
    than Python reads (then it is too large, not "not a whole number")."""
    try:
        return int(word)
    except ValueError:
        digits = word.strip().lstrip("+-").replace("_", "")
        if is_digits(digits):  # only a length beyond what Python reads fails here
            raise InputError(f"too large: {word!r}") from None
        raise InputError(f"not a whole number: {word!r}") from None


def _json_float(word: str) -> float:
    """A JSON number with a fraction or exponent; InputError when too large for a float."""
    value = float(word)
    if math.isinf(value):
        raise InputError(f"too large: {word!r}")
    return value


def load_json(text: str) -> Any:
    """JSON text of the user's (a position, an opponent) as Python data: a number too
    large for a float or longer than Python reads is an InputError ("too large"), never
    infinite or a ValueError; malformed text raises json.JSONDecodeError, which the caller
    words."""
    return json.loads(text, parse_int=parse_int, parse_float=_json_float)


def parse_numbers(text: str) -> list[float]:
    """Numbers (or fractions) separated by spaces or commas; InputError naming a bad word."""
    return [parse_number(word) for word in text.replace(",", " ").split()]
