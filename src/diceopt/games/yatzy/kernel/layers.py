"""The turn-start states of Yatzy, layer by layer: what the solvers iterate over.

Role: the reachable turn-start states ``(mask, flag, upper)`` of a variant grouped by
layer (number of filled categories), as flat arrays the kernels read; shared by the
backward solve (:mod:`diceopt.games.yatzy.kernel.solve`), saved rerolls, targets and the
distribution.

1. Reachable filled masks per layer (:func:`layer_masks`; forced order: one per layer).
2. Per subset of the filled upper categories, the reachable capped upper totals
   (:func:`upper_lanes`) and which of them to solve: totals from which the bonus is out
   of reach share one value, so one is solved and the others copied (:func:`upper_plan`).
3. A layer's states and copies as flat arrays (:func:`iter_layer_states`, one layer in
   memory at a time).
4. The most points still to come from turn-start states (:func:`max_to_come`): the
   targets' k range, the distribution's row lengths are bounded by it.

Performance: vectorised numpy (no Python loop over states).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from diceopt.games.yatzy.rulebook.rules import YatzyRules, reachable_upper_totals


def upper_lanes(faces: np.ndarray, dice: int, threshold: int) -> tuple[np.ndarray, np.ndarray]:
    """Reachable capped upper totals for every subset of the upper categories.

    ``faces[i]`` is the face index of upper category i (rank order). Returns ``lanes_n``
    (count per subset) and ``lanes_u`` (the totals, sorted, padded with -1), indexed by
    the subset as a bit mask over ranks.
    """
    m = len(faces)
    lanes_n = np.zeros(1 << m, dtype=np.int64)
    lanes_u = np.full((1 << m, threshold + 1), -1, dtype=np.int64)
    for s in range(1 << m):
        vals = reachable_upper_totals([faces[i] for i in range(m) if s >> i & 1], dice, threshold)
        lanes_n[s] = len(vals)
        lanes_u[s, : len(vals)] = vals
    return lanes_n, lanes_u


def reachable_uppers(rules: YatzyRules, mask: int) -> list[int]:
    """Upper totals (capped) reachable with the filled upper categories of ``mask``."""
    faces = [f for c, f in enumerate(rules.upper_face) if f >= 0 and mask >> c & 1]
    return reachable_upper_totals(faces, rules.dice, rules.bonus_threshold)


@dataclass
class LayerStates:
    """The states one layer solves (mask, flag, upper per lane) and the copies to make.

    ``copy_dst`` / ``copy_src``: flat indices into the table of states whose value equals
    that of a solved state (upper totals from which the bonus is out of reach).
    """

    mask: np.ndarray
    flag: np.ndarray
    upper: np.ndarray
    copy_dst: np.ndarray
    copy_src: np.ndarray


def layer_masks(rules: YatzyRules) -> list[np.ndarray]:
    """Reachable filled masks per layer (number of filled categories), int64 arrays."""
    c = rules.num_categories
    if rules.forced_order:
        return [np.array([(1 << j) - 1], dtype=np.int64) for j in range(c + 1)]
    allm = np.arange(1 << c, dtype=np.int64)
    pop = np.zeros(1 << c, dtype=np.int64)
    for b in range(c):
        pop += (allm >> b) & 1
    return [allm[pop == j] for j in range(c + 1)]


class UpperPlan(NamedTuple):
    """Per subset of the upper categories (bit mask over their ranks): the upper totals to
    solve and, per reachable total, the solved total with the same value."""

    up_cats: list[int]  # category index of each upper category, in rank order
    solve_u: np.ndarray  # (subsets, T + 1) totals to solve, padded with -1
    solve_n: np.ndarray  # (subsets,) how many
    rep: np.ndarray  # (subsets, T + 1) representative solved total, -1 if unreachable
    # the same, row by row without padding (for a layer's states, ``_ragged``): the
    # totals to solve, and the reachable totals that copy another's value (ascending)
    solve_flat: np.ndarray  # solve_u's rows, concatenated
    solve_off: np.ndarray  # (subsets,) where each row starts
    copy_u: np.ndarray  # totals whose value is their representative's, concatenated
    copy_rep: np.ndarray  # that representative
    copy_n: np.ndarray  # (subsets,) how many
    copy_off: np.ndarray  # (subsets,) where each row starts


def upper_plan(rules: YatzyRules) -> UpperPlan:
    c = rules.num_categories
    T = rules.bonus_threshold
    up_cats = [i for i in range(c) if rules.upper_face[i] >= 0]
    faces = rules.upper_face[up_cats]
    lanes_n, lanes_u = upper_lanes(faces, rules.dice, T)
    nsub = len(lanes_n)
    max_left = np.zeros(nsub, dtype=np.int64)  # most upper points still possible
    for s in range(nsub):
        max_left[s] = sum(
            rules.dice * (int(faces[i]) + 1) for i in range(len(faces)) if not s >> i & 1
        )
    solve_u = np.full((nsub, T + 1), -1, dtype=np.int64)
    solve_n = np.zeros(nsub, dtype=np.int64)
    rep = np.full((nsub, T + 1), -1, dtype=np.int64)  # u -> solved u with the same value
    for s in range(nsub):
        us = lanes_u[s, : lanes_n[s]]
        alive = us + max_left[s] >= T
        dead = us[~alive]
        chosen = list(us[alive]) + ([int(dead[0])] if len(dead) else [])
        solve_n[s] = len(chosen)
        solve_u[s, : len(chosen)] = chosen
        rep[s, us] = np.where(alive, us, dead[0]) if len(dead) else us
    copies = [np.flatnonzero((rep[s] >= 0) & (rep[s] != np.arange(T + 1))) for s in range(nsub)]
    copy_n = np.array([len(c) for c in copies], dtype=np.int64)
    copy_u = np.concatenate(copies).astype(np.int64)
    return UpperPlan(
        up_cats,
        solve_u,
        solve_n,
        rep,
        solve_flat=solve_u[solve_u >= 0],  # row by row: each row's totals come first
        solve_off=np.cumsum(solve_n) - solve_n,
        copy_u=copy_u,
        copy_rep=rep[np.repeat(np.arange(nsub), copy_n), copy_u],
        copy_n=copy_n,
        copy_off=np.cumsum(copy_n) - copy_n,
    )


def upper_canon(rules: YatzyRules) -> tuple[np.ndarray, np.ndarray]:
    """``(sub, rep)``: ``sub[mask]``, the filled upper categories of every filled mask as a
    bit mask over their ranks (int64, 2^C), and ``rep[sub, u]`` (:class:`UpperPlan`), the
    upper total of the state that stands for (mask, flag, u): u itself, or for a total from
    which the bonus is out of reach the one solved in its place; -1 where u is unreachable.
    The state (mask, flag, u) is listed, or copied, iff ``rep[sub[mask], u] >= 0`` (and
    its flag and mask are those of a layer)."""
    plan = upper_plan(rules)
    masks = np.arange(1 << rules.num_categories, dtype=np.int64)
    sub = np.zeros(masks.size, dtype=np.int64)
    for rank, cat in enumerate(plan.up_cats):
        sub |= ((masks >> cat) & 1) << rank
    return sub, plan.rep


def _ragged(flat: np.ndarray, off: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``flat[off[i] : off[i] + n[i]]`` for every i, concatenated."""
    return flat[np.arange(int(n.sum())) + np.repeat(off - (np.cumsum(n) - n), n)]


def _layer(rules: YatzyRules, masks: np.ndarray, plan: UpperPlan) -> LayerStates:
    """The states of one layer (its filled masks) and their equal-value copies."""
    T = rules.bonus_threshold
    yz = rules.yahtzee_category
    sub = np.zeros(masks.size, dtype=np.int64)
    for rank, cat in enumerate(plan.up_cats):
        sub |= ((masks >> cat) & 1) << rank
    flags_list = [np.zeros(masks.size, dtype=np.int64)]
    mask_list = [masks]
    sub_list = [sub]
    if rules.flags == 2 and yz >= 0:
        has = ((masks >> yz) & 1) == 1
        mask_list.append(masks[has])
        flags_list.append(np.ones(int(has.sum()), dtype=np.int64))
        sub_list.append(sub[has])
    m_all = np.concatenate(mask_list)
    f_all = np.concatenate(flags_list)
    s_all = np.concatenate(sub_list)
    n = plan.solve_n[s_all]
    st_mask = np.repeat(m_all, n)
    st_flag = np.repeat(f_all, n)
    st_u = _ragged(plan.solve_flat, plan.solve_off[s_all], n)
    # copies: every reachable u whose representative differs from itself
    cn = plan.copy_n[s_all]
    row = np.repeat((m_all * rules.flags + f_all) * (T + 1), cn)
    off = plan.copy_off[s_all]
    dst = row + _ragged(plan.copy_u, off, cn)
    src = row + _ragged(plan.copy_rep, off, cn)
    return LayerStates(st_mask, st_flag, st_u, dst, src)


def iter_layer_states(
    rules: YatzyRules, reverse: bool = False, within: int = 0
) -> Iterator[LayerStates]:
    """The layers of :func:`layer_states` one at a time (last layer first if ``reverse``),
    so that only one layer's state arrays are held (Maxi Yatzy: up to ~7 million states).
    ``within``: only the states whose filled mask contains every box of ``within`` (those
    a game from a position with that mask can reach; the layers before it are empty)."""
    plan = upper_plan(rules)
    masks = layer_masks(rules)
    order = range(len(masks) - 1, -1, -1) if reverse else range(len(masks))
    for j in order:
        yield _layer(rules, masks[j][(masks[j] & within) == within], plan)


def layer_states(rules: YatzyRules) -> list[LayerStates]:
    """For every layer, the states to solve and the equal-value copies (vectorised numpy)."""
    return list(iter_layer_states(rules))


def solve_backward(
    rules: YatzyRules,
    dtype: np.dtype,
    solve_layer: Callable[[int, LayerStates, np.ndarray], None],
    progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, int]:
    """A table's values ``V[mask, flag, upper]`` (``dtype``; NaN: unreachable), layer by
    layer, last turn first: the last layer is 0, ``solve_layer(j, states, V)`` writes the
    values of layer j's states (j categories filled) reading layer j + 1's, then their
    copies are filled in and ``progress(done, total)`` called. Returns V and the number
    of states valued."""
    c = rules.num_categories
    V = np.full((1 << c, rules.flags, rules.bonus_threshold + 1), np.nan, dtype=dtype)
    Vflat = V.reshape(-1)
    layers = iter_layer_states(rules, reverse=True)
    last = next(layers)  # every category filled: nothing more to score
    V[last.mask, last.flag, last.upper] = 0.0
    Vflat[last.copy_dst] = 0.0
    states = last.mask.size + last.copy_dst.size
    for j, st in zip(range(c - 1, -1, -1), layers, strict=True):
        solve_layer(j, st, V)
        Vflat[st.copy_dst] = Vflat[st.copy_src]
        states += st.mask.size + st.copy_dst.size
        if progress is not None:
            progress(c - j, c)
    return V, states


def count_states(rules: YatzyRules) -> int:
    """Number of reachable turn-start states (mask, flag, upper total)."""
    return int(sum(s.mask.size + s.copy_dst.size for s in iter_layer_states(rules)))


def max_to_come(rules: YatzyRules, mask: np.ndarray, flag: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Most points still to come from turn-start states (vectorised, points): every open
    category at its maximum, the upper bonus if those maxima still reach the threshold,
    and the Yahtzee bonus on every open turn that can earn it. P(>= k) is 0 above it."""
    cat_max = rules.category_max.astype(np.int64)
    T = rules.bonus_threshold
    out = np.zeros(mask.size, dtype=np.int64)
    up_left = np.zeros(mask.size, dtype=np.int64)
    n_open = np.zeros(mask.size, dtype=np.int64)
    for c in range(rules.num_categories):
        is_open = ((mask >> c) & 1) == 0
        out += np.where(is_open, cat_max[c], 0)
        n_open += is_open
        if rules.upper_face[c] >= 0:
            up_left += np.where(is_open, cat_max[c], 0)
    out += np.where((u < T) & (u + up_left >= T), rules.bonus, 0)
    if rules.upper_bonus:  # Kniffel: a further Kniffel in each open upper box
        for c in np.flatnonzero(rules.upper_face >= 0).tolist():
            out += np.where(((mask >> c) & 1) == 0, rules.upper_bonus, 0)
    if rules.tracks_yahtzee:
        yz_open = ((mask >> rules.yahtzee_category) & 1) == 0
        turns = np.where(flag == 1, n_open, np.where(yz_open, n_open - 1, 0))
        out += rules.yahtzee_bonus * np.maximum(turns, 0)
    return out
