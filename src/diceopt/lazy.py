"""numpy for the modules that building the command line imports, loaded on first use.

``diceopt --help`` and ``diceopt GAME --help`` import every game module they list (its
options and commands), and those modules need numpy only once they compute: ``from
diceopt.lazy import numpy as np`` there gives the numpy module, in ``sys.modules`` as
usual, whose code runs at the first access of any of its attributes (as with the
standard library's :class:`importlib.util.LazyLoader`, plus a lock: a thread that
touches it while another loads it waits for the load). A help or a parse error then
costs no numpy import (about 50 ms of a 0.15 s budget; ``benchmarks/startup.py``).
Any ``import numpy`` elsewhere loads it at once; where numpy is already loaded this is
simply that module. Modules that always compute import numpy as usual.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from types import ModuleType
from typing import TYPE_CHECKING, Any

_LOCK = threading.RLock()
_LOADING: set[str] = set()  # modules whose code runs now (in the thread holding _LOCK)


class _Deferred(ModuleType):
    """A module whose code has not run yet: it runs at the first attribute access."""

    def __getattribute__(self, attr: str) -> Any:
        if type(self) is _Deferred:
            with _LOCK:
                name = ModuleType.__getattribute__(self, "__name__")
                if type(self) is _Deferred and name not in _LOADING:
                    _LOADING.add(name)  # its own code reads its attributes: no reload
                    try:
                        ModuleType.__getattribute__(self, "__spec__").loader.exec_module(self)
                        # now a plain module (a class switch the type checker cannot follow)
                        self.__class__ = ModuleType  # type: ignore[assignment]
                    finally:
                        _LOADING.discard(name)
        return ModuleType.__getattribute__(self, attr)


def lazy_import(name: str) -> ModuleType:
    """The module ``name`` (a package or module of Python source), its code run at the
    first attribute access; ImportError now if it is not installed."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
        raise ImportError(f"no module named {name!r}")
    module = importlib.util.module_from_spec(spec)
    module.__class__ = _Deferred
    sys.modules[name] = module
    return module


if TYPE_CHECKING:  # a type checker sees numpy itself (what the first access gives)
    import numpy
else:
    numpy = lazy_import("numpy")
