"""Benchmark: the whole Yatzy commands under every shipped rule set, against Scandinavian.

Rules with jokers, the American Yahtzee bonus, the Kniffel bonus or served scores go
through more of the rules than the plain Scandinavian ones; this prints what that costs a
user. For each rule set (``--rules``: variant names or rule files, Scandinavian first), in
a temporary cache directory (the table stored by an untimed first run): the whole
commands ``yatzy solve --force``, ``yatzy simulate --games N`` and ``yatzy distribution
--force`` (computed: no stored rows read) as fresh processes, the best of ``--whole`` runs: wall
and core seconds, the command's own compute seconds (what it reports: the solve, the
games, the pass over the states), the states or games, and the ratio of the compute
seconds per state (solve, distribution) or per game (simulate) to the first rule set's
(Scandinavian) in the same run. One JSON object per line, each with the 1-minute load
average at its start and end.

    .venv/bin/python benchmarks/yatzy_rule_sets.py [--games 1000000] [--whole 2]
        [--rules scandinavian american kniffel ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile

from whole_process import time_command

RULE_SETS = [
    "scandinavian",
    "american",
    "american-forced-joker",
    "kniffel",
    "generala",
    "yacht",
    "examples/rules/house.toml",
]
SHIPPED_FILES = {"kniffel", "generala", "yacht"}


def emit(**data) -> None:
    print(json.dumps(data), flush=True)


def rule_args(name: str) -> list[str]:
    """The command-line options that choose a rule set."""
    return (
        ["--rules", name]
        if name in SHIPPED_FILES or name.endswith(".toml")
        else [
            "--variant",
            name,
        ]
    )


def work_of(kind: str, answer: dict, games: int) -> tuple[int | None, float | None]:
    """States (solve, distribution) or games (simulate) of a command's answer, and its
    own compute seconds."""
    if kind == "solve":
        return answer.get("states"), answer.get("solve_seconds")
    return (games if kind == "simulate" else answer.get("states")), answer.get("seconds")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--whole", type=int, default=2, help="timed runs of each command")
    parser.add_argument("--rules", nargs="+", default=RULE_SETS)
    args = parser.parse_args()
    commands = {
        "solve": ["yatzy", "solve", "--force"],
        "simulate": ["yatzy", "simulate", "--games", str(args.games)],
        "distribution": ["yatzy", "distribution", "--force"],
    }
    per_unit: dict[str, float] = {}  # Scandinavian's seconds per state or game, per command
    with tempfile.TemporaryDirectory(prefix="rule-sets-") as cache:
        for name in args.rules:
            for kind, argv in commands.items():
                la0 = os.getloadavg()[0]
                try:
                    got = time_command([*argv, *rule_args(name)], cache, args.whole)
                except subprocess.CalledProcessError as exc:  # e.g. unknown rules: one line
                    err = exc.stderr or ""
                    err = err.decode(errors="replace") if isinstance(err, bytes) else err
                    last = err.strip().splitlines()[-1:]
                    emit(benchmark="yatzy_rule_sets", rules=name, command=kind, error=last)
                    continue
                answer = got.pop("answer") or {}
                work, compute = work_of(kind, answer, args.games)
                unit = compute / work if work and compute else None
                if name == args.rules[0] and unit:
                    per_unit[kind] = unit
                base = per_unit.get(kind)
                emit(
                    benchmark="yatzy_rule_sets",
                    rules=name,
                    command=kind,
                    whole_seconds=got["whole_seconds"],
                    whole_seconds_all=got["whole_seconds_all"],
                    whole_core_seconds=got["whole_core_seconds"],
                    compute_seconds=compute,
                    states_or_games=work,
                    ratio_per_unit_to_first=(unit / base) if unit and base else None,
                    first=args.rules[0],
                    load_average=[la0, os.getloadavg()[0]],
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
