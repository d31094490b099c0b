"""Yatzy on Ray: tables per task and layers in chunks equal the in-process solve exactly;
unreachable addresses, addresses that are not Ray (a web server, another gRPC server, a
silent port), failing tasks and a missing extra are one line, nothing written.

One local two-CPU Ray instance serves the whole module (started once, shut down at the end).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from concurrent import futures
from contextlib import contextmanager

import numpy as np
import pytest

from diceopt.cli import main
from diceopt.errors import InputError
from diceopt.games.yatzy.commands.sweep import sweep
from diceopt.games.yatzy.kernel.solve import solve_table
from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN, get_rules

ray = pytest.importorskip("ray")

from diceopt.games.yatzy.commands import on_ray  # noqa: E402 (after importorskip)

pytestmark = pytest.mark.usefixtures("local_ray")  # conftest: one 2-CPU instance for the module

LOCAL = on_ray.LOCAL

# eight categories: layers of up to 985 states, several lane batches each
MIDDLE = SCANDINAVIAN.reduced(
    ("ones", "twos", "threes", "fours", "one_pair", "three_of_a_kind", "chance", "yatzy"),
    bonus_threshold=30,
)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh table cache for each test."""
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def table_files(directory):
    """The files under ``directory`` but the locks of the solves (``*.lock``)."""
    if not directory.exists():
        return []
    return sorted(p.name for p in directory.rglob("*") if p.is_file() and p.suffix != ".lock")


def dead_address():
    """HOST:PORT on this machine where nothing listens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"127.0.0.1:{port}"


# --- layers in chunks -------------------------------------------------------------------


@pytest.mark.parametrize(
    "rules, dtype, theta, chunks",
    [
        (get_rules("scandinavian-forced"), "float32", 0.0, 2),
        (MIDDLE, "float32", 0.0, 2),
        (MIDDLE, "float64", -0.1, 3),
        (MIDDLE, "float32", 0.05, 1),
    ],
)
def test_layer_chunks_equal_the_single_process_table(rules, dtype, theta, chunks):
    got = on_ray.solve_table_ray(rules, dtype, theta, chunks)
    want = solve_table(rules, dtype=dtype, theta=theta)
    assert got.values.dtype == want.values.dtype
    assert np.array_equal(got.values, want.values, equal_nan=True)
    assert got.states == want.states and got.value == want.value


def test_chunk_bounds_cut_whole_batches():
    assert on_ray.chunk_bounds(985, 2, 256) == [(0, 512), (512, 985)]
    assert on_ray.chunk_bounds(985, 3, 256) == [(0, 256), (256, 768), (768, 985)]
    assert on_ray.chunk_bounds(28, 4, 256) == [(0, 28)]
    for n, k in [(1, 1), (5000, 7), (256, 2)]:
        bounds = on_ray.chunk_bounds(n, k, 256)
        assert bounds[0][0] == 0 and bounds[-1][1] == n and len(bounds) <= k
        assert all(lo % 256 == 0 and hi > lo for lo, hi in bounds)
        assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))


def test_solve_table_ray_bad_arguments():
    with pytest.raises(InputError, match="chunks"):
        on_ray.solve_table_ray(MIDDLE, chunks=0)
    with pytest.raises(InputError, match="dtype"):
        on_ray.solve_table_ray(MIDDLE, dtype="float16")


# --- sweeps -----------------------------------------------------------------------------


def test_ray_sweep_equals_the_in_process_sweep(tmp_path):
    thetas = [-0.1, 0.0, 0.1]
    local = sweep(get_rules("scandinavian-forced"), thetas, cache_dir=str(tmp_path / "a"))
    remote = sweep(
        get_rules("scandinavian-forced"), thetas, cache_dir=str(tmp_path / "b"), ray_address=LOCAL
    )
    for a, b in zip(local, remote):
        assert a.theta == b.theta and a.value == b.value
        assert np.array_equal(a.dist.pmf, b.dist.pmf)
        assert a.dist.bonus_rate == b.dist.bonus_rate and a.dist.yatzy_rate == b.dist.yatzy_rate
    files_a, files_b = table_files(tmp_path / "a"), table_files(tmp_path / "b")
    assert len(files_b) == 3 and files_a == files_b
    from diceopt.games.yatzy.stored.files import load_table

    for theta in thetas:
        ta, _ = load_table(get_rules("scandinavian-forced"), theta, "float32", str(tmp_path / "a"))
        tb, _ = load_table(get_rules("scandinavian-forced"), theta, "float32", str(tmp_path / "b"))
        assert np.array_equal(ta.values, tb.values, equal_nan=True)


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


SWEEP = ["yatzy", "sweep", "--variant", "scandinavian-forced", "--thetas", "-0.05,0.05"]


def test_cli_sweep_ray_json_equals_in_process(cache, capsys, tmp_path):
    code, out, _ = run(capsys, *SWEEP, "--json", "--ray", "--cache-dir", str(tmp_path / "r"))
    assert code == 0
    with_ray = json.loads(out)
    code, out, _ = run(capsys, *SWEEP, "--json", "--cache-dir", str(tmp_path / "p"))
    assert code == 0
    plain = json.loads(out)
    assert with_ray["rows"] == plain["rows"]
    files = table_files(tmp_path / "r")  # the two tables, and the start's row of each
    assert len([f for f in files if "start-row" not in f]) == 2
    assert len([f for f in files if "start-row" in f]) == 2


# --- bad input: one line, nothing written -----------------------------------------------


def test_cli_unreachable_ray_address_is_one_line_and_writes_nothing(cache, capsys):
    address = dead_address()
    code, out, err = run(capsys, *SWEEP, "--ray", address)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"cannot reach the Ray cluster at {address}" in lines[0]
    assert table_files(cache) == []


@contextmanager
def web_server():
    """HOST:PORT of an HTTP/1 server (not Ray) on this machine, for the block: a process of
    its own, so that it answers whatever this test process is doing."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(200):  # until it listens (at most 10 s)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"127.0.0.1:{port}"
    finally:
        server.kill()
        server.wait()


@contextmanager
def grpc_server(probe_status=None):
    """HOST:PORT of a gRPC server (not Ray): without the GCS probe's method, or answering
    it with ``probe_status`` (a grpc.StatusCode to abort with, or "ok")."""
    import grpc

    class Handler(grpc.GenericRpcHandler):
        def service(self, details):
            if probe_status is None or details.method != on_ray.GCS_PROBE:
                return None

            def answer(request, context):
                if probe_status != "ok":
                    context.abort(probe_status, "refused")
                return b""

            return grpc.unary_unary_rpc_method_handler(answer)

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1), handlers=[Handler()])
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(0)


def test_cli_web_server_address_is_one_line_at_once(cache, tmp_path):
    # a fresh process, as a user runs it: what Ray's C++ core would print on fd 2 shows here
    with web_server() as address:
        done = subprocess.run(
            [sys.executable, "-m", "diceopt", *SWEEP, "--ray", address],
            capture_output=True,
            text=True,
            env=os.environ | {"DICEOPT_CACHE": str(cache)},
            timeout=300,
        )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"diceopt: error: {address} is not a Ray cluster (it does not speak gRPC); give the "
        "address 'ray start --head' printed, or leave it out for a local instance"
    ]
    assert table_files(cache) == []


def test_grpc_server_without_ray_is_refused(capfd):
    with grpc_server() as address, pytest.raises(InputError) as info:
        on_ray.check_address(address)
    assert str(info.value) == (
        f"{address} is not a Ray cluster (a gRPC server without Ray's GCS service); give "
        "the address 'ray start --head' printed, or leave it out for a local instance"
    )
    assert capfd.readouterr() == ("", "")


@pytest.mark.parametrize("status", ["INTERNAL", "UNKNOWN", "PERMISSION_DENIED"])
def test_any_other_grpc_status_is_refused(status):
    # e.g. an HTTP server ending the stream: never handed to ray.init, which would wait
    import grpc

    with grpc_server(getattr(grpc.StatusCode, status)) as address:
        with pytest.raises(InputError, match=f"not a Ray cluster \\(gRPC status {status}\\)"):
            on_ray.check_address(address)


def test_silent_port_is_refused_after_the_timeout():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        address = f"127.0.0.1:{listener.getsockname()[1]}"
        with pytest.raises(InputError, match=r"not a Ray cluster \(no answer within 0.3 s\)"):
            on_ray.check_address(address, timeout=0.3)


def test_token_cluster_needs_ray_auth_mode_token(monkeypatch):
    import grpc

    with grpc_server(grpc.StatusCode.UNAUTHENTICATED) as address:
        monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
        with pytest.raises(InputError, match="uses token authentication: set RAY_AUTH_MODE"):
            on_ray.check_address(address)
        monkeypatch.setenv("RAY_AUTH_MODE", "token")
        on_ray.check_address(address)  # the token is ray.init's business
    with grpc_server("ok") as address:
        on_ray.check_address(address)


def test_a_real_ray_gcs_passes_the_probe():
    # the module's local instance (its ray.init set RAY_AUTH_MODE as its clients need)
    on_ray.check_address(ray.get_runtime_context().gcs_address)


@pytest.mark.parametrize("address", ["nonsense", "host:port", ":6379"])
def test_bad_ray_address(address):
    with pytest.raises(InputError, match="bad Ray address"):
        on_ray.check_address(address)


def test_failing_ray_task_is_one_line_and_writes_nothing(tmp_path):
    # float16 is refused inside the task (solve_table), after the driver has sent it
    with pytest.raises(InputError) as info:
        sweep(
            get_rules("scandinavian-forced"),
            [0.0, 0.1],
            "float16",
            str(tmp_path),
            ray_address="local",
        )
    message = str(info.value)
    assert "\n" not in message and "a Ray task failed while solving a table" in message
    assert "dtype must be float32 or float64" in message
    assert table_files(tmp_path) == []


def test_crashed_worker_is_one_line():
    @ray.remote(max_retries=0)
    def crash():
        import os

        os._exit(3)

    with pytest.raises(InputError, match="a Ray task failed while testing") as info:
        on_ray._get(ray, [crash.remote()], "testing")
    assert "\n" not in str(info.value)
