"""numba's cached kernels removed when a file with numba code changes (kernel_cache)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from diceopt.kernel_cache import STAMP, keep_in_step


def _package(tmp_path: Path) -> Path:
    """A package folder: one module with numba code, one without, cached kernels of the
    first and Python's bytecode."""
    root = tmp_path / "pkg"
    (root / "sub" / "__pycache__").mkdir(parents=True)
    (root / "__pycache__").mkdir()
    (root / "kernel.py").write_text("import numba\n")
    (root / "text.py").write_text("HELP = 'plain'\n")
    (root / "sub" / "rules.py").write_text("from numba import njit\n")
    return root


def _cached(root: Path) -> list[str]:
    """Cached kernel files, sorted (bytecode beside them stays)."""
    return sorted(p.name for p in root.rglob("*") if p.suffix in (".nbi", ".nbc"))


def _add_cache(root: Path) -> None:
    for folder in (root / "__pycache__", root / "sub" / "__pycache__"):
        (folder / "f-1.py311.nbi").write_bytes(b"index")
        (folder / "f-1.py311.1.nbc").write_bytes(b"data")
        (folder / "text.cpython-311.pyc").write_bytes(b"bytecode")


def _touch(path: Path, text: str) -> None:
    """New content and a later mtime (file systems with coarse clocks included)."""
    mtime = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(mtime + 10**9, mtime + 10**9))


def test_a_changed_kernel_file_removes_every_cached_kernel(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    root = _package(tmp_path)
    _add_cache(root)
    assert keep_in_step(root) == 4  # no stamp yet: caches of unknown age go
    assert _cached(root) == []
    assert len(list(root.rglob("*.pyc"))) == 2
    stamp = json.loads((root / "__pycache__" / STAMP).read_text())
    assert {n: e[2] for n, e in stamp["files"].items()} == {
        "kernel.py": True,
        "text.py": False,
        os.path.join("sub", "rules.py"): True,
    }
    _add_cache(root)
    assert keep_in_step(root) == 0  # nothing changed
    _touch(root / "text.py", "HELP = 'other words'\n")  # no numba code: kept
    assert keep_in_step(root) == 0
    assert len(_cached(root)) == 4
    _touch(root / "sub" / "rules.py", "from numba import njit  # changed\n")
    assert keep_in_step(root) == 4
    assert _cached(root) == []


def test_a_new_kernel_file_counts_as_a_change(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    root = _package(tmp_path)
    keep_in_step(root)
    _add_cache(root)
    (root / "more.py").write_text("import numba\n")
    assert keep_in_step(root) == 4
    (root / "notes.py").write_text("x = 1\n")
    _add_cache(root)
    assert keep_in_step(root) == 0


def test_a_corrupt_stamp_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    root = _package(tmp_path)
    for text in ("not json", '{"files": {"kernel.py": [1, 2]}}', "[]", '{"files": 3}'):
        (root / "__pycache__" / STAMP).write_text(text)
        _add_cache(root)
        assert keep_in_step(root) == 4
        assert keep_in_step(root) == 0


def test_a_stamp_path_that_is_not_a_regular_file_is_left_alone(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    root = _package(tmp_path)
    (root / "__pycache__" / STAMP).mkdir()
    _add_cache(root)
    assert keep_in_step(root) == 4
    assert (root / "__pycache__" / STAMP).is_dir()
    _add_cache(root)
    assert keep_in_step(root) == 4  # no stamp kept: checked (and cleared) again
    assert not list((root / "__pycache__").glob("*.tmp"))


def test_a_cache_elsewhere_is_not_touched(tmp_path, monkeypatch):
    root = _package(tmp_path)
    _add_cache(root)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    assert keep_in_step(root) == 0
    assert len(_cached(root)) == 4
    assert not (root / "__pycache__" / STAMP).exists()


def test_a_caller_in_another_file_runs_the_changed_callee(tmp_path, monkeypatch):
    """End to end with numba: g (a.py) compiles f (b.py) into itself; after b.py changes,
    a fresh process runs the new f through g, not the cached old one."""
    import subprocess
    import sys

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    pkg = tmp_path / "kpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "from pathlib import Path\n"
        "from diceopt.kernel_cache import keep_in_step\n"
        "keep_in_step(Path(__file__).parent)\n"
    )
    (pkg / "b.py").write_text("import numba\n\n@numba.njit(cache=True)\ndef f():\n    return 1\n")
    (pkg / "a.py").write_text(
        "import numba\nfrom kpkg.b import f\n\n@numba.njit(cache=True)\ndef g():\n    return f()\n"
    )
    run = [sys.executable, "-c", "import kpkg.a; print(kpkg.a.g())"]
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(tmp_path)
    first = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert first.stdout.strip() == "1"
    assert list((pkg / "__pycache__").glob("a.g-*.nbi"))  # g is cached
    _touch(pkg / "b.py", "import numba\n\n@numba.njit(cache=True)\ndef f():\n    return 2\n")
    second = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert second.stdout.strip() == "2"


def test_an_oversized_stamp_is_not_read(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    root = _package(tmp_path)
    keep_in_step(root)
    stamp = root / "__pycache__" / STAMP
    good = stamp.read_text()
    stamp.write_text(good + " " * (2 << 20))  # valid JSON, but far larger than a stamp
    _add_cache(root)
    assert keep_in_step(root) == 4
    assert stamp.stat().st_size < 1 << 20


def test_a_compile_says_so_once_within_the_block_and_a_loaded_kernel_not():
    import numba

    from diceopt.kernel_cache import COMPILE_NOTICE, compile_notices, listen_for_compiles

    listen_for_compiles()  # (numba has called it already through the entry point: once)
    said: list[str] = []

    def fresh(offset: int):  # a kernel no cache holds: it compiles at its first call
        return numba.njit(lambda x: x + offset)

    first, second = fresh(1), fresh(2)
    with compile_notices(said.append):
        assert first(1) == 2  # compiles: said
        assert second(1) == 3  # compiles too: not said again
        assert first(2) == 3  # already compiled: nothing
    assert said == [COMPILE_NOTICE]
    fresh(3)(1)  # outside the block: nothing
    assert said == [COMPILE_NOTICE]


def test_numba_finds_the_listener_through_its_extension_entry_point():
    from importlib.metadata import entry_points

    found = [e.value for e in entry_points(group="numba_extensions") if e.name == "init"]
    assert "diceopt.kernel_cache:listen_for_compiles" in found


def test_the_command_line_says_so_on_a_terminal_only(monkeypatch, capsys):
    import diceopt.kernel_cache as kernel_cache
    from diceopt.cli import main

    outs: list[object] = []
    real = kernel_cache.compile_notices

    def recorded(out):
        outs.append(out)
        return real(out)

    monkeypatch.setattr(kernel_cache, "compile_notices", recorded)
    assert main(["stick", "solve", "--dice", "2"]) == 0
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    assert main(["stick", "solve", "--dice", "2"]) == 0
    assert outs[0] is None and callable(outs[1])
