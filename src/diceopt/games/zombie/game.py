"""Zombie Dice played: the stored solution, each turn's table, the roll, the rounds.

``solved(rules)`` is the race (``race.solve_race``) once per process, stored in the table
cache. A position's advice reads the turn table of the mover's scores (``turn_table``:
one ``turn.solve`` with the payoffs the solution gives, kept for the last few scores).
``roll_dice`` draws and rolls as RULES §10 says (the same rules as ``dice``'s tables,
written apart: simulations check one against the other), ``end_turn`` applies the round
and tie rules, and ``simulate_race`` / ``simulate_turns`` play seeded games.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from typing import Any

from diceopt import storage
from diceopt.errors import InputError
from diceopt.games.zombie import turn
from diceopt.games.zombie.dice import BUST, FACES, HAND, TOTAL, transitions
from diceopt.games.zombie.position import ZombiePosition, ZombieRules, check_position
from diceopt.games.zombie.race import RaceSolution, solve_race
from diceopt.lazy import numpy as np
from diceopt.tables import Table

ROLL, BANK = "roll", "bank"
BRAIN, SHOTGUN, FEET = 0, 1, 2

_SOLVED: dict[ZombieRules, RaceSolution] = {}


def table_key(rules: ZombieRules) -> storage.TableKey:
    """The storage key of a solved race (the first player's chances, then the rest)."""
    variant = f"goal-{rules.goal}-lead-{rules.lead_cap}"
    return storage.TableKey(
        "zombie", variant, "win", 0.0, "float64", (rules.goal, rules.goal), ("second", "behind")
    )


def to_table(sol: RaceSolution) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """A solved race as stored arrays and header extras."""
    arrays = {"values": sol.first, "second": sol.second, "behind": sol.behind}
    meta = {
        "seconds": sol.seconds,
        "tie": sol.tie,
        "turn_solves": sol.turn_solves,
        "cap_error": sol.cap_error,
        "value": sol.value,
    }
    return arrays, meta


def from_table(rules: ZombieRules, stored: storage.Stored) -> RaceSolution:
    """A solved race from its stored arrays."""
    h, a = stored.header, stored.arrays
    return RaceSolution(
        rules.goal,
        rules.lead_cap,
        np.asarray(a["values"]),
        np.asarray(a["second"]),
        np.asarray(a["behind"]),
        float(h["tie"]),
        float(h.get("seconds", 0.0)),
        int(h.get("turn_solves", 0)),
        float(h.get("cap_error", 0.0)),
    )


def solved(rules: ZombieRules, cache_dir: str | None = None) -> RaceSolution:
    """The solved race of ``rules``: once per process, from the table cache when stored."""
    return storage.solved_once(
        _SOLVED,
        rules,
        table_key(rules),
        lambda: solve_race(rules.goal, rules.lead_cap),
        to_table,
        lambda stored: from_table(rules, stored),
        cache_dir,
    )


def race_table(rules: ZombieRules) -> Table:
    """The solved race as a stored table for the server's table store (built once and
    shared between processes; requests meanwhile answer that it is being built)."""

    def load() -> bool:
        got = storage.load(table_key(rules), then="solving it again")
        if got is None:
            return False
        _SOLVED[rules] = from_table(rules, got[0])
        return True

    def build(report: Any) -> bool:
        report.set_stage("building")
        solved(rules)
        return storage.table_path(table_key(rules)).exists()

    return Table(
        name=f"zombie/goal-{rules.goal} lead-{rules.lead_cap} race",
        title=f"the race to {rules.goal} brains",
        path=storage.table_path(table_key(rules)),
        ready=lambda: rules in _SOLVED,
        load=load,
        build=build,
        cost="about 5 s on 2 cores for the race to 13" if rules.goal > 5 else "a few seconds",
    )


def mover_key(rules: ZombieRules, seat: int, me: int, opponent: int) -> tuple[int, int, int]:
    """The turn a mover plays, as (seat, first player's brains, second's): a tie round as
    (0, goal, goal); the second player behind a first player at the goal as (1, lead +
    goal, goal) with the lead capped."""
    a, b = (me, opponent) if seat == 0 else (opponent, me)
    if a >= rules.goal:
        lead = min(a - b, rules.lead_cap)
        return (seat, rules.goal + lead, rules.goal) if seat == 1 else (0, rules.goal, rules.goal)
    return seat, a, b


@lru_cache(maxsize=32)
def turn_table(rules: ZombieRules, key: tuple[int, int, int]) -> turn.TurnValues:
    """The solved turn of a mover (``mover_key``): values of bank and roll everywhere."""
    sol = solved(rules)
    seat, a, b = key
    h = sol.first_payoffs(a, b) if seat == 0 else sol.second_payoffs(a, b)
    tv = turn.solve(h)
    return replace(tv, slopes=np.empty(0))


def config_of(pos: ZombiePosition) -> int:
    """The configuration number of a position's dice."""
    return transitions().find(pos.shot, pos.feet, pos.aside)


def action_values(rules: ZombieRules, pos: ZombiePosition) -> dict[str, float]:
    """The mover's chance of winning after each legal action (bank only once rolled)."""
    check_position(rules, pos)
    tv = turn_table(rules, mover_key(rules, pos.seat, pos.me, pos.opponent))
    c = config_of(pos)
    g = min(pos.brains, tv.cap)
    values = {ROLL: tv.roll(c, g)}
    if pos.started:
        values[BANK] = tv.bank(g)
    return values


@lru_cache(maxsize=1)
def brains_table() -> turn.TurnValues:
    """The one-turn expected-brains table (optimal play, brains to the cap)."""
    return turn.expected_brains().policy


def brains_values(pos: ZombiePosition) -> dict[str, float]:
    """The expected brains of this turn alone after each legal action (optimal play)."""
    tv = brains_table()
    c = config_of(pos)
    g = min(pos.brains, tv.cap)
    values = {ROLL: tv.roll(c, g)}
    if pos.started:
        values[BANK] = float(pos.brains)
    return values


def roll_dice(
    shot: tuple[int, ...], feet: tuple[int, ...], aside: tuple[int, ...], rng: np.random.Generator
) -> tuple[list[tuple[int, int]], bool]:
    """Draw to 3 dice (the brain dice set aside go back when the cup is short) and roll:
    the dice rolled as (colour, face) pairs, hand first, and whether brain dice went
    back into the cup."""
    cup = [TOTAL[i] - shot[i] - feet[i] - aside[i] for i in range(3)]
    need = HAND - sum(feet)
    recycled = sum(cup) < need
    if recycled:
        cup = [cup[i] + aside[i] for i in range(3)]
    pool = [colour for colour in range(3) for _ in range(cup[colour])]
    drawn = [pool[i] for i in rng.choice(len(pool), size=need, replace=False)] if need else []
    dice = [colour for colour in range(3) for _ in range(feet[colour])] + sorted(drawn)
    faces = rng.integers(6, size=len(dice))
    rolled = []
    for colour, f in zip(dice, faces.tolist(), strict=True):
        brains, shotguns, _ = FACES[colour]
        rolled.append((colour, BRAIN if f < brains else SHOTGUN if f < brains + shotguns else FEET))
    return rolled, recycled


def after_roll(
    shot: tuple[int, int, int],
    aside: tuple[int, int, int],
    brains: int,
    rolled: list[tuple[int, int]],
    recycled: bool,
) -> tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int], int, bool]:
    """(shot, feet, aside: dice per colour, brains, bust) after a roll."""
    new_shot, new_feet = list(shot), [0, 0, 0]
    new_aside = [0, 0, 0] if recycled else list(aside)
    for colour, face in rolled:
        (new_aside if face == BRAIN else new_shot if face == SHOTGUN else new_feet)[colour] += 1
    gained = sum(1 for _, face in rolled if face == BRAIN)
    bust = sum(new_shot) >= BUST
    return trio(new_shot), trio(new_feet), trio(new_aside), brains + gained, bust


def trio(counts: list[int]) -> tuple[int, int, int]:
    """Counts per colour (green, yellow, red) as a tuple."""
    green, yellow, red = counts
    return green, yellow, red


def end_turn(
    goal: int, first: int, second: int, seat: int, gained: int
) -> tuple[bool, float | None, int, int, int]:
    """The round and tie rules after a turn that banked ``gained`` brains (0: a bust):
    (game over, the first player's result 1/0, first's brains, second's, next seat)."""
    if seat == 0:
        return False, None, first + gained, second, 1
    second += gained
    if max(first, second) >= goal and first != second:
        return True, 1.0 if first > second else 0.0, first, second, 0
    return False, None, first, second, 0


def play_turn(
    tv: turn.TurnValues,
    rng: np.random.Generator,
    decide: Callable[[tuple[int, ...], tuple[int, ...], tuple[int, ...], int], bool] | None = None,
) -> int:
    """One seeded turn from an empty hand: the brains banked (0 after a bust), banking
    where the turn table ``tv`` says (or where ``decide(shot, feet, aside, brains)``)."""
    t = transitions()
    shot, feet, aside, brains = (0, 0, 0), (0, 0, 0), (0, 0, 0), 0
    while True:
        rolled, recycled = roll_dice(shot, feet, aside, rng)
        shot, feet, aside, brains, bust = after_roll(shot, aside, brains, rolled, recycled)
        if bust:
            return 0
        if decide is not None:
            bank = decide(shot, feet, aside, brains)
        else:
            g = min(brains, tv.cap)
            bank = tv.values[g, t.find(shot, feet, aside)] <= tv.h[g]
        if bank:
            return brains


def simulate_race(
    rules: ZombieRules,
    games: int,
    rng: np.random.Generator,
    decide: Callable[[ZombiePosition], str] | None = None,
) -> np.ndarray:
    """The first player's results (1 win, 0 loss) of seeded games, both players playing
    optimally (``decide``: the first player's choice instead, given a rolled position).

    The games are played a turn at a time, all games waiting for the same turn table
    together (the waiting turn first whose scores are lowest), so that each table is
    solved about once however many games are played."""
    out = np.empty(games)
    waiting: dict[tuple[int, int, int], list[tuple[int, int, int, int]]] = {}

    def wait(n: int, first: int, second: int, seat: int) -> None:
        me, opponent = (first, second) if seat == 0 else (second, first)
        key = mover_key(rules, seat, me, opponent)
        waiting.setdefault(key, []).append((n, first, second, seat))

    def rank(key: tuple[int, int, int]) -> tuple[int, int, int, int]:
        seat, a, b = key
        return (int(max(a, b) >= rules.goal), a + b, a, seat)

    for n in range(games):
        wait(n, 0, 0, 0)
    while waiting:
        key = min(waiting, key=rank)
        tv = turn_table(rules, key)
        for n, first, second, seat in waiting.pop(key):
            choice = None
            if decide is not None and seat == 0:
                me, opponent = first, second

                def choice(shot, feet, aside, brains, me=me, opponent=opponent) -> bool:  # noqa: ANN001
                    pos = ZombiePosition(me, opponent, 0, brains, shot, feet, aside)
                    return decide(pos) == BANK

            gained = play_turn(tv, rng, choice)
            over, result, first, second, seat = end_turn(rules.goal, first, second, seat, gained)
            if over:
                out[n] = result
            else:
                wait(n, first, second, seat)
    return out


def simulate_turns(turns: int, rng: np.random.Generator, policy: str = "optimal") -> np.ndarray:
    """Brains of seeded single turns from an empty hand: ``policy`` "optimal" (the
    expected-brains table) or "two-shotguns" (roll until two shotguns, then bank)."""
    if policy not in ("optimal", "two-shotguns"):
        raise InputError(f"unknown policy {policy!r}: optimal or two-shotguns")
    tv = brains_table()

    def two_shotguns(shot, feet, aside, brains) -> bool:  # noqa: ANN001
        return sum(shot) >= turn.STOP_AT

    decide = two_shotguns if policy == "two-shotguns" else None
    return np.array([play_turn(tv, rng, decide) for _ in range(turns)], dtype=np.float64)
