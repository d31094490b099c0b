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

import math
import time
from dataclasses import dataclass
from functools import partial
from typing import TypedDict

from diceopt.engine.compile import CompiledGame
from diceopt.errors import InputError, SolveError
from diceopt.interrupt import run_chunks
from diceopt.lazy import numpy as np

OBJECTIVES = ("expected", "exponential", "win")
ACCEPT_RESIDUAL = 1e-12
STALL_SWEEPS = 50
LARGE_COMPONENT = 1 << 15  # nodes of a cyclic component iterated in chunks of sweeps


class SolveOptions(TypedDict, total=False):
    """The keyword options of :func:`solve` that callers pass through (same meaning)."""

    discount: float
    tolerance: float
    max_sweeps: int


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
        if not math.isfinite(self.theta):
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


def bellman_problem(
    game: CompiledGame,
    objective: Objective,
    discount: float,
    values: np.ndarray,
    choice: np.ndarray | None = None,
) -> tuple:
    """The kernels' Bellman problem (``diceopt.engine.kernels.Problem``): the graph's
    arrays, the objective, the fixed choices (default none: the kernels that read them
    see an empty array) and ``values`` (float64, the kernels' output)."""
    free = np.empty(0, dtype=np.int64) if choice is None else choice
    return (
        game.kind, game.player, game.terminal_value, game.start, game.target, game.reward,
        game.prob, game.flip, objective.handover_base, objective.minimize,
        objective.effective_theta, discount, free, values,
    )  # fmt: skip


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
    from diceopt.engine.kernels import iterate_component, solve_components

    found: list[float] = [0, 0.0, -1]  # most sweeps, worst residual, failed component (-1: none)
    problem = bellman_problem(game, objective, discount, values, choice)
    args = (problem, tolerance, ACCEPT_RESIDUAL, STALL_SWEEPS)

    def components(lo: int, hi: int, at: int = 0) -> None:
        """Components at + lo .. at + hi - 1 in one numba call (their successors are solved)."""
        lo, hi = at + lo, at + hi
        sweeps, residual, failed = solve_components(
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
        run_chunks(
            lambda _, until: iterate_component(order, lo, hi, *args, until, carry), max_sweeps
        )
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
            run_chunks(partial(components, at=at), c - at)
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
    return Solution(game, values, objective, discount, max(1, int(sweeps)), residual, seconds)
