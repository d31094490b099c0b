"""Pure ASGI middleware of the web app: request bodies over a size limit answer 413, JSON
nested deeper than MAX_JSON_DEPTH answers 400, and POST bodies under /api/ not declared
JSON answer 415 (``{"error": "one line"}``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from diceopt.web.schemas import MAX_BODY_BYTES, MAX_JSON_DEPTH

_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKETS = bytes(range(256)).translate(None, b"[]{}")


def json_depth(body: bytes) -> int:
    """How deeply the arrays and objects of a JSON text nest (brackets inside strings do
    not count); quick on a body under the size limit, and it never recurses."""
    depth = most = 0
    for byte in _STRINGS.sub(b"", body).translate(None, _BRACKETS):
        depth += 1 if byte in b"[{" else -1
        most = max(most, depth)
    return most


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


async def reject(send: Send, status: int, message: str) -> None:
    """Answer ``{"error": message}`` with ``status`` and close (pure ASGI)."""
    body = json.dumps({"error": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class Middleware:
    """A pure ASGI middleware around ``app`` (subclasses define ``__call__``)."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app


class BodyLimitMiddleware(Middleware):
    """Answer 413 when a request body exceeds ``limit`` bytes (pure ASGI).

    The declared Content-Length is checked first; the bytes actually received are counted
    too (chunked uploads, or a Content-Length that lies), before the app sees the body.
    """

    def __init__(self, app: Callable[..., Awaitable[None]], limit: int = MAX_BODY_BYTES) -> None:
        super().__init__(app)
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI entry point."""
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await reject(send, 400, "invalid Content-Length header")
                    return
                if declared > self.limit:
                    await reject(send, 413, self._too_large())
                    return
        messages = []
        total = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            total += len(message.get("body", b""))
            if total > self.limit:
                await reject(send, 413, self._too_large())
                return
            if not message.get("more_body", False):
                break
        body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
        if json_depth(body) > MAX_JSON_DEPTH:
            await reject(send, 400, f"JSON nested too deeply (at most {MAX_JSON_DEPTH} levels)")
            return
        pending = iter(messages)

        async def replay() -> MutableMapping[str, Any]:
            for message in pending:
                return message
            return await receive()

        await self.app(scope, replay, send)

    def _too_large(self) -> str:
        return f"request body too large: the limit is {self.limit // 1024} KB"


JSON_TYPES = ("application/json",)


class JsonOnlyMiddleware(Middleware):
    """Answer 415 to a POST under /api/ whose body is not declared JSON (pure ASGI): a
    form or plain text would otherwise fail the schema with a message about fields."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI entry point."""
        if (
            scope["type"] == "http"
            and scope["method"] in ("POST", "PUT", "PATCH")
            and str(scope.get("path", "")).startswith("/api/")
        ):
            kind = b""
            for name, value in scope["headers"]:
                if name == b"content-type":
                    kind = value.split(b";")[0].strip().lower()
            text = kind.decode("latin-1")
            if text not in JSON_TYPES and not text.endswith("+json"):
                got = f"got {text}" if text else "no Content-Type given"
                message = f"send JSON (Content-Type: application/json); {got}"
                await reject(send, 415, message)
                return
        await self.app(scope, receive, send)


class CancelledMiddleware(Middleware):
    """A request cancelled before its answer started (uvicorn's shutdown cancels what is
    still running after its grace time) answers 503 "the server is stopping", one line,
    instead of a traceback and 500 (pure ASGI)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI entry point."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: MutableMapping[str, Any]) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except asyncio.CancelledError:
            if not started:
                with contextlib.suppress(Exception):
                    await reject(send, 503, "stopped: the server is stopping")
            raise


class Activity:
    """The API requests that work, in flight, and when the last one ended: background work (the
    start-up's warm-up) waits for a quiet moment (:meth:`wait_quiet`), so that on a
    machine of few cores it never slows a request down. Thread-safe."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._busy = 0
        # time.monotonic() when the last request ended; at first, when this was made: the
        # first requests of a new server (its listening socket may hold some) come first
        self._last = time.monotonic()

    def enter(self) -> None:
        """A request starts."""
        with self._cond:
            self._busy += 1

    def leave(self) -> None:
        """A request has ended."""
        with self._cond:
            self._busy -= 1
            self._last = time.monotonic()
            self._cond.notify_all()

    def wait_quiet(self, seconds: float, stop: threading.Event | None = None) -> None:
        """Return once no request is in flight and none has ended (nor this was made) for
        ``seconds``, or when ``stop`` is set."""
        with self._cond:
            while not (stop is not None and stop.is_set()):
                left = seconds - (time.monotonic() - self._last)
                if self._busy == 0 and left <= 0:
                    return
                self._cond.wait(timeout=seconds if self._busy else left)


class ActivityMiddleware(Middleware):
    """Counts the POST requests under /api/ (the answers that work: advice, games against
    the computer, ...) in flight in ``activity``; a GET (health, the tables' progress, the
    listing) is quick and does not count (pure ASGI)."""

    def __init__(self, app: Callable[..., Awaitable[None]], activity: Activity) -> None:
        super().__init__(app)
        self.activity = activity

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI entry point."""
        if (
            scope["type"] != "http"
            or scope["method"] != "POST"
            or not scope["path"].startswith("/api/")
        ):
            await self.app(scope, receive, send)
            return
        self.activity.enter()
        try:
            await self.app(scope, receive, send)
        finally:
            self.activity.leave()
