"""Benchmark: Scandinavian Yatzy solved from its rule file against the built-in path.

A rule file compiles into the same kernel arrays as the rules written in Python from the
style's category names (``YatzyRules()``), so the solve times should agree within noise
(the issue asks for 10%). Both are solved ``--repeat`` times, alternating, in float32
after a warm-up; the best CPU seconds of each and their ratio are printed, with the time
to read and compile the file (parse, extends, score tables) and a check that the kernel
arrays are identical. Prints one JSON object per line; CPU time (``process_time``) is
used because the machine may be shared.

    .venv/bin/python benchmarks/rule_files.py [--repeat 5] [--file PATH]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from diceopt.games.yatzy.kernel.arrays import kernel_arrays
from diceopt.games.yatzy.kernel.solve import solve_table, warm_up
from diceopt.games.yatzy.rulebook.compiler import SHIPPED_DIR, load_rules_text
from diceopt.games.yatzy.rulebook.rules import YatzyRules


def emit(**data) -> None:
    print(json.dumps(data), flush=True)


def cpu_solve(rules: YatzyRules) -> tuple[float, float]:
    """(CPU seconds, value) of one float32 solve."""
    t0 = time.process_time()
    table = solve_table(rules, dtype="float32")
    return time.process_time() - t0, float(table.value)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--file", default=str(SHIPPED_DIR / "scandinavian.toml"))
    args = ap.parse_args()
    warm_up("float32")
    text = open(args.file, encoding="utf-8").read()
    t0 = time.process_time()
    from_file = load_rules_text(text, "scandinavian-file")
    _ = from_file.score, from_file.joker_score
    compile_s = time.process_time() - t0
    builtin = YatzyRules(name="scandinavian")  # the style's names, no file read
    a, b = kernel_arrays(from_file, "float32"), kernel_arrays(builtin, "float32")
    same = all(
        np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
        for x, y in zip(a, b, strict=True)
    )
    emit(bench="rule_file_compile", file=args.file, cpu_seconds=compile_s, arrays_identical=same)
    times: dict[str, list[float]] = {"file": [], "builtin": []}
    values = {}
    for _ in range(args.repeat):
        for label, rules in (("file", from_file), ("builtin", builtin)):
            s, v = cpu_solve(rules)
            times[label].append(s)
            values[label] = v
    best = {k: min(v) for k, v in times.items()}
    emit(
        bench="rule_file_solve",
        variant="scandinavian",
        dtype="float32",
        repeat=args.repeat,
        file_cpu_seconds=best["file"],
        builtin_cpu_seconds=best["builtin"],
        ratio=best["file"] / best["builtin"],
        within_10_percent=abs(best["file"] / best["builtin"] - 1) <= 0.10,
        file_value=values["file"],
        builtin_value=values["builtin"],
        all_cpu_seconds=times,
    )


if __name__ == "__main__":
    main()
