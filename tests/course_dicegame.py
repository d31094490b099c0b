"""A stand-in for the course's ``DiceGame`` class, following its interface to the letter.

States are sorted tuples of dice values; actions are tuples of dice indices to hold
(holding every index means stick); ``get_next_states(action, state)`` returns
``(states, game_over, reward, probabilities)``; ``roll(hold)`` returns
``(reward, dice, game_over)``; ``reset()`` returns the first dice; ``score`` is the
running score.
"""

import itertools
from collections import Counter

import numpy as np


class DiceGame:
    def __init__(self, dice=3, sides=6, *, values=None, bias=None, penalty=1, seed=None):
        self._dice = dice
        self._sides = sides
        self._values = np.arange(1, sides + 1) if values is None else np.array(values)
        self._bias = np.ones(sides) / sides if bias is None else np.array(bias)
        self._penalty = penalty
        self._flip = dict(zip(self._values, self._values[::-1]))
        self._rng = np.random.default_rng(seed)
        self.actions = [c for r in range(dice + 1) for c in itertools.combinations(range(dice), r)]
        self.states = [
            tuple(s) for s in itertools.combinations_with_replacement(self._values, dice)
        ]
        self.reset()

    def reset(self):
        self._game_over = False
        self.score = self._penalty
        self._current_dice = np.zeros(self._dice, dtype=self._values.dtype)
        _, dice, _ = self.roll()
        return dice

    def final_score(self, dice):
        counts = Counter(dice)
        return sum(self._flip[v] if counts[v] > 1 else v for v in dice)

    def get_dice_state(self):
        return tuple(sorted(self._current_dice.tolist()))

    def roll(self, hold=()):
        if hold not in self.actions:
            raise ValueError(f"{hold} is not a valid action")
        if self._game_over:
            raise RuntimeError("the game is over")
        if len(hold) == self._dice:
            self._game_over = True
            reward = self.final_score(self.get_dice_state())
            self.score += reward
            return reward, self.get_dice_state(), True
        state = list(self.get_dice_state())
        for i in range(self._dice):
            if i not in hold:
                state[i] = self._rng.choice(self._values, p=self._bias)
        self._current_dice = np.array(state)
        self.score -= self._penalty
        return -self._penalty, self.get_dice_state(), False

    def get_next_states(self, action, dice_state):
        if len(action) == self._dice:
            return [None], True, self.final_score(dice_state), np.array([1.0])
        held = [dice_state[i] for i in action]
        outcomes = {}
        n = self._dice - len(action)
        for faces in itertools.product(range(self._sides), repeat=n):
            p = float(np.prod([self._bias[f] for f in faces]))
            nxt = tuple(sorted(held + [self._values[f] for f in faces]))
            outcomes[nxt] = outcomes.get(nxt, 0.0) + p
        states = list(outcomes)
        return states, False, -self._penalty, np.array([outcomes[s] for s in states])
