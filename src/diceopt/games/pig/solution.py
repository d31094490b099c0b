"""Pig solved by the push-your-luck family: the race solver on ``rules/pig.toml``.

The race solver (``families.race``) gives ``W[i, j]``, the win probability of the player
to move at the start of a turn with i banked against j (scoring steps: points, or points
/ 2 with a two-sided die), both players optimal; only W is stored (keyed by the rule
file's content hash and the goal). Everything else is read from W: holding turn total k
at (me, opponent) is worth ``1 - W[opponent, me + k]`` (or 1 when it reaches the goal),
and rolling at turn total k is the race kernels' roll value of the pair (one pair for
advice, every pair at once for the boundary). Every value is the probability that the
player to move wins.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from diceopt.games.families.race import RaceSolution
from diceopt.games.pig.position import HOLD, ROLL, PigPosition, check_position
from diceopt.games.pig.rules import PigRules
from diceopt.lazy import numpy as np

GAME = "pig"  # the race's storage name


@dataclass
class PigSolution:
    """Solved Pig (see the module docstring); positions and values in points.

    ``race``: the family's solution (W in steps, the solve's statistics, ``loaded`` when
    read from the table cache).
    """

    rules: PigRules
    race: RaceSolution
    _pairs: dict[tuple[int, int], Any] = field(default_factory=dict, repr=False)

    @property
    def value(self) -> float:
        """Probability that the first player wins under mutual optimal play."""
        return self.race.value

    @property
    def loaded(self) -> bool:
        """True when W was read from the table cache."""
        return self.race.loaded

    @property
    def stats(self) -> dict[str, Any]:
        """The race solve's statistics (seconds, cpu_seconds, max_rounds, residual, ...)."""
        return self.race.stats

    @property
    def states(self) -> int:
        """States of the race: turn starts and (turn total >= 1) decisions, in steps."""
        from diceopt.games.families.race import decision_states

        return decision_states(1, self.race.goal)

    def roll_value(self, me: int, opponent: int, turn: int) -> float:
        """The mover's win probability of rolling at turn total ``turn`` (0: the turn
        start, the same as :meth:`win_probability`); scores possible and below the goal."""
        s = self.rules.step
        i, j = me // s, opponent // s
        if turn == 0:
            return self.race.win_probability(i, j)
        if "tables" in self.__dict__:
            return float(self.tables[1][me, opponent, turn])
        if (i, j) not in self._pairs:
            self._pairs[(i, j)] = self.race.roll_values(i, j)
        return float(self._pairs[(i, j)][turn // s, 0])

    def hold_value(self, me: int, opponent: int, turn: int) -> float:
        """The mover's win probability after holding ``turn`` points."""
        s = self.rules.step
        return self.race.bank_value(me // s, opponent // s, turn // s)

    def win_probability(self, me: int, opponent: int, turn: int = 0) -> float:
        """Probability that the player to move wins (optimal play on both sides)."""
        if me + turn >= self.rules.goal:
            return 1.0
        roll = self.roll_value(me, opponent, turn)
        return roll if turn == 0 else max(roll, self.hold_value(me, opponent, turn))

    def action_values(self, me: int, opponent: int, turn: int) -> dict[str, float]:
        """Win probability of the player to move for each legal action (roll; hold if turn > 0).

        InputError if the position cannot occur under these rules.
        """
        check_position(self.rules, PigPosition(me, opponent, turn))
        roll = self.roll_value(me, opponent, turn)
        if turn == 0:
            return {ROLL: roll}
        return {HOLD: self.hold_value(me, opponent, turn), ROLL: roll}

    @cached_property
    def tables(self) -> tuple[np.ndarray, np.ndarray]:
        """(start, roll) in points: ``start[me, opponent]`` the mover's win probability at
        the start of a turn, ``roll[me, opponent, turn]`` that of rolling at turn total
        ``turn`` (turn < goal - me); nan where a score is not a multiple of the step (odd
        with a two-sided die) or the turn total reaches the goal."""
        g, s = self.rules.goal, self.rules.step
        start = np.full((g, g), np.nan)
        roll = np.full((g, g, g), np.nan)
        start[::s, ::s] = self.race.w
        roll[::s, ::s, ::s] = self.race.all_roll_values()[:, :, :, 0]
        return start, roll

    def decision_table(self) -> tuple[np.ndarray, np.ndarray]:
        """(hold, value) arrays indexed [me, opponent, turn] for the player to move.

        ``hold`` is 1 where holding is optimal, 0 where rolling is, -1 where no decision
        exists (turn 0 or 1, me + turn >= goal, or a score off the step); ``value`` is the
        mover's win probability after deciding (nan where no decision exists). Ties (within
        the engine's ``TIE_TOLERANCE``) go to hold.
        """
        from diceopt.engine.policy import TIE_TOLERANCE

        start, roll = self.tables
        g = self.rules.goal
        m = np.arange(g)[:, None, None]
        o = np.arange(g)[None, :, None]
        k = np.arange(g)[None, None, :]
        valid = (k >= 2) & (m + k < g) & np.isfinite(roll)
        hold_q = 1.0 - start[o, np.minimum(m + k, g - 1)]
        best = np.maximum(roll, hold_q)
        with np.errstate(invalid="ignore"):
            holds = (best - hold_q) <= TIE_TOLERANCE * np.maximum(1.0, np.abs(best))
        hold = np.where(valid, holds.astype(np.int8), np.int8(-1)).astype(np.int8)
        value = np.where(valid, best, np.nan)
        return hold, value

    def boundary(self) -> tuple[np.ndarray, int]:
        """Hold-from turn totals indexed [me, opponent] and the number of exceptions.

        ``hold_from[m, o]`` (points) is the smallest turn total at which holding is
        optimal for a mover with m banked against o (``goal - m`` when the mover should
        roll until reaching the goal); nan where a score cannot occur (1, or odd with a
        two-sided die). Exceptions count the larger turn totals (m, o, turn) where rolling
        is optimal again (0 when every row is a pure threshold).
        """
        hold, _ = self.decision_table()
        n = self.rules.goal
        ks = np.arange(n)[None, None, :]
        first_hold = np.where(hold == 1, ks, n).min(axis=2)
        me = np.arange(n)[:, None]
        hold_from = np.minimum(first_hold, n - me).astype(np.float64)
        exceptions = int(((hold == 0) & (ks > hold_from[:, :, None])).sum())
        impossible = [x for x in range(n) if not self.rules.possible_total(x)]
        hold_from[impossible, :] = np.nan
        hold_from[:, impossible] = np.nan
        return hold_from, exceptions


def solve_pig(rules: PigRules, *, tolerance: float | None = None) -> PigSolution:
    """Solve Pig by the race solver (no cache). ``tolerance`` (optional) overrides the
    race's fixed-point tolerance per pair of scores (win probability)."""
    from diceopt.games.families.push_luck import compile_rolls
    from diceopt.games.families.race import TOLERANCE, compact_rolls, solve_race

    rolls = compact_rolls(compile_rolls(rules.family))
    tol = TOLERANCE if tolerance is None else tolerance
    return PigSolution(rules, solve_race(rolls, rules.goal_steps, rules.step, tol))


_SOLVED: dict[PigRules, PigSolution] = {}


def solved(rules: PigRules, cache_dir: str | None = None) -> PigSolution:
    """Pig's solution: once per process, W from the table cache where stored (the race's
    key: game ``pig``, the family rules' hash, the goal in steps), else solved and stored
    (``cache_dir``: another cache directory)."""
    if rules not in _SOLVED:
        from diceopt.games.families.race import race_solution

        _SOLVED[rules] = PigSolution(rules, race_solution(GAME, rules.family, cache_dir))
    return _SOLVED[rules]


def table_key(rules: PigRules) -> Any:
    """The storage key of a solved Pig (the race's: ``families.race.table_key``)."""
    from diceopt.games.families.race import rules_hash
    from diceopt.games.families.race import table_key as race_key

    return race_key(GAME, rules_hash(rules.family), rules.goal_steps)


def plot_boundary(sol: PigSolution, path: str) -> None:
    """Write the roll/hold boundary (hold-from turn total per own and opponent score) as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    hold_from, _ = sol.boundary()
    g = sol.rules.goal
    fig, ax = plt.subplots(figsize=(7, 6))
    img = ax.imshow(hold_from, origin="lower", cmap="viridis", aspect="auto")
    ax.set_xlabel("opponent score (points)")
    ax.set_ylabel("own score (points)")
    ax.set_title(
        f"Pig, goal {g}, d{sol.rules.sides}: hold from this turn total\n"
        f"P(first player wins) = {sol.value:.9f}"
    )
    fig.colorbar(img, ax=ax, label="turn total from which to hold (points)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
