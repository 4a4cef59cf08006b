"""Event ids (SPEC §13): numbered per workspace in commit order, so a resume with
`Last-Event-ID` can skip nothing, and an id says nothing about another workspace."""

from __future__ import annotations

import threading
import time
from urllib.parse import quote

import pytest
from conftest import open_db, seed_world
from live_helpers import END, Live, Stream
from sqlalchemy import text

from backend.db import utcnow
from backend.services import events


def _record(db, ws: str, path: str) -> int:
    events.record(db, workspace_id=ws, kind="saved", data={"path": path}, now=utcnow())
    return len(db.info[events.PENDING_KEY])


def test_each_workspace_numbers_its_own_events(app):
    with open_db(app) as db:
        for ws, path in (("personal", "a"), ("team", "b"), ("personal", "c"), ("team", "d")):
            _record(db, ws, path)
            db.commit()
        personal = events.since(db, workspace_id="personal", after=0, limit=10)
        team = events.since(db, workspace_id="team", after=0, limit=10)
    assert personal is not None and team is not None
    assert [(e.seq, e.data) for e in personal] == [(1, '{"path":"a"}'), (2, '{"path":"c"}')]
    assert [(e.seq, e.data) for e in team] == [(1, '{"path":"b"}'), (2, '{"path":"d"}')]
    with open_db(app) as db:  # a number this workspace never gave is a reset, not a replay
        assert events.since(db, workspace_id="team", after=3, limit=10) is None


def test_a_stream_id_counts_only_its_own_workspace(app_factory):
    """bob, following `team`, sees team's ids 1, 2 whatever alice saves in `personal`."""
    app = app_factory(events_keepalive_seconds=0.5)
    seed_world(app)
    live = Live(app)
    try:
        alice, bob = live.client("alice"), live.client("bob")
        s = Stream(live.url, "team", bob.cookies, {})
        assert s.status == 200 and s.next(timeout=10).comment == "connected"
        for n in range(5):
            r = alice.put(f"/api/workspaces/personal/documents/p{n}.md", content=b"private")
            assert r.status_code == 201
        for path in ("t1.md", "t2.md"):
            r = alice.put(f"/api/workspaces/team/documents/{quote(path)}", content=b"x")
            assert r.status_code == 201
        got = [s.next_event(), s.next_event()]
        assert [(e.id, e.json()["path"]) for e in got] == [("1", "t1.md"), ("2", "t2.md")]
        s.close()
        resumed = Stream(live.url, "team", bob.cookies, {"Last-Event-ID": "1"})
        assert resumed.next(timeout=10) is not END
        assert resumed.next_event().json()["path"] == "t2.md"
        resumed.close()
    finally:
        live.stop()


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_events_are_numbered_in_commit_order_on_postgresql(app):
    """Two saves of one workspace at once: the one that inserts first commits last. Its
    event must not get the smaller number (a client that saw the other would resume past
    it); the second writer waits for the first to commit, then numbers after it."""
    first = open_db(app)
    _record(first, "team", "first")  # holds team's counter until it commits
    second_seq: list[int] = []

    def second_writer() -> None:
        with open_db(app) as db:
            _record(db, "team", "second")
            db.commit()
            second_seq.append(1)

    worker = threading.Thread(target=second_writer)
    worker.start()
    with open_db(app) as watcher:  # the second writer is waiting on a lock, not done
        deadline = time.monotonic() + 30
        while True:
            waiting = watcher.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE wait_event_type = 'Lock' AND datname = current_database()"
                )
            ).scalar_one()
            watcher.rollback()
            if waiting:
                break
            assert time.monotonic() < deadline, "the second writer never waited"
            time.sleep(0.02)
    assert not second_seq  # it has not committed ahead of the first
    first.commit()
    first.close()
    worker.join(30)
    assert second_seq == [1]
    with open_db(app) as db:
        found = events.since(db, workspace_id="team", after=0, limit=10)
        assert found is not None
        assert [(e.seq, e.data) for e in found] == [
            (1, '{"path":"first"}'),
            (2, '{"path":"second"}'),
        ]
        after_first = events.since(db, workspace_id="team", after=1, limit=10)
        assert after_first is not None and [e.data for e in after_first] == ['{"path":"second"}']
