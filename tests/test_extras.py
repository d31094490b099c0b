"""The optional research extra: present, it imports; missing, one line names it."""

from __future__ import annotations

import sys

import pytest

from diceopt.errors import InputError
from diceopt.extras import require


def test_require_imports_an_installed_module():
    assert require("json").dumps([1]) == "[1]"


@pytest.mark.parametrize("module", ["gymnasium", "pettingzoo", "pyarrow"])
def test_missing_module_names_the_extra_in_one_line(monkeypatch, module):
    monkeypatch.setitem(sys.modules, module, None)  # import now raises ImportError
    with pytest.raises(InputError) as caught:
        require(module)
    message = str(caught.value)
    assert "\n" not in message
    assert "research extra" in message and "pip install 'diceopt[research]'" in message
    assert module in message


def test_environments_without_gymnasium_say_which_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "gymnasium", None)
    for name in [m for m in sys.modules if m == "diceopt.envs" or m.startswith("diceopt.envs.")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(InputError, match=r"research extra"):
        import diceopt.envs  # noqa: F401


def test_a_ray_sweep_without_the_cluster_extra_is_one_line(monkeypatch, tmp_path, capsys):
    # (here, not beside the Ray tests: a running Ray's threads import ray too)
    from diceopt.cli import main

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    cache = tmp_path / "cache"
    argv = ["yatzy", "sweep", "--variant", "scandinavian-forced", "--thetas", "-0.05,0.05"]
    assert main([*argv, "--ray", "--cache-dir", str(cache)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "diceopt: error: this needs the cluster extra (ray is not installed): "
        "pip install 'diceopt[cluster]'"
    ]
    assert not cache.exists() or not any(p.is_file() for p in cache.rglob("*"))


@pytest.mark.parametrize(
    "argv",
    [
        ["yatzy", "targets", "--variant", "scandinavian-forced"],
        ["yatzy", "solve", "--variant", "scandinavian-forced"],
        ["yatzy", "solve", "--variant", "maxi-saved"],
    ],
)
def test_a_layer_solve_on_ray_without_the_cluster_extra_is_one_line(
    argv, monkeypatch, tmp_path, capsys
):
    from diceopt.cli import main

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    cache = tmp_path / "cache"
    assert main([*argv, "--ray", "--cache-dir", str(cache)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "diceopt: error: this needs the cluster extra (ray is not installed): "
        "pip install 'diceopt[cluster]'"
    ]
    assert not cache.exists() or not any(p.is_file() for p in cache.rglob("*"))
