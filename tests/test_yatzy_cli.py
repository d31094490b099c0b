"""``diceopt yatzy solve`` and ``diceopt yatzy advise``: JSON, caching, bad input."""

from __future__ import annotations

import json

import pytest

from diceopt.cli import main


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path / "env"))
    return tmp_path


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_json_then_cached_then_force(cache, capsys):
    args = ["yatzy", "solve", "--variant", "scandinavian-forced", "--cache-dir", str(cache / "d")]
    code, out, err = run(capsys, *args, "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) >= {"value", "seconds", "compile_seconds", "states", "variant", "dtype"}
    assert data["variant"] == "scandinavian-forced" and data["dtype"] == "float32"
    assert data["value"] == pytest.approx(122.55852739642387, abs=2e-3)
    assert data["states"] == 809 and data["loaded"] is False
    # not a terminal: one line when the stage starts, one when it ends
    assert err.splitlines() == [
        "solving scandinavian-forced ...",
        err.splitlines()[1],
    ] and err.splitlines()[1].startswith("solving scandinavian-forced: done in")
    assert (cache / "d" / "yatzy").is_dir() and not (cache / "env").exists()
    code, out, _ = run(capsys, *args, "--json")
    assert json.loads(out)["loaded"] is True
    code, out, _ = run(capsys, *args, "--json", "--force", "--dtype", "float64")
    data = json.loads(out)
    assert data["loaded"] is False and data["dtype"] == "float64"
    assert data["value"] == pytest.approx(122.55852739642387, abs=1e-9)
    code, out, _ = run(capsys, *args)
    assert code == 0 and "122.55" in out


def test_advise_json_and_text(cache, capsys):
    pos = "dice 1 2 3 4 6 | rerolls 0 | filled ones twos threes fours fives | upper 10 | score 10"
    code, out, _ = run(capsys, "yatzy", "advise", pos, "--variant", "scandinavian-forced", "--json")
    assert code == 0
    actions = json.loads(out)["actions"]
    assert [a["action"] for a in actions] == ["score sixes"]  # forced order
    assert set(actions[0]) == {"action", "value", "regret"} and actions[0]["regret"] == 0.0
    code, out, _ = run(capsys, "yatzy", "advise", pos, "--variant", "scandinavian-forced")
    assert code == 0 and "score sixes" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["advise", "dice 1 2 3 4 7 | rerolls 2"], "a die shows 1 to 6, got 7"),
        (["advise", "dice 1 2 3 4 | rerolls 2"], "expected 5 dice"),
        (["advise", "dice 1 2 3 4 5 | rerolls 5"], "rerolls"),
        (["advise", "dice 1 2 3 4 5 | rerolls 2 | filled bogus"], "unknown category"),
        (["advise", "dice 1 2 3 4 5 | rerolls 2 | filled ones | upper 9"], "impossible"),
        (["advise", "dice 1 2 3 4 5 | rerolls 2", "--variant", "nope"], "unknown Yatzy variant"),
        (["solve", "--variant", "nope"], "unknown Yatzy variant"),
        (["solve", "--theta", "3"], "theta"),
    ],
)
def test_bad_input_one_line_exit_2(cache, capsys, argv, message):
    code, out, err = run(capsys, "yatzy", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("diceopt: error: ") and message in err


def test_theta_values_are_called_certainty_equivalents(cache, capsys):
    """With --theta the values are certainty equivalents in the text, the JSON units and
    the advice, never "expected final score"."""
    args = ["--variant", "scandinavian-forced", "--theta", "0.05"]
    code, out, _ = run(capsys, "yatzy", "solve", *args)
    assert code == 0 and "expected" not in out and out.count("certainty equivalent") == 2, out
    code, out, _ = run(capsys, "yatzy", "solve", *args, "--json")
    assert json.loads(out)["units"] == "certainty equivalent of the final score (points)"
    pos = "dice 1 2 3 4 6 | rerolls 2 | filled ones | upper 1"
    code, out, _ = run(capsys, "yatzy", "advise", pos, *args)
    assert "values: certainty equivalent of the points still to come (points)" in out, out
    code, out, _ = run(capsys, "yatzy", "advise", pos + " | score 1", *args, "--json")
    assert json.loads(out)["value_is"] == "certainty equivalent of the final score (points)"
    code, out, _ = run(capsys, "yatzy", "solve", "--variant", "scandinavian-forced", "--json")
    assert json.loads(out)["units"] == "expected final score (points)"


def test_a_corrupt_table_is_reported_once_by_advise(cache, capsys, monkeypatch):

    args = ["--variant", "scandinavian-forced"]
    assert run(capsys, "yatzy", "solve", *args)[0] == 0
    (path,) = (cache / "env" / "yatzy").glob("scandinavian-forced-*.tbl")
    data = bytearray(path.read_bytes())
    # the row of mask 0b1 (the advice reads it: forced order, ones next); the blocks
    # advice does not read are not checked by it (tests/test_yatzy_storage.py)
    row = len(data) - (1 << 15) * 64 * 4 + 1 * 64 * 4
    data[row : row + 8] = b"XXXXXXXX"
    path.write_bytes(bytes(data))
    from diceopt.games.yatzy.stored import store as solved

    monkeypatch.setattr(solved, "TABLES", {})  # a new process: nothing in memory
    code, out, err = run(capsys, "yatzy", "advise", "dice 1 2 3 4 6 | rerolls 0", *args)
    assert code == 0 and "score ones" in out
    assert err.count("diceopt: warning:") == 1 and "checksum mismatch" in err, err
