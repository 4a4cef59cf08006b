"""A user's own display preferences (issue 34): theme, editor font size, sidebar state."""

from __future__ import annotations

from sqlalchemy import Boolean, ForeignKey, Integer, String, false
from sqlalchemy.orm import Mapped, mapped_column

from backend.models import Base


class UserPreferences(Base):
    """One row per user who saved preferences; a user without one gets the defaults."""

    __tablename__ = "user_preferences"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    theme: Mapped[str] = mapped_column(String(8), server_default="system")
    font_size: Mapped[int] = mapped_column(Integer, server_default="15")
    sidebar_collapsed: Mapped[bool] = mapped_column(Boolean, server_default=false())
