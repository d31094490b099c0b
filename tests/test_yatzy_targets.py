"""Target tables: the kernel against the generic engine, against the expected-score
policy's distribution, monotonicity, the advice and the CLI (reduced variants)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Hashable, Sequence

import numpy as np
import pytest
from cli_status import exit_status

from diceopt.cli import main
from diceopt.engine import Chance, Decision, Objective, Terminal, compile_game, solve
from diceopt.errors import InputError
from diceopt.games.yatzy.analyses import targets
from diceopt.games.yatzy.analyses.distribution import distribution
from diceopt.games.yatzy.analyses.targets import (
    max_to_come,
    solve_target_from,
    solve_targets,
    table_kmax,
)
from diceopt.games.yatzy.kernel.layers import iter_layer_states
from diceopt.games.yatzy.kernel.solve import solve_table
from diceopt.games.yatzy.play.engine_game import YatzyEngineGame
from diceopt.games.yatzy.rulebook import variants as yatzy_rules
from diceopt.games.yatzy.rulebook.variants import AMERICAN, SCANDINAVIAN, get_rules
from diceopt.games.yatzy.stored import files, store
from diceopt.games.yatzy.stored.target_files import get_targets, load_targets

REDUCED = {
    "scandinavian-3d4": SCANDINAVIAN.reduced(
        ("ones", "twos", "chance"), dice=3, sides=4, bonus_threshold=5
    ),
    "scandinavian-5d6": SCANDINAVIAN.reduced(
        ("ones", "one_pair", "full_house", "yatzy"), bonus_threshold=3
    ),
    "scandinavian-4d6-forced": SCANDINAVIAN.reduced(
        ("threes", "one_pair", "chance"), dice=4, bonus_threshold=6, forced_order=True
    ),
}
for _mode in ("free", "forced", "none"):
    REDUCED[f"american-4d6-{_mode}"] = AMERICAN.reduced(
        ("twos", "full_house", "yahtzee"), dice=4, bonus_threshold=4, joker=_mode
    )


class AtLeast:
    """The engine game of "P(points still to come >= k)": the Yatzy engine game with the
    points still needed in the state; value 1 once they are met, 0 at the end otherwise."""

    def __init__(self, rules, k: int) -> None:
        self.inner = YatzyEngineGame(rules)
        self.k = k
        self.inner_nodes: dict = {}  # each inner state's node: it comes with many needs

    def initial_state(self) -> Hashable:
        return (self.inner.initial_state(), self.k)

    def node(self, state):
        inner, need = state
        if need <= 0:
            return Terminal(1.0)
        node = self.inner_nodes.get(inner)
        if node is None:
            node = self.inner_nodes[inner] = self.inner.node(inner)
        if isinstance(node, Terminal):
            return Terminal(0.0)
        if isinstance(node, Chance):
            return Chance([(p, 0.0, (s, need - int(r))) for p, r, s, *_ in node.outcomes])
        return Decision([(a, 0.0, (s, need - int(r))) for a, r, s in node.actions])


def assert_close_each(got, want, atol: float, states: Sequence, at: Sequence[int]) -> None:
    """Each ``got[i]`` within ``atol`` of ``want[i]`` (``pytest.approx(want[i], abs=atol)``
    for all i at once; NaN fails); a failure names ``states[at[i]]`` of the first i that
    is not."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape == (len(at),)
    bad = np.flatnonzero(~np.isclose(got, want, rtol=0, atol=atol))
    first = f"first at {states[at[bad[0]]]!r}" if bad.size else ""
    np.testing.assert_allclose(got, want, rtol=0, atol=atol, equal_nan=False, err_msg=first)


@pytest.fixture(scope="module")
def targets64():
    return {name: solve_targets(r, dtype="float64") for name, r in REDUCED.items()}


@pytest.mark.parametrize("name", list(REDUCED))
def test_kernel_agrees_with_engine(name, targets64):
    rules = REDUCED[name]
    table = targets64[name]
    ks = sorted({1, rules.max_total // 3, rules.max_total // 2, rules.max_total})
    if rules.dice == 5:  # the engine graph of five dice is large: one target is enough
        ks = [rules.max_total // 3]
    for k in ks:
        game = AtLeast(rules, k)
        graph = compile_game(game)
        sol = solve(graph, Objective())
        assert table.probability(0, 0, 0, k) == pytest.approx(sol.value, abs=1e-9)
        got, at = [], []  # the table's probability, and the engine state it must match
        for s, (inner, need) in enumerate(graph.states):
            if inner[0] == "turn" and need > 0 and inner[1] != (1 << rules.num_categories) - 1:
                _, mask, flag, upper = inner
                got.append(table.probability(mask, flag, upper, need))
                at.append(s)
        assert_close_each(got, sol.values[at], 1e-9, graph.states, at)


@pytest.mark.parametrize("name", list(REDUCED))
def test_at_least_the_expected_policy_monotone_and_one_at_zero(name, targets64):
    rules = REDUCED[name]
    table = targets64[name]
    start = table.dense()[0, 0, 0]
    assert start[0] == 1.0
    assert (np.diff(start) <= 1e-12).all()
    assert start.size == rules.max_total + 1
    dist = distribution(solve_table(rules, dtype="float64"))
    tail = np.cumsum(dist.pmf[::-1])[::-1]  # P(final >= k)
    for k in range(start.size):
        expected_policy = float(tail[k]) if k < tail.size else 0.0
        assert start[k] >= expected_policy - 1e-9


def test_single_target_is_the_full_table_truncated(targets64):
    rules = REDUCED["scandinavian-5d6"]
    full = targets64["scandinavian-5d6"].dense()
    k = rules.max_total // 2
    part = solve_targets(rules, kmax=k, dtype="float64").dense()
    np.testing.assert_allclose(part, full[..., : k + 1], atol=1e-12)


def test_float32_close_to_float64(targets64):
    rules = REDUCED["american-4d6-free"]
    t32 = solve_targets(rules, dtype="float32")
    np.testing.assert_allclose(t32.dense(), targets64["american-4d6-free"].dense(), atol=1e-5)


def test_advise_target_cli(capsys):
    pos = "dice 1 3 3 5 6 | rerolls 2 | filled ones twos threes fours fives sixes one_pair "
    pos += "two_pairs three_of_a_kind four_of_a_kind small_straight | upper 63 | score 150"
    # the forced-order variant keeps the on-demand target table small (809 states)
    variant = ["--variant", "scandinavian-forced"]
    assert main(["yatzy", "advise", pos, "--target", "200", "--json", *variant]) == 0
    data = json.loads(capsys.readouterr().out)
    actions = data["actions"]
    assert actions[0]["regret"] == 0.0
    for a in actions:
        assert 0.0 <= a["value"] <= 1.0 and a["regret"] >= 0.0
        assert a["expected"] >= 150
    values = [a["value"] for a in actions]
    assert values == sorted(values, reverse=True)
    assert main(["yatzy", "advise", pos, "--target", "150", *variant]) == 0
    assert "1.000000000" in capsys.readouterr().out


@pytest.mark.parametrize("target", ["-1", "375"])
def test_bad_target(target, capsys):
    pos = "dice 1 3 3 5 6 | rerolls 2"
    assert exit_status(["yatzy", "advise", pos, "--target", target]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "target" in err


def _states(rules, table):
    """(mask, flag, upper) of every solved non-final state of a table."""
    out = []
    for st in iter_layer_states(rules):
        for m, f, u in zip(st.mask, st.flag, st.upper, strict=True):
            if m != (1 << rules.num_categories) - 1:
                out.append((int(m), int(f), int(u)))
    return out


@pytest.mark.parametrize("name", ["scandinavian-5d6", "american-4d6-free", "american-4d6-forced"])
def test_target_from_a_state_is_the_full_table(name, targets64):
    """The on-demand solve (only the later states, only the k they need) gives the full
    table's numbers bit for bit: the probability and every action of the turn."""
    rules = REDUCED[name]
    table = targets64[name]
    for mask, flag, upper in _states(rules, table)[:: 3 if rules.dice == 5 else 1]:
        for k in sorted({1, 17, rules.max_total // 3}):
            rows = solve_target_from(rules, mask, flag, upper, k, dtype="float64")
            assert rows.probability(mask, flag, upper, k) == table.probability(mask, flag, upper, k)
            assert rows.states <= len(_states(rules, table))
            for got, want in zip(rows.turn(mask, flag, upper, k), table.turn(mask, flag, upper, k)):
                np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "name", ["scandinavian-5d6", "scandinavian-3d4", "scandinavian-4d6-forced"]
)
def test_one_target_rows_hold_the_full_tables_values_wherever_a_game_can_read(name, targets64):
    """``only_target``: from the start and from later states, every value a game toward
    k can read (each state's k from its ``kmin`` up) is the full table's, bit for bit, as
    are the turn and the probability at the start; values below are not computed (the
    rows say where) and reads there are refused."""
    rules = REDUCED[name]
    table = targets64[name]
    width = rules.bonus_threshold + 1
    cut = 0
    for start in _states(rules, table)[::4]:
        for k in sorted({1, 17, rules.max_total // 2}):
            rows = solve_target_from(rules, *start, k, dtype="float64", only_target=True)
            assert rows.kmin is not None
            assert rows.probability(*start, k) == table.probability(*start, k)
            for got, want in zip(rows.turn(*start, k), table.turn(*start, k)):
                np.testing.assert_array_equal(got, want)
            for key in np.flatnonzero(rows.top >= 1):
                mask, flag, upper = (
                    key // width // rules.flags,
                    (key // width) % rules.flags,
                    key % width,
                )
                low = int(rows.kmin[key])
                cut += max(0, min(low, int(rows.top[key]) + 1) - 1)
                for kk in range(max(low, 1), int(rows.top[key]) + 1):
                    assert rows.data[rows.off[key] + kk] == table.probability(mask, flag, upper, kk)
                if low > 1:
                    with pytest.raises(InputError, match="more points than its boxes"):
                        rows.probability(mask, flag, upper, low - 1)
    assert cut > 0  # some values were below what a game can read


def test_one_target_rows_of_rules_with_bonuses_hold_every_k(targets64):
    """Where a box can score more than its listed points (the Yahtzee bonus), no bound:
    ``only_target`` solves every k, the same rows."""
    rules = REDUCED["american-4d6-free"]
    rows = solve_target_from(rules, 0, 0, 0, 30, dtype="float64", only_target=True)
    plain = solve_target_from(rules, 0, 0, 0, 30, dtype="float64")
    assert rows.kmin is None
    np.testing.assert_array_equal(rows.data, plain.data)


def test_target_from_a_later_state_visits_fewer_states():
    rules = REDUCED["scandinavian-5d6"]
    start = solve_target_from(rules, 0, 0, 0, 60)
    later = solve_target_from(rules, 0b0101, 0, 1, 60)
    low = solve_target_from(rules, 0, 0, 0, 10)
    assert later.states < start.states and low.pairs < start.pairs


@pytest.mark.parametrize("within", [0b0101, 0b1])
def test_layers_within_a_mask_are_the_layers_filtered(within):
    # a target from a position lists only the masks that contain its own (Maxi Yatzy from
    # mid-game: a few thousand of a million): the same states and copies, in the same order
    rules = REDUCED["american-4d6-free"]
    layers = list(iter_layer_states(rules, reverse=True, within=within))
    width = rules.bonus_threshold + 1
    for st, whole in zip(layers, iter_layer_states(rules, reverse=True), strict=True):
        keep = (whole.mask & within) == within
        copied = (whole.copy_dst // width // rules.flags & within) == within
        for got, want in ((st.mask, whole.mask[keep]), (st.flag, whole.flag[keep]),
                          (st.upper, whole.upper[keep]), (st.copy_dst, whole.copy_dst[copied]),
                          (st.copy_src, whole.copy_src[copied])):  # fmt: skip
            assert np.array_equal(got, want)
    assert layers[0].mask.size and not layers[-1].mask.size  # the layers before: empty


def test_values_above_the_most_points_to_come_are_zero(targets64):
    for name in ("scandinavian-5d6", "american-4d6-free"):
        rules = REDUCED[name]
        V = targets64[name].dense()
        for st in iter_layer_states(rules):
            top = max_to_come(rules, st.mask, st.flag, st.upper)
            for m, f, u, t in zip(st.mask, st.flag, st.upper, top, strict=True):
                assert (V[m, f, u, t + 1 :] == 0).all()
                if m != (1 << rules.num_categories) - 1:
                    assert V[m, f, u, min(t, rules.max_total)] > 0  # the bound is reached


def test_american_cap_and_targets_above_it(monkeypatch, targets64):
    """A table holds k up to TABLE_KMAX (here 60); a target above it is solved on demand
    from the position, with the same numbers."""
    name = "american-4d6-free"
    rules = REDUCED[name]
    full = targets64[name]
    monkeypatch.setattr(targets, "TABLE_KMAX", 60)
    assert table_kmax(rules) == 60 and table_kmax(SCANDINAVIAN) == 60
    capped = solve_targets(rules, dtype="float64")
    np.testing.assert_array_equal(capped.dense(), full.dense()[..., :61])
    with pytest.raises(Exception, match="up to 60"):
        capped.probability(0, 0, 0, 61)
    rows = solve_target_from(rules, 0, 0, 0, 250, dtype="float64")
    assert rows.probability(0, 0, 0, 250) == full.probability(0, 0, 0, 250) > 0


def test_full_american_table_holds_every_target():
    assert AMERICAN.max_total == 1575 and table_kmax(AMERICAN) == 1575 < targets.TABLE_KMAX
    assert table_kmax(SCANDINAVIAN) == SCANDINAVIAN.max_total == 374
    american = get_rules("american")
    key = files.target_key(american)
    assert key.shape is None and key.extra == ("off", "top")
    off, top = targets.table_layout(american, table_kmax(american))
    assert top.max() == 1575 and top.min() == -1
    # one value per state and k up to its most points to come: 209.9M (0.84 GB of
    # float32), not 8192 x 2 x 64 x 1576 (6.6 GB)
    assert int((off + top + 1).max()) == 209_881_056


def test_a_stored_table_whose_rows_do_not_fit_is_refused_in_one_line(tmp_path, capsys):
    """Row offsets past the values (a file with good checksums but a hostile layout), a
    top beyond kmax, or a file in the 4-D layout of earlier versions: one warning line,
    None (never a read out of bounds), and the table is rebuilt."""
    from diceopt import storage

    rules = dataclasses.replace(REDUCED["american-4d6-free"], key="test-layout")
    table, info = get_targets(rules, directory=str(tmp_path))
    meta = {"seconds": 0.0, "states": 1, "kmax": table.kmax, "rules": files.rules_header(rules)}
    key = files.target_key(rules)
    far = table.off.copy()
    far[np.argmax(table.top)] = table.data.size  # its row runs past the values
    high = table.top.copy()
    high[0] = table.kmax + 1
    dense = files.rules_key(rules, files.TARGET_OBJECTIVE, "float32", table.dense().shape)
    cases = [
        (key, {"values": table.data, "off": far, "top": table.top}, "runs past the values"),
        (key, {"values": table.data, "off": table.off, "top": high}, "out of range"),
        (dense, {"values": table.dense()}, "no 'off' array"),
        (key, {"values": table.data.reshape(1, -1), "off": table.off, "top": table.top}, "2-D"),
    ]
    for file_key, arrays, why in cases:
        assert storage.store(file_key, arrays, meta, str(tmp_path), mapped=True)
        capsys.readouterr()
        for verify in ("full", "lazy"):
            assert load_targets(rules, directory=str(tmp_path), verify=verify) is None
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and why in err and str(info.path) in err
    rebuilt, again = get_targets(rules, directory=str(tmp_path))
    assert not again.loaded and again.saved
    np.testing.assert_array_equal(rebuilt.dense(), table.dense())
    assert load_targets(rules, directory=str(tmp_path)) is not None


def test_stored_rows_that_run_past_their_values_are_refused_in_one_line(
    tmp_path, monkeypatch, capsys
):
    from diceopt import storage

    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    monkeypatch.setattr(store, "_ROWS", {})
    rules = dataclasses.replace(REDUCED["american-4d6-free"], key="test-rows-layout")
    rows = solve_target_from(rules, 0, 0, 0, rules.max_total)
    far = rows.off.copy()
    far[np.argmax(rows.top)] = rows.data.size
    meta = {"kmax": rules.max_total, "rules": files.rules_header(rules)}
    arrays = {"values": rows.data, "off": far, "top": rows.top}
    assert storage.store(store.rows_key(rules), arrays, meta, mapped=True)
    capsys.readouterr()
    assert store.load_rows(rules, full=False) is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "runs past the values" in err
    arrays["off"] = rows.off
    assert storage.store(store.rows_key(rules), arrays, meta, mapped=True)
    assert store.load_rows(rules, full=False).probability(0, 0, 0, 40) == rows.probability(
        0, 0, 0, 40
    )


def test_stored_table_is_memory_mapped_and_rebuilt_when_bad(tmp_path, capsys):
    rules = dataclasses.replace(REDUCED["american-4d6-free"], key="test-reduced")
    table, info = get_targets(rules, directory=str(tmp_path))
    assert not info.loaded and info.saved and info.path.suffix == ".mmap"
    again, info2 = get_targets(rules, directory=str(tmp_path))
    assert info2.loaded
    values = again.data
    assert values.ndim == 1 and not values.flags.writeable and not values.flags.owndata
    np.testing.assert_array_equal(again.dense(), table.dense())
    for got, want in zip(again.turn(0, 0, 0, 40), table.turn(0, 0, 0, 40)):
        np.testing.assert_array_equal(got, want)
    lazy, _ = load_targets(rules, directory=str(tmp_path), verify="lazy")
    assert lazy.probability(0, 0, 0, 40) == table.probability(0, 0, 0, 40)
    lazy.verify()
    assert lazy.check.checked.all()
    del again, values, lazy
    for how in ("flip", "truncate", "header", "rules"):
        data = bytearray(info.path.read_bytes())
        if how == "flip":
            data[-100] ^= 0x04
        elif how == "truncate":
            data = data[:-1000]
        elif how == "header":
            i = data.index(b'"objective": "target"')
            data[i + 14 : i + 20] = b"tarjet"
        info.path.write_bytes(bytes(data))
        # same shape, other scoring: the header's rules differ
        other = dataclasses.replace(rules, joker="forced") if how == "rules" else rules
        capsys.readouterr()
        assert load_targets(other, directory=str(tmp_path)) is None
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "warning" in err and str(info.path) in err
        rebuilt, info3 = get_targets(other, directory=str(tmp_path))
        assert not info3.loaded and info3.saved
        if other is rules:
            np.testing.assert_array_equal(rebuilt.dense(), table.dense())
        assert load_targets(other, directory=str(tmp_path)) is not None


@pytest.fixture()
def tiny_variant(tmp_path, monkeypatch):
    """A reduced American variant under a name the CLI takes, with a cache of its own."""
    rules = dataclasses.replace(REDUCED["american-4d6-free"], name="tiny-yahtzee")
    monkeypatch.setitem(yatzy_rules.VARIANT_RULES, "tiny-yahtzee", rules)
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    monkeypatch.setattr(store, "_TARGETS", {})
    return rules


def test_targets_command_builds_stores_then_loads(tiny_variant, capsys):
    argv = ["yatzy", "targets", "--variant", "tiny-yahtzee"]
    assert main(argv) == 0
    out = capsys.readouterr()
    assert "stored" in out.out and "P(final >= 200)" in out.out
    assert "solving the tiny-yahtzee target table" in out.err  # progress, one line a stage
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["loaded"] and data["path"].endswith(".mmap") and data["kmax"] == 318
    assert data["bytes"] > 0 and 0 < data["p_at_least"]["200"] < 1


def test_targets_command_unwritable_cache_does_not_claim_stored(tiny_variant, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    argv = ["yatzy", "targets", "--variant", "tiny-yahtzee", "--cache-dir", str(blocker)]
    assert main([*argv, "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["path"] is None and "not saved" in captured.err


def test_targets_command_failed_store_is_one_line_never_done(tiny_variant, tmp_path, capsys):
    """A store that fails is reported once (the warning) and never followed by "done"."""
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    argv = ["yatzy", "targets", "--variant", "tiny-yahtzee", "--cache-dir", str(blocker)]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    storing = [line for line in err.splitlines() if line.startswith("storing it")]
    assert storing and not any("done" in line for line in storing)
    assert sum("not saved" in line for line in err.splitlines()) == 1
    assert "not stored" in out and "stored " + str(blocker) not in out
    assert "kB (float32)" in out and "storing it (0.0" not in err  # small: in kB


def test_forced_order_target_table_holds_only_its_masks(tmp_path, monkeypatch, capsys):
    """Forced order: C + 1 reachable masks, so C + 1 rows (not 2^C: 3.15 GB for 16 rows)."""
    rules = REDUCED["scandinavian-4d6-forced"]
    table = solve_targets(rules, dtype="float64")
    assert table.dense().shape == (rules.num_categories + 1, 1, 7, table_kmax(rules) + 1)
    for mask, flag, upper in _states(rules, table):
        for k in (1, 12, 30):
            rows = solve_target_from(rules, mask, flag, upper, k, dtype="float64")
            assert table.probability(mask, flag, upper, k) == rows.probability(mask, flag, upper, k)
            for got, want in zip(rows.turn(mask, flag, upper, k), table.turn(mask, flag, upper, k)):
                np.testing.assert_array_equal(got, want)
    with pytest.raises(InputError, match="no game"):
        table.probability(0b010, 0, 0, 5)  # not a mask of the forced order
    forced = get_rules("scandinavian-forced")
    assert files.target_key(forced).extra == ("off", "top")
    assert targets.reached_keys(forced).size == 16 * 64  # row offsets of 16 masks only
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    monkeypatch.setattr(store, "_TARGETS", {})
    argv = ["yatzy", "targets", "--variant", "scandinavian-forced", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bytes"] < 2_000_000 and not data["loaded"]
    assert main(argv) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["loaded"] and again["p_at_least"] == data["p_at_least"]
    pos = "dice 1 3 3 5 6 | rerolls 2 | filled ones twos threes | upper 9 | score 9"
    advise = ["yatzy", "advise", pos, "--target", "200", "--variant", "scandinavian-forced"]
    assert main(advise) == 0
    assert "no stored target table" not in capsys.readouterr().err  # the stored one is read


def test_advise_target_yahtzee_stored_or_on_demand_agree(tiny_variant, capsys):
    # a Yahtzee with the Yahtzee box holding 50: the Yahtzee bonus and the joker rule
    pos = "dice 2 2 2 2 | rerolls 1 | filled yahtzee | upper 0 | score 50 | yahtzee-bonus yes"
    argv = ["yatzy", "advise", pos, "--variant", "tiny-yahtzee", "--target", "200", "--json"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    on_demand = json.loads(captured.out)["actions"]
    assert "no stored target table (`diceopt yatzy targets --variant tiny-yahtzee`" in captured.err
    assert "solving P(>= 150 more points) from this position" in captured.err
    assert main(["yatzy", "targets", "--variant", "tiny-yahtzee"]) == 0
    capsys.readouterr()
    assert main(argv) == 0
    captured = capsys.readouterr()
    stored = json.loads(captured.out)["actions"]
    assert "solving" not in captured.err  # read from the stored table
    assert [a["action"] for a in stored] == [a["action"] for a in on_demand]
    for a, b in zip(stored, on_demand):
        assert a["value"] == pytest.approx(b["value"], abs=1e-6)
    assert 0 < stored[0]["value"] < 1


@pytest.mark.parametrize(
    ("variant", "target"), [("american", "1576"), ("american", "-5"), ("tiny-yahtzee", "319")]
)
def test_bad_target_other_variants(variant, target, tiny_variant, capsys):
    pos = "dice 1 3 3 5 | rerolls 2" if variant == "tiny-yahtzee" else "dice 1 3 3 5 6 | rerolls 2"
    assert exit_status(["yatzy", "advise", pos, "--variant", variant, "--target", target]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "target" in err


def test_advise_target_above_the_cap_is_solved_from_the_position(tiny_variant, monkeypatch, capsys):
    pos = "dice 2 2 3 6 | rerolls 2 | score 0"
    argv = ["yatzy", "advise", pos, "--variant", "tiny-yahtzee", "--json", "--target"]
    assert main([*argv, "120"]) == 0
    uncapped = json.loads(capsys.readouterr().out)["actions"]
    monkeypatch.setattr(targets, "TABLE_KMAX", 100)
    assert main(["yatzy", "targets", "--variant", "tiny-yahtzee", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["kmax"] == 100
    assert main([*argv, "90"]) == 0
    assert "solving" not in capsys.readouterr().err  # k <= 100: the stored table
    assert main([*argv, "120"]) == 0
    captured = capsys.readouterr()
    assert "stored table: k <= 100: solving P(>= 120 more points)" in captured.err
    assert json.loads(captured.out)["actions"] == uncapped


def test_advise_target_never_uses_a_bad_stored_table(tiny_variant, capsys):
    pos = "dice 2 2 3 6 | rerolls 2 | score 0"
    argv = ["yatzy", "advise", pos, "--variant", "tiny-yahtzee", "--json", "--target", "100"]
    assert main(argv) == 0
    on_demand = json.loads(capsys.readouterr().out)["actions"]
    assert main(["yatzy", "targets", "--variant", "tiny-yahtzee"]) == 0
    path = files.targets_path(get_rules("tiny-yahtzee"))
    data = bytearray(path.read_bytes())
    data[-5000] ^= 0x01  # the payload (checked lazily, when advise reads it)
    path.write_bytes(bytes(data))
    capsys.readouterr()
    assert main(argv) == 0
    captured = capsys.readouterr()
    warnings = [line for line in captured.err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "checksum mismatch" in warnings[0] and str(path) in warnings[0]
    assert json.loads(captured.out)["actions"] == on_demand
    assert main(["yatzy", "targets", "--variant", "tiny-yahtzee", "--json"]) == 0  # rebuilt
    captured = capsys.readouterr()
    assert not json.loads(captured.out)["loaded"] and "rebuilding" in captured.err


# --- the band: only the k where the values read differ are computed --------------------

SCANDINAVIAN_8 = SCANDINAVIAN.reduced(
    ("ones", "threes", "sixes", "one_pair", "two_pairs", "small_straight", "chance", "yatzy"),
    bonus_threshold=30,
)


def _sha(a: np.ndarray) -> str:
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def test_banded_solve_keeps_every_value_bit_for_bit():
    """The values computed before the band (k where every value read is 1 or 0 copied
    from the band's ends): the sha256 recorded then, for the full table (float32 and
    float64) and the rows from the start, the rows for one target and the draw-aware
    rows (benchmarks/target_fingerprints.py)."""
    r = SCANDINAVIAN_8
    t32 = solve_targets(r, dtype="float32")
    assert _sha(t32.dense()).startswith("3595054e7a4094e9")
    assert _sha(solve_targets(r, dtype="float64").dense()).startswith("5065ab56099a97b8")
    rows = solve_target_from(r, 0, 0, 0, r.max_total)
    assert _sha(rows.data).startswith("b175343e7ce2b727")
    assert _sha(solve_target_from(r, 0, 0, 0, 120).data).startswith("a6ac8b8247bce4d4")
    assert _sha(solve_target_from(r, 0, 0, 0, 150, draw=True).data).startswith("6a9c9a893c4e7d59")
    # a band with ones: chance open, so the first k are certain; copied, still exact
    assert rows.probability(0, 0, 0, 5) == 1.0
    assert rows.probability(0, 0, 0, 5) == t32.probability(0, 0, 0, 5)


def test_chunks_of_any_width_give_the_same_bytes():
    """A state's band in one chunk (384 lanes) or in chunks of 16 (the scoring step's
    vector loops and their remainders): every value the same, bit for bit, in float32
    and float64, with the Yahtzee bonus and jokers too."""
    for r in (SCANDINAVIAN_8, REDUCED["american-4d6-forced"]):
        for dtype in ("float32", "float64"):
            wide = solve_targets(r, dtype=dtype).dense()
            narrow = solve_targets(r, dtype=dtype, lanes=16).dense()
            assert _sha(narrow) == _sha(wide)


def test_bands_of_written_rows():
    from diceopt.games.yatzy.kernel.target_turn import set_bands

    Vd = np.array([1, 1, 1, 0.5, 0, 0, 1, 0, 0, 1, 1, 1], dtype=np.float32)
    off = np.array([0, 6, 9, 0])
    top = np.array([5, 2, 2, 0])
    lo, hi = np.full(4, -1, dtype=np.int16), np.full(4, -1, dtype=np.int16)
    set_bands(np.arange(4), Vd, off, top, lo, hi)
    assert lo.tolist() == [2, 0, 2, 0]  # values at k = 1 .. lo exactly 1
    assert hi.tolist() == [3, 0, 2, 0]  # the last k whose value is not 0
    over = np.array([1, 1.5, 1, 0.5], dtype=np.float32)  # a value above 1 (never certain)
    set_bands(np.array([0]), over, np.array([0]), np.array([3]), lo, hi)
    assert (lo[0], hi[0]) == (-1, 3)
