"""The engine's numba kernels: graph checks and orders, the Bellman sweeps, policies.

The only module of the engine that imports numba: ``compile``, ``solver`` and ``policy``
import it inside the functions that run a kernel, so that the engine's types (games,
compiled graphs, objectives, solutions) load without numba, e.g. to build the command
line or to read a stored solution. Node kinds are numbers here: 0 terminal, 1 chance,
2 decision (``diceopt.engine.compile``).
"""

from __future__ import annotations

import numba
import numpy as np

# A Bellman problem, the argument of the sweeps: the compiled graph's arrays (kind, player,
# terminal_value, start, target, reward, prob, flip), the objective (handover base,
# minimize, theta, discount), the fixed choices (edge per node, -1 free) and the values
# (float64, updated in place). Built by ``diceopt.engine.solver.bellman_problem``.
Problem = tuple


@numba.njit(cache=True)
def first_bad_chance(
    kind: np.ndarray, start: np.ndarray, prob: np.ndarray, tol: float
) -> tuple[int, int]:
    """First chance node with an invalid probability (reason 1) or a sum other than 1
    (reason 2); (-1, 0) when all are fine."""
    for s in range(kind.size):
        if kind[s] != 1:
            continue
        total = 0.0
        for e in range(start[s], start[s + 1]):
            p = prob[e]
            if not (p >= 0.0 and np.isfinite(p)):
                return s, 1
            total += p
        if abs(total - 1.0) > tol:
            return s, 2
    return -1, 0


@numba.njit(cache=True, inline="always")
def next_child(v: int, start: np.ndarray, target: np.ndarray, next_edge: np.ndarray) -> int:
    """A depth-first walk's next step from node v: the target of v's next unexplored edge
    (``next_edge[v]`` moves past it), or -1 when every edge of v has been explored."""
    e = next_edge[v]
    if e < start[v + 1]:
        next_edge[v] = e + 1
        return target[e]
    return -1


@numba.njit(cache=True)
def postorder(start: np.ndarray, target: np.ndarray, n: int) -> tuple[np.ndarray, bool]:
    """Iterative DFS from node 0: postorder of reachable nodes and acyclicity."""
    color = np.zeros(n, dtype=np.int8)  # 0 new, 1 on stack, 2 done
    next_edge = start[:-1].copy()
    stack = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    count = 0
    acyclic = True
    for root in range(n):
        if color[root] != 0:
            continue
        top = 0
        stack[0] = root
        color[root] = 1
        while top >= 0:
            v = stack[top]
            w = next_child(v, start, target, next_edge)
            if w >= 0:
                if color[w] == 0:
                    color[w] = 1
                    top += 1
                    stack[top] = w
                elif color[w] == 1:
                    acyclic = False
            else:
                color[v] = 2
                order[count] = v
                count += 1
                top -= 1
    return order, acyclic


@numba.njit(cache=True, inline="always")
def discover(
    w: int,
    number: int,
    index: np.ndarray,
    low: np.ndarray,
    stack: np.ndarray,
    sp: int,
    on_stack: np.ndarray,
) -> None:
    """Tarjan's step into a new node w: its discovery ``number`` (index and low link),
    and onto the component stack at ``sp`` (the caller moves ``number`` and ``sp`` on)."""
    index[w] = number
    low[w] = number
    stack[sp] = w
    on_stack[w] = True


@numba.njit(cache=True)
def strong_components(
    start: np.ndarray, target: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tarjan's algorithm, iterative: components successors first, postorder inside."""
    index = np.full(n, -1, dtype=np.int64)
    low = np.zeros(n, dtype=np.int64)
    on_stack = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    call = np.empty(n, dtype=np.int64)
    next_edge = start[:-1].copy()
    comp = np.empty(n, dtype=np.int64)
    by_post = np.empty(n, dtype=np.int64)
    counter, sp, ncomp, done = 0, 0, 0, 0
    for root in range(n):
        if index[root] >= 0:
            continue
        top = 0
        call[0] = root
        discover(root, counter, index, low, stack, sp, on_stack)
        counter += 1
        sp += 1
        while top >= 0:
            v = call[top]
            w = next_child(v, start, target, next_edge)
            if w >= 0:
                if index[w] < 0:
                    discover(w, counter, index, low, stack, sp, on_stack)
                    counter += 1
                    sp += 1
                    top += 1
                    call[top] = w
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
            else:
                by_post[done] = v
                done += 1
                if low[v] == index[v]:
                    while True:
                        sp -= 1
                        w = stack[sp]
                        on_stack[w] = False
                        comp[w] = ncomp
                        if w == v:
                            break
                    ncomp += 1
                top -= 1
                if top >= 0:
                    u = call[top]
                    if low[v] < low[u]:
                        low[u] = low[v]
    size = np.zeros(ncomp + 1, dtype=np.int64)
    for v in range(n):
        size[comp[v] + 1] += 1
    comp_start = np.cumsum(size)
    fill = comp_start[:-1].copy()
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        v = by_post[i]
        c = comp[v]
        order[fill[c]] = v
        fill[c] += 1
    cyclic = np.zeros(ncomp, dtype=np.bool_)
    for c in range(ncomp):
        if comp_start[c + 1] - comp_start[c] > 1:
            cyclic[c] = True
    for v in range(n):
        for e in range(start[v], start[v + 1]):
            if target[e] == v:
                cyclic[comp[v]] = True
    return order, comp_start, cyclic


@numba.njit(cache=True)
def solve_components(
    order: np.ndarray,
    comp_start: np.ndarray,
    cyclic: np.ndarray,
    problem: Problem,
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
            sweep(order, lo, hi, problem)
            continue
        carry = np.array([np.inf, 0.0, 0.0, np.inf])
        iterate_component(order, lo, hi, problem, tolerance, accept, stall, max_sweeps, carry)
        sweeps, residual = int(carry[2]), carry[3]
        if sweeps > most:
            most = sweeps
        if not residual <= max(tolerance, accept):
            return sweeps, residual, c
        if residual > worst:
            worst = residual
    return most, worst, -1


@numba.njit(cache=True)
def iterate_component(
    order: np.ndarray,
    lo: int,
    hi: int,
    problem: Problem,
    tolerance: float,
    accept: float,
    stall: int,
    until: int,
    carry: np.ndarray,
) -> bool:
    """Value iteration of the cyclic component ``order[lo:hi]`` on from ``carry`` = (best
    residual, its sweep, sweeps done, last residual; float64, updated), up to ``until``
    sweeps in all; True once it stopped (converged, or stalled at rounding noise)."""
    best, best_sweep, sweeps, residual = carry[0], int(carry[1]), int(carry[2]), carry[3]
    done = False
    while sweeps < until:
        residual = sweep(order, lo, hi, problem)
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


@numba.njit(cache=True, inline="always")
def edge_value(
    e: int,
    target: np.ndarray,
    reward: np.ndarray,
    flip: np.ndarray,
    base: float,
    discount: float,
    values: np.ndarray,
) -> float:
    """Edge e's worth: ``reward + discount * w`` with ``w = values[target]``, or ``base -
    values[target]`` across a hand-over (``flip``)."""
    w = values[target[e]]
    if flip[e]:
        w = base - w
    return reward[e] + discount * w


@numba.njit(cache=True)
def sweep(order: np.ndarray, lo: int, hi: int, problem: Problem) -> float:
    """One in-place Bellman sweep over ``order[lo:hi]``; returns the largest relative change
    (an edge is worth :func:`edge_value`)."""
    (kind, player, terminal_value, start, target, reward, prob, flip) = problem[:8]
    (base, minimize, theta, discount, choice, values) = problem[8:]
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
                    new += prob[e] * edge_value(e, target, reward, flip, base, discount, values)
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
                new = edge_value(c, target, reward, flip, base, discount, values)
            else:
                minimise = (player[s] == 1) != minimize
                new = np.inf if minimise else -np.inf
                for e in range(start[s], start[s + 1]):
                    q = edge_value(e, target, reward, flip, base, discount, values)
                    if (q < new) if minimise else (q > new):
                        new = q
        diff = abs(new - values[s]) / max(1.0, abs(new))
        if not diff <= residual:  # also catches nan
            residual = diff if diff == diff else np.inf
        values[s] = new
    return residual


@numba.njit(cache=True)
def extract_policy_edges(problem: Problem, tol: float) -> np.ndarray:
    """The policy of the problem's ``values``: at each decision node the first edge within
    ``tol`` (relative) of the node's value, else the best edge; -1 at other nodes (the
    problem's ``choice`` is not read)."""
    kind, player, _, start, target, reward, _, flip = problem[:8]
    base, minimize, _, discount, _, values = problem[8:]
    policy = np.full(kind.size, -1, dtype=np.int64)
    for s in range(kind.size):
        if kind[s] != 2:
            continue
        minimise = (player[s] == 1) != minimize
        best = values[s]
        slack = tol * max(1.0, abs(best))
        top = start[s]
        qt = np.inf if minimise else -np.inf
        for e in range(start[s], start[s + 1]):
            q = edge_value(e, target, reward, flip, base, discount, values)
            gap = (q - best) if minimise else (best - q)
            if gap <= slack:
                policy[s] = e
                break
            if (q < qt) if minimise else (q > qt):
                top, qt = e, q
        if policy[s] < 0:  # values not converged at this node: take the best edge
            policy[s] = top
    return policy
