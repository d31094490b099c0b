"""numpy for the modules that building the command line imports, loaded on first use.

``diceopt --help`` and ``diceopt GAME --help`` import every game module they list (its
options and commands), and those modules need numpy only once they compute: ``from
diceopt.lazy import numpy as np`` there gives the numpy module whose code runs at its
first attribute access (the standard library's :class:`importlib.util.LazyLoader`), so a
help or a parse error costs no numpy import (about 50 ms of a 0.15 s budget;
``benchmarks/startup.py``). It is numpy itself, also in ``sys.modules`` (an ``import
numpy`` elsewhere gets the same module, loaded on use); where numpy is already loaded
it is simply that module. Modules that always compute import numpy as usual.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_import(name: str) -> ModuleType:
    """The module ``name``, its code run at the first attribute access (ImportError now
    if it is not installed)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"no module named {name!r}")
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


numpy = lazy_import("numpy")
