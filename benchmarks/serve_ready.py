"""Benchmark: how soon ``diceopt serve`` plays the computer, with the tables that ``make
run`` built (run ``make run`` first, or set DICEOPT_CACHE to a cache that holds them).

Starts ``diceopt serve`` (127.0.0.1, a free port, one worker, no ``--prepare``) in a
subprocess and, from the moment the process starts, plays a game's first turn against
the computer playing to win over HTTP (httpx), as the page does: ``duel/new``, then the
human's best keep twice and best box (``/api/advice``, ``duel/apply``), which brings
the computer's whole turn. Prints one JSON object: seconds until the server listens,
until the first roll, until the computer's turn is back (the goal: under 1 s), the
answers that said "being built" (503 or 202: 0 when the tables are ready) and the load
average.

    .venv/bin/python benchmarks/serve_ready.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import httpx

SERVE = ["-m", "diceopt", "serve"]  # the process as the command runs it (diceopt.cli.run)
GAME = {"game": "yatzy", "variant": "scandinavian"}


def main() -> int:
    t0 = time.perf_counter()
    cmd = [sys.executable, *SERVE, "--host", "127.0.0.1", "--port", "0"]
    proc = subprocess.Popen([*cmd, "--log-level", "warning"], stdout=subprocess.PIPE, text=True)
    try:
        url = ""
        for line in proc.stdout or ():
            if "http://" in line:
                url = "http://" + line.split("http://", 1)[1].split()[0].rstrip("/")
                break
        if not url:
            raise SystemExit("serve_ready: the server did not start")
        waits = 0
        with httpx.Client(base_url=url, timeout=600.0) as client:

            def post(path: str, body: dict) -> dict:
                nonlocal waits
                while True:
                    try:
                        answer = client.post(path, json=body)
                    except httpx.ConnectError:  # not accepting yet
                        time.sleep(0.01)
                        continue
                    if answer.status_code in (202, 503):
                        waits += 1
                        time.sleep(0.5)
                        continue
                    answer.raise_for_status()
                    return answer.json()

            while True:
                try:
                    client.get("/")
                    break
                except httpx.ConnectError:  # the socket is bound, uvicorn not serving yet
                    time.sleep(0.01)
            listening = time.perf_counter() - t0
            data = post("/api/duel/new", {**GAME, "strategy": "win", "seed": 1, "estimate": False})
            first_roll = time.perf_counter() - t0
            for step in range(1, 4):
                state = data["state"]
                advice = post("/api/advice", {**GAME, "position": state["you"]})
                action = advice["actions"][0]["action"]
                body = {**GAME, "state": state, "action": action, "seed": step, "estimate": False}
                data = post("/api/duel/apply", body)
                if action.startswith("score"):
                    break
            computer_turn = time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(10)
    print(
        json.dumps(
            {
                "benchmark": "serve_ready",
                "listening_s": round(listening, 3),
                "first_roll_s": round(first_roll, 3),
                "computer_turn_s": round(computer_turn, 3),
                "goal_s": 1.0,
                "met": computer_turn < 1.0 and waits == 0,
                "being_built_answers": waits,
                "load_average": os.getloadavg(),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
