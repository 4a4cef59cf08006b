"""Team scale (issue 35): 1, 2 and 4 server processes on one PostgreSQL and one Redis, driven
by simulated users.

Each process count gets a fresh database on one throwaway PostgreSQL cluster (the tests'
`support.databases`, fsync off) and the same Redis (`ANA_RATE_LIMIT_STORAGE`), N `serve.py`
processes started one after the other, as `tests/integration/test_two_processes.py` does.
There is no proxy: each simulated user is pinned to one process (user i to process i mod N),
as a sticky load balancer would place a browser; a save on one process reaches the other
processes' streams through PostgreSQL's NOTIFY, as in a deployment.

A simulated user is one `httpx.AsyncClient` (its own cookie and connections) holding its
workspace's event stream open, saving its own note every 2 s with If-Match (a line of the
note changes each time, as while typing), and once every `scale_chat_every` seconds searching
its workspace and asking the built-in offline assistant a question about its note (key
session and pointer header, as the page sends them). Users form teams of `TEAM`; each team
shares a workspace that already holds `scale_team_notes` notes. Accounts, workspaces and
sign-ins are written straight into the database before the run (a sign-in row is what
`POST /api/session` stores; the argon2id cost of signing in is the `people` benchmark's).

Per process count, in this order:

1. Memory per idle stream: the summed RSS of the processes after every user has saved once
   and one stream per process is open (a process's first stream costs it a one-time amount,
   reported apart), then with every user's stream open and idle; (open − none) / the others.
2. One user alone (the baseline): sequential saves, searches and turns with no pause.
3. The measured run: every user as above for `scale_seconds`, split into `scale_windows`
   windows; per window the p99 of save, search, turn and save → other window (from a save's
   response to its `saved` event on each other team member's stream, one clock: this
   process's), and the completed requests per second.
4. Capacity: every user saving back to back (no pause) for `scale_burst_seconds`: saves/s.
5. The ramp: from `scale_users`, add users (or, when the p99 already passed 250 ms, remove
   them) along `scale_ramp` until the worst p99 of save, search and turn crosses 250 ms;
   each step measured for `scale_ramp_seconds`. Save → other window is left out of that
   test: its floor is the PostgreSQL listener's half-second batching (docs/benchmarks.md).

The simulated users run in this one Python process on the same machine as the servers: its
CPU time and its event loop's lateness are reported with each phase, since a late client
inflates every latency it measures.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import resource
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from ambient.contract import HEADER_NAME, KEY_SESSION_HEADER
from backend.db import build_engine, utcnow
from backend.models import Document, User, path_key
from backend.services import sessions, workspaces
from backend.services.users import Passwords
from bench.plan import Plan
from bench.search_bench import WORDS, _note
from bench.servers import pointer_header, rss_kib
from bench.stats import figure, percentile
from support.servers import ServeProcess, clean_env

SECRET = "scale-bench-shared-secret-0123456789abcdef"  # every process signs cookies with it
PASSWORD = "scale-bench-password"  # stored hashed, never typed: sign-ins are written directly
COOKIE = "ana_session"
TEAM = 10  # users sharing one workspace (and each other's `saved` events)
SAVE_EVERY_S = 2.0
P99_LIMIT_MS = 250.0
SAVE_GOAL_MS = 100.0  # p99 of a save at `scale_users` on 2 processes
THROUGHPUT_GOAL = 1.7  # 2 processes against 1
STREAM_GOAL_KIB = 64.0
NOTE_LINES = 40  # a simulated user's note: a title and this many lines (~2 KiB)
ARRIVALS_AT_ONCE = 16  # users setting up at the same time
SETTLE_S = 1.0  # after the streams opened, before RSS is read
LAG_TICK_S = 0.05
OPS = ("save", "search", "turn", "other")  # "other": save → another window's stream
OP_NAMES = {
    "save": "save",
    "search": "search",
    "turn": "assistant turn",
    "other": "save → other window",
}


def _log(msg: str) -> None:
    print(f"  {msg}", flush=True)


# --- servers ---------------------------------------------------------------------------------


@contextlib.contextmanager
def _processes(count: int, database_url: str, redis_url: str, work: Path) -> Iterator[list]:
    """`count` serve.py processes on one database and one Redis: the first alone (it migrates
    and seeds the demo users), then the others together (they find it done)."""
    env = clean_env(
        ANA_SECRET_KEY=SECRET,
        ANA_RATE_LIMIT_STORAGE=redis_url,
        ANA_LOG_LEVEL="WARNING",
    )

    def start(n: int) -> ServeProcess:
        return ServeProcess(
            "--demo",
            "--database-url",
            database_url,
            "--data-dir",
            str(work / f"p{n}"),
            log_path=work / f"p{n}.log",
            env=env,
        )

    started: list[ServeProcess] = []
    try:
        started.append(start(0))
        with ThreadPoolExecutor(max_workers=max(1, count - 1)) as pool:
            futures = [pool.submit(start, n) for n in range(1, count)]
            failures = []
            for future in futures:  # every one, so none is left running if one fails
                try:
                    started.append(future.result())
                except Exception as exc:  # noqa: BLE001 - raised below, after the others
                    failures.append(exc)
        if failures:
            raise failures[0]
        yield started
    finally:
        for process in started:
            process.stop()


def _rss_kib(processes: list[ServeProcess]) -> int:
    return sum(rss_kib(p.process.pid) for p in processes)


# --- the people, straight into the database --------------------------------------------------


@dataclass
class SimUser:
    index: int
    workspace: str
    url: str  # the process this user is pinned to
    token: str  # the sign-in cookie's value
    path: str = ""
    lines: list[str] = field(default_factory=list)
    revision: int = 0
    key: str = ""
    conversation: str = field(default_factory=lambda: str(uuid.uuid4()))
    saves: int = 0

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def type_a_line(self) -> None:
        self.saves += 1
        self.lines[1 + self.saves % NOTE_LINES] = (
            f"- typed line {self.saves} by user {self.index}: " + " ".join(WORDS[:6])
        )


def _setup_people(database_url: str, users: int, urls: list[str], team_notes: int) -> list:
    """`users` accounts in teams of TEAM (one workspace each, first member its owner), a
    sign-in for each, and `team_notes` notes in every team's workspace."""
    engine = build_engine(database_url)
    password_hash = Passwords().hash(PASSWORD)  # one argon2id hash for all: never checked
    teams = (users + TEAM - 1) // TEAM
    out = []
    try:
        with Session(engine) as db:
            names = [f"scale{i:04}" for i in range(users)]
            db.execute(
                insert(User), [{"username": n, "password_hash": password_hash} for n in names]
            )
            db.commit()
            query = select(User.username, User.id).where(User.username.in_(names))
            ids = {name: user_id for name, user_id in db.execute(query)}
            for t in range(teams):
                members = [ids[n] for n in names[t * TEAM : (t + 1) * TEAM]]
                workspaces.create_workspace(
                    db, workspace_id=f"scale-{t:03}", name=f"Scale team {t}", member_ids=members
                )
            for i, name in enumerate(names):
                token = sessions.create_session(
                    db, user_id=ids[name], ttl=timedelta(hours=6), now=utcnow(), secret=SECRET
                )
                out.append(SimUser(i, f"scale-{i // TEAM:03}", urls[i % len(urls)], token))
        rng = random.Random(35)
        start = datetime(2026, 1, 1, tzinfo=UTC)
        with engine.begin() as conn:
            for t in range(teams):
                rows = []
                for i in range(team_notes):
                    content = _note(i, rng)
                    path = f"shared/{i // 100:02}/note-{i:04}.md"
                    rows.append(
                        {
                            "workspace_id": f"scale-{t:03}",
                            "path": path,
                            "path_sha256": path_key(path),
                            "content": content,
                            "bytes": len(content.encode("utf-8")),
                            "revision": 1,
                            "updated_at": start + timedelta(seconds=i),
                        }
                    )
                if rows:
                    conn.execute(insert(Document), rows)
    finally:
        engine.dispose()
    return out


# --- the simulated users ---------------------------------------------------------------------


class Swarm:
    """The simulated users of one process count, their samples and their tasks."""

    def __init__(self, people: list[SimUser], chat_every: float) -> None:
        self.people = people
        self.chat_every = chat_every
        self.save_every = SAVE_EVERY_S
        self.samples: dict[str, list[tuple[float, float]]] = {op: [] for op in OPS}
        self.errors: dict[str, list[float]] = {op: [] for op in OPS}
        self.saved_at: dict[tuple[str, str, int], float] = {}  # (ws, path, rev) → response
        self.arrived: list[tuple[tuple[str, str, int], float]] = []  # on others' streams
        self.lag: list[tuple[float, float]] = []  # (when, ms late) of the client's loop
        self.reconnects: list[float] = []  # a stream ended (dropped, or its bounded life)
        self.stream_problems: list[str] = []  # why streams failed, for a failed run's message
        self.clients: dict[int, httpx.AsyncClient] = {}
        self.tasks: dict[int, list[asyncio.Task]] = {}
        self.connected: dict[int, asyncio.Event] = {}
        self.rng = random.Random(2026)

    # one user's requests

    def _client(self, user: SimUser) -> httpx.AsyncClient:
        if user.index not in self.clients:
            self.clients[user.index] = httpx.AsyncClient(
                base_url=user.url,
                cookies={COOKIE: user.token},
                timeout=httpx.Timeout(60, pool=120),
                limits=httpx.Limits(max_connections=6, max_keepalive_connections=6),
            )
        return self.clients[user.index]

    async def arrive(self, user: SimUser) -> None:
        """First save (untimed) and the workspace key session."""
        client = self._client(user)
        user.path = f"people/user-{user.index:04}.md"
        user.lines = [f"# Notes of user {user.index}", *(f"- line {n}" for n in range(NOTE_LINES))]
        r = await client.put(
            f"/api/workspaces/{user.workspace}/documents/{user.path}",
            content=user.text.encode(),
            headers={"Content-Type": "text/markdown; charset=utf-8", "If-None-Match": "*"},
        )
        r.raise_for_status()
        user.revision = r.json()["revision"]
        r = await client.post(f"/api/workspaces/{user.workspace}/key-sessions")
        r.raise_for_status()
        user.key = r.json()["id"]

    async def save(self, user: SimUser) -> None:
        client = self._client(user)
        user.type_a_line()
        t0 = time.perf_counter()
        try:
            r = await client.put(
                f"/api/workspaces/{user.workspace}/documents/{user.path}",
                content=user.text.encode(),
                headers={
                    "Content-Type": "text/markdown; charset=utf-8",
                    "If-Match": f'"{user.revision}"',
                },
            )
        except httpx.HTTPError:
            self.errors["save"].append(time.perf_counter())
            return
        t1 = time.perf_counter()
        if r.status_code != 200:
            self.errors["save"].append(t1)
            if r.status_code == 409:  # never expected (one writer per note): resynchronise
                fresh = await client.get(f"/api/workspaces/{user.workspace}/documents/{user.path}")
                user.revision = int(fresh.headers["etag"].strip('"'))
            return
        user.revision = r.json()["revision"]
        self.saved_at[(user.workspace, user.path, user.revision)] = t1
        self.samples["save"].append((t1, (t1 - t0) * 1000))

    async def search(self, user: SimUser) -> None:
        query = self.rng.choice(WORDS) if self.rng.random() < 0.5 else "quasar notes"
        await self._timed(
            "search",
            self._client(user).get(f"/api/workspaces/{user.workspace}/search", params={"q": query}),
        )

    async def turn(self, user: SimUser) -> None:
        headers = {
            KEY_SESSION_HEADER: user.key,
            HEADER_NAME: pointer_header(user.path, user.text, frame_id=f"frame-{user.index}"),
        }
        body = {
            "conversationId": user.conversation,
            "workspaceId": user.workspace,
            "message": "what are the open todos in this note?",
        }
        await self._timed(
            "turn", self._client(user).post("/api/assistant/turns", json=body, headers=headers)
        )

    async def _timed(self, op: str, request) -> None:
        t0 = time.perf_counter()
        try:
            r = await request
        except httpx.HTTPError:
            self.errors[op].append(time.perf_counter())
            return
        t1 = time.perf_counter()
        if r.status_code == 200:
            self.samples[op].append((t1, (t1 - t0) * 1000))
        else:
            self.errors[op].append(t1)

    # one user's loops

    async def stream(self, user: SimUser) -> None:
        """Hold the workspace's event stream open (reconnecting when it ends); note when each
        other member's `saved` event arrives."""
        client = self._client(user)
        ready = self.connected.setdefault(user.index, asyncio.Event())
        url = f"/api/workspaces/{user.workspace}/events"
        while True:
            try:
                async with client.stream("GET", url, timeout=httpx.Timeout(30, read=None)) as r:
                    if r.status_code != 200:
                        await r.aread()
                        raise RuntimeError(f"event stream: {r.status_code} {r.text[:200]}")
                    kind = None
                    async for line in r.aiter_lines():
                        if line.startswith(":"):
                            ready.set()
                        elif line.startswith("event:"):
                            kind = line[6:].strip()
                        elif line.startswith("data:") and kind == "saved":
                            at = time.perf_counter()
                            data = json.loads(line[5:])
                            if data["path"] != user.path:
                                key = (user.workspace, data["path"], data["revision"])
                                self.arrived.append((key, at))
                        elif not line:
                            kind = None
                self.reconnects.append(time.perf_counter())
            except (httpx.HTTPError, RuntimeError) as exc:  # counted; the user reconnects
                self.errors["other"].append(time.perf_counter())
                self.stream_problems.append(repr(exc)[:300])
                await asyncio.sleep(0.5)

    async def typing(self, user: SimUser) -> None:
        """A save every `save_every` seconds (the next waits for the last, as autosave does);
        back to back when `save_every` is 0."""
        await asyncio.sleep(self.rng.uniform(0, SAVE_EVERY_S))
        next_at = time.perf_counter()
        while True:
            await self.save(user)
            if self.save_every <= 0:
                next_at = time.perf_counter()
                await asyncio.sleep(0)
                continue
            next_at = max(next_at + self.save_every, time.perf_counter())
            await asyncio.sleep(next_at - time.perf_counter())

    async def chatting(self, user: SimUser) -> None:
        """A search, then half a period later an assistant turn, every `chat_every` seconds."""
        await asyncio.sleep(self.rng.uniform(0, self.chat_every))
        while True:
            t0 = time.perf_counter()
            await self.search(user)
            await asyncio.sleep(max(0.0, t0 + self.chat_every / 2 - time.perf_counter()))
            await self.turn(user)
            await asyncio.sleep(max(0.0, t0 + self.chat_every - time.perf_counter()))

    async def lag_monitor(self) -> None:
        while True:
            t0 = time.perf_counter()
            await asyncio.sleep(LAG_TICK_S)
            t1 = time.perf_counter()
            self.lag.append((t1, (t1 - t0 - LAG_TICK_S) * 1000))

    # the crowd

    async def open_streams(self, people: list[SimUser]) -> None:
        for user in people:
            self.tasks.setdefault(user.index, []).append(asyncio.create_task(self.stream(user)))
        deadline = time.monotonic() + 120
        for user in people:
            event = self.connected.setdefault(user.index, asyncio.Event())
            try:
                await asyncio.wait_for(event.wait(), max(1.0, deadline - time.monotonic()))
            except TimeoutError:
                opened = sum(self.connected[u.index].is_set() for u in people)
                raise RuntimeError(
                    f"{opened} of {len(people)} event streams opened in 120 s; "
                    f"{len(self.errors['other'])} stream errors: {self.stream_problems[-3:]}"
                ) from None

    def start_activity(self, people: list[SimUser]) -> None:
        for user in people:
            self.tasks.setdefault(user.index, []).extend(
                [asyncio.create_task(self.typing(user)), asyncio.create_task(self.chatting(user))]
            )

    async def arrive_all(self, people: list[SimUser]) -> None:
        gate = asyncio.Semaphore(ARRIVALS_AT_ONCE)

        async def one(user: SimUser) -> None:
            async with gate:
                await self.arrive(user)

        await asyncio.gather(*(one(u) for u in people))

    async def join(self, people: list[SimUser]) -> None:
        """Users who come during the ramp: set up, stream open, then busy."""
        await self.arrive_all(people)
        await self.open_streams(people)
        self.start_activity(people)

    async def leave(self, people: list[SimUser]) -> None:
        for user in people:
            tasks = self.tasks.pop(user.index, [])
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            client = self.clients.pop(user.index, None)
            self.connected.pop(user.index, None)
            if client is not None:
                await client.aclose()

    async def close(self) -> None:
        await self.leave(
            [u for u in self.people if u.index in self.tasks or u.index in self.clients]
        )

    # what the samples say

    def other_window(self) -> list[tuple[float, float]]:
        """(save's response time, ms until each other member's stream had its event); an
        event that came before the response was read counts as 0."""
        out = []
        for key, at in self.arrived:
            sent = self.saved_at.get(key)
            if sent is not None:
                out.append((sent, max(0.0, (at - sent) * 1000)))
        return out

    def window(self, op: str, t0: float, t1: float) -> list[float]:
        source = self.other_window() if op == "other" else self.samples[op]
        return [ms for at, ms in source if t0 <= at < t1]


@dataclass
class Phase:
    """One measured span: its windows' p99 per operation and requests per second."""

    name: str
    users: int
    spans: list[tuple[float, float]]
    p99: dict[str, list[float]] = field(default_factory=dict)  # per window
    per_s: list[float] = field(default_factory=list)  # save + search + turn, per window
    saves_per_s: list[float] = field(default_factory=list)
    summary: dict = field(default_factory=dict)


def _measure(swarm: Swarm, phase: Phase, cpu0: float) -> Phase:
    t0, t1 = phase.spans[0][0], phase.spans[-1][1]
    other = swarm.other_window()
    for op in OPS:
        phase.p99[op] = []
        for a, b in phase.spans:
            source = other if op == "other" else swarm.samples[op]
            values = [ms for at, ms in source if a <= at < b]
            if values:
                phase.p99[op].append(percentile(values, 99) or 0.0)
    for a, b in phase.spans:
        done = sum(
            1 for op in ("save", "search", "turn") for at, _ in swarm.samples[op] if a <= at < b
        )
        saves = sum(1 for at, _ in swarm.samples["save"] if a <= at < b)
        phase.per_s.append(done / (b - a))
        phase.saves_per_s.append(saves / (b - a))
    every = {
        op: [ms for at, ms in (other if op == "other" else swarm.samples[op]) if t0 <= at < t1]
        for op in OPS
    }
    lag = [ms for at, ms in swarm.lag if t0 <= at < t1]
    phase.summary = {
        "users": phase.users,
        "seconds": round(t1 - t0, 1),
        "count": {op: len(v) for op, v in every.items()},
        "errors": {op: sum(1 for at in swarm.errors[op] if t0 <= at < t1) for op in OPS},
        "stream_ends": sum(1 for at in swarm.reconnects if t0 <= at < t1),
        "p50_ms": {op: _r(percentile(v, 50)) for op, v in every.items()},
        "p99_ms": {op: _r(percentile(v, 99)) for op, v in every.items()},
        "requests_per_s": round(sum(phase.per_s) / len(phase.per_s), 1),
        "client_loop_late_p99_ms": _r(percentile(lag, 99)),
        "client_cpu_share": round((time.process_time() - cpu0) / (t1 - t0), 2),
    }
    return phase


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


async def _span(seconds: float, windows: int) -> list[tuple[float, float]]:
    start = time.perf_counter()
    await asyncio.sleep(seconds)
    step = seconds / windows
    return [(start + k * step, start + (k + 1) * step) for k in range(windows)]


async def _solo(swarm: Swarm, user: SimUser, plan: Plan) -> Phase:
    """One user alone: per window `scale_solo_calls` saves, then a fifth as many searches and
    turns, one after the other."""
    cpu0 = time.process_time()
    spans = []
    for _ in range(plan.scale_windows):
        a = time.perf_counter()
        for _ in range(plan.scale_solo_calls):
            await swarm.save(user)
        for _ in range(max(2, plan.scale_solo_calls // 5)):
            await swarm.search(user)
            await swarm.turn(user)
        await asyncio.sleep(0.3)  # the last save's event reaches the other streams
        spans.append((a, time.perf_counter()))
    return _measure(swarm, Phase("one user", 1, spans), cpu0)


async def _loaded(swarm: Swarm, name: str, users: int, seconds: float, windows: int) -> Phase:
    await asyncio.sleep(SAVE_EVERY_S + 1)  # every user's loop is going
    cpu0 = time.process_time()
    spans = await _span(seconds, windows)
    await asyncio.sleep(0.5)  # the last saves' events arrive
    return _measure(swarm, Phase(name, users, spans), cpu0)


RAMP_OPS = ("save", "search", "turn")  # the requests; save → other window is reported apart


def _worst(phase: Phase) -> float:
    """The worst p99 of the requests a user waits for (save, search, turn)."""
    return max(phase.summary["p99_ms"][op] or 0 for op in RAMP_OPS)


async def _drive(plan: Plan, people: list[SimUser], processes: list[ServeProcess]) -> dict:
    swarm = Swarm(people, plan.scale_chat_every)
    lag = asyncio.create_task(swarm.lag_monitor())
    crowd = people[: plan.scale_users]
    out: dict = {}
    try:
        await swarm.arrive_all(crowd)
        # Each process's first stream costs it about 0.4 MiB once (measured on 2026-12-07), not
        # per stream: one stream per process (user i is on process i mod N) opens first, and
        # its cost is reported apart.
        firsts, rest = crowd[: len(processes)], crowd[len(processes) :]
        before = _rss_kib(processes)
        await swarm.open_streams(firsts)
        await asyncio.sleep(SETTLE_S)
        none = _rss_kib(processes)
        t0 = time.monotonic()
        await swarm.open_streams(rest)
        opened_s = time.monotonic() - t0
        await asyncio.sleep(SETTLE_S)
        open_ = _rss_kib(processes)
        out["stream_kib"] = (open_ - none) / len(rest)
        out["first_stream_kib"] = (none - before) / len(firsts)
        out["rss_kib"] = {"before": before, "none": none, "open": open_, "streams": len(rest)}
        _log(
            f"{len(rest)} streams opened in {opened_s:.1f} s; RSS {none / 1024:.0f} → "
            f"{open_ / 1024:.0f} MiB: {out['stream_kib']:.1f} KiB per stream (a process's "
            f"first: {out['first_stream_kib']:.0f} KiB)"
        )
        out["solo"] = await _solo(swarm, crowd[0], plan)
        _log(f"one user: p99 {out['solo'].summary['p99_ms']}")
        swarm.start_activity(crowd)
        out["team"] = await _loaded(
            swarm, "team", len(crowd), plan.scale_seconds, plan.scale_windows
        )
        _log(f"{len(crowd)} users: {out['team'].summary}")
        swarm.save_every = 0
        out["burst"] = await _loaded(
            swarm, "back to back", len(crowd), plan.scale_burst_seconds, plan.scale_windows
        )
        swarm.save_every = SAVE_EVERY_S
        _log(f"back to back: {out['burst'].summary['requests_per_s']} requests/s")
        out["ramp"] = await _ramp(swarm, plan, people, out["team"])
    finally:
        lag.cancel()
        await swarm.close()
    return out


async def _ramp(swarm: Swarm, plan: Plan, people: list[SimUser], team: Phase) -> list[dict]:
    """Users up (or down) along plan.scale_ramp until the worst p99 of save, search and turn
    crosses P99_LIMIT_MS."""
    over = _worst(team) > P99_LIMIT_MS
    users = plan.scale_users
    if over:
        steps = sorted((s for s in plan.scale_ramp if s < users), reverse=True)
    else:
        steps = sorted(s for s in plan.scale_ramp if users < s <= len(people))
    out = []
    for step in steps:
        if step > users:
            await swarm.join(people[users:step])
        else:
            await swarm.leave(people[step:users])
        users = step
        phase = await _loaded(swarm, f"ramp {step}", step, plan.scale_ramp_seconds, 1)
        worst = _worst(phase)
        out.append({**phase.summary, "worst_p99_ms": round(worst, 1)})
        _log(f"ramp {step} users: worst p99 {worst:.0f} ms")
        if (worst > P99_LIMIT_MS) != over:
            break
    return out


def _passes_at(plan: Plan, run: dict) -> tuple[int | None, int | None]:
    """(most users measured under the limit, fewest measured over it)."""
    points = [(plan.scale_users, _worst(run["team"]))]
    points += [(step["users"], step["worst_p99_ms"]) for step in run["ramp"]]
    under = [u for u, ms in points if ms <= P99_LIMIT_MS]
    over = [u for u, ms in points if ms > P99_LIMIT_MS]
    return (max(under) if under else None, min(over) if over else None)


# --- the benchmark ---------------------------------------------------------------------------


def _one_count(plan: Plan, count: int, cluster, redis_url: str, work: Path) -> dict:
    import redis

    with redis.Redis.from_url(redis_url) as r:
        r.flushdb()
    database_url = cluster.create_database(f"scale_{count}_{os.getpid()}")
    started = time.monotonic()
    with _processes(count, database_url, redis_url, work / f"n{count}") as processes:
        _log(f"{count} process(es) started in {time.monotonic() - started:.0f} s")
        urls = [p.url for p in processes]
        total = max(plan.scale_users, *plan.scale_ramp) if plan.scale_ramp else plan.scale_users
        people = _setup_people(database_url, total, urls, plan.scale_team_notes)
        _log(
            f"{count} process(es): {total} users in {(total + TEAM - 1) // TEAM} teams ready "
            f"in {time.monotonic() - started:.0f} s"
        )
        run = asyncio.run(_drive(plan, people, processes))
    _log(f"{count} process(es) done in {time.monotonic() - started:.0f} s")
    return run


def scale(plan: Plan) -> tuple[list[dict], dict]:
    if not plan.postgres:
        return [], {"skipped": "needs PostgreSQL (--no-postgres given)"}
    from support.databases import start_cluster, throwaway_redis

    # Every simulated user holds a few sockets, and so does the server side of each: the
    # processes inherit this limit.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 16 * max(plan.scale_users, *plan.scale_ramp, 64)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    runs: dict[int, dict] = {}
    work = Path(tempfile.mkdtemp(prefix="ana-bench-scale-"))
    (work / "redis").mkdir()
    cluster = start_cluster()
    try:
        with throwaway_redis(work / "redis") as redis_url:
            for count in plan.scale_processes:
                runs[count] = _one_count(plan, count, cluster, redis_url, work)
    finally:
        cluster.stop()
    return _figures(plan, runs), _details(plan, runs)


def _figures(plan: Plan, runs: dict[int, dict]) -> list[dict]:
    users = plan.scale_users
    mix = (
        f"{users} users in teams of {TEAM}, each: its workspace's event stream, a save every "
        f"{SAVE_EVERY_S:.0f} s, a search and an assistant turn every {plan.scale_chat_every:.0f} s"
        f"; {plan.scale_seconds:.0f} s in {plan.scale_windows} windows (p99 per window); one "
        "PostgreSQL, one Redis, users pinned to processes round-robin"
    )
    figures = []
    for count, run in runs.items():
        team, solo = run["team"], run["solo"]
        for op in OPS:
            goal, met = "(informative)", None
            if op == "save" and count == 2:
                goal = f"p99 ≤ {SAVE_GOAL_MS:.0f} ms (absolute)"
                values = team.p99["save"]
                met = bool(values) and sorted(values)[len(values) // 2] <= SAVE_GOAL_MS
            f = figure(
                f"Scale, {count} process(es): {OP_NAMES[op]} p99 ({users} users / one user)",
                team.p99[op],
                solo.p99[op],
                unit="ms",
                goal=goal,
                note=mix + f"; client: {team.summary['client_cpu_share']} CPU, loop late p99 "
                f"{team.summary['client_loop_late_p99_ms']} ms; errors {team.summary['errors']}",
            )
            f["met"] = met
            figures.append(f)
        base = runs.get(1)
        if base is not None and count != 1:
            for phase, what, limit in (
                ("burst", "capacity, saves back to back", THROUGHPUT_GOAL if count == 2 else None),
                ("team", f"requests/s at {users} users", None),
            ):
                subject = run[phase].saves_per_s if phase == "burst" else run[phase].per_s
                baseline = base[phase].saves_per_s if phase == "burst" else base[phase].per_s
                figures.append(
                    figure(
                        f"Scale: {what} ({count} processes / 1)",
                        subject,
                        baseline,
                        unit="saves/s" if phase == "burst" else "requests/s",
                        goal=f"≥ {limit}" if limit else "(informative)",
                        limit=limit,
                        higher_is_better=True,
                        note=f"{users} users; per window of the "
                        + (
                            f"{plan.scale_burst_seconds:.0f} s back-to-back run"
                            if phase == "burst"
                            else f"{plan.scale_seconds:.0f} s run"
                        ),
                    )
                )
        kib = run["stream_kib"]
        f = figure(
            f"Scale, {count} process(es): server memory per idle event stream",
            [kib],
            [],
            unit="KiB",
            goal=f"≤ {STREAM_GOAL_KIB:.0f} KiB (absolute)",
            note=f"summed RSS of the processes with {run['rss_kib']['streams']} idle streams open "
            f"against one per process (a process's first stream: {run['first_stream_kib']:.0f} "
            f"KiB once), read {SETTLE_S:.0f} s after the last opened: {run['rss_kib']}",
        )
        f["met"] = kib <= STREAM_GOAL_KIB
        figures.append(f)
        under, over = _passes_at(plan, run)
        figures.append(
            figure(
                f"Scale, {count} process(es): users when p99 passes {P99_LIMIT_MS:.0f} ms",
                [over] if over else [],
                [under] if under else [],
                unit="users",
                goal="(informative)",
                note=f"the worst p99 of save, search and turn; subject: fewest users "
                f"measured over {P99_LIMIT_MS:.0f} ms, baseline: most users measured under "
                f"(ramp steps {list(plan.scale_ramp)} of {plan.scale_ramp_seconds:.0f} s; "
                "– means not reached)",
            )
        )
    return figures


def _details(plan: Plan, runs: dict[int, dict]) -> dict:
    out = {}
    for count, run in runs.items():
        out[f"{count} process(es)"] = {
            "stream_kib": round(run["stream_kib"], 1),
            "first_stream_kib": round(run["first_stream_kib"], 1),
            "rss_kib": run["rss_kib"],
            "one user": run["solo"].summary,
            "team": run["team"].summary,
            "back to back": run["burst"].summary,
            "ramp": run["ramp"],
        }
    return out
