"""Solved Yatzy tables on disk, through the shared table storage (``diceopt.storage``).

One file per (rules, objective, theta, dtype) under ``yatzy/``, filed under the rules'
file key (``rules.file_key``: the variant's name for a built-in variant, the hash of
its rules without its name for a rule file, so that files differing only in their
names share their tables), in the
cache directory (``--cache-dir`` if given, else ``$DICEOPT_CACHE``, else the user cache
directory). The
file layout, atomic writes and the one-line warnings for bad or unwritable files are
those of ``diceopt.storage``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diceopt import storage
from diceopt.blocks import RowReader
from diceopt.errors import InputError
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.storage import MAGIC, TableFileError, TableInfo, dtype_name, warn

if TYPE_CHECKING:  # advice from a stored table reads its rows without numpy
    import numpy as np

    from diceopt.games.yatzy.kernel.table import YatzyTable

__all__ = [
    "MAGIC",
    "TableFileError",
    "TableInfo",
    "cache_dir",
    "get_table",
    "load_table",
    "objective_name",
    "read_table",
    "rules_header",
    "rules_key",
    "save_table",
    "store_table",
    "stored_rows",
    "table_key",
    "table_path",
    "warn",
]
GAME = "yatzy"


def cache_dir(override: str | os.PathLike | None = None) -> Path:
    """Directory of the Yatzy tables: ``override``, else $DICEOPT_CACHE, else the user cache."""
    return storage.cache_dir(GAME, override)


def objective_name(theta: float) -> str:
    """``expected`` for theta 0, else ``exponential``."""
    return "expected" if theta == 0.0 else "exponential"


def rules_key(
    rules: YatzyRules,
    objective: str,
    dtype: Any,
    shape: tuple[int, ...] | None = None,
    extra: tuple[str, ...] = (),
    theta: float = 0.0,
) -> storage.TableKey:
    """The storage key of one of a variant's tables, filed under ``rules.file_key``
    (``dtype``: any numpy dtype-like, stored by name; see ``diceopt.storage.TableKey``)."""
    return storage.TableKey(
        game=GAME,
        variant=rules.file_key,
        objective=objective,
        theta=float(theta),
        dtype=dtype_name(dtype),
        shape=shape,
        extra=extra,
    )


def rules_header(rules: YatzyRules) -> dict[str, Any]:
    """The rules as a table's header holds them: ``rules.describe()`` without the name
    (a file is valid for the rules it was solved with, under any name)."""
    return {k: v for k, v in rules.describe().items() if k != "name"}


def table_key(rules: YatzyRules, theta: float = 0.0, dtype: str = "float32") -> storage.TableKey:
    """The storage key of a Yatzy table (its shape follows from the rules)."""
    shape = (1 << rules.num_categories, rules.flags, rules.bonus_threshold + 1)
    return rules_key(rules, objective_name(theta), dtype, shape, theta=theta)


def table_path(
    rules: YatzyRules, theta: float = 0.0, dtype: str = "float32", directory: str | None = None
) -> Path:
    """Where the table of (rules, objective, theta, dtype) lives."""
    return storage.table_path(table_key(rules, theta, dtype), directory)


def stored_rows(
    rules: YatzyRules, theta: float = 0.0, dtype: str = "float32", directory: str | None = None
) -> RowReader | None:
    """The stored table's rows, read a few at a time without numpy (``rows(mask)``:
    ``values[mask]`` flat; see :func:`diceopt.storage.read_rows`), or None: not stored,
    or stored without block checksums (read it whole). TableFileError if it must not be
    used."""
    key = table_key(rules, theta, dtype)
    path = storage.table_path(key, directory)
    return storage.read_rows(path, key) if path.exists() else None


def _meta(table: YatzyTable) -> dict:
    return {"seconds": table.seconds, "states": table.states, "value": table.value}


def save_table(table: YatzyTable, path: Path) -> None:
    """Write ``table`` to ``path`` atomically (temporary file + rename); OSError on failure."""
    key = table_key(table.rules, table.theta, table.values.dtype.name)
    storage.save_arrays(path, key, {"values": table.values}, _meta(table))


def read_table(path: Path, rules: YatzyRules, theta: float, dtype: str) -> tuple[np.ndarray, dict]:
    """The array and header of a table file; TableFileError if it must not be used."""
    stored = storage.read_arrays(path, table_key(rules, theta, dtype))
    return stored.arrays["values"], stored.header


def _table(rules: YatzyRules, theta: float, values: np.ndarray, header: dict) -> YatzyTable:
    from diceopt.games.yatzy.kernel.table import YatzyTable

    return YatzyTable(
        rules,
        values,
        float(theta),
        float(header.get("seconds", 0.0)),
        int(header.get("states", 0)),
    )


def load_table(
    rules: YatzyRules,
    theta: float = 0.0,
    dtype: str = "float32",
    directory: str | None = None,
) -> tuple[YatzyTable, float] | None:
    """The cached table and its load seconds, or None (missing, or bad: warned on stderr)."""
    got = storage.load(table_key(rules, theta, dtype), directory)
    if got is None:
        return None
    stored, seconds = got
    return _table(rules, theta, stored.arrays["values"], stored.header), seconds


def get_table(
    rules: YatzyRules,
    theta: float = 0.0,
    dtype: str = "float32",
    directory: str | None = None,
    *,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
    solve: Callable[[], YatzyTable] | None = None,
) -> tuple[YatzyTable, TableInfo]:
    """Load the table of a variant's rules from the cache, or solve it (and save it).

    ``force``: solve even if a good file exists. ``solve``: how to solve it (default
    ``solve_table`` in this process; Ray: ``commands.on_ray.solve_table_ray``). A
    file that cannot be written is reported (one line on stderr), ``info.saved`` is
    False and the solved table is still returned.
    """
    if dtype_name(dtype) not in ("float32", "float64"):
        raise InputError(f"dtype must be float32 or float64, got {dtype}")
    path = storage.table_path(table_key(rules, theta, dtype), directory)

    def loaded() -> tuple[YatzyTable, TableInfo] | None:
        got = load_table(rules, theta, dtype, directory)
        if got is None:
            return None
        table, seconds = got
        return table, TableInfo(path, True, seconds, table.seconds)

    def solved() -> tuple[YatzyTable, TableInfo]:
        from diceopt.games.yatzy.kernel.solve import solve_table  # numba: only when solving

        if solve is None:
            table = solve_table(rules, dtype=dtype, theta=theta, progress=progress)
        else:
            table = solve()
        saved = store_table(table, directory)
        return table, TableInfo(path, False, table.seconds, table.seconds, saved)

    return storage.load_or_solve(path, loaded, solved, force=force)[0]


def store_table(table: YatzyTable, directory: str | None = None) -> bool:
    """Cache a solved table (as :func:`get_table` does); False, warned once, if unwritable."""
    key = table_key(table.rules, table.theta, table.values.dtype.name)
    return storage.store(key, {"values": table.values}, _meta(table), directory)


TARGET_OBJECTIVE = "target"


def target_key(rules: YatzyRules, dtype: str = "float32") -> storage.TableKey:
    """The storage key of a variant's full target table (objective ``target``; filed
    under ``rules.file_key``): the values in rows (any length), their ``off`` and
    ``top`` (:func:`~diceopt.games.yatzy.analyses.targets.table_layout`)."""
    return rules_key(rules, TARGET_OBJECTIVE, dtype, extra=("off", "top"))


def targets_path(rules: YatzyRules, dtype: str = "float32", directory: str | None = None) -> Path:
    """Where the full target table of a variant lives (a memory-mapped table file)."""
    return storage.mapped_path(target_key(rules, dtype), directory)
