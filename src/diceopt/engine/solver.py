"""Exact solution of a compiled game with the Bellman equation.

One kernel does both cases. The graph is split into strongly connected components,
solved successors first (a component only leads to components already solved). A node
on no cycle is updated once: on an acyclic graph this is exactly backward induction. The
nodes of a cyclic component are swept in depth-first postorder, updating values in place
(Gauss-Seidel value iteration), until no value changes by more than ``tolerance``
(relative to max(1, |value|); default 1e-15, i.e. machine precision), or until the
residual is below ``ACCEPT_RESIDUAL`` (1e-12) and has stopped shrinking for
``STALL_SWEEPS`` sweeps (rounding noise). A component that does not get there within
``max_sweeps`` raises SolveError naming the residual, so a solve never loops forever.
Iterating each component to convergence before the ones that depend on it costs far
fewer node updates than sweeping the whole graph again and again.

Objectives:
- ``expected``: expected total reward (points); decisions maximise it, or minimise it
  with ``Objective("expected", minimize=True)`` (lower is better, e.g. a golf score).
- ``exponential``: exponential utility with parameter theta; values are certainty
  equivalents in points, ``(1/theta) log E[exp(theta X)]`` at chance nodes, computed in
  the log domain. theta < 0 is risk-averse, theta > 0 risk-seeking, theta = 0 is
  ``expected`` exactly.
- ``win``: two players; values are win probabilities (a draw counts 1/2), each mover
  maximising its own.

Two-player games (see ``game.py``): with absolute values, decision nodes of ``player``
1 minimise player 0's value. In mover's-point-of-view games a hand-over edge (``flip``)
counts its successor as ``1 - v`` under ``win`` and ``-v`` under ``expected``; every
value is then that of the player to move. ``minimize`` reverses every decision.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba
import numpy as np

from diceopt.engine.compile import CompiledGame
from diceopt.errors import InputError, SolveError
from diceopt.interrupt import run_chunks

OBJECTIVES = ("expected", "exponential", "win")
ACCEPT_RESIDUAL = 1e-12
STALL_SWEEPS = 50
LARGE_COMPONENT = 1 << 15  # nodes of a cyclic component iterated in chunks of sweeps


@dataclass(frozen=True)
class Objective:
    """What a solve optimises: ``kind`` in OBJECTIVES, ``theta`` for exponential utility,
    ``minimize`` True when lower is better (every decision minimises)."""

    kind: str = "expected"
    theta: float = 0.0
    minimize: bool = False

    def __post_init__(self) -> None:
        if self.kind not in OBJECTIVES:
            raise InputError(
                f"unknown objective {self.kind!r}; choose from {', '.join(OBJECTIVES)}"
            )
        if not np.isfinite(self.theta):
            raise InputError(f"theta must be finite, got {self.theta}")

    @property
    def effective_theta(self) -> float:
        """theta used at chance nodes (0 unless the objective is exponential)."""
        return self.theta if self.kind == "exponential" else 0.0

    @property
    def handover_base(self) -> float:
        """b in ``b - v``, the value of a successor across a hand-over edge (1 for win)."""
        return 1.0 if self.kind == "win" else 0.0

    def check_game(self, game: CompiledGame) -> None:
        """InputError when the objective cannot solve ``game`` (hand-overs need a zero-sum
        objective: win or expected)."""
        if self.effective_theta != 0.0 and game.has_flips:
            raise InputError(
                "exponential utility is not zero-sum: a game with hand-over edges needs "
                "the win or expected objective"
            )


@dataclass
class Solution:
    """Values of every node of a game under an objective.

    ``values[s]`` is in the objective's units (points, certainty-equivalent points, or
    a win probability) and counts only what is still to come from node s.
    ``value`` is that of the initial state. ``sweeps`` is the largest number of sweeps
    any cyclic component needed (1 for backward induction); ``residual`` the largest
    final relative change in a cyclic component (0 for backward induction).
    """

    game: CompiledGame
    values: np.ndarray
    objective: Objective
    discount: float
    sweeps: int
    residual: float
    seconds: float

    @property
    def value(self) -> float:
        """Optimal value from the initial state."""
        return float(self.values[0])


def solve(
    game: CompiledGame,
    objective: Objective | None = None,
    *,
    discount: float = 1.0,
    tolerance: float = 1e-15,
    max_sweeps: int = 100_000,
    choice: np.ndarray | None = None,
) -> Solution:
    """Solve ``game`` exactly: backward induction where acyclic, value iteration on cycles.

    ``discount`` (optional, 0 < discount <= 1) multiplies the value of every successor.
    ``choice`` (optional) fixes the edge taken at each decision node (-1 = free), which
    turns the solve into exact evaluation of that policy. Ctrl-C stops it between two
    chunks of components, or of sweeps of a cyclic component of
    :data:`LARGE_COMPONENT` nodes or more (KeyboardInterrupt).
    """
    objective = objective or Objective()
    objective.check_game(game)
    if not 0.0 < discount <= 1.0:
        raise InputError(f"discount must be in (0, 1], got {discount}")
    if choice is None:
        choice = np.full(game.num_states, -1, dtype=np.int64)
    t0 = time.perf_counter()
    order, comp_start, cyclic = game.components()
    values = np.zeros(game.num_states, dtype=np.float64)
    found = [0, 0.0, -1]  # most sweeps, worst residual, failed component (-1: none)
    args = (
        game.kind, game.player, game.terminal_value, game.start, game.target, game.reward,
        game.prob, game.flip, objective.handover_base, objective.minimize,
        objective.effective_theta, discount, choice, values, tolerance, ACCEPT_RESIDUAL,
        STALL_SWEEPS,
    )  # fmt: skip

    def components(lo: int, hi: int) -> None:
        """Components lo .. hi - 1 in one numba call (their successors are solved)."""
        sweeps, residual, failed = _solve_components(
            order, comp_start[lo : hi + 1], cyclic[lo:hi], *args, max_sweeps
        )
        if failed >= 0:
            found[:] = [sweeps, residual, lo + failed]
        else:
            found[0], found[1] = max(found[0], sweeps), max(found[1], residual)

    def iterate(c: int) -> None:
        """One large cyclic component, its value iteration in chunks of sweeps."""
        carry = np.array([np.inf, 0.0, 0.0, np.inf])
        lo, hi = int(comp_start[c]), int(comp_start[c + 1])
        run_chunks(lambda _, until: _iterate(order, lo, hi, *args, until, carry), max_sweeps)
        sweeps, residual = int(carry[2]), float(carry[3])
        if not residual <= max(tolerance, ACCEPT_RESIDUAL):
            found[:] = [sweeps, residual, c]
        else:
            found[0], found[1] = max(found[0], sweeps), max(found[1], residual)

    # Ctrl-C stops a long solve between two chunks: of components, or of the sweeps of
    # a large cyclic component
    ncomp = comp_start.size - 1
    big = np.flatnonzero(cyclic & (np.diff(comp_start) >= LARGE_COMPONENT))
    at = 0
    for c in [*big.tolist(), ncomp]:
        if c > at:
            run_chunks(lambda lo, hi, at=at: components(at + lo, at + hi), c - at)
        if found[2] >= 0 or c == ncomp:
            break
        iterate(c)
        if found[2] >= 0:
            break
        at = c + 1
    sweeps, residual, failed = found
    if failed >= 0:
        raise SolveError(
            f"value iteration stopped after {sweeps} sweeps with residual {residual:.3g} "
            f"(tolerance {tolerance:g}): some policy may never end the game"
        )
    seconds = time.perf_counter() - t0
    return Solution(game, values, objective, discount, max(1, sweeps), residual, seconds)


@numba.njit(cache=True)
def _solve_components(
    order: np.ndarray,
    comp_start: np.ndarray,
    cyclic: np.ndarray,
    kind: np.ndarray,
    player: np.ndarray,
    terminal_value: np.ndarray,
    start: np.ndarray,
    target: np.ndarray,
    reward: np.ndarray,
    prob: np.ndarray,
    flip: np.ndarray,
    base: float,
    minimize: bool,
    theta: float,
    discount: float,
    choice: np.ndarray,
    values: np.ndarray,
    tolerance: float,
    accept: float,
    stall: int,
    max_sweeps: int,
) -> tuple[int, float, int]:
    """Every component successors first; (most sweeps, worst residual, failed component
    or -1)."""
    most, worst = 0, 0.0
    for c in range(comp_start.size - 1):
        lo, hi = comp_start[c], comp_start[c + 1]
        if not cyclic[c]:
            _sweep(
                order, lo, hi, kind, player, terminal_value, start, target, reward, prob,
                flip, base, minimize, theta, discount, choice, values,
            )  # fmt: skip
            continue
        carry = np.array([np.inf, 0.0, 0.0, np.inf])
        _iterate(
            order, lo, hi, kind, player, terminal_value, start, target, reward, prob, flip,
            base, minimize, theta, discount, choice, values, tolerance, accept, stall,
            max_sweeps, carry,
        )  # fmt: skip
        sweeps, residual = int(carry[2]), carry[3]
        if sweeps > most:
            most = sweeps
        if not residual <= max(tolerance, accept):
            return sweeps, residual, c
        if residual > worst:
            worst = residual
    return most, worst, -1


@numba.njit(cache=True)
def _iterate(
    order: np.ndarray, lo: int, hi: int, kind: np.ndarray, player: np.ndarray,
    terminal_value: np.ndarray, start: np.ndarray, target: np.ndarray, reward: np.ndarray,
    prob: np.ndarray, flip: np.ndarray, base: float, minimize: bool, theta: float,
    discount: float, choice: np.ndarray, values: np.ndarray, tolerance: float,
    accept: float, stall: int, until: int, carry: np.ndarray,
) -> bool:  # fmt: skip
    """Value iteration of the cyclic component ``order[lo:hi]`` on from ``carry`` = (best
    residual, its sweep, sweeps done, last residual; float64, updated), up to ``until``
    sweeps in all; True once it stopped (converged, or stalled at rounding noise)."""
    best, best_sweep, sweeps, residual = carry[0], int(carry[1]), int(carry[2]), carry[3]
    done = False
    while sweeps < until:
        residual = _sweep(
            order, lo, hi, kind, player, terminal_value, start, target, reward, prob,
            flip, base, minimize, theta, discount, choice, values,
        )  # fmt: skip
        sweeps += 1
        if residual <= tolerance:
            done = True
            break
        if residual < best:
            best, best_sweep = residual, sweeps
        elif best <= accept and sweeps - best_sweep >= stall:
            residual = best
            done = True
            break
    carry[0], carry[1], carry[2], carry[3] = best, best_sweep, sweeps, residual
    return done


@numba.njit(cache=True)
def _sweep(
    order: np.ndarray,
    lo: int,
    hi: int,
    kind: np.ndarray,
    player: np.ndarray,
    terminal_value: np.ndarray,
    start: np.ndarray,
    target: np.ndarray,
    reward: np.ndarray,
    prob: np.ndarray,
    flip: np.ndarray,
    base: float,
    minimize: bool,
    theta: float,
    discount: float,
    choice: np.ndarray,
    values: np.ndarray,
) -> float:
    """One in-place Bellman sweep over ``order[lo:hi]``; returns the largest relative change.

    An edge is worth ``reward + discount * w`` with ``w = values[target]``, or
    ``base - values[target]`` across a hand-over (``flip``).
    """
    residual = 0.0
    for i in range(lo, hi):
        s = order[i]
        k = kind[s]
        if k == 0:
            new = terminal_value[s]
        elif k == 1:
            if theta == 0.0:
                new = 0.0
                for e in range(start[s], start[s + 1]):
                    w = values[target[e]]
                    if flip[e]:
                        w = base - w
                    new += prob[e] * (reward[e] + discount * w)
            else:  # no hand-over edges here (Objective.check_game)
                top = -np.inf
                for e in range(start[s], start[s + 1]):
                    if prob[e] > 0.0:
                        x = theta * (reward[e] + discount * values[target[e]])
                        if x > top:
                            top = x
                acc = 0.0
                for e in range(start[s], start[s + 1]):
                    if prob[e] > 0.0:
                        acc += prob[e] * np.exp(
                            theta * (reward[e] + discount * values[target[e]]) - top
                        )
                new = (top + np.log(acc)) / theta
        else:
            c = choice[s]
            if c >= 0:
                w = values[target[c]]
                if flip[c]:
                    w = base - w
                new = reward[c] + discount * w
            else:
                minimise = (player[s] == 1) != minimize
                new = np.inf if minimise else -np.inf
                for e in range(start[s], start[s + 1]):
                    w = values[target[e]]
                    if flip[e]:
                        w = base - w
                    q = reward[e] + discount * w
                    if (q < new) if minimise else (q > new):
                        new = q
        diff = abs(new - values[s]) / max(1.0, abs(new))
        if not diff <= residual:  # also catches nan
            residual = diff if diff == diff else np.inf
        values[s] = new
    return residual
