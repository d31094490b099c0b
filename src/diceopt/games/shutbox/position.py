"""Shut the Box positions and notation: open tiles, roll, player 2's target; moves typed
as advice writes them (``shut 1 7``, ``roll one die``, ``end turn``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from diceopt.errors import InputError
from diceopt.games.shutbox.game import DICE_LABELS, END_TURN, ROLL, ShutState, target_of
from diceopt.games.shutbox.rules import ShutRules, mask_of, tiles_of
from diceopt.notation import parse_int, split_fields

POSITION_EXAMPLE = "open 1 3 4 7 | roll 8"


@dataclass(frozen=True)
class ShutPosition:
    """Open tiles (mask), the roll shown (None before rolling) and player 2's target."""

    open: int
    roll: int | None = None
    target: int | None = None

    def text(self) -> str:
        """``open 1 3 4 7 | roll 8 | target 16`` (``open none`` when all are shut)."""
        parts = ["open " + (" ".join(map(str, tiles_of(self.open))) or "none")]
        if self.roll is not None:
            parts.append(f"roll {self.roll}")
        if self.target is not None:
            parts.append(f"target {self.target}")
        return " | ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """``{"open": [1, 3, 4, 7], "roll": 8, "target": 16}`` (roll, target when known)."""
        out: dict[str, Any] = {"open": list(tiles_of(self.open))}
        if self.roll is not None:
            out["roll"] = self.roll
        if self.target is not None:
            out["target"] = self.target
        return out


def position_state(pos: ShutPosition) -> ShutState:
    """The engine state of a position (``turn``/``roll`` and their player-2 forms)."""
    if pos.roll is None:
        return ("turn", pos.open) if pos.target is None else ("turn2", pos.open, pos.target)
    if pos.target is None:
        return ("roll", pos.open, pos.roll)
    return ("roll2", pos.open, pos.roll, pos.target)


def position_of_state(state: ShutState) -> ShutPosition:
    """The position of a ``turn``/``dice``/``roll`` engine state (dice count dropped)."""
    tag = state[0]
    if tag in ("turn", "dice"):
        return ShutPosition(state[1])
    if tag in ("turn2", "dice2"):
        return ShutPosition(state[1], None, target_of(state))
    if tag == "roll":
        return ShutPosition(state[1], state[2])
    if tag == "roll2":
        return ShutPosition(state[1], state[2], state[3])
    raise InputError(f"not a position: {state!r}")


def action_text(label: Any) -> str:
    """Text of an engine action: ``shut 1 7``, ``roll one die``, ``roll two dice``."""
    if isinstance(label, tuple):
        return "shut " + " ".join(map(str, label))
    return str(label)


def _numbers(text: str, what: str) -> list[int]:
    out = []
    for word in text.replace(",", " ").replace("+", " ").split():
        try:
            out.append(parse_int(word))
        except InputError as exc:
            too_large = str(exc).startswith("too large")
            reason = exc if too_large else f"{word!r} is not a whole number"
            raise InputError(f"{what}: {reason}") from None
    return out


def make_position(
    rules: ShutRules, tiles: list[int], roll: int | None, target: int | None
) -> ShutPosition:
    """A checked position (InputError, one line, for an impossible one).

    ``open none`` (every tile shut) is the end of a game: no roll can follow it.
    """
    for t in tiles:
        if not 1 <= t <= rules.tiles:
            raise InputError(f"tile {t} is not on a box with tiles 1 to {rules.tiles}")
    if len(set(tiles)) != len(tiles):
        raise InputError(f"a tile is listed twice in 'open {' '.join(map(str, tiles))}'")
    mask = mask_of(tiles)
    if roll is not None:
        if mask == 0:
            raise InputError("every tile is shut: the box is shut and the turn is over")
        if roll not in rules.possible_rolls(mask):
            raise InputError(
                f"roll {roll} is impossible: with open tiles summing to {rules.total(mask)} "
                f"the {rules.dice_rule} rule rolls {rules.rule_text(mask)}"
            )
    if target is not None:
        if rules.objective != "win":
            raise InputError(
                "a target is player 1's score in the two-player game: "
                "use the win objective (--objective win, or a win variant)"
            )
        top = rules.total(rules.full)
        if target == 0:
            raise InputError("target 0 means player 1 shut the box: player 1 has won")
        if not 1 <= target <= top:
            raise InputError(f"target must be player 1's score, 1 to {top}, got {target}")
    return ShutPosition(mask, roll, target)


def parse_position(rules: ShutRules, text: str) -> ShutPosition:
    """Parse ``open 1 3 4 7 | roll 8 | target 16``; InputError for impossible positions.

    ``roll`` is optional (before rolling; two dice may be written apart, ``roll 3 5``);
    ``target`` is player 1's score and marks a player 2 position (win objective only).
    """
    example = "open 1 3 4 7 | roll 8 | target 16"
    fields = split_fields(text, ("open", "roll", "target"), example)
    if "open" not in fields:
        raise InputError("the position needs the open tiles, e.g. 'open 1 3 4 7 | roll 8'")
    words = fields["open"].strip()
    tiles = [] if words in ("none", "-", "") else _numbers(words, "open tiles")
    roll = None
    if "roll" in fields:
        numbers = _numbers(fields["roll"], "roll")
        if len(numbers) == 2 and all(1 <= x <= 6 for x in numbers):
            numbers = [sum(numbers)]  # two dice written separately
        if len(numbers) != 1:
            raise InputError(f"roll: expected one number (the dice total), got {fields['roll']!r}")
        roll = numbers[0]
    target = None
    if "target" in fields:
        numbers = _numbers(fields["target"], "target")
        if len(numbers) != 1:
            raise InputError(f"target: expected one number, got {fields['target']!r}")
        target = numbers[0]
    return make_position(rules, tiles, roll, target)


def position_from_json(rules: ShutRules, data: Mapping[str, Any]) -> ShutPosition:
    """``{"open": [1, 3, 4, 7], "roll": 8, "target": 16}`` (roll and target optional)."""
    unknown = sorted(set(data) - {"open", "roll", "target"})
    if unknown:
        raise InputError(f"unknown field {unknown[0]!r} (fields: open, roll, target)")
    if "open" not in data:
        raise InputError('the position needs the open tiles, e.g. {"open": [1, 3, 4, 7]}')

    def whole(value: Any, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{what}: {value!r} is not a whole number")
        return value

    tiles = data["open"]
    if not isinstance(tiles, list):
        raise InputError(f'"open" must be a list of tile numbers, got {tiles!r}')
    tiles = [whole(t, "open tiles") for t in tiles]
    roll = data.get("roll")
    target = data.get("target")
    return make_position(
        rules,
        tiles,
        None if roll is None else whole(roll, "roll"),
        None if target is None else whole(target, "target"),
    )


DICE_WORDS = {
    "roll": None,
    "r": None,
    "roll one die": 1,
    "one die": 1,
    "one": 1,
    "1 die": 1,
    "roll two dice": 2,
    "two dice": 2,
    "two": 2,
    "2 dice": 2,
}


def parse_move(rules: ShutRules, pos: ShutPosition, text: str) -> str:
    """A typed move as advice writes it: ``shut 1 7``, ``roll``, ``roll one die``,
    ``roll two dice`` or ``end turn`` (InputError, one line, for an illegal move)."""
    words = " ".join(text.strip().lower().split())
    if pos.open == 0:
        raise InputError("every tile is shut: the game is over")
    if pos.roll is None:
        options = rules.dice_options(pos.open)
        if words not in DICE_WORDS:
            legal = [ROLL] if len(options) == 1 else [DICE_LABELS[n] for n in options]
            raise InputError(f"no roll shown yet: type {' or '.join(map(repr, legal))}")
        n = DICE_WORDS[words]
        if n is None:
            if len(options) > 1:
                raise InputError("choose 'roll one die' or 'roll two dice'")
            return ROLL
        if n not in options:
            raise InputError(
                f"with open tiles summing to {rules.total(pos.open)} you roll "
                f"{rules.rule_text(pos.open)}"
            )
        return ROLL if len(options) == 1 else DICE_LABELS[n]
    moves = rules.moves(pos.open, pos.roll)
    if words in (END_TURN, "end", "none", "-"):
        if moves:
            raise InputError(
                f"roll {pos.roll} can be shut: e.g. {action_text(tiles_of(moves[0]))!r}"
            )
        return END_TURN
    if words.startswith("shut"):
        words = words[4:]
    tiles = _numbers(words, "tiles to shut")
    if not tiles:
        raise InputError("name the tiles to shut, e.g. 'shut 1 7'")
    for t in tiles:
        if not 1 <= t <= rules.tiles or not pos.open >> (t - 1) & 1:
            raise InputError(f"tile {t} is not open")
    if len(set(tiles)) != len(tiles):
        raise InputError("a tile is listed twice")
    if sum(tiles) != pos.roll:
        if len(tiles) == 1:
            raise InputError(f"tile {tiles[0]} is not the roll {pos.roll}")
        shown = " + ".join(map(str, tiles))
        raise InputError(f"tiles {shown} = {sum(tiles)}, not the roll {pos.roll}")
    return action_text(tuple(sorted(tiles)))
