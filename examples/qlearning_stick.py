"""Tabular Q-learning on stick or reroll through the Gymnasium environment, graded exactly.

Every ``--every`` episodes the greedy policy of the Q-table is evaluated exactly
(``diceopt.evaluate``: the policy is queried at every roll and its expected score solved,
no sampling) and its loss against optimal play is printed, in points per game:

    python examples/qlearning_stick.py --episodes 20000 --every 2000 --seed 1

Needs the research extra: pip install 'diceopt[research]'.
"""

from __future__ import annotations

import argparse
from typing import Any

import gymnasium
import numpy as np

import diceopt
import diceopt.envs  # noqa: F401  (registers the diceopt/... environments)


def greedy_agent(env: Any, q: dict[tuple[int, ...], np.ndarray]) -> Any:
    """The greedy policy of a Q-table as a diceopt agent (the first best action on ties)."""
    codec, index = env.codec, env.codec.index

    def agent(spec: Any, rules: Any, pos: Any, legal: list[str]) -> str:
        row = q.get(tuple(codec.encode(pos, 0).tolist()))
        if row is None:
            return legal[0]
        return max(legal, key=lambda a: (row[index[a]], -index[a]))

    return agent


def train(
    episodes: int, every: int, seed: int, dice: int, sides: int, alpha: float, epsilon: float
) -> list[tuple[int, float]]:
    """Q-learning (undiscounted, epsilon-greedy over legal actions); (episodes, exact loss
    in points) at every checkpoint, printed as it goes."""
    env = gymnasium.make("diceopt/Stick-v0", dice=dice, sides=sides).unwrapped
    rng = np.random.default_rng(seed)
    n = env.action_space.n
    q: dict[tuple[int, ...], np.ndarray] = {}
    out = []
    obs, info = env.reset(seed=seed)
    for episode in range(1, episodes + 1):
        obs, info = env.reset()
        done = False
        while not done:
            key = tuple(obs.tolist())
            row = q.setdefault(key, np.zeros(n))
            legal = np.flatnonzero(info["action_mask"])
            if rng.random() < epsilon:
                action = int(rng.choice(legal))
            else:
                action = int(legal[np.argmax(row[legal])])
            obs, reward, done, _, info = env.step(action)
            target = reward
            if not done:
                nxt = q.setdefault(tuple(obs.tolist()), np.zeros(n))
                target += float(nxt[np.flatnonzero(info["action_mask"])].max())
            row[action] += alpha * (target - row[action])
        if episode % every == 0 or episode == episodes:
            ev = diceopt.evaluate(
                greedy_agent(env, q), "stick", games=1, seed=0, dice=dice, sides=sides
            )
            out.append((episode, ev.exact_loss))
            print(
                f"episodes {episode}: exact loss {ev.exact_loss:.9f} points per game "
                f"(greedy value {ev.exact_value:.9f}, optimal {ev.optimal_value:.9f})",
                flush=True,
            )
    return out


def main(argv: list[str] | None = None) -> None:
    """Parse the options and train."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20000, help="training games")
    parser.add_argument("--every", type=int, default=2000, help="episodes between evaluations")
    parser.add_argument("--seed", type=int, default=1, help="random seed")
    parser.add_argument("--dice", type=int, default=3, help="number of dice")
    parser.add_argument("--sides", type=int, default=6, help="sides per die")
    parser.add_argument("--alpha", type=float, default=0.1, help="learning rate")
    parser.add_argument("--epsilon", type=float, default=0.1, help="exploration rate")
    args = parser.parse_args(argv)
    train(args.episodes, args.every, args.seed, args.dice, args.sides, args.alpha, args.epsilon)


if __name__ == "__main__":
    main()
