"""Optional dependencies: import a module of an extra, or say in one line which extra to install.

The core install needs none of them; the research interfaces (``diceopt.envs``, dataset
export) need the ``research`` extra (gymnasium, pettingzoo, pyarrow):
``pip install 'diceopt[research]'``; the Ray sweeps and layer solves
(``--ray``) need the ``cluster`` extra (ray): ``pip install 'diceopt[cluster]'``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from diceopt.errors import InputError

# which extra provides each optional top-level module
EXTRA_OF = {
    "gymnasium": "research",
    "pettingzoo": "research",
    "pyarrow": "research",
    "ray": "cluster",
    "grpc": "cluster",
}


def missing_message(module: str, extra: str | None = None) -> str:
    """The one-line message for a missing optional module (without the ``diceopt:`` prefix)."""
    extra = extra or EXTRA_OF.get(module.split(".")[0], "research")
    return (
        f"this needs the {extra} extra ({module.split('.')[0]} is not installed): "
        f"pip install 'diceopt[{extra}]'"
    )


def require(module: str, extra: str | None = None) -> ModuleType:
    """Import ``module`` (e.g. ``"gymnasium"``) of an optional extra.

    InputError with one line naming the extra (``this needs the research extra ...:
    pip install 'diceopt[research]'``) when it is not installed; the CLI prints it as
    ``diceopt: error: ...`` and exits with status 2.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(missing_message(module, extra)) from None
