"""Summaries of repeated measurements: min/median/max, percentiles and paired ratios."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def summary(values: Sequence[float]) -> dict:
    """min/median/max (and n) of repeated runs; empty input gives Nones, never a crash."""
    if not values:
        return {"n": 0, "min": None, "median": None, "max": None}
    return {
        "n": len(values),
        "min": min(values),
        "median": statistics.median(values),
        "max": max(values),
    }


def percentile(values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile (p in 0..100) of `values`."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(p / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def figure(
    name: str,
    subject: Sequence[float],
    baseline: Sequence[float],
    *,
    unit: str,
    goal: str,
    limit: float | None = None,
    higher_is_better: bool = False,
    note: str = "",
) -> dict:
    """One table row: subject and baseline summaries and the ratio of paired runs.

    Runs are paired by index (they were interleaved), so a machine hiccup hits one pair rather
    than one side. `limit` is the ratio goal; `met` compares the median ratio with it.
    """
    pairs = [s / b for s, b in zip(subject, baseline, strict=False) if b]
    ratio = summary(pairs)
    met = None
    if limit is not None and ratio["median"] is not None:
        met = ratio["median"] >= limit if higher_is_better else ratio["median"] <= limit
    return {
        "name": name,
        "unit": unit,
        "subject": summary(subject),
        "baseline": summary(baseline),
        "ratio": ratio,
        "goal": goal,
        "met": met,
        "note": note,
        "raw": {"subject": list(subject), "baseline": list(baseline)},
    }
