"""``diceopt.lazy``: a module whose code runs at its first use, once, also when threads
touch it together."""

from __future__ import annotations

import sys
import threading

import pytest

from diceopt.lazy import lazy_import


@pytest.fixture
def slow_module(tmp_path, monkeypatch):
    """A module that takes a while to run and counts its runs in ``RUNS``."""
    (tmp_path / "lazy_probe_runs.py").write_text("RUNS = []\n")
    (tmp_path / "lazy_probe.py").write_text(
        "import time\nimport lazy_probe_runs\nlazy_probe_runs.RUNS.append(1)\n"
        "time.sleep(0.2)\nVALUE = 42\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "lazy_probe"
    for name in ("lazy_probe", "lazy_probe_runs"):
        sys.modules.pop(name, None)


def test_the_code_runs_at_first_use_once_across_threads(slow_module):
    module = lazy_import(slow_module)
    assert "lazy_probe_runs" not in sys.modules  # nothing ran yet
    seen: list[int] = []
    threads = [threading.Thread(target=lambda: seen.append(module.VALUE)) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [42] * 6  # no thread saw the module half run
    assert sys.modules["lazy_probe_runs"].RUNS == [1]
    assert lazy_import(slow_module) is module is sys.modules[slow_module]


def test_an_import_statement_loads_it(slow_module):
    module = lazy_import(slow_module)
    import lazy_probe

    assert lazy_probe is module and lazy_probe.VALUE == 42


def test_a_missing_module_fails_at_once():
    with pytest.raises(ImportError):
        lazy_import("no_such_module_for_diceopt")
