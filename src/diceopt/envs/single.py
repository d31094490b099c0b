"""Gymnasium environments of the one-player games, with the exact oracle in ``info``.

One class serves every registered one-player game: positions, legal actions, dice and
values all come from the game's GameSpec (``new_position``, ``advise``, ``apply``), the
encoding from its codec (``diceopt.envs.codecs``).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from diceopt.advice import Advice
from diceopt.envs.codecs import Codec, codec_for
from diceopt.errors import InputError
from diceopt.games.contract import GameSpec
from diceopt.games.registry import get_game

ILLEGAL_ACTIONS = ("first", "raise")


def game_of(game: str | GameSpec) -> GameSpec:
    """A GameSpec from a registered id, or the GameSpec itself (e.g. an unregistered one)."""
    return game if isinstance(game, GameSpec) else get_game(game)


def oracle_info(spec: GameSpec, rules: Any, codec: Codec, pos: Any, advice: Advice | None) -> dict:
    """The oracle's view of a position: notation, mask, value, best action, regrets.

    ``advice`` None means the game is over (no legal action).
    """
    n = len(codec.actions)
    regrets = np.full(n, np.inf)
    mask = np.zeros(n, dtype=np.int8)
    best, best_index, value = "", -1, 0.0
    if advice is not None:
        index = codec.index
        for a in advice.actions:
            i = index.get(a.action)
            if i is None:
                raise InputError(f"action {a.action!r} is not in {spec.id}'s fixed action list")
            mask[i] = 1
            regrets[i] = a.regret
        best, value = advice.best.action, advice.best.value
        best_index = index[best]
    return {
        "position": spec.format(rules, pos),
        "action_mask": mask,
        "value": float(value),
        "best_action": best,
        "best_action_index": int(best_index),
        "action_regrets": regrets,
    }


class DiceEnv(gymnasium.Env):
    """A one-player dice game as a Gymnasium environment, with an exact oracle.

    ``game``: a registered game id (``stick``, ``yatzy``, ``shutbox``, a plug-in) or a
    GameSpec;
    ``variant`` and keyword rules parameters as on the command line (``dice=2``,
    ``sides=3``, ``objective="shut"``, ``tiles=5``). Actions: ``Discrete(len(actions))``
    over the codec's fixed list ``self.actions`` (texts as ``advise`` writes them);
    observations: ``MultiDiscrete(nvec)`` (entries named by ``self.fields``). ``info``
    carries ``action_mask`` (int8, 1 = legal), the position's notation, its exact
    ``value`` and ``best_action`` (game units), ``action_regrets`` (per action, +inf where
    illegal), and after a step the ``regret`` of the action just taken and the
    ``optimal_action`` at that position. Rewards: points as they are scored (the
    episode's return is the final score; negated for lower-is-better games, e.g. Shut the
    Box's score objective; 1 for shutting the box under the ``shut`` objective).
    ``illegal_action``: ``"first"`` (default) plays the first legal action of the list
    instead of an illegal one (``info["illegal"]`` says so), ``"raise"`` raises InputError.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        game: str | GameSpec = "stick",
        variant: str | None = None,
        render_mode: str | None = None,
        illegal_action: str = "first",
        **params: Any,
    ) -> None:
        self.game = game_of(game)
        self.rules = self.game.rules(variant, **params)
        if self.game.players_of(self.rules) != 1:
            raise InputError(
                f"{self.game.title} with these rules is a two-player game: use its "
                "PettingZoo environment (diceopt.envs.aec_env)"
            )
        if render_mode not in (None, "ansi"):
            raise InputError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise InputError(f"illegal_action must be one of {ILLEGAL_ACTIONS}")
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.codec = codec_for(self.game, self.rules)
        self.actions = self.codec.actions
        self.fields = self.codec.fields
        self.sign = -1.0 if self.game.lower_is_better_of(self.rules) else 1.0
        self.action_space = spaces.Discrete(len(self.actions))
        self.observation_space = spaces.MultiDiscrete(np.array(self.codec.nvec, dtype=np.int64))
        self.position: Any = None
        self.advice: Advice | None = None
        self.done = True
        self.events: tuple[str, ...] = ()

    # --- helpers --------------------------------------------------------------------------
    def _points(self, pos: Any) -> float:
        got = self.codec.points(pos)
        return 0.0 if got is None else float(got)

    def _observe(self) -> np.ndarray:
        return self.codec.encode(self.position, 0).copy()

    def _info(self) -> dict[str, Any]:
        info = oracle_info(self.game, self.rules, self.codec, self.position, self.advice)
        info["events"] = self.events
        return info

    def action_masks(self) -> np.ndarray:
        """The legal actions of the current position (int8, 1 = legal; all 0 when over)."""
        if self.advice is None:
            return np.zeros(len(self.actions), dtype=np.int8)
        return self.codec.mask([a.action for a in self.advice.actions])

    # --- the Gymnasium API ----------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """A new game (dice from the seeded generator): observation and info."""
        super().reset(seed=seed)
        self.position = self.game.new_position(self.rules, self.np_random)
        self.advice = self.game.advise(self.rules, self.position)
        self.done = False
        self.events = ()
        info = self._info()
        info.update(regret=0.0, optimal_action="", action="", illegal=False)
        return self._observe(), info

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play action number ``action``: observation, reward (points), terminated,
        truncated (always False), info (the oracle's view, ``regret`` of this action)."""
        if self.done or self.advice is None:
            raise InputError("the game is over: call reset()")
        a = int(action)
        legal = {x.action: x for x in self.advice.actions}
        illegal = not (0 <= a < len(self.actions)) or self.actions[a] not in legal
        if illegal:
            if self.illegal_action == "raise":
                raise InputError(f"action {a} is not legal here; legal: {', '.join(legal)}")
            a = next(i for i, text in enumerate(self.actions) if text in legal)
        text = self.actions[a]
        taken, optimal = legal[text], self.advice.best.action
        before = self._points(self.position)
        step = self.game.apply(self.rules, self.position, text, self.np_random)
        self.position, self.events = step.position, tuple(step.events)
        if step.game_over:
            after = float(step.result if step.result is not None else 0.0)
            self.advice, self.done = None, True
        else:
            after = self._points(step.position)
            self.advice = self.game.advise(self.rules, step.position)
        info = self._info()
        info.update(
            regret=float(taken.regret), optimal_action=optimal, action=text, illegal=illegal
        )
        reward = self.sign * (after - before)
        return self._observe(), float(reward), bool(step.game_over), False, info

    def render(self) -> str | None:
        """``ansi``: the notation, the game's own display and what just happened."""
        if self.render_mode != "ansi":
            return None
        if self.position is None:
            return "(no game: call reset())\n"
        text = self.game.format(self.rules, self.position)
        lines = [text] + [s for s in self.game.show(self.rules, self.position) if s != text]
        lines += list(self.events)
        if self.done:
            lines.append("game over")
        return "\n".join(lines) + "\n"
