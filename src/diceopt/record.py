"""Records of played games: the text that ``play --record`` and ``simulate --record``
write and ``analyse`` reads, for any game (only the GameSpec contract is used).

One item per line; blank lines and lines whose first non-blank character is ``#`` are
comments::

    ~> new game                  a game starts: the next position is its first (the
                                 opening dice rolled where the game starts with a roll)
    ~> new game as player 2      the same, values in player 2's terms (two players)
    POSITION => ACTION           a decision of the recording player: graded
    POSITION -> ACTION           a move that is not graded: the only legal action, or
                                 the other player's move
    ~> EVENTS                    what followed the move above, in words ("rolled 3 5");
                                 '-' when nothing did
    = RESULT                     the game is over: its result in the start's terms (the
                                 final score in points, or the first player's wins: 1,
                                 0.5 or 0)

``POSITION`` is the game's text notation (or its JSON form), ``ACTION`` as ``advise``
writes it (or a short form the game accepts). A game that starts with ``~> new game``,
follows every move with its ``~>`` line and ends with ``= RESULT`` is *whole*: the
position after each move is the position of the next move (or the end), so
``analyse`` can tell the luck of every roll. Older records (``=>`` lines only) and
unfinished games are still graded decision by decision. One file may hold several
games one after another (``simulate --record`` writes them so, a ``# game K`` comment
before each): ``= RESULT`` ends a game, ``~> new game`` starts the next. ``analyse``
replays each game through the game's rules (:mod:`diceopt.replay`) and refuses a record
whose lines do not follow from one another.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diceopt.errors import InputError
from diceopt.lazy import numpy as np

if TYPE_CHECKING:  # (the contract runs play_games: a type-only import)
    from diceopt.games.contract import GameSpec

DECISION = "=>"  # a graded decision
MOVE = "->"  # a move that is not graded (the only legal one, or the other player's)
EVENTS = "~>"  # what followed a move; also starts a game (``~> new game``)
RESULT = "="  # the end of a game and its result
NOTHING = "-"  # the events of a move that nothing followed
POLICIES = ("optimal", "random")

MAX_LINES = 1_000_000  # lines of a record analyse reads (a record of 10,000 Yatzy games)
MAX_LINE_CHARS = 10_000  # characters of one line (a position in JSON is far shorter)

NEW_GAME_RE = re.compile(r"^new game(?:\s+as\s+player\s+(\d+))?$", re.IGNORECASE)


@dataclass
class Move:
    """One move line: its line number, the position and action texts, whether it is a
    graded decision (``=>``), and the ``~>`` line after it (None: there is none)."""

    line: int
    position: str
    action: str
    graded: bool
    events: str | None = None
    events_line: int | None = None


@dataclass
class RecordedGame:
    """The moves of one game of a record (``number``: 1-based).

    ``start_line``: the ``~> new game`` line (None: the game has none); ``seat``: the
    player (0-based) in whose terms values are given; ``result``: the ``= RESULT`` value
    in the start's terms and its line (None: the game does not end in the record).
    """

    number: int
    moves: list[Move] = field(default_factory=list)
    start_line: int | None = None
    seat: int = 0
    result: float | None = None
    result_line: int | None = None

    def missing(self) -> str | None:
        """Why the luck of this game's rolls cannot be told, or None: the game is whole."""
        hint = "records from 'play --record' and 'simulate --record' have them"
        if self.start_line is None and all(m.events is None for m in self.moves):
            return f"luck needs the rolls, and this record has none ({hint})"
        if self.start_line is None:
            return "luck needs the game from its start (a '~> new game' line)"
        for move in self.moves:
            if move.events is None:
                return f"luck needs every roll: the move on line {move.line} has no '~>' line"
        if self.result is None:
            return "luck needs the end: the game does not finish (no '= RESULT' line)"
        return None


def read_record(text: str, name: str = "record") -> list[RecordedGame]:
    """The games of a record (module docstring), as text: positions are not parsed.

    InputError naming the line (``NAME line N: ...``) for a line that is none of the
    record's kinds, a ``~>`` line that follows no move, or a malformed result; InputError
    for a record over :data:`MAX_LINES` lines or a line over :data:`MAX_LINE_CHARS`
    characters, before anything is read.
    """
    if len(text) > MAX_LINES * 100 or max(text.count("\n"), text.count("\r")) >= MAX_LINES:
        raise InputError(f"{name}: a record holds at most {MAX_LINES:,} lines, this has more")
    games: list[RecordedGame] = []
    current: RecordedGame | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        if len(raw) > MAX_LINE_CHARS:
            raise InputError(
                f"{name} line {number}: a record line holds at most {MAX_LINE_CHARS:,} "
                f"characters, this has {len(raw):,}"
            )
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{name} line {number}"
        if line.startswith(EVENTS):
            body = line[len(EVENTS) :].strip()
            start = NEW_GAME_RE.match(body)
            if start is not None:
                if current is not None and current.moves:
                    games.append(current)
                seat = int(start.group(1) or 1)
                if seat < 1:
                    raise InputError(f"{where}: players are numbered from 1, got {seat}")
                current = RecordedGame(len(games) + 1, start_line=number, seat=seat - 1)
                continue
            last = current.moves[-1] if current is not None and current.moves else None
            if last is None or last.events is not None:
                raise InputError(
                    f"{where}: '{EVENTS} ...' (what followed a move) must follow a move line"
                )
            last.events, last.events_line = body, number
            continue
        if line.startswith(RESULT) and not line.startswith(DECISION):
            value = line[len(RESULT) :].strip()
            if current is None or not current.moves:
                raise InputError(f"{where}: '{RESULT} RESULT' ends a game, but no move precedes it")
            try:
                current.result = float(value)
            except ValueError:
                raise InputError(
                    f"{where}: expected '{RESULT} RESULT' (a number), got {line!r}"
                ) from None
            if not np.isfinite(current.result):
                raise InputError(f"{where}: the result must be a finite number, got {value!r}")
            current.result_line = number
            games.append(current)
            current = None
            continue
        separator = DECISION if DECISION in line else MOVE if MOVE in line else None
        if separator is None:
            raise InputError(
                f"{where}: expected 'POSITION {DECISION} ACTION' (or a record line: "
                f"'{MOVE}', '{EVENTS}', '{RESULT}'), got {line!r}"
            )
        position, action = (part.strip() for part in line.rsplit(separator, 1))
        if not position or not action:
            raise InputError(f"{where}: expected 'POSITION {separator} ACTION', got {line!r}")
        if current is None:
            current = RecordedGame(len(games) + 1)
        current.moves.append(Move(number, position, action, separator == DECISION))
    if current is not None and current.moves:
        games.append(current)
    return games


# --- writing -------------------------------------------------------------------------


def header_lines(spec: GameSpec, rules: Any, what: str) -> list[str]:
    """The ``#`` lines that open a record: the game, ``what`` (e.g. the seed) and rules."""
    described = json.dumps(spec.describe(rules), default=str)
    return [
        f"# diceopt {spec.id} record, {what}, rules {described}",
        f"# POSITION {DECISION} ACTION: a graded decision; POSITION {MOVE} ACTION: a move "
        "not graded (the only one, or the other player's)",
        f"# {EVENTS} what followed it; {RESULT} RESULT: the end (diceopt {spec.id} analyse FILE)",
    ]


def start_line(seat: int = 0) -> str:
    """``~> new game`` (``as player K`` when values are in player K's terms, K > 1);
    ``seat`` 0-based."""
    return f"{EVENTS} new game" + (f" as player {seat + 1}" if seat else "")


def move_line(spec: GameSpec, rules: Any, pos: Any, action: str, graded: bool = True) -> str:
    """One move: ``POSITION => ACTION`` (graded) or ``POSITION -> ACTION``."""
    return f"{spec.format(rules, pos)} {DECISION if graded else MOVE} {action}"


def events_line(events: Sequence[str]) -> str:
    """What followed a move: ``~> rolled 3 5; ...`` (``~> -`` when nothing did)."""
    text = "; ".join(" ".join(e.split()) for e in events if e.strip())
    return f"{EVENTS} {text or NOTHING}"


def result_line(result: float) -> str:
    """The end of a game: ``= RESULT`` (whole numbers without a decimal point; others
    exactly, as Python writes the float)."""
    value = float(result)
    return f"{RESULT} {int(value) if value.is_integer() else repr(value)}"


def save_record(path: str, lines: Sequence[str]) -> None:
    """Write the record; InputError (one line, the reason) when the write fails."""
    from diceopt.output import replace_file

    text = "\n".join(lines) + "\n"
    try:
        replace_file(path, lambda out: Path(out).write_text(text, encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot save the record to {path}: {exc.strerror or exc}") from None


def choose(advice: Any, policy: str, rng: np.random.Generator) -> str:
    """The action ``policy`` plays: the best (``optimal``), else one of the legal
    actions picked uniformly with ``rng`` (``random``)."""
    if policy == "optimal":
        return advice.best.action
    return advice.actions[int(rng.integers(len(advice.actions)))].action


def play_games(
    spec: GameSpec, rules: Any, games: int, rng: np.random.Generator, policy: str = "optimal"
) -> tuple[np.ndarray, list[str]]:
    """Play ``games`` whole games through the contract (``new_position``, ``advise``,
    ``apply``) with ``policy`` for every player: the outcomes (``Step.result``, the
    start's terms) and the record lines of every game (no header; ``# game K`` before
    each). A move with more than one legal action is a graded decision (``=>``).
    Dice and random choices both come from ``rng``."""
    if policy not in POLICIES:
        raise InputError(f"unknown policy {policy!r} (policies: {', '.join(POLICIES)})")
    outcomes = np.empty(games)
    lines: list[str] = []
    for g in range(games):
        lines += [f"# game {g + 1}", start_line()]
        pos = spec.new_position(rules, rng)
        for _ in range(spec.play_limit):
            advice = spec.advise(rules, pos)
            action = choose(advice, policy, rng)
            lines.append(move_line(spec, rules, pos, action, graded=len(advice.actions) > 1))
            step = spec.apply(rules, pos, action, rng)
            lines.append(events_line(step.events))
            if step.game_over:
                outcomes[g] = float(step.result if step.result is not None else 0.0)
                lines.append(result_line(outcomes[g]))
                break
            pos = step.position
        else:
            raise InputError(
                f"a game of {spec.title} did not end within {spec.play_limit} decisions"
            )
    return outcomes, lines
