"""Latency of whole games against the computer through the web API, request by request.

Starts ``diceopt serve`` on 127.0.0.1 (a free port, one worker, ``--wait-warm``) in a
subprocess and plays ``--games`` whole Yatzy games against each computer strategy
(``expected``, ``win``) over HTTP with httpx, one request at a time, as the page does:

- ``duel/new``: a new game (the first roll), asked without the estimate (``estimate``
  false), which comes in a second request, as on the page:
- ``duel/estimate``: the human's win probability at the start of each turn, for the
  opponent model it names (the computer's strategy);
- ``advice``: the expected-score advice of each decision (what the page shows first);
- ``advice_opponent``: the second kind of hint, the advice to beat this computer from
  here (``/api/advice`` with ``opponent`` = the computer's side, ``opponent_plays`` = its
  strategy), with its win probability: asked once per decision, like the page;
- ``duel/apply``: each move; ``duel/apply_keep`` (a keep, the turn goes on) and
  ``duel/apply_turn`` (a category written: the computer's whole turn and the next roll)
  are also given apart.

The human side plays the best expected-score move (the first action of ``advice``).
The tables are loaded or built before the clock starts (not timed: ``diceopt serve
--prepare`` once per cache directory; set DICEOPT_CACHE to reuse one).

Prints one JSON object per line: one per strategy with p50/p95/max (ms) and the count of
each kind of request, then a summary line with the targets: a new game and every move
under 200 ms at p95, the win probability (the hint to beat the computer) under 2 s at
p95, on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import httpx
import numpy as np

SERVE = ["-m", "diceopt", "serve"]  # the process as the command runs it (diceopt.cli.run)
MOVE_TARGET_MS = 200.0  # a new game and every move, p95
WIN_TARGET_MS = 2000.0  # the win probability / the hint to beat the computer, p95


def start_server(variant: str, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    """``diceopt serve --prepare`` (Yatzy only) on 127.0.0.1, any free port; (process,
    base URL). ``--prepare`` loads or builds every table the page reads for the default
    variant; another variant's tables are made ready by ``warm_up``."""
    cmd = [sys.executable, *SERVE, "--host", "127.0.0.1", "--port", "0"]
    cmd += ["--warm", "yatzy", "--log-level", "warning"]
    if variant == "scandinavian":
        cmd += ["--prepare"]
    else:
        cmd += ["--wait-warm"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    for line in proc.stdout:
        if "http://" in line:
            url = "http://" + line.split("http://", 1)[1].split()[0].rstrip("/")
            return proc, url
        print(line.rstrip(), file=sys.stderr)
    proc.kill()
    raise SystemExit("web_duel: the server did not start")


def post(client: httpx.Client, path: str, body: dict, times: dict[str, list[float]], kind: str):
    """POST ``body``; its milliseconds appended to ``times[kind]``; the JSON answer. A 503
    (a table being built) is waited out and not timed, and so is a refused connection
    before the first timed request (the server still loading its tables)."""
    while True:
        t0 = time.perf_counter()
        try:
            response = client.post(path, json=body)
        except httpx.ConnectError:  # not listening yet (loading its tables)
            if times:
                raise
            time.sleep(0.2)
            continue
        ms = (time.perf_counter() - t0) * 1000.0
        if response.status_code == 503:
            time.sleep(float(response.headers.get("Retry-After", "1")))
            continue
        if response.status_code != 200:
            raise SystemExit(f"web_duel: {path} answered {response.status_code}: {response.text}")
        times.setdefault(kind, []).append(ms)
        return response.json()


def play_game(
    client: httpx.Client, variant: str, strategy: str, seed: int, times: dict[str, list[float]]
) -> float:
    """One whole game; the human's result (1 win, 1/2 draw, 0 loss)."""
    game = {"game": "yatzy", "variant": variant}
    body = {**game, "strategy": strategy, "seed": seed, "estimate": False}
    data = post(client, "/api/duel/new", body, times, "duel/new")
    step = 0
    while not data["game_over"]:
        state = data["state"]
        if data["you"]["rerolls"] == 2:  # a turn's start
            estimate = post(client, "/api/duel/estimate", {**game, "state": state}, times,
                            "duel/estimate")  # fmt: skip
            assert 0.0 <= estimate["win_probability"] <= 1.0
        advice = post(client, "/api/advice", {**game, "position": state["you"]}, times, "advice")
        hint = {**game, "position": state["you"], "opponent": state["computer"],
                "opponent_plays": strategy}  # fmt: skip
        post(client, "/api/advice", hint, times, "advice_opponent")
        action = advice["actions"][0]["action"]
        kind = "duel/apply_turn" if action.startswith("score") else "duel/apply_keep"
        step += 1
        body = {**game, "state": state, "action": action, "seed": seed * 1000 + step,
                "estimate": False}  # fmt: skip
        data = post(client, "/api/duel/apply", body, times, kind)
        times.setdefault("duel/apply", []).append(times[kind][-1])
    return float(data["result"])


def summary(ms: list[float]) -> dict:
    """Count, p50, p95 and max in milliseconds."""
    a = np.array(ms)
    return {
        "count": len(ms),
        "p50_ms": round(float(np.percentile(a, 50)), 2),
        "p95_ms": round(float(np.percentile(a, 95)), 2),
        "max_ms": round(float(a.max()), 2),
    }


def main() -> None:
    """Parse the options, start the server, play, print the JSON lines."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=20, help="games per strategy (default 20)")
    ap.add_argument("--variant", default="scandinavian", help="Yatzy variant (scandinavian)")
    ap.add_argument("--strategies", default="expected,win", help="computer strategies")
    ap.add_argument("--seed", type=int, default=1, help="first game's seed")
    args = ap.parse_args()
    env = dict(os.environ)
    t0 = time.perf_counter()
    proc, url = start_server(args.variant, env)
    try:
        with httpx.Client(base_url=url, timeout=600.0) as client:
            # untimed: every table of the variant loaded (a first game's first turn)
            for strategy in args.strategies.split(","):
                play_game(client, args.variant, strategy, 10**6, {})
            ready = time.perf_counter() - t0
            print(json.dumps({"phase": "ready (not timed)", "seconds": round(ready, 1)}))
            worst: dict[str, float] = {}
            for strategy in args.strategies.split(","):
                times: dict[str, list[float]] = {}
                results = [
                    play_game(client, args.variant, strategy, args.seed + g, times)
                    for g in range(args.games)
                ]
                line = {
                    "variant": args.variant,
                    "strategy": strategy,
                    "games": args.games,
                    "human_score": round(float(np.mean(results)), 3),
                    "requests": {k: summary(v) for k, v in sorted(times.items())},
                }
                print(json.dumps(line), flush=True)
                for k, v in line["requests"].items():
                    worst[k] = max(worst.get(k, 0.0), v["p95_ms"])
        moves = max(worst["duel/new"], worst["duel/apply"])
        win = max(worst["advice_opponent"], worst["duel/estimate"])
        print(
            json.dumps(
                {
                    "targets": {
                        "new_and_moves_p95_ms": MOVE_TARGET_MS,
                        "win_probability_p95_ms": WIN_TARGET_MS,
                    },
                    "new_and_moves_p95_ms": moves,
                    "win_hint_p95_ms": win,
                    "advice_p95_ms": worst["advice"],
                    "moves_met": moves < MOVE_TARGET_MS,
                    "win_met": win < WIN_TARGET_MS,
                    "load_average": os.getloadavg(),
                    "cpus": os.cpu_count(),
                }
            )
        )
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
