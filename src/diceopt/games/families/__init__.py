"""Game families: compilers from rule files (TOML) to the arrays of a family's solver.

- ``category``: the Yatzy family (dice, rerolls, categories, bonuses, jokers) compiled to
  :class:`~diceopt.games.yatzy.rulebook.rules.YatzyRules`, the rules the Yatzy kernel reads;
- ``push_luck``: the push-your-luck family (combinations set aside, hot dice, busts, a
  minimum to bank, a goal) compiled to roll tables for the one- and two-player solvers.

A rule file names its family (``family = "push-luck"``); a file without one is a
Yatzy-family file. The shipped rule files live in ``diceopt/games/rules``.

Every rule file is read through :func:`read_rule_file` and parsed by :func:`parse_toml`,
which bound it before any work: a regular file (a FIFO or a device is refused before it
is opened for reading), at most :data:`MAX_FILE_BYTES` bytes of UTF-8 (a leading byte
order mark is dropped), brackets and braces nested at most :data:`MAX_NESTING` deep and
keys of at most :data:`MAX_KEY_PARTS` dotted parts (so that neither the parser's
recursion nor its time on long dotted keys depends on the file). Each refusal is one
InputError line.
"""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path
from typing import Any

from diceopt.errors import InputError

MAX_FILE_BYTES = 64 * 1024  # a rule file's size (bytes; the shipped ones are under 4 kB)
MAX_NESTING = 16  # brackets and braces open at once (a shipped file: 2)
MAX_KEY_PARTS = 16  # dotted parts of one key or table header (a shipped file: 2)
MAX_NAME_CHARS = 64  # characters of a rule file's ``name``

FAMILIES = {  # a rule file's ``family`` -> the module that compiles and checks it
    "category": "diceopt.games.yatzy.rulebook.compiler",
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


def read_rule_file(path: Path) -> str:
    """A rule file's text, bounded: InputError (one line) when it is missing, not a
    regular file (checked before it is opened for reading, and again on the open file),
    larger than :data:`MAX_FILE_BYTES`, unreadable or not UTF-8. A leading byte order
    mark is dropped."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"no rule file at {path}") from None
    except OSError as exc:
        raise InputError(f"cannot read rule file {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"rule file {path}: not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise InputError(_too_large(f"rule file {path}", info.st_size))
    try:
        # O_NONBLOCK: a file swapped for a FIFO after the check above cannot block the open
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise InputError(f"rule file {path}: not a regular file")
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read rule file {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(_too_large(f"rule file {path}", len(data)))
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        raise InputError(f"rule file {path}: not UTF-8 text") from None


def _too_large(what: str, size: int) -> str:
    return f"{what}: {size:,} bytes, more than the {MAX_FILE_BYTES:,} a rule file may have"


def nesting_problem(text: str) -> str | None:
    """A line when ``text`` nests brackets and braces deeper than :data:`MAX_NESTING` or
    writes a key of more than :data:`MAX_KEY_PARTS` dotted parts, else None. A linear
    scan that skips strings and comments; what it does not understand it leaves to the
    TOML parser."""
    stack: list[str] = []
    key = True  # a key may come: at a line's start, in a table header, after { and ,
    header = False  # in a table header ([a.b] or [[a.b]])
    parts = 1
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if ch in "\"'":
            i = _string_end(text, i)
            continue
        if ch == "\n":  # (an inline table ends on its line; an array may go on)
            key, header, parts = not stack, False, 1
        elif ch in "[{":
            opens_header = ch == "[" and key and (not stack or (header and text[i - 1] == "["))
            stack.append(ch)
            if len(stack) > MAX_NESTING:
                return f"brackets and braces nested more than {MAX_NESTING} deep"
            if ch == "{":
                key, parts = True, 1
            elif opens_header:
                header = True
            else:
                key = False
        elif ch in "]}":
            if stack:
                stack.pop()
            key = False
        elif ch == "," and stack and stack[-1] == "{":
            key, parts = True, 1
        elif ch == "=":
            key = False
        elif ch == "." and key:
            parts += 1
            if parts > MAX_KEY_PARTS:
                return f"a key of more than {MAX_KEY_PARTS} dotted parts"
        i += 1
    return None


def _string_end(text: str, i: int) -> int:
    """The index just past the string that starts at ``text[i]`` (a quote): basic or
    literal, one line or three quotes; at the end of its line (one-line strings) or of
    the text when it is not closed."""
    ch = text[i]
    quote = ch * 3 if text.startswith(ch * 3, i) else ch
    i += len(quote)
    n = len(text)
    while i < n:
        if text.startswith(quote, i):
            return i + len(quote)
        if len(quote) == 1 and text[i] == "\n":
            return i
        i += 2 if ch == '"' and text[i] == "\\" else 1
    return n


def parse_toml(text: str) -> dict[str, Any]:
    """The TOML table of a rule file's text, bounded as :func:`read_rule_file` and
    :func:`nesting_problem` say (a leading byte order mark is dropped); InputError with
    one line (without the file's name: the caller adds it) otherwise."""
    text = text.removeprefix("\ufeff")
    if len(text) > MAX_FILE_BYTES:  # (characters: a UTF-8 text has at least as many bytes)
        raise InputError(
            f"{len(text):,} characters, more than the {MAX_FILE_BYTES:,} a rule file may have"
        )
    problem = nesting_problem(text)
    if problem is not None:
        raise InputError(f"not a rule file: {problem}")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}") from None
    except RecursionError:  # (the scan above should make this unreachable)
        raise InputError("not a rule file: nested too deeply") from None


def shipped_family(path: Path) -> str:
    """The family a rule file names (``DEFAULT_FAMILY`` when it names none), read without
    checking the rest; InputError (one line) when it cannot be read or names no family."""
    text = read_rule_file(path)
    try:
        data = parse_toml(text)
    except InputError as exc:
        raise InputError(f"rule file {path}: {exc}") from None
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
