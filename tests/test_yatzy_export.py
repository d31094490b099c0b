"""Dataset export (games.yatzy.commands.export): determinism, the schema, values, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from diceopt.errors import InputError
from diceopt.games.yatzy.commands.export import COLUMNS, RESEARCH_EXTRA, export, play_situations
from diceopt.games.yatzy.kernel.solve import solve_table
from diceopt.games.yatzy.play.advice import advise_position, parse_position
from diceopt.games.yatzy.rulebook.compiler import load_rules
from diceopt.games.yatzy.rulebook.variants import AMERICAN, SCANDINAVIAN

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture(scope="module")
def small():
    rules = SCANDINAVIAN.reduced(
        ("ones", "sixes", "one_pair", "chance", "yatzy"), bonus_threshold=9
    )
    return solve_table(rules, dtype="float64")


def rows_of(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_same_seed_same_bytes(small, tmp_path, fmt):
    a, b, c = (tmp_path / f"{x}.{fmt}" for x in "abc")
    export(small, str(a), 300, "perturbed", seed=5, fmt=fmt)
    export(small, str(b), 300, "perturbed", seed=5, fmt=fmt)
    export(small, str(c), 300, "perturbed", seed=6, fmt=fmt)
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()


def test_rows_are_the_advice(small, tmp_path):
    path = tmp_path / "rows.jsonl"
    info = export(small, str(path), 200, "random", seed=1)
    rows = rows_of(path)
    assert info["rows"] == len(rows) == 200
    assert [list(r) for r in rows[:1]] == [list(COLUMNS)]
    assert rows[0]["game"] == 0 and rows[0]["turn"] == 1 and rows[0]["score"] == 0
    for r in rows[::7]:
        pos = parse_position(r["position"], small.rules)
        advice = advise_position(pos, small.rules, small)
        assert sorted(a.action for a in advice) == sorted(r["actions"])
        got = dict(zip(r["actions"], zip(r["values"], r["regrets"])))
        for a in advice:
            assert got[a.action] == (a.value, a.regret)
        assert r["best_action"] == advice[0].action and r["best_value"] == advice[0].value
        assert r["taken_action"] in r["actions"]
        assert r["taken_regret"] == got[r["taken_action"]][1]
        assert list(pos.dice) == r["dice"] and r["rerolls"] == pos.rerolls
    assert any(r["taken_regret"] > 0 for r in rows)  # random play errs


def test_players(small):
    optimal = play_situations(small, 400, "optimal", 2)
    assert (optimal.taken == optimal.best).all()
    never = play_situations(small, 400, "perturbed", 2, eps=0.0)
    assert (never.taken == never.best).all()
    assert (never.codes == optimal.codes).all()  # the same games: eps 0 is optimal play
    games = play_situations(small, 400, "perturbed", 2, eps=0.5)
    assert (games.taken != games.best).any()
    assert (games.score >= 0).all() and (games.turn <= 5).all()
    with pytest.raises(InputError, match="source"):
        play_situations(small, 10, "greedy", 1)


def test_american_yahtzee_bonus_rows(tmp_path):
    rules = AMERICAN.reduced(("ones", "full_house", "yahtzee", "chance"), bonus_threshold=3)
    table = solve_table(rules, dtype="float64")
    path = tmp_path / "am.parquet"
    export(table, str(path), 3000, "random", seed=4)
    data = pq.read_table(path)
    assert data.column_names == list(COLUMNS)
    assert data.schema.metadata[b"source"] == b"random"
    rows = data.to_pylist()
    assert len(rows) == 3000
    for r in rows[::97]:
        pos = parse_position(r["position"], rules)
        assert advise_position(pos, rules, table)[0].action == r["best_action"]


PRESETS = {
    "generala": ("twos", "escalera", "full", "generala", "doble_generala"),
    "kniffel": ("twos", "full_house", "large_straight", "kniffel", "chance"),
}


@pytest.mark.parametrize("theta", [0.0, -0.05])
@pytest.mark.parametrize("name", list(PRESETS))
def test_preset_rows_are_the_advice_and_the_solve(name, theta, tmp_path):
    # Generala (served scores, Doble Generala) and Kniffel (its bonus): every action's
    # value is the advice's, and every write scores its value less the solve's value of
    # the next turn-start state (certainty equivalents shift by the points alike)
    rules = load_rules(name).reduced(PRESETS[name], bonus_threshold=6)
    table = solve_table(rules, dtype="float64", theta=theta)
    path = tmp_path / "rows.jsonl"
    export(table, str(path), 600, "perturbed", seed=3)
    rows = rows_of(path)
    for r in rows[::11]:
        pos = parse_position(r["position"], rules)
        advice = advise_position(pos, rules, table)
        got = dict(zip(r["actions"], zip(r["values"], r["regrets"], strict=True), strict=True))
        assert got == {a.action: (a.value, a.regret) for a in advice}
        assert r["best_action"] == advice[0].action and r["best_value"] == advice[0].value
    T = rules.bonus_threshold
    writes = served = 0
    for a, b in zip(rows, rows[1:]):
        if a["game"] != b["game"] or a["taken_code"] >= rules.num_categories:
            continue
        value = dict(zip(a["codes"], a["values"]))[a["taken_code"]]
        nxt = float(table.values[b["mask"], int(b["yahtzee_bonus"]), min(b["upper"], T)])
        points = b["score"] - a["score"]
        assert points == pytest.approx(value - nxt, abs=1e-9)
        writes += 1
        taken = rules.categories[a["taken_code"]]
        served += a["rerolls"] == 2 and (taken, points) in (("escalera", 25), ("full", 35))
    assert writes > 100
    assert (served > 0) == (name == "generala")  # served Escalera or Full, 5 points more


def test_missing_pyarrow_names_the_extra(small, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(InputError) as info:
        export(small, str(tmp_path / "x.parquet"), 10)
    assert str(info.value) == RESEARCH_EXTRA
    export(small, str(tmp_path / "x.jsonl"), 10)  # jsonl needs no extra


def test_cli_export(web_env, tmp_path):
    out = tmp_path / "rows.parquet"
    cmd = [sys.executable, "-m", "diceopt", "yatzy", "export", "--rows", "120"]
    done = subprocess.run(
        [*cmd, "--from", "perturbed", "--seed", "3", "--json", str(out)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["rows"] == 120 and info["format"] == "parquet" and info["eps"] == 0.1
    assert pq.read_table(out).num_rows == 120
    bad = subprocess.run([*cmd, str(tmp_path / "no" / "x.jsonl")], capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "cannot write" in bad.stderr


@pytest.mark.parametrize("where", ["/proc/x.jsonl", "read-only"])
def test_unwritable_output_refused_before_the_work(small, tmp_path, monkeypatch, where):
    """A directory that cannot take a file (/proc, a read-only file system) is refused
    before any game is played, not after the work with a traceback."""
    import diceopt.games.yatzy.commands.export as export_module

    if where == "read-only":

        def refuse(*args, **kwargs):
            raise OSError(30, "Read-only file system")

        monkeypatch.setattr("tempfile.mkstemp", refuse)
        where = str(tmp_path / "x.jsonl")
    elif not __import__("os").path.isdir("/proc"):
        pytest.skip("no /proc")

    def no_work(*args, **kwargs):
        raise AssertionError("the games were played before the path was checked")

    monkeypatch.setattr(export_module, "play_situations", no_work)
    with pytest.raises(InputError, match=r"cannot write .*x\.jsonl"):
        export(small, where, 10)


def test_cli_export_to_proc_is_one_line(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "diceopt", "yatzy", "export", "--rows", "5", "/proc/x"],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "DICEOPT_CACHE": str(tmp_path)},
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("diceopt: error: cannot write /proc/x"), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
