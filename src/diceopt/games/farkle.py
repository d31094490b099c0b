"""Two-player Farkle (RULES §9, the rules of Busche & Neller 2017) from ``rules/farkle.toml``.

The rules come from the push-your-luck rule file (``families.push_luck``: the scoring
combinations, compiled into a roll table); the race solver (``families.race``) gives the
mover's win probability W at every turn start, both players optimal. Points are
multiples of the file's step (50).

Positions are a roll on the table, from the mover's point of view:
``me 4000 | opponent 3500 | turn 300 | roll 1 3 5 5`` (``| player 2`` when the second
player moves): banked points, the turn total before this roll, the dice just rolled.
A roll that scores nothing never stands in a position: it ends the turn (the next player
rolls at once). Actions set scoring dice aside and then bank or roll on:
``set aside 1 5 5, roll 1`` or ``set aside 1, bank 250`` (the total banked; after setting
all dice aside, ``roll 6``: hot dice), as in the family's shared notation
(``families.push_luck_spec``). For each number of dice left only the highest-scoring
set-aside is offered (more points never hurt). A turn total that reaches the goal wins
at once (``set aside ..., bank``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from diceopt.advice import Advice, rank_actions
from diceopt.errors import InputError
from diceopt.games.families.push_luck import PushLuckRules, load_rules, set_asides
from diceopt.games.families.race import RaceSolution, fair_command, race_solution
from diceopt.games.registry import GameSpec, Parameter, Report, Step
from diceopt.lazy import numpy as np
from diceopt.notation import parse_int, split_fields

GOAL_MAX = 20_000
POSITION_EXAMPLE = "me 4000 | opponent 3500 | turn 300 | roll 1 3 5 5"
ACTION_RE = re.compile(
    r"^(?:set aside|keep)\s+([1-6](?:[\s,]+[1-6])*)\s*,?\s*(bank|roll)(?:\s+\d+)?$"
)


@dataclass(frozen=True)
class FarkleRules:
    """Farkle's parameters: the goal (points, a multiple of the step) and the dice."""

    goal: int = 10_000
    dice: int = 6

    def __post_init__(self) -> None:
        step = base_rules().step
        if not isinstance(self.goal, int) or not step <= self.goal <= GOAL_MAX:
            raise InputError(f"the goal must be {step} to {GOAL_MAX} points, got {self.goal}")
        if self.goal % step:
            raise InputError(f"the goal must be a multiple of {step} points, got {self.goal}")
        if not isinstance(self.dice, int) or not 1 <= self.dice <= 6:
            raise InputError(f"Farkle is played with 1 to 6 dice, got {self.dice}")

    def describe(self) -> dict[str, Any]:
        """The parameters as plain JSON-ready data (points)."""
        return {"goal": self.goal, "dice": self.dice, "step": base_rules().step}

    @property
    def family(self) -> PushLuckRules:
        """The rule file's rules with this goal and number of dice."""
        return dataclasses.replace(base_rules(), goal=self.goal, dice=self.dice)


def base_rules() -> PushLuckRules:
    """The shipped rule file ``farkle.toml``."""
    return load_rules("farkle")


def solved(rules: FarkleRules) -> RaceSolution:
    """The solved race (cached per process and on disk, keyed by the rule file's hash)."""
    return race_solution("farkle", rules.family)


@dataclass(frozen=True)
class FarklePosition:
    """A scoring roll on the table: banked points, the turn total before it, the dice."""

    me: int
    opponent: int
    turn: int
    roll: tuple[int, ...]
    player: int = 0  # who is "me": 0 the first player, 1 the second

    def text(self) -> str:
        """``me 4000 | opponent 3500 | turn 300 | roll 1 3 5 5`` (``| player 2``)."""
        dice = " ".join(map(str, self.roll))
        text = f"me {self.me} | opponent {self.opponent} | turn {self.turn} | roll {dice}"
        return text if self.player == 0 else f"{text} | player 2"


def check_position(rules: FarkleRules, pos: FarklePosition) -> None:
    """InputError (one line) unless ``pos`` can occur with the game on."""
    step = base_rules().step
    for key, v in (("me", pos.me), ("opponent", pos.opponent), ("turn", pos.turn)):
        if v < 0 or v % step:
            raise InputError(f"{key} must be a multiple of {step} points >= 0, got {v}")
    for key, v in (("me", pos.me), ("opponent", pos.opponent)):
        if v >= rules.goal:
            raise InputError(f"{key} {v} has reached the goal {rules.goal}: the game is over")
    if pos.me + pos.turn >= rules.goal:
        raise InputError(f"me {pos.me} + turn {pos.turn} reaches the goal {rules.goal}")
    if not 1 <= len(pos.roll) <= rules.dice or any(not 1 <= d <= 6 for d in pos.roll):
        raise InputError(f"the roll must be 1 to {rules.dice} dice showing 1 to 6")
    if pos.turn == 0 and len(pos.roll) != rules.dice:
        raise InputError(f"a turn starts by rolling all {rules.dice} dice")
    if not set_asides(rules.family, pos.roll):
        raise InputError("that roll scores nothing: it ends the turn, nothing to decide")


def position_of(rules: FarkleRules, fields: Mapping[str, Any]) -> FarklePosition:
    """A checked position from its fields (``me``, ``opponent``, ``turn`` (default 0),
    ``dice`` (the faces rolled, a list), ``player`` 1 or 2 (default 1))."""
    for key in ("me", "opponent", "dice"):
        if key not in fields:
            raise InputError(f"the position needs '{key}', e.g. '{POSITION_EXAMPLE}'")
    roll = fields["dice"]
    if not isinstance(roll, list | tuple) or not all(
        isinstance(d, int) and not isinstance(d, bool) for d in roll
    ):
        raise InputError(f"dice must be a list of faces, got {roll!r}")
    for key in ("me", "opponent", "turn", "player"):
        value = fields.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{key} must be a whole number, got {value!r}")
    player = fields.get("player", 1)
    if player not in (1, 2):
        raise InputError(f"player must be 1 or 2, got {player}")
    pos = FarklePosition(
        fields["me"], fields["opponent"], fields.get("turn", 0), tuple(sorted(roll)), player - 1
    )
    check_position(rules, pos)
    return pos


def parse_position(rules: FarkleRules, text: str) -> FarklePosition:
    """Parse ``me 4000 | opponent 3500 | turn 300 | roll 1 3 5 5`` (turn, player optional)."""
    fields: dict[str, Any] = {}
    parts = split_fields(
        text,
        ("me", "opponent", "turn", "roll", "player"),
        POSITION_EXAMPLE,
        {"opp": "opponent", "dice": "roll"},
    )
    for key, value in parts.items():
        words = value.replace(",", " ").split()
        if not words or not all(re.fullmatch(r"\d+", w) for w in words):
            raise InputError(f"cannot read '{key} {value}': write e.g. '{POSITION_EXAMPLE}'")
        if key == "roll":
            fields["dice"] = [parse_int(w) for w in words]
        elif len(words) == 1:
            fields[key] = parse_int(words[0])
        else:
            raise InputError(f"'{key}' takes one number, got {value!r}")
    return position_of(rules, fields)


def choices(rules: FarkleRules, pos: FarklePosition) -> list[tuple[str, float]]:
    """Every legal action of a position with the mover's win probability after it."""
    sol = solved(rules)
    step = sol.step
    me, opp, turn = pos.me // step, pos.opponent // step, pos.turn // step
    values = sol.turn_values(me, opp)
    out: list[tuple[str, float]] = []
    for option in set_asides(rules.family, pos.roll):
        kept = " ".join(map(str, option.dice))
        total = turn + option.points // step
        if me + total < sol.goal:
            n = option.left or rules.dice
            out.append((f"set aside {kept}, roll {n}", float(values[total, n])))
        out.append((f"set aside {kept}, bank {total * step}", sol.bank_value(me, opp, total)))
    return out


def canonical(rules: FarkleRules, pos: FarklePosition, text: str) -> str:
    """The advice's text of ``set aside 1 5, roll`` / ``keep 1 bank`` (the kept faces in
    any order; the count rolled or total banked may be left out); InputError if unreadable."""
    m = ACTION_RE.match(" ".join(text.lower().replace(",", ", ").split()))
    if m is None:
        raise InputError(f"cannot read action {text.strip()!r}: write e.g. 'set aside 1 5, roll 4'")
    kept = "set aside " + " ".join(sorted(m.group(1).replace(",", " ").split())) + ","
    for action, _ in choices(rules, pos):
        if action.startswith(kept) and action.split(", ")[1].split()[0] == m.group(2):
            return action
    return " ".join(text.lower().split())


def roll_dice(n: int, rng: np.random.Generator) -> tuple[int, ...]:
    """``n`` dice rolled with ``rng``, sorted."""
    return tuple(sorted(int(d) for d in rng.integers(1, 7, size=n)))


class FarkleSpec(GameSpec):
    """Two-player Farkle in the registry (see ``diceopt.games.registry``)."""

    id = "farkle"
    title = "Farkle"
    env_name = "Farkle"
    summary = "Farkle: two players race to 10,000 with six dice, each maximising P(win)"
    rules_help = (
        "Roll six dice; set aside scoring dice (single 1 = 100, single 5 = 50, three 1s =\n"
        "1000, three of another face n = 100 n), then bank the turn total or roll the rest\n"
        "(all six again once all are set aside). A roll that scores nothing loses the turn\n"
        "total. First to bank 10,000 wins. Positions: 'me 4000 | opponent 3500 | turn 300 |\n"
        "roll 1 3 5 5'. Actions: 'set aside 1 5 5, roll 1' or 'set aside 1, bank'."
    )
    units = "probability that the player to move wins"
    players = 2
    parameters = (
        Parameter("goal", f"points to win, a multiple of 50 up to {GOAL_MAX}", type=int),
        Parameter("dice", "dice per turn, 1 to 6 (reduced games for checks)", type=int),
    )
    variants = {"acg2017": "Busche & Neller 2017: simplest scoring, six dice, to 10,000"}
    position_example = POSITION_EXAMPLE
    small = {"goal": 1000, "dice": 6}

    def rules(self, variant: str | None = None, **params: Any) -> FarkleRules:
        """The rules of the one variant with ``goal`` and ``dice`` as given."""
        self.variant_id(variant)
        goal, dice = params.get("goal"), params.get("dice")
        return FarkleRules(10_000 if goal is None else goal, 6 if dice is None else dice)

    def parse_text(self, rules: FarkleRules, text: str) -> FarklePosition:
        """``me 4000 | opponent 3500 | turn 300 | roll 1 3 5 5``."""
        return parse_position(rules, text)

    def parse_json(self, rules: FarkleRules, data: Mapping[str, Any]) -> FarklePosition:
        """``{"me", "opponent", "turn", "dice": [1, 3, 5, 5], "player"}`` (dice: the
        faces rolled; the page draws them as dice)."""
        unknown = set(data) - {"me", "opponent", "turn", "dice", "player"}
        if unknown:
            raise InputError(f"unknown position field(s) {sorted(unknown)}")
        return position_of(rules, data)

    def format(self, rules: FarkleRules, pos: FarklePosition) -> str:
        """The position's text."""
        return pos.text()

    def to_json(self, rules: FarkleRules, pos: FarklePosition) -> dict[str, Any]:
        """``{"me", "opponent", "turn", "dice", "player"}`` (player 1 or 2)."""
        return {
            "me": pos.me,
            "opponent": pos.opponent,
            "turn": pos.turn,
            "dice": list(pos.roll),
            "player": pos.player + 1,
        }

    def new_position(self, rules: FarkleRules, rng: np.random.Generator) -> FarklePosition:
        """The first scoring roll of the game (a first roll that scores nothing passes
        the turn, so the second player may be the first to decide)."""
        return self.next_turn(rules, 0, 0, 0, rng, [])

    def next_turn(
        self,
        rules: FarkleRules,
        me: int,
        opponent: int,
        player: int,
        rng: np.random.Generator,
        events: list[str],
    ) -> FarklePosition:
        """The position of ``player``'s next turn whose roll scores: players whose
        opening roll scores nothing pass (noted in ``events``)."""
        while True:
            roll = roll_dice(rules.dice, rng)
            events.append(f"player {player + 1} rolled {' '.join(map(str, roll))}")
            if set_asides(rules.family, roll):
                return FarklePosition(me, opponent, 0, roll, player)
            events.append(f"player {player + 1} scores nothing: the turn passes")
            me, opponent, player = opponent, me, 1 - player

    def to_move(self, rules: FarkleRules, pos: FarklePosition) -> int:
        """The player to move ("me")."""
        return pos.player

    def show(self, rules: FarkleRules, pos: FarklePosition) -> list[str]:
        """Scores, the turn total and the dice rolled."""
        return [
            f"player {pos.player + 1} to move: {pos.me} banked, turn total {pos.turn}; "
            f"opponent {pos.opponent} (goal {rules.goal})",
            f"rolled: {' '.join(map(str, pos.roll))}",
        ]

    def advise(self, rules: FarkleRules, pos: FarklePosition, **options: Any) -> Advice:
        """Every set-aside with roll or bank, with the mover's win probability, best first
        (equal values: the order listed, more dice left first, roll before bank)."""
        return Advice(rank_actions(choices(rules, pos)), self.units)

    def canonical_action(self, rules: FarkleRules, pos: FarklePosition, text: str) -> str:
        """The action as the advice writes it (kept faces in any order)."""
        return canonical(rules, pos, text)

    def apply(
        self, rules: FarkleRules, pos: FarklePosition, action: str, rng: np.random.Generator
    ) -> Step:
        """Set the dice aside, then bank (the turn passes) or roll on (dice from ``rng``)."""
        entry, _ = self.evaluate(rules, pos, action)
        kept = tuple(int(d) for d in entry.action.split(",")[0].split()[2:])
        option = next(o for o in set_asides(rules.family, pos.roll) if o.dice == kept)
        who = f"player {pos.player + 1}"
        total = pos.turn + option.points
        events = [f"{who} keeps {' '.join(map(str, kept))} for {option.points}"]
        if ", bank" in entry.action:
            events.append(f"{who} banks {total}")
            if pos.me + total >= rules.goal:
                events.append(f"{who} reaches {pos.me + total} and wins")
                final = FarklePosition(pos.me + total, pos.opponent, 0, pos.roll, pos.player)
                return Step(final, True, pos.player, tuple(events), float(pos.player == 0))
            nxt = self.next_turn(rules, pos.opponent, pos.me + total, 1 - pos.player, rng, events)
            return Step(nxt, False, nxt.player, tuple(events))
        n = option.left or rules.dice
        roll = roll_dice(n, rng)
        events.append(f"{who} rolled {' '.join(map(str, roll))}")
        if set_asides(rules.family, roll):
            nxt = FarklePosition(pos.me, pos.opponent, total, roll, pos.player)
            return Step(nxt, False, pos.player, tuple(events))
        events.append(f"{who} scores nothing and loses the turn total {total}")
        nxt = self.next_turn(rules, pos.opponent, pos.me, 1 - pos.player, rng, events)
        return Step(nxt, False, nxt.player, tuple(events))

    def solve(self, rules: FarkleRules, **options: Any) -> Report:
        """The first player's win probability (stored solution, or a solve)."""
        sol = solved(rules)
        stats = sol.stats
        lines = [
            f"Farkle: goal {rules.goal}, {rules.dice} dice, both players optimal",
            f"first player's win probability: {sol.value:.12f}",
            f"{sol.goal * sol.goal:,} turn starts; "
            + (
                "loaded from the cache"
                if sol.loaded
                else f"solved in {stats['seconds']:.1f} s ({stats['cpu_seconds']:.1f} CPU s)"
            ),
        ]
        data = {"loaded": sol.loaded, "goal_steps": sol.goal, "step": sol.step, **stats}
        return Report(sol.value, data, lines)

    def simulate(
        self, rules: FarkleRules, games: int, rng: np.random.Generator, **options: Any
    ) -> Report:
        """Seeded games of mutual optimal play on the race kernel (first player's wins)."""
        from diceopt.games.families.race import simulate

        sol = solved(rules)
        seed = int(rng.integers(2**31 - 1))
        sim = simulate(sol, games, seed)
        outcomes = sim.pop("outcomes")
        from diceopt.games.registry import simulation_report

        return simulation_report(self, outcomes, sol.value)

    def commands(self) -> tuple:
        """``fair``: the compensation for the second player."""
        return (fair_command(lambda rules: race_solution("farkle", rules.family)),)

    def main_job(self, out: Any = print) -> None:
        """The first player's win probability and the fair compensation."""
        from diceopt.games.families.race import fair

        sol = solved(FarkleRules())
        out("== Farkle (Busche & Neller 2017 rules, to 10,000), both players optimal ==")
        out(f"first player's win probability: {sol.value:.12f} (not published)")
        out(f"fairest compensation for the second player: {fair(sol)['compensation']} points")


SPEC = FarkleSpec()
