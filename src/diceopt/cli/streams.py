"""Closed or failing standard streams: one error line and status 2, never a traceback.

``main`` calls :func:`check_streams` first: with standard output closed the output would
be lost, so the command stops before any work; with standard error closed its messages
(progress, warnings) are dropped and the command runs. Input readers use
:func:`read_stdin` and :func:`check_stdin`.
"""

from __future__ import annotations

import errno
import os
import sys

from diceopt.errors import InputError


def check_streams() -> int | None:
    """2 (after one error line on stderr, if open) when standard output is closed; with
    standard error closed its messages go to the null device. None: carry on."""
    if sys.stdout is None:
        if sys.stderr is not None:
            print(
                "diceopt: error: standard output is closed: nothing could be shown", file=sys.stderr
            )
        return 2
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (kept to the end)
    return None


# what a failing output says (a full disk or quota, a device error) when no file is named
OUTPUT_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


def stdout_failed(exc: OSError) -> bool:
    """True when ``exc`` came from writing standard output, not from a file of the
    command: the output cannot be flushed, or the error names no file and is one that a
    full or failing output raises (a write that failed may leave nothing to flush)."""
    try:
        sys.stdout.flush()
    except OSError:
        return True
    return exc.filename is None and exc.errno in OUTPUT_ERRNOS


def drop_output() -> None:
    """Send what is left of the output to the null device, so that the interpreter's last
    flush of a broken or full standard output raises nothing at exit."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):  # not a real file (e.g. captured)
        pass


def check_stdin(what: str) -> None:
    """InputError when standard input is closed: ``what`` (e.g. "play") needs it."""
    if sys.stdin is None:
        raise InputError(f"standard input is closed: {what} reads from it")


def read_stdin(what: str) -> str:
    """All of standard input as text; InputError (one line) when it is closed or cannot be
    read (``what`` says who reads it)."""
    check_stdin(what)
    try:
        return sys.stdin.read()
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise InputError(f"cannot read standard input: {reason}") from None
