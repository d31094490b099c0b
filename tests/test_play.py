"""The one interactive play loop, driven for every registered game by a scripted player.

Best moves every time give zero total regret and a finished game; empty lines and bad
lines are asked again (an empty line never acts); ``?`` prints a hint; end of input says
goodbye with the total regret so far and exits 0.
"""

from __future__ import annotations

import re

import pytest

from diceopt.cli import main
from diceopt.games.registry import games


@pytest.fixture(scope="module", autouse=True)
def _cache(web_env):
    return web_env


class Player:
    """Fake ``input``: answers from ``script(advice, step)`` using the advice of the position
    the loop last asked about (recorded by wrapping the game's ``advise``)."""

    def __init__(self, monkeypatch, spec, script):
        self.advice = None
        self.script = script
        self.step = 0
        original = spec.advise

        def advise(rules, pos):
            self.advice = original(rules, pos)
            return self.advice

        monkeypatch.setattr(spec, "advise", advise)
        monkeypatch.setattr("builtins.input", self)

    def __call__(self, prompt=""):
        line = self.script(self.advice, self.step)
        self.step += 1
        if line is None:
            raise EOFError
        return line


def small_args(spec) -> list[str]:
    out = []
    for name, value in spec.small.items():
        out += [f"--{name.replace('_', '-')}", str(value)]
    return out


@pytest.mark.parametrize("game_id", sorted(games()))
def test_best_moves_every_time(game_id, monkeypatch, capsys):
    spec = games()[game_id]
    Player(monkeypatch, spec, lambda advice, step: advice.best.action)
    assert main([game_id, "play", "--seed", "5", *small_args(spec)]) == 0
    out = capsys.readouterr().out
    assert "costs" not in out
    assert re.search(r"decisions graded; total regret 0\.0000", out), out[-500:]


@pytest.mark.parametrize("game_id", sorted(games()))
def test_blank_and_bad_lines_ask_again_then_eof_says_goodbye(game_id, monkeypatch, capsys):
    spec = games()[game_id]
    script = ["", "   ", "no such move at all", "?"]

    def play(advice, step):
        if step < len(script):
            return script[step]
        if step == len(script):
            return advice.actions[-1].action  # the worst move: graded with its cost
        return None  # end of input

    Player(monkeypatch, spec, play)
    assert main([game_id, "play", "--seed", "3", *small_args(spec)]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert len(err.strip().splitlines()) == 1  # one line for the bad move; blanks re-ask
    assert "hint:" in out
    last = out.strip().splitlines()[-1]  # goodbye, or the end if that move ended the game
    found = re.fullmatch(r"(goodbye: 1 decisions,|1 decisions graded;) total regret (\S+) .*", last)
    assert found and float(found.group(2)) > 0, last
