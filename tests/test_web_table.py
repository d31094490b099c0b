"""The web API of a Yatzy table (``diceopt.web.table_routes``): every player's chance and
the advice for the player to move, the library's numbers, and bad requests (400, 422).
The forced-order variant keeps the tables small."""

from __future__ import annotations

import pytest

from diceopt.games.registry import get_game
from diceopt.games.yatzy.winning.table import advise_table, table_chances
from diceopt.games.yatzy.winning.win import parse_opponent

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`:UserWarning")

VARIANT = "scandinavian-forced"
ELEVEN = (
    "ones twos threes fours fives sixes one_pair two_pairs three_of_a_kind four_of_a_kind "
    "small_straight"
)
ANNA = f"filled {ELEVEN} large_straight | upper 63 | score 180"
BO = f"filled {ELEVEN} | upper 60 | score 140"
CY = f"filled {ELEVEN} | upper 63 | score 150"
CY_ROLL = f"dice 1 3 3 5 6 | rerolls 2 | {CY}"
PLAYERS = [
    {"name": "Anna", "sheet": ANNA},
    {"name": "Bo", "sheet": {"filled": ELEVEN.split(), "upper": 60, "score": 140}},
    {"name": "Cy", "sheet": CY},
]


def assert_error(response, status: int, contains: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and "\n" not in body["error"]
    assert contains.lower() in body["error"].lower(), body["error"]


def library():
    spec = get_game("yatzy")
    config = spec.rules(VARIANT)
    sheets = [parse_opponent(s, config.rules) for s in (ANNA, BO, CY)]
    return spec, config, sheets


def test_chances_are_the_library_chances(client):
    response = client.post(
        "/api/yatzy/table/chances", json={"variant": VARIANT, "players": PLAYERS, "to_move": 2}
    )
    assert response.status_code == 200, response.text
    data = response.json()
    assert [p["name"] for p in data["players"]] == ["Anna", "Bo", "Cy"]
    assert data["to_move"] == 2 and "tie" in data["chance_is"]
    chances = [p["chance"] for p in data["players"]]
    assert abs(sum(chances) - 1.0) < 1e-9
    _, config, sheets = library()
    # the served chances read the stored float32 state distributions: within 1e-6
    assert chances == pytest.approx(list(table_chances(config, sheets)), abs=1e-6)
    assert data["players"][1]["sheet"] == BO and data["players"][1]["filled"] == 11
    assert data["players"][0]["expected_final"] > 180


def test_chances_give_every_box_s_possible_points(client):
    body = {"variant": VARIANT, "players": PLAYERS, "to_move": 0}
    boxes = client.post("/api/yatzy/table/chances", json=body).json()["boxes"]
    assert list(boxes) == list(get_game("yatzy").rules(VARIANT).rules.categories)
    assert boxes["ones"] == [0, 1, 2, 3, 4, 5] and boxes["threes"] == [0, 3, 6, 9, 12, 15]
    assert boxes["small_straight"] == [0, 15] and boxes["yatzy"] == [0, 50]
    assert boxes["chance"] == list(range(5, 31))


def test_advice_is_the_library_advice_with_every_chance(client):
    body = {"variant": VARIANT, "players": PLAYERS, "to_move": 2, "position": CY_ROLL}
    response = client.post("/api/yatzy/table/advice", json=body)
    assert response.status_code == 200, response.text
    data = response.json()
    spec, config, sheets = library()
    want = advise_table(spec.parse(config, CY_ROLL), config, sheets[:2])
    assert [a["action"] for a in data["actions"]] == [a.action for a in want.actions]
    assert [a["value"] for a in data["actions"]] == pytest.approx(
        [a.value for a in want.actions], abs=1e-6
    )
    assert data["table"]["opponents"] == 2 and data["table"]["best_to_win"] == want.best.action
    assert data["table"]["best_for_expected"] == want.best_for_expected
    assert abs(sum(p["chance"] for p in data["players"]) - 1.0) < 1e-9
    assert data["position"] == CY_ROLL and data["position_json"]["dice"] == [1, 3, 3, 5, 6]
    # the same table from another seat: the mover is the first player
    moved = {**body, "players": [PLAYERS[2], PLAYERS[0], PLAYERS[1]], "to_move": 0}
    again = client.post("/api/yatzy/table/advice", json=moved).json()
    assert [a["value"] for a in again["actions"]] == pytest.approx(
        [a["value"] for a in data["actions"]], abs=1e-12
    )


@pytest.mark.parametrize(
    ("path", "change", "status", "word"),
    [
        ("chances", {"players": PLAYERS[:1]}, 422, "at least 2"),
        ("chances", {"players": PLAYERS * 3}, 422, "at most 6"),
        ("chances", {"players": [PLAYERS[0], PLAYERS[0]]}, 400, "two players are named"),
        (
            "chances",
            {"players": [PLAYERS[0], {"name": "X", "sheet": "filled castle | score 3"}]},
            400,
            "castle",
        ),  # fmt: skip
        (
            "chances",
            {"players": [PLAYERS[0], {"name": "X", "sheet": "filled ones"}]},
            400,
            "score",
        ),  # fmt: skip
        ("chances", {"players": [PLAYERS[0], {"name": "", "sheet": BO}]}, 422, "name"),
        ("chances", {"players": [PLAYERS[0], {"name": "X" * 41, "sheet": BO}]}, 422, "name"),
        (
            "chances",
            {"players": [PLAYERS[0], {"name": "X", "sheet": BO, "age": 3}]},
            422,
            "age",
        ),  # fmt: skip
        ("chances", {"to_move": 5}, 400, "3 players"),
        ("chances", {"to_move": -1}, 422, "to_move"),
        ("chances", {"variant": "nope"}, 400, "nope"),
        ("chances", {"game": "yatzy"}, 422, "game"),
        ("advice", {"to_move": 1}, 400, "not the sheet of Bo"),
        ("advice", {"position": "dice 1 2 3 | rerolls 2"}, 400, "dice"),
        (
            "advice",
            {"position": f"dice 1 3 3 5 6 | rerolls 2 | filled {ELEVEN} | upper 63"},
            400,
            "score",
        ),  # fmt: skip
        ("advice", {"to_move": None}, 422, "to_move"),
    ],
)
def test_bad_table_requests(client, path, change, status, word):
    body = {"variant": VARIANT, "players": PLAYERS, "to_move": 2}
    if path == "advice":
        body["position"] = CY_ROLL
    response = client.post(f"/api/yatzy/table/{path}", json=body | change)
    assert_error(response, status, word)


def test_the_endpoints_are_in_the_schema(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert "/api/yatzy/table/chances" in paths and "/api/yatzy/table/advice" in paths


def test_games_name_the_table_endpoints_of_the_game_that_has_them(client):
    games = {g["id"]: g for g in client.get("/api/games").json()["games"]}
    assert games["yatzy"]["table"] == "/api/yatzy/table"
    assert all(g["table"] is None for gid, g in games.items() if gid != "yatzy")
