"""A note's history as the page words it (SPEC §15): who made each revision, and when (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.time_model import local, parse, within_a_day

ACTIONS = {
    "create": "created it",
    "edit": "edited",
    "restore": "restored an earlier version",
    "move": "renamed it",
    "delete": "deleted it",
    "links": "updated its links after a rename",
}
DEMO = "demo"  # the demo seed's source name (kind page, no user)
DEMO_CREATED = "put it here as a sample note"


@dataclass(frozen=True)
class Revision:
    """One row of the list: its number, the source kind, and the words shown."""

    revision: str
    source: str  # page, assistant, agent or import (`data-source`)
    who: str
    what: str
    saved_at: str
    current: bool


def who(entry: dict) -> str:
    """You, another member by name, the assistant, or the agent by its token's name."""
    source = entry.get("source") if isinstance(entry.get("source"), dict) else {}
    kind, name = source.get("kind"), source.get("name")
    if _by_demo(entry):
        return "the demo"
    if kind == "assistant":
        return "the assistant"
    if kind == "agent":
        return f"the agent “{name}”" if name else "an agent"
    if kind == "import":  # SPEC §18: a zip imported by a member
        by = "you" if entry.get("byYou") or entry.get("by_you") else entry.get("user") or "a member"
        return f"{by}, importing “{name}”" if name else f"{by}, importing a zip"
    if entry.get("byYou") or entry.get("by_you"):
        return "you"
    user = entry.get("user")
    return f"{user} (another member)" if user else "another member"


def _by_demo(entry: dict) -> bool:
    """The demo seed's note (backend Source.demo: kind page, name "demo", no user)."""
    source = entry.get("source") if isinstance(entry.get("source"), dict) else {}
    return (
        source.get("kind") == "page"
        and source.get("name") == DEMO
        and not entry.get("user")
        and not (entry.get("byYou") or entry.get("by_you"))
    )


def parse_revisions(data: object) -> list[Revision]:
    """The list endpoint's answer as rows, newest first; malformed entries are left out."""
    rows = data.get("revisions") if isinstance(data, dict) else None
    out = []
    for entry in rows if isinstance(rows, list) else []:
        if (
            not isinstance(entry, dict)
            or isinstance(entry.get("revision"), bool)
            or not (isinstance(entry.get("revision"), (int, str)))
        ):
            continue
        source = entry.get("source") if isinstance(entry.get("source"), dict) else {}
        out.append(
            Revision(
                revision=str(entry["revision"]),
                source=str(source.get("kind") or "page"),
                who=who(entry),
                what=DEMO_CREATED
                if _by_demo(entry) and entry.get("action") == "create"
                else ACTIONS.get(str(entry.get("action")), "changed it"),
                saved_at=str(entry.get("savedAt") or entry.get("saved_at") or ""),
                current=bool(entry.get("current")),
            )
        )
    return out


def when(saved_at: str, now: datetime, offset_minutes: int = 0) -> str:
    """The clock time with how long ago ("14:03:07, just now", "09:00:00, 3 h ago"), or the
    date and time for a day or more ago; on the user's clock (`offset_minutes`: the
    browser's Date.getTimezoneOffset()), said as UTC when that is the clock. Seconds, so
    that versions saved within one minute read apart."""
    moment = parse(saved_at)
    if moment is None:
        return saved_at
    zone = " UTC" if offset_minutes == 0 else ""
    mine = local(moment, offset_minutes)
    ago = within_a_day(moment, now)
    if ago is None:
        return mine.strftime("%Y-%m-%d %H:%M") + zone
    return f"{mine.strftime('%H:%M:%S')}{zone}, {ago}"


SOMEONE_SAVED = "This note was saved elsewhere while you were editing it."
SOMEONE_DELETED = "This note was deleted elsewhere while you were editing it."


def conflict_words(rows: list[Revision], revision: str | None, *, gone: bool) -> str:
    """The conflict panel's first sentence, naming who made the other change (SPEC §13's
    source): another window of yours, a member by name, the assistant, or an agent. `rows`
    is the note's history, `revision` the saved revision that clashed (None: the newest)."""
    row = next((r for r in rows if r.revision == revision), None) if revision else None
    row = row or (rows[0] if rows else None)
    if row is None:
        return SOMEONE_DELETED if gone else SOMEONE_SAVED
    did = "deleted" if gone else "saved"
    if row.who == "you":
        return f"Another window of yours {did} this note while you were editing it here."
    actor = row.who[:1].upper() + row.who[1:] if row.who.startswith("the ") else row.who
    return f"{actor} {did} this note while you were editing it."
