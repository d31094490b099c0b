"""The web advisor: a FastAPI app with a JSON API for every registered game, and one page.

Endpoints (JSON in and out; every error is ``{"error": "one line"}`` with a 4xx status,
or 500 for a fault of the server). A position is the game's text notation or its JSON
form (an object):

- ``GET /api/health``: liveness and which tables are loaded;
- ``GET /api/games``: the served games (from the registry): title, units, players,
  variants with their rules' parameters and an example position (text and JSON), and the
  ``board`` the page draws a position with;
- ``POST /api/advice`` ``{"game", "variant", "position"}``: every legal action, best first,
  each with ``value`` and ``regret`` (``diceopt GAME advise --json``), what the values mean
  (``value_is``) and the position (canonical text and JSON); the game's advice options
  (``advise_options`` in /api/games: ``"target"``, ``"opponent"``, ``"opponent_plays"``)
  rank by another value, each action with its ``expected`` final score beside;
- ``POST /api/distribution`` ``{"game", "variant", "position"}``: the distribution of the
  final score from the position (mean, std, median, percentiles, ``p_at_least``, ``pmf``),
  for games that give one (``distribution`` in /api/games);
- ``POST /api/evaluate`` ``{"game", "variant", "position", "action"}``: one action's value
  and regret, and the best action's value;
- ``POST /api/new`` ``{"game", "variant", "seed"?}``: a starting position (play mode);
- ``POST /api/apply`` ``{"game", "variant", "position", "action", "seed"?}``: the next
  position (text and JSON; dice rolled with a seeded numpy Generator), ``game_over``,
  ``to_move``, ``events`` (what happened, e.g. the die rolled) and ``result``;
- ``POST /api/preview`` ``{"game", "variant", "position", "actions"}``: what each action
  leads to with fixed dice (the page's score sheet shows the points of each box);
- ``POST /api/analyse`` ``{"game", "variant", "record"}``: a played game's record (the
  text ``diceopt GAME analyse`` reads) graded, and for a whole game its result split
  exactly into ``expected_start + luck - cost`` (the page's end-of-game review);
- ``POST /api/yatzy/table/chances`` and ``POST /api/yatzy/table/advice``: a table of 2 to 6
  players (every player's chance of winning; the advice of the player to move against the
  others' sheets), :mod:`diceopt.web.table_routes` (``table`` in /api/games names them);
- ``POST /api/duel/new`` ``{"game", "variant", "strategy", "seed"?}``, ``POST
  /api/duel/apply`` ``{"game", "variant", "state", "action", "seed"?}`` and ``POST
  /api/duel/estimate`` ``{"game", "variant", "state"}`` (your chance of winning alone): a
  game against the computer (``computer_strategies`` in /api/games): both sides, the
  computer's moves (it plays its whole turn within the call that ends yours),
  ``game_over``, ``result`` (yours) and, at the start of your turns, your estimated
  ``win_probability``; ``state`` is what the last answer gave (nothing is kept on the
  server).

- ``rules``: every request above may give a rule file's text (TOML, at most 20,000
  characters) instead of a ``variant``, for a game that takes rule files (``rule_files``
  in /api/games); ``POST /api/rules`` ``{"game", "rules"}`` checks one (400, one line, for
  a bad file) and answers it as a variant of the page; answers under a rule file say
  which ``rules`` they used (``name``, ``key``). A server holds a few pasted rule files
  (``DICEOPT_WEB_RULE_FILES``, default 8; the least recently used is let go with its
  tables) and builds only tables no larger than Scandinavian Yatzy's for them.

- ``GET /api/tables``: the stored tables of the served games' default variants and every
  table this process has loaded or built, each with its ``stage`` (queued, loading,
  waiting for another process, building, storing, ready, failed; stored / not stored
  when not asked for yet), ``percent``, ``elapsed_seconds``, ``how``, ``error`` and the
  ``id`` of its build;
- ``GET /api/tables/status/{id}``: how one build goes (``diceopt.tables.Build.status_json``):
  ``title``, ``state`` (building, ready, failed), ``stage``, ``fraction`` of the stage
  done, ``elapsed_seconds``, ``seconds_left`` (an estimate) and ``error``; the build of
  another worker from the status it publishes; 404 for an id no process has.

Stored tables (``GameSpec.tables``, ``diceopt.tables``): an answer that reads a table not
ready in the process waits for it at most ``table_wait`` seconds (or the ``wait`` of the
request's ``Prefer`` header, RFC 7240, if shorter), then answers 503 with Retry-After
("... is being built (35%, 40 s so far): try again in 30 s"); a request sent with
``Prefer: respond-async`` (the page's) gets 202 instead, with the builds' status and the
URL to poll (``{"building": [...], "status": "/api/tables/status/ID"}``, also in
Location), and sends the request again once none is building. The build goes on, once
per table in a process and once per cache directory across processes. The work of a
request beyond them (e.g. a solve against an opponent who has finished) runs in a thread
and stops at its next checkpoint (every chunk of a solve, ``diceopt.progress.checkpoint``)
when the client has gone, after ``work_seconds`` (503) or when the server stops. Work the
game estimates to need more memory than ``max_memory`` is refused before it starts (400,
``GameSpec.memory_need``). SIGTERM / Ctrl+C: every request's work stops, and the process
ends within EXIT_SECONDS whatever it does. A POST body not declared JSON gets 415 "send
JSON"; one nested deeper than MAX_JSON_DEPTH gets 400.

``/openapi.json`` is the schema; no documentation page is served (it would need a CDN).
What the server keeps of the games (rules, tables, the answer cache, threads):
``diceopt.web.served``; the answers: ``diceopt.web.games``; errors: ``diceopt.web.errors``.
"""

from __future__ import annotations

import asyncio
import faulthandler
import gc
import logging
import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from diceopt.errors import InputError, SolveError, one_line
from diceopt.games.contract import GameSpec
from diceopt.progress import Cancelled, cancellable
from diceopt.tables import Table, TableStore, published_status
from diceopt.web.errors import ApiError, StillBuilding, being_built, field_path, status_path
from diceopt.web.games import GameTables, has_distribution
from diceopt.web.middleware import (
    Activity,
    ActivityMiddleware,
    BodyLimitMiddleware,
    CancelledMiddleware,
    JsonOnlyMiddleware,
)
from diceopt.web.schemas import (
    BUILDING,
    ERRORS,
    MAX_BODY_BYTES,
    ActionRequest,
    AdviceOut,
    AdviceRequest,
    AnalyseOut,
    AnalyseRequest,
    ApplyRequest,
    BuildStatusOut,
    DistributionOut,
    DuelApplyRequest,
    DuelEstimateOut,
    DuelEstimateRequest,
    DuelNewRequest,
    DuelOut,
    EvaluateOut,
    GamesOut,
    HealthOut,
    NewRequest,
    PositionRequest,
    PreviewOut,
    PreviewRequest,
    RuleFileOut,
    RuleFileRequest,
    StepOut,
    TablesOut,
)
from diceopt.web.served import (
    ADVICE_THREADS,
    HEAVY_THREADS,
    TABLE_WAIT,
    WORK_SECONDS,
    check_game_ids,
    served_games,
    warm_setting,
)
from diceopt.web.table_routes import add_table_routes

log = logging.getLogger("diceopt.web")

STATIC_DIR = Path(__file__).parent / "static"
POLL_SECONDS = 0.1  # how often a waiting request looks at its tables and its client
WAIT_THREADS = 4  # threads in which requests wait for a table being loaded or built
# After SIGTERM (or Ctrl+C) the process ends within this many seconds, whatever it is doing:
# uvicorn's graceful shutdown (GRACEFUL_SECONDS), else a watchdog exits.
EXIT_SECONDS = 4.0
GRACEFUL_SECONDS = 2.0
# The start-up's warm-up of each game waits until no API POST request has been in flight for
# this long (seconds): on few cores it would slow the first requests down, which load
# what they need themselves.
QUIET_SECONDS = 0.5


LONG_NUMBER = re.compile(r"\d{24,}")


def preference(header: str | None) -> tuple[bool, float | None]:
    """A request's ``Prefer`` header (RFC 7240): whether it asks ``respond-async``, and its
    ``wait`` in seconds (None: not given). Unknown preferences are ignored."""
    asynchronous, wait = False, None
    for item in (header or "").split(",")[:16]:
        name, _, value = item.split(";")[0].strip().partition("=")
        name = name.strip().lower()
        if name == "respond-async":
            asynchronous = True
        elif name == "wait":
            try:
                seconds = float(value.strip().strip('"'))
            except ValueError:
                continue
            if seconds == seconds:  # not NaN
                wait = max(0.0, seconds)
    return asynchronous, wait


def error_response(status: int, message: object) -> JSONResponse:
    """``{"error": message}`` (one line, a long echo cut, a number of more than 23 digits
    shown by its count of digits) with ``status``."""
    text = LONG_NUMBER.sub(lambda m: f"{m.group()[:4]}...({len(m.group())} digits)", str(message))
    return JSONResponse({"error": one_line(text)}, status_code=status)


def add_error_handlers(app: FastAPI) -> None:
    """Every error as ``{"error": "one line"}``: 400 bad input, 422 schema, 500 fault."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        response = error_response(exc.status, str(exc))
        response.headers.update(exc.headers)
        return response

    @app.exception_handler(StillBuilding)
    async def still_building(request: Request, exc: StillBuilding) -> JSONResponse:
        where = status_path(exc.builds[0])
        body = {"building": [b.status_json() for b in exc.builds], "status": where}
        headers = {"Location": where, "Preference-Applied": "respond-async", "Retry-After": "1"}
        return JSONResponse(body, status_code=202, headers=headers)

    @app.exception_handler(InputError)
    async def input_error(request: Request, exc: InputError) -> JSONResponse:
        return error_response(400, str(exc) or "invalid input")

    @app.exception_handler(SolveError)
    async def solve_error(request: Request, exc: SolveError) -> JSONResponse:
        return error_response(500, f"solver failed: {exc}")

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        for err in errors:
            if err.get("type") == "json_invalid":
                detail = (err.get("ctx") or {}).get("error", "")
                return error_response(400, f"malformed JSON: {detail}".rstrip(": "))
        first = errors[0] if errors else {}
        where = ".".join(field_path(first.get("loc", ()))) or "body"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        msg = str(first.get("msg", "?")).removeprefix("Value error, ")
        return error_response(422, f"invalid request: {where}: {msg}{more}")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        message = exc.detail if isinstance(exc.detail, str) else "error"
        return error_response(exc.status_code, message)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error on %s", request.url.path)
        return error_response(500, f"internal error: {type(exc).__name__}")


def stop_on_signals(stopping: threading.Event) -> None:
    """On SIGTERM or SIGINT (in the main thread, where a handler is installed: uvicorn's),
    set ``stopping`` (the work of every request stops at its next checkpoint) before the
    handler there runs (uvicorn's graceful shutdown), and make sure that the process ends
    within EXIT_SECONDS whatever it is doing: a C-level watchdog (``faulthandler``, which
    needs no Python thread to run) prints the threads' stacks and exits then (status 1)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(sig)
        if not callable(previous) or previous is signal.default_int_handler:
            continue

        def handler(signum: int, frame: Any, previous: Any = previous) -> None:
            if not stopping.is_set():
                stopping.set()
                log.info("stopping: every request's work is asked to stop")
                faulthandler.dump_traceback_later(EXIT_SECONDS, exit=True)
            previous(signum, frame)

        signal.signal(sig, handler)


def create_app(
    warm: bool | list[str] = True,
    games: Iterable[str | GameSpec] | None = None,
    wait_warm: bool = False,
    *,
    table_wait: float | None = None,
    work_seconds: float | None = None,
    store: TableStore | None = None,
    max_memory: int | None = None,
) -> FastAPI:
    """The advisor app.

    ``games``: the games served (registry ids or GameSpec objects; default: every
    registered game). ``warm``: True builds every game's default table in a background
    thread at start-up, each game once no API POST request has been in flight for
    QUIET_SECONDS (False: tables load on first use; a list: only those game ids).
    ``wait_warm``: serve only once warm (the listening socket holds connections until
    then). ``table_wait``: how long a request waits for a stored table being built before
    it answers 503 "being built" (seconds; default TABLE_WAIT). ``work_seconds``: the most
    a request's own solve may take (default WORK_SECONDS). ``store``: the table store
    (default: the process's). ``max_memory``: the most memory (bytes) one request's work
    may need, estimated up front (default MAX_MEMORY; 0: no bound). InputError for an id
    that is not a game.
    """
    tables = GameTables(served_games(games), store, max_memory)
    wait_s = TABLE_WAIT if table_wait is None else float(table_wait)
    work_s = WORK_SECONDS if work_seconds is None else float(work_seconds)
    if not isinstance(warm, bool):
        check_game_ids(list(warm), "warm", tables.specs)

    stopping = threading.Event()  # set by SIGTERM / Ctrl+C: every request's work stops
    activity = Activity()  # the API requests in flight: the warm-up waits for quiet
    listed: list[dict[str, Any]] = []  # the body of GET /api/games, once made
    listed_lock = threading.Lock()

    def listing() -> dict[str, Any]:
        # Made on first use or by the warm-up, not before serving (every variant's rules
        # and example: tenths of a second that the first game against the computer skips).
        with listed_lock:
            if not listed:
                listed.append(tables.listing())
            return listed[0]

    @asynccontextmanager
    async def lifespan(app: FastAPI):  # noqa: ANN202
        log.info("games served: %s", ", ".join(tables.specs) or "none")
        stop_on_signals(stopping)
        if warm:
            wanted = [g for g in tables.specs if warm is True or g in warm]

            def warm_all() -> None:
                t0 = time.perf_counter()
                if not wait_warm:
                    activity.wait_quiet(QUIET_SECONDS, stopping)
                listing()
                for game in wanted:
                    if not wait_warm:  # (while it waits, no request comes)
                        activity.wait_quiet(QUIET_SECONDS, stopping)
                    if stopping.is_set():
                        return
                    tables.warm(game)
                log.info("tables warm (%s) in %.2f s", ", ".join(wanted), time.perf_counter() - t0)
                # What is loaded by now (modules, tables, solvers) stays for the process's
                # life: leave it out of garbage collections, whose pauses stall every request.
                gc.freeze()

            if wait_warm:
                await anyio.to_thread.run_sync(warm_all)
            else:
                threading.Thread(target=warm_all, name="diceopt-warm", daemon=True).start()
        yield
        # shutting down: the tables being built stop at their next slice and remove what
        # they had not stored (a table being stored is finished), within the graceful time
        await anyio.to_thread.run_sync(tables.store.stop, GRACEFUL_SECONDS)

    app = FastAPI(
        title="diceopt advisor",
        version="2",
        description="Exact optimal play for dice games: advice for any position.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.tables = tables
    app.add_middleware(BodyLimitMiddleware, limit=MAX_BODY_BYTES)
    app.add_middleware(JsonOnlyMiddleware)
    app.add_middleware(CancelledMiddleware)
    app.add_middleware(ActivityMiddleware, activity=activity)
    add_error_handlers(app)

    limiters: dict[str, anyio.CapacityLimiter] = {}

    def advice_threads() -> anyio.CapacityLimiter:
        # Created in the event loop on first use. Few threads: advice holds the GIL
        # mostly, and many threads only fight over it.
        if "advice" not in limiters:
            limiters["advice"] = anyio.CapacityLimiter(ADVICE_THREADS)
        return limiters["advice"]

    def heavy_threads() -> anyio.CapacityLimiter:
        # Long work (seconds of CPU each): fewer at once, the others queue.
        if "heavy" not in limiters:
            limiters["heavy"] = anyio.CapacityLimiter(HEAVY_THREADS)
        return limiters["heavy"]

    def wait_threads() -> anyio.CapacityLimiter:
        # Requests waiting for a table (each at most POLL_SECONDS a turn): their own few
        # threads, so that the other answers' threads are never taken.
        if "wait" not in limiters:
            limiters["wait"] = anyio.CapacityLimiter(WAIT_THREADS)
        return limiters["wait"]

    async def tables_ready(request: Request, wanted: Iterable[Table]) -> None:
        """Wait (at most ``wait_s``, or the request's ``Prefer: wait=N`` if shorter) for the
        stored tables of an answer, each loaded or built once whoever asks; ApiError 503
        with Retry-After while one is still being built (the build goes on), or 202 with
        the builds' status (StillBuilding) when the request prefers ``respond-async``;
        500 when one could not be made."""
        builds = tables.unready(wanted)
        asynchronous, wait = preference(request.headers.get("prefer"))
        deadline = time.monotonic() + (wait_s if wait is None else min(wait_s, wait))
        while any(b.running for b in builds):
            if time.monotonic() >= deadline:
                raise StillBuilding(builds) if asynchronous else being_built(builds)
            if await request.is_disconnected():
                raise ApiError(503, "the client has gone (the tables are still being built)")
            # woken as soon as the first build still running ends (a table loading at
            # start-up: the first answer comes at once), else after POLL_SECONDS
            running = [b for b in builds if b.running]
            if running:
                left = min(POLL_SECONDS, max(0.0, deadline - time.monotonic()))
                await anyio.to_thread.run_sync(running[0].wait, left, limiter=wait_threads())
        for b in builds:
            if b.stage == "failed":
                raise ApiError(500, f"{b.table.title} could not be made ready: {b.error}")

    async def guarded(
        request: Request, limiter: anyio.CapacityLimiter, fn: Callable[..., Any], *args: Any
    ) -> Any:
        """``fn(*args)`` in a worker thread (``limiter``), stopped at its next checkpoint
        (``diceopt.progress.checkpoint``: every chunk of a solve, every progress report)
        when the client has gone, it has run for ``work_s`` seconds (then ApiError 503) or
        the server is stopping. Work queued for a thread that is stopped before it starts
        never starts."""
        stop = threading.Event()
        why: list[str] = []
        started: list[float] = []

        def check() -> None:
            if stopping.is_set() and not stop.is_set():
                why.append("the server is stopping")
                stop.set()
            if not stop.is_set() and started and time.monotonic() - started[0] > work_s:
                why.append("time limit")
                stop.set()
            if stop.is_set():
                raise Cancelled(why[0] if why else "stopped")

        def work() -> Any:
            check()
            started.append(time.monotonic())
            with cancellable(check):
                return fn(*args)

        def halt(reason: str) -> None:
            why.append(reason)
            stop.set()
            task.add_done_callback(lambda t: t.cancelled() or t.exception())

        task = asyncio.ensure_future(anyio.to_thread.run_sync(work, limiter=limiter))
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=POLL_SECONDS)
                if done:
                    if isinstance(task.exception(), Cancelled):
                        raise stopped_error(why[0] if why else "stopped")
                    return task.result()
                if await request.is_disconnected():
                    halt("the client has gone")
                    log.info("%s: the client has gone; its work is asked to stop", request.url.path)
                    raise ApiError(503, "the client has gone (its work was stopped)")
                if stopping.is_set():
                    halt("the server is stopping")
                    raise stopped_error("the server is stopping")
                if started and time.monotonic() - started[0] > work_s:
                    halt("time limit")
                    raise stopped_error("time limit")
        finally:
            if not task.done() and not stop.is_set():  # the request itself was cancelled
                halt("the request was cancelled")

    def stopped_error(why: str) -> ApiError:
        """503 (one line) for work stopped by the time limit or by the server stopping."""
        if why == "time limit":
            return ApiError(
                503,
                f"no answer within {work_s:g} s, the most this server spends on one "
                "request (--work-seconds): it needs a longer solve, which was stopped",
            )
        return ApiError(503, f"stopped: {why}", {"Retry-After": "5"})

    @app.get("/api/tables", response_model=TablesOut)
    def table_status() -> dict[str, Any]:
        """The stored tables of the served games' default variants and every table this
        process has loaded or built: stage, percentage and elapsed seconds of each build."""
        out = {b.table.name: b.to_json() for b in tables.store.status()}
        for game, spec in tables.specs.items():
            if not spec.variants:
                continue
            try:
                listed = tables.needed(game, tables.variant(game, None), "all")
            except Exception:  # noqa: BLE001 - a game whose tables cannot be named
                continue
            for t in listed:
                if t.name in out:
                    continue
                stage = "ready" if t.ready() else "stored" if t.is_stored() else "not stored"
                out[t.name] = {
                    "name": t.name,
                    "title": t.title,
                    "stage": stage,
                    "percent": 100.0 if stage == "ready" else None,
                    "done": 0,
                    "total": None,
                    "elapsed_seconds": None,
                    "how": None,
                    "error": None,
                }
        return {"tables": list(out.values())}

    @app.get(
        "/api/tables/status/{id}",
        response_model=BuildStatusOut,
        responses={404: ERRORS[400] | {"description": "no build with that id here"}},
    )
    async def build_status(id: str) -> JSONResponse:
        """How the build of a stored table goes: state (building, ready, failed), stage,
        fraction of the stage done, seconds so far and an estimate of the seconds left.
        The id is the one a 202 answer (or GET /api/tables) gave; a build of another
        process of the same cache directory (another worker) answers from the status it
        publishes; 404 for one no process has (nothing is stored per request)."""
        build = tables.store.by_id(id)
        status = build.status_json() if build is not None else published_status(id)
        if status is None:
            raise ApiError(404, "no table build with that id here (GET /api/tables lists them)")
        return JSONResponse(status, headers={"Cache-Control": "no-store"})

    @app.get("/api/health", response_model=HealthOut)
    def health() -> dict[str, Any]:
        """Liveness, the games served and the state of each table."""
        return {"status": "ok", "games": list(tables.specs), "tables": dict(tables.status)}

    @app.get("/api/games", response_model=GamesOut)
    def list_games() -> dict[str, Any]:
        """Games, variants (with parameters and example positions), units and boards."""
        return listing()

    @app.post("/api/rules", response_model=RuleFileOut, responses=ERRORS)
    def check_rule_file(body: RuleFileRequest) -> dict[str, Any]:
        """A rule file's text checked (400, one line, for a bad file or one too large to
        solve on request), as a variant of the page: parameters, sheet, example position;
        requests then give the same text as ``rules``."""
        return tables.rule_file(body.game, body.rules)

    @app.post("/api/advice", response_model=AdviceOut, responses=BUILDING)
    async def advise_position(body: AdviceRequest, request: Request) -> Response:
        """Every legal action of a position, best first, with value and regret (with a
        target or an opponent where the game offers them: probabilities, and ``expected``).
        503 with Retry-After while a table it reads is being built (202 with its status
        when sent with Prefer: respond-async)."""
        game, variant = tables.ids(body.game, body.variant, body.rules)
        options = body.options()
        data = tables.cached_advice(game, variant, body.position, options)
        if data is None:
            if options or tables.needs_thread(game, variant):
                # first use, slow advice or options: tables first, then off the loop
                wanted = tables.advice_tables(game, variant, body.position, options)
                tables.check_memory(game, variant, "advice", None, options)
                await tables_ready(request, wanted)
                if options:
                    data = await guarded(
                        request, heavy_threads(), tables.advice_json, game, variant,
                        body.position, options,
                    )  # fmt: skip
                else:
                    data = await anyio.to_thread.run_sync(
                        tables.advice_json, game, variant, body.position,
                        limiter=advice_threads(),
                    )  # fmt: skip
            else:
                data = tables.advice_json(game, variant, body.position)
        return Response(data, media_type="application/json")

    @app.post("/api/distribution", response_model=DistributionOut, responses=BUILDING)
    async def score_distribution(body: PositionRequest, request: Request) -> Response:
        """The distribution of the final score from a position, under optimal play."""
        game, variant = tables.ids(body.game, body.variant, body.rules)
        if not has_distribution(tables.spec(game)):
            raise ApiError(400, "this game has no score distribution")
        pos = tables.spec(game).parse(tables.rules(game, variant), body.position)
        wanted = tables.needed(game, variant, "distribution")
        tables.check_memory(game, variant, "distribution", pos)
        await tables_ready(request, wanted)
        data = await guarded(
            request, heavy_threads(), tables.distribution_json, game, variant, body.position
        )
        return Response(data, media_type="application/json")

    @app.post("/api/duel/new", response_model=DuelOut, responses=BUILDING)
    async def duel_new(body: DuelNewRequest, request: Request) -> dict[str, Any]:
        """A game against the computer playing ``strategy``: your first roll (``seed``)."""
        game, variant = tables.ids(body.game, body.variant, body.rules)
        wanted = tables.duel_tables(game, variant, body.strategy)
        tables.check_memory(game, variant, "versus")
        await tables_ready(request, wanted)
        return await guarded(
            request, heavy_threads(), tables.duel_new, game, variant, body.strategy, body.seed,
            body.estimate,
        )  # fmt: skip

    @app.post("/api/duel/apply", response_model=DuelOut, responses=BUILDING)
    async def duel_apply(body: DuelApplyRequest, request: Request) -> dict[str, Any]:
        """Your action; when it ends your turn, the computer's whole turn and your next
        roll (dice rolled with ``seed``), with your chance of winning (exact for the model
        it names)."""
        game, variant = tables.ids(body.game, body.variant, body.rules)
        state = body.state.model_dump()
        wanted = tables.duel_tables(game, variant, state["strategy"], state)
        tables.check_memory(game, variant, "versus")
        await tables_ready(request, wanted)
        return await guarded(
            request, heavy_threads(), tables.duel_apply, game, variant, state, body.action,
            body.seed, body.estimate,
        )  # fmt: skip

    @app.post("/api/duel/estimate", response_model=DuelEstimateOut, responses=BUILDING)
    async def duel_estimate(body: DuelEstimateRequest, request: Request) -> Response:
        """Your chance of winning (exact for the model it names) from the start of your
        turn in ``state`` (what /api/duel/new and /api/duel/apply answer unless asked with
        ``estimate`` false)."""
        game, variant = tables.ids(body.game, body.variant, body.rules)
        state = body.state.model_dump()
        await tables_ready(request, tables.duel_tables(game, variant, state["strategy"], state))
        data = await guarded(request, heavy_threads(), tables.duel_estimate, game, variant, state)
        return Response(data, media_type="application/json")

    @app.post("/api/evaluate", response_model=EvaluateOut, responses=ERRORS)
    def evaluate_action(body: ActionRequest) -> dict[str, Any]:
        """The value and regret of one action played in a position."""
        game, variant = tables.ids(body.game, body.variant, body.rules)
        return tables.evaluate(game, variant, body.position, body.action)

    @app.post("/api/new", response_model=StepOut, responses=ERRORS)
    def new_game(body: NewRequest) -> dict[str, Any]:
        """A starting position to play from (the first roll made with ``seed``)."""
        return tables.new(*tables.ids(body.game, body.variant, body.rules), body.seed, body.turn)

    @app.post("/api/apply", response_model=StepOut, responses=ERRORS)
    def apply_action(body: ApplyRequest) -> dict[str, Any]:
        """Play an action: the next position (dice rolled with ``seed``) and game state."""
        game, variant = tables.ids(body.game, body.variant, body.rules)
        return tables.apply(game, variant, body.position, body.action, body.seed)

    @app.post("/api/preview", response_model=PreviewOut, responses=ERRORS)
    def preview_actions(body: PreviewRequest) -> dict[str, Any]:
        """What each action leads to, dice rolled with a fixed seed."""
        game, variant = tables.ids(body.game, body.variant, body.rules)
        return tables.preview(game, variant, body.position, body.actions)

    @app.post("/api/analyse", response_model=AnalyseOut, responses=ERRORS)
    async def analyse_game(body: AnalyseRequest) -> dict[str, Any]:
        """A played game's record graded; a whole game's luck and skill split."""
        game, variant = tables.ids(body.game, body.variant, body.rules)
        return await anyio.to_thread.run_sync(
            tables.analyse, game, variant, body.record, limiter=heavy_threads()
        )

    add_table_routes(app, tables, tables_ready, guarded, heavy_threads)  # /api/yatzy/table/...

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        """The advisor page (static HTML; the script and styles are under /static)."""
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


def create_app_from_env() -> FastAPI:
    """App factory for uvicorn worker processes (``diceopt serve --workers N``).

    ``DICEOPT_WEB_WARM``: all, none or game ids; ``DICEOPT_WEB_WAIT_WARM=1``: serve once
    warm; ``DICEOPT_WEB_LOG_LEVEL`` sets up logging in the worker (warm-up progress).
    """
    level = os.environ.get("DICEOPT_WEB_LOG_LEVEL")
    if level and not logging.getLogger().handlers:
        logging.basicConfig(level=level.upper(), format="%(asctime)s %(name)s: %(message)s")
    return create_app(
        warm=warm_setting(os.environ.get("DICEOPT_WEB_WARM", "all")),
        wait_warm=os.environ.get("DICEOPT_WEB_WAIT_WARM") == "1",
    )
