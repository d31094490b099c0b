"""Tables split by layer on Ray (``commands.on_ray``): the full target table and the
saved-rerolls (Maxi) tables equal the in-process solve bit for bit, on reduced variants;
``yatzy targets --ray`` and ``yatzy solve --ray`` store the same tables as without it,
and a bad address is one line, nothing written (a missing extra: ``test_extras.py``).

One local two-CPU Ray instance serves the whole module (conftest's ``local_ray``).
"""

from __future__ import annotations

import dataclasses
import json
import socket

import numpy as np
import pytest

from diceopt.cli import main
from diceopt.errors import InputError
from diceopt.games.yatzy.analyses.targets import solve_targets
from diceopt.games.yatzy.kernel.saved import solve_saved
from diceopt.games.yatzy.rulebook import variants as yatzy_rules
from diceopt.games.yatzy.rulebook.variants import AMERICAN, MAXI, SCANDINAVIAN
from diceopt.games.yatzy.stored import store
from diceopt.games.yatzy.stored.files import load_table
from diceopt.games.yatzy.stored.saved_files import load_saved
from diceopt.games.yatzy.stored.target_files import load_targets

pytest.importorskip("ray")

from diceopt.games.yatzy.commands import on_ray  # noqa: E402 (after the importorskip)

pytestmark = pytest.mark.usefixtures("local_ray")  # conftest: one 2-CPU instance for the module

TARGETS = {
    "scandinavian-5d6": SCANDINAVIAN.reduced(
        ("ones", "one_pair", "full_house", "yatzy"), bonus_threshold=3
    ),
    "american-4d6-free": AMERICAN.reduced(  # Yahtzee bonus: two flags, joker rules
        ("twos", "full_house", "yahtzee"), dice=4, bonus_threshold=4, joker="free"
    ),
    "scandinavian-4d6-forced": SCANDINAVIAN.reduced(  # one row per reachable mask
        ("threes", "one_pair", "chance"), dice=4, bonus_threshold=6, forced_order=True
    ),
}

SAVED = {
    "maxi-5d6": MAXI.reduced(
        ("twos", "large_straight", "five_of_a_kind"), dice=5, bonus_threshold=6,
        saved_rerolls=True,
    ),
    "american-4d6-forced-cap": AMERICAN.reduced(
        ("twos", "small_straight", "yahtzee"), dice=4, bonus_threshold=6, joker="forced",
        saved_rerolls=True, saved_cap=2,
    ),
    "scandinavian-4d6-forced": SCANDINAVIAN.reduced(
        ("threes", "one_pair", "four_of_a_kind", "chance"), dice=4, bonus_threshold=6,
        forced_order=True, saved_rerolls=True,
    ),
}  # fmt: skip


def dead_address():
    """HOST:PORT on this machine where nothing listens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"127.0.0.1:{port}"


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def files_under(directory):
    """The files under ``directory`` but the locks (``*.lock``)."""
    if not directory.exists():
        return []
    return sorted(p.name for p in directory.rglob("*") if p.is_file() and p.suffix != ".lock")


# --- the full target table ------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, dtype, chunks, kmax",
    [
        ("scandinavian-5d6", "float32", 2, None),
        ("scandinavian-5d6", "float64", 3, 40),  # truncated: exact up to kmax
        ("american-4d6-free", "float32", 2, None),
        ("american-4d6-free", "float64", 1, None),
        ("scandinavian-4d6-forced", "float32", 5, None),  # more tasks than some layers' states
    ],
)
def test_targets_by_layer_equal_the_in_process_table(name, dtype, chunks, kmax):
    rules = TARGETS[name]
    got = on_ray.solve_targets_ray(rules, kmax=kmax, dtype=dtype, chunks=chunks)
    want = solve_targets(rules, kmax=kmax, dtype=dtype)
    assert got.data.dtype == want.data.dtype and got.data.shape == want.data.shape
    assert np.array_equal(got.data, want.data)
    assert np.array_equal(got.off, want.off) and np.array_equal(got.top, want.top)
    assert got.states == want.states


def test_targets_ray_bad_arguments():
    rules = TARGETS["scandinavian-5d6"]
    with pytest.raises(InputError, match="chunks must be at least 1"):
        on_ray.solve_targets_ray(rules, chunks=0)
    with pytest.raises(InputError, match="dtype"):
        on_ray.solve_targets_ray(rules, dtype="float16")
    with pytest.raises(InputError, match="the target must be between 0 and"):
        on_ray.solve_targets_ray(rules, kmax=rules.max_total + 1)


def test_interleaved_parts_cover_each_state_once():
    assert on_ray.interleaved_parts(3, 5) == [slice(i, None, 5) for i in range(3)]
    idx = np.arange(10)
    parts = on_ray.interleaved_parts(10, 3)
    assert sorted(np.concatenate([idx[p] for p in parts]).tolist()) == list(range(10))


# --- saved rerolls (Maxi) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, dtype, chunks",
    [
        ("maxi-5d6", "float32", 2),
        ("maxi-5d6", "float64", 3),
        ("american-4d6-forced-cap", "float32", 2),
        ("scandinavian-4d6-forced", "float32", 2),
    ],
)
def test_saved_by_layer_equal_the_in_process_table(name, dtype, chunks):
    rules = SAVED[name]
    got = on_ray.solve_saved_ray(rules, dtype, chunks)
    want = solve_saved(rules, dtype=dtype)
    for j in range(rules.num_categories + 1):
        assert got.layer(j).dtype == want.layer(j).dtype
        assert np.array_equal(got.layer(j), want.layer(j)), f"layer {j}"
    assert got.states == want.states and got.value == want.value


def test_saved_ray_bad_arguments():
    with pytest.raises(InputError, match="chunks must be at least 1"):
        on_ray.solve_saved_ray(SAVED["maxi-5d6"], chunks=0)
    with pytest.raises(InputError, match="has no saved rerolls"):
        on_ray.solve_saved_ray(TARGETS["scandinavian-5d6"])
    with pytest.raises(InputError, match="saved rerolls need solve_saved_ray"):
        on_ray.solve_table_ray(SAVED["maxi-5d6"])


# --- the commands -------------------------------------------------------------------------------


@pytest.fixture()
def tiny(tmp_path, monkeypatch):
    """Reduced variants under names the CLI takes (``tiny-yahtzee``: targets and solve;
    ``tiny-maxi-saved``: saved rerolls), with a cache of their own."""
    plain = dataclasses.replace(TARGETS["american-4d6-free"], name="tiny-yahtzee")
    saved = dataclasses.replace(SAVED["maxi-5d6"], name="tiny-maxi-saved")
    monkeypatch.setitem(yatzy_rules.VARIANT_RULES, "tiny-yahtzee", plain)
    monkeypatch.setitem(yatzy_rules.VARIANT_RULES, "tiny-maxi-saved", saved)
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(store, "_TARGETS", {})
    monkeypatch.setattr(store, "TABLES", {})
    return plain, saved


def test_cli_targets_ray_stores_the_same_table(tiny, tmp_path, capsys):
    argv = ["yatzy", "targets", "--variant", "tiny-yahtzee", "--json"]
    code, out, err = run(capsys, *argv, "--ray", "--cache-dir", str(tmp_path / "r"))
    assert code == 0
    with_ray = json.loads(out)
    assert with_ray["ray"] == "local" and not with_ray["loaded"]
    assert "on a local Ray instance" in err  # the progress line says where
    code, out, _ = run(capsys, *argv, "--cache-dir", str(tmp_path / "p"))
    plain = json.loads(out)
    assert code == 0 and plain["p_at_least"] == with_ray["p_at_least"]
    a, _ = load_targets(tiny[0], directory=str(tmp_path / "r"))
    b, _ = load_targets(tiny[0], directory=str(tmp_path / "p"))
    assert np.array_equal(a.data, b.data)


def test_cli_solve_ray_stores_the_same_tables(tiny, tmp_path, capsys):
    for variant in ("tiny-yahtzee", "tiny-maxi-saved"):
        argv = ["yatzy", "solve", "--variant", variant, "--json"]
        code, out, _ = run(capsys, *argv, "--ray", "--cache-dir", str(tmp_path / "r"))
        assert code == 0
        with_ray = json.loads(out)
        code, out, _ = run(capsys, *argv, "--cache-dir", str(tmp_path / "p"))
        plain = json.loads(out)
        assert code == 0 and with_ray["ray"] == "local" and plain["ray"] is None
        assert with_ray["value"] == plain["value"] and with_ray["states"] == plain["states"]
    plain_rules, saved_rules = tiny
    a, _ = load_table(plain_rules, 0.0, "float32", str(tmp_path / "r"))
    b, _ = load_table(plain_rules, 0.0, "float32", str(tmp_path / "p"))
    assert np.array_equal(a.values, b.values, equal_nan=True)
    sa, _ = load_saved(saved_rules, "float32", str(tmp_path / "r"))
    sb, _ = load_saved(saved_rules, "float32", str(tmp_path / "p"))
    for j in range(saved_rules.num_categories + 1):
        assert np.array_equal(sa.layer(j), sb.layer(j))


@pytest.mark.parametrize(
    "argv",
    [
        ["yatzy", "targets", "--variant", "tiny-yahtzee"],
        ["yatzy", "solve", "--variant", "tiny-yahtzee"],
        ["yatzy", "solve", "--variant", "tiny-maxi-saved"],
    ],
)
def test_cli_unreachable_address_is_one_line_and_writes_nothing(tiny, tmp_path, capsys, argv):
    address = dead_address()
    code, out, err = run(capsys, *argv, "--ray", address)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"cannot reach the Ray cluster at {address}" in lines[0]
    assert files_under(tmp_path / "cache") == []
