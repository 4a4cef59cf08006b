"""Server-side benchmarks: ingress with/without the pointer, tool cost, RSS growth, steady load."""

from __future__ import annotations

import os
import time
from pathlib import Path

from bench.load import Attack, LoadResult, run_load
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

# The benchmarks drive one user far past any real user's rate (hundreds of turns a second);
# the per-user throttle of expensive routes (SPEC §12) would answer 429, so it is raised here.
os.environ.setdefault("ANA_ROUTE_RATE_LIMIT", "1000000/minute")

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
        kwargs = {
            "concurrency": plan.concurrency,
            "requests": plan.ingress_requests,
            "message": HELP_MESSAGE,
            "key": key,
        }
        run_load(server.url, client.cookies, **{**kwargs, "requests": plan.concurrency * 4})
        runs = {"with": [], "without": []}
        for rep in range(plan.reps):
            order = ("without", "with") if rep % 2 == 0 else ("with", "without")
            for side in order:
                result = run_load(
                    server.url, client.cookies, header=header if side == "with" else None, **kwargs
                )
                if result.errors:
                    raise RuntimeError(f"ingress run had errors: {result.error_kinds}")
                runs[side].append(result)
            _log(
                f"ingress rep {rep + 1}/{plan.reps}: "
                f"{runs['with'][-1].rate:.0f} vs {runs['without'][-1].rate:.0f} turns/s"
            )
        client.close()
    w, wo = runs["with"], runs["without"]
    note = (
        f"{plan.ingress_requests} turns per run, concurrency {plan.concurrency}, "
        f"message '{HELP_MESSAGE}' (no tool call), valid key session on both sides"
    )
    return [
        figure(
            "5. Ingress throughput (with pointer / without)",
            [r.rate for r in w],
            [r.rate for r in wo],
            unit="turns/s",
            goal="≥ 0.9",
            limit=0.9,
            higher_is_better=True,
            note=note,
        ),
        figure(
            "5. Ingress p50 latency (with / without)",
            [r.p(50) * 1000 for r in w],
            [r.p(50) * 1000 for r in wo],
            unit="ms",
            goal="(informative)",
        ),
        figure(
            "5. Ingress p99 latency (with / without)",
            [r.p(99) * 1000 for r in w],
            [r.p(99) * 1000 for r in wo],
            unit="ms",
            goal="(informative)",
        ),
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
        figures.append(
            figure(
                f"6. Tool read {size_kib} KiB, {db_name} (read_active_note / read_document)",
                active,
                document,
                unit="ms/call",
                goal="≤ 1.2",
                limit=1.2,
                note=f"over HTTP (tools endpoint), mean of {plan.tool_calls} sequential calls",
            )
        )
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

        result = run_load(
            server.url,
            client.cookies,
            concurrency=plan.concurrency,
            requests=plan.rss_turns,
            message=READ_MESSAGE,
            key=key,
            header=header,
            on_progress=progress,
        )
        samples.setdefault("100%", rss_kib(pid))
        client.close()
    _log(f"server RSS over {plan.rss_turns} turns: {samples}")
    detail = {
        "turns": plan.rss_turns,
        "rss_kib_at_start": start_rss,
        "rss_kib": samples,
        "errors": result.errors,
        "turns_per_s": result.rate,
    }
    q = [samples.get(k) for k in ("25%", "50%", "75%", "100%")]
    row = figure(
        f"7. Server RSS after {plan.rss_turns:,} turns (100% / 25%)",
        [q[3] / 1024] if q[3] else [],
        [q[0] / 1024] if q[0] else [],
        unit="MiB",
        goal="≤ 1.10 (no unbounded growth)",
        limit=1.10,
        note="RSS MiB at 25/50/75/100%: "
        + " / ".join(f"{v / 1024:.1f}" if v else "?" for v in q)
        + f"; at start {start_rss / 1024:.1f}; {result.errors} errors",
    )
    return [row], detail


def _peak_rss_kib(pid: int) -> int:
    """The process's peak resident set size so far (VmHWM), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmHWM for pid {pid}")


def _load_run(plan: Plan, *, attacked: bool) -> tuple[LoadResult, int, dict]:
    """One steady run on a fresh server: (honest result, server peak RSS KiB, attack stats)."""
    with app_server() as server:
        client = Client(server.url)
        text = note_text(16 * 1024, "load")
        client.put_note(SMALL_NOTE, text)
        key = client.key_session()
        kwargs = {
            "concurrency": plan.concurrency,
            "seconds": plan.load_seconds,
            "message": READ_MESSAGE,
            "key": key,
            "header": pointer_header(SMALL_NOTE, text),
        }
        stats: dict = {}
        if attacked:
            with Attack(server.url, plan.load_seconds) as attack:
                result = run_load(server.url, client.cookies, **kwargs)
            stats = attack.results()
        else:
            result = run_load(server.url, client.cookies, **kwargs)
        peak = _peak_rss_kib(server.process.pid)
        client.close()
    return result, peak, stats


def steady_load(plan: Plan) -> tuple[list[dict], dict]:
    """A bounded steady run (issue 8), then the same load under attack (issue 15)."""
    result, plain_peak, _ = _load_run(plan, attacked=False)
    rows, detail = _steady_rows(plan, result)
    attacked, attacked_peak, attack_stats = _load_run(plan, attacked=True)
    rows += _attack_rows(result, plain_peak, attacked, attacked_peak, attack_stats)
    detail["under_attack"] = {
        "turns": len(attacked.latencies),
        "errors": attacked.errors,
        "error_kinds": attacked.error_kinds,
        "latency_ms": {f"p{q}": round(attacked.p(q) * 1000, 1) for q in (50, 99)}
        if attacked.latencies
        else {},
        "peak_rss_mib": {
            "plain": round(plain_peak / 1024, 1),
            "attacked": round(attacked_peak / 1024, 1),
        },
        "attackers": attack_stats,
    }
    _log(f"under attack: {detail['under_attack']}")
    return rows, detail


def _attack_rows(
    plain: LoadResult, plain_peak: int, attacked: LoadResult, attacked_peak: int, stats: dict
) -> list[dict]:
    def told(counts: dict[str, int]) -> str:
        return ", ".join(f"{answer} x{n}" for answer, n in sorted(counts.items()))

    attempts = "; ".join(f"{name}: {sum(c.values())} ({told(c)})" for name, c in stats.items())
    note = (
        f"honest turns {len(attacked.latencies)} vs {len(plain.latencies)}, errors "
        f"{attacked.errors}; attackers: {attempts or 'no report'}"
    )
    p99 = figure(
        "Load under attack: honest p99 (attacked / plain)",
        [attacked.p(99) * 1000] if attacked.latencies else [],
        [plain.p(99) * 1000] if plain.latencies else [],
        unit="ms",
        goal="≤ 1.5, 0 errors",
        limit=1.5,
        note=note,
    )
    p99["met"] = bool(p99["met"]) and attacked.errors == 0
    p50 = figure(
        "Load under attack: honest p50 (attacked / plain)",
        [attacked.p(50) * 1000] if attacked.latencies else [],
        [plain.p(50) * 1000] if plain.latencies else [],
        unit="ms",
        goal="(informative)",
    )
    rss = figure(
        "Load under attack: server peak RSS (attacked / plain)",
        [attacked_peak / 1024],
        [plain_peak / 1024],
        unit="MiB",
        goal="≤ 1.2",
        limit=1.2,
        note="VmHWM of the server process over its whole life",
    )
    return [p99, p50, rss]


def _steady_rows(plan: Plan, result: LoadResult) -> tuple[list[dict], dict]:
    # Turns held: the completion rate in each tenth of the run; first vs last tenth.
    slices = 10
    width = result.duration / slices
    per_slice = [0] * slices
    for t in result.finished_at:
        per_slice[min(slices - 1, int(t / width))] += 1
    rates = [n / width for n in per_slice]
    lat_ms = [x * 1000 for x in result.latencies]
    detail = {
        "seconds": round(result.duration, 2),
        "concurrency": plan.concurrency,
        "turns": len(result.latencies),
        "errors": result.errors,
        "error_kinds": result.error_kinds,
        "turns_per_s": round(result.rate, 1),
        "rate_per_tenth": [round(r, 1) for r in rates],
        "latency_ms": {f"p{q}": round(percentile(lat_ms, q), 1) for q in (50, 90, 99)}
        | {"max": round(max(lat_ms), 1)}
        if lat_ms
        else {},
    }
    _log(f"steady load: {detail}")
    half = slices // 2
    row = figure(
        f"Load: {plan.load_seconds:.0f} s steady, turns/s second half / first half",
        rates[half:],
        rates[:half],
        unit="turns/s",
        goal="errors 0; rate held",
        note=f"{len(result.latencies)} turns, {result.errors} errors, p50/p90/p99 "
        + "/".join(str(detail["latency_ms"].get(f"p{q}")) for q in (50, 90, 99))
        + f" ms, concurrency {plan.concurrency}",
    )
    row["met"] = result.errors == 0 and (row["ratio"]["median"] or 0) >= 0.8
    row["summary_latency_ms"] = summary(lat_ms)
    return [row], detail
