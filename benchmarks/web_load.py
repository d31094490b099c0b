"""Load test of the web advisor: N concurrent clients post advice requests over loopback.

Starts ``diceopt serve`` on 127.0.0.1 (a free port) in a subprocess, warms the tables
(reported separately), then runs a closed loop: each of ``--clients`` clients keeps one
HTTP/1.1 keep-alive connection and sends its next request as soon as the last answer is
in, until ``--requests`` answers arrived or ``--time-limit`` seconds passed. Positions are
drawn with a seeded generator (Yatzy: random dice, rerolls, filled categories and totals,
one position per request by default, so no answer comes from the server's advice cache;
stick: all 56 rolls of 3d6, so its answers are cached after the first round: run it with
``--no-cache`` to measure the advice itself).

Prints one JSON object per line: a warm-up line per game and a result line per game
with errors, p50/p90/p99/max latency (ms), throughput (requests per second).
Target: no errors and p99 < 50 ms with 50 clients.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import subprocess
import sys
import time
from importlib.util import find_spec

import numpy as np

from diceopt.games.yatzy.rulebook.variants import get_rules

SERVE = ["-m", "diceopt", "serve"]  # the process as the command runs it (diceopt.cli.run)
YATZY_CATEGORIES = (
    "ones twos threes fours fives sixes one_pair two_pairs three_of_a_kind four_of_a_kind "
    "small_straight large_straight full_house chance yatzy"
).split()


def stick_positions(rng: np.random.Generator, count: int) -> list[str]:
    """Every roll of 3d6 (56), shuffled."""
    rolls = [
        "dice " + " ".join(map(str, r))
        for r in itertools.combinations_with_replacement(range(1, 7), 3)
    ]
    rng.shuffle(rolls)
    return rolls


def yatzy_positions(rng: np.random.Generator, count: int) -> list[str]:
    """Random legal mid-game Yatzy positions: at least one category open."""
    out = set()
    while len(out) < count:
        dice = sorted(int(d) for d in rng.integers(1, 7, size=5))
        rerolls = int(rng.integers(0, 3))
        n_filled = int(rng.integers(0, 15))
        filled = sorted(rng.choice(15, size=n_filled, replace=False).tolist())
        upper = sum((c + 1) * int(rng.integers(0, 6)) for c in filled if c < 6)
        bonus = 50 if upper >= 63 else 0  # Scandinavian upper bonus, already in the score
        lower = sum(int(rng.integers(YATZY_MIN[c], YATZY_MAX[c] + 1)) for c in filled if c >= 6)
        score = upper + bonus + lower
        names = " ".join(YATZY_CATEGORIES[c] for c in filled) or "-"
        out.add(
            f"dice {' '.join(map(str, dice))} | rerolls {rerolls} | filled {names} "
            f"| upper {upper} | score {score}"
        )
    return sorted(out)


YATZY_MAX = [int(x) for x in get_rules("scandinavian").category_max]  # points per category
YATZY_MIN = list(get_rules("scandinavian").min_points)  # (Chance holds at least 5)
POSITIONS = {"stick": stick_positions, "yatzy": yatzy_positions}


class Connection:
    """A minimal HTTP/1.1 keep-alive client on one asyncio stream (POST JSON only)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    def request(self, path: str, body: bytes) -> bytes:
        """The bytes of a POST request (built once per body, before the clock starts)."""
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode()
        return head + body

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        """Status and body of a POST (see ``send``)."""
        return await self.send(self.request(path, body))

    async def send(self, request: bytes) -> tuple[int, bytes]:
        """Send prepared request bytes; the status and body of the answer."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(request)
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            await self.close()
            raise ConnectionError("server closed the connection") from None
        status = int(head[9:12])
        lower = head.lower()
        i = lower.find(b"\r\ncontent-length:")
        length = int(head[i + 17 : head.index(b"\r\n", i + 2)]) if i >= 0 else 0
        data = await self.reader.readexactly(length)
        if b"\r\nconnection: close" in lower:
            await self.close()
        return status, data

    async def close(self) -> None:
        """Close the stream."""
        if self.writer is not None:
            self.writer.close()
            try:
                await self.writer.wait_closed()
            except OSError:
                pass
        self.reader = self.writer = None


async def run_load(
    host: str,
    port: int,
    bodies: list[bytes],
    requests: int,
    clients: int,
    time_limit: float,
) -> dict:
    """Closed-loop load: ``clients`` connections, ``requests`` answers or ``time_limit`` s."""
    latencies: list[float] = []
    errors: list[str] = []
    counter = itertools.count()
    deadline = time.perf_counter() + time_limit

    async def client() -> None:
        conn = Connection(host, port)
        try:
            while time.perf_counter() < deadline:
                i = next(counter)
                if i >= requests:
                    return
                request = requests_bytes[i % len(requests_bytes)]
                t0 = time.perf_counter()
                try:
                    status, data = await conn.send(request)
                    ok = status == 200 and data.startswith(b'{"actions":[{')
                except (OSError, ConnectionError, asyncio.IncompleteReadError, ValueError) as exc:
                    status, data, ok = -1, str(exc).encode(), False
                    await conn.close()
                latencies.append(time.perf_counter() - t0)
                if not ok:
                    errors.append(f"{status}: {data[:120]!r}")
        finally:
            await conn.close()

    requests_bytes = [Connection(host, port).request("/api/advice", b) for b in bodies]
    t0 = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    seconds = time.perf_counter() - t0
    ms = np.array(latencies) * 1000.0
    return {
        "requests": len(latencies),
        "errors": len(errors),
        "error_examples": errors[:3],
        "timed_out": len(latencies) < requests,
        "seconds": round(seconds, 3),
        "throughput_rps": round(len(latencies) / seconds, 1) if seconds > 0 else None,
        "p50_ms": round(float(np.percentile(ms, 50)), 3) if len(ms) else None,
        "p90_ms": round(float(np.percentile(ms, 90)), 3) if len(ms) else None,
        "p99_ms": round(float(np.percentile(ms, 99)), 3) if len(ms) else None,
        "max_ms": round(float(ms.max()), 3) if len(ms) else None,
    }


def start_server(
    workers: int, games: list[str], env: dict[str, str]
) -> tuple[subprocess.Popen, str, int]:
    """``diceopt serve`` on 127.0.0.1, any free port; (process, host, port).

    Every worker loads the measured games' tables before it accepts a connection, and no
    other table is built in the background during the measurement.
    """
    cmd = [sys.executable, *SERVE, "--host", "127.0.0.1", "--port", "0"]
    cmd += ["--workers", str(workers), "--log-level", "warning"]
    cmd += ["--warm", ",".join(games), "--wait-warm"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    if "http://" not in line:
        proc.kill()
        raise SystemExit(f"web_load: the server did not start: {line!r}")
    url = line.split("http://", 1)[1].split("/", 1)[0]
    host, _, port = url.rpartition(":")
    return proc, host, int(port)


async def wait_ready(host: str, port: int, game: str, body: bytes, limit: float) -> float:
    """Seconds until the server answers advice for ``game`` (tables built or loaded)."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        conn = Connection(host, port)
        try:
            status, data = await conn.post("/api/advice", body)
            if status == 200:
                return time.perf_counter() - t0
            if status == 400 and b"unknown game" in data:
                return -1.0
        except (OSError, ConnectionError, asyncio.IncompleteReadError):
            await asyncio.sleep(0.1)
        finally:
            await conn.close()
    raise SystemExit(f"web_load: {game} advice not ready in {limit:.0f} s")


def main() -> int:
    """Run the benchmark; prints JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="yatzy,stick", help="games to load (default both)")
    parser.add_argument("--requests", type=int, default=10_000, help="advice requests per game")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per game at most")
    parser.add_argument("--workers", type=int, default=1, help="server worker processes")
    parser.add_argument(
        "--positions",
        type=int,
        default=None,
        help="distinct Yatzy positions (default: one per request, so no answer is cached)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--no-cache", action="store_true", help="server without its advice answer cache"
    )
    args = parser.parse_args()

    env = dict(os.environ)
    if args.no_cache:
        env["DICEOPT_WEB_ADVICE_CACHE"] = "0"
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    t0 = time.perf_counter()
    proc, host, port = start_server(args.workers, games, env)
    try:
        for game in games:
            rng = np.random.default_rng(args.seed)
            positions = POSITIONS[game](rng, args.positions or args.requests + 400)
            bodies = [json.dumps({"game": game, "position": p}).encode() for p in positions]
            # Each worker process loads its own tables: warm them all (one connection each
            # is not guaranteed to reach a given worker, so send a few per worker).
            warm = max(
                asyncio.run(wait_ready(host, port, game, bodies[-1], 600.0))
                for _ in range(2 * args.workers)
            )
            if warm < 0:
                print(json.dumps({"bench": "web_load", "game": game, "skipped": "not served"}))
                continue
            # warm-up (not measured), on positions the measurement does not use
            asyncio.run(run_load(host, port, bodies[-400:], 400, args.clients, 30.0))
            bodies = bodies[:-400] if len(bodies) > 400 else bodies
            print(
                json.dumps(
                    {
                        "bench": "web_load_warmup",
                        "game": game,
                        "first_answer_seconds": round(warm, 3),
                        "since_start_seconds": round(time.perf_counter() - t0, 3),
                    }
                )
            )
            result = asyncio.run(
                run_load(host, port, bodies, args.requests, args.clients, args.time_limit)
            )
            ok = result["errors"] == 0 and not result["timed_out"] and result["p99_ms"] < 50
            line = {
                "bench": "web_load",
                "game": game,
                "clients": args.clients,
                "workers": args.workers,
                "advice_cache": not args.no_cache,
                "distinct_positions": len(bodies),
                **result,
                "target_p99_ms": 50,
                "meets_target": ok,
                "http_parser": "httptools" if find_spec("httptools") else "h11",
                "event_loop": "uvloop" if find_spec("uvloop") else "asyncio",
                "cpus": os.cpu_count(),
                "loadavg_1min_after": round(os.getloadavg()[0], 2),
            }
            print(json.dumps(line), flush=True)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
