"""The example plug-in game (examples/plugin-game) installed into a temporary location.

It declares the ``diceopt.games`` entry point; once importable it must appear in
``diceopt --help``, answer ``solve --json`` and ``advise``, be listed by ``GET
/api/games`` and pass the conformance suite, with no edit outside its own package.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_conformance import check_game

from diceopt.games import registry

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "plugin-game"


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example game pip-installed (no dependencies) into a temporary directory."""
    site = tmp_path_factory.mktemp("plugin-site")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site)]
        + [str(EXAMPLE)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return site


@pytest.fixture
def with_plugin(plugin_site: Path, monkeypatch: pytest.MonkeyPatch):
    """The plug-in importable in this process, and the registry read afresh."""
    monkeypatch.syspath_prepend(str(plugin_site))
    monkeypatch.setattr(registry, "_GAMES", None)
    yield registry.games()
    monkeypatch.setattr(registry, "_GAMES", None)


def run(site: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(site))
    return subprocess.run(
        [sys.executable, "-m", "diceopt", *args], capture_output=True, text=True, env=env
    )


def test_the_plugin_is_a_command_with_solve_and_advise(plugin_site: Path) -> None:
    assert "bust" in run(plugin_site, "--help").stdout
    solved = run(plugin_site, "bust", "solve", "--json")
    assert solved.returncode == 0, solved.stderr
    data = json.loads(solved.stdout)
    assert data["game"] == "bust" and data["value"] > 6.9  # limit 10, d6: 6.99879...
    advice = run(plugin_site, "bust", "advise", "total 7", "--json")
    actions = json.loads(advice.stdout)["actions"]
    # from 7, rolling reaches 8, 9 or 10 (then stopping) with 1/6 each, or busts: 27/6
    assert [a["action"] for a in actions] == ["stop", "roll"]
    assert actions[1]["value"] == pytest.approx(27 / 6, abs=1e-12)
    bad = run(plugin_site, "bust", "advise", "total x")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_the_plugin_conforms_and_is_listed_by_the_api(with_plugin, web_env) -> None:
    import warnings

    from diceopt.web.routes import create_app

    with warnings.catch_warnings():  # starlette's note on httpx vs httpx2
        warnings.filterwarnings("ignore", message=".*httpx.*")
        from fastapi.testclient import TestClient

    assert "bust" in with_plugin
    check_game(with_plugin["bust"])
    with TestClient(create_app(warm=False)) as client:
        listed = {g["id"]: g for g in client.get("/api/games").json()["games"]}
        assert listed["bust"]["title"] == "Bust" and {"stick", "yatzy", "pig"} <= set(listed)
        answer = client.post("/api/advice", json={"game": "bust", "position": "total 7"})
        assert answer.status_code == 200
        assert [a["action"] for a in answer.json()["actions"]] == ["stop", "roll"]
