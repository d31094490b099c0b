"""The web advisor's JSON API through FastAPI's TestClient: numbers, play, bad requests."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import numpy as np
import pytest

from diceopt import advice
from diceopt.errors import InputError
from diceopt.web.app import MAX_BODY_BYTES, Tables, create_app, load_games

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`:UserWarning")


def assert_error(response, status: int, contains: str = "") -> str:
    """The response has ``status`` and a one-line ``{"error": ...}`` body; returns the line."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    line = body["error"]
    assert isinstance(line, str) and line and "\n" not in line and len(line) <= 300
    assert contains.lower() in line.lower(), line
    return line


def still_serving(client) -> None:
    """After a bad request the server answers good ones as before."""
    assert client.get("/api/health").json()["status"] == "ok"
    response = client.post("/api/advice", json={"game": "stick", "position": "dice 1 3 3"})
    assert response.status_code == 200
    assert response.json()["actions"][0]["action"] == "hold 1"


# --- health, games, schema -------------------------------------------------------------


def test_health(client):
    body = client.get("/api/health").json()
    assert body["status"] == "ok"
    assert "stick" in body["games"]


def test_games_lists_only_importable_games_with_variants(client):
    games = {g["id"]: g for g in client.get("/api/games").json()["games"]}
    assert set(games) == set(load_games())
    for game_id, game in games.items():
        module = advice.game_module(game_id)  # every listed game imports
        assert [v["id"] for v in game["variants"]] == list(module.VARIANTS)
        assert game["default_variant"] == next(iter(module.VARIANTS))
        assert game["position_example"] == module.POSITION_EXAMPLE
    stick = games["stick"]
    assert stick["title"] == "Stick or reroll"
    assert stick["variants"][0]["parameters"]["dice"] == 3
    assert stick["variants"][0]["parameters"]["penalty"] == 1.0
    assert {g["title"] for g in games.values()} == {
        "Stick or reroll",
        "Yatzy",
        "Shut the Box",
        "Pig",
    }


def test_games_list_each_yatzy_variants_categories_from_its_rules(client):
    from diceopt.games.yatzy.rules import VARIANTS, get_rules

    yatzy = next(g for g in client.get("/api/games").json()["games"] if g["id"] == "yatzy")
    assert "categories" not in yatzy  # categories belong to a variant's rules
    for variant in yatzy["variants"]:
        rules = get_rules(variant["id"])
        parameters = variant["parameters"]
        assert parameters["categories"] == list(rules.categories)
        assert (parameters["dice"], parameters["sides"]) == (rules.dice, rules.sides)
    by_id = {v["id"]: v["parameters"]["categories"] for v in yatzy["variants"]}
    assert set(by_id) == set(VARIANTS)
    assert len(by_id["scandinavian"]) == 15 and len(by_id["american"]) == 13
    assert "one_pair" in by_id["scandinavian"] and "one_pair" not in by_id["american"]


def test_missing_game_module_is_left_out(monkeypatch):
    from fastapi.testclient import TestClient

    monkeypatch.setitem(advice.GAMES, "ghost", "diceopt.games.ghost_that_does_not_exist")
    app = create_app(warm=False)
    with TestClient(app) as c:
        ids = [g["id"] for g in c.get("/api/games").json()["games"]]
        assert "ghost" not in ids and "stick" in ids
        assert "ghost" not in c.get("/api/health").json()["games"]
        assert_error(c.post("/api/advice", json={"game": "ghost", "position": "x"}), 400, "ghost")
        still_serving(c)


def test_games_limited_to_a_list():
    from fastapi.testclient import TestClient

    with TestClient(create_app(warm=False, games=["stick"])) as c:
        assert [g["id"] for g in c.get("/api/games").json()["games"]] == ["stick"]


def test_openapi_schema_served(client):
    schema = client.get("/openapi.json").json()
    for path in ("/api/health", "/api/games", "/api/advice", "/api/evaluate", "/api/apply"):
        assert path in schema["paths"]
    advice_op = schema["paths"]["/api/advice"]["post"]
    assert "200" in advice_op["responses"] and "400" in advice_op["responses"]
    assert "AdviceOut" in json.dumps(advice_op["responses"]["200"])


def test_page_and_static_files_served_without_cdn(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert '<script src="/static/app.js">' in page.text
    for name in ("app.js", "style.css"):
        response = client.get(f"/static/{name}")
        assert response.status_code == 200 and len(response.text) > 500
        assert "http://" not in response.text and "https://" not in response.text
    assert "http://" not in page.text and "https://" not in page.text


# --- advice numbers ----------------------------------------------------------------------


def test_stick_advice_matches_the_library_best_first(client):
    for variant, position in (
        (None, "dice 1 3 3"),
        ("3d6", "dice 6 6 6"),
        ("2d3", "dice 1 2"),
        ("6d6", "dice 1 1 2 3 5 6"),
    ):
        response = client.post(
            "/api/advice", json={"game": "stick", "variant": variant, "position": position}
        )
        assert response.status_code == 200, response.text
        got = response.json()["actions"]
        want = [a.to_json() for a in advice.advise("stick", position, variant)]
        assert got == want  # the same floats, the same order
        values = [a["value"] for a in got]
        assert values == sorted(values, reverse=True)
        assert got[0]["regret"] == 0.0
        for a in got:
            assert a["regret"] == pytest.approx(got[0]["value"] - a["value"], abs=1e-12)


def test_stick_hand_computed_values(client):
    got = client.post("/api/advice", json={"game": "stick", "position": "dice 1 3 3"}).json()
    by_action = {a["action"]: a for a in got["actions"]}
    # Sticking with 1 3 3: the pair of 3s flips to 4s, 1 + 4 + 4 = 9 points.
    assert by_action["stick"]["value"] == 9.0
    # Three 1s flip to three 6s: 18, the best possible score; sticking is best.
    best = client.post("/api/advice", json={"game": "stick", "position": "dice 1 1 1"}).json()
    assert best["actions"][0] == {"action": "stick", "value": 18.0, "regret": 0.0}
    # The distinct holds of 1 3 3: stick, hold 1 3, hold 3 3, hold 1, hold 3, hold -.
    assert set(by_action) == {"stick", "hold 1 3", "hold 3 3", "hold 1", "hold 3", "hold -"}
    # Bellman: holding 3 3 pays 1 and rolls one die, then plays on optimally.
    after = []
    for d in range(1, 7):
        dice = " ".join(map(str, sorted([3, 3, d])))
        best_then = client.post("/api/advice", json={"game": "stick", "position": f"dice {dice}"})
        after.append(best_then.json()["actions"][0]["value"])
    assert by_action["hold 3 3"]["value"] == pytest.approx(-1 + sum(after) / 6, abs=1e-9)


def test_advice_is_cached_and_whitespace_insensitive(client):
    a = client.post("/api/advice", json={"game": "stick", "position": "dice 1 3 3"}).json()
    b = client.post("/api/advice", json={"game": "stick", "position": "  dice  1 3   3 "}).json()
    assert a == b


def test_evaluate_matches_advice(client):
    position = "dice 1 3 3"
    actions = client.post("/api/advice", json={"game": "stick", "position": position}).json()
    for entry in actions["actions"]:
        response = client.post(
            "/api/evaluate",
            json={"game": "stick", "position": position, "action": entry["action"]},
        )
        assert response.status_code == 200, response.text
        got = response.json()
        assert got["action"] == entry["action"]
        assert got["value"] == entry["value"] and got["regret"] == entry["regret"]
        assert got["best_value"] == pytest.approx(actions["actions"][0]["value"], abs=1e-12)
    # extra spaces in the action are fine, an illegal action is a 400
    ok = client.post(
        "/api/evaluate", json={"game": "stick", "position": position, "action": "hold  3 3"}
    )
    assert ok.json()["action"] == "hold 3 3"
    bad = client.post(
        "/api/evaluate", json={"game": "stick", "position": position, "action": "hold 6"}
    )
    assert_error(bad, 400, "hold 6")


# --- play: new game and apply ------------------------------------------------------------


def test_new_and_apply_are_seeded(client):
    new = [client.post("/api/new", json={"game": "stick", "seed": 7}).json() for _ in range(2)]
    assert new[0] == new[1] and new[0]["game_over"] is False
    start = new[0]["position"]
    assert client.post("/api/advice", json={"game": "stick", "position": start}).status_code == 200
    body = {"game": "stick", "position": "dice 1 3 3", "action": "hold 1", "seed": 3}
    first, second = (client.post("/api/apply", json=body).json() for _ in range(2))
    assert first == second and first["game_over"] is False
    assert first["position"].startswith("dice 1")
    want = advice.apply("stick", "dice 1 3 3", "hold 1", None, np.random.default_rng(3))
    assert (first["position"], first["game_over"]) == want
    stick = client.post(
        "/api/apply", json={"game": "stick", "position": "dice 1 3 3", "action": "stick"}
    ).json()
    assert stick == {"position": "dice 1 3 3", "game_over": True}


def test_a_whole_stick_game_through_the_api(client):
    position = client.post("/api/new", json={"game": "stick", "seed": 11}).json()["position"]
    seed = 100
    for _ in range(200):
        options = client.post("/api/advice", json={"game": "stick", "position": position}).json()
        action = options["actions"][0]["action"]
        seed += 1
        step = client.post(
            "/api/apply",
            json={"game": "stick", "position": position, "action": action, "seed": seed},
        ).json()
        position = step["position"]
        if step["game_over"]:
            assert action == "stick"
            break
    else:
        pytest.fail("optimal stick play did not end in 200 moves")


# --- bad requests ---------------------------------------------------------------------


def test_malformed_json(client):
    for raw in (b"{bad", b'{"game": "stick", "position": }', b"", b"\xff\xfe"):
        response = client.post(
            "/api/advice", content=raw, headers={"content-type": "application/json"}
        )
        assert response.status_code in (400, 422), response.text
        assert_error(response, response.status_code)
    assert_error(
        client.post("/api/advice", content=b"{bad", headers={"content-type": "application/json"}),
        400,
        "malformed JSON",
    )
    still_serving(client)


def test_unknown_game(client):
    line = assert_error(
        client.post("/api/advice", json={"game": "chess", "position": "e4"}), 400, "unknown game"
    )
    assert "stick" in line
    for path, extra in (
        ("/api/evaluate", {"action": "x"}),
        ("/api/apply", {"action": "x"}),
        ("/api/new", {}),
    ):
        body = {"game": "chess", **extra}
        if path != "/api/new":
            body["position"] = "e4"
        assert_error(client.post(path, json=body), 400, "unknown game")
    still_serving(client)


def test_unknown_variant(client):
    body = {"game": "stick", "variant": "20d20", "position": "dice 1 3 3"}
    assert_error(client.post("/api/advice", json=body), 400, "unknown stick variant")
    still_serving(client)


@pytest.mark.parametrize(
    "position, words",
    [
        ("dice 1 3 9", "not a face"),
        ("dice 1 3", "expected 3 dice"),
        ("dice one two three", "not a number"),
        ("dice 1 3 3 3", "expected 3 dice"),
    ],
)
def test_invalid_position(client, position, words):
    response = client.post("/api/advice", json={"game": "stick", "position": position})
    assert_error(response, 400, words)
    apply = client.post(
        "/api/apply", json={"game": "stick", "position": position, "action": "stick"}
    )
    assert_error(apply, 400)
    still_serving(client)


def test_body_over_64_kb_by_content_length(client):
    big = {"game": "stick", "position": "dice 1 3 3 " + " " * MAX_BODY_BYTES}
    response = client.post("/api/advice", json=big)
    assert_error(response, 413, "too large")
    still_serving(client)


def test_body_over_64_kb_without_content_length(client):
    chunks = [b'{"game": "stick", "position": "dice 1 3 3', b" " * 40_000, b" " * 40_000, b'"}']
    response = client.post(
        "/api/advice", content=iter(chunks), headers={"content-type": "application/json"}
    )
    assert "content-length" not in response.request.headers  # sent chunked
    assert_error(response, 413, "too large")
    still_serving(client)


def test_body_just_under_the_limit_is_accepted(client):
    padding = MAX_BODY_BYTES - 200
    body = '{"game": "stick", "position": "dice 1 3 3"' + " " * padding + "}"
    assert len(body) < MAX_BODY_BYTES
    response = client.post(
        "/api/advice", content=body.encode(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    "body, words",
    [
        ({"game": "stick"}, "position"),
        ({"position": "dice 1 3 3"}, "game"),
        ({"game": "stick", "position": 5}, "position"),
        ({"game": "stick", "position": ""}, "position"),
        ({"game": "stick", "position": "dice 1 3 3", "colour": "red"}, "colour"),
        ([1, 2, 3], "body"),
        ("dice 1 3 3", "body"),
        ({"game": "stick", "position": "x" * 3000}, "position"),
    ],
)
def test_validation_errors_are_one_line_4xx(client, body, words):
    response = client.post("/api/advice", json=body)
    assert_error(response, 422, words)
    still_serving(client)


def test_bad_seed_and_action(client):
    body = {"game": "stick", "position": "dice 1 3 3", "action": "hold 1", "seed": -1}
    assert_error(client.post("/api/apply", json=body), 422, "seed")
    body["seed"] = "abc"
    assert_error(client.post("/api/apply", json=body), 422, "seed")
    body.update(seed=1, action="hold 2")
    assert_error(client.post("/api/apply", json=body), 400, "hold 2")
    still_serving(client)


def test_wrong_method_and_path(client):
    assert_error(client.get("/api/advice"), 405)
    assert_error(client.get("/api/nothing-here"), 404)
    assert_error(client.post("/api/health", json={}), 405)
    still_serving(client)


def test_internal_error_is_a_one_line_500(monkeypatch):
    from fastapi.testclient import TestClient

    app = create_app(warm=False, games=["stick"])
    module = app.state.tables.games["stick"]

    def broken(position, variant=None):
        raise RuntimeError("boom\nwith a second line")

    with TestClient(app, raise_server_exceptions=False) as c:
        monkeypatch.setattr(module, "advise", broken)
        response = c.post("/api/advice", json={"game": "stick", "position": "dice 6 6 5"})
        assert_error(response, 500, "internal error")
        monkeypatch.undo()
        still_serving(c)


# --- tables: built once, shared -------------------------------------------------------------


class FakeGame:
    """A game module stand-in that counts how often its table is built."""

    VARIANTS = {"v": "the only variant"}
    POSITION_EXAMPLE = "p"

    def __init__(self) -> None:
        self.builds = 0
        self.table = None
        self.lock = threading.Lock()

    def advise(self, position: str, variant: str | None = None):
        if self.table is None:
            with self.lock:
                self.builds += 1
            threading.Event().wait(0.05)  # a slow build: racing threads would both build
            self.table = 1.0
        if position != "p":
            raise InputError("bad position")
        return [advice.ActionAdvice("a", self.table, 0.0)]

    def apply(self, position, action, variant=None, rng=None):
        return position, True


def test_first_use_builds_the_table_once_under_concurrency():
    fake = FakeGame()
    tables = Tables({"fake": fake})
    results = []

    def worker() -> None:
        results.append(tables.run("fake", "v", lambda: fake.advise("p", "v")))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert fake.builds == 1 and len(results) == 8
    assert tables.status == {"fake/v": "ready"}


def test_bad_position_on_first_use_does_not_mark_a_table_ready():
    fake = FakeGame()
    fake.table = 1.0  # parse fails before anything is built
    tables = Tables({"fake": fake})
    with pytest.raises(InputError):
        tables.run("fake", "v", lambda: fake.advise("zzz", "v"))
    assert tables.status == {}
    # Not taken for ready: the next good call goes through the build path, which marks it.
    tables.run("fake", "v", lambda: fake.advise("p", "v"))
    assert tables.status == {"fake/v": "ready"}


def test_warm_up_loads_default_variants_in_the_background():
    from fastapi.testclient import TestClient

    app = create_app(warm=["stick"], games=["stick"])
    with TestClient(app) as c:
        for _ in range(400):
            status = c.get("/api/health").json()["tables"]
            if status.get("stick/3d6") == "ready":
                break
            threading.Event().wait(0.05)
        assert status == {"stick/3d6": "ready"}


# --- the serve command ---------------------------------------------------------------------


SERVE = "import sys; from diceopt.cli import main; sys.exit(main())"


def test_serve_command_prints_its_url_and_serves(web_env):
    import httpx

    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE, "serve", "--port", "0", "--no-warm"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline().strip()
        assert line.startswith("diceopt advisor: open http://127.0.0.1:"), line
        url = line.split("open ", 1)[1].split()[0]
        for _ in range(200):
            try:
                response = httpx.get(f"{url}api/health", timeout=5)
                break
            except httpx.TransportError:
                threading.Event().wait(0.05)
        assert response.json()["status"] == "ok"
        assert httpx.get(url).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_serve_rejects_a_busy_port_in_one_line():
    import socket

    from diceopt.cli import main
    from diceopt.cli.serve import listen_socket, url_for

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(InputError, match="in use"):
            listen_socket("127.0.0.1", port)
        assert main(["serve", "--port", str(port)]) == 2
    assert main(["serve", "--port", "70000"]) == 2
    assert url_for("0.0.0.0", 8000) == "http://127.0.0.1:8000/"
    assert url_for("::1", 80) == "http://[::1]:80/"


def test_serve_rejects_unknown_warm_game_ids(capsys):
    from diceopt.cli import main
    from diceopt.web.app import warm_setting

    assert warm_setting("all") is True and warm_setting("none") is False
    assert warm_setting(" yatzy , stick ") == ["yatzy", "stick"]
    with pytest.raises(InputError, match="'foo'"):
        warm_setting("yatzy,foo")
    with pytest.raises(InputError, match="'bar'"):
        create_app(warm=["stick", "bar"])
    capsys.readouterr()
    # rejected before the socket is bound: nothing listens, one line on stderr, status 2
    assert main(["serve", "--port", "0", "--warm", "foo"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and "'foo'" in err and "unknown game" in err
    assert main(["serve", "--port", "0", "--warm", "stick,all"]) == 2
    assert "'all'" in capsys.readouterr().err


# --- Yatzy ------------------------------------------------------------------------------------


def test_every_game_is_served():
    assert set(load_games()) == {"stick", "yatzy", "shutbox", "pig"}


UPPER_CATS = ("ones", "twos", "threes", "fours", "fives", "sixes")
LOWER_CATS = (
    "one_pair two_pairs three_of_a_kind four_of_a_kind small_straight large_straight "
    "full_house chance yatzy"
)
YATZY_CATS = UPPER_CATS + tuple(LOWER_CATS.split())


def yatzy_advice(client, position: str, variant: str | None = None) -> list[dict]:
    response = client.post(
        "/api/advice", json={"game": "yatzy", "variant": variant, "position": position}
    )
    assert response.status_code == 200, response.text
    return response.json()["actions"]


def test_yatzy_advice_matches_the_cli(client, capsys):
    from diceopt.cli import main

    games = {g["id"]: g for g in client.get("/api/games").json()["games"]}
    example = games["yatzy"]["position_example"]
    for position in (
        example,
        "dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 3",
        "dice 6 6 6 6 2 | rerolls 0 | filled - | upper 0 | score 0",
    ):
        got = yatzy_advice(client, position)
        capsys.readouterr()
        assert main(["yatzy", "advise", position, "--json"]) == 0
        cli = json.loads(capsys.readouterr().out)
        assert got == cli["actions"]  # the same numbers as `advise --json`
        assert got[0]["regret"] == 0.0
        assert [a["value"] for a in got] == sorted((a["value"] for a in got), reverse=True)


def test_yatzy_start_value_is_the_published_one(client):
    # Expected final score before the first roll = mean over the 252 first rolls of the
    # best action's value (5 dice, multinomial probabilities).
    from itertools import combinations_with_replacement
    from math import factorial, prod

    total = 0.0
    for roll in combinations_with_replacement(range(1, 7), 5):
        ways = factorial(5) / prod(factorial(roll.count(f)) for f in set(roll))
        dice = " ".join(map(str, roll))
        position = f"dice {dice} | rerolls 2 | filled - | upper 0 | score 0"
        total += ways / 6**5 * yatzy_advice(client, position)[0]["value"]
    assert total == pytest.approx(248.4399893778553, abs=2e-3)


def test_yatzy_last_round_apply_ends_the_game(client):
    # Sixes is the last open box; 45 in the upper section so far. Three sixes make 63:
    # 18 points and the 50 bonus. The score so far already counts every other box.
    filled = " ".join(c for c in YATZY_CATS if c != "sixes")
    position = f"dice 1 2 6 6 6 | rerolls 0 | filled {filled} | upper 45 | score 200"
    options = yatzy_advice(client, position)
    assert [o["action"] for o in options] == ["score sixes"]
    assert options[0]["value"] == pytest.approx(200 + 18 + 50, abs=1e-3)
    step = client.post(
        "/api/apply",
        json={"game": "yatzy", "position": position, "action": "score sixes", "seed": 1},
    ).json()
    assert step["game_over"] is True
    assert "score 268" in step["position"]
    # With two rerolls left, keeping the three sixes is also offered.
    position = position.replace("rerolls 0", "rerolls 2")
    actions = {o["action"]: o for o in yatzy_advice(client, position)}
    assert {"score sixes", "keep 6 6 6", "keep -"} <= set(actions)
    assert actions["keep 6 6 6"]["value"] > actions["score sixes"]["value"]


def test_yatzy_evaluate_and_apply(client):
    position = "dice 1 3 3 5 6 | rerolls 2 | filled - | upper 0 | score 0"
    options = yatzy_advice(client, position)
    worst = options[-1]
    got = client.post(
        "/api/evaluate", json={"game": "yatzy", "position": position, "action": worst["action"]}
    ).json()
    assert got["value"] == worst["value"] and got["regret"] == worst["regret"] > 0
    body = {"game": "yatzy", "position": position, "action": "keep 3 3", "seed": 42}
    first, second = (client.post("/api/apply", json=body).json() for _ in range(2))
    assert first == second and first["game_over"] is False
    assert "rerolls 1" in first["position"]
    yatzy_advice(client, first["position"])  # the next position parses


@pytest.mark.parametrize(
    "position",
    [
        "dice 1 3 3 5 7 | rerolls 2 | filled - | upper 0 | score 0",
        "dice 1 3 3 5 | rerolls 2 | filled - | upper 0 | score 0",
        "dice 1 3 3 5 6 | rerolls 3 | filled - | upper 0 | score 0",
        "dice 1 3 3 5 6 | rerolls 2 | filled eights | upper 0 | score 0",
        "dice 1 3 3 5 6 | rerolls 2 | filled ones | upper 30 | score 30",
    ],
)
def test_yatzy_invalid_positions_are_400(client, position):
    response = client.post("/api/advice", json={"game": "yatzy", "position": position})
    assert_error(response, 400)
    still_serving(client)


# --- Pig and Shut the Box ---------------------------------------------------------------------


def test_pig_advice_apply_and_errors(client):
    position = "me 12 | opponent 15 | turn 6"
    body = {"game": "pig", "variant": "goal-20", "position": position}
    got = client.post("/api/advice", json=body).json()["actions"]
    assert got == [a.to_json() for a in advice.advise("pig", position, "goal-20")]
    assert {a["action"] for a in got} == {"roll", "hold"}
    assert all(0.0 <= a["value"] <= 1.0 for a in got)  # win probabilities
    held = client.post("/api/apply", json={**body, "action": "hold", "seed": 1}).json()
    assert held == {"position": "me 15 | opponent 18 | turn 0", "game_over": False}
    start = client.post("/api/new", json={"game": "pig", "variant": "goal-20"}).json()
    assert start["position"] == "me 0 | opponent 0 | turn 0"
    for bad in ("me -1 | opponent 0 | turn 0", "me 30 | opponent 0 | turn 0", "me 1"):
        assert_error(client.post("/api/advice", json={**body, "position": bad}), 400)
    still_serving(client)


def test_coalescing_transport_joins_the_writes_of_one_step():
    import asyncio

    from diceopt.web.server import CoalescingTransport

    class Recorder:
        def __init__(self) -> None:
            self.sent: list[bytes] = []
            self.closed = False

        def write(self, data: bytes) -> None:
            self.sent.append(data)

        def is_closing(self) -> bool:
            return self.closed

        def close(self) -> None:
            self.closed = True

        def get_extra_info(self, name: str):
            return ("127.0.0.1", 1) if name == "peername" else None

    async def scenario() -> Recorder:
        inner = Recorder()
        t = CoalescingTransport(inner, asyncio.get_running_loop())
        t.write(b"HTTP/1.1 200 OK\r\n\r\n")
        t.write(b"")
        t.write(bytearray(b"body"))
        assert inner.sent == []  # nothing leaves before the step ends
        await asyncio.sleep(0)
        assert inner.sent == [b"HTTP/1.1 200 OK\r\n\r\nbody"]
        t.write(b"bye")
        t.close()  # close sends what is queued first
        assert inner.sent[-1] == b"bye" and inner.closed
        assert t.get_extra_info("peername") == ("127.0.0.1", 1)  # the rest is forwarded
        return inner

    asyncio.run(scenario())


def test_real_server_rejects_big_bodies_and_keeps_serving(live_server):
    import httpx

    with httpx.Client(base_url=live_server, timeout=30) as http:
        big = {"game": "stick", "position": "dice 1 3 3" + " " * (2 * MAX_BODY_BYTES)}
        assert_error(http.post("/api/advice", json=big), 413, "too large")

        def chunks():
            yield b'{"game": "stick", "position": "dice 1 3 3'
            for _ in range(20):
                yield b" " * 8192
            yield b'"}'

        response = http.post(
            "/api/advice", content=chunks(), headers={"content-type": "application/json"}
        )
        assert_error(response, 413, "too large")
        assert_error(
            http.post(
                "/api/advice", content=b"{oops", headers={"content-type": "application/json"}
            ),
            400,
            "malformed JSON",
        )
        ok = http.post("/api/advice", json={"game": "stick", "position": "dice 1 3 3"})
        assert ok.status_code == 200 and ok.json()["actions"][0]["action"] == "hold 1"
        assert http.get("/api/health").json()["status"] == "ok"


def test_fast_advice_path_answers_exactly_like_the_framework(client, monkeypatch):
    from fastapi.testclient import TestClient

    import diceopt.web.app as web

    monkeypatch.setattr(web, "FAST_PATH", False)
    plain_app = web.create_app(warm=False)
    requests = [
        {"game": "stick", "position": "dice 1 3 3"},
        {"game": "stick", "variant": "2d3", "position": "dice 1 2"},
        {"game": "stick", "variant": None, "position": "dice 6 6 5"},
        {"game": "stick", "position": "dice 1 3 9"},  # invalid: the app answers
        {"game": "stick", "position": "dice 1 3 3", "extra": 1},
        {"game": "stick", "variant": 3, "position": "dice 1 3 3"},
        {"game": "nope", "position": "dice 1 3 3"},
        ["not", "an", "object"],
    ]
    with TestClient(plain_app) as plain:
        for body in requests:
            for _ in range(2):  # the second time the table is loaded and the fast path used
                fast, slow = (
                    client.post("/api/advice", json=body),
                    plain.post("/api/advice", json=body),
                )
                assert (fast.status_code, fast.content) == (slow.status_code, slow.content)
                assert fast.headers["content-type"] == slow.headers["content-type"]
        text = client.post(
            "/api/advice",
            content=json.dumps(requests[0]),
            headers={"content-type": "text/plain"},
        )
        same = plain.post(
            "/api/advice",
            content=json.dumps(requests[0]),
            headers={"content-type": "text/plain"},
        )
        assert text.status_code == same.status_code


def test_shutbox_advice_apply_and_errors(client):
    games = {g["id"]: g for g in client.get("/api/games").json()["games"]}
    variants = {v["id"]: v for v in games["shutbox"]["variants"]}
    default = games["shutbox"]["default_variant"]
    assert "lower is better" in variants[default]["value_units"]
    position = "open 1 3 4 7 | roll 8"
    got = client.post("/api/advice", json={"game": "shutbox", "position": position}).json()
    assert got["actions"] == [a.to_json() for a in advice.advise("shutbox", position, default)]
    # 1 + 7 = 8 and 1 + 3 + 4 = 8 are the only ways to make 8 from the open tiles 1 3 4 7
    assert {a["action"] for a in got["actions"]} == {"shut 1 7", "shut 1 3 4"}
    start = client.post("/api/new", json={"game": "shutbox", "seed": 4}).json()["position"]
    assert start.startswith("open 1 2 3 4 5 6 7 8 9 | roll ")
    best = client.post("/api/advice", json={"game": "shutbox", "position": start}).json()
    step = client.post(
        "/api/apply",
        json={
            "game": "shutbox",
            "position": start,
            "action": best["actions"][0]["action"],
            "seed": 5,
        },
    ).json()
    assert set(step) == {"position", "game_over"}
    for bad in ("open 1 3 4 7 | roll 13", "open 1 3 10 | roll 8", "open | roll 8", "tiles 1 2"):
        body = {"game": "shutbox", "position": bad}
        assert_error(client.post("/api/advice", json=body), 400)
    still_serving(client)


def test_evaluate_best_value_when_lower_is_better(client):
    # Shut the Box, two-then-one/score: the expected final score (sum of the open tiles,
    # points) is minimised. Open 1 3 4 7, roll 8: shut 1 7 or shut 1 3 4.
    # - shut 1 3 4 leaves 7 (over 6: two dice): a 7 (6/36) shuts it, else 7 stays:
    #   30/36 * 7 = 35/6.
    # - shut 1 7 leaves 3 4 (sum 7: two dice). A 3 (2/36) shuts 3, leaving 4 (one die:
    #   a 4 shuts it, 5/6 * 4 = 10/3); a 4 (3/36) shuts 4, leaving 3 (5/6 * 3 = 5/2);
    #   a 7 (6/36) shuts 3 4 (score 0); the 25/36 other sums end the turn with 7.
    from fractions import Fraction as F

    shut_134 = F(30, 36) * 7
    best = F(2, 36) * F(10, 3) + F(3, 36) * F(5, 2) + F(6, 36) * 0 + F(25, 36) * 7
    assert float(best) == pytest.approx(5.2546296296, abs=1e-9) and best < shut_134
    body = {"game": "shutbox", "variant": "two-then-one/score", "position": "open 1 3 4 7 | roll 8"}
    worse = client.post("/api/evaluate", json={**body, "action": "shut 1 3 4"})
    assert worse.status_code == 200, worse.text
    got = worse.json()
    assert got["value"] == pytest.approx(float(shut_134), abs=1e-9)
    assert got["best_value"] == pytest.approx(float(best), abs=1e-9)
    assert got["regret"] == pytest.approx(float(shut_134 - best), abs=1e-9)
    top = client.post("/api/evaluate", json={**body, "action": "shut 1 7"}).json()
    assert top["value"] == top["best_value"] == pytest.approx(float(best), abs=1e-9)
    assert top["regret"] == 0.0
    # higher is better (probability of shutting the box): the best value is the largest
    body["variant"] = "two-then-one/shut"
    got = client.post("/api/evaluate", json={**body, "action": "shut 1 3 4"}).json()
    want = advice.advise("shutbox", body["position"], body["variant"])
    assert got["best_value"] == max(a.value for a in want) == want[0].value


def test_new_game_sizes_follow_the_variant_rules(client):
    for game, variant, dice, sides in (
        ("stick", "2d3", 2, 3),
        ("stick", "6d6", 6, 6),
        ("yatzy", "american", 5, 6),
    ):
        for seed in range(5):
            body = {"game": game, "variant": variant, "seed": seed}
            start = client.post("/api/new", json=body).json()
            assert start["game_over"] is False
            faces = [int(f) for f in start["position"].split("|")[0].split()[1:]]
            assert len(faces) == dice and faces == sorted(faces)
            assert all(1 <= f <= sides for f in faces)
            advised = {"game": game, "variant": variant, "position": start["position"]}
            assert client.post("/api/advice", json=advised).status_code == 200
    start = client.post("/api/new", json={"game": "shutbox", "variant": "always-two/shut"})
    assert start.json()["position"].startswith("open 1 2 3 4 5 6 7 8 9 | roll ")
    # The tiles come from the rules (the module accepts more variants than the page offers).
    from diceopt.games import shutbox
    from diceopt.web.app import start_position

    five = start_position(shutbox, "shutbox", "two-then-one/score/5", np.random.default_rng(1))
    assert five.startswith("open 1 2 3 4 5 | roll ")
