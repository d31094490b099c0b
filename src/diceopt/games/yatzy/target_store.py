"""Target tables stored, read and advised from; the ``yatzy targets`` command.

Role: the full target table of a variant (:mod:`diceopt.games.yatzy.targets`) on disk,
memory-mapped (:func:`store_targets`, :func:`load_targets`: every block's checksum
checked at load, or lazily block by block, :mod:`diceopt.storage`), filed under the
rules' file key (``rules.file_key``); the target advice (:func:`advise_target`):

1. The turn at k points still needed from the stored full table when it holds k
   (:func:`target_turn_for`), else from the stored target rows from the start
   (:mod:`diceopt.games.yatzy.tables`), else solved now for this state and k only.
2. Every legal action ranked by its probability, ties broken as in the expected-score
   advice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from diceopt import storage
from diceopt.advice import Advice
from diceopt.errors import InputError
from diceopt.games.contract import CommandOutput
from diceopt.games.yatzy.rules import YatzyRules
from diceopt.games.yatzy.storage import rules_header, rules_key
from diceopt.games.yatzy.targets import (
    TargetTable,
    check_dtype,
    check_target,
    solve_target_from,
    solve_targets,
    table_kmax,
    table_shape,
    warm_up_targets,
)

OBJECTIVE = "target"


def target_key(rules: YatzyRules, dtype: str = "float32") -> storage.TableKey:
    """The storage key of a variant's full target table (objective ``target``; filed
    under ``rules.file_key``)."""
    return rules_key(rules, OBJECTIVE, dtype, table_shape(rules, table_kmax(rules)))


def targets_path(rules: YatzyRules, dtype: str = "float32", directory: str | None = None) -> Path:
    """Where the full target table of a variant lives (a memory-mapped table file)."""
    return storage.mapped_path(target_key(rules, dtype), directory)


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
    if h.get("rules") != rules_header(rules):
        path = storage.mapped_path(target_key(rules, dtype), directory)
        storage.warn(f"ignoring cached table {path}: other rules; {then}")
        return None
    seconds, states = float(h.get("seconds", 0.0)), int(h.get("states", 0))
    table = TargetTable(rules, stored.arrays["values"], seconds, states, stored.check)
    return table, time.perf_counter() - t0


def store_targets(table: TargetTable, directory: str | None = None) -> bool:
    """Save a full target table (memory-mappable); one warning line and False if it
    cannot be written (or is not a full table)."""
    if table.kmax != table_kmax(table.rules):
        raise InputError(f"only full tables are stored (k up to {table_kmax(table.rules)})")
    key = target_key(table.rules, table.values.dtype.name)
    meta = {"seconds": table.seconds, "states": table.states, "rules": rules_header(table.rules)}
    return storage.store(key, {"values": table.values}, meta, directory, mapped=True)


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
        table = solve_targets(rules, dtype=dtype, progress=progress)
        saved = store_targets(table, directory)
        return table, storage.TableInfo(path, False, table.seconds, table.seconds, saved)

    return storage.load_or_solve(path, loaded, solved, force=force)[0]


_LOADED: dict[tuple[str, str, str], TargetTable] = {}


def stored_table(
    rules: YatzyRules, dtype: str = "float32", verified: bool = False
) -> TargetTable | None:
    """The stored full table of a named variant, checked lazily (loaded once per process
    and cache directory), or None. ``verified``: every block checked now (for readers of
    ``values`` that bypass the lazy checks, e.g. numba kernels); a bad block gives one
    warning line and None."""
    memo = (rules.storage_key, np.dtype(dtype).name, str(storage.cache_root()))
    if memo not in _LOADED:
        got = load_targets(rules, dtype, verify="lazy", then="solving what is needed instead")
        if got is None:
            return None
        _LOADED[memo] = got[0]
    if verified:
        try:
            _LOADED[memo].verify()
        except storage.TableFileError as exc:
            del _LOADED[memo]
            storage.warn(f"ignoring cached table: {exc}; solving what is needed instead")
            return None
    return _LOADED[memo]


def target_turn_for(
    config: Any, mask: int, flag: int, upper: int, k: int, first: bool = False
) -> tuple[np.ndarray, np.ndarray, float]:
    """:func:`target_turn` at k points still needed from a turn-start state (``first``:
    the categories written straight after the first roll, served scores): from the
    stored full table when there is one and it holds k (the blocks read are checked:
    a bad one is reported in one line and the table not used), else from the stored
    target rows from the start (:mod:`diceopt.games.yatzy.tables`), else solved now for
    this state and k only (:func:`solve_target_from`, progress on stderr)."""
    from diceopt.progress import Stage

    rules = config.rules
    table = stored_table(rules, config.dtype)
    if table is not None and k <= table.kmax:
        try:
            return table.turn(mask, flag, upper, k, first)
        except storage.TableFileError as exc:
            path = targets_path(rules, config.dtype)
            storage.warn(
                f"ignoring cached table {path}: {exc}; `diceopt yatzy targets` rebuilds it"
            )
            _LOADED.clear()
            table = None
    from diceopt.games.yatzy.tables import load_rows

    rows = load_rows(rules, config.dtype, full=False)  # stored rows from the start
    if rows is not None and k <= rows.kmax:
        return rows.turn(mask, flag, upper, k, first)
    named = f"--rules {rules.name}" if rules.key else f"--variant {config.variant}"
    why = (
        f"no stored target table (`diceopt yatzy targets {named}` stores one for every target)"
        if table is None
        else f"stored table: k <= {table.kmax}"
    )
    label = f"{why}: solving P(>= {k} more points) from this position"
    with Stage(label, "layers") as stage:
        rows = solve_target_from(
            rules, mask, flag, upper, max(0, k), dtype=config.dtype, progress=stage.update
        )
    return rows.turn(mask, flag, upper, k, first)


def advise_target(pos: Any, config: Any, target: int) -> Advice:
    """Every legal action of ``pos`` ranked by P(final score >= target) (points; without
    a score in the position: P(points still to come >= target)), best first; regrets in
    probability, ``expected`` the action's expected final score (the ordinary table).
    Ties as in the expected-score advice (scoring first, categories in order, keeps in
    lattice order)."""
    from diceopt.games.yatzy.advice import rank_by_probability, roll_index, state_of

    rules = config.rules
    check_target(target, rules)
    if pos.over(rules):
        raise InputError("the game is over: every category is filled")
    k = target - (0 if pos.score is None else int(round(pos.score)))
    mask, flag, upper = state_of(pos, rules)
    if k <= 0:  # reached: every action keeps it
        keep, cat, _ = solve_target_from(rules, mask, flag, upper, 0).turn(mask, flag, upper, 0)
        keep[:] = 1.0
        cat[cat >= 0] = 1.0
    else:
        keep, cat, _ = target_turn_for(config, mask, flag, upper, k, pos.rerolls == 2)
    what = "final score" if pos.score is not None else "points still to come"
    return rank_by_probability(
        pos, rules, config.table(), cat[roll_index(pos, rules)], keep,
        f"probability that the {what} is at least {target} (0-1)",
    )  # fmt: skip


def size_text(nbytes: int) -> str:
    """A size for people: GB from 0.1 GB up, else MB."""
    return f"{nbytes / 1e9:.2f} GB" if nbytes >= 1e8 else f"{nbytes / 1e6:.1f} MB"


START_TARGETS = (200, 250, 300)  # P(final score >= K) printed from the start (points)


def run_targets(config: Any, args: Any) -> CommandOutput:
    """``diceopt yatzy targets``: load the stored full target table, or build it (progress
    shown by the front end) and store it; where it is, seconds, size, P(final >= K) from
    the start."""
    import resource

    from diceopt.progress import Stage

    t0 = time.perf_counter()
    variant, dtype, rules = config.variant, config.dtype, config.rules
    path = targets_path(rules, dtype)
    loaded = None if args.force else load_targets(rules, dtype)
    compile_seconds = store_seconds = 0.0
    if loaded is not None:
        table, load_seconds = loaded
        saved = True
    else:
        load_seconds = 0.0
        compile_seconds = warm_up_targets(dtype)
        label = f"solving the {variant} target table (k = 0 .. {table_kmax(rules)})"
        with Stage(label, "layers") as stage:
            table = solve_targets(rules, dtype=dtype, progress=stage.update)
        t1 = time.perf_counter()
        with Stage(f"storing it ({size_text(table.values.nbytes)})") as stage:
            saved = store_targets(table)
            if not saved:
                stage.fail()  # the warning above says why: no "done"
        store_seconds = time.perf_counter() - t1
    size = path.stat().st_size if saved else table.values.nbytes
    p_at = {k: table.probability(0, 0, 0, k) for k in START_TARGETS if k <= table.kmax}
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    data = {
        "variant": variant,
        "dtype": dtype,
        "kmax": table.kmax,
        "states": table.states,
        "bytes": size,
        "loaded": loaded is not None,
        "path": str(path) if saved else None,
        "solve_seconds": table.seconds,
        "compile_seconds": compile_seconds,
        "store_seconds": store_seconds,
        "load_seconds": load_seconds,
        "seconds": time.perf_counter() - t0,
        "peak_rss_gb": peak,
        "p_at_least": {str(k): p for k, p in p_at.items()},
    }
    lines = [
        f"{variant}: target table, P(points still to come >= k) for k = 0 .. {table.kmax}, "
        f"{table.states:,} states, {size_text(size)} ({dtype})"
    ]
    if loaded is not None:
        lines.append(f"loaded {path} in {load_seconds:.2f} s (solved in {table.seconds:.1f} s)")
    else:
        where = f"stored {path} in {store_seconds:.1f} s" if saved else "not stored"
        lines.append(
            f"solved in {table.seconds:.1f} s (numba compile {compile_seconds:.1f} s, "
            f"peak memory {peak:.2f} GB); {where}"
        )
    lines.append(
        "from the start: " + "  ".join(f"P(final >= {k}) {p:.6f}" for k, p in p_at.items())
    )
    lines.append(f"{data['seconds']:.1f} s")
    return CommandOutput(data, lines)
