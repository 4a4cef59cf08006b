"""A user's display preferences (issue 34): read with defaults, replace in one write."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.models.preferences import UserPreferences

THEMES = ("light", "dark", "system")
FONT_SIZE_MIN, FONT_SIZE_MAX, FONT_SIZE_DEFAULT = 12, 24, 15


@dataclass(frozen=True)
class Prefs:
    theme: str = "system"
    font_size: int = FONT_SIZE_DEFAULT
    sidebar_collapsed: bool = False


def get_preferences(db: Session, *, user_id: int) -> Prefs:
    """The user's saved preferences, or the defaults when they never saved any."""
    row = db.get(UserPreferences, user_id)
    db.rollback()  # a read route ends its read: the session then holds no connection
    if row is None:
        return Prefs()
    return Prefs(row.theme, row.font_size, row.sidebar_collapsed)


def set_preferences(db: Session, *, user_id: int, prefs: Prefs) -> Prefs:
    """Replace the user's preferences (the values are validated by the caller's model)."""
    for attempt in range(2):
        row = db.get(UserPreferences, user_id)
        if row is None:
            row = UserPreferences(user_id=user_id)
            db.add(row)
        row.theme, row.font_size = prefs.theme, prefs.font_size
        row.sidebar_collapsed = prefs.sidebar_collapsed
        try:
            db.commit()
        except IntegrityError:  # another window saved the first row meanwhile: update it
            db.rollback()
            if attempt:
                raise
            continue
        break
    return prefs
