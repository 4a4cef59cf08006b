"""Display preferences (issue 34), pure: their values, defaults, limits and cached copy."""

from __future__ import annotations

import json

PREFERENCES_URL = "/api/account/preferences"
# The copy web/static/prefetch.js applies before Python starts (and in every pop-out).
CACHE_KEY = "ana-preferences"
THEMES = (("system", "Same as the device"), ("light", "Light"), ("dark", "Dark"))
FONT_MIN, FONT_MAX, FONT_DEFAULT = 12, 24, 15
DEFAULTS: dict = {"theme": "system", "fontSize": FONT_DEFAULT, "sidebarCollapsed": False}


def font_sizes() -> list[int]:
    """The font sizes the dialog offers, smallest first."""
    return list(range(FONT_MIN, FONT_MAX + 1))


def normalise(data: object) -> dict:
    """Valid preferences from any answer or cached copy: each bad or missing value defaults."""
    given = data if isinstance(data, dict) else {}
    theme = given.get("theme")
    size = given.get("fontSize")
    collapsed = given.get("sidebarCollapsed")
    return {
        "theme": theme if theme in {t for t, _ in THEMES} else DEFAULTS["theme"],
        "fontSize": size
        if isinstance(size, int) and not isinstance(size, bool) and FONT_MIN <= size <= FONT_MAX
        else FONT_DEFAULT,
        "sidebarCollapsed": collapsed if isinstance(collapsed, bool) else False,
    }


def changed(prefs: dict, key: str, value: object) -> dict:
    """`prefs` with one value changed; a value the dialog could not have sent keeps the old."""
    if key == "fontSize" and isinstance(value, str):
        value = int(value) if value.isdigit() else None
    candidate = normalise({**prefs, key: value})
    return candidate if candidate[key] == value else dict(prefs)


def from_cache(text: str | None) -> dict:
    """The cached copy (or the defaults, when there is none or it is damaged)."""
    try:
        return normalise(json.loads(text or ""))
    except ValueError:
        return dict(DEFAULTS)


def to_cache(prefs: dict) -> str:
    return json.dumps(normalise(prefs), separators=(",", ":"), sort_keys=True)


def sidebar_label(collapsed: bool) -> str:
    """The sidebar toggle's accessible name: what pressing it does."""
    return "Show the note list" if collapsed else "Hide the note list"
