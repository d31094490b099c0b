"""Every option of every command of every registered game, given nonsense (huge and
negative numbers, floats, empty and long text), is refused at parse time with exit
status 2 and one line on stderr, or accepted; never a traceback. Also: bounded counts
and seeds, one spelling of rule files, and an unknown option pointing to its command's
help."""

from __future__ import annotations

import argparse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diceopt.cli import build_parser, join_negative_values, main
from diceopt.cli.game import rules_from
from diceopt.errors import InputError
from diceopt.games.registry import games

NONSENSE = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    st.sampled_from(["-1", "0", "1", "10" * 15, str(10**30), "-" + str(10**30), "1e309"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.just(""),
    st.text(max_size=40),
    st.text(alphabet="0123456789-.e,/ ", min_size=200, max_size=400),
)


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _commands() -> list[tuple[str, str, str]]:
    """(game, command, option) for every option that takes a value."""
    out = []
    for game in sorted(games()):
        parser = build_parser([game])
        for name, sub in _subparsers(_subparsers(parser)[game]).items():
            for action in sub._actions:
                if action.option_strings and action.nargs != 0 and action.dest != "help":
                    out.append((game, name, action.option_strings[0]))
    return out


COMMANDS = _commands()


def _parse(argv: list[str], capsys) -> tuple[int | None, str]:
    """Parse as ``main`` does: (exit status of a refusal or None, stderr)."""
    argv = join_negative_values(argv)
    try:
        parser = build_parser(argv)
        args = parser.parse_args(argv)
    except SystemExit as stop:
        return int(stop.code or 0), capsys.readouterr().err
    if hasattr(args, "game") and args.game in games() and hasattr(args, "variant"):
        try:  # the rules, validated before any work (InputError: one line from main)
            rules_from(games()[args.game], args)
        except InputError as exc:
            assert "\n" not in str(exc)
    return None, capsys.readouterr().err


def test_every_game_and_command_has_options():
    assert {g for g, _, _ in COMMANDS} == set(games())
    assert len(COMMANDS) > 50


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(where=st.sampled_from(COMMANDS), value=NONSENSE)
def test_nonsense_option_values_are_refused_in_one_line_or_accepted(where, value, capsys):
    game, command, option = where
    argv = [game, command, option, value]
    if command in ("advise",):
        argv.append("x")  # the position: not looked at before the options
    status, err = _parse(argv, capsys)
    if status is not None:
        assert status == 2, err
        assert err.count("\n") == 1 and err.startswith("diceopt: error: "), err
        assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["zombie", "turn", "--seed", "-1"],
        ["zombie", "turn", "--games", "99999999999999999999"],
        ["zombie", "turn", "--games", "-3"],
        ["shutbox", "diff", "--limit", str(10**30)],
        ["pig", "boundary", "--step", str(10**20)],
        ["pig", "fair", "--candidates", str(10**20)],
        ["farkle", "simulate", "--games", str(10**20)],
        ["yatzy", "simulate", "--seed", str(10**25)],
        ["yatzy", "advise", "--target", str(10**30), "dice 1 2 3 4 5 | rerolls 2"],
        ["serve", "--port", "70000"],
        ["serve", "--workers", "0"],
    ],
)
def test_counts_and_seeds_are_bounded_at_parse_time(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1
    option = next(word for word in reversed(argv) if word.startswith("--"))
    assert err.startswith(f"diceopt: error: argument {option}")


def test_unknown_option_points_to_its_own_commands_help(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["zombie", "turn", "--bogus", "1"])
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert err == (
        "diceopt: error: unrecognized arguments: --bogus 1 (see 'diceopt zombie turn --help')\n"
    )


@pytest.mark.parametrize("game", ["zilch", "farkle"])
def test_rule_files_are_named_with_rules_and_the_old_spelling_still_works(game, capsys):
    shipped = {"zilch": "zilch", "farkle": "pig"}[game]
    for option in ("--rules", "--rule-file"):
        args = build_parser([game, "solve"]).parse_args([game, "solve", option, shipped])
        assert args.rules == shipped
    helptext = build_parser([game, "solve"])
    with pytest.raises(SystemExit):
        helptext.parse_args([game, "solve", "--help"])
    out = capsys.readouterr().out
    assert "--rules NAME|FILE" in out and "--rule-file" not in out


def test_farkle_takes_a_two_player_file_and_solves_pig_from_it(tmp_path, capsys):
    """Pig's rule file through Farkle's commands: Pig's own value (to 20 points)."""
    assert main(["pig", "solve", "--goal", "20", "--json", "--cache-dir", str(tmp_path)]) == 0
    pig = capsys.readouterr().out
    argv = ["farkle", "solve", "--rules", "pig", "--goal", "20", "--json"]
    assert main([*argv, "--cache-dir", str(tmp_path)]) == 0
    farkle = capsys.readouterr().out
    import json

    a, b = json.loads(pig)["value"], json.loads(farkle)["value"]
    assert abs(a - b) < 1e-12 and json.loads(farkle)["rules"]["rules"] == "pig"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["zilch", "solve", "--rules", "farkle"], "farkle solve --rules FILE takes two-player"),
        (["farkle", "solve", "--rules", "zilch"], "zilch solve --rules FILE takes one-player"),
        (["farkle", "solve", "--rules", "pig", "--variant", "quick"], "either --variant or"),
    ],
)
def test_a_rule_file_for_another_game_names_the_game(argv, says, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err


@pytest.mark.parametrize(
    ("name", "game"), [("pig", "farkle"), ("farkle", "farkle"), ("zilch", "zilch")]
)
def test_rules_check_names_the_command_that_takes_a_push_luck_file(name, game, capsys):
    assert main(["rules", "check", name]) == 0
    assert f"play it with diceopt {game} COMMAND --rules {name}" in capsys.readouterr().out
    assert main(["rules", "check", name, "--json"]) == 0
    assert f'"game": "{game}"' in capsys.readouterr().out
