"""Errors the user can cause: the CLI prints them as one line and exits with status 2."""

MESSAGE_LIMIT = 300  # characters of an error line (the CLI and the web API alike)


class InputError(ValueError):
    """Bad user input: a malformed position, impossible dice, an invalid parameter."""


class TableFileError(Exception):
    """A stored table file that must not be used (the message says why)."""


class SolveError(RuntimeError):
    """A solve that cannot finish: e.g. value iteration that does not reach its tolerance."""


def one_line(text: object, limit: int = MESSAGE_LIMIT) -> str:
    """A message as one line of at most ``limit`` characters (a long echo of the input is
    cut, ending with ``...``)."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."
