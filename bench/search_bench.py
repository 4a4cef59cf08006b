"""Search latency (SPEC §11) over many notes, SQLite and PostgreSQL, against a plain note GET.

The notes are written straight into the server's database in one transaction (through the
same `documents` table the API writes, so the migration's triggers and index do the
indexing), then every query is timed over HTTP, interleaved with GETs of one note.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from sqlalchemy import insert, text

from backend.db import build_engine
from backend.models import Document, path_key
from bench.plan import Plan
from bench.servers import WORKSPACE, Client, app_server
from bench.stats import figure

_VOCABULARY = (
    "meeting agenda roadmap budget review draft release customer invoice travel garden "
    "recipe reading project design retro planning hiring security backup deploy server "
    "kitchen weekend family doctor music notes ideas summary follow-up question answer"
)
WORDS = _VOCABULARY.split()
JAPANESE = (
    "会議",
    "予定",
    "買い物",
    "旅行",
    "読書",
    "設計",
    "予算",
    "家族",
    "週末",
    "料理",
    "議事録",
    "振り返り",
    "打ち合わせ",
)
RARE_EVERY = 97  # one note in 97 holds the rare words below
BASELINE_PATH = "bench/search-baseline.md"

# (label, query, expected result count or None for "the cap or fewer")
QUERIES = (
    ("rare word", "quasar", None),
    ("two words, any case", "QUASAR notes", None),
    ("common word (cap 50)", "meeting", 50),
    ("Japanese, 3+ chars", "議事録の確認", None),
    ("Japanese, 2 chars", "星雲", None),
)


def _log(msg: str) -> None:
    print(f"  {msg}", flush=True)


def _note(i: int, rng: random.Random) -> str:
    lines = [f"# Note {i}", ""]
    for _ in range(18):
        words = rng.choices(WORDS, k=8)
        if rng.random() < 0.3:
            words.insert(rng.randrange(len(words)), rng.choice(JAPANESE))
        lines.append("- " + " ".join(words))
    lines[0] += " meeting"  # every note holds the common word
    if i % RARE_EVERY == 0:
        lines.insert(rng.randrange(2, len(lines)), "quasar notes: 議事録の確認をする 星雲")
    return "\n".join(lines) + "\n"


def _fill(database_url: str, count: int) -> int:
    """Write `count` notes into WORKSPACE; returns how many hold the rare words."""
    rng = random.Random(14)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    rows = []
    for i in range(count):
        content = _note(i, rng)
        path = f"bench/search/{i // 100:03}/note-{i:05}.md"
        rows.append(
            {
                "workspace_id": WORKSPACE,
                "path": path,
                "path_sha256": path_key(path),
                "content": content,
                "bytes": len(content.encode("utf-8")),
                "revision": 1,
                "updated_at": start + timedelta(seconds=i),
            }
        )
    engine = build_engine(database_url)
    try:
        with engine.begin() as conn:
            conn.execute(insert(Document), rows)
        if engine.dialect.name == "postgresql":
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.execute(text("VACUUM ANALYZE documents"))
    finally:
        engine.dispose()
    return sum(1 for i in range(count) if i % RARE_EVERY == 0)


def _time(client: Client, url: str, params: dict | None, calls: int) -> tuple[float, dict]:
    body: dict = {}
    t0 = time.perf_counter()
    for _ in range(calls):
        r = client.http.get(url, params=params)
        r.raise_for_status()
        body = r.json() if params else {}
    return (time.perf_counter() - t0) / calls * 1000, body


def _figures(plan: Plan, server_url: str, database_url: str, db_name: str) -> list[dict]:
    client = Client(server_url)
    client.put_note(BASELINE_PATH, "# Baseline\n\nOne small note.\n")
    t0 = time.perf_counter()
    rare = _fill(database_url, plan.search_notes)
    _log(
        f"{plan.search_notes} notes written and indexed on {db_name} "
        f"in {time.perf_counter() - t0:.1f} s"
    )
    search_url = f"/api/workspaces/{WORKSPACE}/search"
    get_url = f"/api/workspaces/{WORKSPACE}/documents/{BASELINE_PATH}"
    figures = []
    for label, query, expected in QUERIES:
        want = min(50, rare) if expected is None else expected
        _, first = _time(client, search_url, {"q": query}, 1)  # warm-up, and a check
        if len(first["results"]) != want:
            raise RuntimeError(f"search {query!r} gave {len(first['results'])}, want {want}")
        searches, gets = [], []
        for rep in range(plan.reps):
            order = ("search", "get") if rep % 2 == 0 else ("get", "search")
            for side in order:
                if side == "search":
                    searches.append(_time(client, search_url, {"q": query}, plan.tool_calls)[0])
                else:
                    gets.append(_time(client, get_url, None, plan.tool_calls)[0])
        figures.append(
            figure(
                f"Search {plan.search_notes:,} notes, {db_name}: {label} (search / GET one note)",
                searches,
                gets,
                unit="ms/request",
                goal="(informative)",
                note=f"q={query!r}, {want} results; mean of {plan.tool_calls} sequential requests "
                "over HTTP per repetition; absolute search ms in the subject column",
            )
        )
    client.close()
    return figures


@contextlib.contextmanager
def _postgres_databases(plan: Plan) -> Iterator[dict[str, str]]:
    """Fresh databases on one throwaway cluster: the test setup's C locale, and (full mode
    only, to keep --quick short) C.UTF-8.

    pg_trgm takes a character into trigrams only if the locale calls it a letter or digit,
    so Japanese is indexed in the second and scanned in the first (docs/search.md).
    """
    from support.databases import start_cluster

    cluster = start_cluster()
    try:
        urls = {"PostgreSQL (C locale)": cluster.create_database(f"bench_c_{os.getpid()}")}
        if plan.mode != "full":
            yield urls
            return
        name = f"bench_utf8_{os.getpid()}"
        with cluster._admin() as conn:
            conn.execute(
                f"CREATE DATABASE \"{name}\" ENCODING 'UTF8' TEMPLATE template0 "
                "LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'"
            )
        urls["PostgreSQL (C.UTF-8)"] = cluster.admin_url.set(database=name).render_as_string(
            hide_password=False
        )
        yield urls
    finally:
        cluster.stop()


def search(plan: Plan) -> list[dict]:
    """Search latency over `plan.search_notes` notes on SQLite and PostgreSQL (two locales)."""
    figures = []
    with app_server() as server:
        figures += _figures(plan, server.url, f"sqlite:///{server.data_dir}/ambient.db", "SQLite")
    _log("search on SQLite done")
    if plan.postgres:
        with _postgres_databases(plan) as urls:
            for db_name, url in urls.items():
                with app_server(url) as server:
                    figures += _figures(plan, server.url, url, db_name)
                _log(f"search on {db_name} done")
    return figures
