"""The game contract shared by the push-your-luck games (positions, advice, play).

A position is a roll just made and what it was made from: the dice showing (sorted), the
turn total before them (points), the busts in a row before the turn (one player, when
the rules penalise a streak), and with two players both banked scores from the mover's
point of view and whose turn it is. Text: ``streak 1 | turn 350 | dice 1 1 2 3 5 6``
(two players: ``me 3000 | opponent 2500 | turn 350 | dice 1 3 5 5``, with ``| player 2``
when the second player moves); JSON: the same fields, ``dice`` a list (the page draws it
as dice), ``player`` 1 or 2. An action sets dice aside and rolls on or banks: ``set aside
1 5, roll 4``, ``set aside 1 5, bank 500`` (the dice left to roll, the total banked). Of
the set-asides that leave the same number of dice only the one with the most points is
offered (more points never hurt); a bank that reaches the goal wins at once, so no roll
is offered there.

A roll that scores nothing is a position like any other whose one action is ``bust``
(advice gives what the bust costs): the player plays it, in both one- and two-player
games, and the turn ends with nothing banked.

A game subclasses :class:`PushLuckSpec` and supplies ``family_rules`` (its rules as
:class:`PushLuckRules`), ``choice_values`` (the value of banking and of rolling after a
set-aside), ``bust_value`` and ``end_turn`` (what a bank or a bust leads to).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diceopt.advice import Advice, rank_actions
from diceopt.errors import InputError
from diceopt.games.contract import GameSpec, Step
from diceopt.games.families.push_luck import PushLuckRules, SetAside, set_asides
from diceopt.lazy import numpy as np
from diceopt.notation import is_digits, parse_int, split_fields

if TYPE_CHECKING:
    from diceopt.games.families.turn_engine import TurnValues

BUST = "bust"
ACTION_RE = re.compile(
    r"^(?:set aside|keep|aside)?\s*([\d\s,]*?)\s*,?\s*(?:and\s+|then\s+)?(roll|bank)\b.*$"
)
ACTION_EXAMPLE = "set aside 1 5, roll 4"


@dataclass(frozen=True)
class PushLuckPosition:
    """A roll to set dice aside from: the dice (faces, sorted), the turn total before it
    (points), the busts in a row before the turn, the banked scores (points, the mover's
    first) and the player to move (0: the first player)."""

    dice: tuple[int, ...]
    turn: int = 0
    streak: int = 0
    me: int = 0
    opponent: int = 0
    player: int = 0


def fields_of(rules: PushLuckRules) -> tuple[str, ...]:
    """The position's fields under these rules, in the order the text writes them."""
    if rules.players == 2:
        return ("me", "opponent", "turn", "dice", "player")
    return ("streak", "turn", "dice") if rules.bust_streak > 1 else ("turn", "dice")


def check_position(rules: PushLuckRules, pos: PushLuckPosition) -> None:
    """InputError (one line) unless the position can occur under the rules."""
    if not 1 <= len(pos.dice) <= rules.dice or any(not 1 <= f <= rules.sides for f in pos.dice):
        raise InputError(
            f"a roll is 1 to {rules.dice} dice showing 1 to {rules.sides}, got {list(pos.dice)}"
        )
    for key in ("turn", "me", "opponent"):
        value = getattr(pos, key)
        if value < 0 or value % rules.step:
            raise InputError(f"{key} must be a multiple of {rules.step} points >= 0, got {value}")
    if pos.turn == 0 and len(pos.dice) != rules.dice:
        raise InputError(f"a turn starts with all {rules.dice} dice, got {len(pos.dice)}")
    if not 0 <= pos.streak < max(rules.bust_streak, 1):
        top = max(rules.bust_streak - 1, 0)
        raise InputError(f"streak (busts in a row before the turn) is 0 to {top}")
    if pos.player not in range(rules.players):
        raise InputError(f"player is 1 to {rules.players}, got {pos.player + 1}")
    if rules.players == 2:
        for key in ("me", "opponent"):
            if getattr(pos, key) >= rules.goal:
                value = getattr(pos, key)
                raise InputError(
                    f"{key} {value} has reached the goal {rules.goal}: the game is over"
                )
        if pos.me + pos.turn >= rules.goal:
            raise InputError(f"me {pos.me} + turn {pos.turn} reaches the goal {rules.goal}")


def position_of(rules: PushLuckRules, fields: Mapping[str, Any]) -> PushLuckPosition:
    """A checked position from its fields (``dice`` a list of faces, the rest whole
    numbers, optional but ``dice``; ``player`` 1 or 2); InputError (one line) otherwise."""
    if "dice" not in fields:
        raise InputError(f"the position needs the dice, e.g. '{example(rules)}'")
    dice = fields["dice"]
    if not isinstance(dice, list | tuple) or not all(
        isinstance(f, int) and not isinstance(f, bool) for f in dice
    ):
        raise InputError(f"dice must be a list of faces, got {dice!r}")
    values = {}
    for key in fields_of(rules):
        value = fields.get(key, 1 if key == "player" else 0)
        if key != "dice" and (isinstance(value, bool) or not isinstance(value, int)):
            raise InputError(f"{key} must be a whole number, got {value!r}")
        values[key] = value
    values["dice"] = tuple(sorted(dice))
    if "player" in values:
        values["player"] -= 1
    pos = PushLuckPosition(**values)
    check_position(rules, pos)
    return pos


def example(rules: PushLuckRules) -> str:
    """An example position's text."""
    head = {"me": "me 3000", "opponent": "opponent 2500", "streak": "streak 1"}
    parts = [head[k] for k in fields_of(rules) if k in head]
    dice = " ".join(str(f) for f in ([1, 2, 3, 3, 5, 6] + [4] * 10)[: rules.dice])
    return " | ".join([*parts, "turn 0", f"dice {dice}"])


def parse_position(rules: PushLuckRules, text: str) -> PushLuckPosition:
    """A position from its text (fields in any order; ``dice`` may be written 113356)."""
    found = split_fields(
        text, fields_of(rules), example(rules), {"roll": "dice", "opp": "opponent"}
    )
    fields: dict[str, Any] = {}
    for key, value in found.items():
        if key == "dice":
            words = value.replace(",", " ").split()
            if len(words) == 1 and is_digits(words[0]):
                words = list(words[0])
            fields[key] = [parse_int(w) for w in words]
        else:
            fields[key] = parse_int(value)
    return position_of(rules, fields)


def format_position(rules: PushLuckRules, pos: PushLuckPosition) -> str:
    """The position's text (parses back to the same position; ``player 2`` only when
    the second player moves)."""
    parts = []
    for key in fields_of(rules):
        value = getattr(pos, key)
        if key == "dice":
            parts.append(f"dice {' '.join(map(str, value))}")
        elif key == "player":
            if value:
                parts.append(f"player {value + 1}")
        else:
            parts.append(f"{key} {value}")
    return " | ".join(parts)


def action_text(option: SetAside, bank: bool, total: int, dice: int) -> str:
    """``set aside 1 5, roll 4`` (the dice to roll: all ``dice`` after hot dice) or
    ``set aside 1 5, bank 500`` (the total banked)."""
    kept = " ".join(map(str, option.dice))
    if bank:
        return f"set aside {kept}, bank {total}"
    return f"set aside {kept}, roll {option.left or dice}"


class PushLuckSpec(GameSpec):
    """Positions, notation, advice and play of a push-your-luck game (subclass: see the
    module docstring)."""

    variable_dice = True  # a roll shows the dice not yet set aside

    bust_word = "bust"  # what the game calls a roll with nothing to set aside

    # --- what a game supplies ----------------------------------------------------------
    def family_rules(self, rules: Any) -> PushLuckRules:
        """The family's rules of the game's rules object."""
        raise NotImplementedError

    def choice_values(
        self, rules: Any, pos: PushLuckPosition, total: int, left: int
    ) -> tuple[float | None, float]:
        """After a set-aside bringing the turn total to ``total`` points with ``left``
        dice to roll (hot dice: all of them): the value of banking (None: not allowed)
        and of rolling (any number where rolling is not offered: the bank reaches the
        goal), in the game's units."""
        raise NotImplementedError

    def bust_value(self, rules: Any, pos: PushLuckPosition) -> float:
        """The value of the bust of ``pos``'s roll, in the game's units."""
        raise NotImplementedError

    def turn_terminals(self, rules: Any, pos: PushLuckPosition) -> TurnValues:
        """The terminal values of ``pos``'s turn (banking, a bust, where rolling on is
        offered) for the second path (``turn_engine``), in the game's units."""
        raise NotImplementedError

    def end_turn(
        self, rules: Any, pos: PushLuckPosition, banked: int | None, rng: np.random.Generator
    ) -> Step:
        """The step after the turn of ``pos`` ends: a bank of ``banked`` points (the turn
        total), or a bust (None); ``Step.events`` is filled in by the caller."""
        raise NotImplementedError

    # --- the shared contract -------------------------------------------------------------
    def parse_text(self, rules: Any, text: str) -> PushLuckPosition:
        """``streak 1 | turn 350 | dice 1 1 2 3 5 6`` (see the module docstring)."""
        return parse_position(self.family_rules(rules), text)

    def parse_json(self, rules: Any, data: Mapping[str, Any]) -> PushLuckPosition:
        """``{"dice": [1, 1, 2, 3, 5, 6], "turn": 350, ...}`` (fields as the text's)."""
        family = self.family_rules(rules)
        unknown = set(data) - set(fields_of(family))
        if unknown:
            raise InputError(f"unknown position field(s) {sorted(unknown)}")
        return position_of(family, data)

    def format(self, rules: Any, pos: PushLuckPosition) -> str:
        """The position's text."""
        return format_position(self.family_rules(rules), pos)

    def to_json(self, rules: Any, pos: PushLuckPosition) -> dict[str, Any]:
        """The position's fields, ``dice`` a list, ``player`` 1 or 2."""
        family = self.family_rules(rules)
        out = {k: getattr(pos, k) for k in fields_of(family)}
        out["dice"] = list(pos.dice)
        if "player" in out:
            out["player"] += 1
        return out

    def roll(self, rules: Any, n: int, rng: np.random.Generator) -> tuple[int, ...]:
        """n dice rolled with ``rng``, sorted."""
        sides = self.family_rules(rules).sides
        return tuple(sorted(int(f) for f in rng.integers(1, sides + 1, size=n)))

    def replay_draws(
        self, rules: Any, pos: Any, action: str | None, after: Any, events: str = ""
    ) -> list[list[Any]] | None:
        """The one roll of a move (or of the opening): the dice ``after`` shows (a roll is
        sorted; in a game left unfinished, those the events name); none where it ends."""
        if after is not None:
            return [[list(after.dice)]]
        shown = re.findall(r"rolled ([\d ]+)", events)  # a game left unfinished
        return [[]] + ([[[int(d) for d in shown[-1].split()]]] if shown else [])

    def new_position(self, rules: Any, rng: np.random.Generator) -> PushLuckPosition:
        """The first player's first roll (after no busts)."""
        return PushLuckPosition(self.roll(rules, self.family_rules(rules).dice, rng))

    def new_turn(
        self, rules: Any, carried: Mapping[str, Any], rng: np.random.Generator
    ) -> PushLuckPosition:
        """The first roll of a turn after ``carried["streak"]`` busts in a row (rules
        with a bust streak: :attr:`Step.next_turn` of the turn before)."""
        family = self.family_rules(rules)
        if "streak" not in fields_of(family) or set(carried) != {"streak"}:
            return super().new_turn(rules, carried, rng)  # the one-line refusal
        # the streak checked as a position's (a whole number the rules have), then rolled
        start = position_of(family, {"streak": carried["streak"], "dice": [1] * family.dice})
        return dataclasses.replace(start, dice=self.roll(rules, family.dice, rng))

    def carried(self, rules: Any, pos: PushLuckPosition) -> Mapping[str, int] | None:
        """A turn's first roll after busts in a row carries the streak."""
        if "streak" in fields_of(self.family_rules(rules)) and pos.streak and not pos.turn:
            return {"streak": pos.streak}
        return None

    def to_move(self, rules: Any, pos: PushLuckPosition) -> int:
        """The player to move (0 = the first)."""
        return pos.player

    def show(self, rules: Any, pos: PushLuckPosition) -> list[str]:
        """The roll and the turn total (and the streak or the scores)."""
        family = self.family_rules(rules)
        lines = [f"rolled {' '.join(map(str, pos.dice))} with {pos.turn} points in the turn"]
        if family.players == 2:
            lines.append(
                f"player {pos.player + 1} to move; banked: you {pos.me}, "
                f"opponent {pos.opponent} (goal {family.goal})"
            )
        elif family.bust_streak > 1:
            lines.append(f"{self.bust_word}s in a row before this turn: {pos.streak}")
        return lines

    def legal(self, rules: Any, pos: PushLuckPosition) -> list[tuple[str, SetAside | None, bool]]:
        """Every legal action as (text, set-aside, banks), in the advice's tie order."""
        family = self.family_rules(rules)
        options = set_asides(family, pos.dice)
        if not options:
            return [(BUST, None, False)]
        out: list[tuple[str, SetAside | None, bool]] = []
        for option in options:
            total = pos.turn + option.points
            if family.players == 1 or pos.me + total < family.goal:
                out.append((action_text(option, False, total, family.dice), option, False))
            if total >= max(family.bank_minimum, 1):
                out.append((action_text(option, True, total, family.dice), option, True))
        return out

    def advise(self, rules: Any, pos: PushLuckPosition, **options: Any) -> Advice:
        """Every set-aside with rolling on and (where allowed) banking, best first (equal
        values: more dice left first, roll before bank)."""
        values: list[tuple[str, float]] = []
        for text, option, banks in self.legal(rules, pos):
            if option is None:
                values.append((text, self.bust_value(rules, pos)))
                continue
            bank, roll = self.choice_values(rules, pos, pos.turn + option.points, option.left)
            if banks and bank is None:  # (legal() offers a bank only where one is allowed)
                raise AssertionError(f"{text}: banking is not allowed here")
            values.append((text, bank if banks and bank is not None else roll))
        return Advice(rank_actions(values), self.units_of(rules))

    def independent_values(self, rules: Any, pos: PushLuckPosition) -> dict[str, float]:
        """Every action's value from the rest of the turn solved on the generic engine
        from the rules (``turn_engine``), with the turn's terminal values: the second
        path of the advice's values (no roll table, no solver kernel)."""
        from diceopt.games.families.turn_engine import turn_action_values

        family = self.family_rules(rules)
        out: dict[str, float] = {}
        terminals = self.turn_terminals(rules, pos)
        for action, value in turn_action_values(family, terminals, pos.turn, pos.dice):
            if action is None:
                out[BUST] = value
            else:
                option, banks = action
                out[action_text(option, banks, pos.turn + option.points, family.dice)] = value
        return out

    def canonical_action(self, rules: Any, pos: PushLuckPosition, text: str) -> str:
        """The advice's text of an action written as ``set aside 1 5, roll``, ``15 bank``,
        ``keep 1 5 roll``, ``bust``: the dice and the word roll or bank; InputError when
        it names no dice or neither word."""
        words = " ".join(text.lower().replace(",", " , ").split())
        if words in (BUST, self.bust_word):
            return BUST
        match = ACTION_RE.match(words)
        faces = match.group(1).replace(",", " ").split() if match else []
        if len(faces) == 1 and is_digits(faces[0]):
            faces = list(faces[0])
        if match is None or not faces or not all(is_digits(f) for f in faces):
            raise InputError(f"cannot read action {text.strip()!r}: write e.g. '{ACTION_EXAMPLE}'")
        kept = tuple(sorted(int(f) for f in faces))
        for action, option, banks in self.legal(rules, pos):
            if option is not None and option.dice == kept and banks == (match.group(2) == "bank"):
                return action
        return words

    def apply(
        self, rules: Any, pos: PushLuckPosition, action: str, rng: np.random.Generator
    ) -> Step:
        """Set the dice aside and roll on (the new roll with ``rng``) or bank; ``bust``
        ends the turn with nothing banked."""
        family = self.family_rules(rules)
        wanted = self.canonical_action(rules, pos, action)
        chosen = [(o, b) for text, o, b in self.legal(rules, pos) if text == wanted]
        if not chosen:
            self.evaluate(rules, pos, action)  # the one-line error naming the legal actions
            raise InputError(f"{action!r} is not a legal action here")
        option, banks = chosen[0]
        who = f"player {pos.player + 1} " if family.players == 2 else ""
        if option is None:
            step = self.end_turn(rules, pos, None, rng)
            return _with_events(step, (f"{who}{self.bust_word}: the turn total is lost",))
        total = pos.turn + option.points
        events = [f"{who}set aside {' '.join(map(str, option.dice))}"]
        if banks:
            step = self.end_turn(rules, pos, total, rng)
            return _with_events(step, (*events, f"{who}banked {total}"))
        n = option.left or family.dice
        new = dataclasses.replace(pos, dice=self.roll(rules, n, rng), turn=total)
        if not option.left:
            events.append(f"hot dice: roll all {family.dice} again")
        events.append(f"{who}rolled {' '.join(map(str, new.dice))}")
        return Step(new, False, new.player, tuple(events))


def _with_events(step: Step, events: tuple[str, ...]) -> Step:
    """The step with ``events`` before its own."""
    return dataclasses.replace(step, events=events + step.events)
