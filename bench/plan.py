"""How much each mode runs: full (the issue's counts), quick (< 3 min), smoke (CI, < 60 s)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Plan:
    mode: str
    reps: int  # repetitions of every paired measurement
    ingress_requests: int  # turns per ingress run (each side, each repetition)
    concurrency: int  # in-flight turns of the load generator
    tool_calls: int  # sequential tool calls averaged into one repetition
    rss_turns: int  # turns for the server-RSS growth check
    load_seconds: float  # the steady-load run
    typed_chars: int  # characters typed per typing repetition
    capture_calls: int  # captures averaged into one repetition
    link_reps: int = 1  # first visits per emulated link (issue 23), each side
    postgres: bool = True
    search_notes: int = 10_000  # notes in the workspace the search benchmark queries


PLANS = {
    "full": Plan(
        "full",
        reps=5,
        ingress_requests=400,
        concurrency=8,
        tool_calls=20,
        rss_turns=10_000,
        load_seconds=60,
        typed_chars=300,
        capture_calls=10,
        link_reps=5,
    ),
    "quick": Plan(
        "quick",
        reps=3,
        ingress_requests=100,
        concurrency=8,
        tool_calls=8,
        rss_turns=500,
        load_seconds=10,
        typed_chars=150,
        capture_calls=5,
        search_notes=1_000,
    ),
    "smoke": Plan(
        "smoke",
        reps=1,
        ingress_requests=30,
        concurrency=4,
        tool_calls=2,
        rss_turns=100,
        load_seconds=3,
        typed_chars=30,
        capture_calls=2,
        search_notes=300,
    ),
}
