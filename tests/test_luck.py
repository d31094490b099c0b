"""Luck and skill (diceopt.analyse, diceopt.record, ``GAME simulate --record``).

A whole game's result splits into the optimal value from the start, the luck of the
dice and the cost of the decisions: ``result = expected_start + luck - cost`` (``-
luck + cost`` where lower is better). The pieces are checked against independently
computed ones: the start against ``solve``, the result against the simulation's
outcome, the cost against the graded decisions' regrets; and the luck of one roll,
enumerated over its outcomes, averages to zero.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from math import factorial

import numpy as np
import pytest

from diceopt.analyse import analyse_record
from diceopt.cli import main
from diceopt.games.registry import games, get_game
from diceopt.record import play_games

TOL = 1e-9


@pytest.fixture(scope="module", autouse=True)
def _cache(web_env):
    return web_env


def run_json(argv, capsys) -> dict:
    """``main(argv + --json)``: status 0 and the printed JSON object."""
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


GAMES = [
    ("yatzy", ["--variant", "scandinavian"]),
    ("yatzy", ["--variant", "american"]),
    ("shutbox", []),
    ("shutbox", ["--players", "2"]),
    ("pig", ["--goal", "20"]),
]


@pytest.mark.parametrize("policy", ["optimal", "random"])
@pytest.mark.parametrize("game_id,args", GAMES, ids=[" ".join([g, *a]) for g, a in GAMES])
def test_whole_games_split_exactly(game_id, args, policy, capsys, tmp_path):
    spec = get_game(game_id)
    variant = args[1] if args[:1] == ["--variant"] else None
    params = {} if variant else dict(zip(args[::2], args[1::2]))
    rules = spec.rules(variant, **{k[2:]: int(v) for k, v in params.items()})
    players, lower = spec.players_of(rules), spec.lower_is_better_of(rules)
    record = tmp_path / "games.txt"
    games = 3
    sim = run_json(
        [game_id, "simulate", *args, "--games", str(games), "--seed", "7", "--policy", policy]
        + ["--record", str(record)],
        capsys,
    )
    assert sim["games"] == games and sim["policy"] == policy and sim["record"] == str(record)
    text = record.read_text()
    assert text.count("~> new game") == games and text.count("\n= ") == games
    data = run_json([game_id, "analyse", str(record), *args], capsys)
    assert data["games"] == data["whole_games"] == games and data["luck_missing"] == []
    exact = spec.solve(rules).value  # independently: the solver's value from the start
    sign = -1 if lower else 1
    results = []
    for split in data["splits"]:
        g = split["game"]
        assert split["perspective"] == 1
        assert split["expected_start"] == pytest.approx(exact, abs=TOL)
        # the cost: the graded decisions' regrets (the other player's count negative)
        regrets = [d for d in data["decisions"] if d["game"] == g]
        mine = sum(d["regret"] for d in regrets if d["player"] == 1)
        theirs = sum(d["regret"] for d in regrets if d["player"] != 1)
        assert split["cost"] == pytest.approx(mine - theirs, abs=TOL)
        assert split["regret_by_player"][0] == pytest.approx(mine, abs=TOL)
        rolls = [r for r in data["rolls"] if r["game"] == g]
        assert split["luck"] == pytest.approx(sum(r["luck"] for r in rolls), abs=TOL)
        # the identity, to 1e-9
        assert abs(split["result"] - (exact + sign * (split["luck"] - split["cost"]))) < TOL
        results.append(split["result"])
    # the results are the simulation's outcomes (computed while playing, not from the record)
    assert np.mean(results) == pytest.approx(sim["mean"], abs=TOL)
    assert min(results) == sim["min"] and max(results) == sim["max"]
    for key in ("expected_start", "luck", "cost", "result"):
        assert data[key] == pytest.approx(np.mean([s[key] for s in data["splits"]]), abs=TOL)
    assert (
        abs(data["result"] - (data["expected_start"] + sign * (data["luck"] - data["cost"]))) < TOL
    )
    assert data["identity"].startswith("result = expected_start " + ("-" if lower else "+"))
    if players == 2:
        assert "player 1" in data["split_units"]
    lucks = [r["luck"] for r in data["rolls"]]
    assert data["luckiest_roll"]["luck"] == max(lucks)
    assert data["unluckiest_roll"]["luck"] == min(lucks)
    regrets = [c["regret"] for c in data["costs"]]
    if policy == "optimal":
        assert max(regrets) <= TOL and data["costliest_decision"] is None
        assert all(abs(c["cost"]) <= TOL for c in data["costs"])
    else:
        # the recording player's own costliest move (never the other player's mistake)
        own = [c["cost"] for c in data["costs"] if c["player"] == 1 and c["regret"] > TOL]
        assert data["costliest_decision"]["player"] == 1
        assert data["costliest_decision"]["cost"] == max(own) > 0
        if players == 1:
            assert data["cost"] > 0  # random play is costly
    # the text says the same in words
    assert main([game_id, "analyse", str(record), *args]) == 0
    out = capsys.readouterr().out
    assert f"luck and skill ({data['split_units']})" in out
    for split in data["splits"]:
        assert f"game {split['game']}" in out and f"luck of the dice {split['luck']:.6f}" in out
    assert "luckiest roll:" in out and "unluckiest roll:" in out and "costliest decision:" in out


@pytest.mark.parametrize("game_id", sorted(games()))
def test_every_game_splits_exactly(game_id):
    """Every registered game (its small instance), random play through the API."""
    spec = games()[game_id]
    rules = spec.rules(None, **spec.small)
    outcomes, lines = play_games(spec, rules, 2, np.random.default_rng(5), "random")
    analysis = analyse_record(spec, rules, "\n".join(lines))
    exact = spec.solve(rules).value
    assert len(analysis.splits) == 2 and not analysis.missing
    for split, outcome in zip(analysis.splits, outcomes, strict=True):
        assert split.result == outcome and split.expected_start == exact
        assert abs(outcome - (exact + split.sign * (split.luck - split.cost))) < TOL


def test_seed_reproduces_the_record(capsys, tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    for path in (a, b):
        argv = ["stick", "simulate", "--games", "4", "--seed", "9", "--policy", "random"]
        assert main([*argv, "--record", str(path)]) == 0
    capsys.readouterr()
    assert a.read_text() == b.read_text()
    assert "policy random" in a.read_text().splitlines()[0]


def test_other_players_terms(capsys, tmp_path):
    """The same Pig game in player 2's terms: every part is mirrored (1 - v, -luck, -cost)."""
    record = tmp_path / "pig.txt"
    argv = ["--goal", "20"]
    main(["pig", "simulate", *argv, "--seed", "4", "--policy", "random", "--record", str(record)])
    capsys.readouterr()
    first = run_json(["pig", "analyse", str(record), *argv], capsys)
    record.write_text(record.read_text().replace("~> new game", "~> new game as player 2"))
    second = run_json(["pig", "analyse", str(record), *argv], capsys)
    assert second["splits"][0]["perspective"] == 2 and "player 2" in second["split_units"]
    assert second["expected_start"] == pytest.approx(1 - first["expected_start"], abs=TOL)
    assert second["result"] == pytest.approx(1 - first["result"], abs=TOL)
    assert second["luck"] == pytest.approx(-first["luck"], abs=TOL)
    assert second["cost"] == pytest.approx(-first["cost"], abs=TOL)
    mine, theirs = second["splits"][0]["regret_by_player"]
    assert second["cost"] == pytest.approx(theirs - mine, abs=TOL)
    record.write_text(record.read_text().replace("as player 2", "as player 3"))
    assert main(["pig", "analyse", str(record), *argv]) == 2
    assert "player 3 in a game of 2 players" in capsys.readouterr().err


def lucks(spec, rules, records: list[str]) -> list[list[float]]:
    """The luck of every roll of each record (one whole game each)."""
    out = []
    for text in records:
        analysis = analyse_record(spec, rules, text)
        assert not analysis.missing, analysis.missing
        out.append([r.luck for r in analysis.splits[0].rolls])
    return out


def test_stick_rolls_are_fair(tmp_path):
    """Enumerated outcomes: the opening roll's and a reroll's luck average to zero."""
    spec = get_game("stick")
    rules = spec.rules()
    rng = np.random.default_rng(0)

    def stick(dice: tuple[int, ...], points: int) -> tuple[str, float]:
        pos = spec.parse(rules, f"dice {' '.join(map(str, dice))} | points {points}")
        step = spec.apply(rules, pos, "stick", rng)
        return f"{spec.format(rules, pos)} => stick\n~> {step.events[0]}\n= {step.result!r}\n"

    # the opening roll: every multiset of three dice with its probability
    weights, records = [], []
    for dice in itertools.combinations_with_replacement(range(1, 7), 3):
        counts = Counter(dice).values()
        weights.append(factorial(3) / np.prod([factorial(c) for c in counts]) / 6**3)
        records.append("~> new game\n" + stick(dice, 0))
    assert sum(weights) == pytest.approx(1.0)
    opening = [luck[0] for luck in lucks(spec, rules, records)]
    assert max(map(abs, opening)) > 1  # some openings are clearly lucky or unlucky
    assert abs(np.dot(weights, opening)) < 1e-12
    # a reroll of one die: hold 3 3 from 1 3 3 (pay 1), each face 1/6
    records = [
        f"~> new game\ndice 1 3 3 | points 0 => hold 3 3\n"
        f"~> rolled {' '.join(map(str, sorted((x, 3, 3))))}\n{stick((x, 3, 3), -1)}"
        for x in range(1, 7)
    ]
    rerolls = [luck[1] for luck in lucks(spec, rules, records)]
    assert max(map(abs, rerolls)) > 1
    assert abs(np.mean(rerolls)) < 1e-12


def test_pig_rolls_are_fair_across_the_handover(tmp_path, monkeypatch):
    """A roll near the goal (goal 20): a 1 hands the turn over (the other player's
    position, 1 - v), 2..6 win at once (the result); the luck averages to zero, in
    either player's terms. (The records start near the end: only that roll is read.)"""
    spec = get_game("pig")
    rules = spec.rules(goal=20)
    starts: list[str] = []  # records are replayed: here a game starts where they do
    monkeypatch.setattr(
        type(spec), "new_position", lambda self, rules, rng: spec.parse(rules, starts[-1])
    )
    for player in ("", " | player 2"):
        for seat in ("", " as player 2"):
            first = 1.0 if player else 0.0  # the first player's result when the other wins
            me, other = ("player 2", "player 1") if player else ("player 1", "player 2")
            starts.append(f"me 16 | opponent 18 | turn 2{player}")
            records = [
                f"~> new game{seat}\n"
                f"me 16 | opponent 18 | turn 2{player} => roll\n"
                f"~> {me} rolled a 1; {me} loses the turn total\n"
                f"me 18 | opponent 16 | turn 0{' | player 2' if not player else ''} -> roll\n"
                f"~> {other} rolled a 2; {other} reaches 20 and wins\n= {first:g}\n"
            ]
            records += [
                f"~> new game{seat}\nme 16 | opponent 18 | turn 2{player} => roll\n"
                f"~> {me} rolled a {face}; {me} reaches {18 + face} and wins\n"
                f"= {1 - first:g}\n"
                for face in range(2, 7)
            ]
            rolled = [luck[1] for luck in lucks(spec, rules, records)]
            mine = 1 if (player == "") == (seat == "") else -1  # 1: the roller is the recorder
            assert mine * rolled[0] < -0.5 and all(mine * x > 0 for x in rolled[1:])
            assert abs(np.mean(rolled)) < 1e-12, (player, seat)
    # a hold rolls nothing: its luck is 0 (the next position is the other player's)
    starts.append("me 10 | opponent 12 | turn 6")
    text = (
        "~> new game\nme 10 | opponent 12 | turn 6 => hold\n~> player 1 banks 6\n"
        "me 12 | opponent 16 | turn 0 | player 2 -> roll\n"
        "~> player 2 rolled a 1; player 2 loses the turn total\n"
        "me 16 | opponent 12 | turn 0 -> roll\n"
        "~> player 1 rolled a 4; player 1 reaches 20 and wins\n= 1\n"
    )
    assert lucks(spec, rules, [text])[0][1] == 0.0


def test_records_without_rolls_get_the_costs(tmp_path, capsys):
    spec = get_game("stick")
    rules = spec.rules()
    old = "# an old record\ndice 1 3 3 => hold 3 3\ndice 2 3 3 => stick\n"
    path = tmp_path / "old.txt"
    path.write_text(old)
    data = run_json(["stick", "analyse", str(path)], capsys)
    expected = sum(
        spec.evaluate(rules, spec.parse(rules, p), a)[0].regret
        for p, a in [("dice 1 3 3", "hold 3 3"), ("dice 2 3 3", "stick")]
    )
    assert data["count"] == 2 and data["total_regret"] == pytest.approx(expected)
    assert data["whole_games"] == 0 and data["splits"] == [] and data["rolls"] == []
    assert data["luck"] is None and data["expected_start"] is None
    assert "luck needs the rolls" in data["luck_missing"][0]
    assert main(["stick", "analyse", str(path)]) == 0
    out = capsys.readouterr().out
    assert "2 decisions: total cost" in out and "luck and skill: luck needs the rolls" in out
    # a game that does not finish, or misses a roll, says which
    cases = {
        "~> new game\ndice 1 3 3 | points 0 => hold 3 3\n~> rolled 2 3 3\n": "does not finish",
        "~> new game\ndice 1 3 3 | points 0 => hold 3 3\n"
        "dice 2 3 3 | points -1 => stick\n~> stick with 2 3 3: 10 points\n= 9\n": "line 2 has "
        "no '~>' line",
        "dice 1 3 3 | points 0 => hold 3 3\n~> rolled 2 3 3\n"
        "dice 2 3 3 | points -1 => stick\n~> stick with 2 3 3: 10 points\n= 9\n": "from its start",
    }
    for text, message in cases.items():
        analysis = analyse_record(spec, rules, text)
        assert not analysis.splits and message in analysis.missing[0], analysis.missing


def test_malformed_record_lines_name_the_line(tmp_path, capsys):
    pos = "dice 1 3 3 | points 0"
    cases = {
        "~> rolled 1 2 3\n": "line 1: '~> ...' (what followed a move) must follow a move",
        f"{pos} => stick\n~> a\n~> b\n": "line 3: '~> ...'",
        "= 5\n": "line 1: '= RESULT' ends a game, but no move precedes it",
        f"{pos} => stick\n~> a\n= lots\n": "line 3: expected '= RESULT' (a number)",
        f"{pos} => stick\n~> a\n= nan\n": "line 3: the result must be a finite number",
        f"{pos} -> \n": "line 1: expected 'POSITION -> ACTION'",
        "~> new game\nnonsense\n": "line 2: expected 'POSITION => ACTION'",
        f"~> new game as player 0\n{pos} => stick\n": "players are numbered from 1",
        f"~> new game as player 2\n{pos} => stick\n~> a\n= 1\n": "player 2 in a game of 1 player",
    }
    for i, (text, message) in enumerate(cases.items()):
        path = tmp_path / f"r{i}.txt"
        path.write_text(text)
        assert main(["stick", "analyse", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("diceopt: error: "), err
        assert message in err, (text, err)


def test_simulate_record_bad_input(tmp_path, capsys):
    cases = [
        (
            ["yatzy", "simulate", "--record", str(tmp_path / "r.txt"), "--plot", "h.png"],
            "--plot cannot be combined with --record or --policy random",
        ),
        (["stick", "simulate", "--record", str(tmp_path / "no" / "r.txt")], "cannot write"),
        (["stick", "simulate", "--record", str(tmp_path)], "--record needs a file name"),
        (["stick", "simulate", "--policy", "greedy"], "invalid choice: 'greedy'"),
    ]
    for argv, message in cases:
        try:
            status = main(argv)
        except SystemExit as exc:
            status = exc.code
        out, err = capsys.readouterr()
        assert status == 2 and err.count("\n") == 1 and message in err, err
        assert "saved" not in out
    assert not (tmp_path / "r.txt").exists()


def test_simulate_random_policy_without_record(capsys):
    data = run_json(["stick", "simulate", "--policy", "random", "--games", "200"], capsys)
    assert data["games"] == 200 and data["policy"] == "random" and data["record"] is None
    assert data["mean"] < data["exact"]  # random play scores less than optimal play
    assert main(["stick", "simulate", "--policy", "random", "--games", "20"]) == 0
    out = capsys.readouterr().out
    assert "20 games of random play" in out and "exact value of optimal play" in out


def test_a_roll_is_named_unluckiest_only_where_luck_was_bad():
    """When no roll came out worse than expected, the text names none (the least lucky
    event may be a bank, luck 0), as the page does; the JSON keeps the minimum."""
    from dataclasses import replace

    spec = games()["pig"]
    rules = spec.rules(None, goal=20)
    _, lines = play_games(spec, rules, 1, np.random.default_rng(5), "random")
    analysis = analyse_record(spec, rules, "\n".join(lines))
    text = "\n".join(analysis.lines())
    assert "unluckiest roll: line" in text  # random play meets bad luck
    for split in analysis.splits:
        split.rolls = [replace(r, luck=abs(r.luck)) for r in split.rolls]
    text = "\n".join(analysis.lines())
    assert "unluckiest roll: none (no roll came out worse than expected)" in text
    assert "luckiest roll: line" in text
    assert analysis.to_json()["unluckiest_roll"]["luck"] >= 0
