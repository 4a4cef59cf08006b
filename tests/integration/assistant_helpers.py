"""Small helpers for the assistant's integration tests: notes, key sessions, pointers, turns."""

from __future__ import annotations

import base64
import json
import uuid
from datetime import datetime
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from ambient import pointer as codec
from backend.models import AgentDeliveryCredential

CAVEAT = (
    "The saved copy is behind what the user has on screen — their most recent keystrokes may "
    "be missing from the text above."
)


def new_id() -> str:
    return str(uuid.uuid4())


def put_note(client: TestClient, ws: str, path: str, text: str) -> dict:
    r = client.put(
        f"/api/workspaces/{ws}/documents/{quote(path)}",
        content=text.encode("utf-8"),
        headers={"Content-Type": "text/markdown; charset=utf-8"},
    )
    assert r.status_code in (200, 201), r.text
    return r.json()


def key_session(client: TestClient, ws: str = "personal") -> str:
    r = client.post(f"/api/workspaces/{ws}/key-sessions")
    assert r.status_code in (200, 201), r.text
    return r.json()["id"]


def pointer(
    text: str,
    path: str,
    *,
    view: str = "edit",
    flushed: bool = True,
    selection: tuple[int, int] | None = None,
    frame_id: str = "frame-1",
) -> codec.Pointer:
    data = text.encode("utf-8")
    return codec.Pointer(
        path=path,
        view=view,
        frame_id=frame_id,
        bytes=len(data),
        sha256=codec.sha256_prefix(data),
        flushed=flushed,
        captured_at=codec.now_iso(),
        selection=codec.Selection(*selection) if selection else None,
    )


def header_for(p: codec.Pointer) -> str:
    value = codec.encode(p)
    assert value is not None
    return value


def raw_header(obj: Any) -> str:
    """Encode any JSON value the way the page would, without the codec's checks."""
    raw = json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def turn(
    client: TestClient,
    cid: str,
    message: str,
    *,
    ws: str = "personal",
    key: str | None = None,
    note: str | None = None,
) -> Any:
    headers = {}
    if key is not None:
        headers["X-Key-Session"] = key
    if note is not None:
        headers["X-Ambient-Note"] = note
    return client.post(
        "/api/assistant/turns",
        json={"conversationId": cid, "workspaceId": ws, "message": message},
        headers=headers,
    )


def ok_turn(client: TestClient, cid: str, message: str, **kwargs: Any) -> dict:
    r = turn(client, cid, message, **kwargs)
    assert r.status_code == 200, r.text
    return r.json()


def call_tool(client: TestClient, cid: str, name: str, args: Any = None) -> Any:
    return client.post(f"/api/assistant/conversations/{cid}/tools/{name}", json=args or {})


def tool(client: TestClient, cid: str, name: str, args: Any = None) -> dict:
    r = call_tool(client, cid, name, args)
    assert r.status_code == 200, r.text
    return r.json()


def row(app: FastAPI, cid: str) -> dict | None:
    with app.state.sessionmaker() as db:
        found = db.execute(
            select(AgentDeliveryCredential).where(AgentDeliveryCredential.conversation_id == cid)
        ).scalar_one_or_none()
        if found is None:
            return None
        return {c.key: getattr(found, c.key) for c in AgentDeliveryCredential.__table__.columns}


def set_row(app: FastAPI, cid: str, **values: Any) -> None:
    with app.state.sessionmaker() as db:
        db.execute(
            update(AgentDeliveryCredential)
            .where(AgentDeliveryCredential.conversation_id == cid)
            .values(**values)
        )
        db.commit()


def ambient(app: FastAPI, cid: str) -> tuple[str | None, str | None, dict | None]:
    r = row(app, cid)
    assert r is not None
    meta = json.loads(r["ambient_meta"]) if r["ambient_meta"] is not None else None
    return r["ambient_path"], r["ambient_view"], meta


def aware(value: datetime) -> datetime:
    assert value.tzinfo is not None
    return value
