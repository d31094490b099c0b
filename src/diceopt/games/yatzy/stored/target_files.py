"""Full target tables of Yatzy on disk, memory-mapped.

Role: the full target table of a variant (:mod:`diceopt.games.yatzy.analyses.targets`)
stored and read (:func:`store_targets`, :func:`load_targets`: every block's checksum
checked at load, or lazily block by block, :mod:`diceopt.storage`), filed under the
rules' file key (``rules.file_key``). Only :mod:`~diceopt.games.yatzy.stored.store`
imports this module.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from diceopt import storage
from diceopt.errors import InputError
from diceopt.games.yatzy.analyses.targets import (
    TargetTable,
    check_dtype,
    check_layout,
    reached_keys,
    solve_targets,
    table_kmax,
)
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.games.yatzy.stored.files import rules_header, target_key


def load_targets(
    rules: YatzyRules,
    dtype: str = "float32",
    directory: str | None = None,
    verify: str = "full",
    then: str = "rebuilding it",
) -> tuple[TargetTable, float] | None:
    """The stored full target table, memory-mapped (read-only), and its load seconds, or
    None (missing, or bad: one warning line). ``verify`` "full": every block's checksum
    checked now (``values`` may be read directly, e.g. from numba); "lazy": the header
    and size now, each block when :meth:`TargetTable.probability` / ``turn`` first read
    it (``TargetTable.verify()`` checks the rest). ``then``: the warning's last words,
    what the caller does instead."""
    t0 = time.perf_counter()
    got = storage.load(target_key(rules, dtype), directory, mapped=True, verify=verify, then=then)
    if got is None:
        return None
    stored, _ = got
    h = stored.header
    path = storage.mapped_path(target_key(rules, dtype), directory)
    kmax = table_kmax(rules)
    why = "" if h.get("rules") == rules_header(rules) else "other rules"
    why = why or ("" if h.get("kmax") == kmax else f"k up to {h.get('kmax')!r}, expected {kmax}")
    a = stored.arrays
    try:
        if not why and stored.check is not None:  # lazy: the row offsets are read whole
            stored.check.check(min(int(x) for x in h["offsets"][1:]), int(h["payload_bytes"]))
    except storage.TableFileError as exc:
        why = str(exc)
    nkeys = (1 << rules.num_categories) * rules.flags * (rules.bonus_threshold + 1)
    reached = reached_keys(rules)
    why = why or check_layout(a["values"], a["off"], a["top"], held_keys(rules), kmax)
    if why:
        storage.warn(f"ignoring cached table {path}: {why}; {then}")
        return None
    off, top = a["off"], a["top"]
    if reached is not None:  # the forced order: every other key is never read
        off, top = np.zeros(nkeys, dtype=np.int64), np.full(nkeys, -1, dtype=np.int64)
        off[reached], top[reached] = a["off"], a["top"]
    seconds, states = float(h.get("seconds", 0.0)), int(h.get("states", 0))
    table = TargetTable(rules, a["values"], off, top, kmax, seconds, states, stored.check)
    return table, time.perf_counter() - t0


def target_meta(rules: YatzyRules, kmax: int, seconds: float = 0.0, states: int = 0) -> dict:
    """The header fields of a stored target table or of target rows: solve ``seconds``,
    ``states`` solved, ``kmax`` and the rules."""
    return {"seconds": seconds, "states": states, "kmax": kmax, "rules": rules_header(rules)}


@contextmanager
def target_draft(
    rules: YatzyRules, dtype: str = "float32", directory: str | None = None
) -> Iterator[tuple[storage.MappedDraft, Callable[[int, np.dtype], np.ndarray]]]:
    """The file of a variant's full target table to solve into: ``(draft, alloc)``, the
    draft for :func:`store_targets` and the ``alloc`` of
    :func:`~diceopt.games.yatzy.analyses.targets.solve_targets` (:func:`draft_alloc`).
    Left without a store, the file is removed."""
    key = target_key(rules, dtype)
    with storage.MappedDraft(storage.mapped_path(key, directory), key) as draft:
        yield draft, draft_alloc(draft, rules, table_kmax(rules), held_keys(rules))


def draft_alloc(
    draft: storage.MappedDraft, rules: YatzyRules, kmax: int, keys: int
) -> Callable[[int, np.dtype], np.ndarray]:
    """The ``alloc`` of a target solve (:func:`~diceopt.games.yatzy.analyses.targets.solve_targets`,
    ``solve_target_from``): its values in the pages of ``draft``'s file, beside room for
    ``keys`` row offsets and tops; in memory where the file cannot be made."""

    def alloc(n: int, dtype: np.dtype) -> np.ndarray:
        specs = {"values": (dtype, (n,)), "off": (np.int64, (keys,)), "top": (np.int64, (keys,))}
        arrays = draft.open(specs, target_meta(rules, kmax))
        return np.zeros(n, dtype=dtype) if arrays is None else arrays["values"]

    return alloc


def held_keys(rules: YatzyRules) -> int:
    """How many state keys a stored full target table holds row offsets for (under the
    forced order only those a game reaches: :func:`reached_keys`)."""
    reached = reached_keys(rules)
    nkeys = (1 << rules.num_categories) * rules.flags * (rules.bonus_threshold + 1)
    return nkeys if reached is None else int(reached.size)


def store_targets(
    table: TargetTable, directory: str | None = None, draft: storage.MappedDraft | None = None
) -> bool:
    """Save a full target table (memory-mappable; ``draft``: the file it was solved into,
    :func:`target_draft`); one warning line and False if it cannot be written (or is not
    a full table)."""
    if table.kmax != table_kmax(table.rules):
        raise InputError(f"only full tables are stored (k up to {table_kmax(table.rules)})")
    meta = target_meta(table.rules, table.kmax, table.seconds, table.states)
    reached = reached_keys(table.rules)  # the forced order: only the keys a game reaches
    off, top = (
        (table.off, table.top) if reached is None else (table.off[reached], table.top[reached])
    )
    arrays = {"values": table.data, "off": off, "top": top}
    if draft is not None:
        return draft.store(arrays, meta)
    return storage.store(
        target_key(table.rules, table.data.dtype.name), arrays, meta, directory, mapped=True
    )


def get_targets(
    rules: YatzyRules,
    dtype: str = "float32",
    directory: str | None = None,
    *,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[TargetTable, storage.TableInfo]:
    """Load the full target table of a variant, or solve it (``force``: always) and store
    it; ``info.saved`` is False (after one warning line) if it could not be written."""
    check_dtype(dtype)
    path = storage.mapped_path(target_key(rules, dtype), directory)

    def loaded() -> tuple[TargetTable, storage.TableInfo] | None:
        got = load_targets(rules, dtype, directory)
        if got is None:
            return None
        table, seconds = got
        return table, storage.TableInfo(path, True, seconds, table.seconds)

    def solved() -> tuple[TargetTable, storage.TableInfo]:
        with target_draft(rules, dtype, directory) as (draft, alloc):
            table = solve_targets(rules, dtype=dtype, progress=progress, alloc=alloc)
            saved = store_targets(table, directory, draft)
        return table, storage.TableInfo(path, False, table.seconds, table.seconds, saved)

    return storage.load_or_solve(path, loaded, solved, force=force)[0]
