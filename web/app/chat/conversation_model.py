"""The Assistant frame's conversation list and empty-chat suggestions, decided here (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote

from app.chat.chat_model import conversation_url
from app.notes.roving_model import position, step
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


# -- the list's keyboard: its own keys (the Tab stop and arrows: app.notes.roving_model) -------


@dataclass(frozen=True)
class ListMove:
    """What a key on a row does: the row to focus (None: stay) and an action on it (or "")."""

    focus: str | None = None
    action: str = ""  # "delete" (the row asks first) or "actions" (its delete button)


def list_key(ids: list[str], current: str, key: str) -> ListMove | None:
    """The list's answer to `key` pressed on the row `current`; None for keys it leaves alone
    (Enter and Space are the row button's own: they open the conversation).

    ↓ ↑ Home End move as in any roving list (app.notes.roving_model); Delete asks to delete the
    row's conversation; → reaches the row's delete button (← or Escape comes back).
    """
    if not ids:
        return None
    target = step(ids, current, key)
    if target is not None:
        return ListMove(target)
    row = ids[position(ids, current)]
    if key == "Delete":
        return ListMove(row, "delete")
    if key == "ArrowRight":
        return ListMove(row, "actions")
    return None


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
