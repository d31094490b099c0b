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
        (["stick", "solve", "--dice", "abc"], "--dice: not a whole number: 'abc'"),
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
        (["serve", "--port", "abc"], "--port: not a whole number: 'abc'"),
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
        (["pig", "boundary", "--step", "0"], "--step: must be a whole number from 1 to 150, got 0"),
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


def shell(command, tmp_path, stdin=None):
    """``diceopt ...`` run by the shell (which closes fds: ``<&-``, ``>&-``, ``2>&-``);
    the exit status, stdout and stderr (of this test's cache)."""
    import os
    import shlex
    import subprocess
    import sys

    python = shlex.quote(sys.executable)
    done = subprocess.run(
        ["sh", "-c", f"{python} -m diceopt {command}"],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "DICEOPT_CACHE": str(tmp_path)},
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    "command,message",
    [
        ("stick play <&-", "standard input is closed: play reads from it"),
        ("stick analyse - <&-", "standard input is closed: analyse - reads from it"),
        ("stick solve --json >&-", "standard output is closed"),
        ("stick solve >&-", "standard output is closed"),
        ("stick play >&-", "standard output is closed"),
        ("stick solve --dice 5 >/dev/full", "cannot write the output: No space left"),
    ],
)
def test_closed_or_failing_streams_are_one_error_line(command, message, tmp_path):
    if "/dev/full" in command and not __import__("os").path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    status, out, err = shell(command, tmp_path)
    assert status == 2, err
    assert "Traceback" not in err and err.count("diceopt: error:") == 1, err
    assert err.splitlines()[-1] == f"diceopt: error: {message}" or message in err, err


def test_closed_stderr_still_prints_the_output(tmp_path):
    status, out, err = shell("stick solve 2>&-", tmp_path)
    assert status == 0
    assert "optimal value from the start: 13.348269" in out
    status, out, err = shell("stick solve --json >&- 2>&-", tmp_path)
    assert status == 2 and out == err == ""


def test_huge_numbers_are_too_large_and_long_input_is_cut(capsys):
    """A finite number too large for a float is "too large", not "not finite"; an error
    line echoes at most 300 characters of the input, however long it is."""
    digits = "1" + "0" * 100_000
    for argv, message in [
        (["stick", "advise", f"dice 1 3 3 | points {digits}"], "too large: '1000"),
        (["stick", "advise", "dice 1 3 3 | points -1e400"], "too large: '-1e400'"),
        (["stick", "solve", "--penalty", "1e999"], "argument --penalty: too large"),
        (["yatzy", "solve", "--theta", "1e400"], "argument --theta: too large"),
        (["yatzy", "advise", "dice 1 1 1 1 1 | rerolls 0 | score 1e400"], "score too large"),
        (["stick", "advise", "x" * 100_000], "not a number: 'xxx"),
        (["stick", "solve", "--dice", "9" * 100_000], "argument --dice: too large"),
        (["stick", "simulate", "--games", "9" * 5_000], "argument --games: too large"),
        (["pig", "advise", f"me {'9' * 5_000} | opponent 0"], "too large"),
        (["shutbox", "advise", f"open 1 {'9' * 5_000}"], "open tiles: too large"),
        (["shutbox", "solve", "--variant", f"always-two/score/{'9' * 5_000}"], "too large"),
        (["stick", "solve", "--variant", f"{'9' * 5_000}d6"], "too large"),
        (["pig", "solve", "--variant", f"goal-{'9' * 5_000}"], "too large"),
        (["yatzy", "advise", f"dice 1 1 1 1 1 | rerolls {'9' * 5_000}"], "rerolls is too large"),
        (["stick", "advise", f'{{"dice": [{"9" * 5_000}]}}'], "too large: '999"),
        (["stick", "advise", '{"dice": [1, 3, 3], "points": 1e400}'], "too large: '1e400'"),
        (["yatzy", "advise", '{"dice": [1, 1, 1, 1, 1], "rerolls": 0, "score": 1e400}'], "too"),
    ]:
        status, err = run(argv, capsys)
        assert status == 2 and err.count("\n") == 1 and err.startswith("diceopt: error: "), err
        assert message in err and len(err) < 400, err


def parser_actions(parser):
    """Every (command, action) of the parser and its subcommands."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from parser_actions(sub)
        else:
            yield parser.prog, action


def test_no_option_answers_with_a_function_name():
    """Every option's type gives argparse a reason (ArgumentTypeError) for bad text, or is
    a built-in type argparse names itself: never "invalid _probability value"."""
    import argparse

    from diceopt.cli import build_parser

    checked = 0
    for prog, action in parser_actions(build_parser()):
        if action.type is None or action.type in (int, float, str):
            continue
        for text in ("x", "2", "-1", "1e999", "", "1" * 5000):
            try:
                action.type(text)
            except argparse.ArgumentTypeError as exc:
                assert str(exc), (prog, action.dest, text)
            checked += 1
    assert checked > 100


def test_rules_values_of_evaluate_say_what_they_must_be(capsys):
    status, err = run(["evaluate", "stick", "--agent", "a:b", "--rule", "dice=x"], capsys)
    assert status == 2 and "--rule 'dice=x': not a whole number: 'x'" in err, err


@pytest.mark.parametrize(
    "argv,message",
    [
        (["yatzy", "export", "--eps", "0.2", "x.jsonl"], "--eps is for --from perturbed"),
        (["yatzy", "export", "--from", "random", "--eps", "0", "x.jsonl"], "random player"),
        (["yatzy", "sweep", "--thetas", "0,0.1", "--theta", "0.1"], "sweep does not use --theta"),
        (["yatzy", "duel", "--theta", "0.1"], "duel does not use --theta"),
        (["yatzy", "targets", "--theta", "0.1"], "targets does not use --theta"),
        (
            ["yatzy", "advise", "dice 1 1 1 1 1 | rerolls 0", "--opponent-plays", "win"],
            "give --opponent too",
        ),
        (
            ["yatzy", "advise", "dice 1 1 1 1 1 | rerolls 0 | score 0", "--target", "200"]
            + ["--theta", "0.05"],
            "--target ranks actions by a probability: --theta does not apply",
        ),
        (
            ["shutbox", "solve", "--variant", "two-then-one/win", "--objective", "shut"],
            "--variant two-then-one/win sets objective win, but --objective shut",
        ),
        (
            ["shutbox", "solve", "--variant", "always-two/shut", "--players", "2"],
            "--players 2 plays for wins",
        ),
        (
            ["shutbox", "solve", "--variant", "always-two/score/9", "--tiles", "5"],
            "sets tiles 9, but --tiles 5",
        ),
        (["stick", "solve", "--variant", "2d3", "--dice", "3"], "sets dice 2, but --dice 3"),
        (["pig", "solve", "--variant", "goal-20", "--goal", "30"], "sets goal 20, but --goal 30"),
        (["stick", "solve", "--variant", ""], "--variant: needs a variant name"),
        (["shutbox", "solve", "--variant", " "], "--variant: needs a variant name"),
        (["evaluate", "stick", "--agent", "a:b", "--variant", ""], "needs a variant name"),
        (["shutbox", "solve", "--variant", "/"], "unknown shutbox variant '/'"),
        (["shutbox", "play", "--seat", "2"], "has one player: --seat 2 does not apply"),
        (["stick", "play", "--json"], "unrecognized arguments: --json"),
    ],
)
def test_conflicting_options_are_refused(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    status, err = run(argv, capsys)
    assert status == 2 and err.count("\n") == 1 and err.startswith("diceopt: error: "), err
    assert message in err, err
    assert not list(tmp_path.iterdir()), "work was done before the options were checked"


def test_options_that_agree_with_the_variant_are_fine(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    for argv in (
        ["stick", "solve", "--variant", "2d3", "--dice", "2", "--penalty", "2"],
        ["shutbox", "solve", "--variant", "two-then-one/win", "--objective", "win"],
        ["shutbox", "solve", "--variant", "always-two/score", "--tiles", "5"],
        ["pig", "solve", "--variant", "goal-5", "--sides", "4"],
    ):
        status, err = run(argv, capsys)
        assert status == 0, (argv, err)


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
