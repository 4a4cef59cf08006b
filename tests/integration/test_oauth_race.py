"""Two real server processes on one PostgreSQL database refresh with the same refresh token
at the same moment (SPEC §19): never both win. The database decides with a conditional
UPDATE; the loser's refresh counts as a reuse and revokes the grant."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import partial

import httpx
import pytest
from oauth_helpers import Flow, mcp
from test_two_processes import two_workers

from support.servers import ServeProcess

ROUNDS = 5


@pytest.fixture
def workers(pg_url, tmp_path, fake_web_dir) -> Iterator[tuple[ServeProcess, ...]]:
    with two_workers(pg_url, tmp_path, fake_web_dir) as both:
        yield both


def _at_once(calls: list) -> list[httpx.Response]:
    """Run the calls in threads released together by a barrier."""
    barrier = threading.Barrier(len(calls))
    answers: list[httpx.Response | None] = [None] * len(calls)

    def run(i: int) -> None:
        barrier.wait(timeout=30)
        answers[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(answer is not None for answer in answers)
    return answers  # type: ignore[return-value]


def test_two_processes_refreshing_at_once_never_both_win(workers):
    one, two = workers
    with one.client() as agent, one.client() as person, two.client() as other:
        r = person.post("/api/session", json={"username": "alice", "password": "alice"})
        assert r.status_code == 200, r.text
        flow = Flow(agent, person, base=one.url).register()
        for _ in range(ROUNDS):
            tokens = flow.tokens(scope="read")
            refresh = tokens["refresh_token"]
            # The same refresh token to worker one and worker two, released together.
            on_two = Flow(other, person, base=one.url, client_id=flow.client_id)
            answers = _at_once([partial(flow.refresh, refresh), partial(on_two.refresh, refresh)])
            statuses = sorted(a.status_code for a in answers)
            assert statuses.count(200) <= 1, [a.text for a in answers]
            assert 400 in statuses
            # Whoever won, the grant is revoked: no token of it works any more.
            for answer in answers:
                if answer.status_code == 200:
                    assert mcp(agent, answer.json()["access_token"]).status_code == 401
                    assert flow.refresh(answer.json()["refresh_token"]).status_code == 400
            assert mcp(agent, tokens["access_token"]).status_code == 401
        assert person.get("/api/tokens").json() == []
