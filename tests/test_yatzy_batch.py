"""The batch API (games.yatzy.commands.batch) against the advice, one situation at a time."""

from __future__ import annotations

import numpy as np
import pytest

from diceopt.errors import InputError
from diceopt.games.yatzy.commands.batch import (
    action_names,
    num_codes,
    option_values,
    roll_dice,
    roll_index,
    state_values,
)
from diceopt.games.yatzy.kernel.solve import solve_table
from diceopt.games.yatzy.kernel.table import YatzyTable
from diceopt.games.yatzy.play.advice import Position, advise_position
from diceopt.games.yatzy.rulebook.compiler import load_rules
from diceopt.games.yatzy.rulebook.variants import AMERICAN, SCANDINAVIAN, VARIANT_RULES

REDUCED = [
    SCANDINAVIAN.reduced(("ones", "twos", "three_of_a_kind", "yatzy"), bonus_threshold=6),
    SCANDINAVIAN.reduced(("twos", "small_straight", "full_house", "chance"), forced_order=True),
    VARIANT_RULES["scandinavian-accepts"].reduced(("two_pairs", "full_house", "yatzy")),
    AMERICAN.reduced(("ones", "full_house", "large_straight", "yahtzee"), bonus_threshold=3),
    VARIANT_RULES["american-forced-joker"].reduced(("sixes", "full_house", "yahtzee", "chance")),
    SCANDINAVIAN.reduced(("ones", "twos", "threes", "chance"), dice=3, sides=4),
]


def random_situations(table: YatzyTable, n: int, seed: int) -> tuple[np.ndarray, ...]:
    """n situations on reachable turn-start states (not the end), random rolls and rerolls."""
    rules = table.rules
    rng = np.random.default_rng(seed)
    states = np.argwhere(~np.isnan(table.values))
    states = states[states[:, 0] != (1 << rules.num_categories) - 1]
    pick = states[rng.integers(0, len(states), n)]
    roll = rng.integers(0, len(rules.roll_counts), n)
    rerolls = rng.integers(0, 3, n)
    return pick[:, 0], pick[:, 1], pick[:, 2], roll, rerolls


def check_against_advice(table: YatzyTable, n: int, seed: int) -> None:
    """Every action's value and regret, and the best action, equal the advice's."""
    rules = table.rules
    mask, flag, upper, roll, rerolls = random_situations(table, n, seed)
    out = option_values(table, mask, flag, upper, roll, rerolls)
    names = action_names(rules)
    dice = roll_dice(rules, roll)
    for i in range(n):
        filled = tuple(c for j, c in enumerate(rules.categories) if mask[i] >> j & 1)
        pos = Position(
            tuple(int(d) for d in dice[i]),
            int(rerolls[i]),
            filled,
            int(upper[i]),
            None,
            bool(flag[i]),
        )
        advice = advise_position(pos, rules, table)
        row = {
            names[c]: (v, g)
            for c, v, g in zip(out.codes[i], out.values[i], out.regret[i])
            if c >= 0
        }
        assert out.count[i] == len(advice) == len(row)
        for a in advice:
            assert row[a.action] == (a.value, a.regret), (i, a)
        assert names[out.best[i]] == advice[0].action
        assert out.best_value[i] == advice[0].value
        codes = out.codes[i, : out.count[i]]
        assert (np.diff(codes) > 0).all()
        assert (out.codes[i, out.count[i] :] == -1).all()


@pytest.mark.parametrize("rules", REDUCED, ids=lambda r: "-".join(r.categories))
def test_reduced_variants_match_the_advice(rules):
    table = solve_table(rules, dtype="float64")
    check_against_advice(table, 150, seed=len(rules.categories))


def test_risk_sensitive_table_matches_the_advice():
    rules = SCANDINAVIAN.reduced(("threes", "one_pair", "yatzy"), bonus_threshold=6)
    check_against_advice(solve_table(rules, dtype="float64", theta=-0.05), 100, seed=3)


@pytest.mark.parametrize("variant", ["scandinavian", "american"])
def test_full_tables_match_the_advice(web_env, variant):
    from diceopt.games.yatzy import get_solved

    table = get_solved(variant)
    check_against_advice(table, 60, seed=7)
    mask, flag, upper, _, _ = random_situations(table, 500, seed=8)
    got = state_values(table, mask, flag, upper)
    assert got.dtype == np.float64
    assert np.array_equal(got, table.values[mask, flag, upper].astype(np.float64))


def test_encoding_and_dense_layout():
    rules = SCANDINAVIAN.reduced(("ones", "chance"), bonus_threshold=3)
    table = solve_table(rules, dtype="float64")
    names = action_names(rules)
    assert len(names) == num_codes(rules) == 2 + 210
    assert names[:4] == ("score ones", "score chance", "keep -", "keep 1")
    dice = np.array([[3, 1, 3, 6, 5], [6, 6, 6, 6, 6]])
    roll = roll_index(rules, dice)
    assert (roll_dice(rules, roll) == np.sort(dice, axis=1)).all()
    out = option_values(table, [0, 1], [0, 0], [0, 0], roll, [2, 0])
    dense = out.dense()
    assert dense.shape == (2, num_codes(rules))
    assert np.isnan(dense[1, 2:]).all()  # no rerolls left: no keeps
    assert np.isnan(dense[1, 0]) and dense[1, 1] == 30  # ones is filled in mask 1
    assert out.best[1] == 1 and out.count[0] == 2 + 23  # 1 3 3 5 6: 23 proper keeps
    assert (np.nan_to_num(out.dense("regret"), nan=0.0) >= 0).all()


def test_bad_situations_name_the_first_one():
    rules = SCANDINAVIAN.reduced(("ones", "chance"), bonus_threshold=3)
    table = solve_table(rules, dtype="float64")
    with pytest.raises(InputError, match="situation 1: .*cannot occur"):
        state_values(table, [0, 0], [0, 0], [0, 2])  # no upper points with ones open
    with pytest.raises(InputError, match="situation 0: the game is over"):
        option_values(table, [3], [0], [0], [0], [0])
    with pytest.raises(InputError, match="situation 1: rerolls"):
        option_values(table, [0, 0], [0, 0], [0, 0], [0, 0], [0, 3])
    with pytest.raises(InputError, match="a die shows"):
        roll_index(rules, np.array([[0, 1, 2, 3, 4]]))


def test_situations_must_be_whole_numbers_of_one_length():
    rules = SCANDINAVIAN.reduced(("ones", "chance"), bonus_threshold=3)
    table = solve_table(rules, dtype="float64")
    zeros = [0, 0]
    with pytest.raises(InputError, match="situation 1: mask must be a whole number, got 0.5"):
        option_values(table, [0, 0.5], zeros, zeros, zeros, zeros)
    with pytest.raises(InputError, match="situation 0: upper must be a whole number, got nan"):
        state_values(table, [0], [0], [np.nan])
    with pytest.raises(InputError, match="situation 0: roll must be a whole number, got inf"):
        option_values(table, [0], [0], [0], [np.inf], [2])
    with pytest.raises(InputError, match="roll must be whole numbers"):
        option_values(table, [0], [0], [0], [10**44], [2])  # beyond int64: an object array
    with pytest.raises(InputError, match="flag must be whole numbers"):
        state_values(table, [0], ["0"], [0])
    with pytest.raises(InputError, match="differ in length: mask \\(2,\\), .* roll \\(3,\\)"):
        option_values(table, zeros, zeros, zeros, [0, 1, 2], zeros)
    with pytest.raises(InputError, match="must be 1-D"):
        option_values(table, [[0]], [[0]], [[0]], [[0]], [[2]])
    with pytest.raises(InputError, match="situation 0: dice must be a whole number, got 1.5"):
        roll_index(rules, np.array([[1.5, 2, 3, 4, 5]]))
    with pytest.raises(InputError, match="situation 1: roll index out of range"):
        roll_dice(rules, [0, -1])  # not the last roll counted from the end
    with pytest.raises(InputError, match="situation 0: roll index out of range"):
        roll_dice(rules, [len(rules.roll_counts)])
    # whole numbers in a float array are the same situations
    as_int = option_values(table, [0, 1], [0, 0], [0, 0], [3, 7], [2, 0])
    as_float = option_values(table, [0.0, 1.0], [0.0, 0.0], [0, 0], [3.0, 7.0], [2.0, 0.0])
    assert np.array_equal(as_int.codes, as_float.codes)
    assert np.array_equal(as_int.values, as_float.values, equal_nan=True)
    assert (
        roll_index(rules, np.array([[6.0, 1, 3, 3, 5]])) == roll_index(rules, [[1, 3, 3, 5, 6]])
    ).all()


# --- Generala and Kniffel: served scores, Doble Generala, the Kniffel bonus ------------------

PRESETS = {
    "generala": ("twos", "escalera", "full", "generala", "doble_generala"),
    "kniffel": ("twos", "full_house", "large_straight", "kniffel", "chance"),
}


def preset_table(name: str, theta: float = 0.0) -> YatzyTable:
    rules = load_rules(name).reduced(PRESETS[name], bonus_threshold=6)
    return solve_table(rules, dtype="float64", theta=theta)


@pytest.mark.parametrize("theta", [0.0, -0.1, 0.05])
@pytest.mark.parametrize("name", list(PRESETS))
def test_presets_match_the_advice(name, theta):
    check_against_advice(preset_table(name, theta), 150, seed=11)


@pytest.mark.parametrize("theta", [0.0, -0.1, 0.05])
@pytest.mark.parametrize("name", list(PRESETS))
def test_presets_first_roll_is_the_solve(name, theta):
    # every roll of the first roll (two rerolls left: served scores apply) at sampled
    # states: the average of the best values (theta != 0: their certainty equivalent) is
    # the solve's value of the state
    table = preset_table(name, theta)
    rules = table.rules
    p = rules.roll_probs
    R = p.size
    mask, flag, upper, _, _ = random_situations(table, 25, seed=2)
    for m, f, u in zip(mask, flag, upper, strict=True):
        out = option_values(table, np.full(R, m), np.full(R, f), np.full(R, u), np.arange(R), 2)
        best = out.best_value
        if theta == 0.0:
            got = float(p @ best)
        else:
            top = best.max() if theta > 0 else best.min()
            got = top + np.log(p @ np.exp(theta * (best - top))) / theta
        assert got == pytest.approx(float(table.values[m, f, u]), abs=1e-9)


def test_served_escalera_scores_five_more_on_the_first_roll():
    table = preset_table("generala")
    rules = table.rules
    roll = roll_index(rules, np.array([[2, 3, 4, 5, 6]]))
    esc = rules.categories.index("escalera")
    first, later = (option_values(table, [0], [0], [0], roll, [t]).dense()[0] for t in (2, 1))
    assert first[esc] - later[esc] == pytest.approx(5.0, abs=1e-12)
    assert first[esc] == pytest.approx(25.0 + float(table.values[1 << esc, 0, 0]), abs=1e-12)
