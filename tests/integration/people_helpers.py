"""Shared by the people-and-workspaces tests (SPEC §17): audit lines (the `audit` fixture is in
tests/conftest.py) and racing calls."""

from __future__ import annotations

import logging
import threading


def audited(records: list[logging.LogRecord]) -> list[dict]:
    """The structured fields of each audit record."""
    return [r.fields for r in records]  # type: ignore[attr-defined]


def at_once(*calls):
    """Run the calls in threads released together; their results, in order."""
    results: list = [None] * len(calls)
    barrier = threading.Barrier(len(calls))

    def run(index: int) -> None:
        barrier.wait(timeout=30)
        results[index] = calls[index]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results
