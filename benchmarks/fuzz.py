"""A longer run of the property-based checks of every registered game (``tests/fuzzing.py``):
hostile position texts, position JSON and actions, each advised, played or refused in one
line. Prints JSON: the inputs tried, the slowest one (seconds) and every failure (the
game, the kind of input, the exception, the input Hypothesis shrank it to).

    python benchmarks/fuzz.py [--examples N]   # N per game and kind (default 2000)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzzing import (  # noqa: E402
    GAMES,
    actions,
    check_action,
    check_position,
    position_json,
    position_texts,
)
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from diceopt.games.registry import games  # noqa: E402


def run(game_id: str, kind: str, examples: int) -> dict:
    """``examples`` inputs of one kind for one game: how many ran, the slowest, the failure."""
    spec = games()[game_id]
    rules = spec.reduced_rules()
    tried, slowest, last = 0, 0.0, [None]

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def one(data: st.DataObject) -> None:
        nonlocal tried, slowest
        if kind == "text":
            given_input = data.draw(position_texts(spec, rules))
        elif kind == "json":
            given_input = data.draw(position_json(spec, rules))
        else:
            given_input = data.draw(actions(spec, rules))
        last[0] = given_input
        start = time.perf_counter()
        tried += 1
        try:
            if kind == "action":
                check_action(spec, rules, *given_input)
            else:
                check_position(spec, rules, given_input)
        finally:
            slowest = max(slowest, time.perf_counter() - start)

    failure = None
    try:
        one()
    except Exception as exc:  # a failing input, shrunk by Hypothesis
        failure = {"error": f"{type(exc).__name__}: {exc}"[:500], "input": repr(last[0])[:500]}
    return {"game": game_id, "kind": kind, "tried": tried, "slowest_s": slowest, "failure": failure}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000, help="per game and kind")
    args = parser.parse_args()
    os.environ.setdefault("DICEOPT_CACHE", tempfile.mkdtemp(prefix="diceopt-fuzz-"))
    start = time.perf_counter()
    rows = [run(g, kind, args.examples) for g in GAMES for kind in ("text", "json", "action")]
    failures = [r for r in rows if r["failure"]]
    print(
        json.dumps(
            {
                "benchmark": "fuzz",
                "inputs_tried": sum(r["tried"] for r in rows),
                "failures": len(failures),
                "slowest_input_s": max(r["slowest_s"] for r in rows),
                "seconds": time.perf_counter() - start,
                "runs": rows,
            },
            indent=1,
        )
    )
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
