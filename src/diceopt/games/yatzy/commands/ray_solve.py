"""Yatzy tables on Ray: connecting, and one task per table of a sweep.

Needs the ``cluster`` extra (``pip install 'diceopt[cluster]'``). Two ways to spread work:

- :func:`solve_tables_ray` (here): each (variant, theta) table solved by
  :func:`solve_table` in a Ray task (one CPU, one numba thread); the tables are the
  in-process ones bit for bit (a state's value depends only on its batch of lanes, never
  on the thread count).
- one table split by layer (:mod:`diceopt.games.yatzy.commands.ray_layers`): the
  expected-score table, the saved-rerolls tables (Maxi) and the full target table, each
  layer's states in tasks, identical to the in-process solve.

Connecting (:func:`connect`): a local Ray instance with two CPUs and no dashboard, or the
cluster at ``HOST:PORT`` (``ray start --head`` prints it; the port is 6379 by default).
An address is checked before ``ray.init`` (:func:`check_address`): it must accept a TCP
connection and answer the first call of Ray's own client (``GetClusterId`` of the GCS,
over gRPC) within :data:`CONNECT_TIMEOUT` seconds. Given anything else (nothing listening,
a web server, a gRPC server that is not Ray), ``ray.init`` would retry for minutes and
print Ray's connection warnings meanwhile; the check makes it one line in a few seconds.
That line, and a task that fails, are :class:`~diceopt.errors.InputError` s; nothing is
written then.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from diceopt.errors import InputError
from diceopt.extras import require
from diceopt.games.yatzy.kernel.solve import solve_table
from diceopt.games.yatzy.kernel.table import YatzyTable
from diceopt.games.yatzy.rulebook.rules import YatzyRules, check_theta

LOCAL = "local"  # the --ray value without an address: a local Ray instance
LOCAL_CPUS = 2  # CPUs of the local instance
CONNECT_TIMEOUT = 5.0  # seconds to wait for a cluster address to accept a connection
# The first call Ray's own client makes to a cluster's GCS (an empty request): a real GCS
# answers it (or refuses it for a missing auth token); nothing else speaks it.
GCS_PROBE = "/ray.rpc.NodeInfoGcsService/GetClusterId"


def check_address(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """InputError (one line) unless ``HOST:PORT`` accepts a TCP connection and answers as
    a Ray cluster (:func:`probe_gcs`), each within ``timeout`` seconds (``ray.init`` itself
    retries for minutes, printing Ray's warnings). Other address forms (``auto``,
    ``ray://...``) are left to Ray."""
    if address == "auto" or "://" in address:
        return
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise InputError(f"bad Ray address {address!r}: give HOST:PORT, e.g. 10.0.0.5:6379")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise InputError(
            f"cannot reach the Ray cluster at {address} ({exc.strerror or exc}); "
            "start one with 'ray start --head' or leave out the address for a local one"
        ) from None
    probe_gcs(address, timeout)


def probe_gcs(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """InputError (one line) unless ``HOST:PORT`` answers Ray's GCS protocol: the
    ``GetClusterId`` call (:data:`GCS_PROBE`) over gRPC, within ``timeout`` seconds.

    The GCS's answer counts, and so does its refusal for a missing auth token when
    ``RAY_AUTH_MODE=token`` is set here (without it ``ray.init`` would retry for 20 s);
    every other status is refused (no HTTP/2 answer, no answer in time, a gRPC server
    without the call, an HTTP server ending the stream), so ``ray.init`` never waits on
    something that is not Ray. The probe sends no token. Uses grpcio (in the cluster
    extra: Ray itself does not install it)."""
    grpc = require("grpc", "cluster")
    refused = {
        grpc.StatusCode.UNAVAILABLE: "it does not speak gRPC",
        grpc.StatusCode.DEADLINE_EXCEEDED: f"no answer within {timeout:g} s",
        grpc.StatusCode.UNIMPLEMENTED: "a gRPC server without Ray's GCS service",
    }
    options = [("grpc.enable_http_proxy", 0)]  # the address itself, never a proxy
    with grpc.insecure_channel(address, options=options) as channel:
        try:
            channel.unary_unary(GCS_PROBE)(b"", timeout=timeout)
        except grpc.RpcError as exc:
            code = exc.code()
            token = os.environ.get("RAY_AUTH_MODE", "").strip().lower() == "token"
            if code == grpc.StatusCode.UNAUTHENTICATED and not token:
                raise InputError(
                    f"the Ray cluster at {address} uses token authentication: set "
                    "RAY_AUTH_MODE=token here, with the head's token in RAY_AUTH_TOKEN or "
                    "~/.ray/auth_token ('ray get-auth-token' prints it)"
                ) from None
            if code == grpc.StatusCode.UNAUTHENTICATED:
                return  # a token cluster, and the token is set here
            # anything else is not Ray's GCS answering (an HTTP server may end the stream
            # with INTERNAL or UNKNOWN, depending on timing): refused, never ray.init
            why = refused.get(code, f"gRPC status {code.name}")
            raise InputError(
                f"{address} is not a Ray cluster ({why}); give the address "
                "'ray start --head' printed, or leave it out for a local instance"
            ) from None


def check_ray(address: str | None) -> None:
    """Before any work: InputError (one line) if the cluster extra is missing, or if
    ``address`` (not None or :data:`LOCAL`) is not a reachable Ray cluster."""
    require("ray", "cluster")
    if address not in (None, LOCAL):
        check_address(address)


@contextmanager
def connect(address: str | None = None) -> Iterator[Any]:
    """Ray connected for the block: the ``ray`` module.

    ``address`` None or ``"local"``: a local instance (:data:`LOCAL_CPUS` CPUs, no
    dashboard); else the cluster at ``HOST:PORT`` (checked first, see
    :func:`check_address`). If Ray is already initialised (a test, a notebook) it is
    used as it is and left running; an instance started here is shut down at the end.
    """
    ray = require("ray", "cluster")
    if address not in (None, LOCAL):
        check_address(address)
    if ray.is_initialized():
        yield ray
        return
    try:
        if address in (None, LOCAL):
            ray.init(num_cpus=LOCAL_CPUS, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    except InputError:
        raise
    except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError ...
        where = "a local Ray instance" if address in (None, LOCAL) else address
        raise InputError(f"cannot start Ray at {where}: {_first_line(exc)}") from None
    try:
        yield ray
    finally:
        ray.shutdown()


@contextmanager
def ray_session(address: str | None) -> Iterator[Any]:
    """:func:`connect` for the block (the ``ray`` module), or None when ``address`` is
    None (no Ray: the caller solves in process)."""
    if address is None:
        yield None
        return
    with connect(address) as ray:
        yield ray


def _first_line(exc: BaseException) -> str:
    """The last non-empty line naming the cause of a (Ray) exception, shortened."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, BaseException):
        exc = cause
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[-1] if lines else type(exc).__name__
    text = f"{type(exc).__name__}: {text}" if not text.startswith(type(exc).__name__) else text
    return text[:300]


def _get(ray: Any, refs: list, what: str) -> list:
    """``ray.get(refs)``; a failed task or lost worker as one InputError line."""
    try:
        return ray.get(refs)
    except ray.exceptions.RayError as exc:
        raise InputError(f"a Ray task failed while {what}: {_first_line(exc)}") from None


# --- one task per table --------------------------------------------------------------


def _solve_task(rules: YatzyRules, theta: float, dtype: str) -> tuple[np.ndarray, float, int]:
    """In a Ray worker: the values (array), solve seconds and state count of one table."""
    import numba

    numba.set_num_threads(1)
    table = solve_table(rules, dtype=dtype, theta=theta)
    return table.values, table.seconds, table.states


def solve_tables_ray(
    rules: YatzyRules,
    thetas: Sequence[float],
    dtype: str = "float32",
    address: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[YatzyTable]:
    """Solve the table of every theta of a variant, each in its own Ray task.

    ``thetas``: exponential-utility parameters (0: expected points); ``address``: see
    :func:`connect`. Returns the tables in the order of ``thetas`` (values in points,
    ``seconds`` the task's solve time) once all are solved, so a failed task leaves
    nothing to save (InputError). ``progress(done, total)`` as tables arrive.
    """
    thetas = [check_theta(t) for t in thetas]
    with connect(address) as ray:
        task = ray.remote(num_cpus=1, max_retries=0)(_solve_task)
        refs = [task.remote(rules, theta, dtype) for theta in thetas]
        if progress is not None:
            pending = list(refs)
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                _get(ray, done, "solving a table")
                progress(len(refs) - len(pending), len(refs))
        results = _get(ray, refs, "solving a table")
    return [
        YatzyTable(rules, np.array(values), theta, seconds, states)
        for theta, (values, seconds, states) in zip(thetas, results)
    ]
