"""Yatzy tables on Ray: connecting, one task per table of a sweep, and one table split by
layer.

Needs the ``cluster`` extra (``pip install 'diceopt[cluster]'``).

Connecting (:func:`connect`): a local Ray instance with two CPUs and no dashboard, or the
cluster at ``HOST:PORT`` (``ray start --head`` prints it; the port is 6379 by default).
An address is checked before ``ray.init`` (:func:`check_address`): it must accept a TCP
connection and answer the first call of Ray's own client (``GetClusterId`` of the GCS,
over gRPC) within :data:`CONNECT_TIMEOUT` seconds. Given anything else (nothing listening,
a web server, a gRPC server that is not Ray), ``ray.init`` would retry for minutes and
print Ray's connection warnings meanwhile; the check makes it one line in a few seconds.
That line, and a task that fails, are :class:`~diceopt.errors.InputError` s; nothing is
written then.

Two ways to spread work, each giving the in-process tables bit for bit (tested):

- a sweep (:func:`solve_tables_ray`): each (variant, theta) table solved by
  :func:`solve_table` in a Ray task (one CPU, one numba thread; a state's value depends
  only on its batch of lanes, never on the thread count).
- one table split by layer: solved as in process, last turn first (a layer cannot start
  before the next one is done); each layer's states are cut into ``chunks`` parts
  (:func:`run_layer`), each part solved in a Ray task by the in-process kernels, reading
  the later layers from Ray's object store (``ray.put``: zero-copy for the tasks on the
  same machine, one transfer per other machine); the driver writes the parts back.

  - expected score / exponential utility (:func:`solve_table_ray`): the whole table so
    far is put before each layer; parts are runs of whole lane batches
    (:func:`chunk_bounds`: the batches of the in-process solve) through
    :func:`~diceopt.games.yatzy.kernel.solve.solve_states`.
  - saved rerolls (:func:`saved_layer_ray`, :func:`solve_saved_ray`): only the next
    layer's values are put (the layout once), parts as above, through
    :func:`~diceopt.games.yatzy.kernel.solve.solve_states_saved`; given to
    :func:`~diceopt.games.yatzy.kernel.saved.solve_saved` as its ``solve_layer``, so the
    stored solve (layer files, resuming) is the same with and without Ray.
  - targets (:func:`solve_targets_ray`): only the next layer's values are put, one
    block of the table (each state's row up to its k range, with its band), and each
    task lays them out with its own states in a table of its own (:func:`_target_task`);
    parts are interleaved (state i in part i mod chunks) because the states' k ranges
    differ a lot.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from diceopt.errors import InputError
from diceopt.extras import require
from diceopt.games.yatzy.analyses.targets import LANES as TARGET_LANES
from diceopt.games.yatzy.analyses.targets import (
    TargetTable,
    check_dtype,
    empty_bands,
    put_rows,
    solve_target_states,
    table_kmax,
    table_layout,
)
from diceopt.games.yatzy.kernel.arrays import kernel_arrays
from diceopt.games.yatzy.kernel.layers import (
    LayerStates,
    iter_layer_states,
    solve_backward,
)
from diceopt.games.yatzy.kernel.saved import SavedTable, SolveLayer, saved_buffers, solve_saved
from diceopt.games.yatzy.kernel.solve import LANES, lane_buffers, solve_table
from diceopt.games.yatzy.kernel.table import YatzyTable
from diceopt.games.yatzy.kernel.turn import SavedLayer
from diceopt.games.yatzy.rulebook.rules import YatzyRules, check_theta
from diceopt.notation import is_digits

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
    if not sep or not host or not is_digits(port):
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


Part = slice  # the states of one task: a run (expected, saved) or every n-th (targets)


# --- shared by the three: parts, tasks, workers -------------------------------------------


def chunk_bounds(n: int, chunks: int, lanes: int) -> list[tuple[int, int]]:
    """``chunks`` (at most) contiguous runs ``(lo, hi)`` of ``n`` states, cut at multiples
    of ``lanes`` (whole batches) and as equal as that allows; empty runs left out."""
    batches = -(-n // lanes)
    cuts = [min(n, round(batches * i / chunks) * lanes) for i in range(chunks + 1)]
    return [(lo, hi) for lo, hi in zip(cuts, cuts[1:]) if hi > lo]


def batch_parts(n: int, chunks: int, lanes: int) -> list[Part]:
    """:func:`chunk_bounds` as slices."""
    return [slice(lo, hi) for lo, hi in chunk_bounds(n, chunks, lanes)]


def interleaved_parts(n: int, chunks: int) -> list[Part]:
    """``chunks`` (at most ``n``) parts of ``n`` states, state i in part i mod chunks."""
    return [slice(i, None, chunks) for i in range(min(chunks, n))]


def check_chunks(chunks: int) -> int:
    """``chunks`` (tasks per layer), InputError below 1."""
    if chunks < 1:
        raise InputError(f"chunks must be at least 1, got {chunks}")
    return int(chunks)


def cluster_cpus(ray: Any) -> int:
    """CPUs of the connected Ray cluster (at least 1): the commands' tasks per layer."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def run_layer(
    ray: Any,
    task: Any,
    parts: Sequence[Part],
    states: Sequence[np.ndarray],
    args: tuple,
    what: str,
) -> list[Any]:
    """``task(*(a[part] for a in states), *args)`` as one Ray task per part, their results
    in the order of ``parts`` (InputError naming ``what`` if one fails)."""
    refs = [task.remote(*(a[p] for a in states), *args) for p in parts]
    return _get(ray, refs, what)


def remote(ray: Any, function: Callable[..., Any]) -> Any:
    """``function`` as a Ray task of one CPU, never retried (a failure is one line)."""
    return ray.remote(num_cpus=1, max_retries=0)(function)


def worker_arrays(*arrays: np.ndarray) -> list[np.ndarray]:
    """In a Ray worker: numba on one thread, and the arrays as writable C-contiguous
    copies where they are not (arrays from the object store are read-only: another numba
    type, which the kernels would be compiled for afresh in every worker instead of
    loaded from numba's cache)."""
    import numba

    numba.set_num_threads(1)
    return [np.require(a, requirements=("C", "W")) for a in arrays]


# --- expected score / exponential utility ------------------------------------------------


def _chunk_task(
    mask: np.ndarray,
    flag: np.ndarray,
    upper: np.ndarray,
    V: np.ndarray,
    rules: YatzyRules,
    theta: float,
    lanes: int,
) -> np.ndarray:
    """In a Ray worker: the values of the states (mask, flag, upper) of one layer.

    ``V`` (read-only, from the object store) holds the solved later layers."""
    from diceopt.games.yatzy.kernel.solve import solve_states

    mask, flag, upper, V = worker_arrays(mask, flag, upper, V)
    res = np.empty(mask.size, dtype=V.dtype)
    As, Ms, SRs, vecs = lane_buffers(rules, V.dtype, lanes, 4)
    solve_states(mask, flag, upper, V, As, Ms, SRs, vecs, kernel_arrays(rules, V.dtype), theta, res)
    return res


def solve_table_ray(
    rules: YatzyRules,
    dtype: str | np.dtype = "float32",
    theta: float = 0.0,
    chunks: int = 2,
    address: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> YatzyTable:
    """Solve a variant layer by layer, each layer's states in ``chunks`` Ray tasks.

    Same arguments and result as :func:`~diceopt.games.yatzy.kernel.solve.solve_table`
    (values in points; ``dtype`` float32 or float64; ``theta`` the exponential-utility
    parameter), identical to it bit for bit; ``address``: see
    :func:`~diceopt.games.yatzy.commands.on_ray.connect`; ``seconds`` is the wall time
    of the whole solve, object-store traffic included.
    """
    dt = np.dtype(dtype)
    if dt not in LANES:
        raise InputError(f"dtype must be float32 or float64, got {dtype}")
    if rules.saved_rerolls:
        raise InputError("saved rerolls need solve_saved_ray")
    chunks = check_chunks(chunks)
    theta = check_theta(theta)
    lanes = LANES[dt]
    with connect(address) as ray:
        t0 = time.perf_counter()
        task = remote(ray, _chunk_task)
        rules_ref = ray.put(rules)

        def solve_layer(j: int, st: LayerStates, V: np.ndarray) -> None:
            """Layer j in ``chunks`` tasks, each reading the values so far from the store."""
            V_ref = ray.put(V)
            parts = run_layer(
                ray, task, batch_parts(st.mask.size, chunks, lanes), (st.mask, st.flag, st.upper),
                (V_ref, rules_ref, theta, lanes), f"solving layer {j}",
            )  # fmt: skip
            del V_ref
            V[st.mask, st.flag, st.upper] = np.concatenate(parts)

        V, states = solve_backward(rules, dt, solve_layer, progress)
        seconds = time.perf_counter() - t0
    return YatzyTable(rules, V, theta, seconds, states)


# --- saved rerolls (Maxi) -------------------------------------------------------------------


def _saved_task(
    mask: np.ndarray,
    flag: np.ndarray,
    upper: np.ndarray,
    values: np.ndarray,
    layout: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    rules: YatzyRules,
    width: int,
    lanes: int,
) -> np.ndarray:
    """In a Ray worker: ``res[i, s]`` of the lanes (mask, flag, upper) of one layer, from
    the next layer's ``values`` and the layout (``moff, msub, urank, nsolve``)."""
    from diceopt.games.yatzy.kernel.solve import solve_states_saved

    mask, flag, upper, values, *rest = worker_arrays(mask, flag, upper, values, *layout)
    V = SavedLayer(values, *rest)
    dt = values.dtype
    head, tail = saved_buffers(rules, dt, lanes, width)
    res = np.empty((mask.size, width), dtype=dt)
    solve_states_saved(mask, flag, upper, V, *head, kernel_arrays(rules, dt), res, *tail)
    return res


def saved_layer_ray(
    ray: Any, rules: YatzyRules, dtype: str | np.dtype = "float32", chunks: int | None = None
) -> SolveLayer:
    """A :data:`~diceopt.games.yatzy.kernel.saved.SolveLayer` for ``solve_saved`` (and the
    stored solve) on the connected Ray (``ray``, from ``connect``): each layer's lanes in
    ``chunks`` tasks (None: the cluster's CPUs), reading the next layer's values, put
    into the object store once per layer (the layout once per solve)."""
    dt = np.dtype(dtype)
    lanes = LANES[dt]
    parts_of = cluster_cpus(ray) if chunks is None else check_chunks(chunks)
    task = remote(ray, _saved_task)
    rules_ref = ray.put(rules)
    shared: dict[str, Any] = {}

    def solve_layer(
        j: int, states: tuple[np.ndarray, np.ndarray, np.ndarray], V: SavedLayer, width: int
    ) -> np.ndarray:
        if "layout" not in shared:
            shared["layout"] = ray.put((V.moff, V.msub, V.urank, V.nsolve))
        values_ref = ray.put(V.values)
        parts = run_layer(
            ray, task, batch_parts(states[0].size, parts_of, lanes), states,
            (values_ref, shared["layout"], rules_ref, width, lanes), f"solving layer {j}",
        )  # fmt: skip
        return np.concatenate(parts)

    return solve_layer


def solve_saved_ray(
    rules: YatzyRules,
    dtype: str | np.dtype = "float32",
    chunks: int = 2,
    address: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SavedTable:
    """A saved-rerolls variant (Maxi: ``maxi-saved``) solved in memory, each layer's lanes
    in ``chunks`` Ray tasks: :func:`~diceopt.games.yatzy.kernel.saved.solve_saved`'s table
    (values in points), bit for bit; ``seconds``: the wall time, Ray's traffic included."""
    chunks = check_chunks(chunks)
    with connect(address) as ray:
        return solve_saved(
            rules,
            dtype=dtype,
            progress=progress,
            solve_layer=saved_layer_ray(ray, rules, dtype, chunks),
        )


# --- the full target table -------------------------------------------------------------------


def _target_task(
    mask: np.ndarray,
    flag: np.ndarray,
    upper: np.ndarray,
    top_own: np.ndarray,
    later: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    rules: YatzyRules,
    lanes: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """In a Ray worker: the rows (k = 0 .. ``len(top_own)``'s kmax, 0 above each state's
    top) and bands of some states of one layer.

    ``later``: the next layer's values (one block, as the table holds them: each state's
    row up to its top), its state keys with their rows' offsets in the block, k ranges
    (``top``) and bands. These states' rows follow the block in a table of this task's
    own (every other state key is never read), solved by
    :func:`~diceopt.games.yatzy.analyses.targets.solve_target_states`."""
    block, keys_n, off_n, top_n, lo_n, hi_n = later
    mask, flag, upper = worker_arrays(mask, flag, upper)
    T = rules.bonus_threshold
    keys = (mask * rules.flags + flag) * (T + 1) + upper
    nkeys = (1 << rules.num_categories) * rules.flags * (T + 1)
    n, width = keys.size, int(top_own.max(initial=0)) + 1
    Vd = np.zeros(block.size + n * width, dtype=block.dtype)
    Vd[: block.size] = block
    off = np.zeros(nkeys, dtype=np.int64)
    off[keys_n] = off_n
    off[keys] = block.size + np.arange(n, dtype=np.int64) * width
    top = np.full(nkeys, -1, dtype=np.int64)
    top[keys_n] = top_n
    top[keys] = top_own
    lo, hi = empty_bands(nkeys)
    lo[keys_n], hi[keys_n] = lo_n, hi_n
    solve_target_states(rules, (mask, flag, upper), Vd, off, top, (lo, hi), lanes)
    return Vd[block.size :].reshape(n, width), lo[keys], hi[keys]


def solve_targets_ray(
    rules: YatzyRules,
    *,
    kmax: int | None = None,
    dtype: str | np.dtype = "float32",
    chunks: int = 2,
    address: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    lanes: int = TARGET_LANES,
) -> TargetTable:
    """:func:`~diceopt.games.yatzy.analyses.targets.solve_targets` (the same arguments and
    table, bit for bit: P(points still to come >= k), k = 0 .. ``kmax`` points) with each
    layer's states in ``chunks`` Ray tasks (interleaved); ``address``: see
    :func:`~diceopt.games.yatzy.commands.on_ray.connect`. Each layer puts the next
    layer's values into the object store, one block of the table (at most the largest
    layer's, not the table); ``seconds``: the wall time, Ray's traffic included."""
    dt = check_dtype(dtype)
    chunks = check_chunks(chunks)
    top_k = table_kmax(rules) if kmax is None else int(kmax)
    if top_k < 0 or top_k > rules.max_total:
        raise InputError(f"the target must be between 0 and {rules.max_total} points, got {top_k}")
    c, T = rules.num_categories, rules.bonus_threshold
    with connect(address) as ray:
        t0 = time.perf_counter()
        task = remote(ray, _target_task)
        rules_ref = ray.put(rules)
        off, top = table_layout(rules, top_k)  # as solve_targets: the same rows
        data = np.zeros(int((off + top + 1).max()), dtype=dt)
        lo, hi = empty_bands(off.size)

        def key_of(st: LayerStates) -> np.ndarray:
            return (st.mask * rules.flags + st.flag) * (T + 1) + st.upper

        layers = iter_layer_states(rules, reverse=True)
        last = next(layers)  # every category filled: P(>= 0) = 1, else 0
        data[off[key_of(last)]] = 1.0
        later_keys, later = key_of(last), np.concatenate([key_of(last), last.copy_dst])
        states = last.mask.size
        for j, st in zip(range(c - 1, -1, -1), layers, strict=True):
            keys = key_of(st)
            # the next layer's rows: one block of the table (table_layout: a layer's
            # states in a row), its copies pointing into it
            start = int(off[later_keys[0]])
            end = int(off[later_keys[-1]] + top[later_keys[-1]] + 1)
            later_ref = ray.put(
                (data[start:end], later, off[later] - start, top[later], lo[later], hi[later])
            )
            parts = interleaved_parts(keys.size, chunks)
            got = run_layer(
                ray, task, parts, (st.mask, st.flag, st.upper, top[keys]),
                (later_ref, rules_ref, lanes), f"solving layer {j}",
            )  # fmt: skip
            del later_ref
            for part, (values, lo_p, hi_p) in zip(parts, got):
                put_rows(data, off, top, keys[part], values)
                lo[keys[part]], hi[keys[part]] = lo_p, hi_p
            for b in (lo, hi):
                b[st.copy_dst] = b[st.copy_src]
            states += st.mask.size
            later_keys, later = keys, np.concatenate([keys, st.copy_dst])
            if progress is not None:
                progress(c - j, c)
        seconds = time.perf_counter() - t0
    return TargetTable(rules, data, off, top, top_k, seconds, states)
