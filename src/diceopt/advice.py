"""One advice interface for every game, used by the CLI's ``advise --json`` and the web API.

Each game module listed in ``GAMES`` provides:

- ``VARIANTS``: dict of variant id -> one-line description (first one is the default);
- ``POSITION_EXAMPLE``: a position in the game's text notation;
- ``advise(position: str, variant: str | None = None) -> list[ActionAdvice]``: every
  legal action in the position, best first, raising InputError on a malformed or
  impossible position. Solved tables are cached in the module, so repeated calls are
  fast;
- ``apply(position: str, action: str, variant: str | None = None, rng=None)
  -> tuple[str, bool]``: the position after playing ``action`` (dice rolled with the
  numpy Generator ``rng`` where the rules roll) and whether the game is over.
"""

from __future__ import annotations

import importlib
from dataclasses import asdict, dataclass
from types import ModuleType
from typing import Any

import numpy as np

from diceopt.errors import InputError

GAMES = {
    "stick": "diceopt.games.stick",
    "yatzy": "diceopt.games.yatzy",
    "shutbox": "diceopt.games.shutbox",
    "pig": "diceopt.games.pig",
}


@dataclass(frozen=True)
class ActionAdvice:
    """One action in a position.

    ``value``: what the action is worth in the game's objective units (expected final
    score, or win probability), ``regret``: how much worse it is than the best action
    (>= 0, same units; 0 for the best).
    """

    action: str
    value: float
    regret: float

    def to_json(self) -> dict[str, Any]:
        """Plain data for JSON."""
        return asdict(self)


def game_module(game: str) -> ModuleType:
    """The module of a game id; InputError for an unknown id."""
    if game not in GAMES:
        raise InputError(f"unknown game {game!r}; choose from {', '.join(GAMES)}")
    return importlib.import_module(GAMES[game])


def advise(game: str, position: str, variant: str | None = None) -> list[ActionAdvice]:
    """Every legal action of ``position`` in ``game``, best first."""
    return game_module(game).advise(position, variant=variant)


def apply(
    game: str,
    position: str,
    action: str,
    variant: str | None = None,
    rng: np.random.Generator | None = None,
) -> tuple[str, bool]:
    """Position after ``action`` and whether the game is over."""
    return game_module(game).apply(position, " ".join(action.split()), variant=variant, rng=rng)


def evaluate(game: str, position: str, action: str, variant: str | None = None) -> ActionAdvice:
    """The advice entry of one played action (its value and regret)."""
    wanted = " ".join(action.split())
    options = advise(game, position, variant)
    for option in options:
        if option.action == wanted:
            return option
    legal = "; ".join(o.action for o in options[:12])
    raise InputError(f"{action!r} is not a legal action here; legal actions include: {legal}")
