"""URLs, errors and wording for the document API and pop-out windows (pure, no browser)."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, quote, urlencode

from ambient.contract import FRAME_KINDS, VIEWS


class ApiError(Exception):
    """The server answered with an error status; `detail` is its sentence for the user."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail

    @classmethod
    def from_response(cls, status: int, body: str) -> ApiError:
        detail = ""
        try:
            data = json.loads(body)
            if isinstance(data, dict) and isinstance(data.get("detail"), str):
                detail = data["detail"]
        except ValueError:
            pass
        return cls(status, detail or _DEFAULTS.get(status, f"The server answered {status}."))


class OfflineError(Exception):
    """The server could not be reached (network error, timeout or a 5xx from a proxy)."""


_DEFAULTS = {
    401: "You are not signed in.",
    403: "You do not have access to that workspace.",
    404: "That note does not exist (any more).",
    409: "Someone else changed this note meanwhile.",
    412: "A note with that name already exists.",
    413: "The note is too large to save (the limit is 1 MiB).",
}


def describe(exc: BaseException) -> str:
    """A sentence for the user, never a traceback."""
    if isinstance(exc, ApiError):
        return exc.detail
    if isinstance(exc, OfflineError):
        return "The server can't be reached right now. Please try again in a moment."
    if isinstance(exc, ValueError) and exc.args and isinstance(exc.args[0], str):
        return exc.args[0]
    return f"Something went wrong ({type(exc).__name__}). Please try again."


def workspace_url(ws: str) -> str:
    return f"/api/workspaces/{quote(ws, safe='')}"


def doc_url(ws: str, path: str, action: str = "") -> str:
    """`/api/workspaces/{ws}/documents/{path}` with every segment percent-encoded."""
    url = f"{workspace_url(ws)}/documents/{quote(path, safe='/')}"
    return f"{url}/{action}" if action else url


def parse_etag(value: str | None) -> str | None:
    """`"12"` or `W/"12"` → `12`."""
    if not value:
        return None
    value = value.strip()
    value = value.removeprefix("W/")
    return value.strip('"') or None


def popout_url(
    kind: str,
    frame_id: str,
    ws: str | None,
    path: str = "",
    view: str = "",
    extra: dict[str, str] | None = None,
) -> str:
    """The address of a popped-out frame's window: the same page with the frame in the query."""
    query = {"popout": kind, "frame": frame_id, "ws": ws or ""}
    if path:
        query["path"] = path
    if view:
        query["view"] = view
    query.update(extra or {})
    return "/?" + urlencode(query, quote_via=quote)


def parse_query(search: str) -> dict[str, str]:
    """`?a=1&b=2` → {"a": "1", "b": "2"} (first value wins)."""
    return {key: values[0] for key, values in parse_qs(search.lstrip("?")).items() if values}


def popout_request(query: dict[str, str]) -> dict[str, str] | None:
    """The frame a pop-out window should show, or None for the main window / a bad query."""
    kind = query.get("popout", "")
    if kind not in FRAME_KINDS:
        return None
    view = query.get("view", "")
    return {
        "kind": kind,
        "frame": query.get("frame", "")[:64],
        "ws": query.get("ws", ""),
        "path": query.get("path", ""),
        "view": view if view in VIEWS else "edit",
    }


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size / (1024 * 1024):.1f} MiB"


def short_time(iso: str) -> str:
    """`2024-05-01T12:34:56.789Z` → `2024-05-01 12:34` (UTC, as the server gives it)."""
    if len(iso) >= 16 and iso[10] in "T ":
        return f"{iso[:10]} {iso[11:16]}"
    return iso
