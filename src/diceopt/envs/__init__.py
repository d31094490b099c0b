"""Reinforcement-learning environments of every registered game, with an exact oracle.

``import diceopt.envs`` registers a Gymnasium id for every game whose default rules have
one player (``diceopt/Stick-v0``, ``diceopt/Yatzy-v0``, ``diceopt/Yahtzee-v0``,
``diceopt/ShutTheBox-v0``, plug-ins as ``diceopt/<Title>-v0``), so that
``gymnasium.make("diceopt/Yatzy-v0", variant="american")`` works; keyword arguments are
the variant and the game's rules parameters. Two-player games (Pig, Shut the Box with
two players) and duels of one-player games (a Yatzy duel) are PettingZoo AEC
environments, made by ``aec_env(id, **kwargs)`` with the ids in ``AEC_IDS``.

Needs the research extra (gymnasium, pettingzoo): ``pip install 'diceopt[research]'``.
"""

from __future__ import annotations

import re
from typing import Any

from diceopt.extras import require

gymnasium = require("gymnasium")

from diceopt.envs.codecs import Codec, codec_for, has_codec  # noqa: E402
from diceopt.envs.single import DiceEnv  # noqa: E402
from diceopt.errors import InputError  # noqa: E402
from diceopt.games.contract import GameSpec  # noqa: E402
from diceopt.games.registry import games  # noqa: E402

__all__ = [
    "AEC_IDS",
    "GYM_IDS",
    "Codec",
    "DiceEnv",
    "aec_env",
    "codec_for",
    "env_name",
    "register_all",
]

GYM_IDS: dict[str, dict[str, Any]] = {}  # Gymnasium id -> keyword arguments of DiceEnv
AEC_IDS: dict[str, tuple[str, dict[str, Any]]] = {}  # AEC id -> (kind, keyword arguments)


def env_name(spec: GameSpec) -> str:
    """The environment name of a game: its spec's ``env_name``, else its title in
    CamelCase."""
    if spec.env_name:
        return spec.env_name
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[^A-Za-z0-9]+", spec.title) if w)


def _two_player_variant(spec: GameSpec) -> str | None:
    """The first variant with two players (None if every variant has one)."""
    for variant in spec.variants:
        try:
            if spec.players_of(spec.rules(variant)) == 2:
                return variant
        except InputError:
            continue
    return None


def register_all() -> None:
    """Register every registered game's environments (called on import; idempotent)."""
    for spec in games().values():
        if not has_codec(spec):
            continue
        name = env_name(spec)
        if spec.players_of(spec.rules()) == 1:
            _register_gym(f"diceopt/{name}-v0", {"game": spec.id})
            for preset, rules in spec.env_presets.items():
                _register_gym(f"diceopt/{preset}-v0", {"game": spec.id, **rules})
            AEC_IDS.setdefault(f"diceopt/{name}Duel-v0", ("duel", {"game": spec.id}))
        if spec.players == 2:
            variant = _two_player_variant(spec)
            if variant is not None:
                kwargs = {"game": spec.id}
                if spec.players_of(spec.rules()) != 2:
                    kwargs["variant"] = variant
                    AEC_IDS.setdefault(f"diceopt/{name}TwoPlayer-v0", ("two", kwargs))
                else:
                    AEC_IDS.setdefault(f"diceopt/{name}-v0", ("two", kwargs))


def _register_gym(env_id: str, kwargs: dict[str, Any]) -> None:
    GYM_IDS[env_id] = kwargs
    if env_id not in gymnasium.registry:
        gymnasium.register(id=env_id, entry_point=DiceEnv, kwargs=kwargs)


def aec_env(env_id: str, **kwargs: Any) -> Any:
    """A PettingZoo AEC environment by id (``diceopt/Pig-v0``, ``diceopt/ShutTheBoxTwoPlayer-v0``,
    ``diceopt/YatzyDuel-v0``, ...), keyword arguments overriding the variant and rules."""
    if env_id not in AEC_IDS:
        raise InputError(f"unknown AEC environment {env_id!r}; ids: {', '.join(AEC_IDS)}")
    from diceopt.envs.multi import DuelEnv, TwoPlayerEnv

    kind, base = AEC_IDS[env_id]
    cls = DuelEnv if kind == "duel" else TwoPlayerEnv
    return cls(**{**base, **kwargs})


register_all()
