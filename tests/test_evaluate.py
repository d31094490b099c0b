"""Exact agent evaluation: the discounted course agent's loss, exact and sampled."""

from __future__ import annotations

import json

import pytest

import diceopt
from diceopt.cli import main
from diceopt.errors import InputError
from diceopt.games.stick.course import discounted_agent_policy
from diceopt.games.stick.position import format_hold

EXACT_LOSS = 0.374398503  # discount 0.96, threshold 0.1, 3d6 (RULES §1)


class DiscountedAgent:
    """The discounted value-iteration course agent, as an object with ``act``."""

    def __init__(self, discount: float = 0.96, threshold: float = 0.1) -> None:
        self.discount, self.threshold, self.policies = discount, threshold, {}

    def act(self, spec, rules, pos, legal):
        if rules not in self.policies:
            self.policies[rules] = discounted_agent_policy(rules, self.discount, self.threshold)
        lat = rules.lattice
        held = self.policies[rules][lat.index(pos.roll)]
        action = format_hold(rules, pos.roll, pos.roll if held is None else lat.counts[held])
        assert action in legal
        return action


def discounted(spec, rules, pos, legal):
    """The same agent as a plain callable (for --agent)."""
    return DiscountedAgent().act(spec, rules, pos, legal)


def test_the_discounted_agent_loses_exactly_its_known_loss():
    ev = diceopt.evaluate(DiscountedAgent(), "stick", games=2000, seed=1)
    assert ev.exact_loss == pytest.approx(EXACT_LOSS, abs=1e-9)
    assert ev.optimal_value == pytest.approx(13.348269628, abs=1e-9)
    assert ev.exact_value == pytest.approx(ev.optimal_value - EXACT_LOSS, abs=1e-9)
    lo, hi = ev.loss_interval
    assert lo <= EXACT_LOSS <= hi  # the sampled estimate agrees with the exact loss
    assert ev.loss_std_error < abs(ev.mean_result - ev.optimal_value) + 1  # finite, small


def test_the_optimal_agent_has_zero_loss_and_sampled_regret():
    def best(spec, rules, pos, legal):
        return spec.advise(rules, pos).best.action

    ev = diceopt.evaluate(best, "stick", games=200, seed=2, dice=2, sides=3)
    assert ev.loss == 0.0 and ev.exact_loss == 0.0


@pytest.mark.parametrize(
    "game, params, seat",
    [
        ("shutbox", {"tiles": 5}, 1),
        ("shutbox", {"tiles": 5, "players": 2}, 2),
        ("pig", {"goal": 15}, 1),
        ("pig", {"goal": 15}, 2),
    ],
)
def test_sampled_loss_agrees_with_the_exact_loss(game, params, seat):
    def first(spec, rules, pos, legal):  # a poor deterministic agent
        return legal[0]

    ev = diceopt.evaluate(first, game, games=3000, seed=5, seat=seat, **params)
    assert ev.exact_loss is not None and ev.exact_loss >= 0
    lo, hi = ev.loss_interval
    assert lo - 1e-9 <= ev.exact_loss <= hi + 1e-9, ev


def test_games_without_an_exact_path_are_sampled_only():
    def best(spec, rules, pos, legal):
        return spec.advise(rules, pos).best.action

    ev = diceopt.evaluate(best, "yatzy", games=2, seed=1, exact=None)
    assert ev.exact_value is None and "sampled only" in ev.exact_note and ev.loss == 0.0
    with pytest.raises(InputError, match="exactly"):
        diceopt.evaluate(best, "yatzy", games=1, seed=1, exact=True)


def test_an_illegal_choice_is_one_line():
    with pytest.raises(InputError, match="the agent chose 'hold 9 9'"):
        diceopt.evaluate(lambda *a: "hold 9 9", "stick", games=1, seed=1, dice=2, sides=3)


def test_the_command(capsys, monkeypatch):
    monkeypatch.syspath_prepend(__file__.rsplit("/", 1)[0])
    code = main(
        [
            "evaluate",
            "stick",
            "--agent",
            "test_evaluate:discounted",
            "--games",
            "300",
            "--seed",
            "3",
            "--json",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["exact_loss"] == pytest.approx(EXACT_LOSS, abs=1e-9)
    assert {"mean_result", "optimal_value", "loss", "loss_interval", "games"} <= set(data)
    assert (
        main(
            [
                "evaluate",
                "stick",
                "--agent",
                "test_evaluate:discounted",
                "--games",
                "50",
                "--rule",
                "dice=2",
                "--rule",
                "sides=3",
            ]
        )
        == 0
    )
    assert "expected loss" in capsys.readouterr().out
    assert main(["evaluate", "stick", "--agent", "nosuchmodule:x"]) == 2
    assert "cannot import" in capsys.readouterr().err
    assert main(["evaluate", "stick", "--agent", "test_evaluate:discounted", "--rule", "x=1"]) == 2


def test_an_agent_that_raises_is_one_line(capsys, tmp_path, monkeypatch):
    """The agent's exception: its name, the exception and where, exit 2, no traceback."""
    (tmp_path / "raising_agents.py").write_text(
        "def agent(spec, rules, position, legal):\n"
        "    raise ValueError('boom\\nagain')\n"
        "class Agent:\n"
        "    def act(self, spec, rules, position, legal):\n"
        "        return {}['x']\n"
        "class Broken:\n"
        "    def __init__(self):\n"
        "        raise RuntimeError('cannot start')\n"
    )
    (tmp_path / "broken_module.py").write_text("x = (\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    cases = {
        "raising_agents:agent": "the agent raising_agents.agent raised ValueError: boom again at ",
        "raising_agents:Agent": "the agent raising_agents.Agent.act raised KeyError: 'x' at ",
        "raising_agents:Broken": "cannot make the agent: the agent raising_agents.Broken raised "
        "RuntimeError: cannot start at ",
        "broken_module:x": "cannot import agent module 'broken_module': SyntaxError: ",
    }
    for ref, message in cases.items():
        assert main(["evaluate", "stick", "--agent", ref, "--games", "2", "--seed", "1"]) == 2
        err = capsys.readouterr().err.splitlines()[-1]
        assert err.startswith(f"diceopt: error: {message}"), err
        if "import" not in message:
            assert "raising_agents.py:" in err, err
