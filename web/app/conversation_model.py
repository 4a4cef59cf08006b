"""The Assistant frame's conversation list and empty-chat suggestions, decided here (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote

from app.chat_model import conversation_url
from app.time_model import parse, within_a_day

CONVERSATIONS_URL = "/api/assistant/conversations"


def list_url(workspace: str) -> str:
    return f"{CONVERSATIONS_URL}?workspaceId={quote(workspace, safe='')}"


def delete_url(conversation_id: str) -> str:
    return conversation_url(quote(conversation_id, safe=""))


@dataclass(frozen=True)
class Listed:
    """One stored conversation as the list shows it."""

    conversation_id: str
    title: str
    updated_at: str  # ISO 8601, as the server sent it
    message_count: int


def parse_listing(data: object) -> list[Listed]:
    """The server's `{"conversations": [...]}`; malformed entries are left out, not fatal."""
    items = data.get("conversations") if isinstance(data, dict) else None
    out: list[Listed] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("conversationId"), str):
            continue
        count = item.get("messageCount")
        out.append(
            Listed(
                conversation_id=item["conversationId"],
                title=str(item.get("title") or ""),
                updated_at=str(item.get("updatedAt") or ""),
                message_count=count if isinstance(count, int) else 0,
            )
        )
    return out


def shown_title(item: Listed) -> str:
    """The title on one line (a first message may have several); never empty."""
    return " ".join(item.title.split()) or "(no message)"


def count_label(count: int) -> str:
    return f"{count} message" + ("" if count == 1 else "s")


def ago(updated_at: str, now: datetime) -> str:
    """How long ago, in a few characters: "just now", "5 min ago", "3 h ago", "2 d ago",
    or the date past a week. An unreadable time gives ""."""
    then = parse(updated_at)
    if then is None:
        return ""
    seconds = (now - then).total_seconds()
    if seconds < 7 * 86400:
        return within_a_day(then, now) or f"{int(seconds // 86400)} d ago"
    return then.date().isoformat()


def without(items: list[Listed], conversation_id: str) -> list[Listed]:
    return [item for item in items if item.conversation_id != conversation_id]


# -- the list's keyboard: one Tab stop, arrows inside ------------------------------------


@dataclass(frozen=True)
class ListMove:
    """What a key on a row does: the row to focus (None: stay) and an action on it (or "")."""

    focus: str | None = None
    action: str = ""  # "delete" (the row asks first) or "actions" (its delete button)


def tab_stop(ids: list[str], focused: str | None, open_id: str | None) -> str | None:
    """The one row in the Tab order: the last focused one, else the open one, else the first."""
    for candidate in (focused, open_id):
        if candidate in ids:
            return candidate
    return ids[0] if ids else None


def list_key(ids: list[str], current: str, key: str) -> ListMove | None:
    """The list's answer to `key` pressed on the row `current`; None for keys it leaves alone
    (Enter and Space are the row button's own: they open the conversation).

    ↓ ↑ next and previous row, Home and End the first and last; Delete asks to delete the
    row's conversation; → reaches the row's delete button (← or Escape comes back).
    """
    if not ids:
        return None
    index = ids.index(current) if current in ids else 0
    if key == "ArrowDown":
        return ListMove(ids[min(index + 1, len(ids) - 1)])
    if key == "ArrowUp":
        return ListMove(ids[max(index - 1, 0)])
    if key == "Home":
        return ListMove(ids[0])
    if key == "End":
        return ListMove(ids[-1])
    if key == "Delete":
        return ListMove(ids[index], "delete")
    if key == "ArrowRight":
        return ListMove(ids[index], "actions")
    return None


def after_delete(ids: list[str], deleted: str) -> str | None:
    """The row the keyboard goes to once `deleted` is gone: the next one, else the one above."""
    if deleted not in ids:
        return None
    index = ids.index(deleted)
    rest = ids[:index] + ids[index + 1 :]
    if not rest:
        return None
    return rest[min(index, len(rest) - 1)]


# -- an empty chat's suggestions ---------------------------------------------------------


@dataclass(frozen=True)
class Suggestion:
    """A request the offline assistant can do; `send` False only fills the box to finish."""

    label: str
    text: str
    send: bool


SUGGESTIONS = (
    Suggestion("summarise this", "summarise this", send=True),
    Suggestion("add a todo: …", "add a todo: ", send=False),
    Suggestion("what notes do I have?", "what notes do I have?", send=True),
    Suggestion("このノートを要約して", "このノートを要約して", send=True),
)


def line_of(value: object) -> int | None:
    """A chat link's `data-line` (absent on a link to a whole note) as a 1-based line."""
    try:
        line = int(str(value))
    except ValueError:
        return None
    return line if line >= 1 else None
