"""Latency of a Yatzy table of 6 through the web API: the page's update (the advice for
the player to move and every player's chance, ``POST /api/yatzy/table/advice``) and
every player's chance alone (``POST /api/yatzy/table/chances``).

Starts ``diceopt serve`` on 127.0.0.1 (a free port, one worker) in a subprocess as
``benchmarks/web_duel.py`` does, then plays ``--games`` whole games of ``--players`` (6)
over HTTP, one request at a time, as the page would: at every turn start the chances
(timed), at every decision the update (timed), then the mover plays the update's best
move to win (``/api/apply``, dice seeded; not timed). The tables are made ready before
the clock starts (one untimed update and chances; a 503 while a table is built is waited
out and not timed).

Prints JSON lines: one for the untimed warm-up, one per kind with count, p50, p95 and
max (ms), then a summary with the targets: the update under 200 ms and the chances under
1 s at p95 on 2 cores, once the tables are stored.

    .venv/bin/python benchmarks/table_latency.py [--games 2] [--players 6] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from web_duel import post, start_server, summary  # noqa: E402

UPDATE_TARGET_MS = 200.0  # advice + chances of 6 players, p95
CHANCES_TARGET_MS = 1000.0  # chances of 6 players, p95
SHEET_FIELDS = ("filled", "upper", "score", "yahtzee_bonus")


def sheet_of(position_json: dict) -> dict:
    """A position's sheet (the opponent notation's JSON form)."""
    return {k: position_json[k] for k in SHEET_FIELDS if k in position_json}


def play_game(
    client: httpx.Client, variant: str, players: int, seed: int, times: dict[str, list[float]]
) -> list[float]:
    """One whole game of ``players``; the final scores."""
    game = {"game": "yatzy", "variant": variant}
    names = [f"player {i + 1}" for i in range(players)]
    seats = []
    for i in range(players):
        new = post(client, "/api/new", {**game, "seed": seed * 100 + i}, {}, "new")
        seats.append(new["position_json"])
    step = 0
    turn = 0
    while True:
        mover = turn % players
        table = [{"name": n, "sheet": sheet_of(s)} for n, s in zip(names, seats, strict=True)]
        body = {"variant": variant, "players": table, "to_move": mover}
        post(client, "/api/yatzy/table/chances", body, times, "chances")
        while True:  # the mover's turn: an update per decision
            body = {**body, "players": table, "position": seats[mover]}
            update = post(client, "/api/yatzy/table/advice", body, times, "update")
            action = update["actions"][0]["action"]
            step += 1
            after = post(client, "/api/apply", {**game, "position": seats[mover],
                         "action": action, "seed": seed * 10_000 + step}, {}, "apply")  # fmt: skip
            seats[mover] = after["position_json"]
            if action.startswith("score"):
                break
        turn += 1
        if all(s["dice"] == [] for s in seats):  # every sheet is full
            return [float(s["score"]) for s in seats]


def main() -> None:
    """Parse the options, start the server, play, print the JSON lines."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=2, help="games (default 2)")
    ap.add_argument("--players", type=int, default=6, help="players at the table (default 6)")
    ap.add_argument("--variant", default="scandinavian", help="Yatzy variant (scandinavian)")
    ap.add_argument("--seed", type=int, default=1, help="first game's seed")
    args = ap.parse_args()
    t0 = time.perf_counter()
    proc, url = start_server(args.variant, dict(os.environ))
    try:
        with httpx.Client(base_url=url, timeout=600.0) as client:
            warm: dict[str, list[float]] = {}  # untimed: the tables loaded, first answers
            game = {"game": "yatzy", "variant": args.variant}
            first = post(client, "/api/new", {**game, "seed": 0}, {}, "new")["position_json"]
            table = [{"name": f"p{i}", "sheet": sheet_of(first)} for i in range(args.players)]
            body = {"variant": args.variant, "players": table, "to_move": 0}
            post(client, "/api/yatzy/table/chances", body, warm, "chances")
            post(client, "/api/yatzy/table/advice", {**body, "position": first}, warm, "update")
            ready = round(time.perf_counter() - t0, 1)
            print(json.dumps({"phase": "ready (not timed)", "seconds": ready}), flush=True)
            times: dict[str, list[float]] = {}
            scores = []
            for g in range(args.games):
                scores.append(play_game(client, args.variant, args.players, args.seed + g, times))
            for kind, ms in sorted(times.items()):
                print(json.dumps({"kind": kind, **summary(ms)}), flush=True)
        update = summary(times["update"])["p95_ms"]
        chances = summary(times["chances"])["p95_ms"]
        print(
            json.dumps(
                {
                    "benchmark": "table_latency",
                    "variant": args.variant,
                    "players": args.players,
                    "games": args.games,
                    "mean_scores": [round(sum(s) / len(s), 1) for s in scores],
                    "targets": {
                        "update_p95_ms": UPDATE_TARGET_MS,
                        "chances_p95_ms": CHANCES_TARGET_MS,
                    },
                    "update_p95_ms": update,
                    "chances_p95_ms": chances,
                    "update_met": update < UPDATE_TARGET_MS,
                    "chances_met": chances < CHANCES_TARGET_MS,
                    "load_average": os.getloadavg(),
                    "cpus": os.cpu_count(),
                }
            ),
            flush=True,
        )
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
