"""``diceopt serve``: the web advisor (JSON API and page) on uvicorn."""

from __future__ import annotations

import argparse
import errno
import os
import socket
import threading
from collections.abc import Callable
from typing import Any

from diceopt.errors import InputError
from diceopt.options import int_in
from diceopt.storage import ENV_VAR as CACHE_ENV


def register(subparsers: Any) -> None:
    """Add ``serve [--host H --port P --workers N --cache-dir D --max-memory SIZE ...]``."""
    parser = subparsers.add_parser("serve", help="the web advisor: a page and a JSON API")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument(
        "--port", type=int_in(0, 65535), default=8000, help="TCP port (default 8000; 0 = any)"
    )
    parser.add_argument(
        "--workers",
        type=int_in(1, 256),
        default=1,
        help="worker processes (default 1; each loads tables)",
    )
    parser.add_argument(
        "--warm",
        default="all",
        metavar="GAMES",
        help="games whose default tables load at start-up: all (default), none, or ids "
        "separated by commas, e.g. yatzy,stick; the others load on first use",
    )
    parser.add_argument("--no-warm", action="store_true", help="the same as --warm none")
    parser.add_argument(
        "--wait-warm",
        action="store_true",
        help="accept requests only once the warm tables are loaded (default: at once)",
    )
    parser.add_argument(
        "--prepare",
        action="store_true",
        help="before serving, load or build and store every table the page reads for the "
        "warm games' default variants (all games with --no-warm), with progress: the "
        "expected-score tables, Yatzy's target table (the first time about 45 s on 2 cores "
        "and 0.8 GB of disk) and the tables of an opponent who plays to win; then serve "
        "once warm. Without it a request that needs a table not stored yet starts its "
        "build and gets 503 'being built' (GET /api/tables shows the progress)",
    )
    parser.add_argument(
        "--cache-dir",
        default=None,
        help="where solved tables are stored (default $DICEOPT_CACHE or the user cache)",
    )
    parser.add_argument(
        "--max-memory",
        default=None,
        metavar="SIZE",
        help="the most memory one request's work may need, e.g. 4G or 512M (default "
        "$DICEOPT_WEB_MAX_MEMORY or 4G): a request estimated to need more (e.g. the score "
        "distribution of Maxi Yatzy, about 14 GB) is refused at once with 400, saying why",
    )
    parser.add_argument(
        "--work-seconds",
        type=float,
        default=None,
        metavar="S",
        help="the most one request's own work may take before it is stopped and answered "
        "503 (default $DICEOPT_WEB_WORK_SECONDS or 60)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=("debug", "info", "warning", "error"),
        help="server log detail (default info)",
    )
    parser.set_defaults(handler=cmd_serve)


def listen_socket(host: str, port: int) -> socket.socket:
    """A bound TCP socket for ``host:port``; InputError (one line) when that fails."""
    if not 0 <= port <= 65535:
        raise InputError(f"--port must be 0..65535, got {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise InputError(f"cannot resolve --host {host!r}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        why = "the port is in use" if exc.errno == errno.EADDRINUSE else exc.strerror
        raise InputError(f"cannot listen on {host}:{port}: {why}") from None
    sock.set_inheritable(True)
    return sock


def url_for(host: str, port: int) -> str:
    """The page's URL for a listening address."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    if ":" in shown:
        shown = "[::1]" if shown == "::" else f"[{shown}]"
    return f"http://{shown}:{port}/"


def page_tables(warm: bool | list[str]) -> list[Any]:
    """Every stored table the page reads for the default variant of the warm games
    (``warm`` False: every game; a list: those games), in the order they are built."""
    from diceopt.web.games import GameTables
    from diceopt.web.served import served_games

    tables = GameTables(served_games(None if isinstance(warm, bool) else warm))
    wanted: list[Any] = []
    for game in tables.specs:
        wanted += tables.needed(game, tables.variant(game, None), "all")
    return wanted


def prepare_tables(warm: bool | list[str]) -> int:
    """``serve --prepare``: load or build every stored table the page reads for the default
    variant of the warm games (``warm`` False: every game), progress on stderr, one line
    each on stdout; the number that could not be made ready (reported, not fatal: they
    are built on demand then)."""
    wanted = page_tables(warm)
    if not wanted:
        print("diceopt advisor: no stored tables to prepare for these games", flush=True)
        return 0
    return prepare_listed(wanted, lambda line: print(line, flush=True))


def prepare_listed(wanted: list[Any], out: Callable[[str], None]) -> int:
    """Load or build the tables ``wanted`` (:func:`page_tables`), one line each through
    ``out``; the number that could not be made ready."""
    from diceopt.tables import prepare

    builds = prepare(wanted, out=lambda line: out(f"diceopt advisor: {line}"))
    return sum(b.stage != "ready" for b in builds)


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the advisor until interrupted."""
    import logging

    import uvicorn

    from diceopt.web.served import memory_size, warm_setting

    if args.workers < 1:
        raise InputError(f"--workers must be at least 1, got {args.workers}")
    if args.work_seconds is not None and not 0 < args.work_seconds <= 86400:
        raise InputError(f"--work-seconds must be 0 to 86400, got {args.work_seconds:g}")
    max_memory = None if args.max_memory is None else memory_size(args.max_memory, "--max-memory")
    if args.cache_dir is not None:  # the table store reads $DICEOPT_CACHE (worker processes too)
        os.environ[CACHE_ENV] = args.cache_dir
    warm_text = "none" if args.no_warm else args.warm
    warm = warm_setting(warm_text)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(name)s: %(message)s", force=True
    )
    sock = listen_socket(args.host, args.port)
    port = sock.getsockname()[1]
    if args.prepare:
        prepare_tables(warm)
        args.wait_warm = True
    elif warm and args.workers == 1:
        # the stored tables of a game against the computer load (their checks release the
        # GIL) while the web app's modules are imported
        from diceopt.web.served import preload

        threading.Thread(target=preload, args=(warm,), name="diceopt-preload", daemon=True).start()
    print(f"diceopt advisor: open {url_for(args.host, port)} (Ctrl+C to stop)", flush=True)
    from diceopt.web.routes import GRACEFUL_SECONDS

    options = {
        "log_level": args.log_level,
        "timeout_keep_alive": 30,
        "timeout_graceful_shutdown": GRACEFUL_SECONDS,
    }
    if args.workers == 1:
        from diceopt.web.routes import create_app

        app = create_app(
            warm=warm,
            wait_warm=args.wait_warm,
            work_seconds=args.work_seconds,
            max_memory=max_memory,
        )
        config = uvicorn.Config(app, **options)
        try:
            uvicorn.Server(config).run(sockets=[sock])
        except KeyboardInterrupt:  # uvicorn re-raises Ctrl+C after its clean shutdown
            pass
        print("diceopt advisor: stopped", flush=True)
        return 0
    # Several processes share the bound socket; each imports the app factory.
    os.environ["DICEOPT_WEB_WARM"] = warm_text
    if max_memory is not None:
        os.environ["DICEOPT_WEB_MAX_MEMORY"] = str(max_memory)
    if args.work_seconds is not None:
        os.environ["DICEOPT_WEB_WORK_SECONDS"] = str(args.work_seconds)
    os.environ["DICEOPT_WEB_WAIT_WARM"] = "1" if args.wait_warm else "0"
    os.environ["DICEOPT_WEB_LOG_LEVEL"] = args.log_level
    config = uvicorn.Config(
        "diceopt.web.routes:create_app_from_env", factory=True, workers=args.workers, **options
    )
    from uvicorn.supervisors import Multiprocess

    try:
        Multiprocess(config, sockets=[sock]).run()
    except KeyboardInterrupt:
        pass
    print("diceopt advisor: stopped", flush=True)
    return 0
