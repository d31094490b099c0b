"""Yatzy variants with saved rerolls (``YatzyRules.saved_rerolls``; Maxi: ``maxi-saved``).

Rule: each turn gives two rerolls; the ones a player does not use are added to a pool
that may be spent in any later turn (at most ``saved_cap`` in the pool when the variant
caps it). A turn-start state is ``(mask, flag, upper, s)``: the kernel's state and the
rerolls saved, ``s = 0 .. max_saved(j)`` with j categories filled (two per turn played).

Solve (:func:`solve_saved`): layer by layer, last turn first, like
:func:`~diceopt.games.yatzy.kernel.solve.solve_table`. Roll values with t rerolls left do not
depend on how many rerolls were saved, so one widget pass per ``(mask, flag, upper)``
with ``2 + max_saved(j)`` reroll levels gives the values for every s at once (the value
with s saved is the first-roll average at level 2 + s); writing with t rerolls left
leads to the next turn with ``min(t, cap)`` saved, so each level re-reads the next
layer's rows (:func:`~diceopt.games.yatzy.kernel.solve.solve_batch_saved`).

Table layout: one array per layer, ``values[lane, s]`` (points to come) over the layer's
solved ``(mask, flag, upper)`` lanes (upper totals from which the bonus is out of reach
share one lane, the kernel's representative): see :class:`SavedLayout` and
:class:`~diceopt.games.yatzy.kernel.turn.SavedLayer`. Only two layers are in memory while
solving; given :class:`LayerFiles` each finished layer is written out as it is solved
and read back when needed (the stored tables' layer files:
:mod:`diceopt.games.yatzy.stored.saved_files`, which also resume an interrupted solve),
so the advice reads one layer (the one after the position's) and never the whole table.
Expected points only (theta 0). The layers are solved in chunks of states, so Ctrl-C
stops a solve within a fraction of a second.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

import numpy as np

from diceopt.errors import InputError
from diceopt.games.yatzy.kernel.arrays import KernelArrays, kernel_arrays
from diceopt.games.yatzy.kernel.layers import layer_masks, upper_plan
from diceopt.games.yatzy.kernel.solve import (
    LANES,
    lane_buffers,
    solve_states_chunked,
    solve_states_saved,
)
from diceopt.games.yatzy.kernel.turn import SavedLayer
from diceopt.games.yatzy.kernel.widget import category_values, widget_detail
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.interrupt import Pace, interruptible


@dataclass
class SavedLayout:
    """Where every turn-start state of a saved-rerolls variant lives.

    Per layer j (categories filled): ``masks[j]`` (ascending), ``lanes[j]`` solved
    ``(mask, flag, upper)`` lanes, ``width(j)`` values per lane (s = 0 .. max_saved(j)).
    Lane of a state: ``moff[mask] + flag * nsolve[msub[mask]] + urank[msub[mask], u]``
    (u the upper total capped at the threshold); the flag-1 lanes of a mask follow its
    flag-0 lanes (American with the Yahtzee bonus, masks with the Yahtzee box filled).
    """

    rules: YatzyRules
    masks: list[np.ndarray]
    moff: np.ndarray
    msub: np.ndarray
    urank: np.ndarray
    nsolve: np.ndarray
    solve_u: np.ndarray
    nflags: np.ndarray
    lanes: list[int]
    reachable: list[int] = field(default_factory=list)

    def width(self, j: int) -> int:
        """Values per lane in layer j: rerolls saved 0 .. max_saved(j)."""
        return self.rules.max_saved(j) + 1

    def lane(self, mask: int, flag: int, upper: int) -> int:
        """The lane of a turn-start state in its layer, -1 if unreachable."""
        u = min(int(upper), self.rules.bonus_threshold)
        if u < 0 or not 0 <= flag < int(self.nflags[mask]):
            return -1
        sub = int(self.msub[mask])
        rank = int(self.urank[sub, u])
        if rank < 0:
            return -1
        return int(self.moff[mask]) + flag * int(self.nsolve[sub]) + rank

    def layer_states(self, j: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(mask, flag, upper)`` of every lane of layer j, in lane order (int64)."""
        masks = self.masks[j]
        sub = self.msub[masks]
        n = self.nsolve[sub]
        counts = n * self.nflags[masks]
        total = int(counts.sum())
        starts = np.cumsum(counts) - counts
        w = np.arange(total, dtype=np.int64) - np.repeat(starts, counts)
        nrep = np.repeat(n, counts)
        st_mask = np.repeat(masks, counts)
        st_flag = w // nrep
        st_u = self.solve_u[np.repeat(sub, counts), w % nrep]
        return st_mask, st_flag, st_u

    @property
    def solved_states(self) -> int:
        """Turn-start states ``(mask, flag, upper, s)`` solved (bonus-dead totals once)."""
        c = self.rules.num_categories
        return sum(self.lanes[j] * self.width(j) for j in range(c))

    @property
    def reachable_states(self) -> int:
        """Every reachable turn-start state ``(mask, flag, upper, s)``, the last layer's
        (game over) included."""
        return sum(n * self.width(j) for j, n in enumerate(self.reachable))


def saved_layout(rules: YatzyRules) -> SavedLayout:
    """The :class:`SavedLayout` of a variant (vectorised numpy; Maxi: 2^20 masks)."""
    c = rules.num_categories
    T = rules.bonus_threshold
    plan = upper_plan(rules)
    nsub = plan.solve_n.size
    allm = np.arange(1 << c, dtype=np.int64)
    msub = np.zeros(1 << c, dtype=np.int64)
    for rank, cat in enumerate(plan.up_cats):
        msub |= ((allm >> cat) & 1) << rank
    nflags = np.ones(1 << c, dtype=np.int64)
    yz = rules.yahtzee_category
    if rules.flags == 2 and yz >= 0:
        nflags += (allm >> yz) & 1
    urank = np.full((nsub, T + 1), -1, dtype=np.int64)
    reach_n = np.zeros(nsub, dtype=np.int64)
    for sub in range(nsub):
        where = {int(u): i for i, u in enumerate(plan.solve_u[sub, : plan.solve_n[sub]])}
        for u in range(T + 1):
            r = int(plan.rep[sub, u])
            if r >= 0:
                urank[sub, u] = where[r]
                reach_n[sub] += 1
    moff = np.zeros(1 << c, dtype=np.int64)
    masks = layer_masks(rules)
    lanes = []
    reachable = []
    for m in masks:
        counts = plan.solve_n[msub[m]] * nflags[m]
        moff[m] = np.cumsum(counts) - counts
        lanes.append(int(counts.sum()))
        reachable.append(int((reach_n[msub[m]] * nflags[m]).sum()))
    return SavedLayout(
        rules, masks, moff, msub, urank, plan.solve_n.copy(), plan.solve_u, nflags, lanes, reachable
    )


def _popcount(mask: int) -> int:
    return bin(int(mask)).count("1")


class LayerFiles(Protocol):
    """Where a solve writes its finished layers and reads them back (the stored tables'
    folder of layer files, :mod:`diceopt.games.yatzy.stored.saved_files`): ``start``
    before the first layer, ``write(j, values, meta)`` each finished layer j,
    ``read(j)`` a stored layer as (writable values, seconds spent up to it) to resume
    from, ``read_layer(j)`` a layer's values for reading (memory-mapped)."""

    def start(self) -> None: ...

    def write(self, j: int, values: np.ndarray, meta: dict) -> None: ...

    def read(self, j: int) -> tuple[np.ndarray, float]: ...

    def read_layer(self, j: int) -> np.ndarray: ...


class SavedTable:
    """A solved saved-rerolls variant: one value array per layer (see the module).

    ``layer(j)`` is ``values[lane, s]`` of layer j (in memory, or memory-mapped from its
    file on first use). ``seconds``: solve time; ``states``: solved turn-start states.
    """

    theta = 0.0

    def __init__(
        self,
        rules: YatzyRules,
        layout: SavedLayout,
        layers: list[np.ndarray | None],
        load: Callable[[int], np.ndarray] | None = None,
        seconds: float = 0.0,
        states: int = 0,
        dtype: str = "float32",
    ) -> None:
        self.rules = rules
        self.layout = layout
        self._layers = layers
        self._load = load
        self.seconds = seconds
        self.states = states
        self.dtype = np.dtype(dtype).name

    def layer(self, j: int) -> np.ndarray:
        """``values[lane, s]`` of layer j (points to come)."""
        if self._layers[j] is None:
            if self._load is None:
                raise RuntimeError(f"layer {j} was not kept")
            self._layers[j] = self._load(j)
        values = self._layers[j]
        assert values is not None
        return values

    def successor(self, j: int) -> SavedLayer:
        """Layer j as the kernels read it (the next layer of a turn in layer j - 1)."""
        lay = self.layout
        return SavedLayer(self.layer(j), lay.moff, lay.msub, lay.urank, lay.nsolve)

    @property
    def value(self) -> float:
        """Optimal value of the whole game from the first turn (points; nothing saved)."""
        return self.value_of(0, 0, 0, 0)

    def value_of(self, mask: int, flag: int, upper: int, saved: int) -> float:
        """Value of a turn-start state with ``saved`` rerolls saved (points to come); NaN
        if the state is unreachable."""
        j = _popcount(mask)
        lane = self.layout.lane(mask, flag, upper)
        if lane < 0 or not 0 <= saved < self.layout.width(j):
            return float("nan")
        return float(self.layer(j)[lane, saved])

    @cached_property
    def arrays64(self) -> KernelArrays:
        """Kernel arrays in float64 (for the scalar widget)."""
        return kernel_arrays(self.rules, np.float64)

    def widget(
        self, mask: int, flag: int, upper: int, levels: int = 2
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """``widget.widget_detail`` for a turn with ``levels`` rerolls (2 + saved), float64;
        its value is the turn-start value with ``levels - 2`` rerolls saved."""
        if not 0 <= levels <= self.rules.max_rerolls:
            raise InputError(f"a turn has at most {self.rules.max_rerolls} rerolls, got {levels}")
        V = self.successor(_popcount(mask) + 1)
        return widget_detail(mask, flag, upper, V, self.arrays64, 0.0, levels)

    def category_values(
        self, mask: int, flag: int, upper: int, roll: int, rerolls: int = 0
    ) -> np.ndarray:
        """Value of writing roll index ``roll`` into each category with ``rerolls`` left
        (they are saved for the next turn); NEG where not allowed."""
        V = self.successor(_popcount(mask) + 1)
        return category_values(mask, flag, upper, roll, V, self.arrays64, rerolls)


SolveLayer = Callable[[int, tuple[np.ndarray, np.ndarray, np.ndarray], SavedLayer, int], np.ndarray]
"""``solve_layer(j, (mask, flag, upper), V, width)``: the values ``res[i, s]`` (points to
come, s = 0 .. width - 1 rerolls saved) of layer j's lanes, reading the next layer ``V``
(read only): :func:`layer_solver` in this process, or split over Ray tasks
(:func:`diceopt.games.yatzy.commands.on_ray.saved_layer_ray`)."""


_A = np.ndarray


def saved_buffers(
    rules: YatzyRules, dt: np.dtype, lanes: int | None, nsaved: int
) -> tuple[tuple[_A, _A, _A, _A, _A], tuple[_A, _A]]:
    """Work arrays of :func:`~diceopt.games.yatzy.kernel.solve.solve_states_saved` for
    at most ``nsaved`` values per lane, one set per numba thread: ``(As, Ms, SRs, vecs,
    outs)`` (before ``K``) and ``(ADDs, IDXs)`` (after ``res``)."""
    As, Ms, SRs, vecs = lane_buffers(rules, dt, lanes, 3)
    nchunks, _, width = As.shape
    outs = np.empty((nchunks, nsaved, width), dtype=dt)
    ADDs = np.empty_like(SRs)
    IDXs = np.zeros(SRs.shape, dtype=np.int64)  # rows never written must index 0
    return (As, Ms, SRs, vecs, outs), (ADDs, IDXs)


def layer_solver(
    rules: YatzyRules, dt: np.dtype, lanes: int | None = None, pace: Pace | None = None
) -> SolveLayer:
    """The in-process :data:`SolveLayer`: every numba thread, in chunks of states so that
    Ctrl-C stops a layer between two (``pace``: shared by the layers of one solve)."""
    K = kernel_arrays(rules, dt)
    head, tail = saved_buffers(rules, dt, lanes, rules.max_saved(rules.num_categories - 1) + 1)
    As = head[0]
    align = As.shape[0] * As.shape[2]

    def solve_layer(
        j: int, states: tuple[np.ndarray, np.ndarray, np.ndarray], V: SavedLayer, width: int
    ) -> np.ndarray:
        res = np.empty((states[0].size, width), dtype=dt)
        solve_states_chunked(*states, solve_states_saved, (V, *head, K), tail, res, align, pace)
        return res

    return solve_layer


def solve_saved(
    rules: YatzyRules,
    *,
    dtype: str | np.dtype = "float32",
    files: LayerFiles | None = None,
    keep: bool = True,
    progress: Callable[[int, int], None] | None = None,
    lanes: int | None = None,
    resume: int | None = None,
    solve_layer: SolveLayer | None = None,
) -> SavedTable:
    """Solve a saved-rerolls variant exactly: the value of every turn-start state.

    ``dtype`` float32 (default) or float64. ``files``: write each finished layer there
    (:class:`LayerFiles`; the stored tables' folder of layer files) and, unless ``keep``,
    hold only two layers in memory (the table reads the others back from ``files``).
    ``resume``: the lowest layer already solved and stored in ``files`` (checked by
    their owner); the solve goes on from there. ``solve_layer``: how a layer is solved
    (:data:`SolveLayer`; default :func:`layer_solver`, in this process).
    ``progress(done, total)`` after each layer. Ctrl-C stops it within a fraction of a
    second (KeyboardInterrupt); the layers written so far are complete.
    """
    dt = np.dtype(dtype)
    if dt not in LANES:
        raise InputError(f"dtype must be float32 or float64, got {dtype}")
    if not rules.saved_rerolls:
        raise InputError(f"variant {rules.name} has no saved rerolls")
    t0 = time.perf_counter()
    lay = saved_layout(rules)
    c = rules.num_categories
    pace = Pace()
    if solve_layer is None:
        solve_layer = layer_solver(rules, dt, lanes, pace)
    layers: list[np.ndarray | None] = [None] * (c + 1)
    before = 0.0  # seconds of the layers solved by an earlier, interrupted run
    if files is not None:
        files.start()
    if resume is not None and files is not None and resume > 0:
        top = resume
        nxt, before = files.read(top)
    else:
        top = c
        nxt = np.zeros((lay.lanes[c], lay.width(c)), dtype=dt)  # game over: nothing to come
        if files is not None:
            files.write(c, nxt, {"seconds": 0.0})
    layers[top] = nxt
    with interruptible():
        for j in range(top - 1, -1, -1):
            V = SavedLayer(nxt, lay.moff, lay.msub, lay.urank, lay.nsolve)
            res = solve_layer(j, lay.layer_states(j), V, lay.width(j))
            if not keep:
                layers[j + 1] = None
            layers[j] = nxt = res
            if files is not None and j > 0:
                files.write(j, res, {"seconds": before + time.perf_counter() - t0})
            if progress is not None:
                progress(c - j, c)
    seconds = before + time.perf_counter() - t0
    states = lay.solved_states
    table = SavedTable(rules, lay, layers, None, seconds, states, dt.name)
    if files is not None:
        meta = {"seconds": seconds, "states": states, "value": table.value, "layers": c + 1}
        files.write(0, table.layer(0), meta)
        table._load = files.read_layer
    return table


def table_bytes(rules: YatzyRules, dtype: str | np.dtype = "float32") -> int:
    """Bytes of a saved-rerolls table's values in ``dtype`` (its layer files on disk, less
    their headers)."""
    lay = saved_layout(rules)
    values = sum(lay.lanes[j] * lay.width(j) for j in range(rules.num_categories + 1))
    return values * np.dtype(dtype).itemsize


def warm_up(dtype: str | np.dtype = "float32") -> float:
    """Compile (or load from numba's cache) the saved-rerolls solver and widget for
    ``dtype``; returns seconds. Solves a two-category six-dice variant."""
    from diceopt.games.yatzy.rulebook.variants import MAXI

    t0 = time.perf_counter()
    tiny = MAXI.reduced(("ones", "chance"), bonus_threshold=3, saved_rerolls=True)
    table = solve_saved(tiny, dtype=dtype)
    table.widget(0, 0, 0, 3)
    table.category_values(1, 0, 0, 0, 2)
    return time.perf_counter() - t0
