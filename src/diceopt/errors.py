"""Errors the user can cause: the CLI prints them as one line and exits with status 2."""


class InputError(ValueError):
    """Bad user input: a malformed position, impossible dice, an invalid parameter."""


class SolveError(RuntimeError):
    """A solve that cannot finish: e.g. value iteration that does not reach its tolerance."""
