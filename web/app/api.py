"""Same-origin calls to the backend API (SPEC §6); failures become ApiError or OfflineError."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

from js import window

from ambient.contract import APPLIED_PROPOSAL_HEADER, CONFLICT_RESOLUTION_HEADER, KEEP_MINE
from app.api_model import ApiError, OfflineError, doc_url, parse_etag, workspace_url

TIMEOUT = 15.0


@dataclass
class Reply:
    """A finished response: status, lower-cased headers and the body text."""

    status: int
    headers: dict
    text: str

    def json(self):
        return json.loads(self.text) if self.text else None


async def _prefetched(url: str) -> Reply | None:
    """An answer web/static/prefetch.js fetched while Pyodide booted; each is used once.

    A 401 is an answer too (a new user's sign-in form needs no second session check); what
    was fetched signed out is forgotten at sign-in (`_forget_prefetched`). Any other status
    (a server starting up, say) is asked again.
    """
    cache = getattr(window, "anaPrefetch", None)
    if not cache or not cache.has(url):
        return None
    pending = cache.get(url)
    cache.delete(url)
    answer = await pending
    if not answer or answer.status not in (200, 401):
        return None
    return Reply(int(answer.status), {}, str(answer.text))


def _pyfetch():
    """pyodide.http's fetch, imported at the first request rather than at start: its modules
    are not in the snapshot, and compiling them (~0.1 s) would hold back the first screen."""
    from pyodide.http import pyfetch

    return pyfetch


def _forget_prefetched() -> None:
    cache = getattr(window, "anaPrefetch", None)
    if cache:
        cache.clear()


def keep_prefetched_documents(url: str) -> None:
    """The app opens the workspace listed at `url`: a note list web/static/workspace-early.js
    fetched for another one is dropped (taken later, it would be a stale answer)."""
    cache = getattr(window, "anaPrefetch", None)
    if not cache:
        return
    for key in list(cache.keys()):
        name = str(key)
        if name.startswith("/api/workspaces/") and name.endswith("/documents") and name != url:
            cache.delete(name)


class Api:
    """The page's one fetch helper; every request is same-origin with the session cookie."""

    async def call(
        self,
        method: str,
        url: str,
        *,
        body: str | None = None,
        data=None,
        headers: dict | None = None,
        timeout: float = TIMEOUT,
        signal=None,
        keepalive: bool = False,
    ) -> Reply:
        if method == "GET" and (early := await _prefetched(url)) is not None:
            return early
        options: dict = {"method": method, "credentials": "same-origin", "cache": "no-store"}
        if keepalive:
            options["keepalive"] = True  # finishes even if the page is left meanwhile
        sent = dict(headers or {})
        if data is not None:
            body = json.dumps(data)
            sent["Content-Type"] = "application/json"
        elif body is not None:
            sent.setdefault("Content-Type", "text/markdown; charset=utf-8")
        if body is not None:
            options["body"] = body
        options["headers"] = sent
        try:
            async with asyncio.timeout(timeout):
                response = await _pyfetch()(url, signal=signal, **options)  # signal: Stop
                text = await response.text()
        except (OSError, TimeoutError) as exc:
            raise OfflineError("offline — retrying") from exc
        return Reply(response.status, {k.lower(): v for k, v in response.headers.items()}, text)

    async def open(
        self,
        method: str,
        url: str,
        *,
        data=None,
        headers: dict | None = None,
        timeout: float = TIMEOUT,
        signal=None,
    ):
        """Send a JSON request and answer once the headers are in: (status, headers, response).

        The body is left unread for the caller: `chunks(response)` for a stream, or `text()`.
        """
        sent = {**(headers or {}), "Content-Type": "application/json"}
        try:
            async with asyncio.timeout(timeout):
                response = await _pyfetch()(
                    url,
                    method=method,
                    credentials="same-origin",
                    cache="no-store",
                    headers=sent,
                    body=json.dumps(data),
                    signal=signal,
                )
        except (OSError, TimeoutError) as exc:
            raise OfflineError("offline — retrying") from exc
        return (response.status, {k.lower(): v for k, v in response.headers.items()}, response)

    async def chunks(self, response, *, idle: float = TIMEOUT):
        """The body's bytes as they arrive (a read waits at most `idle` seconds)."""
        reader = response.js_response.body.getReader()  # Stop ends it through the fetch's signal
        while True:
            try:
                async with asyncio.timeout(idle):
                    part = await reader.read()
            except (OSError, TimeoutError) as exc:
                raise OfflineError("offline — retrying") from exc
            if part.done:
                return
            yield part.value.to_bytes()

    async def ok(self, method: str, url: str, **kwargs) -> Reply:
        """Like `call`, but any status from 400 up raises ApiError (5xx: OfflineError)."""
        reply = await self.call(method, url, **kwargs)
        if reply.status >= 500:
            raise OfflineError(f"The server had a problem ({reply.status}).")
        if reply.status >= 400:
            raise ApiError.from_response(reply.status, reply.text)
        return reply

    # -- session and workspaces ----------------------------------------------------------

    async def session(self) -> dict | None:
        reply = await self.call("GET", "/api/session")
        if reply.status == 200:
            return reply.json() or {}
        if reply.status in (401, 403, 404):
            return None
        raise ApiError.from_response(reply.status, reply.text)

    async def sign_in(self, username: str, password: str) -> dict:
        _forget_prefetched()  # fetched signed out: stale once signed in
        reply = await self.ok(
            "POST", "/api/session", data={"username": username, "password": password}
        )
        return reply.json() or {}

    async def sign_out(self) -> None:
        await self.call("DELETE", "/api/session", keepalive=True)

    async def workspaces(self) -> list[dict]:
        return (await self.ok("GET", "/api/workspaces")).json()

    async def documents(self, ws: str) -> list[dict]:
        return (await self.ok("GET", f"{workspace_url(ws)}/documents")).json()

    # -- documents -----------------------------------------------------------------------

    async def read(self, ws: str, path: str) -> tuple[str, str | None]:
        """The note's text and revision."""
        reply = await self.ok("GET", doc_url(ws, path))
        return reply.text, parse_etag(reply.headers.get("etag"))

    async def write(
        self,
        ws: str,
        path: str,
        text: str,
        *,
        if_match: str | None = None,
        create_only: bool = False,
        keep_mine: bool = False,
        carries: str | None = None,
    ) -> Reply:
        """PUT the raw text; the caller reads 409/412 itself (conflicts are not errors).
        `keep_mine`: this save resolves a conflict (the text it replaces stays a revision);
        `carries`: the id of the proposal whose in-editor Apply this save carries."""
        headers = {}
        if if_match:
            headers["If-Match"] = f'"{if_match}"'
        if create_only:
            headers["If-None-Match"] = "*"
        if keep_mine:
            headers[CONFLICT_RESOLUTION_HEADER] = KEEP_MINE
        if carries:
            headers[APPLIED_PROPOSAL_HEADER] = carries
        return await self.call("PUT", doc_url(ws, path), body=text, headers=headers)

    async def create(self, ws: str, path: str, text: str) -> str | None:
        """Create a new note (never overwriting); returns its revision."""
        reply = await self.write(ws, path, text, create_only=True)
        if reply.status >= 500:
            raise OfflineError(f"The server had a problem ({reply.status}).")
        if reply.status >= 400:
            raise ApiError.from_response(reply.status, reply.text)
        return revision_of(reply)

    async def delete(self, ws: str, path: str) -> None:
        await self.ok("DELETE", doc_url(ws, path))

    async def move(self, ws: str, path: str, to: str, *, update_links: bool = True) -> str | None:
        """Rename a note (the links to it follow unless `update_links` is false); answers its
        new revision (a move counts as a write)."""
        data = {"to": to, "updateLinks": update_links}
        return revision_of(await self.ok("POST", doc_url(ws, path, "move"), data=data))


def revision_of(reply: Reply) -> str | None:
    """The revision a PUT answered: the JSON `revision`, else the ETag."""
    try:
        data = reply.json()
        if isinstance(data, dict) and data.get("revision") is not None:
            return str(data["revision"])
    except ValueError:
        pass
    return parse_etag(reply.headers.get("etag"))
