"""``diceopt yatzy play``: whole scripted games, grading, total regret, bad lines, EOF."""

from __future__ import annotations

import re

import pytest

from diceopt.cli import main
from diceopt.cli.yatzy import parse_move
from diceopt.errors import InputError
from diceopt.games.yatzy.advice import advise_position, parse_position
from diceopt.games.yatzy.rules import AMERICAN, SCANDINAVIAN, get_rules
from diceopt.games.yatzy.storage import get_table


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    path = tmp_path_factory.mktemp("yatzy-play-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DICEOPT_CACHE", str(path))
        yield path


class Player:
    """Fake ``input``: reads the game's output so far and answers from a script.

    ``script(position, actions, step)`` returns the line to type (``actions``: the advice
    for the last printed position, best first). Everything printed is kept in ``out``.
    """

    def __init__(self, capsys, variant, script):
        self.capsys = capsys
        self.rules = get_rules(variant)
        self.table, _ = get_table(variant)
        self.script = script
        self.out = ""
        self.step = 0

    def __call__(self, prompt=""):
        self.out += self.capsys.readouterr().out + prompt
        text = re.findall(r"^position: (.*)$", self.out, flags=re.M)[-1]
        pos = parse_position(text, self.rules)
        actions = advise_position(pos, self.rules, self.table)
        line = self.script(pos, actions, self.step)
        self.step += 1
        self.out += line + "\n"
        return line

    def finish(self):
        self.out += self.capsys.readouterr().out
        return self.out


def best(pos, actions, step):
    return actions[0].action


@pytest.mark.parametrize("variant", ["scandinavian", "american"])
def test_best_moves_every_time_zero_regret(cache, capsys, monkeypatch, variant):
    player = Player(capsys, variant, best)
    monkeypatch.setattr("builtins.input", player)
    assert main(["yatzy", "play", "--variant", variant, "--seed", "7"]) == 0
    out = player.finish()
    rules = player.rules
    assert "Traceback" not in out
    assert out.count("best move (expected final score") == player.step
    assert "costs" not in out
    assert rules.num_categories <= player.step <= 3 * rules.num_categories
    assert f"total regret 0.00 points over {player.step} decisions" in out
    assert "--- game over ---" in out
    final = int(re.search(r"final score (\d+) points", out).group(1))
    # the last sheet's score line agrees, and every category was written
    assert f"score {final}" in out.split("--- game over ---")[1]
    assert len(re.findall(r"^  wrote ", out, flags=re.M)) == rules.num_categories
    assert out.count("--- turn ") == rules.num_categories


def test_bad_lines_reprompt_and_regret_adds_up(cache, capsys, monkeypatch):
    bad = ["", "blah", "keep 7", "keep 1 2 3 4 5 6", "score bogus", "s f", "keep"]
    errors = [
        "type a move",
        "unknown move 'blah'",
        "a die shows 1 to 6, got 7",
        "cannot keep 1 2 3 4 5 6",
        "unknown category 'bogus'",
        "'f' is ambiguous: fours fives four_of_a_kind full_house",
        "keep which dice?",
    ]

    def script(pos, actions, step):
        if step < len(bad):
            return bad[step]
        if step == len(bad):
            return "?"
        if step == len(bad) + 1:
            return "sheet"
        if step == len(bad) + 2:
            return "score chance"  # rarely the best first move
        if pos.rerolls == 0 and "ones" not in pos.filled:
            return "s ones"
        return actions[0].action

    player = Player(capsys, "scandinavian", script)
    monkeypatch.setattr("builtins.input", player)
    assert main(["yatzy", "play", "--seed", "11"]) == 0
    out = player.finish()
    assert "Traceback" not in out
    for message in errors:
        assert out.count(message) == 1, message
    # each bad line: one message line, then the same dice are shown again
    first_turn = out.split("--- turn 2 of")[0]
    assert first_turn.count("position: dice") == len(bad) + 3
    assert "expected final score" in first_turn  # the '?' hint
    costs = [float(x) for x in re.findall(r": costs (\d+\.\d+) points", out)]
    assert costs and costs[0] > 0  # score chance first
    total = float(re.search(r"total regret (\d+\.\d+) points", out).group(1))
    assert total == pytest.approx(sum(costs), abs=0.01 * len(costs) + 0.01)
    assert "final score" in out


def test_eof_ends_quietly(cache, capsys, monkeypatch):
    def eof(prompt=""):
        raise EOFError

    monkeypatch.setattr("builtins.input", eof)
    assert main(["yatzy", "play", "--seed", "1"]) == 0
    out, err = capsys.readouterr()
    assert "game abandoned" in out and "total regret 0.00 points over 0 decisions" in out
    assert err == ""


def test_quit_after_a_few_moves(cache, capsys, monkeypatch):
    lines = iter(["r", "keep -", "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    assert main(["yatzy", "play", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "game abandoned" in out and "over 2 decisions" in out


@pytest.mark.parametrize(
    "line, action",
    [
        ("keep 3 3", "keep 3 3"),
        ("K 5 3 3", "keep 3 3 5"),
        ("k 335", "keep 3 3 5"),
        ("keep -", "keep -"),
        ("k -", "keep -"),
        ("r", "keep -"),
        ("reroll", "keep -"),
        ("score chance", "score chance"),
        ("s ch", "score chance"),
        ("s Full", "score full_house"),
        ("yatzy", "score yatzy"),
        ("two_pairs", "score two_pairs"),
    ],
)
def test_parse_move_short_forms(line, action):
    assert parse_move(line, SCANDINAVIAN) == action


def test_parse_move_american_and_errors():
    assert parse_move("s yah", AMERICAN) == "score yahtzee"
    assert parse_move("s sm", AMERICAN) == "score small_straight"
    for line in ("", "keep x", "s", "s t", "fly", "r 3"):
        with pytest.raises(InputError):
            parse_move(line, SCANDINAVIAN)
