"""``diceopt rules check`` for a Yatzy-family rule file: its problems and the size of its solve.

Role: a rule file compiled (:mod:`~diceopt.games.yatzy.rulebook.compiler`) and then
measured against the kernel: reachable states, table bytes, a rough peak of memory and
a rough one-core time, and whether this machine has the memory to solve it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from diceopt.errors import InputError
from diceopt.games.yatzy.rulebook.compiler import RuleFileError, load_rules
from diceopt.games.yatzy.rulebook.rules import YatzyRules

# seconds per (state x roll x category) of the kernel, one core: Scandinavian's 1.43 million
# states solve in about 0.5 s, Maxi's 54.8 million in about a minute (measured, noisy)
SECONDS_PER_STATE_ROLL_CATEGORY = 9e-11
SAVED_SECONDS_PER_BYTE = 3.5e-7  # maxi-saved: about 1,100 CPU-seconds for 3.1 GB of table


def solve_size(rules: YatzyRules) -> dict[str, Any]:
    """The size of solving ``rules``: ``states`` (reachable turn-start states; saved
    rerolls: table values), ``table_bytes`` (float32 values), ``memory_bytes`` (rough peak
    while solving) and ``seconds`` (a rough one-core estimate from measured peers)."""
    if rules.saved_rerolls:
        from diceopt.games.yatzy.kernel.saved import table_bytes

        size = table_bytes(rules, "float32")
        return {
            "states": size // 4,
            "table_bytes": size,
            "memory_bytes": size // 2,  # one layer in memory at a time, the rest on disk
            "seconds": size * SAVED_SECONDS_PER_BYTE,
        }
    from diceopt.games.yatzy.kernel.layers import count_states

    states = count_states(rules)
    size = (1 << rules.num_categories) * rules.flags * (rules.bonus_threshold + 1) * 4
    work = states * len(rules.roll_counts) * rules.num_categories
    return {
        "states": states,
        "table_bytes": size,
        "memory_bytes": 4 * size,
        "seconds": work * SECONDS_PER_STATE_ROLL_CATEGORY,
    }


def machine_memory() -> int | None:
    """Bytes of physical memory of this machine, None where it cannot be read."""
    import os

    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def check_file(
    source: str | Path, memory: int | None = None
) -> tuple[YatzyRules | None, list[str], dict[str, Any]]:
    """Check a rule file: (its rules or None, one line per problem, :func:`solve_size`).
    ``memory``: bytes the machine has (default: its physical memory); a solve that needs
    more is a problem."""
    try:
        rules = load_rules(source)
    except RuleFileError as exc:
        return None, exc.problems, {}
    except InputError as exc:
        return None, [str(exc)], {}
    size = solve_size(rules)
    have = machine_memory() if memory is None else memory
    if have is not None and size["memory_bytes"] > have:
        return (
            rules,
            [
                f"the state space is too large for this machine: solving needs about "
                f"{size['memory_bytes'] / 1e9:.1f} GB of memory, it has {have / 1e9:.1f} GB"
            ],
            size,
        )
    return rules, [], size
