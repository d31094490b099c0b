"""Analysing played games (diceopt.analyse, ``GAME analyse``, ``GAME play --record``).

For every registered game, a scripted game saved with ``play --record`` analyses to the
total regret the play loop printed; malformed records get one line naming the line.
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
    assert main([game_id, "analyse", str(record), *args]) == 0
    text = capsys.readouterr().out
    assert f"{data['count']} decisions: total cost {data['total_regret']:.6f}" in text
    assert "by kind of decision:" in text and "costliest mistakes" in text


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
