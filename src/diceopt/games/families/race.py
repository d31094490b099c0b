"""Two-player push-your-luck races over a roll table: win probabilities, both optimal.

A race game (Farkle, Pig, ...) is described by a roll table (``RollTable`` of
``diceopt.games.families.push_luck``: every roll of n dice, its probability, and for each
count of dice left the most points that may be set aside) and a goal. Scores are in
scoring steps (points / step). ``W[i, j]`` is the probability that the player to move at
the start of a turn, with i banked against the opponent's j, wins under mutual optimal
play; banking t with i + t >= goal wins at once. Only W is stored; a turn's values (for
advice, simulation) are recomputed from it on demand (``turn_values``).

The solve (``solve_race``) runs pairs (i, j) in decreasing i + j; a pair and its mirror
(j, i) depend on each other only through a bust, and are solved together by policy
iteration on that scalar to ``tolerance`` (kernels in ``race_kernels``).
"""

from __future__ import annotations

import math
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from diceopt import storage
from diceopt.errors import InputError
from diceopt.games.contract import Command
from diceopt.games.families.push_luck import RollTable
from diceopt.interrupt import run_chunks
from diceopt.lazy import numpy as np

TOLERANCE = 1e-15  # a pair's fixed point: both turn starts reproduce themselves to this
MAX_ROUNDS = 60  # policy-iteration rounds per pair before giving up on the tolerance


@dataclass(frozen=True)
class RaceRolls:
    """A roll table with the outcomes of equal options merged (see ``race_kernels``)."""

    dice: int
    group_start: Any  # int64 (dice + 2,)
    group_prob: Any  # float64 (G,)
    option_start: Any  # int64 (G + 1,)
    option_points: Any  # int64 (K,) steps
    option_dice: Any  # int64 (K,) dice to roll next (hot dice: all of them)
    bust: Any  # float64 (dice + 1,): probability that n dice score nothing

    def arrays(self) -> tuple[Any, Any, Any, Any, Any, Any, int]:
        """The kernels' roll-table argument: the arrays, then ``dice``."""
        return (
            self.group_start,
            self.group_prob,
            self.option_start,
            self.option_points,
            self.option_dice,
            self.bust,
            self.dice,
        )


def compact_rolls(table: RollTable) -> RaceRolls:
    """Merge the outcomes of each dice count that have the same options (summing their
    probabilities), and replace hot dice (0 left) by all the dice."""
    dice = int(table.dice)
    starts = [0]
    probs: list[float] = []
    opt_start = [0]
    points: list[int] = []
    nxt: list[int] = []
    bust = np.zeros(dice + 1)
    gs = np.zeros(dice + 2, dtype=np.int64)
    for n in range(1, dice + 1):
        merged: dict[tuple, float] = {}
        for o in range(int(table.outcome_start[n]), int(table.outcome_start[n + 1])):
            lo, hi = int(table.option_start[o]), int(table.option_start[o + 1])
            p = float(table.outcome_prob[o])
            if lo == hi:
                bust[n] += p
                continue
            key = tuple(
                (int(table.option_points[k]), int(table.option_dice[k]) or dice)
                for k in range(lo, hi)
            )
            if any(pts < 1 for pts, _ in key):
                raise InputError("every option of a race game must set aside at least one step")
            merged[key] = merged.get(key, 0.0) + p
        gs[n] = len(probs)
        for key, p in merged.items():
            probs.append(p)
            for pts, d in key:
                points.append(pts)
                nxt.append(d)
            opt_start.append(len(points))
        starts.append(len(probs))
    gs[dice + 1] = len(probs)
    return RaceRolls(
        dice,
        gs,
        np.array(probs, dtype=np.float64),
        np.array(opt_start, dtype=np.int64),
        np.array(points, dtype=np.int64),
        np.array(nxt, dtype=np.int64),
        bust,
    )


@dataclass
class RaceSolution:
    """Solved race: ``w[i, j]`` (see the module docstring), goal and step in points.

    ``stats``: seconds (wall), cpu_seconds, turn passes, decision states visited,
    rounds of the slowest pair, largest residual, peak RSS (MiB) where solved here.
    """

    rolls: RaceRolls
    goal: int  # steps
    step: int  # points per step
    w: Any
    stats: dict[str, Any] = field(default_factory=dict)
    loaded: bool = False

    @property
    def value(self) -> float:
        """The first player's win probability at the start (both scores 0)."""
        return float(self.w[0, 0])

    def win_probability(self, me: int, opponent: int) -> float:
        """The mover's win probability at the start of a turn (scores in steps)."""
        if me >= self.goal:
            return 1.0
        if opponent >= self.goal:
            return 0.0
        return float(self.w[me, opponent])

    def turn_values(self, me: int, opponent: int) -> Any:
        """c[t, n]: the mover's win probability deciding at turn total t (steps, 1 <= t <
        goal - me) with n dice to roll, banked scores me and opponent (steps)."""
        from diceopt.games.families import race_kernels as k

        c, _ = k.turn_tables(self.rolls.arrays(), self.goal, self.w, me, opponent)
        return c

    def roll_values(self, me: int, opponent: int) -> Any:
        """roll[t, n - 1]: the mover's win probability rolling n dice at turn total t
        (steps, t < goal - me; 0: the turn start), scores me and opponent (steps)."""
        from diceopt.games.families import race_kernels as k

        return k.turn_roll_values(self.rolls.arrays(), self.goal, self.w, me, opponent)

    def all_roll_values(self) -> Any:
        """roll[i, j, t, n - 1] of :meth:`roll_values` for every pair of scores (nan
        from t = goal - i on): goal³ x dice floats, for small goals (Pig)."""
        from diceopt.games.families import race_kernels as k

        return k.roll_values(self.rolls.arrays(), self.goal, self.w)

    def bank_value(self, me: int, opponent: int, turn: int) -> float:
        """The mover's win probability after banking ``turn`` steps."""
        return 1.0 if me + turn >= self.goal else 1.0 - float(self.w[opponent, me + turn])


def solve_race(
    rolls: RaceRolls, goal: int, step: int = 1, tolerance: float = TOLERANCE
) -> RaceSolution:
    """Solve the race to ``goal`` steps (no cache): W and the solve's statistics.
    ``tolerance``: each pair's fixed point (win probability) holds to this."""
    from diceopt.games.families import race_kernels as k

    if goal < 1:
        raise InputError(f"the goal must be at least one step, got {goal}")
    wall, cpu = time.perf_counter(), time.process_time()
    w = np.zeros((goal, goal))
    counts = np.zeros(3, dtype=np.int64)  # turn passes, states visited, most rounds
    resid = np.zeros(1)
    top = 2 * goal - 2

    def sums(lo: int, hi: int) -> None:  # the sums top - lo down to top - hi + 1
        k.solve_sums(
            rolls.arrays(), goal, tolerance, MAX_ROUNDS, w, top - lo, top - hi, counts, resid
        )

    run_chunks(sums, top + 1)  # largest sums first; Ctrl-C between two chunks
    passes, states, rounds, residual = counts[0], counts[1], counts[2], resid[0]
    seconds = time.perf_counter() - wall
    stats = {
        "seconds": seconds,
        "cpu_seconds": time.process_time() - cpu,
        "turn_passes": int(passes),
        "states_visited": int(states),
        "start_states": goal * goal,
        "decision_states": decision_states(rolls.dice, goal),
        "max_rounds": int(rounds),
        "residual": float(residual),
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    stats["states_per_second"] = stats["states_visited"] / max(seconds, 1e-9)
    return RaceSolution(rolls, goal, step, w, stats)


def decision_states(dice: int, goal: int) -> int:
    """Decision states (i, j, t >= 1, n) of a race, plus the turn starts."""
    return goal * (goal * (goal - 1) // 2) * dice + goal * goal


def table_key(game: str, rules_hash: str, goal: int) -> storage.TableKey:
    """The storage key of a solved race: the game, its rules' hash and the goal (steps)."""
    return storage.TableKey(
        game, f"goal{goal}-{rules_hash[:16]}", "win", 0.0, "float64", (goal, goal)
    )


def rules_hash(rules: Any) -> str:
    """A hash of a rule file's content and of every rule (a goal or dice given on the
    command line changes it)."""
    import hashlib
    import json

    text = json.dumps(rules.describe(), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def race_solution(game: str, rules: Any, cache_dir: Any = None) -> RaceSolution:
    """The race of push-your-luck rules (``PushLuckRules``, two players) solved once: its
    roll table compiled, the goal in steps (rounded up), stored under ``game``."""
    from diceopt.games.families.push_luck import compile_rolls

    rolls = compact_rolls(compile_rolls(rules))
    goal = -(-rules.goal // rules.step)
    return solved(game, rules_hash(rules), rolls, goal, rules.step, cache_dir)


_SOLVED: dict[Any, RaceSolution] = {}


def solved(
    game: str, rules_hash: str, rolls: RaceRolls, goal: int, step: int, cache_dir: Any = None
) -> RaceSolution:
    """The race solved once per process: loaded from the table cache (keyed by the rule
    file's content hash and the goal), else solved and stored."""

    def to_table(sol: RaceSolution) -> tuple[dict[str, Any], dict[str, Any]]:
        return {"values": sol.w}, {"value": sol.value, **sol.stats}

    def from_table(stored: storage.Stored) -> RaceSolution:
        stats = {k: v for k, v in stored.header.items() if k in SOLVE_STATS}
        return RaceSolution(rolls, goal, step, stored.arrays["values"], stats, loaded=True)

    key = table_key(game, rules_hash, goal)
    return storage.solved_once(
        _SOLVED,
        (game, rules_hash, goal),
        key,
        lambda: solve_race(rolls, goal, step),
        to_table,
        from_table,
        cache_dir,
    )


SOLVE_STATS = (
    "seconds",
    "cpu_seconds",
    "turn_passes",
    "states_visited",
    "start_states",
    "decision_states",
    "max_rounds",
    "residual",
    "peak_rss_mib",
    "states_per_second",
)


def fair(sol: RaceSolution, candidates: int | None = None) -> dict[str, Any]:
    """The compensation (steps given to the second player at the start; negative: to the
    first) that brings the first player's win probability closest to 1/2, with that
    probability at each candidate (:func:`diceopt.games.fair.fairest`)."""
    from diceopt.games.fair import fairest

    def chance(c: int) -> float:
        return float(sol.w[0, c] if c >= 0 else sol.w[-c, 0])

    return fairest(chance, sol.goal - 1, sol.step, candidates)


def versus_max_score(sol: RaceSolution, top: int | None = None) -> dict[str, Any]:
    """The optimal player against a player that maximises its expected turn score (and
    banks at once when the turn total reaches the goal): the optimal player's win
    probability moving first, second, on average, and the advantage (average - 1/2)."""
    from diceopt.games.families import race_kernels as k

    args = sol.rolls.arrays()
    top = 20 * sol.goal + 200 if top is None else top
    m, flag = k.max_score(args, top)
    x, y = k.versus_fixed(args, sol.goal, sol.w, m[: sol.goal + 1], flag[: sol.goal + 1])
    first = float(x[0, 0])
    second = 1.0 - float(y[0, 0])
    average = (first + second) / 2
    return {
        "first": first,
        "second": second,
        "average": average,
        "advantage": average - 0.5,
        "max_score_expected_turn": float(m[0, sol.rolls.dice]) * sol.step,
    }


def simulate(sol: RaceSolution, games: int, seed: int, start_opp: int = 0) -> dict[str, Any]:
    """Seeded games of the optimal policy against itself (the opponent starting with
    ``start_opp`` steps): each game's outcome (1: the first player won), the win rate,
    its standard error and a 4-sigma bound around the exact value."""
    from diceopt.games.families import race_kernels as k

    if games < 1:
        raise InputError(f"games must be at least 1, got {games}")
    rolls = sol.rolls
    cum = np.zeros(len(rolls.group_prob))
    for n in range(1, rolls.dice + 1):
        lo, hi = int(rolls.group_start[n]), int(rolls.group_start[n + 1])
        cum[lo:hi] = np.cumsum(rolls.group_prob[lo:hi])
    out = k.simulate_race(rolls.arrays(), sol.goal, sol.w, start_opp, games, seed, cum)
    exact = float(sol.w[0, start_opp])
    mean = float(out.mean())
    sigma = math.sqrt(exact * (1 - exact) / games)
    return {
        "outcomes": out,
        "games": games,
        "mean": mean,
        "exact": exact,
        "std_error": sigma,
        "bound": 4 * sigma,
        "within": abs(mean - exact) <= 4 * sigma,
    }


def fair_command(solution_of: Callable[[Any], RaceSolution]) -> Command:
    """The ``fair`` subcommand of a race game: ``solution_of(rules)`` is its solved race."""
    from diceopt.games.fair import fair_command as command

    return command(lambda rules, candidates: fair(solution_of(rules), candidates))
