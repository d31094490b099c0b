"""Module paths that moved keep working for one release, with a DeprecationWarning.

The Yatzy package moved into rooms by stage (``rulebook``, ``kernel``, ``play``,
``analyses``, ``stored``, ``winning``, ``commands``). An import of an old path, such
as ``from diceopt.games.yatzy.solve import solve_table``, still works: an import hook
(a meta path finder of the standard import protocol, consulted only after the real
modules are not found; written without ``importlib.abc``, which loads ``tempfile`` and
``shutil`` at start-up) gives a module that warns once and reads each name from the
module or modules that now hold it. Names that moved within a split module are found in
the next module listed; the old module paths are removed in the next release.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
import warnings
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

_Y = "diceopt.games.yatzy"
# old module path -> the modules that now hold its names, in the order they are searched
MOVED: dict[str, tuple[str, ...]] = {
    "diceopt.games.families.category": (
        f"{_Y}.rulebook.compiler",
        f"{_Y}.commands.rule_check",
    ),
    f"{_Y}.categories": (f"{_Y}.rulebook.categories",),
    f"{_Y}.rules": (f"{_Y}.rulebook.rules", f"{_Y}.rulebook.variants"),
    f"{_Y}.saved": (f"{_Y}.kernel.saved", f"{_Y}.stored.saved_files"),
    f"{_Y}.storage": (f"{_Y}.stored.files",),
    f"{_Y}.solved": (f"{_Y}.stored.store", f"{_Y}.commands.solving"),
    f"{_Y}.tables": (f"{_Y}.stored.store", f"{_Y}.commands.requests"),
    f"{_Y}.early": (f"{_Y}.stored.store",),
    f"{_Y}.target_store": (
        f"{_Y}.winning.target_advice",
        f"{_Y}.stored.store",
        f"{_Y}.commands.targets_command",
    ),
    f"{_Y}.requested": (f"{_Y}.commands.requests", f"{_Y}.stored.store"),
    f"{_Y}.memory": (f"{_Y}.commands.requests",),
    f"{_Y}.ray_solve": (f"{_Y}.commands.on_ray",),
    f"{_Y}.commands.ray_solve": (f"{_Y}.commands.on_ray",),
    f"{_Y}.commands.ray_layers": (f"{_Y}.commands.on_ray",),
}
for _room, _names in {
    "kernel": "arrays layers plain table turn widget solve policy target_turn turn_outcomes "
    "simulation",
    "play": "engine_game moves advice",
    "analyses": "distribution score_distribution targets independent",
    "winning": "win duel versus",
    "commands": "export batch sweep codec",
}.items():
    for _name in _names.split():
        MOVED[f"{_Y}.{_name}"] = (f"{_Y}.{_room}.{_name}",)


class _MovedModule(types.ModuleType):
    """An old module path: each name read from the first new module that has it."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        for where in MOVED[self.__name__]:
            module = importlib.import_module(where)
            if hasattr(module, name):
                return getattr(module, name)
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")


class _MovedFinder:
    """Finds the old module paths of :data:`MOVED` (after every real module)."""

    def find_spec(
        self, fullname: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, cast("Loader", self))

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return _MovedModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        warnings.warn(
            f"{module.__name__} moved to {' and '.join(MOVED[module.__name__])}; the old "
            "path is removed in the next release",
            DeprecationWarning,
            stacklevel=2,
        )


def install() -> None:
    """Add the finder of old module paths to the import system (once)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
