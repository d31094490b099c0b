"""Saved rerolls (``maxi-saved`` and reduced variants): kernel against the generic engine,
the widget, the advice, positions with a saved count, the layer files and the CLI."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from diceopt.cli import main
from diceopt.engine import Objective, compile_game, solve
from diceopt.errors import InputError
from diceopt.games.yatzy.kernel.saved import saved_layout, solve_saved
from diceopt.games.yatzy.kernel.solve import solve_table
from diceopt.games.yatzy.play.advice import (
    Position,
    advise_position,
    apply_action,
    format_position,
    parse_position,
    position_to_json,
)
from diceopt.games.yatzy.play.engine_game import YatzyEngineGame
from diceopt.games.yatzy.rulebook import variants as rules_module
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.games.yatzy.rulebook.variants import AMERICAN, MAXI, SCANDINAVIAN, get_rules
from diceopt.games.yatzy.stored.saved_files import layers_dir, load_saved, solve_into

SAVED = {
    "scandinavian-3d4": SCANDINAVIAN.reduced(
        ("ones", "twos", "chance"), dice=3, sides=4, bonus_threshold=5, saved_rerolls=True
    ),
    "scandinavian-3d4-cap": SCANDINAVIAN.reduced(
        ("ones", "twos", "chance"), dice=3, sides=4, bonus_threshold=5, saved_rerolls=True,
        saved_cap=3,
    ),
    "scandinavian-5d6-lower": SCANDINAVIAN.reduced(
        ("two_pairs", "full_house", "yatzy"), saved_rerolls=True
    ),
    "scandinavian-4d6-forced": SCANDINAVIAN.reduced(
        ("threes", "one_pair", "four_of_a_kind", "chance"),
        dice=4,
        bonus_threshold=6,
        forced_order=True,
        saved_rerolls=True,
    ),
    "american-4d6-free": AMERICAN.reduced(
        ("twos", "full_house", "yahtzee"), dice=4, bonus_threshold=6, saved_rerolls=True
    ),
    "american-4d6-forced-cap": AMERICAN.reduced(
        ("twos", "small_straight", "yahtzee"),
        dice=4,
        bonus_threshold=6,
        joker="forced",
        saved_rerolls=True,
        saved_cap=2,
    ),
    "maxi-5d6": MAXI.reduced(
        ("twos", "large_straight", "five_of_a_kind"), dice=5, bonus_threshold=6, saved_rerolls=True
    ),
}  # fmt: skip


def test_maxi_saved_rules():
    rules = get_rules("maxi-saved")
    assert get_rules("Maxi Saved") is rules and rules.name == "maxi-saved"
    assert rules.saved_rerolls and rules.saved_cap is None
    assert rules.categories == MAXI.categories and rules.dice == 6
    assert [rules.max_saved(j) for j in (0, 1, 10, 19, 20)] == [0, 2, 20, 38, 40]
    assert rules.max_rerolls == 40 and MAXI.max_rerolls == 2 and MAXI.max_saved(5) == 0
    capped = SAVED["scandinavian-3d4-cap"]
    assert [capped.max_saved(j) for j in range(4)] == [0, 2, 3, 3] and capped.max_rerolls == 5
    assert rules.describe()["saved_rerolls"] is True
    with pytest.raises(InputError, match="a cap on saved rerolls needs saved_rerolls"):
        YatzyRules(saved_cap=3)
    with pytest.raises(InputError, match="the saved-rerolls cap must be 1..40"):
        YatzyRules(saved_rerolls=True, saved_cap=0)
    with pytest.raises(InputError, match="solve_saved"):
        solve_table(SAVED["scandinavian-3d4"])
    with pytest.raises(InputError, match="has no saved rerolls"):
        solve_saved(SCANDINAVIAN)


def test_maxi_saved_state_counts():
    # the figures of docs/saved-rerolls.md, from the layout the solver uses
    lay = saved_layout(get_rules("maxi-saved"))
    assert lay.solved_states == 785_612_718
    assert lay.reachable_states == 1_205_993_472
    assert max(lay.lanes) == 6_983_262 and lay.lanes[0] == 1


@pytest.mark.parametrize("name", list(SAVED))
def test_saved_kernel_agrees_with_engine(name):
    rules = SAVED[name]
    table = solve_saved(rules, dtype="float64")
    graph = compile_game(YatzyEngineGame(rules))
    sol = solve(graph, Objective())
    assert table.value == pytest.approx(sol.value, abs=1e-9)
    checked = 0
    for s, state in enumerate(graph.states):
        if state[0] == "turn":
            _, mask, flag, upper, saved = state
            assert table.value_of(mask, flag, upper, saved) == pytest.approx(
                sol.values[s], abs=1e-9
            ), state
            checked += 1
    # every reachable turn-start state (mask, flag, upper, saved) is a state of the table
    assert checked == table.layout.reachable_states


@pytest.fixture(scope="module")
def maxi5():
    """A reduced Maxi variant with saved rerolls, solved in float64."""
    return solve_saved(SAVED["maxi-5d6"], dtype="float64")


def test_saved_values_grow_with_the_pool(maxi5):
    rules = maxi5.rules
    assert maxi5.value > solve_table(rules.reduced(rules.categories, saved_rerolls=False)).value
    for j in range(1, rules.num_categories):
        vals = maxi5.layer(j)
        assert vals.shape == (maxi5.layout.lanes[j], 2 * j + 1)
        assert (np.diff(vals, axis=1) >= -1e-12).all()  # a saved reroll never hurts


def test_saved_widget_matches_table(maxi5):
    for mask, upper, saved in (
        (0, 0, 0),
        (0b001, 4, 2),
        (0b010, 0, 1),
        (0b011, 6, 4),
        (0b110, 0, 3),
    ):
        _, keep, policy, value = maxi5.widget(mask, 0, upper, 2 + saved)
        assert value == pytest.approx(maxi5.value_of(mask, 0, upper, saved), abs=1e-9)
        assert keep.shape[0] == 3 + saved and (policy[0] < 0).all()


def _dice(rules, counts):
    return " ".join(str(f + 1) for f, c in enumerate(counts) for _ in range(int(c)))


@pytest.mark.parametrize("mask, filled, upper, saved", [(0, "-", 0, 0), (0b001, "twos", 4, 2)])
def test_saved_advice_first_roll_is_the_table_value(maxi5, mask, filled, upper, saved):
    # E over the first roll of the best first action = the table's value of the state
    rules = maxi5.rules
    total = 0.0
    for r, counts in enumerate(rules.roll_counts):
        text = f"dice {_dice(rules, counts)} | rerolls 2 | saved {saved} | filled {filled}"
        pos = parse_position(f"{text} | upper {upper}", rules)
        total += rules.roll_probs[r] * advise_position(pos, rules, maxi5)[0].value
    assert total == pytest.approx(maxi5.value_of(mask, 0, upper, saved), abs=1e-9)


def test_saved_advice_uses_the_pool(maxi5):
    rules = maxi5.rules
    # rerolls 0 but two saved: keeping is still an action, and it is worth rerolling for
    # the large straight
    pos = parse_position("dice 1 1 1 1 1 | rerolls 0 | saved 2 | filled twos | upper 0", rules)
    acts = advise_position(pos, rules, maxi5)
    assert any(a.action.startswith("keep") for a in acts)
    none = parse_position("dice 1 1 1 1 1 | rerolls 0 | saved 0 | filled twos | upper 0", rules)
    assert all(a.action.startswith("score") for a in advise_position(none, rules, maxi5))
    # writing now with t rerolls left: the next turn starts with t saved (five 1s: 5
    # points in five of a kind)
    assert list(rules.roll_counts[0]) == [5, 0, 0, 0, 0, 0]
    for t in (0, 3):
        cv = maxi5.category_values(0b001, 0, 0, 0, t)
        assert cv[2] == pytest.approx(5.0 + maxi5.value_of(0b101, 0, 0, t), abs=1e-9)


def test_saved_positions_text_and_json():
    rules = get_rules("maxi-saved")
    text = "dice 1 2 3 4 5 6 | rerolls 1 | saved 3 | filled ones castle | upper 2"
    pos = parse_position(text, rules)
    assert pos.saved == 3 and pos.rerolls == 1
    assert format_position(pos, rules) == text
    data = position_to_json(pos, rules)
    assert data["saved"] == 3
    assert parse_position(json.dumps(data), rules) == pos
    assert parse_position("dice 1 2 3 4 5 6 | rerolls 2", rules).saved == 0
    assert "saved" not in format_position(
        parse_position("dice 1 2 3 4 5 | rerolls 2", SCANDINAVIAN), SCANDINAVIAN
    )


@pytest.mark.parametrize(
    "variant, text, message",
    [
        ("maxi-saved", "dice 1 2 3 4 5 6 | rerolls 2 | saved 3 | filled ones",
         "saved 3 is impossible with 1 categories filled: at most 2 rerolls"),
        ("maxi-saved", "dice 1 2 3 4 5 6 | rerolls 2 | saved 1", "at most 0 rerolls"),
        ("maxi-saved", "dice 1 2 3 4 5 6 | rerolls 2 | saved -1 | filled ones",
         "saved rerolls cannot be negative"),
        ("maxi-saved", "dice 1 2 3 4 5 6 | rerolls 2 | saved x", "saved must be a whole number"),
        ("maxi-saved", '{"dice": [1, 2, 3, 4, 5, 6], "rerolls": 2, "saved": 2}', "at most 0"),
        ("maxi", "dice 1 2 3 4 5 6 | rerolls 2 | saved 0", "variant maxi has no saved rerolls"),
        ("scandinavian", '{"dice": [1, 2, 3, 4, 5], "rerolls": 2, "saved": 1}',
         "variant scandinavian has no saved rerolls"),
    ],
)  # fmt: skip
def test_bad_saved_counts(variant, text, message):
    with pytest.raises(InputError, match=message):
        parse_position(text, get_rules(variant))


def test_saved_cap_in_positions():
    rules = SAVED["scandinavian-3d4-cap"]
    parse_position("dice 1 1 2 | rerolls 2 | saved 3 | filled ones twos | upper 3", rules)
    with pytest.raises(InputError, match="saved 4 is above the cap of 3 saved rerolls"):
        parse_position("dice 1 1 2 | rerolls 2 | saved 4 | filled ones twos | upper 3", rules)


def test_saved_apply_action():
    rules = SAVED["scandinavian-3d4-cap"]
    rng = np.random.default_rng(1)
    pos = Position((1, 1, 2), 0, (), 0, 0, False, 2)
    after, over = apply_action(pos, "keep 1 1", rules, rng)
    assert (after.rerolls, after.saved, over) == (0, 1, False)
    after, _ = apply_action(
        Position((1, 1, 2), 1, ("ones",), 2, 2, False, 2), "score chance", rules, rng
    )
    assert (after.rerolls, after.saved) == (2, 3)  # 1 + 2 left, at most the cap of 3
    with pytest.raises(InputError, match="no rerolls left"):
        apply_action(Position((1, 1, 2), 0, (), 0, 0, False, 0), "keep 1", rules, rng)


def test_layer_files_round_trip(tmp_path):
    rules = SAVED["american-4d6-free"]
    kept = solve_saved(rules, dtype="float32")
    table = solve_into(rules, tmp_path, dtype="float32", keep=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"layer0{j}.mmap" for j in range(4)]
    for j in range(4):
        assert isinstance(table.layer(j), np.ndarray)
        assert np.array_equal(table.layer(j), kept.layer(j))
    assert table.value == kept.value
    # a damaged layer is refused with one line naming the fix
    path = tmp_path / "layer02.mmap"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    table._layers[2] = None  # read it again
    with pytest.raises(InputError, match="checksum mismatch.*solve it again"):
        table.layer(2)


@pytest.fixture()
def small_maxi_saved(tmp_path, monkeypatch):
    """``maxi-saved`` replaced by a reduced six-dice Maxi variant, stored in tmp_path."""
    small = MAXI.reduced(("ones", "sixes", "chance"), bonus_threshold=8, saved_rerolls=True)
    small = replace(small, name="maxi-saved")
    monkeypatch.setitem(rules_module.VARIANT_RULES, "maxi-saved", small)
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))

    from diceopt.games.yatzy.stored import store as solved

    monkeypatch.setattr(solved, "TABLES", {})
    return small


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_saved_table_solve_then_advise(small_maxi_saved, tmp_path, capsys):
    advise = ["yatzy", "advise", "--variant", "maxi-saved", "--json"]
    pos = "dice 1 6 6 6 6 6 | rerolls 0 | saved 2 | filled ones | upper 1"
    code, out, err = run(capsys, *advise, pos)
    assert code == 2 and "not stored: solve it first with `diceopt yatzy solve" in err
    assert err.count("\n") == 1
    folder = layers_dir(get_rules("maxi-saved"), "float32")
    folder.mkdir(parents=True)
    (folder / "layer01.tbl").write_bytes(b"an older format")  # not a finished table: removed
    code, out, _ = run(capsys, "yatzy", "solve", "--variant", "maxi-saved", "--json")
    data = json.loads(out)
    assert code == 0 and data["loaded"] is False
    assert (folder / "layer00.mmap").exists() and not (folder / "layer01.tbl").exists()
    table, _ = load_saved(get_rules("maxi-saved"))
    assert data["value"] == pytest.approx(table.value)
    code, out, _ = run(capsys, "yatzy", "solve", "--variant", "maxi-saved", "--json")
    assert json.loads(out)["loaded"] is True
    code, out, _ = run(capsys, *advise, pos)
    got = json.loads(out)
    assert code == 0 and got["position"] == pos
    actions = [a["action"] for a in got["actions"]]
    assert "keep 6 6 6 6 6" in actions and "score sixes" in actions


@pytest.mark.parametrize(
    "argv, message",
    [
        (["advise", "dice 1 2 3 4 5 6 | rerolls 2 | saved 5 | filled ones", "--variant",
          "maxi-saved"], "saved 5 is impossible with 1 categories filled"),
        (["advise", "dice 1 2 3 4 5 | rerolls 2 | saved 1 | filled ones"],
         "variant scandinavian has no saved rerolls"),
        (["simulate", "--variant", "maxi-saved"], "simulate is not available for maxi-saved"),
        (["solve", "--variant", "maxi-saved", "--theta", "0.1"], "theta 0 only"),
    ],
)  # fmt: skip
def test_cli_bad_saved_input_one_line_exit_2(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    code, out, err = run(capsys, "yatzy", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("diceopt: error: ") and message in err


def test_announced_size_is_the_tables_in_its_dtype(tmp_path):
    """The size announced (and in the "solve it first" hint) is what the layers take in
    the table's dtype: float64 twice float32 (maxi-saved: 6.3 GB, not 3.1)."""
    from diceopt.games.yatzy.kernel.saved import table_bytes
    from diceopt.games.yatzy.stored.store import saved_solve_cost

    rules = SAVED["american-4d6-free"]
    for dtype in ("float32", "float64"):
        table = solve_into(rules, tmp_path / dtype, dtype=dtype)
        layers = range(rules.num_categories + 1)
        assert table_bytes(rules, dtype) == sum(table.layer(j).nbytes for j in layers)
    maxi = get_rules("maxi-saved")
    assert table_bytes(maxi, "float64") == 2 * table_bytes(maxi, "float32")
    assert "3.1 GB of disk" in saved_solve_cost(get_rules("maxi-saved"), "float32")
    assert "6.3 GB of disk" in saved_solve_cost(get_rules("maxi-saved"), "float64")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_solve_it_first_hint_is_the_exact_command(tmp_path, monkeypatch, capsys, dtype):
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    pos = "dice 1 2 3 4 5 6 | rerolls 2 | saved 0"
    code, out, err = run(
        capsys, "yatzy", "advise", pos, "--variant", "maxi-saved", "--dtype", dtype
    )
    command = "diceopt yatzy solve --variant maxi-saved"
    if dtype == "float64":
        command += " --dtype float64"
    command += f" --cache-dir {tmp_path}"  # where it is looked for (here: DICEOPT_CACHE)
    assert code == 2 and f"solve it first with `{command}` (" in err
    assert ("6.3 GB" if dtype == "float64" else "3.1 GB") in err and err.count("\n") == 1


def test_cli_solve_resumes_an_interrupted_solve(small_maxi_saved, capsys):
    """Ctrl-C keeps the layers solved so far (said on stderr); the next solve resumes from
    them (said too) and gives the table an uninterrupted solve gives; leftovers that do
    not pass their checks are removed (said too)."""
    from diceopt.games.yatzy.stored.saved_files import get_saved

    c = small_maxi_saved.num_categories
    fresh = solve_saved(small_maxi_saved)
    folder = layers_dir(get_rules("maxi-saved"), "float32")

    def stop(done: int, total: int) -> None:
        if done == 2:
            raise KeyboardInterrupt

    said: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        get_saved(get_rules("maxi-saved"), progress=stop, say=said.append)
    assert said == [
        f"kept the 3 layers solved so far in {folder} (each complete, with its checksums): "
        "solving it again resumes from them"
    ]
    (folder / "layer00.mmap.x1y2.tmp").write_bytes(b"left by a killed write")
    code, out, err = run(capsys, "yatzy", "solve", "--variant", "maxi-saved", "--json")
    assert code == 0 and json.loads(out)["value"] == pytest.approx(fresh.value, abs=1e-4)
    assert f"resuming from the layers already solved in {folder}: layers {c - 2} to {c}" in err
    assert sorted(p.name for p in folder.iterdir()) == [f"layer0{j}.mmap" for j in range(c + 1)]
    table, _ = load_saved(get_rules("maxi-saved"))
    for j in range(c + 1):
        np.testing.assert_array_equal(table.layer(j), fresh.layer(j))
    # an unfinished folder whose layers fail their checks is removed, and said so
    (folder / "layer00.mmap").unlink()
    path = folder / f"layer0{c}.mmap"
    path.write_bytes(path.read_bytes()[:-8])
    code, out, err = run(capsys, "yatzy", "solve", "--variant", "maxi-saved", "--json")
    assert code == 0 and f"removed the unfinished solve in {folder}" in err
    # --force says it removes the stored table
    code, out, err = run(capsys, "yatzy", "solve", "--variant", "maxi-saved", "--force")
    assert code == 0 and f"removed {folder} to solve it again" in err
