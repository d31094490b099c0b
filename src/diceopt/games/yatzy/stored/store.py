"""The one place that hands out stored Yatzy tables: load, lock, solve, store, keep.

Role: every table a Yatzy answer reads comes from here, in this process's memory once
loaded (the caches live here and :func:`forget` drops a variant's):

- the expected-score and exponential-utility tables (:func:`get_solved`,
  :class:`YatzyConfig`; saved-rerolls variants: the stored layers only, :func:`saved_table`);
- the full target tables (:func:`get_targets`, :func:`stored_table`) and the target
  rows from the start (:func:`load_rows`, :func:`build_rows`);
- the distributions of the points still to come of every turn-start state
  (:func:`state_pmfs_table`: a table's chances for every player at once);
- the early rows: the distributions of the points still to come from the first turns'
  states (:func:`early_rows`, :func:`build_early`);
- each of them as :mod:`diceopt.tables` shares them between requests and processes,
  built once per cache directory under a lock (:func:`expected_table`,
  :func:`target_table`, :func:`early_table`).

A variant's name is resolved to its rules once, at the edge (:class:`YatzyConfig`,
``SPEC.rules``); everything here takes the rules object, whose ``storage_key`` files its
tables. The file formats are private to this room (:mod:`.files`, :mod:`.target_files`,
:mod:`.saved_files`): the rest of the package asks this module and never reaches into
``diceopt.storage``.

Target rows from the start: ``solve_target_from`` from the empty sheet for every target
up to the variant's most points (``rules.max_total``). They hold, for every state
reachable in a game, P(points still to come >= k) for every k it can still reach, so
they answer every target and every opponent, from any position, exact (the values of
the full target table, without its unreachable states and the k no state reaches):
Scandinavian 0.80 GB (float32), American 0.84 GB, forced order 0.2 MB; stored
memory-mapped (objective ``target-rows``). A stored full target table that holds every
k is used instead when there is one.

Early rows: at each turn of a game against the computer, the distribution of the points
still to come of each side's turn-start state; from the first turns' states one takes
seconds, so the rows of every reachable state with at most :data:`EARLY_FILLED` boxes
filled are computed once in one backward pass over every state
(:func:`~diceopt.games.yatzy.analyses.distribution.state_distributions`, float64: the
play from those states reaches 957,952 of Scandinavian's 958,975 under theta 0.05, so a
pass over only the states they reach would save nothing) and
stored memory-mapped (objective ``early-rows``) with each row's chances of the upper
bonus and of a Yatzy 50. Scandinavian: about 4 s per table on 2 cores (the first layers
kept in memory, not all 1.5 GB), 17 MB stored. The row of the start is the distribution
``yatzy distribution`` gives from the start, bit for bit: read from here when stored
(:meth:`YatzyConfig.first_turns`).

The start's row: for any other (rules, theta, dtype) table the distribution from the
start is a pass of seconds (American 2.5 s, Scandinavian at theta 0.1 2.7 s, whole
commands on 2 cores), so ``yatzy distribution``, ``sweep`` and the page's distribution
answer store what the pass found beside the table: the start's row of points still to
come (float64) with its two chances, in the layout of the early rows with one state, a
few kilobytes (objective ``start-row``). Later runs read it, the same numbers bit for bit
(``distribution --force`` computes it again); a file whose row does not hold (the rules,
one row at the start, probabilities summing to 1) is one warning line and the pass.
"""

from __future__ import annotations

import importlib
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from diceopt import storage
from diceopt.errors import InputError, TableFileError
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.games.yatzy.rulebook.variants import get_rules
from diceopt.games.yatzy.stored.files import (
    get_table,
    load_table,
    rules_header,
    rules_key,
    store_table,
    stored_rows,
    table_path,
    targets_path,
)
from diceopt.progress import Stage, notice
from diceopt.storage import warn
from diceopt.tables import Build, Table

if TYPE_CHECKING:  # the kernel imports numba: only loaded when a table is needed
    import numpy as np

    from diceopt.games.yatzy.analyses.targets import TargetTable
    from diceopt.games.yatzy.kernel.plain import PlainTable
    from diceopt.games.yatzy.kernel.saved import SavedTable
    from diceopt.games.yatzy.kernel.table import YatzyTable
else:
    from diceopt.lazy import numpy as np

# the saved-rerolls and target table files import the kernels (numba): loaded on first use
_LAZY = {
    "get_saved": "saved_files",
    "layers_dir": "saved_files",
    "load_saved": "saved_files",
    "solve_into": "saved_files",
    "get_targets": "target_files",
    "load_targets": "target_files",
    "store_targets": "target_files",
    "target_draft": "target_files",
}


def __getattr__(name: str) -> Any:
    """The file functions of saved-rerolls and full target tables, imported on first use."""
    if name in _LAZY:
        module = importlib.import_module(f"{__package__}.{_LAZY[name]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "TABLES",
    "YatzyConfig",
    "build_early",
    "build_rows",
    "early_rows",
    "stored_early_rows",
    "early_stored",
    "early_table",
    "load_pmfs",
    "loaded_pmfs",
    "build_pmfs",
    "state_pmfs_table",
    "expected_table",
    "forget",
    "full_targets",
    "get_solved",
    "in_memory",
    "keep",
    "get_table",
    "load_rows",
    "load_table",
    "loaded_rows",
    "note",
    "rows_path",
    "saved_solve_cost",
    "saved_table",
    "solve_command",
    "store_table",
    "stored_rows",
    "stored_table",
    "table_memo",
    "table_path",
    "target_table",
    "warn",
]


# --- expected-score tables ----------------------------------------------------------------

TABLES: dict[tuple[str, float, str], YatzyTable | SavedTable] = {}  # see table_memo


def table_memo(rules: YatzyRules, theta: float, dtype: str) -> tuple[str, float, str]:
    """The key of a table in :data:`TABLES`: (``rules.storage_key``, theta, dtype)."""
    from diceopt.storage import dtype_name

    return (rules.storage_key, float(theta), dtype_name(dtype))


def in_memory(rules: YatzyRules, theta: float, dtype: str) -> bool:
    """Whether the (rules, theta, dtype) table is in this process (no I/O)."""
    return table_memo(rules, theta, dtype) in TABLES


def keep(rules: YatzyRules, theta: float, dtype: str, table: YatzyTable | SavedTable) -> None:
    """Keep a table just loaded or solved in this process, as the (rules, theta, dtype)
    table."""
    TABLES[table_memo(rules, theta, dtype)] = table


SAVED_CPU = "about 1,100 CPU-seconds in float32"  # maxi-saved, measured


def saved_solve_cost(rules: YatzyRules, dtype: str = "float32") -> str:
    """What solving a saved-rerolls variant costs: CPU time (measured, maxi-saved) and the
    size of its table in ``dtype`` on disk."""
    from diceopt.games.yatzy.kernel.saved import table_bytes

    return f"{SAVED_CPU}, {table_bytes(rules, dtype) / 1e9:.1f} GB of disk"


def solve_command(rules: YatzyRules, dtype: str = "float32", cache_dir: str | None = None) -> str:
    """The command that solves and stores the table of ``rules`` in ``dtype`` where it
    is looked for: ``cache_dir``, else $DICEOPT_CACHE (named with --cache-dir), else the
    default cache directory."""
    import os
    import shlex

    from diceopt import storage

    source = ["--rules", "FILE"] if rules.key else ["--variant", rules.name]
    words = ["diceopt", "yatzy", "solve", *source]
    if np.dtype(dtype).name != "float32":
        words += ["--dtype", np.dtype(dtype).name]
    if cache_dir or os.environ.get(storage.ENV_VAR):
        words += ["--cache-dir", str(storage.cache_root(cache_dir))]
    return shlex.join(words)


def note(line: str) -> None:
    """A line about what a solve did with files (shown beside the progress)."""
    notice(line)


def get_solved(
    rules: YatzyRules | str | None = None,
    theta: float = 0.0,
    dtype: str = "float32",
    cache_dir: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> YatzyTable | SavedTable:
    """The solved table of a variant, cached in this process (saved-rerolls variants:
    the stored table only, InputError if it is not stored; see :func:`saved_table`).

    ``rules``: the rules object; the Python API's edge also takes a variant's name (None:
    the default), resolved here once (:func:`~diceopt.games.yatzy.rulebook.variants.get_rules`)."""
    if not isinstance(rules, YatzyRules):
        rules = get_rules(rules)
    key = table_memo(rules, theta, dtype)
    if key not in TABLES:
        table: YatzyTable | SavedTable
        if rules.saved_rerolls:
            table = saved_table(rules, dtype, cache_dir)
        else:
            table, _ = get_table(rules, theta, dtype, cache_dir, progress=progress)
        # Two threads that loaded it at once both get the first one kept: what is attached
        # to the table later (its early rows) is attached to the one every caller has.
        TABLES.setdefault(key, table)
    return TABLES[key]


def saved_table(
    rules: YatzyRules, dtype: str = "float32", cache_dir: str | None = None
) -> SavedTable:
    """The stored table of a saved-rerolls variant (layers memory-mapped when read);
    InputError when it is not stored: its solve takes minutes, so it is never started
    by a command that only reads it."""
    from diceopt.games.yatzy.stored.saved_files import load_saved

    got = load_saved(rules, dtype, cache_dir)
    if got is None:
        raise InputError(
            f"the {rules.name} table ({dtype}) is not stored: solve it first with "
            f"`{solve_command(rules, dtype, cache_dir)}` ({saved_solve_cost(rules, dtype)})"
        )
    return got[0]


@dataclass(frozen=True)
class YatzyConfig:
    """A Yatzy table: the variant's rules (resolved once from its name, at the edge:
    ``SPEC.rules``), theta (exponential utility, per point; 0 is the expected score) and
    the table's float type. ``requested``: the rules came in a request (a pasted rule
    file, :mod:`diceopt.games.yatzy.commands.requests`): a server builds only small
    tables for it."""

    rules: YatzyRules
    theta: float = 0.0
    dtype: str = "float32"
    requested: bool = field(default=False, compare=False)

    @property
    def variant(self) -> str:
        """The variant's name (for people: titles, JSON ``variant``)."""
        return self.rules.name

    def describe(self) -> dict[str, Any]:
        """The configuration as plain data."""
        return {"variant": self.variant, "theta": self.theta, "dtype": self.dtype}

    def advised(self, use: Callable[[YatzyTable | SavedTable | PlainTable], Any]) -> Any:
        """``use(table)`` on the table advice reads: this process's, else the stored rows,
        read a few at a time without numpy (:class:`~diceopt.games.yatzy.kernel.plain.PlainTable`,
        each block checked before it is used), else :meth:`table`. A damaged stored
        table is reported (one line), solved again and stored; ``use`` then runs on that."""
        key = table_memo(self.rules, self.theta, self.dtype)
        if key in TABLES or self.rules.saved_rerolls:
            return use(self.table())
        try:
            rows = stored_rows(self.rules, self.theta, self.dtype)
            if rows is None:  # not stored, or stored without block checksums
                return use(self.table())
            from diceopt.games.yatzy.kernel.plain import PlainTable

            return use(PlainTable(self.rules, rows, self.theta))
        except TableFileError as exc:
            path = table_path(self.rules, self.theta, self.dtype)
            warn(f"ignoring cached table {path}: {exc}; rebuilding it")
        return use(self.solved(force=True))

    def solved(self, force: bool = False) -> YatzyTable | SavedTable:
        """The table loaded (``force``: not) or solved (and stored), kept in this process."""
        key = table_memo(self.rules, self.theta, self.dtype)
        loaded = None if force else load_table(self.rules, self.theta, self.dtype)
        if loaded is not None:  # (read and warned once)
            TABLES[key] = loaded[0]
        else:
            with Stage(f"solving {self.variant} (first use)", "layers") as stage:
                TABLES[key], _ = get_table(
                    self.rules, self.theta, self.dtype, force=True, progress=stage.update
                )
        return TABLES[key]

    def first_turns(self) -> EarlyRows | None:
        """The first turns' rows under this table (:func:`early_table`): those this
        process holds, else the stored ones, loaded (checked); None when they are not
        stored (they are not built here; the table is loaded or solved as :meth:`table`
        does)."""
        if self.rules.saved_rerolls:
            return None
        return stored_early_rows(self.table())

    def distribution_rows(self, pos: Any = None, force: bool = False) -> EarlyRows | None:
        """The stored rows a distribution from ``pos`` (None: the start) reads: the first
        turns' rows (:meth:`first_turns`); from the start without them, the start's row
        stored by an earlier run (:func:`stored_start_row`); None
        when there are none, or with ``force`` (computed again)."""
        if force:
            return None
        rows = self.first_turns()
        if rows is None and pos is None and not self.rules.saved_rerolls:
            rows = stored_start_row(self.rules, self.theta, self.dtype)
        return rows

    def keep_start(self, pos: Any, dist: Any) -> None:
        """Store ``dist``, a distribution a pass computed from ``pos``, when ``pos`` is the
        start (None): the next run without the first turns' rows reads it (not for rules
        pasted into a request: a distribution asked for adds no file). No second look for
        the first turns' rows: :meth:`distribution_rows` looked (a damaged file warned
        once), and where they are stored they are read first."""
        if not self.requested and pos is None and dist.states is not None:
            store_start_row(self.rules, self.theta, self.dtype, dist)

    def table(self) -> YatzyTable | SavedTable:
        """The solved table (loaded or solved once per process; progress on a terminal;
        saved-rerolls variants: loaded only, see :func:`saved_table`)."""
        key = table_memo(self.rules, self.theta, self.dtype)
        if key in TABLES:
            return TABLES[key]
        if self.rules.saved_rerolls:
            return get_solved(self.rules, self.theta, self.dtype)
        return self.solved()


# --- target tables and target rows -------------------------------------------------------

ROWS_OBJECTIVE = "target-rows"
_ROWS: dict[tuple[str, str, str], Any] = {}  # (storage key, dtype, cache root) -> rows or table


def rows_key(rules: YatzyRules, dtype: str = "float32") -> storage.TableKey:
    """The storage key of a variant's target rows from the start (filed under
    ``rules.file_key``)."""
    return rules_key(rules, ROWS_OBJECTIVE, dtype, extra=("off", "top"))


def rows_path(rules: YatzyRules, dtype: str = "float32") -> Any:
    """Where the target rows of a variant are stored (a memory-mapped table file)."""
    return storage.mapped_path(rows_key(rules, dtype))


def _memo(rules: YatzyRules, dtype: str) -> tuple[str, str, str]:
    return (rules.storage_key, np.dtype(dtype).name, str(storage.cache_root()))


def loaded_rows(rules: YatzyRules, dtype: str = "float32") -> Any:
    """The target rows of a variant already in this process (or the full table used in
    their place), else None; no file is read."""
    return _ROWS.get(_memo(rules, dtype))


def forget_rows(rules: YatzyRules) -> None:
    """Drop the target rows of ``rules`` (every dtype and cache directory) from this
    process; the stored files stay."""
    for memo in [m for m in _ROWS if m[0] == rules.storage_key]:
        _ROWS.pop(memo, None)


def load_rows(rules: YatzyRules, dtype: str = "float32", full: bool = True) -> Any:
    """The target rows of a variant from the start: from this process, else
    (``full``) a stored full target table that holds every k, else the stored rows
    (memory-mapped, every block checked); None when neither is stored (a damaged file:
    one warning). Readers that have looked for the full table already pass ``full``
    False."""
    from diceopt.games.yatzy.analyses.targets import TargetRows, check_layout

    memo = _memo(rules, dtype)
    if memo in _ROWS:
        return _ROWS[memo]
    table = stored_table(rules, dtype) if full else None  # header checks only, here
    if table is not None and table.kmax >= rules.max_total:
        table = stored_table(rules, dtype, verified=True)  # and every block
        if table is not None:
            _ROWS[memo] = table
            return table
    got = storage.load(rows_key(rules, dtype), mapped=True, then="solving them again")
    if got is None:
        return None
    stored, _ = got
    h = stored.header
    if h.get("rules") != rules_header(rules) or h.get("kmax") != rules.max_total:
        storage.warn(f"ignoring cached table {rows_path(rules, dtype)}: other rules")
        return None
    a = stored.arrays
    nkeys = (1 << rules.num_categories) * rules.flags * (rules.bonus_threshold + 1)
    why = check_layout(a["values"], a["off"], a["top"], nkeys, rules.max_total)
    if why:
        storage.warn(f"ignoring cached table {rows_path(rules, dtype)}: {why}; solving them again")
        return None
    _ROWS[memo] = TargetRows(
        rules, a["values"], a["off"], a["top"], int(h["kmax"]), (0, 0, 0),
        float(h.get("seconds", 0.0)), int(h.get("states", 0)), int(a["values"].size),
    )  # fmt: skip
    return _ROWS[memo]


def build_rows(rules: YatzyRules, dtype: str = "float32", report: Build | None = None) -> bool:
    """Solve the target rows of a variant from the start, store them and keep them
    in this process (the stored copy, memory-mapped, when it could be written); whether
    they were stored. ``report``: progress (layers), then the ``storing`` stage."""
    from diceopt.games.yatzy.analyses.targets import solve_target_from
    from diceopt.games.yatzy.stored.target_files import draft_alloc, target_meta

    progress = None if report is None else report.update
    kmax = rules.max_total
    nkeys = (1 << rules.num_categories) * rules.flags * (rules.bonus_threshold + 1)
    with storage.MappedDraft(rows_path(rules, dtype), rows_key(rules, dtype)) as draft:
        alloc = draft_alloc(draft, rules, kmax, nkeys)  # solved into the file's pages
        rows = solve_target_from(rules, 0, 0, 0, kmax, dtype=dtype, progress=progress, alloc=alloc)
        if report is not None:
            report.set_stage("storing")
        arrays = {"values": rows.data, "off": rows.off, "top": rows.top}
        saved = draft.store(arrays, target_meta(rules, rows.kmax, rows.seconds, rows.states))
    memo = _memo(rules, dtype)
    _ROWS.pop(memo, None)
    if saved and load_rows(rules, dtype) is not None:
        return True  # the stored copy: its pages are shared with other processes
    _ROWS[memo] = rows
    return saved


# --- the tables as the table store sees them -------------------------------------------


def expected_table(rules: YatzyRules, theta: float = 0.0, dtype: str = "float32") -> Table:
    """The expected-score (theta 0) or exponential-utility table of a variant."""
    key = table_memo(rules, theta, dtype)
    what = "expected-score" if theta == 0 else f"theta {theta:g}"

    def load() -> bool:
        got = load_table(rules, theta, dtype)
        if got is None:
            return False
        TABLES[key] = got[0]
        return True

    def build(report: Build) -> bool:
        table, info = get_table(rules, theta, dtype, force=True, progress=report.update)
        TABLES[key] = table
        return info.saved

    return Table(
        name=f"yatzy/{rules.storage_key} {what} table {dtype}",
        title=f"the {what} table of {rules.name}",
        path=table_path(rules, theta, dtype),
        ready=lambda: key in TABLES,
        load=load,
        build=build,
        cost="seconds to a minute",
    )


def target_table(rules: YatzyRules, dtype: str = "float32") -> Table:
    """The target rows from the start of a variant (see the module docstring)."""
    from diceopt.games.yatzy.analyses.targets import table_kmax

    def stored() -> bool:
        if rows_path(rules, dtype).exists():
            return True
        return table_kmax(rules) >= rules.max_total and targets_path(rules, dtype).exists()

    return Table(
        name=f"yatzy/{rules.storage_key} target rows {dtype}",
        title=f"the target table of {rules.name}",
        path=rows_path(rules, dtype),
        ready=lambda: loaded_rows(rules, dtype) is not None,
        load=lambda: load_rows(rules, dtype) is not None,
        build=lambda report: build_rows(rules, dtype, report),
        cost="about 45 s on 2 cores and 0.8 GB of disk for a full variant",
        stored=stored,
    )


_TARGETS: dict[tuple[str, str, str], TargetTable] = {}


def stored_table(
    rules: YatzyRules, dtype: str = "float32", verified: bool = False
) -> TargetTable | None:
    """The stored full table of a named variant, checked lazily (loaded once per process
    and cache directory), or None. ``verified``: every block checked now (for readers of
    ``values`` that bypass the lazy checks, e.g. numba kernels); a bad block gives one
    warning line and None."""
    from diceopt.games.yatzy.stored.target_files import load_targets

    memo = (rules.storage_key, np.dtype(dtype).name, str(storage.cache_root()))
    if memo not in _TARGETS:
        if not targets_path(rules, dtype).exists():
            return None
        got = load_targets(rules, dtype, verify="lazy", then="solving what is needed instead")
        if got is None:
            return None
        _TARGETS[memo] = got[0]
    if verified:
        try:
            _TARGETS[memo].verify()
        except storage.TableFileError as exc:
            del _TARGETS[memo]
            storage.warn(f"ignoring cached table: {exc}; solving what is needed instead")
            return None
    return _TARGETS[memo]


_FULL: dict[tuple[str, str, str], Any] = {}


def full_targets(rules: YatzyRules, dtype: str = "float32") -> Any:
    """Target rows for every state of a variant, resolved once per process and cache
    directory: the stored full table (memory-mapped) when there is one, else the stored
    target rows from the start, else a solve from the start of the game kept in memory
    only (progress on stderr; ``diceopt yatzy targets`` stores the full table for next
    time). The same values whichever of the three answers."""
    from diceopt.games.yatzy.analyses.targets import solve_target_from

    memo = (rules.storage_key, np.dtype(dtype).name, str(storage.cache_root()))
    if memo not in _FULL:
        table: Any = stored_table(rules, dtype, verified=True)
        if table is None:
            table = load_rows(rules, dtype, full=False)  # the stored rows from the start
        if table is None:
            with Stage(f"solving the {rules.name} targets from the start", "layers") as stage:
                table = solve_target_from(
                    rules, 0, 0, 0, rules.max_total, dtype=dtype, progress=stage.update
                )
        _FULL[memo] = table
    return _FULL[memo]


# --- early rows ---------------------------------------------------------------------------


def forget_target_tables() -> None:
    """Drop the full target tables loaded in this process (a stored one was found bad)."""
    _TARGETS.clear()
    _FULL.clear()


EARLY_FILLED = 3  # turn-start states with at most this many boxes filled are stored
EARLY_OBJECTIVE = "early-rows"  # (before the rates were stored: "early-pmfs")
_EARLY: dict[int, tuple[Any, Any]] = {}  # id(solved table) -> (solved table, EarlyRows)
_EARLY_LOCK = threading.Lock()


def forget_early(rules: YatzyRules) -> None:
    """Drop the early rows kept for the tables of ``rules`` (by storage key) from this
    process; the stored files stay."""
    with _EARLY_LOCK:
        for k, (solved, _) in list(_EARLY.items()):
            if getattr(getattr(solved, "rules", None), "storage_key", None) == rules.storage_key:
                _EARLY.pop(k, None)


class EarlyRows:
    """The stored rows: P(points still to come = x) of each state with few boxes filled,
    and the chances of the upper bonus and of a Yatzy 50 from it."""

    def __init__(self, arrays: dict[str, np.ndarray], flags: int, threshold: int) -> None:
        self.values, self.off, self.length = arrays["values"], arrays["off"], arrays["length"]
        self.keys, self.rows = arrays["keys"], arrays["rows"]
        self.bonus_rate, self.yatzy_rate = arrays["bonus_rate"], arrays["yatzy_rate"]
        self.flags, self.threshold = int(flags), int(threshold)

    def row(self, mask: int, flag: int, upper: int) -> int | None:
        """The row of the turn-start state; None when it is not stored (more boxes filled,
        unreachable)."""
        key = (int(mask) * self.flags + int(flag)) * (self.threshold + 1) + min(
            int(upper), self.threshold
        )
        i = int(np.searchsorted(self.keys, key))
        if i >= self.keys.size or int(self.keys[i]) != key:
            return None
        return int(self.rows[i])

    def pmf(self, mask: int, flag: int, upper: int) -> np.ndarray | None:
        """P(points still to come = x), x = 0, 1, ... points (a float64 copy), from the
        turn-start state; None when it is not stored."""
        row = self.row(mask, flag, upper)
        if row is None:
            return None
        o = int(self.off[row])
        return np.array(self.values[o : o + int(self.length[row])], dtype=np.float64)

    def rates(self, mask: int, flag: int, upper: int) -> tuple[float, float] | None:
        """The chances (0-1) of the upper bonus and of a Yatzy 50 written from the
        turn-start state on; None when it is not stored."""
        row = self.row(mask, flag, upper)
        if row is None:
            return None
        return float(self.bonus_rate[row]), float(self.yatzy_rate[row])


def early_key(rules: YatzyRules, theta: float, dtype: str) -> storage.TableKey:
    """The storage key of a variant's early rows under the (rules, theta, dtype) table
    (filed under ``rules.file_key``)."""
    objective = f"{EARLY_OBJECTIVE}-{np.dtype(dtype).name}-policy"
    extra = ("off", "length", "keys", "rows", "bonus_rate", "yatzy_rate")
    return rules_key(rules, objective, "float64", extra=extra, theta=theta)


def early_rows(table: Any) -> EarlyRows | None:
    """The early rows of a solved table when they are loaded in this process, else None."""
    with _EARLY_LOCK:
        got = _EARLY.get(id(table))
    return got[1] if got is not None and got[0] is table else None


def early_stored(rules: YatzyRules, theta: float, dtype: str) -> bool:
    """Whether the early rows of the (rules, theta, dtype) table are stored in the default
    cache directory (a file there; :func:`load_early` checks it)."""
    return not rules.saved_rerolls and storage.mapped_path(early_key(rules, theta, dtype)).exists()


def stored_early_rows(table: Any) -> EarlyRows | None:
    """The early rows of a solved table: those this process holds, else the stored ones,
    loaded (checked) when ``table`` is this process's table of its rules; None when they
    are not stored (they are not built here) or ``table`` is another one."""
    rows = early_rows(table)
    if rows is not None or table.rules.saved_rerolls:
        return rows
    rules, theta, dtype = table.rules, table.theta, table.values.dtype.name
    if TABLES.get(table_memo(rules, theta, dtype)) is not table:
        return None
    if load_early(rules, theta, dtype, "not reading them"):
        return early_rows(table)
    return None


def _keep_early(solved: Any, arrays: dict[str, np.ndarray]) -> None:
    rules = solved.rules
    with _EARLY_LOCK:
        _EARLY[id(solved)] = (solved, EarlyRows(arrays, rules.flags, rules.bonus_threshold))


def build_early(rules: YatzyRules, theta: float, dtype: str, report: Build | None = None) -> bool:
    """Compute the early rows of a variant's (theta, dtype) table, store them and keep them
    in this process; whether they were stored."""
    from diceopt.games.yatzy.analyses.distribution import state_distributions

    solved = get_solved(rules, theta, dtype)
    arrays = _early_arrays(state_distributions(solved, dtype="float64", filled=EARLY_FILLED))
    if report is not None:
        report.set_stage("storing")
    return _store_early(solved, theta, dtype, arrays)


def _early_arrays(sd: Any) -> dict[str, np.ndarray]:
    """The early rows (states with at most ``EARLY_FILLED`` boxes filled) of float64
    state distributions (:class:`~diceopt.games.yatzy.analyses.distribution.StateDistributions`)."""
    per_mask = sd.flags * (sd.threshold + 1)
    keys = np.flatnonzero(sd.slot >= 0)
    masks = keys // per_mask
    filled = np.array([bin(int(m)).count("1") for m in range(int(masks.max()) + 1)])[masks]
    keys = keys[filled <= EARLY_FILLED]
    old_rows, rows = np.unique(sd.slot[keys], return_inverse=True)
    length = sd.length[old_rows].astype(np.int64)
    off = np.concatenate(([0], np.cumsum(length)[:-1])).astype(np.int64)
    values = np.concatenate(
        [sd.data[int(sd.off[r]) : int(sd.off[r]) + int(sd.length[r])] for r in old_rows]
    ).astype(np.float64)
    return {
        "values": values,
        "off": off,
        "length": length,
        "keys": keys.astype(np.int64),
        "rows": rows.astype(np.int64),
        "bonus_rate": sd.bonus_rate[old_rows].astype(np.float64),
        "yatzy_rate": sd.yatzy_rate[old_rows].astype(np.float64),
    }


def _store_early(solved: Any, theta: float, dtype: str, arrays: dict[str, np.ndarray]) -> bool:
    """Store the early rows of ``solved`` (the (theta, dtype) table of its rules) and keep
    them in this process (the stored copy when it could be written); whether stored."""
    rules = solved.rules
    meta = {"early_filled": EARLY_FILLED, "rules": json_rules(rules)}
    saved = storage.store(early_key(rules, theta, dtype), arrays, meta, mapped=True)
    if saved and load_early(rules, theta, dtype):
        return True
    _keep_early(solved, arrays)
    return False


def load_early(
    rules: YatzyRules, theta: float, dtype: str, then: str = "computing them again"
) -> bool:
    """Load the stored early rows (memory-mapped, checked) for the solved table in this
    process; False when they are not stored or were made for other rules (a damaged file:
    one warning line ending with ``then``, what the caller does instead)."""
    got = storage.load(early_key(rules, theta, dtype), mapped=True, then=then)
    if got is None:
        return False
    stored, _ = got
    solved = get_solved(rules, theta, dtype)
    h = stored.header
    if h.get("early_filled") != EARLY_FILLED or h.get("rules") != json_rules(solved.rules):
        return False
    _keep_early(solved, dict(stored.arrays))
    return True


def json_rules(rules: Any) -> Any:
    """The rules as the stored header keeps them (JSON round trip)."""

    return json.loads(json.dumps(rules.describe(), default=str))


def json_rules_header(rules: YatzyRules) -> Any:
    """The rules without their name as a stored header keeps them (JSON round trip): a
    file serves every rule file with the same rules under any name."""
    return json.loads(json.dumps(rules_header(rules), default=str))


def early_table(rules: YatzyRules, theta: float = 0.0, dtype: str = "float32") -> Table:
    """The stored early rows under a variant's (theta, dtype) table, for the table store."""
    what = "expected-score" if theta == 0 else f"theta {theta:g}"

    def ready() -> bool:
        solved = TABLES.get(table_memo(rules, theta, dtype))
        return solved is not None and early_rows(solved) is not None

    return Table(
        name=f"yatzy/{rules.storage_key} early distributions {what} {dtype}",
        title=f"the first turns' score distributions of {rules.name} ({what} play)",
        path=storage.mapped_path(early_key(rules, theta, dtype)),
        ready=ready,
        load=lambda: load_early(rules, theta, dtype),
        build=lambda report: build_early(rules, theta, dtype, report),
        cost="about 5 s on 2 cores, 1.5 GB of memory while it runs",
    )


# --- the distribution from the start, once computed ----------------------------------------

START_OBJECTIVE = "start-row"
START_SUM_TOLERANCE = 1e-9  # |sum of the probabilities - 1| a stored row may show
START_ARRAYS = ("off", "length", "keys", "rows", "bonus_rate", "yatzy_rate")  # after "values"


def start_key(rules: YatzyRules, theta: float, dtype: str) -> storage.TableKey:
    """The storage key of the start's row under the (rules, theta, dtype) table."""
    objective = f"{START_OBJECTIVE}-{np.dtype(dtype).name}-policy"
    return rules_key(rules, objective, "float64", extra=START_ARRAYS, theta=theta)


def stored_start_row(rules: YatzyRules, theta: float, dtype: str) -> EarlyRows | None:
    """The stored row of the start under the (rules, theta, dtype) table, checked; None
    when none is stored, or one that does not hold (one warning line) or was made for
    other rules."""
    if rules.saved_rerolls:
        return None
    got = storage.load(start_key(rules, theta, dtype), then="computing it again")
    if got is None:
        return None
    stored, _ = got
    if stored.header.get("rules") != json_rules_header(rules):
        return None
    arrays = dict(stored.arrays)
    if not _holds(arrays, rules):
        warn("the stored distribution from the start does not hold: computing it again")
        return None
    return EarlyRows(arrays, rules.flags, rules.bonus_threshold)


def _holds(arrays: dict[str, np.ndarray], rules: YatzyRules) -> bool:
    """Whether ``arrays`` are one row at the start: P(points to come = x) for x = 0 ..
    at most the rules' most points, non-negative, the last positive, summing to 1, and
    two chances between 0 and 1."""
    values = arrays.get("values")
    if values is None or values.ndim != 1 or not 1 <= values.size <= rules.max_total + 1:
        return False
    one = {"off": 0, "length": values.size, "keys": 0, "rows": 0}
    for name, want in one.items():
        a = arrays.get(name)
        if a is None or a.shape != (1,) or a.dtype.kind != "i" or int(a[0]) != want:
            return False
    rates = [arrays.get("bonus_rate"), arrays.get("yatzy_rate")]
    if any(r is None or r.shape != (1,) or not 0.0 <= float(r[0]) <= 1.0 for r in rates):
        return False
    if not (np.all(np.isfinite(values)) and np.all(values >= 0.0) and values[-1] > 0.0):
        return False
    return abs(float(values.sum()) - 1.0) <= START_SUM_TOLERANCE


def store_start_row(rules: YatzyRules, theta: float, dtype: str, dist: Any) -> bool:
    """Store ``dist``, the distribution from the start under the (rules, theta, dtype)
    table (a :class:`~diceopt.games.yatzy.analyses.score_distribution.ScoreDistribution`
    with no points so far); whether it was stored (a failure: one warning line)."""
    if rules.saved_rerolls:
        return False
    one = np.ones(1, dtype=np.int64)
    arrays = {
        "values": np.asarray(dist.pmf, dtype=np.float64),
        "off": one * 0,
        "length": one * dist.pmf.size,
        "keys": one * 0,
        "rows": one * 0,
        "bonus_rate": np.array([dist.bonus_rate]),
        "yatzy_rate": np.array([dist.yatzy_rate]),
    }
    meta = {"rules": json_rules_header(rules)}
    return storage.store(start_key(rules, theta, dtype), arrays, meta)


# --- the distributions of every turn-start state (a table's chances at once) ------------

PMFS_OBJECTIVE = "state-pmfs"
_PMFS: dict[tuple[str, str, str], StatePmfs] = {}  # (storage key, dtype, cache root)
_PMFS_LOCK = threading.Lock()


class StatePmfs:
    """P(points still to come = x) of every turn-start state under the expected-score
    policy (the rows of :func:`diceopt.games.yatzy.analyses.distribution.state_distributions`):
    row ``slot[key]`` is ``data[off[row] : off[row] + length[row]]``."""

    def __init__(self, arrays: Mapping[str, np.ndarray], flags: int, threshold: int) -> None:
        self.data, self.off = arrays["values"], arrays["off"]
        self.length, self.slot = arrays["length"], arrays["slot"]
        self.flags, self.threshold = int(flags), int(threshold)

    def pmf(self, mask: int, flag: int, upper: int) -> np.ndarray | None:
        """P(points still to come = x) (a float64 copy), or None for a state no play
        reaches."""
        key = (int(mask) * self.flags + int(flag)) * (self.threshold + 1)
        key += min(int(upper), self.threshold)
        row = int(self.slot[key]) if 0 <= key < self.slot.size else -1
        if row < 0:
            return None
        o = int(self.off[row])
        return np.array(self.data[o : o + int(self.length[row])], dtype=np.float64)


def pmfs_key(rules: YatzyRules, dtype: str) -> storage.TableKey:
    """The storage key of a variant's state distributions under its (theta 0, ``dtype``)
    table."""
    objective = f"{PMFS_OBJECTIVE}-{np.dtype(dtype).name}-policy"
    return rules_key(rules, objective, "float32", extra=("off", "length", "slot"))


def loaded_pmfs(rules: YatzyRules, dtype: str = "float32") -> StatePmfs | None:
    """The state distributions of a variant if this process holds them, else None."""
    with _PMFS_LOCK:
        return _PMFS.get(_memo(rules, dtype))


def load_pmfs(rules: YatzyRules, dtype: str = "float32") -> bool:
    """Load the stored state distributions (memory-mapped, checked); False when they are
    not stored or were made for other rules."""
    got = storage.load(pmfs_key(rules, dtype), mapped=True, then="computing them again")
    if got is None:
        return False
    stored, _ = got
    if stored.header.get("rules") != json_rules_header(rules):
        return False
    with _PMFS_LOCK:
        _PMFS[_memo(rules, dtype)] = StatePmfs(stored.arrays, rules.flags, rules.bonus_threshold)
    return True


def build_pmfs(rules: YatzyRules, dtype: str = "float32", report: Build | None = None) -> bool:
    """Compute the state distributions (float32 rows), store them and keep them in this
    process (the stored copy when it could be written); whether they were stored. The
    distributions are computed in float64 (the float32 rows are their rounding), so the
    early rows of the same table come with them, kept in float64 in the same pass: stored
    too, unless they are already loaded (one pass instead of two; the later layers go
    straight to float32 rows: 0.8 GB less than float64 rows and their copy)."""
    from diceopt.games.yatzy.analyses.distribution import state_distributions

    solved = get_solved(rules, 0.0, dtype)
    need_early = early_rows(solved) is None
    sd = state_distributions(solved, dtype="float32", early=EARLY_FILLED if need_early else None)
    early = None if sd.early is None else _early_arrays(sd.early)
    arrays: dict[str, np.ndarray] = {
        "values": sd.data,
        "off": sd.off.astype(np.int64),
        "length": sd.length.astype(np.int64),
        "slot": sd.slot.astype(np.int64),
    }
    del sd
    if early is not None:  # kept before the storing stage, where the next build may start
        _keep_early(solved, early)
    if report is not None:
        report.set_stage("storing")
    if early is not None:
        _store_early(solved, 0.0, dtype, early)
        del early
    meta = {"rules": json_rules_header(rules)}
    saved = storage.store(pmfs_key(rules, dtype), arrays, meta, mapped=True)
    if saved and load_pmfs(rules, dtype):
        return True
    with _PMFS_LOCK:
        _PMFS[_memo(rules, dtype)] = StatePmfs(arrays, rules.flags, rules.bonus_threshold)
    return False


def forget_pmfs(rules: YatzyRules) -> None:
    """Drop the state distributions of ``rules`` from this process (the files stay)."""
    with _PMFS_LOCK:
        for memo in [m for m in _PMFS if m[0] == rules.storage_key]:
            _PMFS.pop(memo, None)


def state_pmfs_table(rules: YatzyRules, dtype: str = "float32") -> Table:
    """The stored distributions of every turn-start state, for the table store."""
    return Table(
        name=f"yatzy/{rules.storage_key} state distributions {dtype}",
        title=f"the score distributions of every state of {rules.name}",
        path=storage.mapped_path(pmfs_key(rules, dtype)),
        ready=lambda: loaded_pmfs(rules, dtype) is not None,
        load=lambda: load_pmfs(rules, dtype),
        build=lambda report: build_pmfs(rules, dtype, report),
        cost="about 10 s on 2 cores and 0.8 GB of disk for a full variant",
    )


def forget(rules: YatzyRules) -> None:
    """Drop every table of ``rules`` (by storage key) from this process: the solved
    tables, the target rows and the early-turn distributions; their files stay."""
    for memo in [k for k in TABLES if k[0] == rules.storage_key]:
        TABLES.pop(memo, None)
    for full in [k for k in _FULL if k[0] == rules.storage_key]:
        _FULL.pop(full, None)
    forget_rows(rules)
    forget_early(rules)
    forget_pmfs(rules)
