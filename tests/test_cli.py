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
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    status, err = run(argv, capsys)
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("diceopt: error: ")
    assert message in lines[0] and "Traceback" not in err
