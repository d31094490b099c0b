"""The distributions of the points still to come from the first turns' states, stored.

A game against the computer asks, at each turn, for the distribution of the points still
to come of each side's turn-start state (:func:`diceopt.games.yatzy.win.points_to_come`:
the estimate, the computer's win-seeking turn, the hint to beat it). From the first
turns' states one such distribution takes seconds (Scandinavian: 3 s from the empty
sheet, 0.9 s after one box, 0.2 s after three; 2 cores), later ones a few hundredths.
So the rows of every reachable turn-start state with at most EARLY_FILLED boxes filled
are computed once, in one backward pass over every state
(:func:`diceopt.games.yatzy.distribution.state_distributions`, float64: the same
numbers the pass from one state gives), and stored memory-mapped beside the other
tables (objective ``early-pmfs``; arrays ``values`` (the rows end to end), ``off``,
``length``, ``keys`` (sorted flat state keys) and ``rows`` (each key's row)).
Scandinavian: about 15-30 s per table on 2 cores (1.5 GB of memory while it runs), 17 MB
stored.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from diceopt import storage
from diceopt.games.yatzy.rules import YatzyRules
from diceopt.games.yatzy.storage import rules_key
from diceopt.tables import Build, Table

EARLY_FILLED = 3  # turn-start states with at most this many boxes filled are stored
OBJECTIVE = "early-pmfs"
_LOADED: dict[int, tuple[Any, Any]] = {}  # id(solved table) -> (solved table, EarlyRows)
_LOCK = threading.Lock()


def forget(rules: YatzyRules) -> None:
    """Drop the early rows kept for the tables of ``rules`` (by storage key) from this
    process; the stored files stay."""
    with _LOCK:
        for k, (solved, _) in list(_LOADED.items()):
            if getattr(getattr(solved, "rules", None), "storage_key", None) == rules.storage_key:
                _LOADED.pop(k, None)


class EarlyRows:
    """The stored rows: P(points still to come = x) of each state with few boxes filled."""

    def __init__(self, arrays: dict[str, np.ndarray], flags: int, threshold: int) -> None:
        self.values, self.off, self.length = arrays["values"], arrays["off"], arrays["length"]
        self.keys, self.rows = arrays["keys"], arrays["rows"]
        self.flags, self.threshold = int(flags), int(threshold)

    def pmf(self, mask: int, flag: int, upper: int) -> np.ndarray | None:
        """P(points still to come = x), x = 0, 1, ... points (a float64 copy), from the
        turn-start state; None when it is not stored (more boxes filled, unreachable)."""
        key = (int(mask) * self.flags + int(flag)) * (self.threshold + 1) + min(
            int(upper), self.threshold
        )
        i = int(np.searchsorted(self.keys, key))
        if i >= self.keys.size or int(self.keys[i]) != key:
            return None
        row = int(self.rows[i])
        o = int(self.off[row])
        return np.array(self.values[o : o + int(self.length[row])], dtype=np.float64)


def early_key(rules: YatzyRules, theta: float, dtype: str) -> storage.TableKey:
    """The storage key of a variant's early rows under the (rules, theta, dtype) table
    (filed under ``rules.file_key``)."""
    objective = f"{OBJECTIVE}-{np.dtype(dtype).name}-policy"
    extra = ("off", "length", "keys", "rows")
    return rules_key(rules, objective, "float64", extra=extra, theta=theta)


def lookup(table: Any) -> EarlyRows | None:
    """The early rows of a solved table when they are loaded in this process, else None."""
    with _LOCK:
        got = _LOADED.get(id(table))
    return got[1] if got is not None and got[0] is table else None


def _keep(solved: Any, arrays: dict[str, np.ndarray]) -> None:
    rules = solved.rules
    with _LOCK:
        _LOADED[id(solved)] = (solved, EarlyRows(arrays, rules.flags, rules.bonus_threshold))


def build(rules: YatzyRules, theta: float, dtype: str, report: Build | None = None) -> bool:
    """Compute the early rows of a variant's (theta, dtype) table, store them and keep them
    in this process; whether they were stored."""
    from diceopt.games.yatzy.distribution import state_distributions
    from diceopt.games.yatzy.solved import get_solved

    solved = get_solved(rules, theta, dtype)
    sd = state_distributions(solved, dtype="float64")
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
    arrays = {
        "values": values,
        "off": off,
        "length": length,
        "keys": keys.astype(np.int64),
        "rows": rows.astype(np.int64),
    }
    del sd
    if report is not None:
        report.set_stage("storing")
    meta = {"early_filled": EARLY_FILLED, "rules": json_rules(solved.rules)}
    saved = storage.store(early_key(rules, theta, dtype), arrays, meta, mapped=True)
    if saved and load(rules, theta, dtype):
        return True
    _keep(solved, arrays)
    return False


def load(rules: YatzyRules, theta: float, dtype: str) -> bool:
    """Load the stored early rows (memory-mapped, checked) for the solved table in this
    process; False when they are not stored or were made for other rules."""
    from diceopt.games.yatzy.solved import get_solved

    got = storage.load(early_key(rules, theta, dtype), mapped=True, then="computing them again")
    if got is None:
        return False
    stored, _ = got
    solved = get_solved(rules, theta, dtype)
    h = stored.header
    if h.get("early_filled") != EARLY_FILLED or h.get("rules") != json_rules(solved.rules):
        return False
    _keep(solved, dict(stored.arrays))
    return True


def json_rules(rules: Any) -> Any:
    """The rules as the stored header keeps them (JSON round trip)."""
    import json

    return json.loads(json.dumps(rules.describe(), default=str))


def early_table(rules: YatzyRules, theta: float = 0.0, dtype: str = "float32") -> Table:
    """The stored early rows under a variant's (theta, dtype) table, for the table store."""
    from diceopt.games.yatzy.solved import TABLES, table_memo

    what = "expected-score" if theta == 0 else f"theta {theta:g}"

    def ready() -> bool:
        solved = TABLES.get(table_memo(rules, theta, dtype))
        return solved is not None and lookup(solved) is not None

    return Table(
        name=f"yatzy/{rules.storage_key} early distributions {what} {dtype}",
        title=f"the first turns' score distributions of {rules.name} ({what} play)",
        path=storage.mapped_path(early_key(rules, theta, dtype)),
        ready=ready,
        load=lambda: load(rules, theta, dtype),
        build=lambda report: build(rules, theta, dtype, report),
        cost="about 20 s on 2 cores, 1.5 GB of memory while it runs",
    )
