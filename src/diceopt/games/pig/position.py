"""Pig's positions and actions: ``me 41 | opponent 49 | turn 22`` from the mover's point
of view (points; ``turn`` is the turn total at risk, omitted = 0, the start of a turn;
``| player 2`` when the second player moves), JSON ``{"me", "opponent", "turn",
"player"}``, and the actions ``hold`` and ``roll``. Impossible positions (a score of 1,
a turn total that already reached the goal, odd totals with a two-sided die) are rejected
with one line."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from diceopt.errors import InputError
from diceopt.games.pig.rules import PigRules
from diceopt.notation import parse_int, split_fields

HOLD, ROLL = "hold", "roll"
POSITION_EXAMPLE = "me 41 | opponent 49 | turn 22"
POSITION_VALUE_RE = re.compile(r"^-?\d+$")


@dataclass(frozen=True)
class PigPosition:
    """A position from the mover's point of view: banked points and the turn total."""

    me: int
    opponent: int
    turn: int = 0
    player: int = 0  # who is "me": 0 the first player, 1 the second

    def text(self) -> str:
        """``me 41 | opponent 49 | turn 22`` (``| player 2`` when the second player moves)."""
        text = f"me {self.me} | opponent {self.opponent} | turn {self.turn}"
        return text if self.player == 0 else f"{text} | player 2"

    def to_json(self) -> dict[str, int]:
        """``{"me", "opponent", "turn", "player"}`` (player 1 or 2)."""
        return {
            "me": self.me,
            "opponent": self.opponent,
            "turn": self.turn,
            "player": self.player + 1,
        }


def check_position(rules: PigRules, pos: PigPosition) -> None:
    """InputError (one line) unless ``pos`` can occur under ``rules`` with the game on."""
    g = rules.goal
    for key, v in (("me", pos.me), ("opponent", pos.opponent), ("turn", pos.turn)):
        if v < 0:
            raise InputError(f"{key} must be >= 0, got {v}")
    for key, v in (("me", pos.me), ("opponent", pos.opponent)):
        if v >= g:
            raise InputError(f"{key} {v} has reached the goal {g}: the game is over")
        if not rules.possible_total(v):
            if v == 1:
                raise InputError(f"{key} 1 cannot occur: a turn banks 0 or at least 2 points")
            raise InputError(f"{key} {v} cannot occur with a {rules.sides}-sided die")
    if pos.turn == 1:
        raise InputError("turn 1 cannot occur: a 1 ends the turn, other rolls add 2 or more")
    if not rules.possible_total(pos.turn):
        raise InputError(f"turn {pos.turn} cannot occur with a {rules.sides}-sided die")
    if pos.me + pos.turn >= g:
        raise InputError(
            f"me {pos.me} + turn {pos.turn} reaches the goal {g}: that roll won, the game is over"
        )


def parse_position(rules: PigRules, text: str) -> PigPosition:
    """Parse ``me 41 | opponent 49 | turn 22`` (turn optional); InputError if impossible."""
    example = POSITION_EXAMPLE
    fields: dict[str, int] = {}
    for key, value in split_fields(
        text, ("me", "opponent", "turn", "player"), example, {"opp": "opponent"}
    ).items():
        if POSITION_VALUE_RE.match(value) is None:
            raise InputError(f"cannot read '{key} {value}': write e.g. '{example}'")
        fields[key] = parse_int(value)
    return position_of(rules, fields)


def position_of(rules: PigRules, fields: Mapping[str, Any]) -> PigPosition:
    """A checked position from its fields (``me``, ``opponent``, optional ``turn`` and
    ``player`` 1 or 2); InputError (one line) if one is missing, not whole, or impossible."""
    for key in ("me", "opponent"):
        if key not in fields:
            raise InputError(f"the position needs '{key} N', e.g. '{POSITION_EXAMPLE}'")
    for key, value in fields.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{key} must be a whole number, got {value!r}")
    player = fields.get("player", 1)
    if player not in (1, 2):
        raise InputError(f"player must be 1 or 2, got {player}")
    pos = PigPosition(fields["me"], fields["opponent"], fields.get("turn", 0), player - 1)
    check_position(rules, pos)
    return pos


def parse_action(text: str) -> str:
    """``hold`` or ``roll`` (also ``h`` / ``r``)."""
    word = text.strip().lower()
    if word in (HOLD, "h"):
        return HOLD
    if word in (ROLL, "r"):
        return ROLL
    raise InputError(f"unknown action {text.strip()!r}: type 'roll' or 'hold'")
