"""The tables Yatzy's answers read, as :mod:`diceopt.tables` shares them between requests
and processes: expected-score tables and the target rows from the start.

Target rows from the start (:func:`start_rows`): ``solve_target_from`` from the empty
sheet for every target up to the variant's most points (``rules.max_total``). They hold,
for every state reachable in a game, P(points still to come >= k) for every k it can
still reach, so they answer every target and every opponent, from any position, exact
(the values of the full target table, without its unreachable states and the k no state
reaches): Scandinavian 0.80 GB (float32), American 0.84 GB with every Yahtzee bonus
(its full table stops at k = 750), forced order 0.2 MB. Stored memory-mapped beside the
other tables (objective ``target-rows``, arrays ``values``, ``off``, ``top``; header,
per-block checksums, atomic write: :mod:`diceopt.storage`). A stored full target table
(``diceopt yatzy targets``) that holds every k is used instead when there is one.

:func:`needed` names the tables an answer reads, for ``YatzySpec.tables``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from diceopt import storage
from diceopt.errors import InputError
from diceopt.games.yatzy.rules import YatzyRules
from diceopt.games.yatzy.storage import rules_header, rules_key
from diceopt.tables import Build, Table

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
    from diceopt.games.yatzy.target_store import stored_table
    from diceopt.games.yatzy.targets import TargetRows

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
    _ROWS[memo] = TargetRows(
        rules, a["values"], a["off"], a["top"], int(h["kmax"]), (0, 0, 0),
        float(h.get("seconds", 0.0)), int(h.get("states", 0)), int(a["values"].size),
    )  # fmt: skip
    return _ROWS[memo]


def build_rows(rules: YatzyRules, dtype: str = "float32", report: Build | None = None) -> bool:
    """Solve the target rows of a variant from the start, store them and keep them
    in this process (the stored copy, memory-mapped, when it could be written); whether
    they were stored. ``report``: progress (layers), then the ``storing`` stage."""
    from diceopt.games.yatzy.targets import solve_target_from

    progress = None if report is None else report.update
    rows = solve_target_from(rules, 0, 0, 0, rules.max_total, dtype=dtype, progress=progress)
    if report is not None:
        report.set_stage("storing")
    meta = {
        "seconds": rows.seconds,
        "states": rows.states,
        "kmax": rows.kmax,
        "rules": rules_header(rules),
    }
    arrays = {"values": rows.data, "off": rows.off, "top": rows.top}
    saved = storage.store(rows_key(rules, dtype), arrays, meta, mapped=True)
    memo = _memo(rules, dtype)
    _ROWS.pop(memo, None)
    if saved and load_rows(rules, dtype) is not None:
        return True  # the stored copy: its pages are shared with other processes
    _ROWS[memo] = rows
    return saved


# --- the tables as the table store sees them -------------------------------------------


def expected_table(rules: YatzyRules, theta: float = 0.0, dtype: str = "float32") -> Table:
    """The expected-score (theta 0) or exponential-utility table of a variant."""
    from diceopt.games.yatzy.solved import TABLES, table_memo
    from diceopt.games.yatzy.storage import get_table, load_table, table_path

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
    from diceopt.games.yatzy.target_store import targets_path
    from diceopt.games.yatzy.targets import table_kmax

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
        cost="about 90 s on 2 cores and 0.8 GB of disk for a full variant",
        stored=stored,
    )


MAX_TARGET_BYTES = 8e9  # the largest target table a server builds (American: 6.6 GB bound)


def target_bytes_bound(rules: Any, dtype: str = "float32") -> int:
    """An upper bound on the size of a variant's target rows (bytes): every state key
    times every k up to the most points (the rows hold less: 0.8 GB of Scandinavian's 3.1)."""
    keys = (1 << rules.num_categories) * rules.flags * (rules.bonus_threshold + 1)
    return keys * (int(rules.max_total) + 1) * np.dtype(dtype).itemsize


def check_target_size(config: Any, what: str, dtype: str = "float32") -> None:
    """InputError (one line) when the variant's target table is too large to build here
    (Maxi Yatzy: 2^20 sheets): ``what`` (e.g. "target advice") is not offered for it."""
    bound = target_bytes_bound(config.rules, dtype)
    if bound > MAX_TARGET_BYTES:
        raise InputError(
            f"{what} is not offered for {config.variant}: the target table it reads would "
            f"take up to {bound / 1e9:,.0f} GB"
        )
    if getattr(config, "requested", False):
        from diceopt.games.yatzy.requested import REQUESTED_TARGET_BYTES

        if bound > REQUESTED_TARGET_BYTES and not target_table(config.rules, dtype).is_stored():
            raise InputError(
                f"{what} is not offered for a pasted rule file this large: the target "
                f"table it reads (up to {bound / 1e6:,.0f} MB) is built for a rule file "
                "prepared on the server (`diceopt yatzy targets --rules FILE`)"
            )


RISK_THETAS = (-0.05, 0.05)  # win.RISK_THETA: the tables an opponent who plays to win uses


def check_request(config: Any, need: str, pos: Any, options: dict[str, Any]) -> None:
    """InputError (one line) for an answer that would fail once its tables are built: a
    target out of range, a bad opponent, both, a position whose game is over or without
    the score an opponent needs, a bad side in a game against the computer."""
    rules = config.rules
    if need == "advice":
        target, opponent = options.get("target"), options.get("opponent")
        if target is not None and opponent is not None:
            raise InputError("give either a target or an opponent, not both")
        if target is not None:
            from diceopt.games.yatzy.targets import check_target

            check_target(int(target), rules)
        if opponent is not None:
            from diceopt.games.yatzy.advice import Position
            from diceopt.games.yatzy.win import parse_opponent

            if not isinstance(opponent, Position):
                parse_opponent(opponent, rules)
            if pos is not None and pos.score is None:
                raise InputError("advice against an opponent needs your score ('score N')")
        if (target is not None or opponent is not None) and pos is not None:
            if pos.over(rules):
                raise InputError("the game is over: every category is filled")
    elif need == "versus" and pos is not None and "computer" in options:
        from diceopt.games.yatzy.versus import check_sides

        check_sides(config, pos, options["computer"])


def needed(config: Any, need: str = "advice", pos: Any = None, **options: Any) -> tuple[Table, ...]:
    """The tables an answer reads under ``config`` (a YatzyConfig): ``need`` "advice"
    (``options``: target, opponent, opponent_plays), "distribution", "versus"
    (``strategy``, and ``computer``: its side, when ``pos`` is the human's position) or
    "all" (everything the page offers). With ``pos`` (the position asked about) the
    request is checked first (:func:`check_request`: InputError, one line), so that a bad
    one never starts a build. Saved-rerolls variants: none (their table is solved by
    ``diceopt yatzy solve`` only)."""
    check_request(config, need, pos, options)
    if config.rules.saved_rerolls:
        return ()
    v, dtype = config.rules, config.dtype
    tables = [expected_table(v, config.theta, dtype)]
    if config.theta != 0.0 and need != "distribution":
        tables.append(expected_table(v, 0.0, dtype))
    to_win = False
    if need == "advice" and options.get("target") is not None:
        check_target_size(config, "target advice", dtype)
        tables.append(target_table(v, dtype))
    elif need == "advice" and options.get("opponent") is not None:
        check_target_size(config, "advice against an opponent")
        tables.append(target_table(v, "float32"))
        to_win = str(options.get("opponent_plays") or "expected").lower() == "win"
    elif need == "versus":
        check_target_size(config, "play against the computer")
        tables.append(target_table(v, "float32"))
        to_win = str(options.get("strategy") or "").strip().lower() == "win"
    elif need == "all" and target_bytes_bound(config.rules) <= MAX_TARGET_BYTES:
        tables.append(target_table(v, "float32"))
        to_win = True
    if to_win:
        tables += [expected_table(v, theta, dtype) for theta in RISK_THETAS]
    if need == "versus" or need == "all" and to_win:
        from diceopt.games.yatzy.early import early_table

        # a game against the computer: the distributions of the first turns' states
        thetas = (0.0, *RISK_THETAS) if to_win else (0.0,)
        tables += [early_table(v, theta, dtype) for theta in thetas]
    seen: dict[str, Table] = {}
    for t in tables:
        seen.setdefault(t.name, t)
    return tuple(seen.values())
