"""The chat's send flow and conversation state (pure: asyncio and the ambient core only).

One `Chat` per Assistant frame. Everything it touches outside itself is passed in, so the flow
runs under CPython in tests: `keys` (the window's `KeySessions`), `turn(headers, body)` (the
POST of a turn, raising `ApiError` on a 4xx), the window's ambient `store`, `pending()` (the
saves still finishing for closed frames) and `storage` (`get`/`set`/`remove` of
localStorage).
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Awaitable, Callable, Collection, Iterable
from contextlib import suppress
from dataclasses import dataclass
from typing import Protocol

from ambient.capture import capture
from ambient.contract import AMBIENT_OFF_HEADER, HEADER_NAME, KEY_SESSION_HEADER
from ambient.paths import PathError, check_path
from app.api_model import ApiError, describe

TURNS_URL = "/api/assistant/turns"


def conversation_url(conversation_id: str) -> str:
    return f"/api/assistant/conversations/{conversation_id}"


def proposals_by_id(conversation: object) -> dict[str, dict]:
    """A resumed conversation's proposals (`proposals` of its GET), by `proposalId`: each
    card draws its outcome from here instead of asking for it. Malformed entries are left
    out (their cards ask the proposal itself)."""
    items = conversation.get("proposals") if isinstance(conversation, dict) else None
    return {
        item["proposalId"]: item
        for item in (items if isinstance(items, list) else [])
        if isinstance(item, dict) and isinstance(item.get("proposalId"), str)
    }


class Storage(Protocol):
    """localStorage's shape (strings only)."""

    def get(self, key: str) -> str | None: ...
    def set(self, key: str, value: str) -> None: ...
    def remove(self, key: str) -> None: ...


def conversation_key(user: str, workspace: str) -> str:
    # Per user too: another user's conversation id would get 404 from the server.
    return f"ana.conversation.{user}.{workspace}"


def ambient_off_key(conversation_id: str) -> str:
    return f"ana.ambient-off.{conversation_id}"


@dataclass(frozen=True)
class Sent:
    """What one send came to: the reply, or a sentence saying why it was not sent."""

    conversation_id: str
    reply: dict | None = None
    error: str = ""
    restarted: bool = False  # the stored id was refused (404): a new conversation began
    current: bool = True  # False when the user moved to another conversation meanwhile
    stopped: bool = False  # the user pressed Stop: no reply, nothing said wrong


class _Stopped(Exception):
    """Stop was pressed before the turn's request began."""


class Chat:
    """One conversation per (user, workspace), its ambient toggle, and the send."""

    def __init__(
        self,
        *,
        keys,
        turn: Callable[[dict, dict], Awaitable[dict]],
        store,
        storage: Storage,
        pending: Callable[[], Iterable] = tuple,
        new_id: Callable[[], str] = lambda: str(uuid.uuid4()),
    ) -> None:
        self._keys = keys
        self._turn = turn
        self._store = store
        self._storage = storage
        self._pending = pending
        self._new_id = new_id
        self.user = ""
        self.workspace: str | None = None
        self.conversation_id: str | None = None
        self.sending = False
        self._stop = False
        self._task: asyncio.Task | None = None

    # -- conversation ------------------------------------------------------------------

    def switch(self, user: str, workspace: str | None) -> bool:
        """Follow a workspace (None: signed out); True when a stored conversation resumes."""
        self.user, self.workspace = user, workspace
        if not workspace:
            self.conversation_id = None
            return False
        stored = self._storage.get(conversation_key(user, workspace))
        if stored:
            self.conversation_id = stored
            return True
        self.new_conversation()
        return False

    def new_conversation(self) -> str | None:
        """Start afresh: a new id, remembered for this user and workspace."""
        if not self.workspace:
            return None
        self.conversation_id = self._new_id()
        self._storage.set(conversation_key(self.user, self.workspace), self.conversation_id)
        return self.conversation_id

    def resume(self, conversation_id: str) -> bool:
        """Continue a stored conversation (from the list); a reload keeps it. False while a
        send is running (its reply belongs to the conversation it was sent in) or signed out."""
        if self.sending or not self.workspace or not conversation_id:
            return False
        self.conversation_id = conversation_id
        self._storage.set(conversation_key(self.user, self.workspace), conversation_id)
        return True

    def deleted(self, conversation_id: str) -> bool:
        """The server deleted a conversation: True when it was the open one (a new one began)."""
        if conversation_id != self.conversation_id:
            return False
        self._storage.remove(ambient_off_key(conversation_id))
        self.new_conversation()
        return True

    # -- the ambient toggle (per conversation) ----------------------------------------

    def ambient_enabled(self) -> bool:
        cid = self.conversation_id
        return not (cid and self._storage.get(ambient_off_key(cid)) == "1")

    def flip_ambient(self) -> bool:
        """Switch "this note" off or on for this conversation; answers the new state."""
        if not self.conversation_id:
            return True
        key = ambient_off_key(self.conversation_id)
        if self.ambient_enabled():
            self._storage.set(key, "1")
        else:
            self._storage.remove(key)
        return self.ambient_enabled()

    # -- send ---------------------------------------------------------------------------

    def stop(self) -> None:
        """Stop the send in flight: its request is cancelled and `send` answers `stopped`."""
        if self.sending:
            self._stop = True
            if self._task is not None:
                self._task.cancel()  # pyfetch aborts its fetch when cancelled

    async def _send_turn(self, headers: dict, body: dict) -> dict:
        if self._stop:
            raise _Stopped
        self._task = asyncio.ensure_future(self._turn(headers, body))
        try:
            return await self._task
        finally:
            self._task = None

    def can_send(self, message: str) -> bool:
        return bool(message.strip()) and not self.sending and bool(self.conversation_id)

    async def send(self, message: str) -> Sent | None:
        """Key session, capture, the turn (once more under a new id after a 404).

        None when there is nothing to send (empty, a send running, no workspace). A failure
        forgets the workspace's key session (the server may have refused it) and comes back
        as words; the caller keeps the message for the user. After `stop()` it answers
        `stopped` (no reply, no error) whatever the request came to.
        """
        message = message.strip()
        if not self.can_send(message):
            return None
        self.sending, self._stop = True, False
        epoch = self._store.epoch  # a workspace switch from here on voids the capture
        workspace, conversation = self.workspace, self.conversation_id
        restarted = False
        try:
            headers = {KEY_SESSION_HEADER: await self._keys.get(workspace)}
            enabled = self.ambient_enabled()
            ambient = await capture(
                self._store, enabled=enabled, since_epoch=epoch, also_flush=list(self._pending())
            )
            if not enabled:  # nothing captured; the server says "this note" is off
                headers[AMBIENT_OFF_HEADER] = "1"
            elif ambient.header:
                headers[HEADER_NAME] = ambient.header
            body = {"conversationId": conversation, "workspaceId": workspace, "message": message}
            try:
                reply = await self._send_turn(headers, body)
            except ApiError as error:
                if self._stop or error.status != 404 or conversation != self.conversation_id:
                    raise
                # The stored id is not ours (another user's, or deleted): start afresh once.
                conversation, restarted = self.new_conversation(), True
                reply = await self._send_turn(headers, {**body, "conversationId": conversation})
        except asyncio.CancelledError:
            if not self._stop:
                raise
            reply = None
        except Exception as failure:  # noqa: BLE001 - said in words; the message is kept
            if not self._stop:
                with suppress(Exception):
                    self._keys.forget(workspace)
                return Sent(
                    conversation,
                    error=describe(failure),
                    restarted=restarted,
                    current=conversation == self.conversation_id,
                )
        finally:
            self.sending = False
        current = conversation == self.conversation_id
        if self._stop:  # Stop wins even over a reply that just came; the key session stays
            return Sent(conversation, restarted=restarted, stopped=True, current=current)
        return Sent(conversation, reply=reply or {}, restarted=restarted, current=current)


# -- links in replies --------------------------------------------------------------------

_REF = re.compile(
    r"(?P<path>[^\s\"'`「」『』（）()\[\]<>,;:：、。]+\.(?:md|markdown|txt))(?![A-Za-z0-9])"
    r"|\(line (?P<paren>\d{1,7})\)|\bline (?P<word>\d{1,7})\b|(?P<ja>\d{1,7}) ?行目"
)


@dataclass(frozen=True)
class Span:
    """A piece of a reply: plain text, or a link to a note (at a line when `line` is set)."""

    text: str
    path: str | None = None
    line: int | None = None


def link_spans(
    text: str,
    known: Collection[str],
    default_path: str | None = None,
    read: Collection[str] = (),
) -> list[Span]:
    """Split a reply into text and links: note paths, and "(line N)" / "N 行目" references.

    A path links when it is one of the workspace's notes (`known`; any valid path while the
    list is not loaded). A line reference links to the note named last before it in the
    reply, else to `default_path` (the note the turn's tools read); with neither it stays text.
    When the notes the turn's tools read are known (`read`), only those can own a line: a
    task in todo.md that mentions roadmap.md has its line in todo.md, not in roadmap.md.
    """
    spans: list[Span] = []
    current, done = default_path, 0
    for match in _REF.finditer(text):
        path, line = match.group("path"), None
        if path is not None:
            if not is_note(path, known):
                continue
            if not read or path in read:
                current = path
        else:
            line = int(match.group("paren") or match.group("word") or match.group("ja"))
            if current is None or line < 1:
                continue
            path = current
        if match.start() > done:
            spans.append(Span(text[done : match.start()]))
        spans.append(Span(match.group(0), path, line))
        done = match.end()
    if done < len(text) or not spans:
        spans.append(Span(text[done:]))
    return spans


def is_note(path: str, known: Collection[str]) -> bool:
    """Whether a name in a reply is a note: one of `known`, or any valid path while unknown."""
    if known:
        return path in known
    try:
        check_path(path)
    except PathError:
        return False
    return True


def turn_path(tool_calls: Iterable[dict]) -> str | None:
    """The note a turn's tools read (the last one that names a path), for bare line numbers."""
    path = None
    for call in tool_calls:
        args = call.get("arguments") if isinstance(call, dict) else None
        result = call.get("result") if isinstance(call, dict) else None
        for source in (args, result):
            if isinstance(source, dict) and isinstance(source.get("path"), str):
                path = source["path"]
    return path


def turn_paths(tool_calls: Iterable[dict]) -> frozenset[str]:
    """Every note a turn's tools named (arguments and results, however nested): the notes
    whose lines a reply can point at."""
    found: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("path"), str):
                found.add(value["path"])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for call in tool_calls:
        if isinstance(call, dict):
            walk(call.get("arguments"))
            walk(call.get("result"))
    return frozenset(found)
