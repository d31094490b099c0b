"""Analysing played games (diceopt.analyse, ``GAME analyse``, ``GAME play --record``).

For every registered game, a scripted game saved with ``play --record`` analyses to the
total regret the play loop printed, and its result splits into the value from the start
(``solve``), the luck of the dice and that cost; malformed records get one line naming
the line. (More on luck and skill: test_luck.py.)
"""

from __future__ import annotations

import json
import re

import pytest
from test_play import Player, small_args

from diceopt.cli import main
from diceopt.games.registry import games


@pytest.fixture(scope="module", autouse=True)
def _cache(web_env):
    return web_env


def mixed(advice, step):
    """Every third decision the worst action, else the second best (or the only one)."""
    actions = advice.actions
    if step % 3 == 2:
        return actions[-1].action
    return actions[min(1, len(actions) - 1)].action


@pytest.mark.parametrize("game_id", sorted(games()))
def test_recorded_game_analyses_to_the_printed_total(game_id, monkeypatch, capsys, tmp_path):
    spec = games()[game_id]
    record = tmp_path / "game.txt"
    args = [*small_args(spec)]
    for seed in range(11, 31):  # a game where the player decides (Pig can end at once)
        with monkeypatch.context() as mp:
            Player(mp, spec, mixed)
            assert main([game_id, "play", "--seed", str(seed), "--record", str(record), *args]) == 0
        out = capsys.readouterr().out
        found = re.search(r"(\d+) decisions graded; total regret (\S+) ", out)
        assert found, out[-500:]
        if int(found.group(1)) >= 3:
            break
    assert f"record of {found.group(1)} decisions saved to {record}" in out
    assert main([game_id, "analyse", str(record), "--json", *args]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["count"] == int(found.group(1))
    assert f"{data['total_regret']:.4f}" == found.group(2)
    assert data["mean_regret"] == pytest.approx(data["total_regret"] / data["count"])
    kinds = data["by_kind"]
    assert sum(k["decisions"] for k in kinds.values()) == data["count"]
    assert sum(k["total_regret"] for k in kinds.values()) == pytest.approx(data["total_regret"])
    costs = sorted((d["regret"] for d in data["decisions"] if d["regret"] > 1e-9), reverse=True)
    assert [m["regret"] for m in data["mistakes"]] == costs[:3]
    # the whole game: its result = the value from the start + luck - cost (the regrets)
    rules = spec.rules(**spec.small)
    sign = -1 if spec.lower_is_better_of(rules) else 1
    assert data["whole_games"] == 1 and data["luck_missing"] == []
    assert data["expected_start"] == pytest.approx(spec.solve(rules).value, abs=1e-12)
    assert data["cost"] == pytest.approx(data["total_regret"], abs=1e-9)
    if spec.players_of(rules) == 2:
        won = re.search(r"^you (win|lose)$|^a draw$", out, re.M)
        assert won, out[-300:]
        assert data["result"] == {"win": 1.0, "lose": 0.0, None: 0.5}[won.group(1)]
    else:
        shown = float(re.search(r"final result (\S+)", out).group(1))  # (6 digits: %g)
        assert data["result"] == pytest.approx(shown, rel=1e-5, abs=1e-9)
    luck = data["result"] - data["expected_start"] - sign * -data["cost"]
    assert data["luck"] == pytest.approx(sign * luck, abs=1e-9)
    assert main([game_id, "analyse", str(record), *args]) == 0
    text = capsys.readouterr().out
    assert f"{data['count']} decisions: total cost {data['total_regret']:.6f}" in text
    assert "by kind of decision:" in text and "costliest mistakes" in text
    assert "luck and skill" in text and "luckiest roll:" in text


def test_second_seat_records_in_its_own_terms(monkeypatch, capsys, tmp_path):
    spec = games()["pig"]
    record = tmp_path / "pig.txt"
    Player(monkeypatch, spec, mixed)
    assert (
        main(["pig", "play", "--goal", "20", "--seat", "2", "--seed", "2", "--record", str(record)])
        == 0
    )
    out = capsys.readouterr().out
    text = record.read_text()
    assert "~> new game as player 2" in text and "| player 2 =>" in text
    assert not re.search(
        r"^me \d+ \| opponent \d+ \| turn \d+ =>", text, re.M
    )  # the computer's: ->
    data = json.loads(_analyse(["pig", "analyse", str(record), "--goal", "20", "--json"], capsys))
    assert data["splits"][0]["perspective"] == 2 and "player 2" in data["split_units"]
    assert data["expected_start"] == pytest.approx(1 - spec.solve(spec.rules(goal=20)).value)
    assert data["cost"] == pytest.approx(data["total_regret"], abs=1e-9)  # the computer's: 0
    assert data["result"] == (1.0 if re.search(r"^you win$", out, re.M) else 0.0)
    assert data["result"] == pytest.approx(data["expected_start"] + data["luck"] - data["cost"])


def test_unfinished_game_is_graded_without_luck(monkeypatch, capsys, tmp_path):
    spec = games()["stick"]
    record = tmp_path / "r.txt"
    script = lambda advice, step: advice.actions[-1].action if step < 1 else None  # noqa: E731
    for seed in range(1, 30):  # a seed whose worst first move rerolls (the game goes on)
        with monkeypatch.context() as mp:
            Player(mp, spec, script)
            assert main(["stick", "play", "--seed", str(seed), "--record", str(record)]) == 0
        if "goodbye: 1 decisions" in capsys.readouterr().out:
            break
    data = json.loads(_analyse(["stick", "analyse", str(record), "--json"], capsys))
    assert data["count"] == 1 and data["whole_games"] == 0 and data["luck"] is None
    assert "does not finish" in data["luck_missing"][0]


def _analyse(argv, capsys) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


def test_malformed_records_name_the_line(tmp_path, capsys):
    spec = games()["stick"]
    rules = spec.rules()
    pos = spec.format(rules, spec.parse(rules, "dice 1 3 3"))
    cases = {
        f"# comment\n\n{pos} => stick\nnonsense\n": "line 4: expected 'POSITION => ACTION'",
        f"{pos} => stick\ndice 1 9 3 => stick\n": "line 2: ",
        f"{pos} => fly away\n": "line 1: ",
        f"{pos} =>\n": "line 1: expected",
        "# only comments\n\n": "no decisions",
    }
    for i, (text, message) in enumerate(cases.items()):
        path = tmp_path / f"r{i}.txt"
        path.write_text(text)
        assert main(["stick", "analyse", str(path)]) == 2
        out, err = capsys.readouterr()
        assert err.count("\n") == 1 and err.startswith("diceopt: error: "), err
        assert message in err, err
    assert main(["stick", "analyse", str(tmp_path / "missing.txt")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_record_that_cannot_be_saved_says_so(monkeypatch, capsys, tmp_path):
    spec = games()["stick"]
    assert main(["stick", "play", "--record", str(tmp_path / "no" / "r.txt")]) == 2
    assert "no such directory" in capsys.readouterr().err
    target = tmp_path / "r.txt"
    Player(monkeypatch, spec, lambda advice, step: advice.best.action)

    def fail(self, *a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("pathlib.Path.write_text", fail)
    assert main(["stick", "play", "--seed", "1", "--record", str(target)]) == 2
    out, err = capsys.readouterr()
    assert "saved" not in out
    assert "cannot save the record" in err and "Permission denied" in err
