"""Names that are safe in a file name and of bounded length, whatever a rule file calls itself.

Used by the table files (:mod:`diceopt.storage`) and by the rules that name them
(``YatzyRules.storage_key``).
"""

from __future__ import annotations

import re

MAX_VARIANT_CHARS = 100  # of a file name's variant part (the rest: under 60 characters)
SAFE_NAME = re.compile(r"^[A-Za-z0-9_ -][A-Za-z0-9_. -]*$")


def bounded_name(name: str, limit: int = 0) -> str:
    """``name`` itself when it is at most ``limit`` characters (default
    :data:`MAX_VARIANT_CHARS`) and safe in a file name (letters, digits, ``_``, ``-``,
    ``.``, spaces, not starting with ``.``), else a slug of its first characters and the
    first 16 hex digits of its SHA-256: one name, one file, whatever its length."""
    limit = limit or MAX_VARIANT_CHARS
    if len(name) <= limit and SAFE_NAME.match(name):
        return name
    import hashlib

    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", name)[: limit - 17].strip("-") or "rules"
    return f"{slug}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"
