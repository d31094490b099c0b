"""``diceopt warm``: every game's warm-up jobs parse as commands, run in child processes,
and a failing job is named with its error (exit 1); bad options get one line, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from diceopt import compile_ahead
from diceopt.cli import build_parser, main
from diceopt.games.contract import WarmJob
from diceopt.games.registry import games


def test_every_game_has_warm_jobs_whose_commands_parse(tmp_path: Path):
    jobs = compile_ahead.warm_jobs(tmp_path)
    named = {job.commands[0][0] for job in jobs}
    assert named == set(games())
    assert [job.weight for job in jobs] == sorted((job.weight for job in jobs), reverse=True)
    for job in jobs:
        for argv in job.commands:
            args = build_parser(argv).parse_args(argv)  # argparse exits on a bad command
            assert args.game == argv[0]
    yatzy = [job for job in jobs if job.name.startswith("yatzy")]
    dtypes = {argv[argv.index("--dtype") + 1] for job in yatzy for argv in job.commands}
    assert dtypes == {"float32", "float64"}  # the named variants' type and the rule files'
    assert (tmp_path / "warm-small.toml").is_file()
    # served points (Generala) compile the scalar widget's kernels: warmed too
    served = [job for job in yatzy if any("warm-small-served" in a for a in job.commands[0])]
    assert [argv[1] for job in served for argv in job.commands] == ["simulate", "distribution"]
    assert "served = " in (tmp_path / "warm-small-served.toml").read_text()


def test_warm_runs_a_game_in_a_child_process(capsys):
    assert main(["warm", "--game", "shutbox", "--processes", "1", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"shutbox"' in out and '"failed": {}' in out


def test_a_failing_job_is_named_with_its_error(monkeypatch, capsys):
    bad = WarmJob("broken", [["yatzy", "solve", "--variant", "no-such-variant"]])
    monkeypatch.setattr(compile_ahead, "warm_jobs", lambda folder, games=None: [bad])
    assert main(["warm", "--processes", "1"]) == 1
    err = capsys.readouterr().err
    line = "diceopt warm: broken: yatzy solve --variant no-such-variant (exit status 2): "
    assert f"{line}diceopt: error: unknown Yatzy variant 'no-such-variant'" in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["warm", "--processes", "0"], "use 1 to 16 processes"),
        (["warm", "--processes", "x"], "not a whole number"),
        (["warm", "--game", "chess"], "unknown game 'chess'"),
    ],
)
def test_bad_options_get_one_line_and_status_2(argv, words, capsys):
    with pytest.raises(SystemExit) as exit_info:
        status = main(argv)
        raise SystemExit(status)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) <= 2 and words in err[-1]
