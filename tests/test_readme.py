"""README examples print what the README says (the numbers it quotes, to the digits shown)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diceopt.cli import main

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


@pytest.mark.parametrize(
    "argv, shown",
    [
        (["stick", "solve", "--dice", "2", "--sides", "3"], "4.250000000"),
        (["stick", "solve"], "13.348269628"),
        (["stick", "advise", "dice 1 3 3"], "hold 1"),
        (["stick", "advise", "dice 1 3 3"], "13.375000000"),
        (["pig", "advise", "me 41 | opponent 49 | turn 22"], "0.602304702"),
        (["shutbox", "solve"], "11.021120546"),
    ],
)
def test_readme_examples_print_what_the_readme_says(argv, shown, capsys):
    assert shown in README  # the README quotes it ...
    assert main(argv) == 0
    assert shown in capsys.readouterr().out  # ... and the command prints it


def test_stick_rules_are_explained_in_help_and_readme(capsys):
    with pytest.raises(SystemExit):
        main(["stick", "--help"])
    text = capsys.readouterr().out
    assert re.search(r"flips\s+to\s+its opposite face", text)
    assert "flips to its opposite face" in README


def test_yatzy_impossible_score_is_one_line(capsys):
    position = "dice 1 2 3 4 5 | rerolls 2 | score 1e20"
    assert main(["yatzy", "advise", position]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "at most 374 points" in err
