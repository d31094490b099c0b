"""Target tables: the kernel against the generic engine, against the expected-score
policy's distribution, monotonicity, the advice and the CLI (reduced variants)."""

from __future__ import annotations

import json
from collections.abc import Hashable

import numpy as np
import pytest

from diceopt.cli import main
from diceopt.engine import Chance, Decision, Objective, Terminal, compile_game, solve
from diceopt.games.yatzy.distribution import distribution
from diceopt.games.yatzy.engine_game import YatzyEngineGame
from diceopt.games.yatzy.kernel import solve_table
from diceopt.games.yatzy.rules import AMERICAN, SCANDINAVIAN
from diceopt.games.yatzy.targets import solve_targets

REDUCED = {
    "scandinavian-3d4": SCANDINAVIAN.reduced(
        ("ones", "twos", "chance"), dice=3, sides=4, bonus_threshold=5
    ),
    "scandinavian-5d6": SCANDINAVIAN.reduced(
        ("ones", "one_pair", "full_house", "yatzy"), bonus_threshold=3
    ),
    "scandinavian-4d6-forced": SCANDINAVIAN.reduced(
        ("threes", "one_pair", "chance"), dice=4, bonus_threshold=6, forced_order=True
    ),
}
for _mode in ("free", "forced", "none"):
    REDUCED[f"american-4d6-{_mode}"] = AMERICAN.reduced(
        ("twos", "full_house", "yahtzee"), dice=4, bonus_threshold=4, joker=_mode
    )


class AtLeast:
    """The engine game of "P(points still to come >= k)": the Yatzy engine game with the
    points still needed in the state; value 1 once they are met, 0 at the end otherwise."""

    def __init__(self, rules, k: int) -> None:
        self.inner = YatzyEngineGame(rules)
        self.k = k

    def initial_state(self) -> Hashable:
        return (self.inner.initial_state(), self.k)

    def node(self, state):
        inner, need = state
        if need <= 0:
            return Terminal(1.0)
        node = self.inner.node(inner)
        if isinstance(node, Terminal):
            return Terminal(0.0)
        if isinstance(node, Chance):
            return Chance([(p, 0.0, (s, need - int(r))) for p, r, s, *_ in node.outcomes])
        return Decision([(a, 0.0, (s, need - int(r))) for a, r, s in node.actions])


@pytest.fixture(scope="module")
def targets64():
    return {name: solve_targets(r, dtype="float64") for name, r in REDUCED.items()}


@pytest.mark.parametrize("name", list(REDUCED))
def test_kernel_agrees_with_engine(name, targets64):
    rules = REDUCED[name]
    table = targets64[name]
    ks = sorted({1, rules.max_total // 3, rules.max_total // 2, rules.max_total})
    if rules.dice == 5:  # the engine graph of five dice is large: one target is enough
        ks = [rules.max_total // 3]
    for k in ks:
        game = AtLeast(rules, k)
        graph = compile_game(game)
        sol = solve(graph, Objective())
        assert table.probability(0, 0, 0, k) == pytest.approx(sol.value, abs=1e-9)
        for s, (inner, need) in enumerate(graph.states):
            if inner[0] == "turn" and need > 0 and inner[1] != (1 << rules.num_categories) - 1:
                _, mask, flag, upper = inner
                got = table.probability(mask, flag, upper, need)
                assert got == pytest.approx(sol.values[s], abs=1e-9)


@pytest.mark.parametrize("name", list(REDUCED))
def test_at_least_the_expected_policy_monotone_and_one_at_zero(name, targets64):
    rules = REDUCED[name]
    table = targets64[name]
    start = table.values[0, 0, 0]
    assert start[0] == 1.0
    assert (np.diff(start) <= 1e-12).all()
    assert start.size == rules.max_total + 1
    dist = distribution(solve_table(rules, dtype="float64"))
    tail = np.cumsum(dist.pmf[::-1])[::-1]  # P(final >= k)
    for k in range(start.size):
        expected_policy = float(tail[k]) if k < tail.size else 0.0
        assert start[k] >= expected_policy - 1e-9


def test_single_target_is_the_full_table_truncated(targets64):
    rules = REDUCED["scandinavian-5d6"]
    full = targets64["scandinavian-5d6"].values
    k = rules.max_total // 2
    part = solve_targets(rules, kmax=k, dtype="float64").values
    np.testing.assert_allclose(part, full[..., : k + 1], atol=1e-12)


def test_float32_close_to_float64(targets64):
    rules = REDUCED["american-4d6-free"]
    t32 = solve_targets(rules, dtype="float32")
    np.testing.assert_allclose(t32.values, targets64["american-4d6-free"].values, atol=1e-5)


def test_advise_target_cli(capsys):
    pos = "dice 1 3 3 5 6 | rerolls 2 | filled ones twos threes fours fives sixes one_pair "
    pos += "two_pairs three_of_a_kind four_of_a_kind small_straight | upper 63 | score 150"
    # the forced-order variant keeps the on-demand target table small (809 states)
    variant = ["--variant", "scandinavian-forced"]
    assert main(["yatzy", "advise", pos, "--target", "200", "--json", *variant]) == 0
    data = json.loads(capsys.readouterr().out)
    actions = data["actions"]
    assert actions[0]["regret"] == 0.0
    for a in actions:
        assert 0.0 <= a["value"] <= 1.0 and a["regret"] >= 0.0
        assert a["expected"] >= 150
    values = [a["value"] for a in actions]
    assert values == sorted(values, reverse=True)
    assert main(["yatzy", "advise", pos, "--target", "150", *variant]) == 0
    assert "1.000000000" in capsys.readouterr().out


@pytest.mark.parametrize("target", ["-1", "375"])
def test_bad_target(target, capsys):
    pos = "dice 1 3 3 5 6 | rerolls 2"
    assert main(["yatzy", "advise", pos, "--target", target]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "target" in err
