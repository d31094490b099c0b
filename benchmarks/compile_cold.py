"""Benchmark: what a cold start costs, the numba compile of every kernel the documented
commands use, with an empty numba cache.

Runs, in one fresh process with an empty numba cache directory (NUMBA_CACHE_DIR) and an
empty table cache, a command of each kind the docs show, on small rules so that the time
is the compile, not the work: every game's solve and advice, Yatzy's simulate,
distribution, targets, duel, export and saved rerolls, the rule files. numba's event
API times every compile (``numba:compile`` events, the outermost ones only). Prints one
JSON line per command (seconds, compile seconds, new specializations) and a summary:
total compile seconds, the number of kernel specializations (compiled signatures of
every diceopt dispatcher), the most specialized kernels, and the load average.

With ``--against REV`` the same benchmark of an earlier revision of the repository runs
first, on the same machine and interpreter (its own ``benchmarks/compile_cold.py`` on
its own sources, from ``git archive``), and a last line compares the commands both ran
without error: their compile seconds then and now and the ratio (issue 28's goal: at
most 0.5 against 4409904, the benchmark's first revision).

    .venv/bin/python benchmarks/compile_cold.py [--against 4409904]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

COMMANDS = [
    ["stick", "solve", "--dice", "3"],
    ["stick", "simulate", "--dice", "3", "--games", "1000"],
    ["shutbox", "solve"],
    ["pig", "solve", "--goal", "30"],
    ["zilch", "solve"],
    ["farkle", "solve", "--goal", "2000"],
    ["zombie", "solve", "--goal", "5"],
    ["yatzy", "solve", "--variant", "scandinavian"],
    ["yatzy", "solve", "--variant", "american", "--dtype", "float64"],
    ["yatzy", "advise", "dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 3"],
    ["yatzy", "simulate", "--games", "2000"],
    ["yatzy", "distribution", "--variant", "scandinavian-forced"],
    ["yatzy", "targets", "--variant", "scandinavian-forced"],
    ["yatzy", "duel", "--variant", "scandinavian-forced", "--games", "200"],
    ["yatzy", "export", "--rows", "100", "--variant", "scandinavian-forced", "{tmp}/x.parquet"],
    ["yatzy", "solve", "--rules", "yacht"],
    ["yatzy", "solve", "--rules", "generala"],
]

CHILD = r"""
import json, os, sys, time
from numba.core import event

commands = json.loads(sys.argv[1])
from diceopt.cli import main

def specializations():
    import numba
    from numba.core.registry import CPUDispatcher
    count = {}
    for name, mod in list(sys.modules.items()):
        if not name.startswith("diceopt") or mod is None:
            continue
        for key, obj in vars(mod).items():
            if isinstance(obj, CPUDispatcher) and obj.__module__ == name:
                count[f"{name}.{key}"] = len(obj.signatures)
    return count

before = {}
for argv in commands:
    rec = event.RecordingListener()
    t0 = time.perf_counter()
    with event.install_listener("numba:compile", rec):
        try:
            code = main(argv)
        except SystemExit as exc:  # a command the parser refuses: recorded, the rest run
            code = exc.code
    seconds = time.perf_counter() - t0
    depth, start, compile_seconds = 0, 0.0, 0.0
    for ts, ev in rec.buffer:
        if ev.is_start:
            if depth == 0:
                start = ts
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                compile_seconds += ts - start
    now = specializations()
    new = sum(now.values()) - sum(before.values())
    before = now
    print(json.dumps({"command": " ".join(argv), "exit": code, "seconds": round(seconds, 3),
                      "compile_seconds": round(compile_seconds, 3), "new_specializations": new}),
          flush=True)
spec = specializations()
top = sorted(spec.items(), key=lambda kv: -kv[1])[:8]
print(json.dumps({"specializations": sum(spec.values()), "kernels": len(spec),
                  "most": dict(top)}), flush=True)
"""


ROOT = Path(__file__).resolve().parent.parent
GOAL_RATIO = 0.5  # issue 28: at most half the compile of the benchmark's first revision


def against(rev: str) -> list[dict]:
    """The per-command lines of ``rev``'s own compile_cold.py, run on ``rev``'s sources."""
    if rev.startswith("-"):  # a revision, never one of git's options
        print(f"compile_cold: {rev!r} is not a revision", file=sys.stderr)
        raise SystemExit(2)
    with tempfile.TemporaryDirectory(prefix="compile-cold-rev-") as tmp:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "src", "benchmarks"],
            capture_output=True,
            check=False,
        )
        if archive.returncode != 0:
            print(f"compile_cold: no revision {rev!r} with src and benchmarks", file=sys.stderr)
            raise SystemExit(2)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        env = dict(os.environ, PYTHONPATH=f"{tmp}/src")
        out = subprocess.run(
            [sys.executable, f"{tmp}/benchmarks/compile_cold.py"],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    return [r for r in rows if r.get("benchmark") == "compile_cold" and "command" in r]


def compare(rev: str, then: list[dict], now: list[dict]) -> dict:
    """The commands both runs ran without error: compile seconds then and now, ratio."""
    ok_then = {r["command"]: r for r in then if r["exit"] == 0}
    common = [r for r in now if r["exit"] == 0 and r["command"] in ok_then]
    before = sum(ok_then[r["command"]]["compile_seconds"] for r in common)
    after = sum(r["compile_seconds"] for r in common)
    return {
        "benchmark": "compile_cold_against",
        "against": rev,
        "commands": len(common),
        "then_compile_seconds": round(before, 2),
        "now_compile_seconds": round(after, 2),
        "then_specializations": sum(ok_then[r["command"]]["new_specializations"] for r in common),
        "now_specializations": sum(r["new_specializations"] for r in common),
        "ratio": round(after / before, 3) if before else None,
        "goal_ratio": GOAL_RATIO,
        "load_average": os.getloadavg(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", metavar="REV", help="an earlier revision to compare with")
    args = parser.parse_args()
    then = against(args.against) if args.against else None
    with tempfile.TemporaryDirectory(prefix="compile-cold-") as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=f"{tmp}/numba", DICEOPT_CACHE=f"{tmp}/tables")
        argv = [[a.replace("{tmp}", tmp) for a in cmd] for cmd in COMMANDS]
        out = subprocess.run(
            [sys.executable, "-c", CHILD, json.dumps(argv)],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    for row in rows:
        print(json.dumps({"benchmark": "compile_cold", **row}))
    runs = [r for r in rows if "command" in r]
    summary = rows[-1] if rows and "specializations" in rows[-1] else {}
    print(
        json.dumps(
            {
                "benchmark": "compile_cold_summary",
                "commands": len(runs),
                "failed": [r["command"] for r in runs if r["exit"] != 0],
                "compile_seconds": round(sum(r["compile_seconds"] for r in runs), 2),
                "seconds": round(sum(r["seconds"] for r in runs), 2),
                "specializations": summary.get("specializations"),
                "kernels": summary.get("kernels"),
                "most_specialized": summary.get("most"),
                "load_average": os.getloadavg(),
            }
        )
    )
    if then is not None:
        print(json.dumps(compare(args.against, then, runs)))
    if out.returncode != 0:
        print(out.stderr[-2000:], file=sys.stderr)
    return out.returncode


if __name__ == "__main__":
    raise SystemExit(main())
