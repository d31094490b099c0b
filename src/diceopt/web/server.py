"""uvicorn settings for the advisor: one socket write per response.

uvicorn writes a response's status line and headers, then its body, as separate socket
sends. On a small (virtual) machine every send costs a system call and wakes the client
twice; :class:`CoalescingProtocol` wraps the connection's transport so that the writes made
in one event-loop step leave in a single send. Everything else is uvicorn's own protocol
(httptools when installed, else h11).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import uvicorn
from uvicorn.protocols.http.auto import AutoHTTPProtocol


class CoalescingTransport:
    """A transport proxy: writes made in one event-loop step are joined into one send."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []
        self._scheduled = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Queue ``data``; it is sent when the current event-loop step ends."""
        if not data:
            return
        self._pending.append(bytes(data))
        if not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self.flush)

    def flush(self) -> None:
        """Send what is queued, in one write."""
        self._scheduled = False
        if self._pending:
            data = b"".join(self._pending)
            self._pending.clear()
            if not self._transport.is_closing():
                self._transport.write(data)

    def writelines(self, chunks: list[bytes]) -> None:
        """Queue several chunks."""
        for chunk in chunks:
            self.write(chunk)

    def close(self) -> None:
        """Send what is queued, then close."""
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class CoalescingProtocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
    """uvicorn's HTTP/1.1 protocol with :class:`CoalescingTransport` writes."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Wrap the transport, then let uvicorn set up the connection."""
        super().connection_made(CoalescingTransport(transport, asyncio.get_running_loop()))


def uvicorn_config(app: Any, **options: Any) -> uvicorn.Config:
    """A uvicorn Config for the advisor (other options as given).

    Writes are coalesced unless ``DICEOPT_WEB_COALESCE=0`` (uvicorn's plain protocol).
    """
    if os.environ.get("DICEOPT_WEB_COALESCE", "1") != "0":
        options.setdefault("http", CoalescingProtocol)
    return uvicorn.Config(app, **options)
