"""The stored tables of saved-rerolls variants: one table file per layer, in a folder.

Role: a saved-rerolls table (:mod:`diceopt.games.yatzy.kernel.saved`) is written layer by
layer as it is solved (:class:`LayerFolder`, the kernel's ``LayerFiles``), each layer its
own table file (``diceopt.storage`` format: checksum, atomic write), memory-mapped when
read back. Interrupted solves (:func:`get_saved`): the layers already written (each
complete, with its checksums) stay in the folder and the next solve resumes from them
once they pass their checks (:func:`prepare_folder`); anything else left in the folder
is removed. Each step is said in one line. Only :mod:`~diceopt.games.yatzy.stored.store`
imports this module.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from diceopt import storage
from diceopt.errors import InputError
from diceopt.games.yatzy.kernel.saved import (
    SavedLayout,
    SavedTable,
    SolveLayer,
    saved_layout,
    solve_saved,
)
from diceopt.games.yatzy.rulebook.rules import YatzyRules

GAME = "yatzy"


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


class LayerFolder:
    """The layer files of one saved-rerolls table in ``folder`` (the kernel's
    ``LayerFiles``): written as the solve finishes each layer, memory-mapped when read."""

    def __init__(self, folder: Path, rules: YatzyRules, dtype: str) -> None:
        self.folder, self.rules, self.dtype = Path(folder), rules, np.dtype(dtype).name
        self.lay = saved_layout(rules)

    def _key(self, j: int) -> storage.TableKey:
        shape = (self.lay.lanes[j], self.lay.width(j))
        return _layer_key(self.rules.file_key, j, self.dtype, shape)

    def start(self) -> None:
        """Before the first layer: the folder exists, layer 0 (complete only once
        rewritten) does not."""
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / _layer_file(0)).unlink(missing_ok=True)

    def write(self, j: int, values: np.ndarray, meta: dict) -> None:
        """Store layer ``j`` (checksums, atomic write)."""
        _write_layer(self.folder, self.rules.file_key, j, values, meta)

    def read(self, j: int) -> tuple[np.ndarray, float]:
        """Stored layer ``j`` as a writable array in memory (the kernels' type) and the
        seconds the solve had spent up to it."""
        stored = storage.read_mapped(self.folder / _layer_file(j), self._key(j))
        return np.array(stored.arrays["values"]), float(stored.header.get("seconds", 0.0))

    def read_layer(self, j: int) -> np.ndarray:
        """Stored layer ``j``, memory-mapped; InputError (one line) when it is damaged."""
        return _layer_loader(self.folder, self.rules, self.lay, self.dtype)(j)


def solve_into(
    rules: YatzyRules,
    folder: str | Path,
    *,
    dtype: str = "float32",
    keep: bool = True,
    progress: Callable[[int, int], None] | None = None,
    lanes: int | None = None,
    resume: int | None = None,
    solve_layer: SolveLayer | None = None,
) -> SavedTable:
    """:func:`~diceopt.games.yatzy.kernel.saved.solve_saved` writing its layers into
    ``folder`` (unless ``keep``, two layers in memory); ``resume``: the lowest layer
    already solved there (checked by :func:`finished_layers`); ``solve_layer``: how a
    layer is solved (default: in this process; Ray: ``commands.on_ray``)."""
    files = LayerFolder(Path(folder), rules, dtype)
    return solve_saved(
        rules, dtype=dtype, files=files, keep=keep, progress=progress, lanes=lanes,
        resume=resume, solve_layer=solve_layer,
    )  # fmt: skip


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
    solve_layer: SolveLayer | None = None,
) -> tuple[SavedTable, bool]:
    """The stored table of a saved-rerolls variant, or solve it (writing its layers to
    the cache directory, two layers in memory); returns (table, loaded). An unfinished
    solve's checked layers are resumed from, other leftovers removed
    (:func:`prepare_folder`); after Ctrl-C the finished layers are kept for the next
    run. ``say``: gets a line about either (none if neither happened). ``load`` False:
    the caller found no stored table already (nothing is loaded, nothing removed).
    ``solve_layer``: how a layer is solved (default: in this process)."""
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
            return solve_into(
                rules, folder, dtype=dtype, keep=False, progress=progress, resume=resume,
                solve_layer=solve_layer,
            )  # fmt: skip
        except KeyboardInterrupt:
            kept = sorted(folder.glob("layer*" + storage.MAPPED_SUFFIX)) if folder.exists() else []
            if say is not None and kept:
                say(
                    f"kept the {len(kept)} layers solved so far in {folder} (each complete, "
                    "with its checksums): solving it again resumes from them"
                )
            raise

    return storage.load_or_solve(folder, loaded, solved, force=force)
