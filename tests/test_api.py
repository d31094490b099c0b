"""The public Python API (``import diceopt``): its names, a Game for every registered
game against the game's own contract, the runnable example of the docs, and names that
moved warning for one release."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import diceopt
from diceopt.errors import InputError
from diceopt.games.registry import games

DOCS = Path(__file__).resolve().parent.parent / "docs"
PUBLIC = ["__version__", "Game", "game", "game_ids", "evaluate", "OptimalAgent"]


@pytest.fixture(scope="module", autouse=True)
def _cache(web_env):
    """Tables go to the session's cache directory (each solved once per run)."""
    return web_env


def test_the_public_names_are_the_list():
    assert list(diceopt.PUBLIC) == PUBLIC
    for name in PUBLIC:
        assert getattr(diceopt, name) is not None, name
    with pytest.raises(AttributeError):
        diceopt.no_such_name  # noqa: B018
    assert diceopt.game_ids() == list(games())


@pytest.mark.parametrize("game_id", sorted(games()))
def test_a_game_answers_as_its_contract(game_id):
    spec = games()[game_id]
    g = diceopt.game(game_id, **spec.small)
    rules = spec.rules(None, **spec.small)
    assert g.rules == rules and g.id == spec.id and g.units == spec.units_of(rules)
    assert g.solve().value == spec.solve(rules).value
    position = g.new_position(seed=3)
    pos = spec.new_position(rules, np.random.default_rng(3))
    assert position == spec.format(rules, pos)
    assert g.advise(position) == spec.advise(rules, pos)
    action = g.advise(position).best.action
    step = g.apply(position, action, seed=4)
    want = spec.apply(rules, pos, action, np.random.default_rng(4))
    assert g.format(step.position) == spec.format(rules, want.position)
    with pytest.raises(InputError):
        g.advise("nonsense 1 2 3")


def test_simulate_and_analyse():
    g = diceopt.game("stick", dice=2, sides=3)
    with pytest.raises(InputError):
        g.simulate(games=0)
    from diceopt.record import play_games

    _, lines = play_games(g.spec, g.rules, 3, np.random.default_rng(2))
    analysis = g.analyse("\n".join(lines))
    assert len(analysis.splits) == 3
    with pytest.raises(InputError):
        g.distribution("dice 1 2")  # stick or reroll has no score distribution


def test_the_docs_example_runs():
    text = (DOCS / "python-api.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    example = next(b for b in blocks if b.startswith("import diceopt\n"))
    exec(compile(example, "python-api.md", "exec"), {})


def test_a_moved_name_warns_and_still_works():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        from diceopt.games.stick import OptimalAgent
    assert OptimalAgent is diceopt.OptimalAgent
    assert any(issubclass(w.category, DeprecationWarning) for w in seen)
    with pytest.raises(ImportError):
        from diceopt.games.stick import NoSuchName  # noqa: F401
