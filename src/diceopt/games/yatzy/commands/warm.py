"""Yatzy's warm-up for ``diceopt warm``: every documented command on a three-category rule
file, in float32 (the named variants' default) and float64 (the rule files' default),
with and without saved rerolls, and with served points, so that numba's cache holds every
kernel they compile.

The kernels take the rules as arrays of the same types whatever the variant, so the
small rules compile what Scandinavian, American, Maxi, Yacht, Generala or a house rule
file run; only the table's float type, saved rerolls and served points (Generala: the
scalar widget's kernels) change what is compiled.
"""

from __future__ import annotations

from pathlib import Path

from diceopt.games.contract import WarmJob

SMALL_RULES = """\
name = "warm-small"
description = "three categories: every kernel compiles in a moment"
style = "american"
dice = 5
sides = 6
rerolls = 2
joker = "free"
yatzy_bonus = 100

[bonus]
threshold = 3
points = 35

[categories.ones]
kind = "face"
face = 1

[categories.chance]
kind = "chance"

[categories.yahtzee]
kind = "yatzy"
score = 50
"""

SERVED_RULES = """\
name = "warm-small-served"
description = "three categories, one with served points (as Generala's): the scalar widget"
dice = 5
sides = 6
rerolls = 2
joker = "none"
yatzy_bonus = 0

[bonus]
points = 0

[categories.ones]
kind = "face"
face = 1

[categories.full]
kind = "full_house"
score = 30
served = 35

[categories.generala]
kind = "yatzy"
score = 50
"""

SAVED_RULES = 'extends = "warm-small.toml"\nname = "warm-small-saved"\nsaved_rerolls = true\n'
POSITION = "dice 1 1 3 5 6 | rerolls 2 | score 0"
FINISHED = "filled ones chance yahtzee | upper 2 | score 22"  # an opponent whose game is over


def warm_jobs(folder: Path) -> list[WarmJob]:
    """One job per float type and per saved rerolls (rule files written into ``folder``):
    solve (expected score and risk), advise (expected, target, against an opponent, a
    finished one and two), simulate, distribution, targets, duel, export and a table's
    chances; with saved rerolls solve and advise (what that variant offers); with served
    points (float64) simulate and distribution (the other commands' kernels are the same
    as without)."""
    small, saved = folder / "warm-small.toml", folder / "warm-small-saved.toml"
    served = folder / "warm-small-served.toml"
    small.write_text(SMALL_RULES)
    saved.write_text(SAVED_RULES)
    served.write_text(SERVED_RULES)
    jobs = []
    for dtype in ("float32", "float64"):
        rules = ["--rules", str(small), "--dtype", dtype]
        yatzy = [
            ["solve", *rules],
            ["solve", *rules, "--theta", "0.01"],
            ["advise", POSITION, *rules],
            ["advise", POSITION, *rules, "--target", "40"],
            ["advise", POSITION, *rules, "--opponent", "filled chance | score 20"],
            # against a finished opponent: the exact draw-aware rows (float64 whatever the
            # table's type); against two: the table's chance steps (a table of 2 to 6)
            ["advise", POSITION, *rules, "--opponent", FINISHED],
            ["advise", POSITION, *rules, "--opponent", FINISHED, "--opponent", "score 0"],
            ["simulate", *rules, "--games", "50"],
            ["distribution", *rules],
            ["targets", *rules],
            ["duel", *rules, "--games", "20"],
            ["export", *rules, "--rows", "10", str(folder / f"rows-{dtype}.parquet")],
            [
                "chances",
                *rules,
                "--player",
                "a: filled chance | score 20",
                "--player",
                "b: score 0",
            ],
        ]
        jobs.append(WarmJob(f"yatzy {dtype}", [["yatzy", *argv] for argv in yatzy], 60.0))
        rules = ["--rules", str(saved), "--dtype", dtype]
        with_saved = [
            ["solve", *rules],
            ["advise", "dice 1 1 3 5 6 | rerolls 2 | filled chance | score 20 | saved 1", *rules],
        ]
        jobs.append(
            WarmJob(f"yatzy saved {dtype}", [["yatzy", *argv] for argv in with_saved], 20.0)
        )
    # served points (Generala) take the scalar widget's kernels instead of the lanes'; in
    # float64, the rule files' type
    rules = ["--rules", str(served), "--dtype", "float64"]
    with_served = [["simulate", *rules, "--games", "50"], ["distribution", *rules]]
    jobs.append(WarmJob("yatzy served float64", [["yatzy", *argv] for argv in with_served], 15.0))
    return jobs
