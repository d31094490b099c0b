"""Benchmark: after ``diceopt warm``, what does a command spend compiling on first use?

On an empty numba cache (NUMBA_CACHE_DIR) and an empty table cache, runs ``diceopt warm``
(timed, its jobs' seconds), then each documented command in a fresh process of its own
(its first use), for every game and for Yatzy's shipped rules (the named variants,
Yacht, Generala, Kniffel, the house example), recording numba's compile events. Prints
one JSON line per command (seconds, compile seconds) and a summary: the warm-up's
seconds, the most any command compiled (the goal: at most 2 s) and the load average.

With ``--as-is``: no warm-up and the package's own numba cache, as it is (after ``make
run``: what a user's first command still compiles). With ``--docs``: the examples the
README and the docs show instead, as ``tests/test_docs.py`` runs them (those it runs, in
a folder of their page's own with its files, text typed at prompts), each in a fresh
process with at most ``DOC_SECONDS``.

    .venv/bin/python benchmarks/compile_ahead.py [--as-is] [--docs]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from compile_cold import COMMANDS

RULE_FILES = ["yacht", "generala", "kniffel", "examples/rules/house.toml"]
YATZY = [
    ["simulate", "--games", "2000"],
    ["distribution"],
    ["advise", "dice 1 3 3 5 6 | rerolls 2 | score 0"],
]
VARIANTS = [["--variant", "american"], ["--variant", "maxi"]]
MAXI_POSITION = "dice 1 3 3 5 6 6 | rerolls 2 | score 0"
# advice to win (docs/games/yatzy-win.md): against one opponent, against two, and against
# one who has finished (the exact draw-aware rows); late in a Scandinavian game, so that
# the target rows solved from the position (no stored rows here) take a moment
LATE = "ones twos threes fours fives sixes one_pair two_pairs three_of_a_kind four_of_a_kind "
LATE += "small_straight large_straight"
LATE_POSITION = f"dice 2 5 6 6 6 | rerolls 1 | filled {LATE} | upper 60 | score 160"
FORCED = "dice 1 3 3 5 6 | rerolls 2 | filled ones twos threes | upper 9 | score 9"
TO_WIN = [
    ["advise", FORCED, "--variant", "scandinavian-forced",
     "--opponent", "filled ones twos threes | upper 7 | score 7"],
    ["advise", LATE_POSITION, "--opponent", f"filled {LATE} | upper 63 | score 200",
     "--opponent", f"filled {LATE} full_house | upper 63 | score 215"],
    ["advise", LATE_POSITION,
     "--opponent", f"filled {LATE} full_house chance yatzy | upper 63 | score 230"],
]  # fmt: skip

CHILD = r"""
import json, sys, time
from numba.core import event
from diceopt.cli import main

rec = event.RecordingListener()
t0 = time.perf_counter()
with event.install_listener("numba:compile", rec):
    try:
        code = main(json.loads(sys.argv[1]))
    except SystemExit as exc:
        code = exc.code
seconds = time.perf_counter() - t0
depth, start, compiling = 0, 0.0, 0.0
for ts, ev in rec.buffer:
    if ev.is_start:
        start = ts if depth == 0 else start
        depth += 1
    else:
        depth -= 1
        compiling += ts - start if depth == 0 else 0.0
print(json.dumps({"exit": code, "seconds": round(seconds, 3),
                  "compile_seconds": round(compiling, 3)}))
"""


ROOT = Path(__file__).resolve().parent.parent
DOC_SECONDS = 300  # most seconds one documented example may take here


def documented(tmp: str) -> list[tuple[list[str], str, str]]:
    """The examples ``tests/test_docs.py`` runs: (argv after ``diceopt``, the text typed at
    its prompts, the folder it runs in: one per page under ``tmp``, holding the files the
    page shows)."""
    sys.path.insert(0, str(ROOT / "tests"))
    import test_docs

    out = []
    for example in test_docs.RUN:
        page = example.block.page
        folder = Path(tmp) / "pages" / str(page.relative_to(ROOT)).replace("/", "-")
        if not folder.exists():
            folder.mkdir(parents=True)
            for block in test_docs.ALL_BLOCKS:
                if block.page == page and block.title:
                    (folder / block.title).parent.mkdir(parents=True, exist_ok=True)
                    (folder / block.title).write_text("\n".join(block.lines) + "\n")
        argv, typed = test_docs.split_command(example.command)
        out.append((argv, typed, str(folder)))
    return out


def first_uses(tmp: str) -> list[list[str]]:
    """The documented commands (advice to win included), then Yatzy's on every other shipped
    rules."""
    argv = [[a.replace("{tmp}", tmp) for a in cmd] for cmd in COMMANDS]
    argv += [["yatzy", *cmd] for cmd in TO_WIN]
    for rules in [*VARIANTS, *(["--rules", name] for name in RULE_FILES)]:
        cmds = YATZY
        if "maxi" in rules:
            # six dice; its distribution from the start needs more than 12 GB
            # (docs/games/yatzy.md), its kernels are the other variants' distributions'
            cmds = [["simulate", "--games", "2000"], ["advise", MAXI_POSITION]]
        argv += [["yatzy", *cmd, *rules] for cmd in cmds]
    return argv


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--as-is",
        action="store_true",
        help="no warm-up and no empty numba cache: the first uses on the package's cache as "
        "it is now (e.g. right after `make run`)",
    )
    parser.add_argument(
        "--docs", action="store_true", help="every `$ diceopt` example of the README and docs"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="compile-ahead-") as tmp:
        env = dict(os.environ, DICEOPT_CACHE=f"{tmp}/tables")
        warm_seconds, warm_ok = 0.0, True
        if not args.as_is:
            env["NUMBA_CACHE_DIR"] = f"{tmp}/numba"
            t0 = time.perf_counter()
            warm = subprocess.run(
                [sys.executable, "-m", "diceopt", "warm", "--json"],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            warm_seconds = time.perf_counter() - t0
            warm_ok = warm.returncode == 0
            jobs = json.loads(warm.stdout) if warm_ok else {"error": warm.stderr[-500:]}
            print(json.dumps({"benchmark": "compile_ahead_warm",
                              "seconds": round(warm_seconds, 1)} | jobs))  # fmt: skip
        worst, failed = 0.0, []
        runs = documented(tmp) if args.docs else [(a, "", None) for a in first_uses(tmp)]
        for argv, typed, folder in runs:
            try:
                out = subprocess.run(
                    [sys.executable, "-c", CHILD, json.dumps(argv)],
                    env=env,
                    input=typed,
                    capture_output=True,
                    text=True,
                    check=False,
                    cwd=folder,
                    timeout=DOC_SECONDS if args.docs else None,
                )
            except subprocess.TimeoutExpired:
                print(json.dumps({"benchmark": "compile_ahead", "command": shlex.join(argv),
                                  "timed_out": DOC_SECONDS}))  # fmt: skip
                continue
            lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
            row = json.loads(lines[-1]) if lines else {"exit": out.returncode}
            if row.get("exit") not in ((0, 2) if args.docs else (0,)):
                failed.append(" ".join(argv))
            worst = max(worst, row.get("compile_seconds", 0.0))
            print(json.dumps({"benchmark": "compile_ahead", "command": " ".join(argv)} | row))
    print(
        json.dumps(
            {
                "benchmark": "compile_ahead_summary",
                "warm_seconds": round(warm_seconds, 1) if not args.as_is else None,
                "most_compile_seconds": worst,
                "failed": failed,
                "load_average": os.getloadavg(),
            }
        )
    )
    return 0 if warm_ok and not failed else 1


if __name__ == "__main__":
    raise SystemExit(main())
