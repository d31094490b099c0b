"""Fixtures: one table cache for the whole run, the web app client, live server, browser.

Two fixtures are autouse. One points ``DICEOPT_CACHE`` at the run's temporary cache
(shared by the workers of ``pytest -n``), so no test writes to the user's cache and each
full-size table is solved at most once per run; tests that need a cache of their own
set the variable themselves. The other shows progress and notices on stderr as the
command line does (games report through ``diceopt.progress``; with no display installed
they are silent).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
# The apps of the tests wait for a table being built (numba may be compiling on a cold
# cache) instead of answering 503 "being built" after a few seconds (the page asks for
# 202 after 2 s, and waits); the 503 path has tests of its own. Nor is the work of a
# request stopped after a minute.
TABLE_WAIT = 600.0


# The longest test files (seconds on 2 cores, cold numba cache), run first so that the
# workers of ``pytest -n`` (files dealt one at a time) do not end with one long file on
# one worker while the other waits; the order of the tests in a file is kept.
LONGEST_FIRST = (
    "test_docs.py",
    "test_conformance.py",
    "test_yatzy_win.py",
    "test_web_browser.py",
    "test_interrupt.py",
    "test_yatzy_targets_presets.py",
    "test_analyse.py",
    "test_yatzy_saved.py",
    "test_yatzy_presets.py",
    "test_web_api.py",
    "test_yatzy_targets.py",
    "test_yatzy_batch.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files of :data:`LONGEST_FIRST` first, in that order; the others after them."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture(scope="session")
def web_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One table cache directory for the whole test run, shared by the workers of a
    parallel run (pytest-xdist): each table is solved once, by the first worker to ask
    (the others wait for its lock, then load it: ``diceopt.storage.load_or_solve``)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # a worker's base is in the run's folder
        base = base.parent
    cache = base / "diceopt-cache"
    cache.mkdir(exist_ok=True)
    return cache


@pytest.fixture(scope="session", autouse=True)
def session_cache(web_cache_dir: Path) -> Iterator[Path]:
    """DICEOPT_CACHE is the session's cache directory for every test."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DICEOPT_CACHE", str(web_cache_dir))
        yield web_cache_dir


@pytest.fixture(scope="session", autouse=True)
def terminal_display() -> Iterator[None]:
    """Progress and notices on stderr (as the command line shows them) in every test."""
    from diceopt.cli.display import TerminalDisplay
    from diceopt.progress import shown_on

    with shown_on(TerminalDisplay()):
        yield


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A local Ray instance with two CPUs for a module (started once, shut down at its
    end): ``pytestmark = pytest.mark.usefixtures("local_ray")``."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def web_env(web_cache_dir: Path) -> Iterator[Path]:
    """DICEOPT_CACHE points at the session's cache directory while a web module runs."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DICEOPT_CACHE", str(web_cache_dir))
        yield web_cache_dir


@pytest.fixture(scope="module")
def web_app(web_env: Path):
    """The advisor app, tables loaded on first use (no background warm-up)."""
    from diceopt.web.routes import create_app

    return create_app(warm=False, table_wait=TABLE_WAIT, work_seconds=TABLE_WAIT)


@pytest.fixture(scope="module")
def client(web_app) -> Iterator:
    """A TestClient (httpx) on the app, lifespan run."""
    with warnings.catch_warnings():  # starlette's note on httpx vs httpx2
        warnings.filterwarnings("ignore", message=".*httpx.*", category=UserWarning)
        from fastapi.testclient import TestClient

    with TestClient(web_app) as test_client:
        yield test_client


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def live_server(web_env: Path) -> Iterator[str]:
    """The real app on uvicorn (127.0.0.1, a free port) in a background thread; its base URL."""
    from web_games import RACE

    from diceopt.games.registry import games
    from diceopt.web.routes import create_app

    app = create_app(
        warm=False, games=[*games(), RACE], table_wait=TABLE_WAIT, work_seconds=TABLE_WAIT
    )
    with serve(app) as base:  # and a plug-in game
        yield base


@pytest.fixture(scope="module")
def maxi_server(web_env: Path) -> Iterator[str]:
    """Like ``live_server``, serving Yatzy with the reduced six-dice variant ``maxi-mini``
    offered too (``web_games.maxi_mini_variant``); its base URL."""
    from web_games import maxi_mini_variant

    from diceopt.web.routes import create_app

    with (
        maxi_mini_variant(),
        serve(
            create_app(warm=False, games=["yatzy"], table_wait=TABLE_WAIT, work_seconds=TABLE_WAIT)
        ) as base,
    ):
        yield base


@contextmanager
def serve(app) -> Iterator[str]:
    """``app`` on uvicorn (127.0.0.1, a free port) in a background thread: its base URL."""
    import httpx
    import uvicorn

    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="web-test-server", daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        if server.started:
            break
        if not thread.is_alive():
            pytest.fail(f"the test server did not start on {base}")
        time.sleep(0.05)
    else:
        pytest.fail(f"the test server did not start on {base} within 30 s")
    try:
        assert httpx.get(f"{base}/api/health").status_code == 200
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def ensure_chromium() -> str:
    """Debian's Chromium: installed with apt-get when missing; pytest.fail if impossible."""
    if os.access(CHROMIUM, os.X_OK):
        return CHROMIUM
    apt = shutil.which("apt-get")
    if apt is None:
        pytest.fail(f"{CHROMIUM} is missing and apt-get is not available to install it")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = [apt, "install", "-y", "--no-install-recommends", "chromium"]
    log = []
    for attempt in range(2):
        if attempt == 1:
            update = subprocess.run([apt, "update"], env=env, capture_output=True, text=True)
            log.append(update.stderr[-2000:])
        done = subprocess.run(install, env=env, capture_output=True, text=True)
        log.append(done.stderr[-2000:])
        if done.returncode == 0 and os.access(CHROMIUM, os.X_OK):
            return CHROMIUM
    pytest.fail(
        f"{CHROMIUM} is missing and `apt-get install -y chromium` failed "
        f"(run it as root, or install Debian's chromium package): {' | '.join(log)[-1500:]}"
    )


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Path of the Chromium binary the browser tests drive."""
    return ensure_chromium()


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator:
    """Headless Chromium driven by Playwright (no browser download)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, live_server: str) -> Iterator:
    """A fresh page (phone-ish width) on the live server; console errors fail the test."""
    with new_page(browser) as p:
        yield p


@pytest.fixture
def maxi_page(browser, maxi_server: str) -> Iterator:
    """A fresh page (phone-ish width) for the ``maxi_server``; console errors fail the test."""
    with new_page(browser) as p:
        yield p


@contextmanager
def new_page(browser) -> Iterator:
    """A fresh page (phone-ish width); console errors fail the test."""
    context = browser.new_context(viewport={"width": 420, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    try:
        yield page
    finally:
        context.close()
    # 4xx answers are expected in some tests (the page shows them); nothing else may fail
    # (a table being built is a 202 and a calm wait: never a 503)
    expected = ("status of 4",)
    assert not [e for e in errors if not any(x in e for x in expected)], errors


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """test-artifacts/ at the project root (gitignored): screenshots."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
