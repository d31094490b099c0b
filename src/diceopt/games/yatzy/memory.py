"""The memory a Yatzy answer takes, estimated up front (``YatzySpec.memory_need``), so that
a server refuses work over its memory bound before starting it.

Constant time, no states counted: ``entries`` = sheets x flags x upper totals (see
``games.yatzy.requested.work_bound``) and ``points`` = the most points of a game + 1.

- a score distribution (``games.yatzy.distribution``): every reachable state's outcomes
  and its vector of points still to come, so about ``entries x points x``
  :data:`DISTRIBUTION_BYTES` bytes. Measured peaks (resident, less the ~0.25 GB of the
  interpreter and kernels): Scandinavian 0.64 GB (2.1 M entries x 375 points: 0.81
  byte each), American 1.06 GB (1.05 M x 1,576: 0.64), Maxi at least 13.6 GB (79.7 M x
  600: 0.28, a server stopped after 95 s); the estimate errs high.
- the expected-score table, where it is not loaded yet: ``entries`` values of its dtype,
  and as much again for the solve's work.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from diceopt.games.yatzy.requested import work_bound

DISTRIBUTION_BYTES = 0.85  # bytes per entry and point of a distribution's work (see above)


def table_loaded(config: Any) -> bool:
    """Whether the expected-score table of ``config`` is in this process (no I/O)."""
    from diceopt.games.yatzy.solved import TABLES, table_memo

    return table_memo(config.rules, config.theta, config.dtype) in TABLES


def memory_need(config: Any, need: str) -> int:
    """Bytes an answer of kind ``need`` (``distribution``, ``advice``, ``versus``, ...)
    under ``config`` (a YatzyConfig) takes beyond what the process holds (module doc)."""
    rules = config.rules
    if rules.saved_rerolls:  # loaded only, never solved on request; no distribution
        return 0
    entries = work_bound(rules)[0]
    out = 0
    if not table_loaded(config):
        out += 2 * entries * np.dtype(config.dtype).itemsize
    if need == "distribution":
        out += int(entries * (rules.max_total + 1) * DISTRIBUTION_BYTES)
    return out
