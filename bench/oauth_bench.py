"""OAuth for /mcp (SPEC §19): what an OAuth access token costs a tool call, and how the
token endpoint answers a burst of refreshes.

- A tool call: `tools/call list_documents` over HTTP (JSON-RPC, stateless) with an OAuth
  access token against the same call with a personal access token, interleaved by
  repetition. Goal ≤ 1.1×: the access token's lookup must cost about what the personal
  token's does.
- Refreshes: 20 grants of one registered client, each refreshed at the same moment (20
  threads behind a barrier), for a few rounds (each refresh rotates its grant's refresh
  token, so every round uses fresh ones). The figure is the token endpoint's p95 over every
  refresh; it is compared with the p95 of a single refresh at a time (the baseline), and
  SPEC sets no number for it, so the row reports it without a goal.

Tokens come from the same hand-written steps the OAuth tests take
(tests/integration/oauth_helpers.py), against a real demo server.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from bench.plan import Plan
from bench.servers import USER, WORKSPACE, Client, app_server
from bench.stats import figure, percentile
from tests.integration.oauth_helpers import Flow, mcp

os.environ.setdefault("ANA_ROUTE_RATE_LIMIT", "1000000/minute")  # as backend_benches

CALLS = {"full": 60, "quick": 30, "smoke": 4}
CONCURRENT = 20
ROUNDS = {"full": 5, "quick": 2, "smoke": 1}


def _log(msg: str) -> None:
    print(f"  {msg}", flush=True)


def _personal_token(client: Client) -> str:
    r = client.http.post("/api/tokens", json={"name": "bench agent", "expiresInDays": 1})
    r.raise_for_status()
    return str(r.json()["token"])


def _flows(url: str, user: Client, count: int) -> tuple[list[Flow], list[dict]]:
    """`count` grants of one registered client: each its own access and refresh token."""
    agent = httpx.Client(base_url=url, timeout=60)
    first = Flow(client=agent, user=user.http, base=url).register()
    flows, tokens = [], []
    for _ in range(count):
        flow = Flow(client=agent, user=user.http, base=url, client_id=first.client_id)
        tokens.append(flow.tokens(scope="read"))
        flows.append(flow)
    return flows, tokens


def _tool_figure(plan: Plan, url: str, user: Client, access: str) -> dict:
    personal = _personal_token(user)
    http = httpx.Client(base_url=url, timeout=60)
    calls = CALLS[plan.mode]

    def ms(token: str) -> float:
        t0 = time.perf_counter()
        for _ in range(calls):
            r = mcp(
                http,
                token,
                "tools/call",
                name="list_documents",
                arguments={"workspaceId": WORKSPACE},
            )
            r.raise_for_status()
            assert r.json()["result"]["structuredContent"]["ok"] is True
        return (time.perf_counter() - t0) / calls * 1000

    ms(access), ms(personal)  # warm both lookups up
    oauth, pat = [], []
    for rep in range(plan.reps):
        order = ((access, oauth), (personal, pat))
        for token, sink in order if rep % 2 == 0 else reversed(order):
            sink.append(ms(token))
    http.close()
    return figure(
        "An MCP tool call with an OAuth access token (/ with a personal token)",
        oauth,
        pat,
        unit="ms/call",
        goal="≤ 1.1",
        limit=1.1,
        note=f"tools/call list_documents over HTTP, mean of {calls} sequential calls per "
        "repetition, interleaved; SQLite",
    )


def _refresh_figure(plan: Plan, flows: list[Flow], tokens: list[dict]) -> dict:
    refresh = [t["refresh_token"] for t in tokens]

    def one(i: int, barrier: threading.Barrier | None) -> float:
        if barrier is not None:
            barrier.wait()
        t0 = time.perf_counter()
        r = flows[i].refresh(refresh[i])
        took = (time.perf_counter() - t0) * 1000
        r.raise_for_status()
        refresh[i] = r.json()["refresh_token"]  # rotated: the next round uses the new one
        return took

    burst: list[float] = []
    alone: list[float] = []
    burst_p95, alone_p95 = [], []
    with ThreadPoolExecutor(CONCURRENT) as pool:
        for _ in range(ROUNDS[plan.mode]):
            barrier = threading.Barrier(CONCURRENT)
            got = list(pool.map(lambda i, b=barrier: one(i, b), range(CONCURRENT)))
            burst += got
            burst_p95.append(percentile(got, 95) or 0.0)
            single = [one(i, None) for i in range(CONCURRENT)]
            alone += single
            alone_p95.append(percentile(single, 95) or 0.0)
    p95 = percentile(burst, 95) or 0.0
    return figure(
        f"Token endpoint p95 under {CONCURRENT} concurrent refreshes (/ one at a time)",
        burst_p95,
        alone_p95,
        unit="ms p95/refresh",
        goal="reported (SPEC sets no number)",
        note=f"{len(burst)} refreshes, {CONCURRENT} at a time: "
        f"p50 {percentile(burst, 50) or 0:.0f} ms, p95 {p95:.0f} ms; "
        f"one at a time p95 {percentile(alone, 95) or 0:.0f} ms; "
        "each rotates its grant's refresh token; SQLite",
    )


def oauth(plan: Plan) -> list[dict]:
    with app_server() as server:
        user = Client(server.url, USER)
        flows, tokens = _flows(server.url, user, CONCURRENT)
        _log(f"{CONCURRENT} grants ready")
        figures = [_tool_figure(plan, server.url, user, tokens[0]["access_token"])]
        _log("tool call done")
        figures.append(_refresh_figure(plan, flows, tokens))
        _log("refreshes done")
        user.close()
    return figures
