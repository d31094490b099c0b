"""One conformance suite for every registered game (built-in and plug-in).

For each game's small instance (``GameSpec.small``): the notation round-trips (text and
JSON), advice is best first with regret 0 on the best and sorted regrets, seeded random
play through ``apply`` ends within the game's bound, simulated optimal play agrees with
the solve's value, and malformed positions give one-line InputErrors.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from diceopt.errors import InputError
from diceopt.games.registry import GameSpec, games

MALFORMED = ["", "   ", "{", "{}", "[1, 2]", "nonsense 1 2 3", "| | |", '{"x": 1}', "dice x y z"]
SIMULATED_GAMES = 4000
Z = 5.0  # standard errors allowed between simulated mean and exact value


@pytest.fixture(scope="module", autouse=True)
def _cache(web_env):
    """Tables go to the session's cache directory (each full table solved once per run)."""
    return web_env


def random_game(spec: GameSpec, rules, seed: int) -> list:
    """Positions of one game with uniformly random legal actions (seeded)."""
    rng = np.random.default_rng(seed)
    pos = spec.new_position(rules, rng)
    seen = [pos]
    for _ in range(spec.play_limit):
        actions = spec.advise(rules, pos).actions
        choice = actions[int(rng.integers(len(actions)))].action
        step = spec.apply(rules, pos, choice, rng)
        if step.game_over:
            assert step.result is not None and np.isfinite(step.result)
            return seen
        pos = step.position
        seen.append(pos)
    raise AssertionError(f"{spec.id}: a random game did not end in {spec.play_limit} moves")


def check_game(spec: GameSpec) -> None:
    """Every conformance check on ``spec``'s small instance."""
    rules = spec.rules(None, **spec.small)
    assert spec.variant_id(None) in spec.variants
    assert spec.title and spec.units and spec.summary
    default = spec.rules()  # the example is a position of the default rules
    example = spec.parse(default, spec.position_example)
    assert spec.parse(default, spec.format(default, example)) == example

    for seed in (1, 2):
        for pos in random_game(spec, rules, seed):
            text = spec.format(rules, pos)
            assert spec.parse(rules, text) == pos, text
            data = spec.to_json(rules, pos)
            assert spec.parse(rules, json.loads(json.dumps(data))) == pos, data
            assert spec.parse(rules, json.dumps(data)) == pos, data
            advice = spec.advise(rules, pos)
            regrets = [a.regret for a in advice.actions]
            assert regrets[0] <= 1e-9 and regrets == sorted(regrets), text
            best = advice.best.value
            sign = -1.0 if spec.lower_is_better_of(rules) else 1.0
            for a in advice.actions:
                assert a.regret == pytest.approx(sign * (best - a.value), abs=1e-9)
            assert len({a.action for a in advice.actions}) == len(advice.actions)
            entry, _ = spec.evaluate(rules, pos, advice.actions[-1].action)
            assert entry == advice.actions[-1]

    report = spec.solve(rules)
    simulated = spec.simulate(rules, SIMULATED_GAMES, np.random.default_rng(7))
    error = simulated.data["std_error"]
    assert abs(simulated.data["mean"] - report.value) <= Z * error + 1e-9, (
        spec.id,
        simulated.data,
        report.value,
    )
    assert simulated.data["exact"] == pytest.approx(report.value, abs=1e-9)

    for bad in MALFORMED:
        with pytest.raises(InputError) as info:
            spec.parse(rules, bad)
        assert "\n" not in str(info.value) and str(info.value), (spec.id, bad)
    with pytest.raises(InputError):
        spec.parse(rules, 12345)  # neither text nor a JSON object
    with pytest.raises(InputError):
        spec.rules("no-such-variant")


@pytest.mark.parametrize("game_id", sorted(games()))
def test_every_registered_game_conforms(game_id: str) -> None:
    check_game(games()[game_id])


def test_the_registry_finds_every_builtin_game() -> None:
    assert {"stick", "yatzy"} <= set(games())
