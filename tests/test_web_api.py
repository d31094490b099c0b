"""The web advisor's JSON API through FastAPI's TestClient: numbers, play, bad requests.

Games come from the registry: the checks over ``games()`` cover every registered game;
stick and Yatzy get explicit checks of their numbers; ``web_games.RACE`` (a two-player
game written as a plug-in would be) checks ``to_move``, ``events`` and ``result``. Maxi
Yatzy's table is too big for the suite: six dice are advised and played on a reduced
Maxi variant (``web_games.maxi_mini_variant``), the full variant is listed and checked
up to its table.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from web_games import (
    AHEAD_OF_ME,
    BEHIND,
    BIG_TABLES,
    MAXI_MINI_ID,
    RACE,
    GatedSpec,
    maxi_mini_variant,
)

from diceopt.advice import ActionAdvice, Advice
from diceopt.errors import InputError
from diceopt.games.contract import GameSpec
from diceopt.games.registry import games, get_game
from diceopt.web.games import GameTables, board_kind, id_words, variant_titles
from diceopt.web.routes import create_app
from diceopt.web.schemas import MAX_BODY_BYTES
from diceopt.web.served import served_games, warm_setting

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`:UserWarning")

BOARDS = {"dice", "dice-sheet", "tiles", "colour-dice", "form"}


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


def library_advice(game: str, position: Any, variant: str | None = None) -> dict[str, Any]:
    """What ``diceopt GAME advise --json`` prints, through the spec."""
    spec = get_game(game)
    rules = spec.rules(variant)
    pos = spec.parse(rules, position)
    return {"position": spec.format(rules, pos), **spec.advise(rules, pos).to_json()}


@pytest.fixture(scope="module")
def race_client(web_env):
    """An app serving the registered games and the race plug-in."""
    from fastapi.testclient import TestClient

    with TestClient(create_app(warm=False, games=[*games(), RACE])) as c:
        yield c


# --- health, games, schema -------------------------------------------------------------


def test_health(client):
    body = client.get("/api/health").json()
    assert body["status"] == "ok"
    assert body["games"] == list(games())


def test_games_listing_comes_from_the_registry(client):
    listed = {g["id"]: g for g in client.get("/api/games").json()["games"]}
    assert list(listed) == list(games())
    for game_id, spec in games().items():
        game = listed[game_id]
        assert game["title"] == spec.title and game["units"] == spec.units
        assert game["players"] == spec.players
        assert game["lower_is_better"] == spec.lower_is_better
        assert [v["id"] for v in game["variants"]] == list(spec.variants)
        assert game["default_variant"] == next(iter(spec.variants))
        assert game["position_example"] == spec.position_example
        assert game["board"] in BOARDS
        for variant in game["variants"]:
            rules = spec.rules(variant["id"])
            # each variant's example parses under its rules, text and JSON alike
            pos = spec.parse(rules, variant["position_example"])
            assert spec.parse(rules, variant["position_example_json"]) == pos
            assert (
                json.loads(json.dumps(spec.describe(rules), default=list)) == variant["parameters"]
            )
    stick = listed["stick"]
    assert stick["title"] == "Stick or reroll" and stick["board"] == "dice"
    assert stick["variants"][0]["parameters"]["dice"] == 3
    assert stick["variants"][0]["parameters"]["penalty"] == 1.0
    assert listed["yatzy"]["board"] == "dice-sheet"
    # page metadata: the game the page opens on first, each variant's players and sheet
    assert [g for g in listed if listed[g]["featured"]] == ["yatzy"]
    solo, duo = (listed["shutbox"]["variants"][i] for i in (0, -1))
    assert (solo["players"], duo["players"]) == (1, 2)
    # a game of Zilch is one turn (its worth in the long run); the others are whole games
    assert [g for g in listed if listed[g]["one_turn"]] == ["zilch"]
    sheet = listed["yatzy"]["variants"][0]["sheet"]
    assert sheet["upper"] == ["ones", "twos", "threes", "fours", "fives", "sixes"]
    assert (sheet["bonus_threshold"], sheet["bonus"]) == (63, 50)


def test_variants_are_listed_with_titles_for_people(client, race_client):
    listed = {g["id"]: g for g in client.get("/api/games").json()["games"]}
    for game_id, spec in games().items():
        titles = [v["title"] for v in listed[game_id]["variants"]]
        assert len(set(titles)) == len(titles) and all(t.strip() for t in titles), titles
        for variant in listed[game_id]["variants"]:
            # a game's own titles first; never the bare id where the id is a code
            assert variant["title"] == spec.variant_titles.get(variant["id"], variant["title"])
            assert variant["title"] != variant["id"], (game_id, variant["id"])
    pig = {v["id"]: v["title"] for v in listed["pig"]["variants"]}
    assert pig["goal-100"] == "To 100 points"
    farkle = {v["id"]: v["title"] for v in listed["farkle"]["variants"]}
    assert farkle["acg2017"].startswith("To 10,000")
    yatzy = {v["id"]: v["title"] for v in listed["yatzy"]["variants"]}
    assert yatzy["scandinavian"] == "Scandinavian Yatzy"
    assert yatzy["american-forced-joker"] == "American Yahtzee, forced joker"
    assert yatzy["scandinavian-forced"] == "Scandinavian, boxes in order"
    race = race_client.get("/api/games").json()["games"][-1]
    assert [v["title"] for v in race["variants"]] == ["First to 5 points", "First to 3 points"]


def test_variant_titles_fall_back_to_the_id_in_words():
    class Spec(GameSpec):
        id = "demo"
        variants = {
            "long-one": "a description far too long to be a title: " + "word " * 20,
            "two-a": "twin: the first",
            "two-b": "twin: the second",
            "own": "x",
            "plain": "Plain rules",
        }
        variant_titles = {"own": "Its own title"}

    assert variant_titles(Spec()) == {
        "long-one": "A description far too long to be a title",
        "two-a": "Two a",  # two variants alike before the colon: the ids
        "two-b": "Two b",
        "own": "Its own title",
        "plain": "Plain rules",
    }
    Spec.variants = {"x": "word " * 20}
    assert variant_titles(Spec()) == {"x": "X"}
    assert id_words("two-then-one/score") == "Two then one / score"
    assert id_words("scandinavian_fh-accepts") == "Scandinavian fh accepts"


def test_analyse_splits_a_played_game_into_luck_and_skill(client):
    record = "\n".join(
        [
            "~> new game",
            "dice 1 3 3 | points 0 => hold 1",
            "~> rolled 1 6 6",
            "dice 1 6 6 | points -1 => stick",
            "~> stick with 1 6 6: 3 points",
            "= 2",
        ]
    )
    data = client.post("/api/analyse", json={"game": "stick", "record": record}).json()
    assert data["count"] == 2 and data["luck_missing"] == []
    parts = data["expected_start"] + data["luck"] - data["cost"]
    assert parts == pytest.approx(data["result"], abs=1e-9)
    # a bad record: one line, naming the line
    bad = client.post("/api/analyse", json={"game": "stick", "record": "dice 9 9 9 => stick"})
    assert bad.status_code == 400 and "line 1" in bad.json()["error"]


def test_board_kinds_from_the_position_fields():
    assert board_kind({"dice": [1, 3, 3]}) == "dice"
    assert board_kind({"dice": [1], "filled": [], "score": 0}) == "dice-sheet"
    assert board_kind({"open": [1, 2], "roll": 8}) == "tiles"
    assert board_kind({"me": 0, "rolled": [{"colour": "g", "face": "brain"}]}) == "colour-dice"
    assert board_kind({"me": 0, "opponent": 0, "turn": 0}) == "form"
    assert board_kind({}) == "form"


def test_games_list_each_yatzy_variants_categories_from_its_rules(client):
    from diceopt.games.yatzy.rulebook.variants import VARIANTS, get_rules

    yatzy = next(g for g in client.get("/api/games").json()["games"] if g["id"] == "yatzy")
    for variant in yatzy["variants"]:
        assert variant["parameters"]["categories"] == list(get_rules(variant["id"]).categories)
    by_id = {v["id"]: v["parameters"]["categories"] for v in yatzy["variants"]}
    assert set(by_id) == set(VARIANTS)
    assert len(by_id["scandinavian"]) == 15 and len(by_id["american"]) == 13
    assert "one_pair" in by_id["scandinavian"] and "one_pair" not in by_id["american"]


def test_a_plug_in_game_is_served_like_the_others(race_client):
    listed = {g["id"]: g for g in race_client.get("/api/games").json()["games"]}
    assert list(listed) == [*games(), "race"]
    race = listed["race"]
    assert (race["title"], race["players"], race["board"]) == ("Race (test plug-in)", 2, "form")
    assert race["variants"][0]["position_example_json"] == {"me": 2, "opponent": 1, "player": 0}
    got = race_client.post(
        "/api/advice", json={"game": "race", "position": {"me": 2, "opponent": 1, "player": 0}}
    ).json()
    assert got == {
        **library_race("me 2 | opponent 1 | player 0"),
        "position_json": {"me": 2, "opponent": 1, "player": 0},
    }


def library_race(position: str, variant: str | None = None) -> dict[str, Any]:
    rules = RACE.rules(variant)
    pos = RACE.parse(rules, position)
    return {"position": RACE.format(rules, pos), **RACE.advise(rules, pos).to_json()}


def test_games_limited_to_a_list_and_unknown_ids_rejected():
    from fastapi.testclient import TestClient

    with TestClient(create_app(warm=False, games=["stick"])) as c:
        assert [g["id"] for g in c.get("/api/games").json()["games"]] == ["stick"]
        assert_error(c.post("/api/advice", json={"game": "yatzy", "position": "x"}), 400, "yatzy")
    with pytest.raises(InputError, match="unknown game 'ghost'"):
        served_games(["ghost"])


def test_openapi_schema_served_and_no_docs_page(client):
    schema = client.get("/openapi.json").json()
    for path in ("/api/health", "/api/games", "/api/advice", "/api/evaluate", "/api/apply"):
        assert path in schema["paths"]
    advice_op = schema["paths"]["/api/advice"]["post"]
    assert "200" in advice_op["responses"] and "400" in advice_op["responses"]
    assert "AdviceOut" in json.dumps(advice_op["responses"]["200"])
    # the documentation pages load scripts from a CDN: not served
    for path in ("/docs", "/redoc"):
        assert_error(client.get(path), 404)


def test_every_endpoint_is_documented_in_the_docs_and_the_module(web_app):
    from pathlib import Path

    import diceopt.web.routes as routes

    page = " ".join((Path(__file__).parent.parent / "docs" / "web.md").read_text().split())
    module = " ".join((routes.__doc__ or "").split())
    endpoints = [
        f"{method} {route.path}"
        for route in web_app.routes
        if getattr(route, "path", "").startswith("/api/")
        for method in sorted(getattr(route, "methods", set()) - {"HEAD"})
    ]
    assert "GET /api/tables/status/{id}" in endpoints
    assert [e for e in endpoints if f"`{e}`" not in page] == []  # the API table of web.md
    assert [e for e in endpoints if e not in module] == []


def test_page_and_static_files_served_without_cdn(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    scripts = ("draw.js", "core.js", "advise.js", "play.js", "board.js", "table.js", "app.js")
    for name in scripts:
        assert f'<script src="/static/{name}">' in page.text
    for name in (*scripts, "style.css"):
        response = client.get(f"/static/{name}")
        assert response.status_code == 200 and len(response.text) > 500
        assert "http://" not in response.text and "https://" not in response.text
    assert "http://" not in page.text and "https://" not in page.text


def test_page_names_no_game():
    """Game names come from /api/games: the page's files name none of the games."""
    from diceopt.web.routes import STATIC_DIR

    for path in STATIC_DIR.iterdir():
        text = path.read_text().lower()
        for spec in games().values():
            assert f'"{spec.id}"' not in text and spec.title.lower() not in text, (path, spec.id)
        for word in ("yatzy", "shutbox", "shut the box", "pig", "stick"):
            assert f'"{word}"' not in text, (path.name, word)


def test_web_modules_name_no_game():
    from pathlib import Path

    import diceopt.web as web

    for path in Path(web.__file__).parent.glob("*.py"):
        text = path.read_text().lower()
        for spec in games().values():
            assert f'"{spec.id}"' not in text, (path.name, spec.id)


# --- advice numbers ----------------------------------------------------------------------


def test_every_game_advises_its_examples_as_the_library_does(client):
    listed = client.get("/api/games").json()["games"]
    for game in listed:
        for variant in game["variants"]:
            if (game["id"], variant["id"]) in BIG_TABLES:
                continue
            body = {"game": game["id"], "variant": variant["id"]}
            want = library_advice(game["id"], variant["position_example"], variant["id"])
            for position in (
                variant["position_example"],  # text
                variant["position_example_json"],  # a JSON object
                json.dumps(variant["position_example_json"]),  # JSON as text
            ):
                response = client.post("/api/advice", json={**body, "position": position})
                assert response.status_code == 200, response.text
                got = response.json()
                assert got["position_json"] == variant["position_example_json"]
                del got["position_json"]
                assert got == want  # the same floats, the same order as advise --json
                assert got["actions"][0]["regret"] == 0.0


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
        got = response.json()
        want = library_advice("stick", position, variant)
        assert got["actions"] == want["actions"] and got["value_is"] == want["value_is"]
        values = [a["value"] for a in got["actions"]]
        assert values == sorted(values, reverse=True)
        for a in got["actions"]:
            assert a["regret"] == pytest.approx(values[0] - a["value"], abs=1e-12)


def test_stick_hand_computed_values(client):
    got = client.post("/api/advice", json={"game": "stick", "position": "dice 1 3 3"}).json()
    by_action = {a["action"]: a for a in got["actions"]}
    # Sticking with 1 3 3: the pair of 3s flips to 4s, 1 + 4 + 4 = 9 points.
    assert by_action["stick"]["value"] == 9.0
    # Three 1s flip to three 6s: 18, the best possible score; sticking is best.
    best = client.post("/api/advice", json={"game": "stick", "position": "dice 1 1 1"}).json()
    assert best["actions"][0] == {"action": "stick", "value": 18.0, "regret": 0.0}
    assert set(by_action) == {"stick", "hold 1 3", "hold 3 3", "hold 1", "hold 3", "hold -"}
    # Bellman: holding 3 3 pays 1 and rolls one die, then plays on optimally.
    after = []
    for d in range(1, 7):
        dice = sorted([3, 3, d])
        best_then = client.post(
            "/api/advice", json={"game": "stick", "position": {"dice": dice}}
        ).json()
        after.append(best_then["actions"][0]["value"])
    assert by_action["hold 3 3"]["value"] == pytest.approx(-1 + sum(after) / 6, abs=1e-9)


def test_advice_answer_has_the_canonical_position(client):
    got = client.post(
        "/api/advice", json={"game": "stick", "position": {"dice": [3, 1, 3], "points": -2}}
    ).json()
    assert got["position"] == "dice 1 3 3 | points -2"
    assert got["position_json"] == {"dice": [1, 3, 3], "points": -2}
    assert got["value_is"] == get_game("stick").units


def test_advice_is_cached_and_whitespace_insensitive(client):
    a = client.post("/api/advice", json={"game": "stick", "position": "dice 1 3 3"}).json()
    b = client.post("/api/advice", json={"game": "stick", "position": "  dice  1 3   3 "}).json()
    c = client.post("/api/advice", json={"game": "STICK", "position": "dice 1 3 3"}).json()
    assert a == b == c
    key = ("stick", "3d6", "dice 1 3 3")
    assert key in client.app.state.tables._cache


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
        assert got["best_value"] == actions["actions"][0]["value"]
    # the game's short forms are fine, an illegal action is a 400
    ok = client.post(
        "/api/evaluate", json={"game": "stick", "position": position, "action": "3  3"}
    )
    assert ok.json()["action"] == "hold 3 3"
    bad = client.post(
        "/api/evaluate", json={"game": "stick", "position": position, "action": "hold 6"}
    )
    assert_error(bad, 400, "hold 6")


# --- play: new game and apply ------------------------------------------------------------

STEP_FIELDS = {"position", "position_json", "game_over", "to_move", "events", "result", "next_turn"}


def test_new_and_apply_are_seeded_and_answer_steps(client):
    spec = get_game("stick")
    rules = spec.rules()
    new = [client.post("/api/new", json={"game": "stick", "seed": 7}).json() for _ in range(2)]
    assert new[0] == new[1] and set(new[0]) == STEP_FIELDS
    assert new[0]["game_over"] is False and new[0]["to_move"] == 0 and new[0]["events"] == []
    want = spec.new_position(rules, np.random.default_rng(7))
    assert new[0]["position"] == spec.format(rules, want)
    assert new[0]["position_json"] == spec.to_json(rules, want)
    body = {"game": "stick", "position": "dice 1 3 3", "action": "hold 1", "seed": 3}
    first, second = (client.post("/api/apply", json=body).json() for _ in range(2))
    assert first == second and set(first) == STEP_FIELDS
    step = spec.apply(rules, spec.parse(rules, "dice 1 3 3"), "hold 1", np.random.default_rng(3))
    assert first == {
        "position": spec.format(rules, step.position),
        "position_json": spec.to_json(rules, step.position),
        "game_over": False,
        "to_move": 0,
        "events": list(step.events),
        "result": None,
        "next_turn": None,
    }
    assert first["events"][0].startswith("rolled 1 ")  # the dice rolled, in words
    stick = client.post(
        "/api/apply",
        json={"game": "stick", "position": {"dice": [1, 3, 3], "points": -1}, "action": "stick"},
    ).json()
    assert stick["game_over"] is True and stick["result"] == 8.0
    assert stick["events"] == ["stick with 1 3 3: 9 points"]


def test_every_game_plays_a_step_from_a_new_position(client):
    for game in client.get("/api/games").json()["games"]:
        for variant in game["variants"]:
            body = {"game": game["id"], "variant": variant["id"], "seed": 1}
            start = client.post("/api/new", json=body)
            assert start.status_code == 200, start.text
            start = start.json()
            assert set(start) == STEP_FIELDS and start["game_over"] is False
            if (game["id"], variant["id"]) in BIG_TABLES:
                continue  # advice would solve the table
            position = start["position_json"]
            del body["seed"]
            advice = client.post("/api/advice", json={**body, "position": position}).json()
            step = client.post(
                "/api/apply",
                json={**body, "position": position, "action": advice["actions"][0]["action"]},
            )
            assert step.status_code == 200, step.text
            assert set(step.json()) == STEP_FIELDS


def test_a_whole_stick_game_through_the_api(client):
    position = client.post("/api/new", json={"game": "stick", "seed": 11}).json()["position"]
    for seed in range(100, 300):
        options = client.post("/api/advice", json={"game": "stick", "position": position}).json()
        action = options["actions"][0]["action"]
        step = client.post(
            "/api/apply",
            json={"game": "stick", "position": position, "action": action, "seed": seed},
        ).json()
        if step["game_over"]:
            assert action == "stick"
            # the final score: what the stick advice promised (points so far included)
            assert step["result"] == pytest.approx(options["actions"][0]["value"], abs=1e-9)
            break
        position = step["position"]
    else:
        pytest.fail("optimal stick play did not end in 200 moves")


def test_a_turn_after_a_zilch_starts_with_its_streak(client):
    """A game of one turn that ends in a zilch says what the next turn carries; /api/new
    starts that turn (the same roll as a plain new game with the seed); anything else
    given as ``turn`` is one 4xx line."""
    body = {"game": "zilch", "position": "streak 1 | turn 300 | dice 2 3", "action": "bust"}
    end = client.post("/api/apply", json={**body, "seed": 1}).json()
    assert end["game_over"] and end["next_turn"] == {"streak": 2}
    new = client.post("/api/new", json={"game": "zilch", "seed": 4, "turn": end["next_turn"]})
    plain = client.post("/api/new", json={"game": "zilch", "seed": 4}).json()
    got = new.json()["position_json"]
    assert (got["streak"], got["turn"]) == (2, 0) and new.json()["next_turn"] is None
    assert plain["position_json"] == {**got, "streak": 0}
    bad_turns = [{"streak": 3}, {"streak": -1}, {"streak": 10**44}, {"streak": True}, {"turn": 50}]
    bad_turns += ["x", [1]]
    bad_turns.append({str(i): 1 for i in range(5)})
    for bad in bad_turns:
        answer = client.post("/api/new", json={"game": "zilch", "turn": bad})
        assert 400 <= answer.status_code < 500 and "\n" not in answer.text, bad
    stick = client.post("/api/new", json={"game": "stick", "turn": {"streak": 1}})
    assert stick.status_code == 400 and "carries nothing" in stick.json()["error"]


def test_two_player_steps_say_who_moves_what_happened_and_the_result(race_client):
    body = {"game": "race", "variant": "to-3"}
    start = race_client.post("/api/new", json=body).json()
    assert start["position_json"] == {"me": 0, "opponent": 0, "player": 0}
    assert start["to_move"] == 0
    step = race_client.post(
        "/api/apply", json={**body, "position": start["position"], "action": "step"}
    ).json()
    assert step["to_move"] == 1 and step["events"] == ["you stepped 1"]
    assert step["position_json"] == {"me": 0, "opponent": 1, "player": 1}
    # the second player reaches the goal: the first player's wins are 0
    dash = {**body, "position": "me 1 | opponent 2 | player 1", "action": "dash"}
    for seed in range(50):
        end = race_client.post("/api/apply", json={**dash, "seed": seed}).json()
        if end["game_over"]:
            assert end["result"] == 0.0 and end["events"][0] in ("rolled a 2", "rolled a 3")
            break
        assert end["events"] == ["rolled a 1: no points, the turn ends"]
    else:
        pytest.fail("no dash scored in 50 seeds")


def test_preview_gives_what_each_action_leads_to(client):
    position = "dice 1 3 3 5 6 | rerolls 1 | filled ones | upper 1 | score 1"
    body = {"game": "yatzy", "position": position}
    got = client.post(
        "/api/preview", json={**body, "actions": ["score chance", "score threes", "keep 3 3"]}
    ).json()["outcomes"]
    assert [o["action"] for o in got] == ["score chance", "score threes", "keep 3 3"]
    assert got[0]["position_json"]["score"] == 1 + 18  # chance: 1 + 3 + 3 + 5 + 6
    assert got[1]["position_json"]["score"] == 1 + 6 and got[1]["position_json"]["upper"] == 7
    assert got[2]["position_json"]["rerolls"] == 0
    again = client.post("/api/preview", json={**body, "actions": ["keep 3 3"]}).json()
    assert again["outcomes"][0] == got[2]  # fixed dice
    assert_error(client.post("/api/preview", json={**body, "actions": ["score ones"]}), 400)
    assert_error(client.post("/api/preview", json={**body, "actions": []}), 422, "actions")


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
    for game in games():
        assert game in line
    for path, extra in (
        ("/api/evaluate", {"action": "x"}),
        ("/api/apply", {"action": "x"}),
        ("/api/new", {}),
        ("/api/preview", {"actions": ["x"]}),
    ):
        body = {"game": "chess", **extra}
        if path != "/api/new":
            body["position"] = "e4"
        assert_error(client.post(path, json=body), 400, "unknown game")
    still_serving(client)


def test_unknown_variant(client):
    for game, spec in games().items():
        body = {"game": game, "variant": "no-such-variant", "position": spec.position_example}
        assert_error(client.post("/api/advice", json=body), 400, f"unknown {game} variant")
        new = {"game": game, "variant": "no-such-variant"}
        assert_error(client.post("/api/new", json=new), 400, f"unknown {game} variant")
    still_serving(client)


@pytest.mark.parametrize(
    "position, words",
    [
        ("dice 1 3 9", "not a face"),
        ("dice 1 3", "expected 3 dice"),
        ("dice one two three", "not a number"),
        ("dice 1 3 3 3", "expected 3 dice"),
        ({"dice": [1, 3]}, "expected 3 dice"),
        ({"dice": "1 3 3"}, "list"),
        ({"dice": [1, 3, 3], "colour": "red"}, "colour"),
        ('{"dice": [1, 3, 3]', "not valid JSON"),
        ("[1, 3, 3]", ""),
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


def test_every_game_rejects_a_malformed_position(client):
    for game in games():
        for position in ("no such position", {"no_such_field": 1}):
            response = client.post("/api/advice", json={"game": game, "position": position})
            assert_error(response, 400)
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
        ({"game": "stick", "position": ["dice", 1]}, "position"),
        ({"game": "stick", "position": "dice 1 3 3", "colour": "red"}, "colour"),
        ([1, 2, 3], "body"),
        ("dice 1 3 3", "body"),
        ({"game": "stick", "position": "x" * 3000}, "position"),
    ],
)
def test_validation_errors_are_one_line_4xx(client, body, words):
    response = client.post("/api/advice", json=body)
    line = assert_error(response, 422, words)
    assert "constrained-str" not in line and "dict[" not in line
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


class BrokenSpec(GameSpec):
    """A game whose advice fails with an unexpected error."""

    id = "broken"
    title = "Broken"
    variants = {"v": "the only variant"}
    position_example = "p"

    def rules(self, variant: str | None = None, **params: Any) -> str:
        return self.variant_id(variant)

    def parse_text(self, rules: Any, text: str) -> str:
        return text

    def format(self, rules: Any, pos: Any) -> str:
        return str(pos)

    def to_json(self, rules: Any, pos: Any) -> dict[str, Any]:
        return {"p": pos}

    def advise(self, rules: Any, pos: Any) -> Advice:
        raise RuntimeError("boom\nwith a second line")


def test_internal_error_is_a_one_line_500():
    from fastapi.testclient import TestClient

    app = create_app(warm=False, games=["stick", BrokenSpec()])
    with TestClient(app, raise_server_exceptions=False) as c:
        response = c.post("/api/advice", json={"game": "broken", "position": "p"})
        assert_error(response, 500, "internal error")
        assert c.get("/api/health").json()["tables"] == {
            "broken/v": "error: boom with a second line"
        }
        still_serving(c)


# --- tables: built once, shared -------------------------------------------------------------


class CountingSpec(GameSpec):
    """A game that counts how often its table is built (a slow build)."""

    id = "counting"
    variants = {"v": "the only variant"}
    position_example = "p"

    def __init__(self) -> None:
        self.builds = 0
        self.table: float | None = None
        self.lock = threading.Lock()

    def rules(self, variant: str | None = None, **params: Any) -> str:
        return self.variant_id(variant)

    def parse_text(self, rules: Any, text: str) -> str:
        if text != "p":
            raise InputError("bad position")
        return text

    def format(self, rules: Any, pos: Any) -> str:
        return pos

    def to_json(self, rules: Any, pos: Any) -> dict[str, Any]:
        return {}

    def advise(self, rules: Any, pos: Any) -> Advice:
        if self.table is None:
            with self.lock:
                self.builds += 1
            threading.Event().wait(0.05)  # a slow build: racing threads would both build
            self.table = 1.0
        return Advice([ActionAdvice("a", self.table, 0.0)], "points")


def test_first_use_builds_the_table_once_under_concurrency():
    spec = CountingSpec()
    tables = GameTables({"counting": spec})
    results = []

    def worker() -> None:
        results.append(tables.advice_json("counting", "v", "p"))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert spec.builds == 1 and len(results) == 8 and len(set(results)) == 1
    assert tables.status == {"counting/v": "ready"}
    assert tables.needs_thread("counting", "v")  # not timed yet: first uses built the table
    tables._cache.clear()
    tables.advice_json("counting", "v", "p")
    assert not tables.needs_thread("counting", "v")  # quick once built: on the event loop


def test_bad_position_on_first_use_does_not_mark_a_table_ready():
    tables = GameTables({"counting": CountingSpec()})
    with pytest.raises(InputError):
        tables.advice_json("counting", "v", "zzz")
    assert tables.status == {} and tables.needs_thread("counting", "v")
    tables.advice_json("counting", "v", "p")
    assert tables.status == {"counting/v": "ready"}


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


def test_warm_up_logs_one_line_per_stage(caplog):
    import logging

    tables = GameTables(served_games(["stick"]))
    with caplog.at_level(logging.INFO, logger="diceopt.web"):
        tables.warm("stick", "2d3")
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == "warming stick/2d3 ..." and lines[-1].startswith("stick/2d3 warm in ")
    assert not any("\r" in line or "\n" in line for line in lines)


# --- the serve command ---------------------------------------------------------------------


SERVE = "import sys; from diceopt.cli import main; sys.exit(main())"


def test_serve_command_prints_its_url_and_serves(web_env):
    import httpx

    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE, "serve", "--port", "0", "--warm", "stick"],
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
                if response.json()["tables"].get("stick/3d6") == "ready":
                    break
            except httpx.TransportError:
                pass
            threading.Event().wait(0.05)
        assert response.json()["status"] == "ok"
        assert httpx.get(url).status_code == 200
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert "\r" not in err  # the log: lines, no progress bar
    assert "warming stick/3d6 ..." in err and "stick/3d6 warm in" in err


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
    with pytest.raises(SystemExit) as stop:  # refused as the options are read
        main(["serve", "--port", "70000"])
    assert stop.value.code == 2
    assert url_for("0.0.0.0", 8000) == "http://127.0.0.1:8000/"
    assert url_for("::1", 80) == "http://[::1]:80/"


def test_serve_rejects_unknown_warm_game_ids(capsys):
    from diceopt.cli import main

    assert warm_setting("all") is True and warm_setting("none") is False
    assert warm_setting(" yatzy , STICK ") == ["yatzy", "stick"]
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


def test_serve_uses_no_private_argparse_or_uvicorn_names():
    from pathlib import Path

    import diceopt.cli.serve as serve
    import diceopt.web as web

    files = [Path(serve.__file__), *Path(web.__file__).parent.glob("*.py")]
    for path in files:
        text = path.read_text()
        assert "argparse._" not in text and "parser._" not in text, path.name
        assert "uvicorn.Server)" not in text and "\r" not in text, path.name


# --- Yatzy ------------------------------------------------------------------------------------


UPPER_CATS = ("ones", "twos", "threes", "fours", "fives", "sixes")
LOWER_CATS = (
    "one_pair two_pairs three_of_a_kind four_of_a_kind small_straight large_straight "
    "full_house chance yatzy"
)
YATZY_CATS = UPPER_CATS + tuple(LOWER_CATS.split())


def yatzy_advice(client, position: Any, variant: str | None = None) -> list[dict]:
    response = client.post(
        "/api/advice", json={"game": "yatzy", "variant": variant, "position": position}
    )
    assert response.status_code == 200, response.text
    return response.json()["actions"]


def test_yatzy_advice_matches_the_cli(client, capsys):
    from diceopt.cli import main

    for position in (
        get_game("yatzy").position_example,
        "dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 3",
        "dice 6 6 6 6 2 | rerolls 0 | filled - | upper 0 | score 0",
    ):
        got = client.post("/api/advice", json={"game": "yatzy", "position": position}).json()
        capsys.readouterr()
        assert main(["yatzy", "advise", position, "--json"]) == 0
        cli = json.loads(capsys.readouterr().out)
        del got["position_json"]
        assert got == cli  # the same numbers as `advise --json`
        assert got["actions"][0]["regret"] == 0.0


def test_yatzy_json_position(client):
    text = "dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 3"
    data = {"dice": [6, 5, 3, 3, 1], "rerolls": 2, "filled": ["twos", "ones"], "upper": 3}
    assert yatzy_advice(client, data | {"score": 3}) == yatzy_advice(client, text)
    line = assert_error(
        client.post("/api/advice", json={"game": "yatzy", "position": data | {"rerolls": "2"}}),
        400,
        "rerolls",
    )
    assert "whole number" in line


def test_yatzy_start_value_is_the_published_one(client):
    # Expected final score before the first roll = mean over the 252 first rolls of the
    # best action's value (5 dice, multinomial probabilities).
    from itertools import combinations_with_replacement
    from math import factorial, prod

    total = 0.0
    for roll in combinations_with_replacement(range(1, 7), 5):
        ways = factorial(5) / prod(factorial(roll.count(f)) for f in set(roll))
        position = {"dice": list(roll), "rerolls": 2, "filled": [], "upper": 0, "score": 0}
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
    assert step["game_over"] is True and step["result"] == 268.0
    assert "score 268" in step["position"] and step["position_json"]["score"] == 268
    assert "wrote 18 points (+50 bonus)" in step["events"]  # the box's points, the bonus apart
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
    assert first["position_json"]["rerolls"] == 1 and first["events"][0].startswith("rolled")
    yatzy_advice(client, first["position"])  # the next position parses
    yatzy_advice(client, first["position_json"])


@pytest.mark.parametrize(
    "position",
    [
        "dice 1 3 3 5 7 | rerolls 2 | filled - | upper 0 | score 0",
        "dice 1 3 3 5 | rerolls 2 | filled - | upper 0 | score 0",
        "dice 1 3 3 5 6 | rerolls 3 | filled - | upper 0 | score 0",
        "dice 1 3 3 5 6 | rerolls 2 | filled eights | upper 0 | score 0",
        "dice 1 3 3 5 6 | rerolls 2 | filled ones | upper 30 | score 30",
        {"dice": [1, 3, 3, 5, 6]},
    ],
)
def test_yatzy_invalid_positions_are_400(client, position):
    response = client.post("/api/advice", json={"game": "yatzy", "position": position})
    assert_error(response, 400)
    still_serving(client)


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
            faces = start["position_json"]["dice"]
            assert len(faces) == dice and faces == sorted(faces)
            assert all(1 <= f <= sides for f in faces)
            advised = {"game": game, "variant": variant, "position": start["position"]}
            assert client.post("/api/advice", json=advised).status_code == 200


# --- the real server -------------------------------------------------------------------------


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


def test_yatzy_unreachable_score_is_a_400(client):
    for position in (
        "dice 1 2 3 4 5 | rerolls 2 | score 1e20",
        {"dice": [1, 2, 3, 4, 5], "rerolls": 2, "score": 1e20},
    ):
        response = client.post("/api/advice", json={"game": "yatzy", "position": position})
        assert_error(response, 400, "at most 374 points")
    still_serving(client)


# --- Maxi Yatzy: six dice, 20 categories ---------------------------------------------------


@pytest.fixture(scope="module")
def maxi_client(web_env):
    """An app serving Yatzy with the reduced six-dice variant ``maxi-mini`` offered too."""
    from fastapi.testclient import TestClient

    with maxi_mini_variant(), TestClient(create_app(warm=False, games=["yatzy"])) as c:
        yield c


def test_maxi_is_listed_with_six_dice_and_twenty_categories(client):
    from diceopt.games.yatzy.rulebook.rules import MAXI_CATEGORIES

    yatzy = next(g for g in client.get("/api/games").json()["games"] if g["id"] == "yatzy")
    maxi = next(v for v in yatzy["variants"] if v["id"] == "maxi")
    assert maxi["parameters"]["dice"] == 6 and len(MAXI_CATEGORIES) == 20
    assert maxi["parameters"]["categories"] == list(MAXI_CATEGORIES)
    example = maxi["position_example_json"]  # the game's five-dice example does not fit
    assert len(example["dice"]) == 6 and example["filled"] == [] and example["rerolls"] == 2
    # no Yahtzee bonus in Maxi (nor in Scandinavian): no such field to offer
    bonus = {v["id"]: "yahtzee_bonus" in v["position_example_json"] for v in yatzy["variants"]}
    assert bonus["american"] and not bonus["american-no-bonus"]
    assert not bonus["maxi"] and not bonus["scandinavian"]
    assert maxi["position_example"].startswith("dice ")
    six = {"maxi", "maxi-saved"}
    assert all(v["parameters"]["dice"] == 5 for v in yatzy["variants"] if v["id"] not in six)
    assert all(v["parameters"]["dice"] == 6 for v in yatzy["variants"] if v["id"] in six)
    assert "six in Maxi" in yatzy["rules_help"]


@pytest.mark.parametrize(
    "variant, position, words",
    [
        ("maxi", "dice 1 2 3 4 5 | rerolls 2", "expected 6 dice, got 5 (variant maxi)"),
        ("maxi", {"dice": [1, 2, 3, 4, 5, 6, 6], "rerolls": 2}, "expected 6 dice, got 7"),
        ("maxi", "dice 1 2 3 4 5 6 | rerolls 2 | filled yatzy", "did you mean 'maxi_yatzy'"),
        ("maxi", "dice 1 2 3 4 5 6 | rerolls 2 | yahtzee-bonus yes", "no Yahtzee bonus"),
        (None, "dice 1 2 3 4 5 6 | rerolls 2", "expected 5 dice, got 6"),
        (None, "dice 1 2 3 4 5 | rerolls 2 | filled castle", "unknown category 'castle'"),
    ],
)
def test_dice_and_categories_of_another_variant_are_400(client, variant, position, words):
    body = {"game": "yatzy", "variant": variant, "position": position}
    assert_error(client.post("/api/advice", json=body), 400, words)
    # refused before any table is loaded or solved
    assert "yatzy/maxi" not in client.get("/api/health").json()["tables"]


MAXI_MINI_POSITIONS = (
    "dice 1 1 2 2 3 3 | rerolls 2 | filled - | upper 0 | score 0",
    "dice 1 6 6 6 6 6 | rerolls 1 | filled ones three_pairs | upper 2 | score 14",
    "dice 1 2 3 4 5 6 | rerolls 0 | filled sixes castle maxi_yatzy | upper 12 | score 180",
)


def test_six_dice_advice_matches_the_cli(maxi_client, capsys):
    from diceopt.cli import main

    for position in MAXI_MINI_POSITIONS:
        body = {"game": "yatzy", "variant": MAXI_MINI_ID, "position": position}
        got = maxi_client.post("/api/advice", json=body).json()
        assert got["position"] == position and len(got["position_json"]["dice"]) == 6
        as_json = maxi_client.post("/api/advice", json={**body, "position": got["position_json"]})
        assert as_json.json() == got
        capsys.readouterr()
        assert main(["yatzy", "advise", position, "--variant", MAXI_MINI_ID, "--json"]) == 0
        cli = json.loads(capsys.readouterr().out)
        del got["position_json"]
        assert got == cli  # the same numbers, the same order as advise --json
        assert got["actions"][0]["regret"] == 0.0
        keeps = [len(a["action"].split()) - 1 for a in got["actions"] if "keep" in a["action"]]
        assert max(keeps, default=0) == (0 if "rerolls 0" in position else 5)  # of six dice


def test_a_whole_six_dice_game_through_the_api(maxi_client):
    from web_games import MAXI_MINI

    body = {"game": "yatzy", "variant": MAXI_MINI_ID}
    step = maxi_client.post("/api/new", json={**body, "seed": 4}).json()
    scored = []
    for seed in range(100):
        dice = step["position_json"]["dice"]
        assert len(dice) == 6 and dice == sorted(dice) and set(dice) <= set(range(1, 7))
        position = step["position"]
        best = maxi_client.post("/api/advice", json={**body, "position": position}).json()
        best = best["actions"][0]
        if best["action"].startswith("score "):
            scored.append(best["action"].split()[1])
        move = {**body, "position": position, "action": best["action"], "seed": seed}
        step = maxi_client.post("/api/apply", json=move).json()
        if step["game_over"]:
            # the last box written: the final score is what the advice promised
            assert step["result"] == pytest.approx(best["value"], abs=1e-3)
            assert step["result"] == step["position_json"]["score"]
            break
    else:
        pytest.fail("optimal play did not end in 100 decisions")
    assert sorted(scored) == sorted(MAXI_MINI.categories)


def test_six_dice_preview_scores_maxi_categories(maxi_client):
    body = {"game": "yatzy", "variant": MAXI_MINI_ID}
    for dice, want in (
        ("2 2 2 5 5 5", {"three_pairs": 0, "castle": 21, "sixes": 0, "maxi_yatzy": 0}),
        ("1 1 2 2 6 6", {"three_pairs": 18, "castle": 0, "ones": 2, "full_straight": 0}),
        ("1 2 3 4 5 6", {"full_straight": 21, "sixes": 6, "three_pairs": 0}),
        ("4 4 4 4 4 4", {"maxi_yatzy": 100, "castle": 0, "three_pairs": 0}),
    ):
        position = f"dice {dice} | rerolls 2 | filled - | upper 0 | score 0"
        actions = [f"score {c}" for c in want]
        got = maxi_client.post(
            "/api/preview", json={**body, "position": position, "actions": actions}
        ).json()["outcomes"]
        assert {o["action"].split()[1]: o["position_json"]["score"] for o in got} == want


# --- Yatzy played to win: target, opponent, distribution, play against the computer ----------
# The forced-order variant keeps the target tables and distributions small.

FORCED = {"game": "yatzy", "variant": "scandinavian-forced"}
MID = "dice 1 3 3 5 6 | rerolls 2 | filled ones twos threes | upper 9 | score 9"
RIVAL = "filled ones twos threes | upper 7 | score 7"
RIVAL_JSON = {"filled": ["ones", "twos", "threes"], "upper": 7, "score": 7}


def forced_library(position: str, **options: Any) -> dict[str, Any]:
    spec = get_game("yatzy")
    rules = spec.rules("scandinavian-forced")
    return spec.advise(rules, spec.parse(rules, position), **options).to_json()


def test_games_list_the_advice_options_distribution_and_strategies(race_client):
    listed = {g["id"]: g for g in race_client.get("/api/games").json()["games"]}
    yatzy = listed["yatzy"]
    assert [o["name"] for o in yatzy["advise_options"]] == ["target", "opponent", "opponent_plays"]
    by_name = {o["name"]: o for o in yatzy["advise_options"]}
    assert by_name["target"]["type"] == "int" and by_name["opponent"]["type"] == "text"
    assert by_name["opponent_plays"]["choices"] == ["expected", "win"]
    assert yatzy["distribution"] is True and yatzy["computer_strategies"] == ["expected", "win"]
    for game in ("stick", "race"):
        assert listed[game]["advise_options"] == [] and listed[game]["distribution"] is False
        assert listed[game]["computer_strategies"] == []


def test_target_advice_is_the_library_advice(client):
    got = client.post("/api/advice", json={**FORCED, "position": MID, "target": 150})
    assert got.status_code == 200, got.text
    got = got.json()
    want = forced_library(MID, target=150)
    assert got["actions"] == want["actions"] and got["value_is"] == want["value_is"]
    assert "at least 150" in got["value_is"]
    plain = {a["action"]: a["value"] for a in yatzy_advice(client, MID, "scandinavian-forced")}
    for a in got["actions"]:
        assert 0.0 <= a["value"] <= 1.0 and a["expected"] == pytest.approx(plain[a["action"]])
    # a target at or below the score so far is reached whatever happens
    sure = client.post("/api/advice", json={**FORCED, "position": MID, "target": 9}).json()
    assert {a["value"] for a in sure["actions"]} == {1.0}
    # cached apart from the plain advice of the same position
    again = client.post("/api/advice", json={**FORCED, "position": MID, "target": 150}).json()
    assert (
        again == got and yatzy_advice(client, MID, "scandinavian-forced")[0].get("expected") is None
    )


def test_opponent_advice_is_the_library_advice(client):
    for opponent in (RIVAL, RIVAL_JSON, json.dumps(RIVAL_JSON)):
        for plays in (None, "win"):
            body = {**FORCED, "position": MID, "opponent": opponent, "opponent_plays": plays}
            got = client.post("/api/advice", json=body)
            assert got.status_code == 200, got.text
            got = got.json()
            want = forced_library(MID, opponent=RIVAL, opponent_plays=plays or "expected")
            assert got["actions"] == want["actions"] and "winning" in got["value_is"]
            assert got["actions"][0]["regret"] == 0.0
            assert all(0.0 <= a["value"] <= 1.0 and "expected" in a for a in got["actions"])
    # an opponent further ahead: the best chance falls
    ahead = client.post(
        "/api/advice",
        json={
            **FORCED,
            "position": MID,
            "opponent": "filled ones twos threes | upper 27 | score 27",
        },
    ).json()
    near = client.post("/api/advice", json={**FORCED, "position": MID, "opponent": RIVAL}).json()
    assert ahead["actions"][0]["value"] < near["actions"][0]["value"]


@pytest.mark.parametrize(
    "extra, status, words",
    [
        ({"target": -1}, 400, "target: the target must be between 0 and 374 points, got -1"),
        ({"target": 375}, 400, "target: the target must be between 0 and 374 points, got 375"),
        ({"target": "many"}, 422, "target"),
        ({"opponent": "filled three_pairs | upper 0 | score 12"}, 400, "opponent: unknown"),
        ({"opponent": "filled maxi_yatzy | upper 0 | score 100"}, 400, "maxi_yatzy"),
        ({"opponent": "filled ones | upper 2 | score 1"}, 400, "opponent:"),
        ({"opponent": "filled ones twos threes | upper 7 | score 400"}, 400, "impossible"),
        ({"opponent": "filled ones | upper 1"}, 400, "needs a score"),
        ({"opponent": '{"filled": ["ones"], "upper": 1, "score": 1'}, 400, "malformed JSON"),
        ({"opponent": {"filled": "ones", "score": 1}}, 400, "list"),
        ({"opponent": ["ones"]}, 422, "opponent"),
        ({"opponent": RIVAL, "opponent_plays": "lucky"}, 400, "opponent_plays must be one of"),
        ({"opponent": RIVAL, "target": 150}, 400, "either a target or an opponent"),
        ({"colour": "red"}, 422, "colour"),
    ],
)
def test_bad_advice_options_are_one_line_4xx(client, extra, status, words):
    response = client.post("/api/advice", json={**FORCED, "position": MID, **extra})
    assert_error(response, status, words)
    still_serving(client)


def test_an_option_the_game_does_not_have_is_a_400(client):
    for option, value in (("target", 10), ("opponent", "me 1"), ("opponent_plays", "win")):
        body = {"game": "stick", "position": "dice 1 3 3", option: value}
        assert_error(
            client.post("/api/advice", json=body), 400, f"this game has no option {option}"
        )
    still_serving(client)


def test_opponent_advice_needs_my_score(client):
    body = {**FORCED, "position": MID.replace(" | score 9", ""), "opponent": RIVAL}
    assert_error(client.post("/api/advice", json=body), 400, "opponent: advice against an")


def test_distribution_is_the_cli_json(client, capsys):
    from diceopt.cli import main

    got = client.post("/api/distribution", json={**FORCED, "position": MID})
    assert got.status_code == 200, got.text
    got = got.json()
    capsys.readouterr()
    assert main(["yatzy", "distribution", MID, "--json", "--variant", "scandinavian-forced"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert set(got) == set(cli)
    for key in set(cli) - {"seconds", "compile_seconds"}:
        assert got[key] == (pytest.approx(cli[key]) if key == "pmf" else cli[key]), key
    assert got["of"] == "final score" and got["position"] == MID
    assert sum(got["pmf"]) == pytest.approx(1.0, abs=1e-9)
    assert got["mean"] == pytest.approx(
        yatzy_advice(client, MID, "scandinavian-forced")[0]["value"], abs=1e-3
    )
    assert min(i for i, p in enumerate(got["pmf"]) if p > 0) >= 9  # the score so far counts
    # the same position as JSON: the same answer
    advised = client.post("/api/advice", json={**FORCED, "position": MID}).json()
    as_json = client.post(
        "/api/distribution", json={**FORCED, "position": advised["position_json"]}
    ).json()
    assert as_json["pmf"] == got["pmf"] and as_json["position"] == MID


def test_a_first_turns_distribution_is_combined_from_the_stored_rows(client):
    # with the page's rows of the first turns stored, a position of the first turns
    # combines only its turn from them: the numbers of the whole pass, states null
    from diceopt.games.yatzy.analyses.distribution import position_distribution
    from diceopt.games.yatzy.play.advice import parse_position
    from diceopt.games.yatzy.rulebook.variants import get_rules
    from diceopt.games.yatzy.stored import store

    rules = get_rules("scandinavian-forced")
    pos = "dice 2 2 4 5 6 | rerolls 2 | filled ones | upper 1 | score 1"
    config = store.YatzyConfig(rules)
    want = position_distribution(config.table(), parse_position(pos, rules))  # the pass
    assert want.states > 0
    early = store.early_table(rules)
    assert early.ready() or early.load() or early.build(None)
    got = client.post("/api/distribution", json={**FORCED, "position": pos})
    assert got.status_code == 200, got.text
    got = got.json()
    assert got["states"] is None and got["pmf"] == want.pmf.tolist()
    assert (got["bonus_rate"], got["yatzy_rate"]) == (want.bonus_rate, want.yatzy_rate)


def test_distribution_bad_requests(client):
    over = " ".join(YATZY_CATS)
    for body, status, words in (
        ({"game": "stick", "position": "dice 1 3 3"}, 400, "no score distribution"),
        ({**FORCED, "position": "dice 1 3 3 5 7 | rerolls 2"}, 400, "7"),
        ({**FORCED, "position": f"dice - | rerolls 0 | filled {over} | upper 63 | score 300"}, 400,
         "over"),
        ({**FORCED}, 422, "position"),
        ({"game": "chess", "position": "e4"}, 400, "unknown game"),
    ):  # fmt: skip
        assert_error(client.post("/api/distribution", json=body), status, words)
    still_serving(client)


# --- play against the computer ---------------------------------------------------------------

DUEL_FIELDS = {
    "state", "you", "computer", "computer_moves", "events", "game_over", "to_move", "result",
    "win_probability", "win_probability_is", "record_events",
}  # fmt: skip


def duel(client, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(path, json={**FORCED, **body})
    assert response.status_code == 200, response.text
    data = response.json()
    assert set(data) == DUEL_FIELDS
    return data


def library_win(state: dict[str, Any]) -> float:
    from diceopt.games.yatzy.winning.win import parse_opponent, win_chance

    spec = get_game("yatzy")
    rules = spec.rules("scandinavian-forced")
    you = spec.parse(rules, state["you"])
    theirs = parse_opponent(state["computer"], rules.rules)
    return win_chance(rules, you, theirs, state["strategy"])


def test_duel_new_is_seeded_with_empty_sheets_and_an_estimate(client):
    first = duel(client, "/api/duel/new", {"strategy": "win", "seed": 5})
    assert duel(client, "/api/duel/new", {"strategy": "WIN", "seed": 5}) == first
    assert first["state"]["strategy"] == "win" and first["game_over"] is False
    assert first["you"]["filled"] == [] and first["you"]["rerolls"] == 2
    assert len(first["you"]["dice"]) == 5 and first["you"]["score"] == 0
    assert first["computer"] == {"filled": [], "upper": 0, "score": 0, "yahtzee_bonus": False}
    assert first["state"]["computer"] == "filled - | upper 0 | score 0"
    assert first["computer_moves"] == [] and first["result"] is None
    assert first["win_probability"] == pytest.approx(library_win(first["state"]))
    assert 0.3 < first["win_probability"] < 0.5 + 1e-12
    assert "exact for this model" in first["win_probability_is"]
    # against the computer playing for the expected score, level sheets are an even game
    even = duel(client, "/api/duel/new", {"strategy": "expected", "seed": 5})
    assert even["win_probability"] == pytest.approx(0.5, abs=1e-9)


def test_duel_turn_the_computer_plays_after_you_write(client):
    start = duel(client, "/api/duel/new", {"strategy": "win", "seed": 8})
    state = start["state"]
    keep = duel(client, "/api/duel/apply", {"state": state, "action": "keep -", "seed": 1})
    assert keep["computer_moves"] == [] and keep["win_probability"] is None
    assert keep["you"]["rerolls"] == 1 and keep["events"][0].startswith("rolled: dice")
    assert keep["state"]["computer"] == state["computer"]
    again = duel(client, "/api/duel/apply", {"state": state, "action": "keep -", "seed": 1})
    assert again == keep  # seeded
    # forced order: the only box open is ones
    wrote = duel(client, "/api/duel/apply", {"state": keep["state"], "action": "score ones"})
    assert wrote["you"]["filled"] == ["ones"] and wrote["you"]["rerolls"] == 2
    assert wrote["computer"]["filled"] == ["ones"]
    moves = wrote["computer_moves"]
    assert 1 <= len(moves) <= 3 and moves[-1]["action"] == "score ones"
    assert all(m["action"].startswith("keep") for m in moves[:-1])
    assert wrote["computer"]["score"] == moves[-1]["position_json"]["score"]
    assert wrote["events"][0].startswith("you wrote") and wrote["events"][-1].startswith(
        "your roll: dice"
    )
    assert any(e.startswith("the computer wrote") for e in wrote["events"])
    assert wrote["win_probability"] == pytest.approx(library_win(wrote["state"]))
    assert wrote["game_over"] is False and wrote["to_move"] == 0


def test_a_whole_duel_through_the_api(client):
    data = duel(client, "/api/duel/new", {"strategy": "expected", "seed": 3})
    estimates = [data["win_probability"]]
    for seed in range(100):
        best = client.post("/api/advice", json={**FORCED, "position": data["state"]["you"]})
        action = best.json()["actions"][0]["action"]
        data = duel(
            client, "/api/duel/apply", {"state": data["state"], "action": action, "seed": seed}
        )
        if data["computer_moves"]:
            estimates.append(data["win_probability"])
        if data["game_over"]:
            break
    else:
        pytest.fail("the game did not end in 100 decisions")
    assert len(estimates) == 16 and estimates[-1] is None  # 15 turns; over: the result
    assert all(0.0 <= p <= 1.0 for p in estimates[:-1])
    mine, theirs = data["you"]["score"], data["computer"]["score"]
    assert data["result"] == (1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
    assert len(data["you"]["filled"]) == len(data["computer"]["filled"]) == 15
    assert data["events"][-1].startswith("game over")
    after = {"state": data["state"], "action": "score chance"}
    assert_error(client.post("/api/duel/apply", json={**FORCED, **after}), 400, "over")


def bad_state(**changes: Any) -> dict[str, Any]:
    state = {"strategy": "win", "you": MID.replace("rerolls 2", "rerolls 0"), "computer": RIVAL}
    return state | changes


def test_duel_without_the_estimate_then_the_estimate_apart(client):
    # the page asks for the move without the estimate, then for the estimate: the same
    # number as the answer that carries it, for the opponent model it names
    for strategy in ("expected", "win"):
        body = {"strategy": strategy, "seed": 11}
        full = duel(client, "/api/duel/new", body)
        quick = duel(client, "/api/duel/new", {**body, "estimate": False})
        assert quick["win_probability"] is None
        assert {**quick, "win_probability": full["win_probability"]} == full
        apart = client.post("/api/duel/estimate", json={**FORCED, "state": quick["state"]})
        assert apart.status_code == 200, apart.text
        apart = apart.json()
        assert set(apart) == {"win_probability", "win_probability_is"}
        assert apart["win_probability"] == full["win_probability"]
        assert apart["win_probability_is"] == full["win_probability_is"]
        assert strategy in apart["win_probability_is"]
        # a whole turn: the estimate at the start of the next one
        state = quick["state"]
        for action in ("keep -", "keep -", "score ones"):
            step = {"state": state, "action": action, "seed": 2}
            done = duel(client, "/api/duel/apply", {**step, "estimate": False})
            assert done["win_probability"] is None
            state = done["state"]
        with_it = duel(client, "/api/duel/apply", step)
        assert with_it["state"] == done["state"] and with_it["win_probability"] is not None
        apart = client.post("/api/duel/estimate", json={**FORCED, "state": state}).json()
        assert apart["win_probability"] == with_it["win_probability"]
        assert apart["win_probability"] == pytest.approx(library_win(state), abs=1e-12)


@pytest.mark.parametrize(
    "body, status, words",
    [
        ({"state": bad_state(strategy="lucky")}, 400, "unknown strategy"),
        ({"state": bad_state(computer="filled ones | upper 1 | score 1")}, 400, "not level"),
        ({"state": bad_state(you=MID.replace(" | score 9", ""))}, 400, "your score"),
        ({"state": bad_state(computer='{"filled": []')}, 400, "malformed JSON"),
        ({"state": {"you": MID}}, 422, "state"),
        ({}, 422, "state"),
        ({"state": bad_state(), "estimate": True}, 422, "estimate"),
    ],
)
def test_bad_estimate_requests_are_one_line_4xx(client, body, status, words):
    assert_error(client.post("/api/duel/estimate", json={**FORCED, **body}), status, words)
    bad = {**FORCED, "strategy": "win", "estimate": "no"}
    assert_error(client.post("/api/duel/new", json=bad), 422, "estimate")
    still_serving(client)


def test_two_kinds_of_hint_differ_late_and_behind(client):
    # the duel's state gives both: its ``you`` is the position, its ``computer`` the
    # opponent of the second hint, its strategy how that opponent plays
    plain = client.post("/api/advice", json={**FORCED, "position": BEHIND}).json()
    body = {**FORCED, "position": BEHIND, "opponent": AHEAD_OF_ME, "opponent_plays": "expected"}
    to_win = client.post("/api/advice", json=body)
    assert to_win.status_code == 200, to_win.text
    to_win = to_win.json()
    assert to_win["actions"] == forced_library(BEHIND, opponent=AHEAD_OF_ME)["actions"]
    for_score, for_win = plain["actions"][0], to_win["actions"][0]
    assert for_score["action"] == "keep 1 1 5 5" and for_win["action"] == "keep 5 5 6"
    # by how much they differ: in win probability and in expected points
    same_move = next(a for a in to_win["actions"] if a["action"] == for_score["action"])
    gain = for_win["value"] - same_move["value"]
    cost = for_score["value"] - for_win["expected"]
    assert gain == pytest.approx(0.1861 - 0.1024, abs=5e-4) and gain > 0.05
    assert cost == pytest.approx(183.97 - 182.53, abs=0.01) and cost > 1.0
    # each hint's own number agrees with the other list
    assert same_move["expected"] == pytest.approx(for_score["value"], abs=1e-9)
    plain_of_win = next(a for a in plain["actions"] if a["action"] == for_win["action"])
    assert plain_of_win["value"] == pytest.approx(for_win["expected"], abs=1e-9)
    # level with this opponent: the chance is higher, the hints are the library's too
    level = AHEAD_OF_ME.replace("score 170", "score 150")
    even = client.post("/api/advice", json={**body, "opponent": level}).json()
    assert even["actions"] == forced_library(BEHIND, opponent=level)["actions"]
    assert even["actions"][0]["value"] > for_win["value"] + 0.2


@pytest.mark.parametrize(
    "path, body, status, words",
    [
        ("/api/duel/new", {"strategy": "lucky"}, 400, "unknown strategy 'lucky'"),
        ("/api/duel/new", {"strategy": ""}, 422, "strategy"),
        ("/api/duel/new", {}, 422, "strategy"),
        ("/api/duel/apply", {"state": bad_state(strategy="lucky")}, 400, "unknown strategy"),
        ("/api/duel/apply", {"state": bad_state(computer="filled ones | upper 1 | score 1")}, 400,
         "not level"),
        ("/api/duel/apply", {"state": bad_state(computer=RIVAL.replace("score 7", "score 1"))},
         400, "computer's side"),
        ("/api/duel/apply", {"state": bad_state(computer="filled three_pairs | score 12")}, 400,
         "three_pairs"),
        ("/api/duel/apply", {"state": bad_state(computer='{"filled": []')}, 400, "malformed JSON"),
        ("/api/duel/apply", {"state": bad_state(you="dice 1 2 3 | rerolls 0")}, 400, "dice"),
        ("/api/duel/apply", {"state": bad_state(you=MID.replace(" | score 9", ""))}, 400,
         "your score"),
        ("/api/duel/apply", {"state": bad_state(), "action": "score chance"}, 400, "chance"),
        ("/api/duel/apply", {"state": bad_state(), "action": "keep 1"}, 400, "rerolls"),
        ("/api/duel/apply", {"state": {"you": MID}}, 422, "state"),
    ],
)  # fmt: skip
def test_bad_duel_requests_are_one_line_4xx(client, path, body, status, words):
    body = {"action": "score fours", **body} if path.endswith("apply") else body
    assert_error(client.post(path, json={**FORCED, **body}), status, words)
    still_serving(client)


def test_a_game_without_play_against_the_computer_is_a_400(client):
    body = {"game": "stick", "strategy": "win"}
    assert_error(client.post("/api/duel/new", json=body), 400, "no play against the computer")
    state = {"strategy": "win", "you": "dice 1 3 3", "computer": "dice 1 3 3"}
    apply = {"game": "stick", "state": state, "action": "stick"}
    assert_error(client.post("/api/duel/apply", json=apply), 400, "no play against the computer")


# --- stored tables: built once, 503 while building, /api/tables; a request's own work ------


def wait_for(check, what: str) -> None:
    """Poll ``check()`` until true (the test fails after a minute: something is stuck)."""
    for _ in range(6000):
        if check():
            return
        threading.Event().wait(0.01)
    pytest.fail(f"never happened: {what}")


def test_requests_during_a_build_get_503_with_progress_and_share_one_build(tmp_path):
    from fastapi.testclient import TestClient

    from diceopt.tables import TableStore

    spec = GatedSpec(tmp_path)
    app = create_app(warm=False, games=[spec], table_wait=0, store=TableStore())
    body = {"game": "gated", "position": "p"}
    with TestClient(app) as c:
        for _ in range(3):
            response = c.post("/api/advice", json=body)
            # "being built", or "about to be built" while the build thread starts (a busy
            # machine): either way a 503 with the progress
            line = assert_error(response, 503, "the gated table is ")
            assert "be built" in line or "being" in line
            assert "s so far" in line and "GET /api/tables/status/" in line
            assert 2 <= int(response.headers["Retry-After"]) <= 30
        (entry,) = c.get("/api/tables").json()["tables"]
        assert entry["name"] == "gated/v" and entry["title"] == "the gated table"
        assert entry["stage"] in ("loading", "queued", "building") and entry["elapsed_seconds"] >= 0
        assert entry["percent"] is None or 0 <= entry["percent"] < 100
        spec.gate.set()
        wait_for(lambda: c.get("/api/tables").json()["tables"][0]["stage"] == "ready", "ready")
        (entry,) = c.get("/api/tables").json()["tables"]
        assert entry["percent"] == 100.0 and entry["how"] == "built"
        response = c.post("/api/advice", json=body)
        assert response.status_code == 200 and response.json()["actions"][0]["value"] == 3.5
    assert spec.builds == 1  # three requests, one build


STATUS_KEYS = {
    "id", "name", "title", "state", "stage", "fraction", "elapsed_seconds", "seconds_left",
    "error",
}  # fmt: skip
PREFER = {"Prefer": "respond-async, wait=0"}


def test_a_request_that_prefers_to_wait_itself_gets_202_then_polls_the_build(tmp_path):
    from fastapi.testclient import TestClient

    from diceopt.tables import TableStore

    spec = GatedSpec(tmp_path, sliced=True)
    store = TableStore()
    # the server would wait ten minutes; the request prefers an answer at once
    app = create_app(warm=False, games=[spec], table_wait=600, store=store)
    body = {"game": "gated", "position": "p"}
    with TestClient(app) as c:
        response = c.post("/api/advice", json=body, headers=PREFER)
        assert response.status_code == 202, response.text
        data = response.json()
        (entry,) = data["building"]
        url = data["status"]
        assert url == f"/api/tables/status/{entry['id']}" == response.headers["Location"]
        assert response.headers["Preference-Applied"] == "respond-async"
        assert set(entry) == STATUS_KEYS and entry["state"] == "building"
        assert entry["title"] == "the gated table" and entry["name"] == "gated/v"

        def status() -> dict:
            answer = c.get(url)
            assert answer.status_code == 200 and answer.headers["Cache-Control"] == "no-store"
            assert set(answer.json()) == STATUS_KEYS
            return answer.json()

        wait_for(lambda: status()["fraction"] == 0.0, "the first step reported")
        first = status()
        assert first["stage"] == "building" and first["elapsed_seconds"] >= 0
        assert first["seconds_left"] is None and first["error"] is None  # nothing done yet
        # one slice of the first of four steps: the fraction moves within the step
        spec.slices.release()
        wait_for(lambda: (status()["fraction"] or 0) > 0, "a slice reported")
        moved = status()
        assert 0 < moved["fraction"] < 0.25 and moved["state"] == "building"
        assert moved["seconds_left"] is not None and moved["seconds_left"] >= 0
        # asked again meanwhile: 202 again, the same build
        again = c.post("/api/advice", json=body, headers=PREFER)
        assert again.status_code == 202 and again.json()["status"] == url
        spec.slices.release(4 * 8)  # at most one slice per item: the rest of the build
        wait_for(lambda: status()["state"] == "ready", "the build ready")
        done = status()
        assert done["fraction"] == 1.0 and done["seconds_left"] == 0.0 and done["stage"] == "ready"
        assert entry["id"] in {t["id"] for t in c.get("/api/tables").json()["tables"]}
        response = c.post("/api/advice", json=body, headers=PREFER)
        assert response.status_code == 200 and response.json()["actions"][0]["value"] == 3.5
    assert spec.builds == 1


def test_another_worker_answers_for_a_build_from_its_published_status(tmp_path, monkeypatch):
    """Two workers of one cache directory (two stores, two apps): a poll that reaches the
    worker that is not building gets the builder's status, never a 404."""
    from fastapi.testclient import TestClient

    from diceopt.tables import TableStore

    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    spec = GatedSpec(tmp_path, sliced=True)
    builder = create_app(warm=False, games=[spec], table_wait=600, store=TableStore())
    other = create_app(warm=False, games=[spec], table_wait=600, store=TableStore())
    body = {"game": "gated", "position": "p"}
    with TestClient(builder) as a, TestClient(other) as b:
        response = a.post("/api/advice", json=body, headers=PREFER)
        assert response.status_code == 202, response.text
        url = response.json()["status"]

        def status(client: TestClient) -> dict:
            answer = client.get(url)
            assert answer.status_code == 200, answer.text
            assert set(answer.json()) == STATUS_KEYS
            return answer.json()

        spec.slices.release(3)
        wait_for(lambda: (status(a)["fraction"] or 0) >= 3 / 32, "three slices reported")
        seen = status(b)  # published at most every PUBLISH_SECONDS: it catches up
        assert seen["state"] == "building" and seen["title"] == "the gated table"
        wait_for(lambda: status(b)["fraction"] == status(a)["fraction"], "the same fraction")
        spec.slices.release(4 * 8)
        wait_for(lambda: status(a)["state"] == "ready", "the build ready")
        wait_for(lambda: status(b)["state"] == "ready", "its end published too")
        assert status(b)["fraction"] == 1.0
    assert spec.builds == 1


def test_build_status_of_an_unknown_id_is_a_404_and_stores_nothing(tmp_path):
    from fastapi.testclient import TestClient

    from diceopt.tables import TableStore

    store = TableStore()
    app = create_app(warm=False, games=[GatedSpec(tmp_path)], table_wait=0, store=store)
    with TestClient(app) as c:
        for build_id in ("0123456789abcdef", "x" * 5000):
            line = assert_error(c.get(f"/api/tables/status/{build_id}"), 404, "no table build")
            assert "x" * 50 not in line  # the id is not echoed
        assert_error(c.get("/api/tables/status/a/b"), 404)
        assert store.status() == []  # asking stored nothing


def test_a_failed_build_is_reported_by_its_status(tmp_path):
    from fastapi.testclient import TestClient

    from diceopt.tables import TableStore

    spec = GatedSpec(tmp_path)
    table = spec.table()

    def fail(report: Any) -> bool:
        report.update(1, 4)
        assert spec.gate.wait(60), "the test never opened the gate"
        raise MemoryError("no room for it")

    spec.table = lambda: replace(table, build=fail)  # type: ignore[method-assign]
    app = create_app(warm=False, games=[spec], table_wait=600, store=TableStore())
    with TestClient(app) as c:
        response = c.post("/api/advice", json={"game": "gated", "position": "p"}, headers=PREFER)
        assert response.status_code == 202
        url = response.json()["status"]
        spec.gate.set()
        wait_for(lambda: c.get(url).json()["state"] == "failed", "the build failed")
        failed = c.get(url).json()
        assert failed["error"] == "MemoryError: no room for it" and failed["seconds_left"] is None
        # the request sent again (willing to wait for the build tried again) says why
        wait = {"Prefer": "respond-async, wait=60"}
        again = c.post("/api/advice", json={"game": "gated", "position": "p"}, headers=wait)
        assert_error(again, 500, "could not be made ready: MemoryError: no room for it")


@pytest.mark.parametrize(
    "header, wanted",
    [
        (None, (False, None)),
        ("respond-async", (True, None)),
        ("respond-async, wait=2", (True, 2.0)),
        ('RESPOND-ASYNC; x=1,wait="0.5"', (True, 0.5)),
        ("wait=-3", (False, 0.0)),
        ("wait=nan, handling=lenient", (False, None)),
        ("wait=soon", (False, None)),
    ],
)
def test_the_prefer_header_is_read_as_rfc_7240_says(header, wanted):
    from diceopt.web.routes import preference

    assert preference(header) == wanted


def test_a_shorter_wait_preferred_gives_the_503_sooner(tmp_path):
    from fastapi.testclient import TestClient

    from diceopt.tables import TableStore

    spec = GatedSpec(tmp_path)
    app = create_app(warm=False, games=[spec], table_wait=600, store=TableStore())
    with TestClient(app) as c:
        response = c.post(
            "/api/advice", json={"game": "gated", "position": "p"}, headers={"Prefer": "wait=0"}
        )
        assert_error(response, 503, "the gated table is")
        assert "Location" not in response.headers
        spec.gate.set()


def test_a_bad_request_is_answered_before_any_build(tmp_path):
    from fastapi.testclient import TestClient

    from diceopt.tables import TableStore

    spec = GatedSpec(tmp_path)
    store = TableStore()
    with TestClient(create_app(warm=False, games=[spec], table_wait=0, store=store)) as c:
        assert_error(c.post("/api/advice", json={"game": "gated", "position": "q"}), 400, "bad")
    assert store.status() == [] and spec.builds == 0


def test_a_stored_table_is_loaded_by_a_new_server_without_building(tmp_path):
    from fastapi.testclient import TestClient

    from diceopt.tables import TableStore

    (tmp_path / "gated.tbl").write_text("2.25")
    spec = GatedSpec(tmp_path)
    with TestClient(create_app(warm=False, games=[spec], table_wait=60, store=TableStore())) as c:
        response = c.post("/api/advice", json={"game": "gated", "position": "p"})
        assert response.status_code == 200 and response.json()["actions"][0]["value"] == 2.25
        (entry,) = c.get("/api/tables").json()["tables"]
        assert entry["stage"] == "ready" and entry["how"] == "loaded"
    assert spec.builds == 0


def test_a_request_past_the_work_limit_is_stopped_with_a_503(tmp_path):
    from fastapi.testclient import TestClient

    from diceopt.tables import TableStore

    spec = GatedSpec(tmp_path)
    spec.value = 1.0  # the table is ready
    app = create_app(warm=False, games=[spec], work_seconds=0.2, store=TableStore())
    with TestClient(app) as c:
        response = c.post("/api/distribution", json={"game": "gated", "position": "p"})
        assert_error(response, 503, "no answer within 0.2 s")
        wait_for(spec.stopped.is_set, "the solve stopped at a progress report")
        still = spec.steps
        threading.Event().wait(0.1)
        assert spec.steps == still  # no more work after it was stopped
        assert c.get("/api/health").json()["tables"] == {}  # not an error of the table


def test_a_request_whose_client_has_gone_stops_its_work(tmp_path):
    import httpx
    from conftest import serve

    from diceopt.tables import TableStore

    spec = GatedSpec(tmp_path)
    spec.value = 1.0
    app = create_app(warm=False, games=[spec], work_seconds=600, store=TableStore())
    with serve(app) as base:
        with pytest.raises(httpx.TimeoutException):  # the client gives up and hangs up
            httpx.post(
                f"{base}/api/distribution", json={"game": "gated", "position": "p"}, timeout=0.5
            )
        wait_for(spec.stopped.is_set, "the solve of a gone client stopped")
        assert httpx.get(f"{base}/api/health").status_code == 200


def test_tables_status_lists_the_default_variants_tables(client):
    listed = client.get("/api/tables").json()["tables"]
    names = {t["name"]: t for t in listed}
    target = names["yatzy/scandinavian target rows float32"]
    assert target["title"] == "the target table of scandinavian"
    assert target["stage"] in ("ready", "stored", "not stored", "loading", "building")
    for entry in listed:
        assert set(entry) >= {"name", "title", "stage", "percent", "elapsed_seconds"}


def test_target_advice_reads_the_stored_target_rows(client):
    from diceopt.games.yatzy.rulebook.variants import get_rules
    from diceopt.games.yatzy.stored import store as yatzy_tables

    body = {**FORCED, "position": MID, "target": 160}
    assert client.post("/api/advice", json=body).status_code == 200
    rows = yatzy_tables.loaded_rows(get_rules("scandinavian-forced"))
    assert rows is not None and rows.kmax == 374  # every target, from any position
    entry = next(
        t
        for t in client.get("/api/tables").json()["tables"]
        if t["name"] == "yatzy/scandinavian-forced target rows float32"
    )
    assert entry["stage"] == "ready"


# --- plain messages --------------------------------------------------------------------


STICK_JSON = '{"game": "stick", "position": "dice 1 3 3"}'


@pytest.mark.parametrize(
    "headers, content, words",
    [
        ({"Content-Type": "text/plain"}, STICK_JSON, "text/plain"),
        ({}, STICK_JSON, "no Content-Type"),
        ({"Content-Type": "application/x-www-form-urlencoded"}, "game=stick", "x-www-form"),
    ],
)
def test_a_body_not_sent_as_json_is_told_to_send_json(client, headers, content, words):
    response = client.post("/api/advice", content=content, headers=headers)
    line = assert_error(response, 415, "send JSON (Content-Type: application/json)")
    assert words in line
    ok = client.post(
        "/api/advice",
        content='{"game": "stick", "position": "dice 1 3 3"}',
        headers={"Content-Type": "application/json; charset=utf-8"},
    )
    assert ok.status_code == 200


@pytest.mark.parametrize(
    "target, status, words",
    [
        (1e20, 400, "target: the target must be between 0 and 374 points"),
        (-1e3, 400, "target: the target must be between 0 and 374 points, got -1000"),
        (150.5, 422, "target: must be a whole number, got 150.5"),
        (True, 422, "target: must be a whole number, got true"),
        ([150], 422, "target: must be a whole number"),
    ],
)
def test_targets_out_of_range_or_not_whole_are_plain_messages(client, target, status, words):
    body = {**FORCED, "position": MID, "target": target}
    line = assert_error(client.post("/api/advice", json=body), status, words)
    assert "parse" not in line and "Value error" not in line


def test_a_whole_float_target_is_the_same_as_the_int(client):
    a = client.post("/api/advice", json={**FORCED, "position": MID, "target": 150}).json()
    b = client.post("/api/advice", json={**FORCED, "position": MID, "target": 150.0}).json()
    assert a == b


def test_an_unknown_move_in_a_preview_names_the_moves_not_a_help_command(client):
    body = {"game": "yatzy", "position": get_game("yatzy").position_example, "actions": ["zz"]}
    line = assert_error(client.post("/api/preview", json=body), 400, "unknown move 'zz'")
    assert "help" not in line and "keep 3 3" in line and "score chance" in line


def test_stick_positions_give_whole_dice_and_points_as_ints(client):
    start = client.post("/api/new", json={"game": "stick", "seed": 1}).json()
    assert all(type(d) is int for d in start["position_json"]["dice"])
    assert type(start["position_json"]["points"]) is int
    assert '"dice":[1.0' not in json.dumps(start, separators=(",", ":"))
    step = client.post(
        "/api/apply", json={"game": "stick", "position": start["position"], "action": "stick"}
    ).json()
    assert all(type(d) is int for d in step["position_json"]["dice"])
    advice = client.post("/api/advice", json={"game": "stick", "position": "dice 1 3 3"}).json()
    assert advice["position_json"]["dice"] == [1, 3, 3]


def test_serve_prepare_builds_the_page_tables_before_serving(tmp_path, monkeypatch, capsys):
    import diceopt.web.served as web_served
    from diceopt.cli.serve import prepare_tables
    from diceopt.tables import TableStore

    spec = GatedSpec(tmp_path)
    spec.gate.set()
    monkeypatch.setattr(web_served, "served_games", lambda selection=None: {"gated": spec})
    monkeypatch.setattr("diceopt.tables.DEFAULT", TableStore())
    assert prepare_tables(True) == 0
    out = capsys.readouterr().out
    assert out.startswith("diceopt advisor: the gated table: ready (built, ")
    assert spec.builds == 1 and (tmp_path / "gated.tbl").read_text() == "3.5"
    # a second server process loads what the first stored
    monkeypatch.setattr("diceopt.tables.DEFAULT", TableStore())
    again = GatedSpec(tmp_path)
    monkeypatch.setattr(web_served, "served_games", lambda selection=None: {"gated": again})
    assert prepare_tables(True) == 0
    assert "the gated table: ready (loaded, " in capsys.readouterr().out and again.builds == 0


def test_serve_help_documents_prepare(capsys):
    from diceopt.cli import main

    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--prepare" in text and "before serving" in text and "GET /api/tables" in text


def test_maxi_target_and_opponent_advice_are_refused_before_any_build(client):
    from diceopt.tables import DEFAULT

    before = len(DEFAULT.status())
    pos = "dice 1 2 3 4 5 6 | rerolls 2 | score 0"
    maxi = {"game": "yatzy", "variant": "maxi", "position": pos}
    line = assert_error(client.post("/api/advice", json={**maxi, "target": 300}), 400, "target")
    assert "target advice is not offered for maxi" in line and "GB" in line
    rival = {"opponent": "filled ones | upper 1 | score 1"}
    line = assert_error(client.post("/api/advice", json={**maxi, **rival}), 400, "opponent")
    assert "not offered for maxi" in line
    duel = {"game": "yatzy", "variant": "maxi", "strategy": "win"}
    assert_error(client.post("/api/duel/new", json=duel), 400, "play against the computer")
    assert len(DEFAULT.status()) == before  # nothing built or loaded for them


def test_two_concurrent_requests_wait_for_one_build(tmp_path):
    from fastapi.testclient import TestClient

    from diceopt.tables import TableStore

    class CountingStore(TableStore):
        asked = 0

        def start(self, table: Any) -> Any:
            CountingStore.asked += 1
            return super().start(table)

    spec = GatedSpec(tmp_path)
    store = CountingStore()
    app = create_app(warm=False, games=[spec], table_wait=120, store=store)
    answers: list[Any] = []
    with TestClient(app) as c:

        def ask() -> None:
            answers.append(c.post("/api/advice", json={"game": "gated", "position": "p"}))

        threads = [threading.Thread(target=ask) for _ in range(2)]
        for t in threads:
            t.start()
        wait_for(lambda: CountingStore.asked >= 2, "both requests waiting for the table")
        wait_for(lambda: [b.stage for b in store.status()] == ["building"], "one build")
        spec.gate.set()
        for t in threads:
            t.join()
    assert [a.status_code for a in answers] == [200, 200]
    assert spec.builds == 1 and store.built == 1


def test_serve_prepare_says_when_there_is_nothing_to_prepare(capsys):
    from diceopt.cli.serve import prepare_tables

    assert prepare_tables(["stick"]) == 0
    assert (
        capsys.readouterr().out == "diceopt advisor: no stored tables to prepare for these games\n"
    )


def test_a_whole_zombie_game_against_the_computer_through_the_api(client):
    body = {"game": "zombie", "variant": "goal-3"}
    data = duel(client, "/api/duel/new", {**body, "strategy": "win", "seed": 2})
    spec = get_game("zombie")
    rules = spec.rules("goal-3")
    assert data["win_probability"] == pytest.approx(spec.solve(rules).value, abs=1e-12)
    for seed in range(200):
        if data["game_over"]:
            break
        action = "bank" if data["you"]["brains"] >= 2 else "roll"
        data = duel(
            client,
            "/api/duel/apply",
            {**body, "state": data["state"], "action": action, "seed": seed},
        )
        if data["computer_moves"] and not data["game_over"]:
            assert data["computer"]["brains"] == data["you"]["opponent"]
            assert 0.0 <= data["win_probability"] <= 1.0
    assert data["game_over"] and data["result"] in (0.0, 1.0)
