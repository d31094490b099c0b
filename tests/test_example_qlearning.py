"""examples/qlearning_stick.py runs at a small size and prints exact losses >= 0."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("gymnasium")

ROOT = Path(__file__).resolve().parent.parent
LINE = re.compile(r"^episodes (\d+): exact loss (-?\d+\.\d+) points per game")


def test_the_qlearning_example_prints_its_exact_loss(tmp_path):
    env = dict(os.environ, DICEOPT_CACHE=str(tmp_path))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    args = ["--episodes", "300", "--every", "100", "--dice", "2", "--sides", "3"]
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "qlearning_stick.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = [LINE.match(line) for line in done.stdout.splitlines()]
    assert len(found) == 3 and all(found), done.stdout
    assert [int(m.group(1)) for m in found] == [100, 200, 300]
    assert all(float(m.group(2)) >= -1e-9 for m in found)
