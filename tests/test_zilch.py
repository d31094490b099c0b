"""Zilch as a game: the command line, advice, actions as people type them."""

import json

import numpy as np
import pytest

from diceopt.cli import main
from diceopt.errors import InputError
from diceopt.games.zilch import SPEC


@pytest.fixture(scope="module")
def rules():
    return SPEC.rules()


def test_solve_json_prints_the_published_value(capsys):
    assert main(["zilch", "solve", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert round(data["value"], 3) == 620.855
    assert data["bank_at"]["0"]["6"] is None and data["bank_at"]["2"]["4"] == 550


def test_advice_stores_the_solution_for_the_next_command(tmp_path, monkeypatch, capsys):
    """The first command solves and stores the solution under --cache-dir; the next one
    (a fresh process: the memo cleared) loads it and prints the same advice."""
    from diceopt.games.families import push_luck_solo

    args = ["zilch", "advise", "--cache-dir", str(tmp_path), "streak 1 | turn 350 | dice 1 5"]
    monkeypatch.setattr(push_luck_solo, "_SOLVED", {})
    assert main(args) == 0
    first = capsys.readouterr().out
    assert len(list((tmp_path / "zilch").glob("solo-*.tbl"))) == 1
    monkeypatch.setattr(push_luck_solo, "_SOLVED", {})
    monkeypatch.setattr(push_luck_solo, "solve_solo", lambda *a, **k: pytest.fail("solved"))
    assert main(args) == 0
    assert capsys.readouterr().out == first
    assert "set aside 1 5" in first


def test_advice_after_a_set_aside(rules):
    pos = SPEC.parse(rules, "streak 1 | turn 350 | dice 1 2 3 3 6")
    advice = SPEC.advise(rules, pos)
    assert [a.action for a in advice.actions] == ["set aside 1, roll 4", "set aside 1, bank 450"]
    # banking 450 after one zilch is worth 450 + h(0) - h(1) in long-run points
    assert advice.actions[1].value == pytest.approx(450 + 11.187403, abs=1e-5)


def test_no_bank_below_the_minimum_and_hot_dice(rules):
    pos = SPEC.parse(rules, "turn 0 | dice 1 2 3 4 6 6")
    assert all("bank" not in a.action for a in SPEC.advise(rules, pos).actions)
    pos = SPEC.parse(rules, {"dice": [2, 2, 3, 3, 4, 4], "turn": 0, "streak": 0})
    assert [a.action for a in SPEC.advise(rules, pos).actions][0] == "set aside 2 2 3 3 4 4, roll 6"


@pytest.mark.parametrize("typed", ["set aside 1, bank 450", "1 bank", "keep 1 and bank"])
def test_typed_actions(rules, typed):
    pos = SPEC.parse(rules, "streak 1 | turn 350 | dice 1 2 3 3 6")
    assert SPEC.canonical_action(rules, pos, typed) == "set aside 1, bank 450"
    step = SPEC.apply(rules, pos, typed, np.random.default_rng(0))
    assert step.game_over and step.result == pytest.approx(461.187403, abs=1e-5)


def test_a_zilch_ends_the_turn_at_its_cost(rules):
    pos = SPEC.parse(rules, "streak 2 | turn 300 | dice 2 3")
    advice = SPEC.advise(rules, pos)
    assert [a.action for a in advice.actions] == ["bust"]
    # the third zilch: -500 and the streak starts again; h(0) - h(2) = 73.697974
    assert advice.best.value == pytest.approx(-500 + 73.697974, abs=1e-5)


@pytest.mark.parametrize(
    "bad",
    [
        "turn 30 | dice 1 2 3 4 5 6",
        "dice 1 2 3 4 5 7",
        "streak 3 | turn 0 | dice 1 2 3 4 5 6",
        "turn 0 | dice 1 2 3",
    ],
)
def test_impossible_positions(rules, bad):
    with pytest.raises(InputError):
        SPEC.parse(rules, bad)


def test_a_two_player_rule_file_is_refused():
    with pytest.raises(InputError, match="two-player"):
        SPEC.rules(rules="farkle")


def test_a_zilch_carries_the_streak_to_the_next_turn(rules):
    """After a zilch the next turn starts with the streak (Step.next_turn, new_turn); a
    bank, or the streak's last zilch (its 500 paid), carries nothing."""
    rng = np.random.default_rng(0)
    bust = SPEC.apply(rules, SPEC.parse(rules, "streak 1 | turn 300 | dice 2 3"), "bust", rng)
    assert bust.game_over and bust.next_turn == {"streak": 2}
    last = SPEC.apply(rules, SPEC.parse(rules, "streak 2 | turn 300 | dice 2 3"), "bust", rng)
    assert last.next_turn is None
    bank = SPEC.parse(rules, "streak 1 | turn 350 | dice 1 2 3 3 6")
    assert SPEC.apply(rules, bank, "set aside 1, bank 450", rng).next_turn is None
    pos = SPEC.new_turn(rules, bust.next_turn, np.random.default_rng(5))
    assert (pos.streak, pos.turn, len(pos.dice)) == (2, 0, 6)
    assert SPEC.carried(rules, pos) == {"streak": 2}
    assert SPEC.carried(rules, SPEC.new_position(rules, rng)) is None
    for bad in ({"streak": 3}, {"streak": True}, {"streak": 10**44}, {}, {"streak": 1, "turn": 50}):
        with pytest.raises(InputError) as err:
            SPEC.new_turn(rules, bad, rng)
        assert "\n" not in str(err.value)


def test_a_record_may_start_a_turn_after_a_zilch(rules):
    """A turn opened with a streak replays and splits into luck and skill; a record whose
    game starts in mid-turn is still refused."""
    from diceopt.analyse import analyse_record

    pos = SPEC.parse(rules, "streak 1 | turn 0 | dice 1 2 2 2 5 5")
    step = SPEC.apply(rules, pos, "set aside 1 2 2 2 5 5, bank 400", np.random.default_rng(0))
    record = (
        "~> new game\n"
        "streak 1 | turn 0 | dice 1 2 2 2 5 5 => set aside 1 2 2 2 5 5, bank 400\n"
        "~> set aside 1 2 2 2 5 5; banked 400\n"
        f"= {step.result!r}\n"
    )
    analysis = analyse_record(SPEC, rules, record)
    assert not analysis.missing and len(analysis.splits) == 1
    split = analysis.splits[0]
    assert split.expected_start + split.luck - split.cost == pytest.approx(step.result, abs=1e-9)
    with pytest.raises(InputError, match="does not start"):
        analyse_record(
            SPEC, rules, record.replace("turn 0 | dice 1 2 2 2 5 5", "turn 50 | dice 1 2 2 2 5 5")
        )
