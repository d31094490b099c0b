"""Every command: bad input gets one line `diceopt: error: ...` and exit status 2."""

import pytest

from diceopt.cli import main


def run(argv, capsys):
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse errors exit through Parser.error
        status = exc.code
    return status, capsys.readouterr().err


@pytest.mark.parametrize(
    "argv,message",
    [
        (["stick", "solve", "--dice", "abc"], "invalid int value: 'abc'"),
        (["stick", "solve", "--values", "1,2,x,4,5,6"], "not a number: 'x'"),
        (["stick", "solve", "--values", "1,2,3,4,5,nan"], "must be finite"),
        (["stick", "solve", "--dice", "20", "--sides", "20"], "at most 400,000"),
        (["stick", "solve", "--sides", "100000"], "at most 400,000"),
        (["stick", "simulate", "--seed", "-1"], "--seed: must be >= 0"),
        (["stick", "simulate", "--games", "0"], "--games: must be 1 to"),
        (["stick", "simulate", "--games", "99999999999"], "--games: must be 1 to"),
        (["yatzy", "solve", "--dtype", "float16"], "invalid choice: 'float16'"),
        (["yatzy", "simulate", "--seed", "-3"], "--seed: must be >= 0"),
        (["shutbox", "solve", "--players", "3"], "invalid choice: 3"),
        (["shutbox", "play", "--seed", "-2"], "--seed: must be >= 0"),
        (["pig", "solve", "--goal", "5", "--plot", "/no/such/dir/x.png"], "no such directory"),
        (["pig", "advise", "me 3 | opponent 0", "--goal", "20", "--sides", "2"], "cannot occur"),
        (["serve", "--port", "abc"], "invalid int value: 'abc'"),
        (["nosuchgame"], "invalid choice: 'nosuchgame'"),
        (["stick"], "required: COMMAND"),
        (["yatzy", "advize"], "invalid choice: 'advize' (choose from 'solve', 'advise', 'play'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    status, err = run(argv, capsys)
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("diceopt: error: ")
    assert message in lines[0] and "Traceback" not in err


@pytest.mark.parametrize(
    "argv,message",
    [
        (["stick", "solve", "--values", "1,2,3,4,5,1e308"], "face values up to 1e+308"),
        (
            ["stick", "solve", "--bias", "-0.1", "0.3", "0.2", "0.2", "0.2", "0.2"],
            "face probabilities must be >= 0",
        ),
        (["stick", "solve", "--penalty", "-1e-3"], "penalty must be 0 to"),
        (["yatzy", "solve", "--theta", "-1e3"], "theta"),
        (["pig", "boundary", "--step", "0"], "--step must be at least 1"),
        (["pig", "solve", "--goal", "5", "--plot", "boundary"], "cannot tell the plot format"),
        (["pig", "boundary", "--goal", "5", "--plot", "."], "needs a file name"),
        (["yatzy", "simulate", "--plot", ""], "needs a file name"),
        (["yatzy", "simulate", "--plot", "x.txt"], "cannot tell the plot format"),
        (["pig", "advise", "me 0 | opponent 0 | turn 200"], "reaches the goal 100"),
        (["stick", "solve", "--variant", "3dx"], "unknown stick variant"),
    ],
)
def test_defects_found_by_a_new_user_are_one_line_errors(argv, message, capsys):
    status, err = run(argv, capsys)
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], err


def test_number_lists_with_spaces_commas_fractions_and_negative_values(capsys):
    import json

    def value(*argv):
        assert main(["stick", "solve", "--json", *argv]) == 0
        return json.loads(capsys.readouterr().out)

    uniform = value("--dice", "2")
    spaced = value("--dice", "2", "--bias", *["1/6"] * 6)
    commas = value("--dice", "2", "--bias", ",".join(["1/6"] * 6))
    assert spaced["value"] == pytest.approx(uniform["value"], abs=1e-12)
    assert commas["value"] == spaced["value"]
    negative = value("--dice", "2", "--values", "-1", "2", "3", "4", "5", "6")
    assert negative["rules"]["values"] == [-1, 2, 3, 4, 5, 6]


def test_version_game_names_and_help_on_every_option(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.startswith("diceopt ")
    assert main(["Stick", "advise", "dice 1 3 3", "--variant", "3D6"]) == 0
    assert "hold 1" in capsys.readouterr().out
    from diceopt.cli import build_parser

    def every_action(parser):
        for action in parser._actions:  # argparse has no public listing of options
            yield parser, action
            for sub in getattr(action, "choices", None) or {}:
                if isinstance(action.choices, dict):
                    yield from every_action(action.choices[sub])

    for parser, action in every_action(build_parser()):
        if action.option_strings and action.dest != "help":
            assert action.help, f"{parser.prog} {action.option_strings} has no help"


def command_paths(parser, path=()):
    """The words of every command and subcommand (``()`` is ``diceopt`` itself), found by
    walking argparse's subparsers, so that every registered game's are included."""
    import argparse

    yield path
    for action in parser._actions:  # argparse has no public listing of subparsers
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from command_paths(sub, (*path, name))


def test_help_of_every_command_and_subcommand(capsys):
    from diceopt.cli import build_parser

    paths = list(command_paths(build_parser()))
    assert ("yatzy", "duel") in paths and ("evaluate",) in paths and ("serve",) in paths
    for path in paths:
        for flag in ("--help", "-h"):
            with pytest.raises(SystemExit) as done:
                main([*path, flag])
            out, err = capsys.readouterr()
            shown = " ".join(["diceopt", *path, flag])
            assert done.value.code == 0, f"{shown}: exit {done.value.code}: {err}"
            assert out.strip(), f"{shown}: no help printed"
            assert "%%" not in out, f"{shown}: a doubled % in the help"
            assert "usage: diceopt" in out, shown
    assert "95% interval" in main_help(capsys, "evaluate")
    assert "95% interval" in main_help(capsys, "yatzy")


def main_help(capsys, *path):
    """The help text of ``diceopt PATH --help``, lines joined with single spaces."""
    with pytest.raises(SystemExit):
        main([*path, "--help"])
    return " ".join(capsys.readouterr().out.split())
