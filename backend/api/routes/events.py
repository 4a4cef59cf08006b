"""The live-notes event stream (SPEC §13): Server-Sent Events of a workspace's note changes."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Annotated

import anyio
import anyio.to_thread
from fastapi import APIRouter, Header, Request
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.concurrency import run_in_threadpool

from backend.api.deps import CurrentUser, MemberWorkspace, SessionDep
from backend.errors import TooManyRequests, error_responses
from backend.live import CLOSE, RESET, Hub, as_row
from backend.services import events as events_service

router = APIRouter(prefix="/api/workspaces/{ws}", tags=["live"])

RETRY_MS = 1000
TOO_MANY = "Too many open event streams for this user; close one and try again."
LastEventId = Annotated[
    str | None, Header(description="The last event id received: the stream resumes after it.")
]


def _event(row: tuple[int, str, str, str]) -> ServerSentEvent:
    return ServerSentEvent(id=str(row[0]), event=row[2], data=row[3])


def _resume_point(value: str | None) -> int | None:
    """The id to resume after, or -1 when the client's id is no id we ever gave."""
    if value is None:
        return None
    text = value.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else -1


@router.get(
    "/events",
    summary="Server-Sent Events: saved, moved, deleted (members only)",
    description="`event: saved` {path, revision, bytes, sha256, source}, `event: moved` {from, "
    "to, revision}, `event: deleted` {path}; each with an `id`. `Last-Event-ID` replays what "
    "was missed, or sends `event: reset` when that is no longer known. A comment line keeps "
    "the stream alive. Never any note text.",
    response_class=EventSourceResponse,
    responses={
        200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}},
        **error_responses(401, 403, 429),
    },
)
async def stream_events(
    request: Request,
    ws: MemberWorkspace,
    user: CurrentUser,
    db: SessionDep,
    last_event_id: LastEventId = None,
) -> EventSourceResponse:
    # The request's session is closed only after the response: close it now, the checks are
    # done. They end their own read (deps._sign_in); should a transaction still be open,
    # closing rolls back over the network: in a worker thread, as get_db does, never on the
    # event loop.
    if db.in_transaction():
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(db.close, limiter=anyio.CapacityLimiter(1))
    else:
        db.close()
    hub: Hub = request.app.state.live
    settings = request.app.state.settings
    if not hub.can_subscribe(user.id):
        raise TooManyRequests(TOO_MANY, retry_after=5)
    sub = hub.subscribe(
        user_id=user.id,
        user_session_id=getattr(request.state, "user_session_id", None),
        workspace_id=ws,
    )
    # Subscribed before the backlog is read, so no event falls between the two; until the
    # stream's own generator owns `sub`, any failure (the read's, a cancellation) gives its
    # place back, or a user at the cap would be refused until the server restarts.
    try:
        after = _resume_point(last_event_id)
        missed: list | None = []
        if after is not None:
            missed = None if after < 0 else await run_in_threadpool(_missed, request, ws, after)
    except BaseException:
        hub.unsubscribe(sub)
        raise

    ends_at = time.monotonic() + settings.events_max_stream_seconds
    # The keep-alive comes from this generator, between events, rather than from
    # EventSourceResponse's own ping task: one task fewer per open stream (memory, issue 35).
    keepalive = settings.events_keepalive_seconds

    async def generate() -> AsyncIterator[ServerSentEvent]:
        try:
            # The headers and a first line now; `retry`: how soon the browser reconnects.
            yield ServerSentEvent(comment="connected", retry=RETRY_MS)
            newest = after or 0
            if missed is None:
                yield ServerSentEvent(event="reset", data="{}")
            else:
                for row in missed:
                    newest = row[0]
                    yield _event(row)
            ping_at = time.monotonic() + keepalive
            while True:
                now = time.monotonic()
                if now >= ends_at:
                    return  # a bounded life: the client reconnects with Last-Event-ID
                if now >= ping_at:  # due even while events flow: SPEC §13 asks for a comment
                    ping_at = now + keepalive
                    yield ServerSentEvent(comment="ping")  # docs/reference.md names it
                    continue
                # A cancel scope, not asyncio.wait_for: that wraps each wait in a task of its
                # own, which every idle stream would hold. A cancelled get loses no event.
                with anyio.move_on_after(min(ends_at, ping_at) - now) as waited:
                    row = await sub.queue.get()
                if waited.cancelled_caught:
                    continue
                if row is CLOSE:
                    return
                if row is RESET:  # the workspace was deleted
                    yield ServerSentEvent(event="reset", data="{}")
                    return
                if row[0] > newest:  # the backlog may already have sent it
                    yield _event(row)
        finally:
            hub.unsubscribe(sub)

    return EventSourceResponse(
        generate(),
        ping=0,  # no ping task: the generator sends the keep-alive (above)
        send_timeout=settings.events_send_timeout_seconds,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


def _missed(request: Request, ws: str, after: int) -> list | None:
    with request.app.state.sessionmaker() as db:
        found = events_service.since(db, workspace_id=ws, after=after, limit=events_service.BACKLOG)
        return None if found is None else [as_row(e) for e in found]
