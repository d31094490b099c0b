"""Benchmark: a Yatzy target request from the start of a game, table stored or not.

Prints one JSON object per line (with the load average when it was taken), all in a fresh
cache directory:

1. ``per_request``: the target advice solved within the request, nothing stored (what
   the server did before the shared tables: every such request solved again);
2. ``first_request``: the web API with nothing stored: the seconds to its answer (503
   "being built", Retry-After), then the build of the shared target rows (seconds, size);
3. ``stored``: the same request once built (first answer, then another target, uncached);
4. ``fresh_process``: a new server process on the same cache directory: its first target
   request (loads the stored rows, builds nothing) and the builds it made (0).

The ratio ``per_request / stored`` is the peer comparison. Default variant: the
forced-order one (small); ``--variant scandinavian`` builds the full one (about 90 s on
2 cores, 0.8 GB).

    .venv/bin/python benchmarks/web_tables.py [--variant scandinavian] [--target 250]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

START = "dice 1 2 3 5 6 | rerolls 2 | filled - | upper 0 | score 0"

FRESH = """
import json, sys, time, warnings
warnings.filterwarnings("ignore")
from fastapi.testclient import TestClient
from diceopt.tables import DEFAULT
from diceopt.web.routes import create_app
variant, target = sys.argv[1], int(sys.argv[2])
with TestClient(create_app(warm=False, games=["yatzy"], table_wait=600)) as c:
    t0 = time.perf_counter()
    r = c.post("/api/advice", json={"game": "yatzy", "variant": variant,
               "position": sys.argv[3], "target": target})
    print(json.dumps({"status": r.status_code, "seconds": time.perf_counter() - t0,
                      "built": DEFAULT.built,
                      "how": [b.how for b in DEFAULT.status()]}))
"""


def emit(**data: object) -> None:
    data["loadavg"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(data), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="scandinavian-forced")
    parser.add_argument("--target", type=int, default=250)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    cache = tempfile.mkdtemp(prefix="diceopt-web-tables-")
    os.environ["DICEOPT_CACHE"] = cache

    from fastapi.testclient import TestClient

    from diceopt.games.registry import get_game
    from diceopt.games.yatzy.analyses.targets import warm_up_targets
    from diceopt.tables import TableStore
    from diceopt.web.routes import create_app

    warm_up_targets("float32")  # numba: loaded from its cache, not timed below
    spec = get_game("yatzy")
    rules = spec.rules(args.variant)
    pos = spec.parse(rules, START)
    spec.advise(rules, pos)  # the expected-score table, stored first (not timed)

    t0 = time.perf_counter()
    spec.advise(rules, pos, target=args.target)
    emit(what="per_request", variant=args.variant, seconds=time.perf_counter() - t0)

    body = {"game": "yatzy", "variant": args.variant, "position": START, "target": args.target}
    store = TableStore()
    with TestClient(create_app(warm=False, games=["yatzy"], table_wait=0, store=store)) as c:
        t0 = time.perf_counter()
        r = c.post("/api/advice", json=body)
        emit(
            what="first_request",
            status=r.status_code,
            retry_after=r.headers.get("Retry-After"),
            answer_seconds=time.perf_counter() - t0,
            error=r.json().get("error"),
        )
        while True:
            entries = c.get("/api/tables").json()["tables"]
            rows = next(e for e in entries if "target rows" in e["name"])
            if rows["stage"] in ("ready", "failed"):
                break
            time.sleep(0.5)
        from diceopt.games.yatzy.rulebook.variants import get_rules
        from diceopt.games.yatzy.stored.store import rows_path

        path = rows_path(get_rules(args.variant))
        emit(
            what="build",
            stage=rows["stage"],
            seconds=rows["elapsed_seconds"],
            bytes=path.stat().st_size if path.exists() else None,
        )
        times = []
        for target in (args.target, args.target - 10):
            t0 = time.perf_counter()
            r = c.post("/api/advice", json=body | {"target": target})
            times.append(time.perf_counter() - t0)
        emit(what="stored", status=r.status_code, seconds=times, builds=store.built)
    per = subprocess.run(
        [sys.executable, "-c", FRESH, args.variant, str(args.target), START],
        capture_output=True,
        text=True,
        env=dict(os.environ),
    )
    fresh = json.loads(per.stdout.strip().splitlines()[-1])
    emit(what="fresh_process", **fresh)


if __name__ == "__main__":
    main()
