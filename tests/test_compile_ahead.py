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


def test_yatzy_warm_up_asks_for_advice_against_finished_and_several_opponents(tmp_path, capsys):
    """The advice against an opponent who has finished (the exact draw-aware rows, float64
    whatever the table's type) and against two (the table's chance steps) compile kernels
    of their own: each warm job runs them, and they run (a sheet that did not parse would
    fail the warm-up only when ``make run`` runs it)."""
    from diceopt.games.yatzy.rulebook.compiler import load_rules

    jobs = [j for j in compile_ahead.warm_jobs(tmp_path) if j.name.startswith("yatzy float")]
    assert len(jobs) == 2
    for job in jobs:
        advice = [argv for argv in job.commands if argv[1] == "advise" and "--opponent" in argv]
        sheets = [[argv[i + 1] for i, a in enumerate(argv) if a == "--opponent"] for argv in advice]
        assert [len(s) for s in sheets] == [1, 1, 2]
        rules = load_rules(tmp_path / "warm-small.toml")
        finished = sheets[1][0]
        assert set(finished.split("|")[0].split()[1:]) == set(rules.categories)
        for argv in advice[1:]:
            assert main([*argv, "--cache-dir", str(tmp_path / "tables"), "--json"]) == 0
            assert '"actions"' in capsys.readouterr().out


def test_a_games_warm_up_advises_at_its_small_position(tmp_path, capsys):
    """Pig's and Farkle's advice reads each roll's value, a kernel that solve and simulate
    do not run: their warm jobs ask for advice at a position of the small instance, and
    that advice runs."""
    asked = set()
    for gid, spec in games().items():
        for job in spec.warm_jobs(tmp_path):
            for argv in job.commands:
                if gid != "yatzy" and argv[1] == "advise":
                    asked.add(gid)
                    assert argv[2] == spec.small_position
                    assert main([*argv, "--cache-dir", str(tmp_path / "tables")]) == 0
                    assert "probability that the player to move wins" in capsys.readouterr().out
    assert asked == {"pig", "farkle"}


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
