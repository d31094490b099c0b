"""The registry: every game is discovered, not named.

A game module (or package) under ``diceopt.games`` that defines ``SPEC`` (a
:class:`~diceopt.games.contract.GameSpec`) is a built-in game; a game published in another
package registers through the entry-point group ``diceopt.games`` (the entry point names a
GameSpec object or a class to instantiate). The CLI, the web app, the page's script and
``make run`` read the registry (``games()``, ``get_game(id)``) and never name a game.
"""

from __future__ import annotations

import difflib
import pkgutil
import sys
from importlib import import_module

from diceopt.errors import InputError
from diceopt.games.contract import GameSpec
from diceopt.progress import notice

ENTRY_POINT_GROUP = "diceopt.games"

_GAMES: dict[str, GameSpec] | None = None


def _builtin_specs() -> list[GameSpec]:
    """``SPEC`` of every module and package directly under ``diceopt.games``."""
    import diceopt.games as package

    specs = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.name in ("registry", "contract"):
            continue
        module = import_module(f"{package.__name__}.{info.name}")
        spec = getattr(module, "SPEC", None)
        if isinstance(spec, GameSpec):
            specs.append(spec)
    return specs


def _plugin_specs() -> list[GameSpec]:
    """Games registered by other packages in the ``diceopt.games`` entry-point group."""
    from importlib.metadata import entry_points

    specs = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
            spec = obj() if isinstance(obj, type) else obj
        except Exception as exc:  # a broken plug-in must not break the tool
            notice(f"diceopt: warning: game plug-in {ep.name!r} not loaded: {exc}")
            continue
        if not isinstance(spec, GameSpec):
            notice(f"diceopt: warning: game plug-in {ep.name!r} is not a GameSpec; ignored")
            continue
        specs.append(spec)
    return specs


def games() -> dict[str, GameSpec]:
    """Every registered game by id: built-in games first (by id), then plug-ins."""
    global _GAMES
    if _GAMES is None:
        found: dict[str, GameSpec] = {}
        for spec in sorted(_builtin_specs(), key=lambda s: s.id) + _plugin_specs():
            if spec.id in found:
                notice(f"diceopt: warning: game id {spec.id!r} registered twice")
                continue
            found[spec.id] = spec
        _GAMES = found
    return _GAMES


def builtin_game(game_id: str) -> GameSpec | None:
    """The built-in game of an id, loading its module only, or None (no such built-in).

    A built-in game's module is named by its id (``diceopt.games.yatzy`` holds the game
    ``yatzy``; tests check it), so one command does not load every game, nor look for
    plug-ins (a plug-in cannot take a built-in's id: :func:`games` keeps the built-in).
    """
    from importlib.util import find_spec

    if not game_id.isidentifier():
        return None
    name = f"diceopt.games.{game_id}"
    if name not in sys.modules and find_spec(name) is None:
        return None
    spec = getattr(import_module(name), "SPEC", None)
    return spec if isinstance(spec, GameSpec) and spec.id == game_id else None


def get_game(game_id: str) -> GameSpec:
    """The game of an id (case-insensitive); InputError naming the nearest id."""
    key = (game_id or "").strip().lower()
    if _GAMES is None:  # a built-in game needs no discovery of the others
        spec = builtin_game(key)
        if spec is not None:
            return spec
    registry = games()
    if key in registry:
        return registry[key]
    near = difflib.get_close_matches(key, list(registry), n=1)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    raise InputError(f"unknown game {game_id!r}{hint} (games: {', '.join(registry)})")
