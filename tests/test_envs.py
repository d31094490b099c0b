"""Gymnasium and PettingZoo environments: the checkers pass and the oracle is exact."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

import diceopt.envs as envs  # noqa: E402
from diceopt.errors import InputError  # noqa: E402

PLUGIN_SRC = Path(__file__).resolve().parent.parent / "examples" / "plugin-game" / "src"

# small rules for every Gymnasium id (Yatzy has no reduced variant: the full table)
SMALL = {
    "diceopt/Stick-v0": {"dice": 2, "sides": 3},
    "diceopt/Yatzy-v0": {},
    "diceopt/Yahtzee-v0": {},
    "diceopt/ShutTheBox-v0": {"tiles": 5},
}


@pytest.fixture(scope="module", autouse=True)
def _cache(web_env):
    """Tables go to the session's cache directory (each full table solved once per run)."""
    return web_env


def quietly(fn, *args, **kwargs):
    """Run a checker with its advisory warnings silenced (failures still raise)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def test_every_one_player_game_is_registered():
    assert set(SMALL) <= set(envs.GYM_IDS)
    assert {"diceopt/Pig-v0", "diceopt/ShutTheBoxTwoPlayer-v0", "diceopt/YatzyDuel-v0"} <= set(
        envs.AEC_IDS
    )


@pytest.mark.parametrize("env_id", sorted(SMALL))
def test_check_env_passes(env_id):
    env = gymnasium.make(env_id, **SMALL[env_id])
    quietly(check_env, env.unwrapped)
    env.close()


def test_check_env_passes_for_the_shut_objective_and_a_dice_rule():
    env = gymnasium.make(
        "diceopt/ShutTheBox-v0", tiles=4, objective="shut", dice_rule="optional-one"
    )
    quietly(check_env, env.unwrapped)


def test_check_env_passes_for_an_engine_plugin_game(monkeypatch):
    monkeypatch.syspath_prepend(str(PLUGIN_SRC))
    monkeypatch.delitem(sys.modules, "diceopt_bust", raising=False)
    from diceopt_bust import SPEC

    env = envs.DiceEnv(SPEC, limit=10)
    quietly(check_env, env)
    obs, info = env.reset(seed=3)
    assert env.actions == ("stop", "roll") and obs.shape == (1,)


def walk(env, seed, choose):
    """One episode; at every step the info's oracle is compared with spec.advise."""
    spec, rules = env.game, env.rules
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, steps = 0.0, 0
    while True:
        pos = env.position
        advice = spec.advise(rules, pos)
        legal = [a.action for a in advice.actions]
        assert info["position"] == spec.format(rules, pos)
        assert info["best_action"] == advice.best.action
        assert info["value"] == pytest.approx(advice.best.value, abs=1e-12)
        mask = info["action_mask"]
        assert sorted(env.actions[i] for i in np.flatnonzero(mask)) == sorted(legal)
        assert (env.action_masks() == mask).all()
        assert obs in env.observation_space
        action = choose(env, legal, rng)
        obs, reward, terminated, truncated, info = env.step(env.actions.index(action))
        entry = advice.find(action)
        assert info["regret"] == pytest.approx(entry.regret, abs=1e-12)
        assert info["optimal_action"] == advice.best.action and info["action"] == action
        assert not truncated and not info["illegal"]
        total += reward
        steps += 1
        if terminated:
            assert obs in env.observation_space and not info["action_mask"].any()
            return total, steps


def random_choice(env, legal, rng):
    return legal[int(rng.integers(len(legal)))]


@pytest.mark.parametrize(
    "env_id, kwargs",
    [
        ("diceopt/Stick-v0", {}),
        ("diceopt/Stick-v0", {"dice": 4, "sides": 4, "penalty": 0.5}),
        ("diceopt/ShutTheBox-v0", {}),
        ("diceopt/Yatzy-v0", {}),
    ],
)
def test_the_oracle_in_info_is_spec_advise(env_id, kwargs):
    env = gymnasium.make(env_id, **kwargs).unwrapped
    for seed in (1, 2):
        walk(env, seed, random_choice)


def test_rewards_sum_to_the_final_score():
    env = envs.DiceEnv("stick")
    for seed in range(5):
        _, info = env.reset(seed=seed)
        total, done, first = 0.0, False, True
        while not done:  # reroll everything once, then play the oracle's action
            action = env.actions.index("hold -") if first else info["best_action_index"]
            _, reward, done, _, info = env.step(action)
            total, first = total + reward, False
        assert total == pytest.approx(env.position.points) and total <= 18 - 1
    env = envs.DiceEnv("shutbox", tiles=5)
    total, _ = walk(env, 4, random_choice)
    assert total == -env.game.rules(None, tiles=5).total(env.position.open)


def test_optimal_play_has_no_regret_and_matches_the_value():
    env = envs.DiceEnv("stick", dice=2, sides=3)
    returns = []
    for seed in range(300):
        total, _ = walk(env, seed, lambda e, legal, rng: legal[0])
        returns.append(total)
    exact = env.game.solve(env.rules).value
    se = np.std(returns) / np.sqrt(len(returns))
    assert abs(np.mean(returns) - exact) < 5 * se


def test_seeded_reset_is_reproducible_and_render_shows_the_position():
    env = gymnasium.make("diceopt/Yatzy-v0", render_mode="ansi")
    a, info_a = env.reset(seed=11)
    b, info_b = env.reset(seed=11)
    assert (a == b).all() and info_a["position"] == info_b["position"]
    text = env.render()
    assert info_a["position"] in text and "rerolls left 2" in text


def test_illegal_actions():
    env = envs.DiceEnv("stick", dice=2, sides=3)
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, _, _, _, after = env.step(illegal)
    assert after["illegal"] and after["action"] == "stick"  # the first legal action
    strict = envs.DiceEnv("stick", dice=2, sides=3, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(InputError, match="not legal"):
        strict.step(illegal)


def test_two_player_rules_are_refused_by_gymnasium():
    with pytest.raises(InputError, match="PettingZoo"):
        envs.DiceEnv("shutbox", players=2)
    with pytest.raises(InputError, match="one-player"):
        envs.aec_env("diceopt/Pig-v0", game="stick")


# --- PettingZoo ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "env_id, kwargs",
    [
        ("diceopt/Pig-v0", {"goal": 20}),
        ("diceopt/ShutTheBoxTwoPlayer-v0", {"tiles": 5}),
        ("diceopt/YatzyDuel-v0", {}),
        ("diceopt/StickDuel-v0", {"dice": 2, "sides": 3}),
    ],
)
def test_api_test_passes(env_id, kwargs):
    env = envs.aec_env(env_id, render_mode="ansi", **kwargs)
    quietly(api_test, env, num_cycles=300)
    env.reset(seed=1)
    assert env.render().strip()


def play_aec(env, seed, choose):
    """One seeded game; every decision's regret checked against spec.advise."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        rewards[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        i = env.possible_agents.index(agent)
        pos = env.position if hasattr(env, "position") else env.positions[i]
        advice = env.game.advise(env.rules, pos)
        legal = [a.action for a in advice.actions]
        assert sorted(env.actions[k] for k in np.flatnonzero(obs["action_mask"])) == sorted(legal)
        assert info["best_action"] == advice.best.action
        action = choose(env, legal, rng)
        env.step(env.actions.index(action))
        if agent in env.infos:
            assert env.infos[agent]["regret"] == pytest.approx(advice.find(action).regret)
            assert env.infos[agent]["optimal_action"] == advice.best.action
    return rewards


@pytest.mark.parametrize(
    "env_id, kwargs",
    [
        ("diceopt/Pig-v0", {"goal": 20}),
        ("diceopt/ShutTheBoxTwoPlayer-v0", {"tiles": 5}),
        ("diceopt/YatzyDuel-v0", {}),
    ],
)
def test_aec_oracle_and_rewards(env_id, kwargs):
    env = envs.aec_env(env_id, **kwargs)
    for seed in (1, 2, 3):
        rewards = play_aec(env, seed, random_choice)
        assert sorted(rewards.values()) in ([0.0, 1.0], [0.5, 0.5])


def test_pig_optimal_self_play_matches_the_first_player_value():
    env = envs.aec_env("diceopt/Pig-v0", goal=10)
    wins = [play_aec(env, s, lambda e, legal, rng: legal[0])["player_0"] for s in range(400)]
    exact = env.game.solve(env.rules).value
    se = np.std(wins) / np.sqrt(len(wins))
    assert abs(np.mean(wins) - exact) < 5 * se
