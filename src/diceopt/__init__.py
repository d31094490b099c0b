"""diceopt: exact optimal play for dice games, solved with the Bellman equation.

The public API is what this module offers (``PUBLIC``): ``game(name, ...)`` gives a
:class:`~diceopt.api.Game` (solve, advise, apply, simulate, distribution, analyse),
``game_ids()`` the game ids, ``evaluate`` an agent's loss, ``OptimalAgent`` the course's
optimal stick-or-reroll agent. Everything else is internal. Names load on first use.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

__version__ = "0.1.0"

# numba's OpenMP threads spin between parallel loops by default. Alone on the machine that
# costs a third of the CPU of a million simulated Yatzy games; beside other busy processes
# (two test workers on two cores) a small parallel call waits for the spinning threads
# (a 4-category distribution: 160 ms against 4 ms, measured). They sleep instead, unless
# the user says otherwise (read when numba first runs a parallel loop).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# numpy asks for transparent huge pages on its large arrays; where the kernel compacts
# memory for them on demand, the fresh arrays of a Yatzy score distribution cost seconds
# of page faults (the first from the start: 2.9-4.1 s against 2.0-2.1 s, measured; the
# solver the same either way). Small pages, unless the user says otherwise; read as numpy
# is imported, so only where diceopt is imported first (the command line always is).
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")

# numba's cached kernels removed when a file with numba code has changed: numba checks a
# kernel against its own file only, not its callees' (before any kernel module loads)
from diceopt.kernel_cache import keep_in_step  # noqa: E402

keep_in_step()

# (imported here, not on first use: the submodule diceopt.evaluate shares its name, and
# importing it anywhere would otherwise leave the module where the function belongs)
from diceopt.evaluate import evaluate  # noqa: E402
from diceopt.moved import install as _install_moved  # noqa: E402

_install_moved()  # old module paths of the Yatzy package, for one release

# public name -> the module that holds it, loaded on first use
_WHERE = {
    "Game": "diceopt.api",
    "game": "diceopt.api",
    "game_ids": "diceopt.api",
    "OptimalAgent": "diceopt.games.stick.course",
}
__all__ = ["__version__", "Game", "game", "game_ids", "evaluate", "OptimalAgent"]
PUBLIC = tuple(__all__)


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use."""
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'diceopt' has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
