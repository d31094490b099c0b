"""A small two-player game written to the game contract, as a plug-in would be: the web
tests serve it beside the registered games (it is not registered itself). And
``maxi_mini_variant``: a reduced six-dice Maxi Yatzy registered as a Yatzy variant for a
while, so the web tests cover six dice without the full Maxi table (304 MB, a minute).

``GatedSpec``: a one-position game whose stored table (``GameSpec.tables``) builds until the
test opens its gate (or, ``sliced``, one kernel slice at a time as the test lets each run),
and whose distribution is a solve that runs until it is stopped: the table store, 503
"being built", the page's wait for a build and stopped requests are tested with it.

Race: two players, each with points, take turns. The player to move either steps (1 point)
or dashes (a three-sided die: 1 scores nothing, 2 and 3 score 2 and 3). The first to the
goal wins. Positions are the mover's view: ``me 2 | opponent 1 | player 1`` (``player``:
who moves, 0 = the first player). Values: the mover's probability of winning.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pytest

from diceopt.advice import ActionAdvice, Advice, rank_actions
from diceopt.errors import InputError
from diceopt.games.contract import GameSpec, Report, Step
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.games.yatzy.rulebook.variants import MAXI
from diceopt.notation import split_fields

# Variants whose table takes long to build in the suite: Maxi (36,864,000 states, 304 MB, a
# minute or more), Maxi with saved rerolls (3.1 GB, solved only on request), Farkle to
# 10,000 (about 30 s on 2 cores: benchmarks/farkle_solve.py) and Zombie Dice to 13 (about
# 30 s: benchmarks/zombie_solve.py). The web tests list and start them but take their
# games' smaller variants for advice.
BIG_TABLES = {
    ("yatzy", "maxi"),
    ("yatzy", "maxi-saved"),
    ("farkle", "acg2017"),
    ("zombie", "goal-13"),
}

# Late in a forced-order game and 20 points behind: the best move for the expected score
# keeps two pairs (a full house), the best to beat this opponent keeps 5 5 6, a different
# move (the API and browser tests of the two hints).
BEHIND = (
    "dice 1 1 5 5 6 | rerolls 2 | filled ones twos threes fours fives sixes one_pair "
    "two_pairs three_of_a_kind four_of_a_kind small_straight large_straight | upper 63 "
    "| score 150"
)
AHEAD_OF_ME = (
    "filled ones twos threes fours fives sixes one_pair two_pairs three_of_a_kind "
    "four_of_a_kind small_straight large_straight | upper 63 | score 170"
)

DASH = {1: 0, 2: 2, 3: 3}  # die face -> points


@dataclass(frozen=True)
class RaceRules:
    """The goal (points to win)."""

    goal: int = 5


@dataclass(frozen=True)
class RacePos:
    """The mover's points, the opponent's, and who moves (0 = the first player)."""

    me: int
    opponent: int
    player: int = 0


def solve_race(goal: int) -> np.ndarray:
    """V[a, b]: the mover's probability of winning with a points against b (iterated)."""
    v = np.full((goal, goal), 0.5)
    for _ in range(500):
        new = np.empty_like(v)
        for a in range(goal):
            for b in range(goal):
                new[a, b] = max(action_values(v, goal, a, b).values())
        if np.abs(new - v).max() < 1e-15:
            return new
        v = new
    return v


def action_values(v: np.ndarray, goal: int, a: int, b: int) -> dict[str, float]:
    """The mover's winning chance after each action."""

    def after(points: int) -> float:
        return 1.0 if points >= goal else 1.0 - v[b, points]

    return {"step": after(a + 1), "dash": sum(after(a + g) for g in DASH.values()) / 3}


class RaceSpec(GameSpec):
    """The race game (see the module docstring)."""

    id = "race"
    title = "Race (test plug-in)"
    summary = "a two-player race to the goal: step 1 or dash with a three-sided die"
    units = "probability that the player to move wins"
    players = 2
    variants = {"to-5": "first to 5 points", "to-3": "first to 3 points"}
    position_example = "me 2 | opponent 1 | player 0"

    def __init__(self) -> None:
        self._tables: dict[int, np.ndarray] = {}

    def rules(self, variant: str | None = None, **params: Any) -> RaceRules:
        name = self.variant_id(variant)
        return RaceRules(int(name.split("-")[1]))

    def table(self, rules: RaceRules) -> np.ndarray:
        if rules.goal not in self._tables:
            self._tables[rules.goal] = solve_race(rules.goal)
        return self._tables[rules.goal]

    def _check(self, rules: RaceRules, pos: RacePos) -> RacePos:
        for name in ("me", "opponent"):
            value = getattr(pos, name)
            if not 0 <= value < rules.goal:
                raise InputError(f"{name} must be 0..{rules.goal - 1}, got {value}")
        if pos.player not in (0, 1):
            raise InputError(f"player must be 0 or 1, got {pos.player}")
        return pos

    def parse_text(self, rules: RaceRules, text: str) -> RacePos:
        fields = split_fields(text, ("me", "opponent", "player"), self.position_example)
        try:
            values = {k: int(v) for k, v in fields.items()}
        except ValueError:
            raise InputError(f"race positions are whole numbers: {text!r}") from None
        return self._check(rules, RacePos(**values))

    def parse_json(self, rules: RaceRules, data: Mapping[str, Any]) -> RacePos:
        if set(data) - {"me", "opponent", "player"}:
            raise InputError("race position fields: me, opponent, player")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in data.values()):
            raise InputError("race position fields are whole numbers")
        return self._check(rules, RacePos(**data))

    def format(self, rules: RaceRules, pos: RacePos) -> str:
        return f"me {pos.me} | opponent {pos.opponent} | player {pos.player}"

    def to_json(self, rules: RaceRules, pos: RacePos) -> dict[str, Any]:
        return {"me": pos.me, "opponent": pos.opponent, "player": pos.player}

    def new_position(self, rules: RaceRules, rng: np.random.Generator) -> RacePos:
        return RacePos(0, 0, 0)

    def to_move(self, rules: RaceRules, pos: RacePos) -> int:
        return pos.player

    def advise(self, rules: RaceRules, pos: RacePos) -> Advice:
        values = action_values(self.table(rules), rules.goal, pos.me, pos.opponent)
        return Advice(rank_actions(list(values.items())), self.units)

    def apply(self, rules: RaceRules, pos: RacePos, action: str, rng: np.random.Generator) -> Step:
        who = "you" if pos.player == 0 else "the opponent"
        move = self.canonical_action(rules, pos, action)
        if move == "step":
            gained, events = 1, [f"{who} stepped 1"]
        elif move == "dash":
            face = int(rng.integers(1, 4))
            gained = DASH[face]
            events = [f"rolled a {face}" + (": no points, the turn ends" if not gained else "")]
        else:
            raise InputError(f"{action!r} is not a legal action here; legal: step; dash")
        points = pos.me + gained
        if points >= rules.goal:
            events.append(f"{who} reached {points}")
            result = 1.0 if pos.player == 0 else 0.0
            return Step(
                RacePos(pos.opponent, points, 1 - pos.player),
                True,
                1 - pos.player,
                tuple(events),
                result,
            )
        nxt = RacePos(pos.opponent, points, 1 - pos.player)
        return Step(nxt, False, nxt.player, tuple(events))

    def solve(self, rules: RaceRules, **options: Any) -> Report:
        return Report(float(self.table(rules)[0, 0]))


RACE = RaceSpec()


# --- a game with a stored table that builds until the test lets it --------------------------


class GatedSpec(GameSpec):
    """A game whose one stored table builds until the test opens the gate (counted), and
    whose distribution is a long solve reporting progress until it is stopped.

    ``sliced``: the build is four steps (reported as a solver reports its layers), each a
    run of eight items in slices (``diceopt.interrupt.run_chunks``, which reports how far
    it has got), and each slice waits until the test releases ``slices`` once: the test
    moves the build on, slice by slice, without a clock."""

    id = "gated"
    variants = {"v": "the only variant"}
    position_example = "p"

    def __init__(self, folder: Any, sliced: bool = False) -> None:
        self.folder = folder
        self.gate = threading.Event()
        self.sliced = sliced
        self.slices = threading.Semaphore(0)
        self.builds = 0
        self.value: float | None = None
        self.stopped = threading.Event()
        self.steps = 0

    def table(self) -> Any:
        from diceopt.tables import Table

        def load() -> bool:
            path = self.folder / "gated.tbl"
            if path.exists():
                self.value = float(path.read_text())
            return path.exists()

        def one_slice(lo: int, hi: int) -> None:
            assert self.slices.acquire(timeout=60), "the test never let a slice run"

        def build(report: Any) -> bool:
            from diceopt.interrupt import run_chunks

            self.builds += 1
            for i in range(4):
                report.update(i, 4)
                if self.sliced:
                    run_chunks(one_slice, 8)
                else:
                    assert self.gate.wait(60), "the test never opened the gate"
            (self.folder / "gated.tbl").write_text("3.5")
            self.value = 3.5
            return True

        return Table(
            "gated/v", "the gated table", self.folder / "gated.tbl",
            lambda: self.value is not None, load, build,
        )  # fmt: skip

    def tables(self, rules: Any, need: str = "advice", pos: Any = None, **options: Any) -> tuple:
        return (self.table(),)

    def rules(self, variant: str | None = None, **params: Any) -> str:
        return self.variant_id(variant)

    def parse_text(self, rules: Any, text: str) -> str:
        if text != "p":
            raise InputError("bad position")
        return text

    def parse_json(self, rules: Any, data: Mapping[str, Any]) -> str:
        if data:
            raise InputError("bad position")
        return "p"

    def format(self, rules: Any, pos: Any) -> str:
        return pos

    def to_json(self, rules: Any, pos: Any) -> dict[str, Any]:
        return {}

    def advise(self, rules: Any, pos: Any) -> Advice:
        assert self.value is not None, "advised before the table was ready"
        return Advice([ActionAdvice("a", self.value, 0.0)], "points")

    def distribution(self, rules: Any, pos: Any) -> dict[str, Any]:
        from diceopt.progress import Cancelled, Stage

        try:
            with Stage("a long solve", "steps") as stage:
                while True:  # only a stop at a progress report ends it
                    self.steps += 1
                    stage.update(self.steps)
                    threading.Event().wait(0.01)
        except Cancelled:
            self.stopped.set()
            raise


# --- Maxi Yatzy on six categories ------------------------------------------------------------

MAXI_MINI_ID = "maxi-mini"
MAXI_MINI = replace(
    MAXI.reduced(
        ("ones", "sixes", "three_pairs", "full_straight", "castle", "maxi_yatzy"),
        bonus_threshold=12,
    ),
    name=MAXI_MINI_ID,
)


@contextmanager
def maxi_mini_variant() -> Iterator[YatzyRules]:
    """Maxi Yatzy's six dice and scoring on six of its categories (50 bonus at 12), offered
    as the Yatzy variant ``maxi-mini`` for the block (listed, advised, played by name)."""
    from diceopt.games.yatzy.rulebook import variants as rules

    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(rules.VARIANT_RULES, MAXI_MINI_ID, MAXI_MINI)
        mp.setitem(rules.VARIANTS, MAXI_MINI_ID, "Maxi Yatzy on six categories (tests)")
        from diceopt.games.yatzy.stored import store as solved

        mp.setattr(solved, "TABLES", {})  # tables solved meanwhile are forgotten after
        yield MAXI_MINI
