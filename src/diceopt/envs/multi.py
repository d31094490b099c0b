"""PettingZoo AEC environments: the two-player games, and duels of one-player games.

``TwoPlayerEnv`` serves every registered two-player game (Pig, Shut the Box with two
players, plug-ins): the game's own positions, ``advise`` (the mover's win probability)
and ``apply`` decide everything, including who moves next (a player may move several
times in a row). ``DuelEnv`` seats two players at separate games of a one-player game
(a Yatzy duel: each has a sheet, turns alternate when a category is written) and each
gets the one-player oracle of their own sheet.

Agents are ``player_0`` (moves first) and ``player_1``. Observations are dicts
``{"observation": MultiDiscrete, "action_mask": int8 vector}``; rewards are paid at the
end: win 1, draw 0.5, loss 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from diceopt.envs.codecs import Codec, codec_for
from diceopt.envs.single import game_of, oracle_info
from diceopt.errors import InputError
from diceopt.extras import require
from diceopt.games.contract import GameSpec, offers
from diceopt.games.registry import games

require("pettingzoo")
from pettingzoo import AECEnv  # noqa: E402

AGENTS = ("player_0", "player_1")


def _plain(info: dict[str, Any]) -> dict[str, Any]:
    """Info with arrays as lists (PettingZoo compares infos with ``==``)."""
    return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in info.items()}


class _AECBase(AECEnv):
    """What both environments share: spaces, seeding, rewards at the end, rendering."""

    metadata = {"render_modes": ["ansi"], "name": "diceopt", "is_parallelizable": False}
    game_players = 0  # the players its rules must have
    wrong_players = ""  # the error line otherwise ({title}: the game's)

    def __init__(
        self,
        game: str | GameSpec | None = None,
        variant: str | None = None,
        render_mode: str | None = None,
        **params: Any,
    ) -> None:
        spec = self.default_game() if game is None else game_of(game)
        rules = spec.rules(variant, **params)
        if spec.players_of(rules) != self.game_players:
            raise InputError(self.wrong_players.format(title=spec.title))
        if render_mode not in (None, "ansi"):
            raise InputError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self._configure(spec, rules, codec_for(spec, rules))

    @classmethod
    def default_game(cls) -> GameSpec:
        """The game played when none is named: the featured registered game with
        environments and ``game_players`` players, else the first such game (discovered,
        not named: Pig for two players, Yatzy for a duel)."""
        fits = [
            spec
            for spec in games().values()
            if spec.players == cls.game_players and offers(spec, "env_codec")
        ]
        if not fits:
            raise InputError(f"no registered game has {cls.game_players}-player environments")
        return next((spec for spec in fits if spec.featured), fits[0])

    def _configure(self, spec: GameSpec, rules: Any, codec: Codec) -> None:
        """The environment's own set-up (spaces through ``_setup``)."""
        raise NotImplementedError

    def _setup(self, game: GameSpec, rules: Any, codec: Codec, nvec: tuple[int, ...]) -> None:
        self.game, self.rules, self.codec = game, rules, codec
        self.actions = codec.actions
        self.possible_agents = list(AGENTS)
        n = len(self.actions)
        self._action_spaces = {a: spaces.Discrete(n) for a in AGENTS}
        obs = spaces.Dict(
            {
                "observation": spaces.MultiDiscrete(np.array(nvec, dtype=np.int64)),
                "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
            }
        )
        self._observation_spaces = {a: obs for a in AGENTS}
        self.np_random, _ = seeding.np_random(None)
        self.events: tuple[str, ...] = ()
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        """``Dict(observation=MultiDiscrete, action_mask=Box(0, 1, int8))``."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``Discrete(len(actions))`` over the game's fixed action list."""
        return self._action_spaces[agent]

    def _start(self, seed: int | None) -> None:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.events = ()
        self._last = {a: {"regret": 0.0, "optimal_action": "", "action": ""} for a in AGENTS}

    def _pick(self, legal: dict[str, Any], action: Any) -> str:
        """The text of a legal action number; InputError for an illegal one."""
        a = int(action)
        if not 0 <= a < len(self.actions) or self.actions[a] not in legal:
            raise InputError(f"action {a} is not legal here; legal: {', '.join(legal)}")
        return self.actions[a]

    def step(self, action: Any) -> None:
        """The selected agent plays action number ``action`` (None once it is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        advice = self._mover_advice()
        legal = {x.action: x for x in advice.actions}
        text = self._pick(legal, action)
        self._last[agent] = {
            "regret": float(legal[text].regret),
            "optimal_action": advice.best.action,
            "action": text,
        }
        self.rewards = {a: 0.0 for a in self.agents}
        self._play(text)
        self._set_infos()
        self._accumulate_rewards()

    def _mover_advice(self) -> Any:
        """The advice of the position the mover decides in."""
        raise NotImplementedError

    def _play(self, text: str) -> None:
        """Play the mover's legal action ``text``: positions, mover, rewards at the end."""
        raise NotImplementedError

    def _finish(self, first_wins: float) -> None:
        """End the game: player_0 gets ``first_wins`` (1, 0.5, 0), player_1 the rest."""
        self.rewards = {AGENTS[0]: float(first_wins), AGENTS[1]: 1.0 - float(first_wins)}
        self.terminations = {a: True for a in self.agents}

    def render(self) -> str | None:
        """``ansi``: the position(s), whose turn it is and what just happened."""
        if self.render_mode != "ansi":
            return None
        return "\n".join([*self._render_lines(), *self.events]) + "\n"

    def close(self) -> None:
        """Nothing to release."""


class TwoPlayerEnv(_AECBase):
    """A registered two-player game as a PettingZoo AEC environment, with the oracle.

    ``game`` (default Pig), ``variant`` and keyword rules parameters as on the command line (e.g.
    ``TwoPlayerEnv("pig", goal=20)``, ``TwoPlayerEnv("shutbox", players=2, tiles=5)``).
    Observation of each agent: the codec's entries seen by that agent plus 1 if it is to
    move; ``action_mask`` is the mover's legal actions (all 0 for the other agent).
    ``infos[agent]``: the position's notation and, for the mover, the oracle (``value``:
    the mover's win probability, ``best_action``, ``action_regrets``); ``regret``,
    ``optimal_action`` and ``action`` of the agent's own last decision.
    """

    game_players = 2
    wrong_players = (
        "{title} with these rules is a one-player game: use its Gymnasium environment "
        "(diceopt.envs.DiceEnv) or a duel (diceopt.envs.DuelEnv)"
    )

    def _configure(self, spec: GameSpec, rules: Any, codec: Codec) -> None:
        self._setup(spec, rules, codec, (*codec.nvec, 2))
        self.fields = (*codec.fields, "my turn")
        self.position: Any = None
        self.advice: Any = None
        self.mover = 0

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game (dice from the seeded generator); player_0 moves first."""
        self._start(seed)
        self.position = self.game.new_position(self.rules, self.np_random)
        self.mover = self.game.to_move(self.rules, self.position)
        self.advice = self.game.advise(self.rules, self.position)
        self.agent_selection = AGENTS[self.mover]
        self._set_infos()

    def _set_infos(self) -> None:
        over = self.advice is None
        oracle = _plain(oracle_info(self.game, self.rules, self.codec, self.position, self.advice))
        text = oracle.pop("position")
        self.infos = {}
        for i, a in enumerate(AGENTS):
            if a not in self.agents:
                continue
            info: dict[str, Any] = {
                "position": text,
                "to_move": AGENTS[self.mover],
                "events": self.events,
            }
            if i == self.mover and not over:
                info.update(oracle)
            info.update(self._last[a])
            self.infos[a] = info

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The position seen by ``agent`` and its action mask."""
        i = AGENTS.index(agent)
        seen = self.codec.encode(self.position, i)
        mine = i == self.mover and self.advice is not None
        mask = np.zeros(len(self.actions), dtype=np.int8)
        if mine:
            mask = self.codec.mask([x.action for x in self.advice.actions])
        return {"observation": np.append(seen, int(mine)).astype(np.int64), "action_mask": mask}

    def _mover_advice(self) -> Any:
        return self.advice

    def _play(self, text: str) -> None:
        step = self.game.apply(self.rules, self.position, text, self.np_random)
        self.position, self.events = step.position, tuple(step.events)
        if step.game_over:
            self.advice = None
            self._finish(step.result if step.result is not None else 0.5)
        else:
            self.mover = int(step.to_move)
            self.advice = self.game.advise(self.rules, self.position)
            self.agent_selection = AGENTS[self.mover]

    def _render_lines(self) -> list[str]:
        if self.position is None:
            return ["(no game: call reset())"]
        text = self.game.format(self.rules, self.position)
        lines = [text] + [s for s in self.game.show(self.rules, self.position) if s != text]
        if self.advice is None:
            lines.append("game over")
        return lines


class DuelEnv(_AECBase):
    """Two players, each at their own game of a one-player game; turns alternate.

    A player's turn ends when the codec says so (Yatzy: a category written); a player
    whose game is over is skipped. When both games are over, the better final result
    wins (1, a draw 0.5 each). Observation of each agent: its own position's entries,
    then the opponent's, then 1 if it is to move. The oracle in ``infos`` is each
    player's one-player optimum on their own sheet (expected final score), not the
    win-optimal duel policy; ``regret`` is in points.
    """

    game_players = 1
    wrong_players = "a duel seats two players at a one-player game; {title} here has two"

    def _configure(self, spec: GameSpec, rules: Any, codec: Codec) -> None:
        self._setup(spec, rules, codec, (*codec.nvec, *codec.nvec, 2))
        self.fields = (
            *codec.fields,
            *(f"opponent's {f}" for f in codec.fields),
            "my turn",
        )
        self.sign = -1.0 if spec.lower_is_better_of(rules) else 1.0
        self.positions: list[Any] = [None, None]
        self.advices: list[Any] = [None, None]
        self.results: list[float | None] = [None, None]
        self.mover = 0

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Two new games (dice from the seeded generator); player_0 moves first."""
        self._start(seed)
        self.positions = [self.game.new_position(self.rules, self.np_random) for _ in AGENTS]
        self.advices = [self.game.advise(self.rules, p) for p in self.positions]
        self.results = [None, None]
        self.mover = 0
        self.agent_selection = AGENTS[0]
        self._set_infos()

    def _set_infos(self) -> None:
        self.infos = {}
        for i, a in enumerate(AGENTS):
            if a not in self.agents:
                continue
            oracle = _plain(
                oracle_info(self.game, self.rules, self.codec, self.positions[i], self.advices[i])
            )
            info: dict[str, Any] = {"to_move": AGENTS[self.mover], "events": self.events}
            info.update(oracle)
            info.update(self._last[a])
            self.infos[a] = info

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Own position, the opponent's, whether it is this agent's turn; its mask."""
        i = AGENTS.index(agent)
        mine = i == self.mover and self.advices[i] is not None
        obs = np.concatenate(
            [
                self.codec.encode(self.positions[i], 0),
                self.codec.encode(self.positions[1 - i], 0),
                [int(mine)],
            ]
        ).astype(np.int64)
        mask = np.zeros(len(self.actions), dtype=np.int8)
        if mine:
            mask = self.codec.mask([x.action for x in self.advices[i].actions])
        return {"observation": obs, "action_mask": mask}

    def _mover_advice(self) -> Any:
        return self.advices[self.mover]

    def _play(self, text: str) -> None:
        i = self.mover
        old = self.positions[i]
        step = self.game.apply(self.rules, old, text, self.np_random)
        self.positions[i], self.events = step.position, tuple(step.events)
        if step.game_over:
            self.advices[i] = None
            self.results[i] = float(step.result if step.result is not None else 0.0)
        else:
            self.advices[i] = self.game.advise(self.rules, step.position)
        if step.game_over or self.codec.turn_ended(old, step.position):
            if self.advices[1 - i] is not None:
                self.mover = 1 - i
        if all(a is None for a in self.advices):
            first, second = self.results
            assert first is not None and second is not None  # both games are over
            a, b = self.sign * first, self.sign * second
            self._finish(1.0 if a > b else 0.5 if a == b else 0.0)
        self.agent_selection = AGENTS[self.mover]

    def _render_lines(self) -> list[str]:
        if self.positions[0] is None:
            return ["(no game: call reset())"]
        lines = []
        for i, pos in enumerate(self.positions):
            turn = " (to move)" if i == self.mover and self.advices[i] is not None else ""
            lines.append(f"{AGENTS[i]}{turn}: {self.game.format(self.rules, pos)}")
        if all(a is None for a in self.advices):
            lines.append("game over")
        return lines
