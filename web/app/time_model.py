"""How long ago a server time was, in a few words: one rule for every list that shows one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone


def parse(stamp: str) -> datetime | None:
    """An ISO time from the server (a "Z" or an offset; none means UTC), or None."""
    try:
        moment = datetime.fromisoformat(stamp)  # 3.11+ reads a "Z"
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def within_a_day(moment: datetime, now: datetime) -> str | None:
    """ "just now", "5 min ago" or "3 h ago"; None when it is a day old or more."""
    seconds = (now - moment).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    return None


def local(moment: datetime, offset_minutes: int = 0) -> datetime:
    """`moment` on the user's clock; `offset_minutes` as the browser's
    Date.getTimezoneOffset() gives it (minutes behind UTC: 300 for UTC−5)."""
    return moment.astimezone(timezone(timedelta(minutes=-offset_minutes)))
