"""Benchmark: the modules one Yatzy rules value passes through in a duel, and how often the
path climbs back to the table files from outside the module that hands out tables.

Plays a 200-game duel (win-seeking against expected score) on forced-order Scandinavian
Yatzy in an empty cache directory (every table built and stored on the way), then the
same duel again with the tables in memory, and records each call that receives the
rules object (or an object holding it). Prints one JSON line per duel: the modules
entered (count and list) and ``file_entries``, the calls into a table file module
(``diceopt.storage`` or the Yatzy file modules) from a module that is neither the store
nor ``diceopt.storage`` calling back the file module's own load and solve steps.

    .venv/bin/python benchmarks/rules_path.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile


def main() -> int:
    os.environ["DICEOPT_CACHE"] = tempfile.mkdtemp(prefix="rules-path-")
    import numpy as np

    from diceopt.games.yatzy.rulebook.variants import get_rules
    from diceopt.games.yatzy.winning.duel import duel, parse_strategy

    rules = get_rules("scandinavian-forced")
    win, expected = parse_strategy("win"), parse_strategy("expected")
    files = {
        "diceopt.storage",
        "diceopt.games.yatzy.stored.files",
        "diceopt.games.yatzy.stored.target_files",
        "diceopt.games.yatzy.stored.saved_files",
    }
    store_room = "diceopt.games.yatzy.stored"
    modules: list[str] = []
    entries: list[tuple[str, str]] = []

    def holds(value: object) -> bool:
        return value is rules or getattr(value, "rules", None) is rules

    def profile(frame, event, arg):  # noqa: ANN001 (the profiler's signature)
        if event != "call":
            return
        name = frame.f_globals.get("__name__", "")
        if not name.startswith("diceopt") or not any(map(holds, frame.f_locals.values())):
            return
        if name not in modules:
            modules.append(name)
        caller = frame.f_back.f_globals.get("__name__", "") if frame.f_back else ""
        if (
            name in files
            and caller not in (name, "diceopt.storage")
            and not caller.startswith(store_room)
        ):
            entries.append((caller, name))

    for cache in ("empty", "in memory"):
        modules.clear()
        entries.clear()
        sys.setprofile(profile)
        try:
            duel(rules, win, expected, 200, np.random.default_rng(0))
        finally:
            sys.setprofile(None)
        line = {
            "benchmark": "rules_path",
            "tables": cache,
            "modules": len(modules),
            "file_entries": len(entries),
            "entries": entries,
            "path": modules,
        }
        print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
