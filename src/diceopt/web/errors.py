"""The errors the API answers (``{"error": "one line"}`` with their HTTP status), the
one-line messages of a table still being built (503, Retry-After) and of a request that
does not fit its schema (the fields of an error's location), and the answer to a client
that prefers to wait for a build itself (:class:`StillBuilding`: 202 with the builds)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from diceopt.tables import Build


class ApiError(Exception):
    """An error with its HTTP status (and headers, e.g. Retry-After), answered as
    ``{"error": ...}``."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


class StillBuilding(Exception):
    """Tables an answer reads are still being built, and the client prefers to wait for
    them itself (``Prefer: respond-async``): answered 202 with their status
    (``{"building": [...], "status": "/api/tables/status/ID"}``), not 503."""

    def __init__(self, builds: list[Build]) -> None:
        super().__init__("still building")
        self.builds = [b for b in builds if b.running] or builds


def status_path(build: Build) -> str:
    """Where a client asks how a build is going: ``/api/tables/status/ID``."""
    return f"/api/tables/status/{build.id}"


def retry_seconds(build: Build) -> int:
    """When to ask again about a table being built (seconds, 2 to 30): the time its stage
    still needs at its pace so far (``Build.seconds_left``), else 5."""
    left = build.seconds_left
    if build.stage == "building" and left is not None:
        return int(min(max(round(left), 2), 30))
    return 5


STAGE_WORDS = {
    "queued": "is about to be built",
    "loading": "is being loaded",
    "waiting": "is being built by another process",
    "building": "is being built",
    "storing": "is being stored",
}


def being_built(builds: list[Build]) -> ApiError:
    """503 with Retry-After: the first table still in the making, its stage, percentage
    and seconds so far (one line)."""
    running = [b for b in builds if b.running]
    b = running[0]
    pct = "" if b.percent is None else f"{b.percent:.0f}%, "
    more = f" (and {len(running) - 1} more table)" if len(running) > 1 else ""
    retry = retry_seconds(b)
    words = STAGE_WORDS.get(b.stage, "is being made ready")
    return ApiError(
        503,
        f"{b.table.title} {words} ({pct}{b.elapsed:.0f} s so far){more}: try again in "
        f"{retry} s; GET {status_path(b)} shows the progress",
        {"Retry-After": str(retry)},
    )


def field_path(loc: Iterable[Any]) -> list[str]:
    """The fields of an error location, without ``body`` and the names of union members
    (``constrained-str``, ``dict[str,any]``)."""
    out = []
    for part in loc:
        text = str(part)
        if text == "body":
            continue
        if "-" in text or "[" in text:
            break
        out.append(text)
    return out
