"""``--rules FILE`` on the Yatzy commands: shipped presets and files by path, one line and
exit status 2 for a bad file, tables filed under the file's content hash (a changed file
is solved again, a damaged table of a file is rebuilt)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diceopt.cli import main
from diceopt.engine import Objective, compile_game, solve
from diceopt.games.yatzy.play.engine_game import YatzyEngineGame
from diceopt.games.yatzy.rulebook.compiler import load_rules, load_rules_text
from diceopt.storage import MAGIC

ROOT = Path(__file__).resolve().parent.parent
HOUSE = ROOT / "examples" / "rules" / "house.toml"
YACHT_PUBLISHED = 191.774369  # RULES.md section 8

# a reduced game of three boxes: threes (bonus 10 at 6), a full house, a Yatzy
TINY = """\
name = "tiny"
[bonus]
threshold = 6
points = 10
[categories.threes]
kind = "face"
face = 3
[categories.full_house]
kind = "full_house"
score = 25
[categories.yatzy]
kind = "yatzy"
score = 50
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``diceopt ARGV``."""
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def solve_json(capsys, *argv: str) -> dict:
    status, out, err = run(capsys, "yatzy", "solve", *argv, "--json")
    assert status == 0, err
    return json.loads(out)


def engine_value(text: str) -> float:
    """The exact value of a rule file's text on the generic engine (float64)."""
    rules = load_rules_text(text)
    return solve(compile_game(YatzyEngineGame(rules)), Objective()).value


def test_yacht_through_rules_flag(capsys):
    data = solve_json(capsys, "--rules", "yacht")  # a rule file's table: float64
    assert data["value"] == pytest.approx(YACHT_PUBLISHED, abs=5e-7)
    assert data["rules"]["dtype"] == "float64"
    assert data["rules"]["name"] == "yacht" and data["rules"]["key"].startswith("yacht-")
    data32 = solve_json(capsys, "--rules", "yacht", "--dtype", "float32")
    assert data32["value"] == pytest.approx(YACHT_PUBLISHED, abs=1e-3)
    assert data32["value"] != data["value"]


def test_house_example_by_path(capsys):
    # as the README's example solves it: float64, the value of test_rule_files
    data = solve_json(capsys, "--rules", str(HOUSE))
    assert data["value"] == pytest.approx(238.59114464769394, abs=1e-9)
    assert data["rules"]["key"] == load_rules(HOUSE).storage_key


def test_a_small_file_agrees_with_the_engine_and_every_command_takes_it(tmp_path, capsys):
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    data = solve_json(capsys, "--rules", str(path), "--dtype", "float64")
    assert data["value"] == pytest.approx(engine_value(TINY), abs=1e-9)
    assert data["rules"]["categories"] == ["threes", "full_house", "yatzy"]
    status, out, err = run(
        capsys, "yatzy", "advise", "--rules", str(path), "dice 3 3 3 5 5 | rerolls 0"
    )
    assert status == 0, err
    assert "score full_house" in out and "score chance" not in out
    status, out, err = run(
        capsys, "yatzy", "simulate", "--rules", str(path), "--games", "2000", "--json"
    )
    assert status == 0, err
    sim = json.loads(out)
    assert sim["variant"] == "tiny" and abs(sim["mean"] - sim["exact"]) < 5 * sim["std_error"]
    status, out, err = run(capsys, "yatzy", "distribution", "--rules", str(path), "--json")
    assert status == 0, err
    dist = json.loads(out)
    assert dist["mean"] == pytest.approx(sim["exact"], rel=1e-5)
    status, out, err = run(capsys, "yatzy", "targets", "--rules", str(path), "--json")
    assert status == 0, err


BAD = {
    "both": (["--rules", "yacht", "--variant", "american"], "not both"),
    "other family": (["--rules", "zilch"], "not a Yatzy-family rule file"),
    "no such shipped": (["--rules", "nosuch"], "no shipped rule file 'nosuch'"),
    "no such path": (["--rules", "nowhere/x.toml"], "no rule file at nowhere/x.toml"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_rules_are_one_line_and_status_2(case, capsys):
    argv, expected = BAD[case]
    for command in ("solve", "simulate", "targets"):
        status, out, err = run(capsys, "yatzy", command, *argv)
        assert status == 2 and out == ""
        assert err.count("\n") == 1 and expected in err and "Traceback" not in err


@pytest.mark.parametrize(
    "content, expected",
    [
        (b'extends = "yacht"\ncolour = "red"\n', "unknown key 'colour'"),
        (b"dice = 5\n[bonus\n", "not valid TOML"),
        (b"\xff\xfe\x00junk", "not UTF-8 text"),
        (b'extends = "nosuch"\n', "no shipped rule file 'nosuch'"),
    ],
)
def test_bad_files_are_one_line_and_status_2(content, expected, tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    status, out, err = run(
        capsys, "yatzy", "advise", "--rules", str(path), "dice 1 2 3 4 5 | rerolls 2"
    )
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and expected in err and "Traceback" not in err


def header(path: Path) -> dict:
    """The JSON header of a table file."""
    data = path.read_bytes()
    size = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    return json.loads(data[len(MAGIC) + 8 : len(MAGIC) + 8 + size])


def test_a_changed_file_gets_a_new_table(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    first = solve_json(capsys, "--rules", str(path), "--dtype", "float64")
    assert not first["loaded"]
    key = load_rules(path).storage_key
    assert key == first["rules"]["key"]
    # the table file is filed under the hash of the rules without their name
    assert header(Path(first["path"]))["variant"] == load_rules(path).file_key
    assert solve_json(capsys, "--rules", str(path), "--dtype", "float64")["loaded"]
    # one score changed: another hash, another table, another value
    changed = TINY.replace("score = 25", "score = 30")
    path.write_text(changed)
    second = solve_json(capsys, "--rules", str(path), "--dtype", "float64")
    assert not second["loaded"] and second["path"] != first["path"]
    assert second["rules"]["key"] != key and second["rules"]["key"].startswith("tiny-")
    assert second["value"] == pytest.approx(engine_value(changed), abs=1e-9)
    assert second["value"] > first["value"] + 0.1
    # the old table, copied where the new one lives, is refused: its header names the old key
    Path(second["path"]).write_bytes(Path(first["path"]).read_bytes())
    status, out, err = run(
        capsys, "yatzy", "solve", "--rules", str(path), "--dtype", "float64", "--json"
    )
    again = json.loads(out)
    assert status == 0 and not again["loaded"] and again["value"] == second["value"]
    assert err.count("warning") == 1 and f"expected {load_rules(path).file_key!r}" in err


def test_a_damaged_table_of_a_file_is_rebuilt(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    first = solve_json(capsys, "--rules", str(path), "--dtype", "float64")
    table = Path(first["path"])
    data = bytearray(table.read_bytes())
    data[-8] ^= 0x40
    table.write_bytes(bytes(data))
    status, out, err = run(capsys, "yatzy", "solve", "--rules", str(path), "--dtype", "float64")
    assert status == 0 and "solved" in out
    assert err.count("warning") == 1 and str(table) in err
    assert solve_json(capsys, "--rules", str(path), "--dtype", "float64")["loaded"]


def test_the_readme_example_is_the_shipped_house_file():
    readme = (ROOT / "README.md").read_text()
    start = readme.index('```toml title="examples/rules/house.toml"')
    block = readme[readme.index("\n", start) + 1 : readme.index("```", start + 3)]
    assert load_rules_text(block).storage_key == load_rules(HOUSE).storage_key
