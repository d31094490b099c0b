"""No request can take the server down: bounded request fields, a memory bound checked up
front, work stopped when its client has gone or its time is up, SIGTERM obeyed at once.

The process tests start ``diceopt serve`` as a subprocess on a free port, with a plug-in
game (``slow``, a Pig whose distribution is a long computation made of short chunks, and
whose advice of ``turn 13`` spins without ever reaching a checkpoint) and the real Yatzy
(whose Maxi distribution is refused for its memory). They wait at most the bounds the
server states, with some slack, polling the process's CPU time and its exit.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diceopt.games.registry import games
from diceopt.web.routes import create_app

# The bounds the server states, and the slack a busy test machine gets on top of them.
STOP_AFTER_DISCONNECT = 2.0  # seconds from a client's disconnect to its work stopping
EXIT_AFTER_SIGTERM = 5.0  # seconds from SIGTERM to the process's exit
SLACK = 1.5
START_DEADLINE = 120.0  # seconds for a server to import, listen and answer /api/health
IDLE_CPU = 0.3  # CPU seconds a stopped server may still use in one second (its event loop)

SLOW_GAME = r'''
"""A test plug-in: Pig whose distribution is a long computation in short chunks."""
import os
import time

from diceopt.games.pig.spec import PigSpec
from diceopt.interrupt import run_chunks


def spin(seconds):
    """Compute for ``seconds``, a line in the heartbeat file every 0.05 s."""
    end = time.perf_counter() + seconds
    beat = time.perf_counter()
    while time.perf_counter() < end:
        if time.perf_counter() >= beat:
            with open(os.environ["SLOW_HEARTBEAT"], "a") as out:
                out.write("beat\n")
            beat += 0.05


class SlowSpec(PigSpec):
    id = "slow"
    title = "Slow Pig"

    def distribution(self, rules, pos):
        run_chunks(lambda lo, hi: spin(0.05 * (hi - lo)), 2400)  # 120 s, 0.2 s a chunk
        return {"of": "final score", "mean": 0.0, "std": 0.0, "median": 0.0,
                "percentiles": {}, "p_at_least": {}, "pmf": [1.0], "seconds": 0.0}

    def advise(self, rules, pos, **options):
        if pos.turn == 13:  # no checkpoint at all: only the process's end stops it
            spin(120.0)
        return super().advise(rules, pos, **options)


SPEC = SlowSpec()
'''


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory that registers the ``slow`` game (an entry point) when on the path."""
    site = tmp_path_factory.mktemp("slow-site")
    (site / "slowgame.py").write_text(SLOW_GAME)
    info = site / "slowgame-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: slowgame\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[diceopt.games]\nslow = slowgame:SPEC\n")
    return site


class Server:
    """``diceopt serve`` in a subprocess (its output in a file), on a free port."""

    def __init__(self, site: Path, cache: Path, log: Path, *options: str) -> None:
        self.heartbeat = log.with_suffix(".beat")
        self.heartbeat.write_text("")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), *sys.path]))
        env["SLOW_HEARTBEAT"] = str(self.heartbeat)
        self.log = log
        with log.open("w") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "diceopt", "serve", "--port", "0", "--no-warm"]
                + ["--cache-dir", str(cache), *options],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        self.url = self._wait_url()
        deadline = time.monotonic() + START_DEADLINE
        while True:
            try:
                if httpx.get(self.url + "api/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, self.output()
            time.sleep(0.2)

    def _wait_url(self) -> str:
        deadline = time.monotonic() + START_DEADLINE
        while time.monotonic() < deadline:
            found = re.search(r"open (http://\S+/) ", self.output())
            if found:
                return found.group(1)
            assert self.proc.poll() is None, self.output()
            time.sleep(0.1)
        raise AssertionError(f"no URL printed: {self.output()}")

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def cpu(self) -> float:
        """CPU seconds the server has used (user + system, every thread)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def busy(self, seconds: float = 1.0) -> float:
        """CPU seconds used over the next ``seconds``."""
        before = self.cpu()
        time.sleep(seconds)
        return self.cpu() - before

    def beats(self) -> int:
        """Heartbeats of the slow game's work so far."""
        return self.heartbeat.read_text().count("beat")

    def assert_stopped(self) -> None:
        """The slow game's work has stopped: no heartbeat and almost no CPU for a second."""
        before = self.beats()
        assert self.busy() < IDLE_CPU, self.output()
        assert self.beats() == before, self.output()

    def send(self, path: str, body: dict[str, Any]) -> socket.socket:
        """A POST sent on a raw socket, not read: the caller closes it (the client goes)."""
        data = json.dumps(body).encode()
        host, port = self.url.removeprefix("http://").rstrip("/").rsplit(":", 1)
        sock = socket.create_connection((host, int(port)), timeout=10)
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n"
        )
        sock.sendall(head.encode() + data)
        return sock

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def server(plugin_site: Path, tmp_path: Path) -> Iterator[Any]:
    """A function that starts a server with extra options; every one is killed after."""
    started: list[Server] = []

    def start(*options: str) -> Server:
        started.append(Server(plugin_site, tmp_path / "cache", tmp_path / "serve.log", *options))
        return started[-1]

    yield start
    for s in started:
        s.stop()


def wait_until_busy(srv: Server) -> None:
    """Until the slow game's work has started (its heartbeats), at most 60 s."""
    deadline = time.monotonic() + 60
    while srv.beats() < 2:
        assert time.monotonic() < deadline, srv.output()
        time.sleep(0.05)


SLOW_BODY = {"game": "slow", "variant": "goal-20", "position": "me 0 | opponent 0 | turn 0"}


def test_work_stops_when_its_client_has_gone(server) -> None:
    srv = server()
    sock = srv.send("/api/distribution", SLOW_BODY)
    wait_until_busy(srv)
    sock.close()
    time.sleep(STOP_AFTER_DISCONNECT + SLACK)
    srv.assert_stopped()
    assert "the client has gone" in srv.output()
    assert httpx.get(srv.url + "api/health", timeout=5).status_code == 200


def test_the_time_limit_holds(server) -> None:
    srv = server("--work-seconds", "2")
    t0 = time.monotonic()
    answer = httpx.post(srv.url + "api/distribution", json=SLOW_BODY, timeout=60)
    waited = time.monotonic() - t0
    assert answer.status_code == 503
    assert answer.json()["error"].startswith("no answer within 2 s")
    assert waited < 2 + STOP_AFTER_DISCONNECT + SLACK
    time.sleep(STOP_AFTER_DISCONNECT)
    srv.assert_stopped()


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/distribution", SLOW_BODY),  # work that reaches a checkpoint every 0.2 s
        ("/api/advice", SLOW_BODY | {"position": "me 0 | opponent 0 | turn 13"}),  # none
    ],
)
def test_sigterm_stops_the_server_whatever_it_is_doing(server, path, body) -> None:
    srv = server()
    sock = srv.send(path, body)
    wait_until_busy(srv)
    srv.proc.send_signal(signal.SIGTERM)
    t0 = time.monotonic()
    while srv.proc.poll() is None:
        assert time.monotonic() - t0 < EXIT_AFTER_SIGTERM + SLACK, srv.output()
        time.sleep(0.05)
    sock.close()


def test_work_over_the_memory_bound_is_refused_up_front(server) -> None:
    srv = server("--max-memory", "4G")
    listing = httpx.get(srv.url + "api/games", timeout=30).json()
    yatzy = next(g for g in listing["games"] if g["id"] == "yatzy")
    maxi = next(v for v in yatzy["variants"] if v["id"] == "maxi")
    body = {"game": "yatzy", "variant": "maxi", "position": maxi["position_example"]}
    answer = httpx.post(srv.url + "api/distribution", json=body, timeout=30)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert "memory" in error and "over this server's bound of 4.3 GB" in error
    assert srv.busy() < IDLE_CPU
    # a smaller bound refuses the Scandinavian distribution too, before any table is built
    small = server("--max-memory", "100M")
    body = {"game": "yatzy", "position": yatzy["position_example"]}
    answer = httpx.post(small.url + "api/distribution", json=body, timeout=30)
    assert answer.status_code == 400, answer.text
    assert "of memory, over this server's bound of 104.9 MB" in answer.json()["error"]


def test_serve_help_names_the_bounds() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "diceopt", "serve", "--help"], capture_output=True, text=True
    )
    for option in ("--cache-dir", "--max-memory", "--work-seconds"):
        assert option in done.stdout


# --- the request schemas and refusals (TestClient: quick) -------------------------------


@pytest.fixture(scope="module")
def client(web_env: Path) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    with TestClient(create_app(warm=False, max_memory=1 << 20)) as c:
        yield c


def check_refusal(answer: httpx.Response) -> None:
    """No 5xx; a refusal is a 4xx with one short line, no traceback, no long number."""
    assert answer.status_code < 500, answer.text
    if answer.status_code >= 400:
        error = answer.json()["error"]
        assert isinstance(error, str) and error
        assert "\n" not in error and len(error) <= 300
        assert "Traceback" not in error
        assert not re.search(r"\d{24}", error), error
        assert not re.search(r"(.)\1{60}", error), error


def test_a_huge_target_is_refused_without_its_digits(client) -> None:
    body = {"game": "yatzy", "position": "dice 1 2 3 4 5 | rerolls 2", "target": 1e308}
    answer = client.post("/api/advice", json=body)
    assert answer.status_code == 400
    assert answer.json()["error"].startswith("target:")
    assert "000000000" not in answer.json()["error"]
    check_refusal(answer)
    data = b'{"game": "yatzy", "position": "x", "target": ' + b"9" * 4000 + b"}"
    answer = client.post("/api/advice", content=data, headers={"content-type": "application/json"})
    check_refusal(answer)


def test_json_nested_too_deeply_is_refused(client) -> None:
    body = b'{"game": "pig", "position": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    answer = client.post("/api/advice", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 400
    assert "nested too deeply" in answer.json()["error"]


def test_an_illegal_zilch_action_is_refused_before_any_solve(client) -> None:
    tables = client.app.state.tables
    body = {"game": "zilch", "position": "streak 0 | turn 0 | dice 1 2 3 3 4 6"}
    for path in ("/api/apply", "/api/evaluate"):
        answer = client.post(path, json=body | {"action": "set aside 3 3, roll"})
        assert answer.status_code == 400
        assert "not a legal action here; legal:" in answer.json()["error"]
    answer = client.post("/api/preview", json=body | {"actions": ["set aside 4, roll"]})
    assert answer.status_code == 400
    assert not tables.is_ready("zilch", "zilch")


def test_a_rule_file_over_the_memory_bound_is_refused(client) -> None:
    answer = client.post(
        "/api/rules", json={"game": "yatzy", "rules": 'extends = "american"\nname = "am"\n'}
    )
    assert answer.status_code == 400
    assert "of memory, over this server's bound of 1.0 MB" in answer.json()["error"]


# Every POST endpoint, every registered game: generated bodies get no 5xx.
GAME_IDS = sorted(games())
POST_PATHS = sorted(
    r.path for r in create_app(warm=False).routes if "POST" in getattr(r, "methods", ())
)
FIELDS = (
    "variant rules position action actions seed target opponent opponent_plays "
    "strategy state estimate record you computer"
).split()
huge = st.sampled_from([1e308, -1e308, 10**40, -(10**40), 2**63, 2**64, 1e20, 0.5, float("inf")])
leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**6), max_value=10**6)
    | huge
    | st.text(max_size=30)
    | st.text(alphabet="0123456789 |abcdefghijklmnopqrstuvwxyz", min_size=200, max_size=3000)
)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
bodies = st.fixed_dictionaries(
    {"game": st.sampled_from(GAME_IDS) | values},
    optional={name: values for name in FIELDS} | {"wrong key": values},
)


def encode(value: Any) -> bytes:
    """JSON text, infinities as the bare 1e999 that parses to them."""
    return json.dumps(value).replace("-Infinity", "-1e999").replace("Infinity", "1e999").encode()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    path=st.sampled_from(POST_PATHS),
    body=bodies | values,
    depth=st.sampled_from([0, 0, 0, 40, 400]),
)
def test_generated_bodies_get_no_5xx(client, path: str, body: Any, depth: int) -> None:
    data = encode(body)
    if depth:
        data = b'{"game": "pig", "position": ' + b"[" * depth + b"]" * depth + b"}"
    answer = client.post(path, content=data, headers={"content-type": "application/json"})
    check_refusal(answer)


def test_every_post_endpoint_is_covered() -> None:
    assert {"/api/advice", "/api/distribution", "/api/apply", "/api/rules"} <= set(POST_PATHS)
    assert len(textwrap.dedent(SLOW_GAME)) > 0
