"""The live-notes hub (SPEC §13): fans committed note events out to this process's streams.

One Hub per app. Events reach it only after their transaction commits:
- PostgreSQL: a listener thread holds one connection that LISTENs on the channel
  `backend.services.events.CHANNEL`; the NOTIFY issued inside the writing transaction is
  delivered by PostgreSQL at commit, to every server process sharing the database.
- SQLite (one process): the session's after-commit hook wakes the hub directly.
The payload is only an event id (or an ended sign-in); one dispatcher task reads those events
from the backlog table and puts them on each subscriber's bounded queue. A subscriber whose
queue is full (it stopped reading) is dropped; it can resume with Last-Event-ID.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import event as sa_event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from backend.models.history import NoteEvent
from backend.services import events

log = logging.getLogger("ambient.live")
CLOSE = None  # put on a queue: the stream ends
RESET = "reset"  # put on a queue: the stream sends `event: reset` and ends


@dataclass(eq=False)
class Subscriber:
    user_id: int
    user_session_id: str | None
    workspace_id: str
    queue: asyncio.Queue = field(repr=False)
    dropped: bool = False


class Hub:
    def __init__(
        self, maker: sessionmaker[Session], *, database_url: str, queue_size: int, per_user: int
    ) -> None:
        self.maker = maker
        self.queue_size = queue_size
        self.per_user = per_user
        self.postgres = make_url(database_url).get_backend_name() == "postgresql"
        self._conninfo = (
            make_url(database_url)
            .set(drivername="postgresql")
            .render_as_string(hide_password=False)
            if self.postgres
            else None
        )
        self._subs: dict[str, set[Subscriber]] = defaultdict(set)
        self._per_user: dict[int, int] = defaultdict(int)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._inbox: asyncio.Queue | None = None
        self._task: asyncio.Task | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.listening = threading.Event()  # the PostgreSQL listener is connected
        self.passed = 0  # the newest event id fanned out (to whoever was subscribed: maybe none)
        sa_event.listen(maker, "after_commit", self._after_commit)
        sa_event.listen(maker, "after_rollback", self._after_rollback)

    # --- lifecycle (the app's lifespan) --------------------------------------------------

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._inbox = asyncio.Queue()
        self._task = asyncio.create_task(self._dispatch(), name="ana-live-dispatch")
        if self.postgres:
            self._stop.clear()
            self._thread = threading.Thread(
                target=self._listen, name="ana-live-listen", daemon=True
            )
            self._thread.start()
            await asyncio.to_thread(self.listening.wait, 10)

    async def stop(self) -> None:
        self._stop.set()
        for subs in list(self._subs.values()):
            for sub in list(subs):
                self._close(sub)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 5)
        self._loop = None

    # --- subscriptions -------------------------------------------------------------------

    def can_subscribe(self, user_id: int) -> bool:
        return self._per_user[user_id] < self.per_user

    def subscribe(self, *, user_id: int, user_session_id: str | None, workspace_id: str):
        sub = Subscriber(user_id, user_session_id, workspace_id, asyncio.Queue(self.queue_size))
        self._subs[workspace_id].add(sub)
        self._per_user[user_id] += 1
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        subs = self._subs.get(sub.workspace_id)
        if subs is not None and sub in subs:
            subs.discard(sub)
            self._per_user[sub.user_id] -= 1
            if not subs:
                del self._subs[sub.workspace_id]

    def open_streams(self) -> int:
        return sum(len(s) for s in self._subs.values())

    def _close(self, sub: Subscriber, *, reset: bool = False) -> None:
        """End `sub`'s stream now: whatever it had not sent yet is dropped with it."""
        sub.dropped = True
        while not sub.queue.empty():
            sub.queue.get_nowait()
        if reset:
            sub.queue.put_nowait(RESET)
        sub.queue.put_nowait(CLOSE)
        self.unsubscribe(sub)

    def _end_access(self, items: list[tuple[str, str]]) -> None:
        """Close the streams a membership change or a workspace's deletion ended (SPEC §17)."""
        for kind, value in items:
            if kind == "w":
                for sub in list(self._subs.get(value, ())):
                    self._close(sub, reset=True)
            elif kind == "m":
                user, _, workspace = value.partition(":")
                for subs in list(self._subs.values()):
                    for sub in list(subs):
                        if str(sub.user_id) == user and workspace in (
                            events.EVERY_WORKSPACE,
                            sub.workspace_id,
                        ):
                            self._close(sub)

    # --- wake-ups, from any thread -------------------------------------------------------

    def _after_commit(self, session: Session) -> None:
        ids = session.info.pop(events.PENDING_KEY, [])
        ended = session.info.pop(events.ENDED_KEY, [])
        access = session.info.pop(events.ACCESS_KEY, [])
        if not self.postgres and (ids or ended or access):  # PostgreSQL delivers by NOTIFY
            self.wake([("e", str(i)) for i in ids] + [("s", s) for s in ended] + access)

    def _after_rollback(self, session: Session) -> None:
        session.info.pop(events.PENDING_KEY, None)
        session.info.pop(events.ENDED_KEY, None)
        session.info.pop(events.ACCESS_KEY, None)

    def wake(self, items: list[tuple[str, str]]) -> None:
        loop, inbox = self._loop, self._inbox
        if loop is None or inbox is None or not items:
            return  # not serving (no lifespan): nobody is listening in this process
        with contextlib.suppress(RuntimeError):  # the loop is closing
            loop.call_soon_threadsafe(inbox.put_nowait, items)

    def _listen(self) -> None:
        """The PostgreSQL listener thread: one connection, LISTEN, reconnect on failure."""
        import psycopg

        while not self._stop.is_set():
            try:
                with psycopg.connect(self._conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {events.CHANNEL}")
                    self.listening.set()
                    while not self._stop.is_set():
                        # Back at once with the first notification (a burst is merged by the
                        # hub's inbox); without stop_after every event waited out the 0.5 s.
                        arrived = conn.notifies(timeout=0.5, stop_after=1)
                        self.wake([(n.payload[:1], n.payload[1:]) for n in arrived])
            except Exception as exc:  # noqa: BLE001 - keep listening whatever happened
                log.warning("live listener lost its connection: %s", type(exc).__name__)
                self._stop.wait(1)

    # --- fan-out -------------------------------------------------------------------------

    async def _dispatch(self) -> None:
        assert self._inbox is not None
        while True:
            items = await self._inbox.get()
            while not self._inbox.empty():
                items += self._inbox.get_nowait()
            self._end_access([(kind, value) for kind, value in items if kind in ("m", "w")])
            ended = {value for kind, value in items if kind == "s"}
            if ended:
                for subs in list(self._subs.values()):
                    for sub in [s for s in subs if s.user_session_id in ended]:
                        self._close(sub)
            ids = [int(value) for kind, value in items if kind == "e" and value.isdigit()]
            if ids and self._subs:
                try:
                    rows = await asyncio.to_thread(self._fetch, ids)
                except Exception as exc:  # noqa: BLE001 - a lost batch must not stop the hub
                    log.warning("live events could not be read: %s", type(exc).__name__)
                    continue
                for row in rows:
                    self._fan_out(row)
            if ids:
                self.passed = max(self.passed, *ids)

    def _fetch(self, ids: list[int]) -> list[tuple[int, str, str, str]]:
        with self.maker() as db:
            return [as_row(r) for r in events.fetch(db, ids=ids)]

    def _fan_out(self, row: tuple[int, str, str, str]) -> None:
        for sub in list(self._subs.get(row[1], ())):
            try:
                sub.queue.put_nowait(row)
            except asyncio.QueueFull:
                log.info("live stream dropped: its client stopped reading")
                self._close(sub)


def as_row(event: NoteEvent) -> tuple[int, str, str, str]:
    """(the stream's id: the event's number in its workspace, workspace, kind, JSON data)."""
    return (event.seq, event.workspace_id, event.kind, event.data)
