"""Rule files pasted into the API (``rules``): checked in one line, answered as the library
answers them, filed under their content hash, bounded in size and in number."""

from __future__ import annotations

import pytest
from test_yatzy_rules_flag import TINY

from diceopt.errors import InputError
from diceopt.games.registry import get_game
from diceopt.games.yatzy.stored import store as solved
from diceopt.web import served as web_served
from diceopt.web.games import GameTables
from diceopt.web.served import served_games

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`:UserWarning")

SPEC = get_game("yatzy")


def error_line(response, status: int, contains: str) -> str:
    """The one-line error of a response with ``status``."""
    assert response.status_code == status, response.text
    line = response.json()["error"]
    assert "\n" not in line and contains in line, line
    return line


def test_a_pasted_file_is_checked_and_shown_as_a_variant(client):
    response = client.post("/api/rules", json={"game": "yatzy", "rules": TINY})
    assert response.status_code == 200, response.text
    data = response.json()
    key = SPEC.rules_text(TINY).rules.storage_key
    assert data["id"] == f"file:{key}" and data["rules"] == {"name": "tiny", "key": key}
    assert data["parameters"]["categories"] == ["threes", "full_house", "yatzy"]
    assert data["sheet"]["upper"] == ["threes"] and data["sheet"]["bonus"] == 10
    assert "rule_files" in client.get("/api/games").json()["games"][0]


def test_advice_and_play_with_a_pasted_file_as_the_library_answers(client):
    position = "dice 3 3 3 5 5 | rerolls 0 | score 0"
    body = {"game": "yatzy", "rules": TINY, "position": position}
    response = client.post("/api/advice", json=body)
    assert response.status_code == 200, response.text
    data = response.json()
    config = SPEC.rules_text(TINY)
    library = SPEC.advise(config, SPEC.parse(config, position))
    assert [a["action"] for a in data["actions"]] == [a.action for a in library.actions]
    assert data["actions"][0]["value"] == pytest.approx(library.actions[0].value, abs=1e-9)
    assert data["rules"]["key"] == config.rules.storage_key
    # a game: new, apply, distribution, all under the file's rules
    new = client.post("/api/new", json={"game": "yatzy", "rules": TINY, "seed": 3}).json()
    assert new["rules"]["name"] == "tiny" and len(new["position_json"]["dice"]) == 5
    step = client.post(
        "/api/apply",
        json={"game": "yatzy", "rules": TINY, "position": new["position"], "action": "keep -"},
    )
    assert step.status_code == 200 and step.json()["rules"]["key"] == config.rules.storage_key
    dist = client.post(
        "/api/distribution", json={"game": "yatzy", "rules": TINY, "position": position}
    )
    assert dist.status_code == 200 and dist.json()["rules"]["name"] == "tiny"


BAD = {
    "unknown key": ('extends = "yacht"\ncolour = "red"\n', 400, "unknown key 'colour'"),
    "not TOML": ("dice = 5\n[bonus\n", 400, "not valid TOML"),
    "a path": ('extends = "/etc/passwd.toml"\n', 400, "extends a shipped one only"),
    "other family": ('family = "push-luck"\n', 400, "not a Yatzy-family rule file"),
    "too large": (
        'extends = "maxi"\nname = "big"\n',
        400,
        "larger than Scandinavian Yatzy's",
    ),
    "too long": ("#" * 20_001, 422, "rules"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_paste_is_one_line(case, client):
    text, status, contains = BAD[case]
    body = {"game": "yatzy", "rules": text, "position": "dice 1 2 3 4 5 | rerolls 2"}
    error_line(client.post("/api/advice", json=body), status, contains)
    if status == 400:
        error_line(client.post("/api/rules", json={"game": "yatzy", "rules": text}), 400, contains)


def test_a_variant_and_rules_together_or_a_game_without_rule_files(client):
    body = {"game": "yatzy", "variant": "american", "rules": TINY, "position": "dice 1 1 1 1 1"}
    error_line(client.post("/api/advice", json=body), 400, "not both")
    body = {"game": "stick", "rules": TINY, "position": "dice 1 3 3"}
    error_line(client.post("/api/advice", json=body), 400, "takes no rule files")


def test_large_pasted_files_build_no_target_table(client):
    house = 'extends = "scandinavian"\nname = "big-house"\n[bonus]\npoints = 35\n'
    body = {
        "game": "yatzy",
        "rules": house,
        "position": "dice 1 2 3 4 5 | rerolls 2 | score 0",
        "target": 200,
    }
    error_line(client.post("/api/advice", json=body), 400, "pasted rule file this large")
    duel = {"game": "yatzy", "rules": house, "strategy": "expected"}
    error_line(client.post("/api/duel/new", json=duel), 400, "pasted rule file this large")


def test_at_most_a_few_pasted_files_are_held(web_env, monkeypatch):
    monkeypatch.setattr(web_served, "RULE_FILES", 2)
    tables = GameTables(served_games(["yatzy"]))
    texts = [TINY.replace("score = 25", f"score = {25 + i}") for i in range(3)]
    ids = [tables.variant("yatzy", None, text) for text in texts]
    assert len(set(ids)) == 3 and tables.variant("yatzy", None, texts[1]) == ids[1]
    position = "dice 3 3 3 5 5 | rerolls 0 | score 0"
    tables.advice_json("yatzy", ids[1], position)
    key = tables.rules("yatzy", ids[1]).rules.storage_key
    assert any(k[0] == key for k in solved.TABLES)
    tables.variant("yatzy", None, texts[0])  # the third: the least recently used goes
    with pytest.raises(InputError, match="no longer held"):
        tables.rules("yatzy", ids[2])
    tables.variant("yatzy", None, texts[2])  # and now the second, with its tables
    assert not any(k[0] == key for k in solved.TABLES)
    with pytest.raises(InputError, match="no longer held"):
        tables.rules("yatzy", ids[1])
    again = tables.variant("yatzy", None, texts[1])  # sent again: held again
    assert again == ids[1] and tables.advice_json("yatzy", again, position)


WORSE = {  # pasted files the tester sent: each one 400 line, never a 500 or a long echo
    "long name": ('extends = "yacht"\nname = "' + "n" * 5000 + '"\n', "name must be at most 64"),
    "deep": ('extends = "yacht"\nx = ' + "[" * 5000 + "]" * 5000 + "\n", "nested more than"),
    "dice": ('extends = "scandinavian"\ndice = 100000000\n', "dice must be 1..8"),
    "pairs": (
        'extends = "yacht"\n[categories.p]\nkind = "pairs"\ncount = 10000000000\nscore = 5\n',
        "count must be 1..4 pairs",
    ),
    "score": ('extends = "yacht"\n[categories.yacht]\nscore = 1' + "0" * 44 + "\n", "a score"),
    "never": (
        'extends = "yacht"\n[categories.six]\nkind = "of_a_kind"\ncount = 6\nscore = 5\n',
        "can never score",
    ),
}


@pytest.mark.parametrize("case", list(WORSE))
def test_a_pasted_file_out_of_bounds_is_one_short_line(case, client):
    text, contains = WORSE[case]
    line = error_line(
        client.post("/api/rules", json={"game": "yatzy", "rules": text}), 400, contains
    )
    assert len(line) <= 300


def test_a_pasted_name_comes_back_short_and_a_bom_is_accepted(client):
    text = "\ufeff" + TINY.replace('name = "tiny"', 'name = "' + "t" * 64 + '"')
    response = client.post("/api/rules", json={"game": "yatzy", "rules": text})
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["rules"]["name"] == "t" * 64
    assert len(data["id"]) <= len("file:") + 57 and data["id"].startswith("file:" + "t" * 40 + "-")
