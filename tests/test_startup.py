"""Start-up: ``import diceopt`` and building the command line load no numba, no web
framework and no research extra (each a fresh process, so that nothing imported by
other tests hides a load)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_plugin import plugin_site  # noqa: F401  (the example plug-in, pip-installed)

import diceopt
from diceopt.games import registry

HEAVY = ("numba", "fastapi", "starlette", "uvicorn", "gymnasium", "pettingzoo", "pyarrow", "ray")
SRC = str(Path(diceopt.__file__).resolve().parents[1])

REPORT = """
import json, sys
heavy = {heavy!r}
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & set(heavy))))
"""


def loaded_after(code: str, *path: str) -> list[str]:
    """The heavy top-level packages in ``sys.modules`` after running ``code`` in a new
    process (``path``: more import paths, e.g. a plug-in's)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*path, SRC]))
    env.pop("OPENBLAS_NUM_THREADS", None)
    done = subprocess.run(
        [sys.executable, "-c", code + REPORT.format(heavy=HEAVY)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_diceopt_loads_nothing_heavy():
    code = "import diceopt\nassert callable(diceopt.evaluate)\n"
    assert loaded_after(code) == []


@pytest.mark.parametrize("user", [None, "1"])
def test_import_diceopt_asks_numpy_for_small_pages_unless_the_user_says(user):
    env = dict(os.environ, PYTHONPATH=SRC)
    env.pop("NUMPY_MADVISE_HUGEPAGE", None)
    if user is not None:
        env["NUMPY_MADVISE_HUGEPAGE"] = user
    code = "import os, diceopt\nprint(os.environ['NUMPY_MADVISE_HUGEPAGE'])\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == (user or "0")


def test_the_whole_command_line_parser_loads_nothing_heavy(plugin_site):  # noqa: F811
    code = (
        "from diceopt.cli import build_parser\n"
        "from diceopt.games.registry import games\n"
        "parser = build_parser()\n"
        "assert 'bust' in games() and 'yatzy' in games()\n"
        "for words in (['--help'], ['yatzy', '--help'], ['bust', 'solve', '--help']):\n"
        "    try:\n"
        "        parser.parse_args(words)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "import sys\n"
        "assert 'numpy._core' not in sys.modules, 'numpy was loaded'  # (diceopt.lazy)\n"
    )
    assert loaded_after(code, str(plugin_site)) == []


def test_advice_and_solve_from_a_stored_yatzy_table_load_no_numba(tmp_path):
    # a table of the right shape stored without solving (its values do not matter here)
    import numpy as np

    from diceopt.games.yatzy.kernel.table import YatzyTable
    from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN
    from diceopt.games.yatzy.stored.files import store_table

    shape = (1 << SCANDINAVIAN.num_categories, SCANDINAVIAN.flags, SCANDINAVIAN.bonus_threshold + 1)
    table = YatzyTable(SCANDINAVIAN, np.zeros(shape, dtype=np.float32))
    assert store_table(table, str(tmp_path))
    advise = ["yatzy", "advise", "dice 1 3 3 5 6 | rerolls 2", "--cache-dir", str(tmp_path)]
    solve = ["yatzy", "solve", "--cache-dir", str(tmp_path)]  # loads the stored table
    code = (
        f"from diceopt.cli import main\nassert main({advise!r}) == main({solve!r}) == 0\n"
        "import os\nassert os.environ['OPENBLAS_NUM_THREADS'] == '1'  # (numpy loads faster)\n"
        "import sys\n"
        "for name in ('shutil', 'tempfile'):  # (writing only; shutil brings bz2 and lzma)\n"
        "    assert name not in sys.modules, name + ' was loaded'\n"
    )
    assert loaded_after(code) == []


def test_advice_from_a_stored_yatzy_table_loads_no_numpy(tmp_path):
    # the table's rows are read a few at a time in plain Python (games.yatzy.plain)
    from diceopt.games.yatzy.kernel.table import YatzyTable
    from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN
    from diceopt.games.yatzy.stored.files import store_table

    shape = (1 << SCANDINAVIAN.num_categories, SCANDINAVIAN.flags, SCANDINAVIAN.bonus_threshold + 1)
    values = np.linspace(0.0, 300.0, num=int(np.prod(shape)), dtype=np.float32).reshape(shape)
    assert store_table(YatzyTable(SCANDINAVIAN, values), str(tmp_path))
    position = "dice 1 3 3 5 6 | rerolls 2 | filled ones | upper 1 | score 1"
    advise = ["yatzy", "advise", position, "--cache-dir", str(tmp_path), "--json"]
    code = (
        "import contextlib, io, json, sys\nfrom diceopt.cli import main\nout = io.StringIO()\n"
        f"with contextlib.redirect_stdout(out):\n    assert main({advise!r}) == 0\n"
        "assert 'numpy._core' not in sys.modules, 'numpy was loaded'\n"
        "actions = json.loads(out.getvalue())['actions']\n"
        "print(json.dumps([[a['action'], a['value']] for a in actions]))\n"
    )
    env = dict(os.environ, PYTHONPATH=SRC)
    done = subprocess.run([sys.executable, "-c", code + REPORT.format(heavy=HEAVY)],
                          capture_output=True, text=True, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert json.loads(lines[-1]) == []  # no numba either
    # the same advice as from the table read whole (numpy)
    from diceopt.games.yatzy import SPEC
    from diceopt.games.yatzy.play.advice import advise_position

    config = SPEC.rules(None)
    pos = SPEC.parse(config, position)
    want = [
        [a.action, a.value]
        for a in advise_position(pos, SCANDINAVIAN, YatzyTable(SCANDINAVIAN, values))
    ]
    assert json.loads(lines[-2]) == want


@pytest.mark.parametrize("spec", list(registry.games().values()), ids=lambda s: s.id)
def test_a_builtin_game_is_found_by_its_module_alone(spec):
    # the command line loads only the game it runs: a built-in's module is named by its id
    if not type(spec).__module__.startswith("diceopt.games."):
        pytest.skip("a plug-in")
    assert registry.builtin_game(spec.id) is spec
    assert registry.get_game(spec.id.upper()) is spec


def test_words_that_are_no_builtin_game():
    for word in ("registry", "engine_spec", "nosuch", "pig-2", ""):
        assert registry.builtin_game(word) is None
