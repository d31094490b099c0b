"""Pig (RULES §5) on the generic engine: each player maximises the probability of winning.

Positions are written from the point of view of the player to move:
``me 41 | opponent 49 | turn 22`` (``turn`` is the turn total at risk; omitted = 0, the
start of a turn). A turn starts with a forced roll; after each roll of 2..K the player
holds (banks the turn total, the turn passes) or rolls again; a 1 loses the turn total.
Reaching the goal (banked score + turn total) wins at once: holding there is the only
sensible move, so the engine folds it into the roll.

Engine states are integers (fast to hash). With ``code = ((p*G + m)*G + o)*G + k``
(p: player to move, 0 = first player; m, o: mover's and opponent's banked points; k:
turn total), ``2*code`` is the hold-or-roll decision and ``2*code + 1`` the roll (a
chance node); ``-1`` / ``-2`` are the terminal wins of the first / second player.
Values are the first player's probability of winning (the engine's ``win``
objective); the game is cyclic (two 1s in a row repeat a position), so it is solved by
Gauss-Seidel value iteration.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from diceopt.advice import ActionAdvice
from diceopt.engine import (
    Chance,
    CompiledGame,
    Decision,
    Objective,
    Solution,
    Terminal,
    compile_game,
    extract_policy,
    solve,
)
from diceopt.errors import InputError
from diceopt.notation import split_fields

GOAL_MAX = 150
SIDES_MAX = 20
HOLD, ROLL = "hold", "roll"
WIN_FIRST, WIN_SECOND = -1, -2


@dataclass(frozen=True)
class PigRules:
    """Pig's parameters: the goal (points) and the number of die sides (faces 1..K)."""

    goal: int = 100
    sides: int = 6

    def __post_init__(self) -> None:
        if not isinstance(self.goal, int) or not 1 <= self.goal <= GOAL_MAX:
            raise InputError(f"the goal must be an integer from 1 to {GOAL_MAX}, got {self.goal}")
        if not isinstance(self.sides, int) or not 2 <= self.sides <= SIDES_MAX:
            raise InputError(f"the die must have 2 to {SIDES_MAX} sides, got {self.sides}")

    def describe(self) -> dict[str, Any]:
        """The parameters as plain JSON-ready data."""
        return {"goal": self.goal, "sides": self.sides}


class PigGame:
    """Two-player Pig written to the engine's game protocol (see the module docstring)."""

    def __init__(self, rules: PigRules) -> None:
        self.rules = rules
        g, k = rules.goal, rules.sides
        self._g = g
        self._q = 1.0 / k
        self._steps = tuple(2 * r for r in range(2, k + 1))
        self._terminals = {WIN_FIRST: Terminal(1.0), WIN_SECOND: Terminal(0.0)}
        # per (p, m, o): (code of the opponent's turn start with m banked, 2*(G - m),
        # the mover's win terminal, p)
        table = []
        for p in (0, 1):
            for m in range(g):
                for o in range(g):
                    swap = (((1 - p) * g + o) * g + m) * g
                    table.append((swap, 2 * (g - m), WIN_FIRST if p == 0 else WIN_SECOND, p))
        self._table = table

    def initial_state(self) -> int:
        """The first player's first roll: both scores 0."""
        return 1

    def node(self, state: int) -> Terminal | Chance | Decision:
        """The node of an integer state (see the module docstring)."""
        if state < 0:
            return self._terminals[state]
        code = state >> 1
        g = self._g
        k = code % g
        swap, room, win, p = self._table[code // g]
        if state & 1:
            q = self._q
            two = state - 1
            room -= 2 * k  # rolling r wins when 2r >= room
            outcomes = [(q, 0.0, 2 * swap + 1)]
            outcomes += [(q, 0.0, two + r2 if r2 < room else win) for r2 in self._steps]
            return Chance(outcomes)
        return Decision(((HOLD, 0.0, 2 * (swap + k * g) + 1), (ROLL, 0.0, state + 1)), p)


def encode(goal: int, mover: int, me: int, opponent: int, turn: int, chance: bool) -> int:
    """The integer engine state of a position (no range checks); see the module docstring."""
    return 2 * (((mover * goal + me) * goal + opponent) * goal + turn) + int(chance)


@dataclass
class PigSolution:
    """Solved Pig: values are the first player's win probability at every node."""

    rules: PigRules
    graph: CompiledGame
    solution: Solution
    policy: np.ndarray
    compile_seconds: float
    solve_seconds: float

    @property
    def value(self) -> float:
        """Probability that the first player wins under mutual optimal play."""
        return self.solution.value

    def _state_value(self, state: int) -> float:
        return float(self.solution.values[self.graph.state_id(state)])

    def win_probability(self, me: int, opponent: int, turn: int = 0) -> float:
        """Probability that the player to move wins (optimal play on both sides)."""
        g = self.rules.goal
        if me + turn >= g:
            return 1.0
        return self._state_value(encode(g, 0, me, opponent, turn, turn == 0))

    def action_values(self, me: int, opponent: int, turn: int) -> dict[str, float]:
        """Win probability of the player to move for each legal action (roll; hold if turn > 0).

        InputError if the position cannot occur under these rules.
        """
        try:
            return self._action_values(me, opponent, turn)
        except InputError:
            raise InputError(
                f"'me {me} | opponent {opponent} | turn {turn}' cannot occur with a "
                f"{self.rules.sides}-sided die and goal {self.rules.goal}"
            ) from None

    def _action_values(self, me: int, opponent: int, turn: int) -> dict[str, float]:
        g, q = self.rules.goal, 1.0 / self.rules.sides
        if me + turn >= g:  # already at the goal: holding wins; rolling risks a 1
            bust = 1.0 - self.win_probability(opponent, me, 0)
            return {HOLD: 1.0, ROLL: q * bust + (1.0 - q)}
        roll = self._state_value(encode(g, 0, me, opponent, turn, True))
        if turn == 0:
            return {ROLL: roll}
        hold = 1.0 - self.win_probability(opponent, me + turn, 0)
        return {HOLD: hold, ROLL: roll}

    def decision_table(self) -> tuple[np.ndarray, np.ndarray]:
        """(hold, value) arrays indexed [me, opponent, turn] for the player to move.

        ``hold`` is 1 where holding is optimal, 0 where rolling is, -1 where no decision
        exists (turn 0 or 1, or me + turn >= goal); ``value`` is the mover's win
        probability after deciding (nan where no decision exists).
        """
        g = self.graph
        n = self.rules.goal
        decisions = np.flatnonzero(g.kind == 2)
        codes = np.fromiter((g.states[s] for s in decisions), dtype=np.int64) >> 1
        k = codes % n
        o = (codes // n) % n
        m = (codes // (n * n)) % n
        p = codes // (n * n * n)
        first = p == 0
        hold = np.full((n, n, n), -1, dtype=np.int8)
        value = np.full((n, n, n), np.nan)
        d = decisions[first]
        hold[m[first], o[first], k[first]] = (self.policy[d] == g.start[d]).astype(np.int8)
        value[m[first], o[first], k[first]] = self.solution.values[d]
        return hold, value

    def boundary(self) -> tuple[np.ndarray, int]:
        """Hold-from turn totals indexed [me, opponent] and the number of exceptions.

        ``hold_from[m, o]`` (points) is the smallest turn total at which holding is
        optimal for a mover with m banked against o (``goal - m`` when the mover should
        roll until reaching the goal); nan where a score of 1 makes the pair impossible.
        Exceptions count the larger turn totals (m, o, turn) where rolling is optimal
        again (0 when every row is a pure threshold).
        """
        hold, _ = self.decision_table()
        n = self.rules.goal
        ks = np.arange(n)[None, None, :]
        first_hold = np.where(hold == 1, ks, n).min(axis=2)
        me = np.arange(n)[:, None]
        hold_from = np.minimum(first_hold, n - me).astype(np.float64)
        exceptions = int(((hold == 0) & (ks > hold_from[:, :, None])).sum())
        if n > 1:
            hold_from[1, :] = np.nan
            hold_from[:, 1] = np.nan
        return hold_from, exceptions


def solve_pig(rules: PigRules, *, tolerance: float | None = None) -> PigSolution:
    """Compile and solve Pig: P(first player wins) at every node and the optimal policy.

    ``tolerance`` (optional) overrides the engine's value-iteration tolerance.
    """
    t0 = time.perf_counter()
    graph = compile_game(PigGame(rules))
    t1 = time.perf_counter()
    kwargs = {} if tolerance is None else {"tolerance": tolerance}
    solution = solve(graph, Objective("win"), **kwargs)
    policy = extract_policy(solution)
    t2 = time.perf_counter()
    return PigSolution(rules, graph, solution, policy, t1 - t0, t2 - t1)


# --- positions ------------------------------------------------------------------------

POSITION_VALUE_RE = re.compile(r"^-?\d+$")


@dataclass(frozen=True)
class PigPosition:
    """A position from the mover's point of view: banked points and the turn total."""

    me: int
    opponent: int
    turn: int = 0

    def text(self) -> str:
        """``me 41 | opponent 49 | turn 22``."""
        return f"me {self.me} | opponent {self.opponent} | turn {self.turn}"


def parse_position(rules: PigRules, text: str) -> PigPosition:
    """Parse ``me 41 | opponent 49 | turn 22`` (turn optional); InputError if impossible."""
    example = "me 41 | opponent 49 | turn 22"
    fields: dict[str, int] = {}
    for key, value in split_fields(
        text, ("me", "opponent", "turn"), example, {"opp": "opponent"}
    ).items():
        if POSITION_VALUE_RE.match(value) is None:
            raise InputError(f"cannot read '{key} {value}': write e.g. '{example}'")
        fields[key] = int(value)
    for key in ("me", "opponent"):
        if key not in fields:
            raise InputError(f"the position needs '{key} N', e.g. 'me 41 | opponent 49 | turn 22'")
    pos = PigPosition(fields["me"], fields["opponent"], fields.get("turn", 0))
    g = rules.goal
    for key, v in (("me", pos.me), ("opponent", pos.opponent), ("turn", pos.turn)):
        if v < 0:
            raise InputError(f"{key} must be >= 0, got {v}")
    for key, v in (("me", pos.me), ("opponent", pos.opponent)):
        if v >= g:
            raise InputError(f"{key} {v} has reached the goal {g}: the game is over")
        if v == 1:
            raise InputError(f"{key} 1 cannot occur: a turn banks 0 or at least 2 points")
    if pos.turn == 1:
        raise InputError("turn 1 cannot occur: a 1 ends the turn, other rolls add 2 or more")
    return pos


# --- advice contract (diceopt.advice) ---------------------------------------------------

VARIANTS = {
    "goal-100": "first to 100 points, six-sided die (Neller & Presser 2004)",
    "goal-50": "first to 50 points, six-sided die",
    "goal-20": "first to 20 points, six-sided die",
}
POSITION_EXAMPLE = "me 41 | opponent 49 | turn 22"
VARIANT_RE = re.compile(r"^goal-(\d+)(?:-d(\d+))?$")
_SOLVED: dict[PigRules, PigSolution] = {}


def rules_for_variant(variant: str | None) -> PigRules:
    """Rules of a variant id ``goal-G`` or ``goal-G-dK`` (K-sided die); None = goal-100."""
    text = (variant or "goal-100").strip().lower()
    m = VARIANT_RE.match(text)
    if m is None:
        raise InputError(f"unknown pig variant {variant!r}; use goal-G or goal-G-dK, e.g. goal-100")
    return PigRules(goal=int(m.group(1)), sides=int(m.group(2) or 6))


def solved(rules: PigRules) -> PigSolution:
    """The solution of ``rules``, solved once per process."""
    if rules not in _SOLVED:
        _SOLVED[rules] = solve_pig(rules)
    return _SOLVED[rules]


def advise(position: str, variant: str | None = None) -> list[ActionAdvice]:
    """Hold and roll with the mover's win probability (probability), best first."""
    rules = rules_for_variant(variant)
    pos = parse_position(rules, position)
    values = solved(rules).action_values(pos.me, pos.opponent, pos.turn)
    best = max(values.values())
    ranked = sorted(values.items(), key=lambda kv: -kv[1])
    return [ActionAdvice(a, v, max(0.0, best - v)) for a, v in ranked]


def parse_action(text: str) -> str:
    """``hold`` or ``roll`` (also ``h`` / ``r``)."""
    word = text.strip().lower()
    if word in (HOLD, "h"):
        return HOLD
    if word in (ROLL, "r"):
        return ROLL
    raise InputError(f"unknown action {text.strip()!r}: type 'roll' or 'hold'")


def step(
    rules: PigRules, pos: PigPosition, action: str, rng: np.random.Generator
) -> tuple[PigPosition, bool, int | None]:
    """Play one action: (new position from the next mover's view, game over, die rolled).

    After a hold or a 1 the turn passes and the new position is the opponent's view. When
    the mover reaches the goal the game is over and the position is the winner's view.
    """
    action = parse_action(action)
    if pos.me + pos.turn >= rules.goal:
        if action == HOLD:
            return PigPosition(pos.me + pos.turn, pos.opponent, 0), True, None
    if action == HOLD:
        if pos.turn == 0:
            raise InputError("a turn starts with a roll: you cannot hold with turn total 0")
        return PigPosition(pos.opponent, pos.me + pos.turn, 0), False, None
    die = int(rng.integers(1, rules.sides + 1))
    if die == 1:
        return PigPosition(pos.opponent, pos.me, 0), False, die
    new = PigPosition(pos.me, pos.opponent, pos.turn + die)
    if new.me + new.turn >= rules.goal:
        return PigPosition(new.me + new.turn, new.opponent, 0), True, die
    return new, False, die


def apply(
    position: str, action: str, variant: str | None = None, rng: np.random.Generator | None = None
) -> tuple[str, bool]:
    """Play ``hold`` or ``roll`` (die rolled with ``rng``); the new position and game over.

    The returned position is from the next mover's point of view (``me`` is always the
    player to move); when the game is over it is the winner's final score as ``me``.
    """
    rules = rules_for_variant(variant)
    pos = parse_position(rules, position)
    rng = rng if rng is not None else np.random.default_rng()
    new, over, _ = step(rules, pos, action, rng)
    return new.text(), over


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


def main_job() -> None:
    """``make run`` section: the published Pig figure, reproduced."""
    rules = PigRules()
    sol = solve_pig(rules)
    print("== Pig (goal 100, six-sided die), two players, each maximising P(win) ==")
    print(f"first player's win probability under optimal play: {sol.value:.9f}")
    print("(Neller & Presser 2004 publish about 0.5306)")
    print(
        f"{sol.graph.num_states} nodes; compile {sol.compile_seconds:.2f} s, value iteration "
        f"{sol.solve_seconds:.2f} s ({sol.solution.sweeps} sweeps)"
    )
