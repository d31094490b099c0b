"""Zilch's full solve (RULES §9): the long-run expected score per turn, with CPU time.

Prints JSON: the value (published 620.855), the relative values by zilch streak, the
banking policy, and the CPU seconds of a solve (numba compiled and cached beforehand),
also with the turn-total cap doubled (the value must not change).
"""

import json
import time

from diceopt.games.families.push_luck import load_rules
from diceopt.games.families.push_luck_solo import solve_solo


def main() -> None:
    rules = load_rules("zilch")
    solve_solo(rules)  # compile
    t0 = time.process_time()
    sol = solve_solo(rules)
    cpu = time.process_time() - t0
    t0 = time.process_time()
    wider = solve_solo(rules, cap=2 * sol.cap)
    cpu_wide = time.process_time() - t0
    print(
        json.dumps(
            {
                "value": sol.gain,
                "published": 620.855,
                "relative_values": sol.h,
                "bank_at": sol.policy_summary(),
                "policy_iterations": sol.iterations,
                "residual": sol.residual,
                "cap_points": sol.cap * rules.step,
                "cpu_seconds": cpu,
                "value_cap_doubled": wider.gain,
                "cpu_seconds_cap_doubled": cpu_wide,
            }
        )
    )


if __name__ == "__main__":
    main()
