"""Zombie Dice positions: the rules' parameters, the notation and the checks.

A position is written from the point of view of the player to move (``me``): both
players' brains banked, which seat the mover has in the round (``player 1`` moves
first, ``player 2`` last), and the turn so far: its brains, the shotgun dice, the
footprint dice in hand and the brain dice set aside, each as colour letters (g green,
y yellow, r red), and optionally the dice of the last roll (colour and face letters: b
brain, s shotgun, f footprints), e.g.
``me 5 | opponent 8 | player 2 | brains 3 | shotguns r | feet gy | aside ggy | rolled gb yf rs``.
A turn in progress has 3 dice or more out of the cup; at the start of a turn there are
none and the only action is to roll.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from diceopt.errors import InputError
from diceopt.games.zombie.dice import BUST, HAND, LETTERS, TOTAL
from diceopt.notation import parse_int, split_fields

GOAL_MAX = 30
LEAD_CAP = 64  # default: leads counted to 64 brains (error bound about 3e-15)
FACE_LETTERS = "bsf"  # brain, shotgun, footprints
FACE_WORDS = ("brain", "shotgun", "footprints")
POSITION_EXAMPLE = "me 5 | opponent 8 | player 2 | brains 3 | shotguns r | feet gy | aside ggy"
FIELDS = ("me", "opponent", "player", "brains", "shotguns", "feet", "aside", "rolled")
ALIASES = {"opp": "opponent", "shots": "shotguns", "shotgun": "shotguns", "footprints": "feet"}
DICE_RE = re.compile(r"^[gyr]*$")
ROLLED_RE = re.compile(r"^[gyr][bsf]$")


@dataclass(frozen=True)
class ZombieRules:
    """The goal (brains, 13) and the lead counted (brains; a larger lead counts as this)."""

    goal: int = 13
    lead_cap: int = LEAD_CAP

    def __post_init__(self) -> None:
        if not isinstance(self.goal, int) or not 1 <= self.goal <= GOAL_MAX:
            raise InputError(f"the goal must be a whole number from 1 to {GOAL_MAX}")
        if not isinstance(self.lead_cap, int) or not 1 <= self.lead_cap <= 200:
            raise InputError(
                f"--lead-cap must be a whole number from 1 to 200, got {self.lead_cap}"
            )

    def describe(self) -> dict[str, Any]:
        """The parameters as plain data."""
        return {"goal": self.goal, "lead_cap": self.lead_cap}


Dice = tuple[int, int, int]  # dice counted by colour (green, yellow, red)


@dataclass(frozen=True)
class ZombiePosition:
    """A position from the mover's point of view (see the module docstring); ``seat`` 0:
    the mover plays first in the round, 1: last; ``rolled``: the last roll's dice as
    (colour, face) index pairs, for display only."""

    me: int
    opponent: int
    seat: int = 0
    brains: int = 0
    shot: Dice = (0, 0, 0)
    feet: Dice = (0, 0, 0)
    aside: Dice = (0, 0, 0)
    rolled: tuple[tuple[int, int], ...] = ()

    @property
    def started(self) -> bool:
        """True once the turn has rolled (dice are out of the cup)."""
        return sum(self.shot) + sum(self.feet) + sum(self.aside) > 0

    @property
    def scores(self) -> tuple[int, int]:
        """(first player's brains, second player's brains) banked."""
        return (self.me, self.opponent) if self.seat == 0 else (self.opponent, self.me)

    def text(self) -> str:
        """The notation (fields at their defaults left out)."""
        parts = [f"me {self.me}", f"opponent {self.opponent}", f"player {self.seat + 1}"]
        if self.started:
            parts.append(f"brains {self.brains}")
            for name, dice in (("shotguns", self.shot), ("feet", self.feet), ("aside", self.aside)):
                if sum(dice):
                    parts.append(f"{name} {letters(dice)}")
        if self.rolled:
            parts.append("rolled " + " ".join(LETTERS[c] + FACE_LETTERS[f] for c, f in self.rolled))
        return " | ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The JSON form (dice as colour letters; ``rolled``: the last roll's dice as
        ``{"colour", "face"}`` objects)."""
        return {
            "me": self.me,
            "opponent": self.opponent,
            "player": self.seat + 1,
            "brains": self.brains,
            "shotguns": letters(self.shot),
            "feet": letters(self.feet),
            "aside": letters(self.aside),
            "rolled": [{"colour": LETTERS[c], "face": FACE_WORDS[f]} for c, f in self.rolled],
        }


def letters(dice: Dice) -> str:
    """Dice by colour as letters, e.g. (2, 1, 0) -> ``ggy``."""
    return "".join(LETTERS[i] * n for i, n in enumerate(dice))


def parse_dice(name: str, text: str) -> Dice:
    """Colour letters (``ggy``, spaces and ``-`` ignored) as counts; InputError if bad."""
    word = "".join(text.lower().split()).replace("-", "")
    if not DICE_RE.match(word):
        raise InputError(f"{name} must be colour letters g, y, r (e.g. 'ggy'), got {text!r}")
    return (word.count("g"), word.count("y"), word.count("r"))


def parse_rolled(value: Any) -> tuple[tuple[int, int], ...]:
    """The last roll: ``gb yf rs`` or a list of such words or ``{"colour", "face"}``."""
    items = value.split() if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        raise InputError(f"rolled must be dice like 'gb yf rs', got {value!r}")
    out = []
    for item in items:
        if isinstance(item, Mapping):
            colour, face = str(item.get("colour", "")), str(item.get("face", ""))
            item = colour[:1] + face[:1]
        word = str(item).lower()
        if not ROLLED_RE.match(word):
            raise InputError(
                f"a rolled die is a colour (g, y, r) and a face (b brain, s shotgun, f "
                f"footprints), e.g. 'gb', got {item!r}"
            )
        out.append((LETTERS.index(word[0]), FACE_LETTERS.index(word[1])))
    if len(out) > HAND:
        raise InputError(f"a roll has at most {HAND} dice, got {len(out)}")
    return tuple(out)


def check_position(rules: ZombieRules, pos: ZombiePosition) -> None:
    """InputError (one line) unless ``pos`` can occur under ``rules`` with the game on."""
    g = rules.goal
    for key in ("me", "opponent", "brains"):
        if getattr(pos, key) < 0:
            raise InputError(f"{key} must be >= 0, got {getattr(pos, key)}")
    first, second = pos.scores
    if pos.seat == 0 and max(first, second) >= g and first != second:
        raise InputError(
            f"a round starting at {first} to {second} cannot happen: someone had {g} brains "
            "at the end of the last round, so the game is over"
        )
    if pos.seat == 1 and second >= g and first < second:
        raise InputError(
            f"player 2 cannot have {second} brains with player 1 at {first}: the game would be over"
        )
    if sum(pos.shot) >= BUST:
        raise InputError(f"{sum(pos.shot)} shotguns end the turn: at most {BUST - 1} in a turn")
    if sum(pos.feet) > HAND:
        raise InputError(f"at most {HAND} footprint dice are in hand, got {sum(pos.feet)}")
    for i, colour in enumerate(("green", "yellow", "red")):
        used = pos.shot[i] + pos.feet[i] + pos.aside[i]
        if used > TOTAL[i]:
            raise InputError(f"there are only {TOTAL[i]} {colour} dice, the position uses {used}")
    out = sum(pos.shot) + sum(pos.feet) + sum(pos.aside)
    if 0 < out < HAND:
        raise InputError(f"a turn in progress has at least {HAND} dice out of the cup, got {out}")
    if out == 0 and pos.brains:
        raise InputError("brains this turn need dice out of the cup (set aside or returned)")
    if pos.brains < sum(pos.aside):
        raise InputError(
            f"brains {pos.brains} is fewer than the {sum(pos.aside)} brain dice set aside"
        )


def position_of(rules: ZombieRules, fields: Mapping[str, Any]) -> ZombiePosition:
    """A checked position from its fields; InputError (one line) for bad ones."""
    for key in ("me", "opponent"):
        if key not in fields:
            raise InputError(f"the position needs '{key} N', e.g. '{POSITION_EXAMPLE}'")
    numbers = {}
    for key in ("me", "opponent", "player", "brains"):
        if key in fields:
            value = fields[key]
            if isinstance(value, str):
                value = parse_int(value)
            if isinstance(value, bool) or not isinstance(value, int):
                raise InputError(f"{key} must be a whole number, got {value!r}")
            numbers[key] = value
    player = numbers.get("player", 1)
    if player not in (1, 2):
        raise InputError(f"player must be 1 or 2, got {player}")
    dice = {}
    for key in ("shotguns", "feet", "aside"):
        value = fields.get(key, "")
        if not isinstance(value, str):
            raise InputError(f"{key} must be colour letters, got {value!r}")
        dice[key] = parse_dice(key, value)
    aside = dice["aside"]
    pos = ZombiePosition(
        numbers["me"],
        numbers["opponent"],
        player - 1,
        numbers.get("brains", sum(aside)),
        dice["shotguns"],
        dice["feet"],
        aside,
        parse_rolled(fields.get("rolled", ())),
    )
    check_position(rules, pos)
    return pos


def parse_position(rules: ZombieRules, text: str) -> ZombiePosition:
    """A position from its text (see the module docstring)."""
    return position_of(rules, split_fields(text, FIELDS, POSITION_EXAMPLE, ALIASES))
