"""Yatzy variants with saved rerolls (``YatzyRules.saved_rerolls``; Maxi: ``maxi-saved``).

Rule: each turn gives two rerolls; the ones a player does not use are added to a pool
that may be spent in any later turn (at most ``saved_cap`` in the pool when the variant
caps it). A turn-start state is ``(mask, flag, upper, s)``: the kernel's state and the
rerolls saved, ``s = 0 .. max_saved(j)`` with j categories filled (two per turn played).

Solve (:func:`solve_saved`): layer by layer, last turn first, like
:func:`~diceopt.games.yatzy.solve.solve_table`. Roll values with t rerolls left do not
depend on how many rerolls were saved, so one widget pass per ``(mask, flag, upper)``
with ``2 + max_saved(j)`` reroll levels gives the values for every s at once (the value
with s saved is the first-roll average at level 2 + s); writing with t rerolls left
leads to the next turn with ``min(t, cap)`` saved, so each level re-reads the next
layer's rows (:func:`~diceopt.games.yatzy.solve.solve_batch_saved`).

Table layout: one array per layer, ``values[lane, s]`` (points to come) over the layer's
solved ``(mask, flag, upper)`` lanes (upper totals from which the bonus is out of reach
share one lane, the kernel's representative): see :class:`SavedLayout` and
:class:`~diceopt.games.yatzy.turn.SavedLayer`. Only two layers are in memory while
solving; with a directory each finished layer is written to its own table file
(``diceopt.storage`` format: checksum, atomic write) and memory-mapped when read back,
so the advice reads one layer (the one after the position's) and never the whole table.
Expected points only (theta 0).

Interrupted solves (:func:`get_saved`): the layers are solved in chunks of states, so
Ctrl-C stops a solve within a fraction of a second; the layers already written (each
complete, with its checksums) stay in the folder and the next solve resumes from them
once they pass their checks (:func:`prepare_folder`); anything else left in the folder
is removed. Each step is said in one line.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from diceopt import storage
from diceopt.errors import InputError
from diceopt.games.yatzy.arrays import KernelArrays, kernel_arrays
from diceopt.games.yatzy.layers import layer_masks, upper_plan
from diceopt.games.yatzy.rules import YatzyRules
from diceopt.games.yatzy.solve import LANES, lane_buffers, solve_states_chunked, solve_states_saved
from diceopt.games.yatzy.turn import SavedLayer
from diceopt.games.yatzy.widget import category_values, widget_detail
from diceopt.interrupt import Pace, interruptible

GAME = "yatzy"


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


def solve_saved(
    rules: YatzyRules,
    *,
    dtype: str | np.dtype = "float32",
    directory: str | Path | None = None,
    keep: bool = True,
    progress: Callable[[int, int], None] | None = None,
    lanes: int | None = None,
    resume: int | None = None,
) -> SavedTable:
    """Solve a saved-rerolls variant exactly: the value of every turn-start state.

    ``dtype`` float32 (default) or float64. ``directory``: write each finished layer to
    its file there (:func:`layers_dir`; the files are named by ``rules.file_key``)
    and, unless ``keep``, hold only two layers in memory (the table reads the others
    back memory-mapped). ``resume``: the lowest layer already solved and stored
    in ``directory`` (checked by :func:`finished_layers`); the solve goes on from there.
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
    K = kernel_arrays(rules, dt)
    c = rules.num_categories
    As, Ms, SRs, vecs = lane_buffers(rules, dt, lanes, 3)
    nchunks, _, width = As.shape
    outs = np.empty((nchunks, lay.width(c - 1), width), dtype=dt)
    ADDs = np.empty_like(SRs)
    IDXs = np.zeros(SRs.shape, dtype=np.int64)  # rows never written must index 0
    folder = None
    name = rules.file_key
    layers: list[np.ndarray | None] = [None] * (c + 1)
    before = 0.0  # seconds of the layers solved by an earlier, interrupted run
    if directory is not None:
        folder = Path(directory)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / _layer_file(0)).unlink(missing_ok=True)  # complete only once rewritten
    if resume is not None and folder is not None and resume > 0:
        top = resume
        key = _layer_key(name, top, dt.name, (lay.lanes[top], lay.width(top)))
        stored = storage.read_mapped(folder / _layer_file(top), key)
        nxt = np.array(stored.arrays["values"])  # writable, in memory: the kernels' type
        before = float(stored.header.get("seconds", 0.0))
    else:
        top = c
        nxt = np.zeros((lay.lanes[c], lay.width(c)), dtype=dt)  # game over: nothing to come
        if folder is not None:
            _write_layer(folder, name, c, nxt, {"seconds": 0.0})
    layers[top] = nxt
    align = nchunks * width
    pace = Pace()
    with interruptible():
        for j in range(top - 1, -1, -1):
            st_mask, st_flag, st_u = lay.layer_states(j)
            res = np.empty((st_mask.size, lay.width(j)), dtype=dt)
            V = SavedLayer(nxt, lay.moff, lay.msub, lay.urank, lay.nsolve)
            solve_states_chunked(
                st_mask, st_flag, st_u, solve_states_saved, (V, As, Ms, SRs, vecs, outs, K),
                (ADDs, IDXs), res, align, pace,
            )  # fmt: skip
            del st_mask, st_flag, st_u
            if not keep:
                layers[j + 1] = None
            layers[j] = nxt = res
            if folder is not None and j > 0:
                spent = before + time.perf_counter() - t0
                _write_layer(folder, name, j, res, {"seconds": spent})
            if progress is not None:
                progress(c - j, c)
    seconds = before + time.perf_counter() - t0
    states = lay.solved_states
    table = SavedTable(rules, lay, layers, None, seconds, states, dt.name)
    if folder is not None:
        meta = {"seconds": seconds, "states": states, "value": table.value, "layers": c + 1}
        _write_layer(folder, name, 0, table.layer(0), meta)
        table._load = _layer_loader(folder, rules, lay, dt.name)
    return table


def table_bytes(rules: YatzyRules, dtype: str | np.dtype = "float32") -> int:
    """Bytes of a saved-rerolls table's values in ``dtype`` (its layer files on disk, less
    their headers)."""
    lay = saved_layout(rules)
    values = sum(lay.lanes[j] * lay.width(j) for j in range(rules.num_categories + 1))
    return values * np.dtype(dtype).itemsize


# --- per-layer files -------------------------------------------------------------------


def layers_dir(rules: YatzyRules, dtype: str = "float32", directory: str | None = None) -> Path:
    """The folder of a saved-rerolls table's layer files in the cache directory (named by
    ``rules.file_key``)."""
    dt = np.dtype(dtype).name
    name = rules.file_key
    return storage.cache_dir(GAME, directory) / f"{name}-expected-theta0.0-{dt}.layers"


def _layer_file(j: int) -> str:
    return f"layer{j:02d}{storage.MAPPED_SUFFIX}"


def _layer_key(name: str, j: int, dtype: str, shape: tuple[int, ...]) -> storage.TableKey:
    return storage.TableKey(
        game=GAME, variant=f"{name} layer {j}", dtype=np.dtype(dtype).name, shape=shape
    )


def _write_layer(folder: Path, name: str, j: int, values: np.ndarray, meta: dict) -> None:
    key = _layer_key(name, j, values.dtype.name, values.shape)
    storage.save_mapped(folder / _layer_file(j), key, {"values": values}, meta)


def _layer_loader(
    folder: Path, rules: YatzyRules, lay: SavedLayout, dtype: str
) -> Callable[[int], np.ndarray]:
    def load(j: int) -> np.ndarray:
        path = folder / _layer_file(j)
        key = _layer_key(rules.file_key, j, dtype, (lay.lanes[j], lay.width(j)))
        try:
            return storage.read_mapped(path, key).arrays["values"]
        except storage.TableFileError as exc:
            raise InputError(
                f"stored table {path} cannot be used ({exc}); solve it again with "
                f"'diceopt yatzy solve --variant {rules.name} --force'"
            ) from None

    return load


def load_saved(
    rules: YatzyRules, dtype: str = "float32", directory: str | None = None
) -> tuple[SavedTable, float] | None:
    """The stored table of a saved-rerolls variant (layers memory-mapped when first
    read) and the seconds it took to open, or None when it is not stored (complete)."""
    folder = layers_dir(rules, dtype, directory)
    path = folder / _layer_file(0)
    if not path.exists():
        return None
    t0 = time.perf_counter()
    lay = saved_layout(rules)
    try:
        key = _layer_key(rules.file_key, 0, dtype, (lay.lanes[0], 1))
        first = storage.read_mapped(path, key)
    except storage.TableFileError as exc:
        storage.warn(f"ignoring stored table {folder}: {exc}")
        return None
    c = rules.num_categories
    layers: list[np.ndarray | None] = [None] * (c + 1)
    layers[0] = first.arrays["values"]
    h = first.header
    table = SavedTable(
        rules,
        lay,
        layers,
        _layer_loader(folder, rules, lay, dtype),
        float(h.get("seconds", 0.0)),
        int(h.get("states", 0)),
        dtype,
    )
    return table, time.perf_counter() - t0


def finished_layers(folder: Path, rules: YatzyRules, dtype: str = "float32") -> int | None:
    """The lowest layer j >= 1 such that layers j .. C of an unfinished solve are stored in
    ``folder`` and pass every check (header, shape, every block's checksum), or None."""
    lay = saved_layout(rules)
    low = None
    for j in range(rules.num_categories, 0, -1):
        path = folder / _layer_file(j)
        key = _layer_key(rules.file_key, j, dtype, (lay.lanes[j], lay.width(j)))
        try:
            storage.read_mapped(path, key)
        except (storage.TableFileError, OSError):
            break
        low = j
    return low


def _clear(folder: Path, keep: set[str]) -> None:
    """Remove everything in ``folder`` but the files named in ``keep`` (all: the folder)."""
    if not keep:
        shutil.rmtree(folder)
        return
    for entry in folder.iterdir():
        if entry.name not in keep:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()


def prepare_folder(
    rules: YatzyRules, dtype: str = "float32", directory: str | None = None, *, force: bool = False
) -> tuple[int | None, str | None]:
    """Before a solve into the cache directory: the layer to resume from (None: from the
    end) and a line saying what was done with an existing folder (None: there was none).
    Unless ``force``, the finished layers of an unfinished solve are kept when they pass
    their checks (:func:`finished_layers`); everything else in the folder is removed."""
    folder = layers_dir(rules, dtype, directory)
    if not folder.exists():
        return None, None
    low = None if force else finished_layers(folder, rules, dtype)
    c = rules.num_categories
    names = {_layer_file(j) for j in range(low, c + 1)} if low is not None else set()
    _clear(folder, names)
    if low is not None:
        return low, (
            f"resuming from the layers already solved in {folder}: layers {low} to {c} "
            f"(of 0 to {c}) pass their checks"
        )
    if force:
        return None, f"removed {folder} to solve it again"
    return None, f"removed the unfinished solve in {folder} (no solved layer passes its checks)"


def get_saved(
    rules: YatzyRules,
    dtype: str = "float32",
    directory: str | None = None,
    *,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
    say: Callable[[str], None] | None = None,
    load: bool = True,
) -> tuple[SavedTable, bool]:
    """The stored table of a saved-rerolls variant, or solve it (writing its layers to
    the cache directory, two layers in memory); returns (table, loaded). An unfinished
    solve's checked layers are resumed from, other leftovers removed
    (:func:`prepare_folder`); after Ctrl-C the finished layers are kept for the next
    run. ``say``: gets a line about either (none if neither happened). ``load`` False:
    the caller found no stored table already (nothing is loaded, nothing removed)."""
    folder = layers_dir(rules, dtype, directory)

    looked = not load  # the caller has looked for a stored table already

    def loaded() -> SavedTable | None:
        nonlocal looked
        if looked:  # once: after waiting for another process's solve, look again
            looked = False
            return None
        got = load_saved(rules, dtype, directory)
        return None if got is None else got[0]

    def solved() -> SavedTable:
        resume, note = prepare_folder(rules, dtype, directory, force=force)
        if note is not None and say is not None:
            say(note)
        try:
            return solve_saved(
                rules, dtype=dtype, directory=folder, keep=False, progress=progress, resume=resume
            )
        except KeyboardInterrupt:
            kept = sorted(folder.glob("layer*" + storage.MAPPED_SUFFIX)) if folder.exists() else []
            if say is not None and kept:
                say(
                    f"kept the {len(kept)} layers solved so far in {folder} (each complete, "
                    "with its checksums): solving it again resumes from them"
                )
            raise

    return storage.load_or_solve(folder, loaded, solved, force=force)


def warm_up(dtype: str | np.dtype = "float32") -> float:
    """Compile (or load from numba's cache) the saved-rerolls solver and widget for
    ``dtype``; returns seconds. Solves a two-category six-dice variant."""
    from diceopt.games.yatzy.rules import MAXI

    t0 = time.perf_counter()
    tiny = MAXI.reduced(("ones", "chance"), bonus_threshold=3, saved_rerolls=True)
    table = solve_saved(tiny, dtype=dtype)
    table.widget(0, 0, 0, 3)
    table.category_values(1, 0, 0, 0, 2)
    return time.perf_counter() - t0
