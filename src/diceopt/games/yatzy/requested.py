"""Rule files that arrive in a request (pasted or uploaded on the web page, the API): the
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
   (``games.yatzy.tables.check_target_size``);
3. how many are kept: the server keeps a few pasted rule files (``diceopt.web``) and
   calls :func:`forget` for the one it drops, so their tables leave this process.

``extends`` in pasted text names shipped files only: a request never reads another file.
"""

from __future__ import annotations

from diceopt.errors import InputError
from diceopt.games.yatzy.rules import YatzyRules, get_rules

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
    from diceopt.games.yatzy.storage import table_path

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
    from diceopt.games.families.category import load_rules_text

    if not isinstance(text, str) or not text.strip():
        raise InputError("the rule file is empty")
    rules = load_rules_text(text, "pasted", paths=False)
    check_size(rules)
    return rules


def forget(rules: YatzyRules) -> None:
    """Drop every table of ``rules`` (by storage key) from this process: the solved
    tables, the target rows and the early-turn distributions; their files stay."""
    from diceopt.games.yatzy import early, solved, tables

    for memo in [k for k in solved.TABLES if k[0] == rules.storage_key]:
        solved.TABLES.pop(memo, None)
    tables.forget_rows(rules)
    early.forget(rules)
