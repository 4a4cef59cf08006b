"""Server-side benchmarks: ingress with/without the pointer, tool cost, RSS growth, steady load."""

from __future__ import annotations

import time

from bench.load import run_load
from bench.plan import Plan
from bench.servers import (
    Client,
    app_server,
    new_conversation,
    note_text,
    pointer_header,
    postgres_url,
    rss_kib,
)
from bench.stats import figure, percentile, summary

HELP_MESSAGE = "hello"  # the offline agent answers without a tool: the turn is all ingress
READ_MESSAGE = "summarise this"  # reads the active note: the realistic turn
SMALL_NOTE = "bench/ingress.md"


def _log(msg: str) -> None:
    print(f"  {msg}", flush=True)


def ingress(plan: Plan) -> list[dict]:
    """Turns/s and p50/p99 with a valid X-Ambient-Note vs without, same key session, alternating."""
    with app_server() as server:
        client = Client(server.url)
        text = note_text(4096, "ingress")
        client.put_note(SMALL_NOTE, text)
        key = client.key_session()
        header = pointer_header(SMALL_NOTE, text)
        kwargs = {"concurrency": plan.concurrency, "requests": plan.ingress_requests,
                      "message": HELP_MESSAGE, "key": key}
        run_load(server.url, client.cookies, **{**kwargs, "requests": plan.concurrency * 4})
        runs = {"with": [], "without": []}
        for rep in range(plan.reps):
            order = ("without", "with") if rep % 2 == 0 else ("with", "without")
            for side in order:
                result = run_load(server.url, client.cookies,
                                  header=header if side == "with" else None, **kwargs)
                if result.errors:
                    raise RuntimeError(f"ingress run had errors: {result.error_kinds}")
                runs[side].append(result)
            _log(f"ingress rep {rep + 1}/{plan.reps}: "
                 f"{runs['with'][-1].rate:.0f} vs {runs['without'][-1].rate:.0f} turns/s")
        client.close()
    w, wo = runs["with"], runs["without"]
    note = (f"{plan.ingress_requests} turns per run, concurrency {plan.concurrency}, "
            f"message '{HELP_MESSAGE}' (no tool call), valid key session on both sides")
    return [
        figure("5. Ingress throughput (with pointer / without)", [r.rate for r in w],
               [r.rate for r in wo], unit="turns/s", goal="≥ 0.9", limit=0.9,
               higher_is_better=True, note=note),
        figure("5. Ingress p50 latency (with / without)", [r.p(50) * 1000 for r in w],
               [r.p(50) * 1000 for r in wo], unit="ms", goal="(informative)"),
        figure("5. Ingress p99 latency (with / without)", [r.p(99) * 1000 for r in w],
               [r.p(99) * 1000 for r in wo], unit="ms", goal="(informative)"),
    ]


def _tool_figures(plan: Plan, url: str, db_name: str) -> list[dict]:
    figures = []
    client = Client(url)
    for size_kib in (64, 256):
        path = f"bench/tool-{size_kib}k.md"
        text = note_text(size_kib * 1024, f"tool{size_kib}")
        client.put_note(path, text)
        header = pointer_header(path, text)
        conversation = new_conversation()
        args = {"maxBytes": size_kib * 1024}
        active, document = [], []
        for rep in range(plan.reps):
            # Each repetition renews the delivery row (a turn with the pointer), as a send does.
            client.turn(conversation, HELP_MESSAGE, key=client.key_session(), header=header)
            check = client.tool(conversation, "read_active_note", args)
            if not check.get("ok") or check.get("partial") or check.get("stale"):
                raise RuntimeError(f"read_active_note setup is wrong: {check.get('text')!r}")
            for name, sink, call_args in (
                ("read_active_note", active, args),
                ("read_document", document, {**args, "path": path}),
            ):
                t0 = time.perf_counter()
                for _ in range(plan.tool_calls):
                    client.tool(conversation, name, call_args)
                sink.append((time.perf_counter() - t0) / plan.tool_calls * 1000)
        figures.append(figure(
            f"6. Tool read {size_kib} KiB, {db_name} (read_active_note / read_document)",
            active, document, unit="ms/call", goal="≤ 1.2", limit=1.2,
            note=f"over HTTP (tools endpoint), mean of {plan.tool_calls} sequential calls"))
    client.close()
    return figures


def tools(plan: Plan) -> list[dict]:
    """read_active_note vs read_document on 64 KiB and 256 KiB notes, SQLite and PostgreSQL."""
    figures = []
    with app_server() as server:
        figures += _tool_figures(plan, server.url, "SQLite")
    _log("tools on SQLite done")
    if plan.postgres:
        with postgres_url() as url, app_server(url) as server:
            figures += _tool_figures(plan, server.url, "PostgreSQL")
        _log("tools on PostgreSQL done")
    return figures


def server_memory(plan: Plan) -> tuple[list[dict], dict]:
    """Server RSS at 25/50/75/100 % of `rss_turns` realistic turns (read_active_note each)."""
    with app_server() as server:
        client = Client(server.url)
        text = note_text(16 * 1024, "rss")
        client.put_note(SMALL_NOTE, text)
        key = client.key_session()
        header = pointer_header(SMALL_NOTE, text)
        pid = server.process.pid
        start_rss = rss_kib(pid)
        marks = {int(plan.rss_turns * q / 4): f"{q * 25}%" for q in (1, 2, 3, 4)}
        samples: dict[str, int] = {}

        def progress(done: int) -> None:
            if done in marks and marks[done] not in samples:
                samples[marks[done]] = rss_kib(pid)

        result = run_load(server.url, client.cookies, concurrency=plan.concurrency,
                          requests=plan.rss_turns, message=READ_MESSAGE, key=key, header=header,
                          on_progress=progress)
        samples.setdefault("100%", rss_kib(pid))
        client.close()
    _log(f"server RSS over {plan.rss_turns} turns: {samples}")
    detail = {"turns": plan.rss_turns, "rss_kib_at_start": start_rss, "rss_kib": samples,
              "errors": result.errors, "turns_per_s": result.rate}
    q = [samples.get(k) for k in ("25%", "50%", "75%", "100%")]
    row = figure(
        f"7. Server RSS after {plan.rss_turns:,} turns (100% / 25%)",
        [q[3] / 1024] if q[3] else [], [q[0] / 1024] if q[0] else [], unit="MiB",
        goal="≤ 1.10 (no unbounded growth)", limit=1.10, note="RSS MiB at 25/50/75/100%: "
        + " / ".join(f"{v / 1024:.1f}" if v else "?" for v in q)
        + f"; at start {start_rss / 1024:.1f}; {result.errors} errors")
    return [row], detail


def steady_load(plan: Plan) -> tuple[list[dict], dict]:
    """A bounded steady run (issue 8): realistic turns for `load_seconds` at fixed concurrency."""
    with app_server() as server:
        client = Client(server.url)
        text = note_text(16 * 1024, "load")
        client.put_note(SMALL_NOTE, text)
        key = client.key_session()
        result = run_load(server.url, client.cookies, concurrency=plan.concurrency,
                          seconds=plan.load_seconds, message=READ_MESSAGE, key=key,
                          header=pointer_header(SMALL_NOTE, text))
        client.close()
    # Turns held: the completion rate in each tenth of the run; first vs last tenth.
    slices = 10
    width = result.duration / slices
    per_slice = [0] * slices
    for t in result.finished_at:
        per_slice[min(slices - 1, int(t / width))] += 1
    rates = [n / width for n in per_slice]
    lat_ms = [x * 1000 for x in result.latencies]
    detail = {
        "seconds": round(result.duration, 2), "concurrency": plan.concurrency,
        "turns": len(result.latencies), "errors": result.errors,
        "error_kinds": result.error_kinds, "turns_per_s": round(result.rate, 1),
        "rate_per_tenth": [round(r, 1) for r in rates],
        "latency_ms": {f"p{q}": round(percentile(lat_ms, q), 1) for q in (50, 90, 99)}
        | {"max": round(max(lat_ms), 1)} if lat_ms else {},
    }
    _log(f"steady load: {detail}")
    half = slices // 2
    row = figure(
        f"Load: {plan.load_seconds:.0f} s steady, turns/s second half / first half",
        rates[half:], rates[:half], unit="turns/s", goal="errors 0; rate held",
        note=f"{len(result.latencies)} turns, {result.errors} errors, p50/p90/p99 "
        + "/".join(str(detail['latency_ms'].get(f'p{q}')) for q in (50, 90, 99))
        + f" ms, concurrency {plan.concurrency}")
    row["met"] = result.errors == 0 and (row["ratio"]["median"] or 0) >= 0.8
    row["summary_latency_ms"] = summary(lat_ms)
    return [row], detail
