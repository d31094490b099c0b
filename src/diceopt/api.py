"""The public Python API: one object per game and rules, ``diceopt.game(name, ...)``.

A :class:`Game` offers what the command line offers, as data: ``solve``, ``advise``,
``apply``, ``simulate``, ``distribution`` and ``analyse``, with positions as the game's
text (or JSON) notation. Everything else in the package is internal: it may move
between releases. Values are in the game's units (``Game.units``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from diceopt.advice import Advice
from diceopt.errors import InputError
from diceopt.games.contract import GameSpec, Report, Step
from diceopt.lazy import numpy as np


@dataclass(frozen=True)
class Game:
    """A game under given rules (``diceopt.game``); positions are the game's notation."""

    spec: GameSpec
    rules: Any

    @property
    def id(self) -> str:
        """The game's id (``yatzy``)."""
        return self.spec.id

    @property
    def title(self) -> str:
        """The game's name (``Yatzy``)."""
        return self.spec.title

    @property
    def units(self) -> str:
        """What a value means (points, or the probability that the player to move wins)."""
        return self.spec.units_of(self.rules)

    def solve(self, **options: Any) -> Report:
        """The optimal value from the start (``Report.value``), solved or loaded once."""
        return self.spec.solve(self.rules, **options)

    def new_position(self, seed: int | None = None) -> str:
        """A game's first position (its first roll drawn with ``seed``), as text."""
        pos = self.spec.new_position(self.rules, np.random.default_rng(seed))
        return self.spec.format(self.rules, pos)

    def advise(self, position: str | Mapping[str, Any], **options: Any) -> Advice:
        """Every legal action of a position with its value and regret, best first."""
        return self.spec.advise(self.rules, self.spec.parse(self.rules, position), **options)

    def apply(
        self, position: str | Mapping[str, Any], action: str, seed: int | None = None
    ) -> Step:
        """Play ``action`` (the next dice drawn with ``seed``): the next position and
        whether the game is over (``Step.position`` is the game's position object;
        ``format`` writes it)."""
        pos = self.spec.parse(self.rules, position)
        return self.spec.apply(self.rules, pos, action, np.random.default_rng(seed))

    def format(self, position: Any) -> str:
        """A position object (``Step.position``) as text."""
        return self.spec.format(self.rules, position)

    def simulate(self, games: int = 1000, seed: int | None = None, **options: Any) -> Report:
        """``games`` seeded games of optimal play (mean, standard error, the exact value)."""
        if not isinstance(games, int) or not 1 <= games <= 10**8:
            raise InputError(f"games must be 1 to 100,000,000, got {games!r}")
        return self.spec.simulate(self.rules, games, np.random.default_rng(seed), **options)

    def distribution(self, position: str | Mapping[str, Any]) -> dict[str, Any]:
        """The exact distribution of the final score from a position (JSON-ready data);
        InputError where the game has none."""
        answer = self.spec.distribution(self.rules, self.spec.parse(self.rules, position))
        if answer is None:
            raise InputError(f"{self.title} has no score distribution")
        return answer

    def analyse(self, record: str) -> Any:
        """The luck/skill split of a played game's record (``simulate --record``'s
        format), replayed through the rules: ``diceopt.analyse.Analysis``."""
        from diceopt.analyse import analyse_record

        return analyse_record(self.spec, self.rules, record)


def game(name: str, variant: str | None = None, **params: Any) -> Game:
    """The game ``name`` (``diceopt.game_ids()`` lists them) under a variant and rules
    parameters, as the command line takes them (``rules="yacht"``, ``goal=2000``)."""
    from diceopt.games.registry import get_game

    spec = get_game(name)
    return Game(spec, spec.rules(variant, **params))


def game_ids() -> list[str]:
    """The ids of every registered game (built-in and plug-ins)."""
    from diceopt.games.registry import games as registered

    return list(registered())
