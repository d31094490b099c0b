"""The distribution of a final Yatzy score as a result: summaries, text and a plot.

Role: :class:`ScoreDistribution` holds P(final score = x) and the bonus and Yatzy rates
computed by :mod:`diceopt.games.yatzy.analyses.distribution`; here are its statistics (mean,
standard deviation, quantiles, P(>= k)), the lines the command prints
(:func:`summary_lines`) and the PNG plot (:func:`distribution_png`). No numba.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

PERCENTILES = (1, 5, 25, 50, 75, 95, 99)


AT_LEAST = (200, 250, 300)


@dataclass
class ScoreDistribution:
    """The exact distribution of the final score (or of the points still to come).

    ``pmf[i]``: probability that the final score is i points (with ``base`` None: that
    i points are still to come). ``base``: points so far of the position (None when the
    position gave no score). ``bonus_rate`` / ``yatzy_rate``: probabilities that the
    game ends with the upper bonus / with 50 in the Yatzy box (counting what the
    position already holds, when it tells). ``value``: the table's value of the
    position (points; a certainty equivalent for theta != 0). ``seconds``: wall time.
    ``states``: the turn-start states the pass visited (None: read from stored rows).
    """

    pmf: np.ndarray
    base: float | None
    bonus_rate: float
    yatzy_rate: float
    value: float
    theta: float = 0.0
    seconds: float = 0.0
    states: int | None = 0

    @property
    def support(self) -> np.ndarray:
        """The score of every pmf entry (points)."""
        return np.arange(self.pmf.size, dtype=np.float64)

    @property
    def total(self) -> float:
        """Sum of the probabilities (1 up to rounding)."""
        return float(self.pmf.sum())

    @property
    def mean(self) -> float:
        """Expected final score (points)."""
        return float(self.support @ self.pmf)

    @property
    def std(self) -> float:
        """Standard deviation of the final score (points)."""
        x = self.support - self.mean
        return float(np.sqrt(max(0.0, (x * x) @ self.pmf)))

    def cdf(self) -> np.ndarray:
        """``cdf[i]`` = P(final score <= i)."""
        return np.cumsum(self.pmf)

    def quantile(self, q: float) -> int:
        """The smallest score s with P(final <= s) >= q (points), q in (0, 1]."""
        c = self.cdf()
        i = int(np.searchsorted(c, q * c[-1] - 1e-12))
        return min(i, self.pmf.size - 1)

    @property
    def median(self) -> int:
        """The median final score (points)."""
        return self.quantile(0.5)

    def p_at_least(self, k: float) -> float:
        """P(final score >= k)."""
        i = max(0, int(np.ceil(k)))
        return float(self.pmf[i:].sum()) if i < self.pmf.size else 0.0

    def summary(self) -> dict[str, Any]:
        """Mean, std, median, percentiles, P(>= k) for k = 200, 250, 300, the rates."""
        return {
            "mean": self.mean,
            "std": self.std,
            "median": self.median,
            "percentiles": {str(p): self.quantile(p / 100) for p in PERCENTILES},
            "p_at_least": {str(k): self.p_at_least(k) for k in AT_LEAST},
            "bonus_rate": self.bonus_rate,
            "yatzy_rate": self.yatzy_rate,
            "total": self.total,
            "value": self.value,
            "theta": self.theta,
            "min": int(np.flatnonzero(self.pmf > 0)[0]),
            "max": int(np.flatnonzero(self.pmf > 0)[-1]),
        }


def distribution_png(dist: ScoreDistribution, path: str, title: str) -> None:
    """The pmf (probability per score, points) with the mean marked, written to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    ax.bar(dist.support, dist.pmf, width=1.0, color="#4c78a8")
    ax.axvline(dist.mean, color="#e45756", linestyle="--", label=f"mean {dist.mean:.2f}")
    ax.legend()
    ax.set_xlabel("final score (points)" if dist.base is not None else "points still to come")
    ax.set_ylabel("probability")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def summary_lines(dist: ScoreDistribution, box: str = "Yatzy (50)") -> list[str]:
    """The distribution in words: mean, std, median, percentiles, P(>= k), the rates
    (``box``: the variant's Yatzy box, :attr:`YatzyRules.yatzy_box`)."""
    s = dist.summary()
    what = "final score" if dist.base is not None else "points still to come"
    pct = "  ".join(f"p{p} {v}" for p, v in s["percentiles"].items())
    at_least = "  ".join(f"P(>= {k}) {v:.6f}" for k, v in s["p_at_least"].items())
    return [
        f"{what}: mean {s['mean']:.6f} points, std {s['std']:.4f}, median {s['median']}",
        f"percentiles: {pct}",
        at_least,
        f"range {s['min']} to {s['max']}; probabilities sum to {s['total']:.12f}",
        f"upper bonus {100 * s['bonus_rate']:.4f}% of games, {box} {100 * s['yatzy_rate']:.4f}%",
    ]
