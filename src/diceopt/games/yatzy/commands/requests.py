"""What a Yatzy request needs and may cost, checked before any work starts.

Rule files that arrive in a request (pasted or uploaded on the web page, the API): the
work they may cause is bounded.

Role: a server builds the tables of a pasted rule file on demand, through the same table
store as the built-in variants, so a request must not be able to make it build without
bound. The bounds:

1. size: a file whose solve is larger than Scandinavian Yatzy's (by
   :func:`work_bound`: sheets x flags x upper totals x rolls x categories, which needs
   no count of the states) is refused, unless its expected-score table is already stored
   (prepared with ``diceopt yatzy solve --rules FILE`` in the server's cache directory);
   saved rerolls are refused (their solve takes minutes);
2. the tables a request may build for it: the expected-score table and, where they stay
   small (:data:`REQUESTED_TARGET_BYTES`), the target rows that target advice, advice
   against an opponent and play against the computer read
   (:func:`check_target_size`);
3. how many are kept: the server keeps a few pasted rule files (``diceopt.web``) and
   calls ``store.forget`` for the one it drops, so their tables leave this process.

``extends`` in pasted text names shipped files only: a request never reads another file.

The tables an answer reads (:func:`needed`, for ``YatzySpec.tables``), each request
checked first (:func:`check_request`) so that a bad one never starts a build.

The memory a Yatzy answer takes, estimated up front (``YatzySpec.memory_need``), so that
a server refuses work over its memory bound before starting it.

Constant time, no states counted: ``entries`` = sheets x flags x upper totals (see
``games.yatzy.requested.work_bound``) and ``points`` = the most points of a game + 1.

- a score distribution (``games.yatzy.distribution``): every reachable state's outcomes
  and its vector of points still to come, so about ``entries x points x``
  :data:`DISTRIBUTION_BYTES` bytes (from a position with f categories filled, the
  entries of masks that contain it: ``entries / 2^f``). The command line checks it
  against the memory the machine has available (:func:`check_distribution_memory`).
  Measured peaks (resident, less the ~0.25 GB of the interpreter and kernels):
  Scandinavian 0.64 GB (2.1 M entries x 375 points: 0.81 byte each), American 1.06 GB
  (1.05 M x 1,576: 0.64), Maxi at least 13.6 GB (79.7 M x 600: 0.28, a server stopped
  after 95 s); the estimate errs high.
- the expected-score table, where it is not loaded yet: ``entries`` values of its dtype,
  and as much again for the solve's work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from diceopt.errors import InputError
from diceopt.games.yatzy.rulebook.compiler import load_rules_text
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.games.yatzy.rulebook.variants import get_rules
from diceopt.games.yatzy.stored.store import (
    early_table,
    expected_table,
    in_memory,
    state_pmfs_table,
    table_path,
    target_table,
)

if TYPE_CHECKING:
    from diceopt.tables import Table

LIMIT_VARIANT = "scandinavian"  # the largest solve a request may start
# the largest target rows a request may build (bytes, an upper bound; Scandinavian's
# would be 3.1 GB: target advice and play against the computer need a prepared table)
REQUESTED_TARGET_BYTES = 64e6


def work_bound(rules: YatzyRules) -> tuple[int, int]:
    """(table entries, an upper bound on the solve's work: entries x rolls x categories)
    of ``rules``, without counting the reachable states (constant time)."""
    entries = (1 << rules.num_categories) * rules.flags * (rules.bonus_threshold + 1)
    return entries, entries * len(rules.roll_counts) * rules.num_categories


def check_size(rules: YatzyRules) -> None:
    """InputError (one line) when a request may not start the solve of ``rules``: saved
    rerolls, or a solve larger than Scandinavian Yatzy's whose table is not stored."""
    if rules.saved_rerolls:
        raise InputError(
            f"rule file {rules.name}: saved rerolls are solved by `diceopt yatzy solve "
            "--rules FILE` only, not on request"
        )
    entries, work = work_bound(rules)
    limit_entries, limit_work = work_bound(get_rules(LIMIT_VARIANT))
    if entries <= limit_entries and work <= limit_work:
        return
    if table_path(rules).exists():  # prepared: loaded, not solved
        return
    raise InputError(
        f"rule file {rules.name}: its solve is larger than Scandinavian Yatzy's "
        f"({rules.num_categories} categories, {rules.dice} dice), too large to start on "
        "request; prepare it on the server with `diceopt yatzy solve --rules FILE`"
    )


def requested_rules(text: str) -> YatzyRules:
    """The rules of a rule file's text from a request (``extends``: shipped files only),
    checked by :func:`check_size`; InputError (one line) for a bad or too large file."""
    if not isinstance(text, str) or not text.strip():
        raise InputError("the rule file is empty")
    rules = load_rules_text(text, "pasted", paths=False)
    check_size(rules)
    return rules


DISTRIBUTION_BYTES = 0.85  # bytes per entry and point of a distribution's work (see above)


def table_loaded(config: Any) -> bool:
    """Whether the expected-score table of ``config`` is in this process (no I/O)."""
    return in_memory(config.rules, config.theta, config.dtype)


def memory_need(config: Any, need: str, pos: Any = None) -> int:
    """Bytes an answer of kind ``need`` (``distribution``, ``advice``, ``versus``, ...)
    under ``config`` (a YatzyConfig) takes beyond what the process holds (module doc); a
    distribution from ``pos`` (an advice ``Position``; None: the start) reaches only the
    entries whose filled categories include the position's."""
    rules = config.rules
    if rules.saved_rerolls:  # loaded only, never solved on request; no distribution
        return 0
    entries = work_bound(rules)[0]
    out = 0
    if not table_loaded(config):
        out += 2 * entries * np.dtype(config.dtype).itemsize
    if need == "distribution":
        filled = 0 if pos is None else len(set(pos.filled))
        reached = entries >> min(filled, rules.num_categories)
        out += int(reached * (rules.max_total + 1) * DISTRIBUTION_BYTES)
    return out


def check_distribution_memory(config: Any, position: str | None) -> None:
    """InputError (one line) when the distribution from ``position`` (text; None: the
    start) would need more memory than this machine has available (:func:`memory_need`),
    before its table is solved; a bad position gets its own one-line error."""
    from diceopt.games.yatzy.play.advice import parse_position
    from diceopt.memory import check_available

    pos = parse_position(position, config.rules) if position else None
    where = "the start" if pos is None else "this position"
    check_available(
        memory_need(config, "distribution", pos),
        f"the {config.variant} distribution from {where}",
        "give a later position (more categories filled)",
    )


# --- the tables an answer reads -------------------------------------------------------


MAX_TARGET_BYTES = 8e9  # the largest target table a server builds (American: 6.6 GB bound)


def target_bytes_bound(rules: Any, dtype: str = "float32") -> int:
    """An upper bound on the size of a variant's target rows (bytes): every state key
    times every k up to the most points (the rows hold less: 0.8 GB of Scandinavian's 3.1)."""
    keys = (1 << rules.num_categories) * rules.flags * (rules.bonus_threshold + 1)
    return keys * (int(rules.max_total) + 1) * np.dtype(dtype).itemsize


def check_target_size(config: Any, what: str, dtype: str = "float32") -> None:
    """InputError (one line) when the variant's target table is too large to build here
    (Maxi Yatzy: 2^20 sheets): ``what`` (e.g. "target advice") is not offered for it."""
    bound = target_bytes_bound(config.rules, dtype)
    if bound > MAX_TARGET_BYTES:
        raise InputError(
            f"{what} is not offered for {config.variant}: the target table it reads would "
            f"take up to {bound / 1e9:,.0f} GB"
        )
    if getattr(config, "requested", False):
        if bound > REQUESTED_TARGET_BYTES and not target_table(config.rules, dtype).is_stored():
            raise InputError(
                f"{what} is not offered for a pasted rule file this large: the target "
                f"table it reads (up to {bound / 1e6:,.0f} MB) is built for a rule file "
                "prepared on the server (`diceopt yatzy targets --rules FILE`)"
            )


RISK_THETAS = (-0.05, 0.05)  # win.RISK_THETA: the tables an opponent who plays to win uses


def check_request(config: Any, need: str, pos: Any, options: dict[str, Any]) -> None:
    """InputError (one line) for an answer that would fail once its tables are built: a
    target out of range, a bad opponent, both, a position whose game is over or without
    the score an opponent needs, a bad side in a game against the computer."""
    rules = config.rules
    if need == "advice":
        target, opponent = options.get("target"), options.get("opponent")
        if target is not None and opponent is not None:
            raise InputError("give either a target or an opponent, not both")
        if target is not None:
            from diceopt.games.yatzy.analyses.targets import check_target  # (numba)

            check_target(int(target), rules)
        if opponent is not None:
            from diceopt.games.yatzy.play.advice import Position
            from diceopt.games.yatzy.winning.win import parse_opponent  # (numba)

            if not isinstance(opponent, Position):
                parse_opponent(opponent, rules)
            if pos is not None and pos.score is None:
                raise InputError("advice against an opponent needs your score ('score N')")
        if (target is not None or opponent is not None) and pos is not None:
            if pos.over(rules):
                raise InputError("the game is over: every category is filled")
    elif need == "versus" and pos is not None and "computer" in options:
        from diceopt.games.yatzy.winning.versus import check_sides

        check_sides(config, pos, options["computer"])


def needed(config: Any, need: str = "advice", pos: Any = None, **options: Any) -> tuple[Table, ...]:
    """The tables an answer reads under ``config`` (a YatzyConfig): ``need`` "advice"
    (``options``: target, opponent, opponent_plays), "distribution", "versus"
    (``strategy``, and ``computer``: its side, when ``pos`` is the human's position) or
    "all" (everything the page offers). With ``pos`` (the position asked about) the
    request is checked first (:func:`check_request`: InputError, one line), so that a bad
    one never starts a build. Saved-rerolls variants: none (their table is solved by
    ``diceopt yatzy solve`` only)."""
    check_request(config, need, pos, options)
    if config.rules.saved_rerolls:
        return ()
    v, dtype = config.rules, config.dtype
    tables = [expected_table(v, config.theta, dtype)]
    if config.theta != 0.0 and need != "distribution":
        tables.append(expected_table(v, 0.0, dtype))
    to_win = False
    if need == "advice" and options.get("target") is not None:
        check_target_size(config, "target advice", dtype)
        tables.append(target_table(v, dtype))
    elif need == "advice" and options.get("opponent") is not None:
        check_target_size(config, "advice against an opponent")
        tables.append(target_table(v, "float32"))
        to_win = str(options.get("opponent_plays") or "expected").lower() == "win"
    elif need == "versus":
        check_target_size(config, "play against the computer")
        tables.append(target_table(v, "float32"))
        to_win = str(options.get("strategy") or "").strip().lower() == "win"
    elif need == "all" and target_bytes_bound(config.rules) <= MAX_TARGET_BYTES:
        tables.append(target_table(v, "float32"))
        tables.append(state_pmfs_table(v, dtype))  # a table of 2 to 6: everyone's chance
        to_win = True
    if to_win:
        tables += [expected_table(v, theta, dtype) for theta in RISK_THETAS]
    if need == "versus" or need == "all" and to_win:
        # a game against the computer: the distributions of the first turns' states
        thetas = (0.0, *RISK_THETAS) if to_win else (0.0,)
        tables += [early_table(v, theta, dtype) for theta in thetas]
    seen: dict[str, Table] = {}
    for t in tables:
        seen.setdefault(t.name, t)
    return tuple(seen.values())


def needed_tables(config: Any, advice: bool) -> tuple[Table, ...]:
    """The stored tables a table answer reads: the expected-score table and the state
    distributions; for advice also the target rows from the start."""
    from diceopt.games.yatzy.winning.table import check_config

    check_config(config)
    rules = config.rules
    out = [expected_table(rules, 0.0, config.dtype), state_pmfs_table(rules, config.dtype)]
    if advice:
        check_target_size(config, "advice at a table")
        out.append(target_table(rules, "float32"))
    return tuple(out)
