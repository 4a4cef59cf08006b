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
    paced_chars: int  # characters typed at a person's pace (80–150 ms apart) per repetition
    capture_calls: int  # captures averaged into one repetition
    link_reps: int = 1  # first visits per emulated link (issue 23), each side
    postgres: bool = True
    search_notes: int = 10_000  # notes in the workspace the search benchmark queries
    # Team scale (issue 35, bench/scale_bench.py): server processes on one PostgreSQL and one
    # Redis, simulated users (each an event stream, a save every 2 s, a search and a turn
    # every `scale_chat_every` seconds), the measured run split into `scale_windows` windows.
    scale_processes: tuple[int, ...] = (1, 2, 4)
    scale_users: int = 200
    scale_seconds: float = 120  # the measured run at `scale_users`
    scale_windows: int = 4  # min / median / max are over these windows
    scale_chat_every: float = 60  # each user's search and assistant turn, seconds apart
    scale_solo_calls: int = 40  # one user alone: saves per window (searches, turns: a fifth)
    scale_burst_seconds: float = 20  # every user saving back to back: the capacity
    scale_ramp: tuple[int, ...] = (25, 50, 100, 150, 300, 400, 600, 800)  # users, see the module
    scale_ramp_seconds: float = 20  # measured per ramp step
    scale_team_notes: int = 500  # notes already in each team's workspace (what search reads)


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
        paced_chars=80,
        capture_calls=10,
        link_reps=5,
        search_notes=100_000,
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
        paced_chars=40,
        capture_calls=5,
        search_notes=1_000,
        scale_processes=(1, 2),
        scale_users=16,
        scale_seconds=8,
        scale_windows=2,
        scale_chat_every=6,
        scale_solo_calls=10,
        scale_burst_seconds=4,
        scale_ramp=(),
        scale_team_notes=100,
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
        paced_chars=10,
        capture_calls=2,
        search_notes=300,
        scale_processes=(1, 2),
        scale_users=4,
        scale_seconds=3,
        scale_windows=1,
        scale_chat_every=3,
        scale_solo_calls=3,
        scale_burst_seconds=2,
        scale_ramp=(),
        scale_team_notes=20,
    ),
}
