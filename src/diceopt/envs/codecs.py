"""Fixed action lists and integer encodings of positions, from each game's spec.

A :class:`Codec` (defined in ``diceopt.games.codec``) turns a game's positions and actions
into what reinforcement-learning code expects: a fixed list of action texts (the Discrete
action space) and a vector of whole numbers per position (a MultiDiscrete space). A game
offers one through the optional ``env_codec(rules) -> Codec`` hook of its GameSpec (the
built-in games do; any game written to the engine protocol, ``EngineGameSpec``, e.g. a
plug-in, gets a generic one: the position's node number in the compiled graph, the
graph's distinct actions). ``codec_for`` asks the spec.
"""

from __future__ import annotations

from typing import Any

from diceopt.errors import InputError
from diceopt.games.codec import Codec
from diceopt.games.contract import GameSpec, offers

__all__ = ["Codec", "codec_for", "has_codec"]


def codec_for(spec: GameSpec, rules: Any) -> Codec:
    """The codec of a game under ``rules`` (the spec's ``env_codec(rules)``); InputError
    if the game offers none."""
    codec = spec.env_codec(rules) if has_codec(spec) else None
    if codec is None:
        raise InputError(
            f"{spec.title} has no fixed action list for environments: give its GameSpec an "
            "env_codec(rules) method (see diceopt.games.codec)"
        )
    return codec


def has_codec(spec: GameSpec) -> bool:
    """Whether the game offers environments (its spec overrides ``env_codec``), without
    building anything."""
    return offers(spec, "env_codec")
