"""Fingerprints of target tables and rows: the sha256 of their arrays, to check that a
change of the target kernels keeps every value bit for bit.

Prints one JSON object per line (name, seconds, sha256 of each array, load average):
full tables of reduced variants (Scandinavian, American with the joker rules and the
Yahtzee bonus, float32 and float64), target rows from the start and from a later
position (the forced-order variant, reduced variants, draw-aware rows) and, with
``--scandinavian``, Scandinavian's target rows from the start (about 90 s on 2 cores).
Compare two runs with ``diff``.

    .venv/bin/python benchmarks/target_fingerprints.py [--scandinavian] [--full-table]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os

import numpy as np


def sha(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def emit(name: str, seconds: float, **arrays: np.ndarray) -> None:
    data = {"name": name, **{k: sha(a) for k, a in arrays.items()}}
    data["seconds"] = round(seconds, 2)
    data["loadavg"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(data), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scandinavian", action="store_true", help="Scandinavian's rows too")
    parser.add_argument("--full-table", action="store_true", help="Scandinavian's full table too")
    args = parser.parse_args()

    from diceopt.games.yatzy.analyses.targets import solve_target_from, solve_targets
    from diceopt.games.yatzy.rulebook.variants import AMERICAN, SCANDINAVIAN, get_rules

    scand8 = SCANDINAVIAN.reduced(
        ("ones", "threes", "sixes", "one_pair", "two_pairs", "small_straight", "chance", "yatzy"),
        bonus_threshold=30,
    )
    amer = {
        mode: AMERICAN.reduced(
            ("twos", "fives", "three_of_a_kind", "full_house", "large_straight", "yahtzee"),
            bonus_threshold=12,
            joker=mode,
        )
        for mode in ("free", "forced")
    }
    tables = [
        ("scandinavian-8 full", scand8, "float32"),
        ("scandinavian-8 full", scand8, "float64"),
    ]
    tables += [(f"american-6-{m} full", r, "float32") for m, r in amer.items()]
    if args.full_table:
        tables.append(("scandinavian full", SCANDINAVIAN, "float32"))
    for name, rules, dtype in tables:
        t = solve_targets(rules, dtype=dtype)
        emit(f"{name} {dtype}", t.seconds, values=t.dense())
    forced = get_rules("scandinavian-forced")
    rows = [
        ("scandinavian-forced rows", forced, (0, 0, 0), forced.max_total, "float32", False),
        ("scandinavian-forced rows", forced, (0, 0, 0), forced.max_total, "float64", False),
        ("scandinavian-8 rows", scand8, (0, 0, 0), scand8.max_total, "float32", False),
        ("scandinavian-8 rows k=120", scand8, (0, 0, 0), 120, "float32", False),
        ("scandinavian-8 rows mid", scand8, (0b1001, 0, 9), 90, "float32", False),
        ("scandinavian-8 draw rows", scand8, (0, 0, 0), 150, "float32", True),
        ("american-6-free rows", amer["free"], (0, 0, 0), amer["free"].max_total, "float32", False),
    ]
    if args.scandinavian:
        rows.append(("scandinavian rows", SCANDINAVIAN, (0, 0, 0), SCANDINAVIAN.max_total,
                     "float32", False))  # fmt: skip
    for name, rules, (m, f, u), k, dtype, draw in rows:
        r = solve_target_from(rules, m, f, u, k, dtype=dtype, draw=draw)
        emit(f"{name} {dtype}", r.seconds, values=r.data, off=r.off, top=r.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
