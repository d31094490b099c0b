"""Module paths that moved into the Yatzy package's rooms still import, with a warning."""

from __future__ import annotations

import importlib
import sys
import warnings

import pytest

from diceopt.moved import MOVED


def _fresh_import(name: str):
    sys.modules.pop(name, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(name)
    return module, [w for w in caught if issubclass(w.category, DeprecationWarning)]


@pytest.mark.parametrize("old", sorted(MOVED))
def test_every_old_path_imports_with_one_deprecation_warning(old: str) -> None:
    module, warned = _fresh_import(old)
    assert len(warned) == 1
    message = str(warned[0].message)
    assert old in message and MOVED[old][0] in message
    for new in MOVED[old]:  # each named home exists
        assert importlib.import_module(new).__name__ == new
    sys.modules.pop(old, None)
    assert module.__name__ == old


def test_names_of_a_split_module_are_found_in_their_new_homes() -> None:
    from diceopt.games.yatzy.kernel.solve import solve_table
    from diceopt.games.yatzy.rulebook.compiler import load_rules
    from diceopt.games.yatzy.rulebook.rules import YatzyRules
    from diceopt.games.yatzy.rulebook.variants import get_rules
    from diceopt.games.yatzy.stored.store import get_solved

    rules_mod, _ = _fresh_import("diceopt.games.yatzy.rules")
    assert rules_mod.YatzyRules is YatzyRules and rules_mod.get_rules is get_rules
    assert _fresh_import("diceopt.games.yatzy.solve")[0].solve_table is solve_table
    assert _fresh_import("diceopt.games.families.category")[0].load_rules is load_rules
    assert _fresh_import("diceopt.games.yatzy.solved")[0].get_solved is get_solved
    with pytest.raises(AttributeError):
        _fresh_import("diceopt.games.yatzy.rules")[0].no_such_name  # noqa: B018
    for old in ("diceopt.games.yatzy.rules", "diceopt.games.yatzy.solve"):
        sys.modules.pop(old, None)


def test_current_modules_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        importlib.import_module("diceopt.games.yatzy.kernel.solve")
        importlib.import_module("diceopt.games.yatzy.stored.store")
