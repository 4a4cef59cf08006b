"""The X-Ambient-Note codec (SPEC §3): encode in the page, decode at the ingress; stdlib only."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeGuard

from ambient.contract import HEADER_NAME, VIEWS  # noqa: F401 - the codec's header, re-exported
from ambient.paths import PathError, check_path

MAX_HEADER_BYTES = 2048
VERSION = 1
MAX_FRAME_ID_CHARS = 256
# Positions and byte counts beyond this are not meaningful for a note and cannot survive a
# round trip through a JavaScript number exactly.
MAX_SAFE_INT = 2**53 - 1

_B64URL = re.compile(r"[A-Za-z0-9_-]*")
_SHA256_PREFIX = re.compile(r"[0-9a-f]{16}")
_CAPTURED_AT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")


class PointerError(ValueError):
    """A pointer that breaks the rules; the message is a reason that never echoes a value."""


@dataclass(frozen=True)
class Selection:
    """CodeMirror main selection: document positions (UTF-16 code units), anchor and head."""

    anchor: int
    head: int


@dataclass(frozen=True)
class Pointer:
    """What the page tells the ingress about the note on screen; never the note text."""

    path: str
    view: str
    frame_id: str
    bytes: int
    sha256: str
    flushed: bool
    captured_at: str
    selection: Selection | None = None

    def to_wire(self) -> dict[str, Any]:
        """The JSON object sent on the wire (field order fixed, selection only in edit view)."""
        wire: dict[str, Any] = {
            "v": VERSION,
            "path": self.path,
            "view": self.view,
            "frameId": self.frame_id,
        }
        if self.selection is not None and self.view == "edit":
            wire["selection"] = {"anchor": self.selection.anchor, "head": self.selection.head}
        wire.update(
            bytes=self.bytes, sha256=self.sha256, flushed=self.flushed, capturedAt=self.captured_at
        )
        return wire

    def to_meta(self) -> dict[str, Any]:
        """The fields stored in `ambient_meta`: everything except path and view."""
        wire = self.to_wire()
        del wire["path"], wire["view"]
        return wire


def encode(pointer: Pointer) -> str | None:
    """Return the header value, or None when it would pass MAX_HEADER_BYTES (never truncated).

    Raises PointerError (a ValueError) when the pointer itself breaks the rules, so the page
    can never send a value the ingress would refuse.
    """
    wire = pointer.to_wire()
    _from_wire(wire)  # the same rules as decode
    raw = json.dumps(wire, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    value = base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")
    if len(value) > MAX_HEADER_BYTES:
        return None
    return value


def decode(value: str | bytes | None) -> Pointer | None:
    """Return the pointer in a header value, or None for an absent or bad value."""
    return decode_with_reason(value)[0]


def decode_with_reason(value: str | bytes | None) -> tuple[Pointer | None, str | None]:
    """Return (pointer, None) or (None, reason); the reason is safe to log, never the value."""
    if value is None:
        return None, "absent"
    try:
        return _decode(value), None
    except PointerError as exc:
        return None, str(exc)


def from_columns(path: object, view: object, meta: object) -> Pointer:
    """Rebuild a pointer from the delivery row's three ambient columns (meta as JSON text)."""
    if not isinstance(meta, str):
        raise PointerError("ambient_meta is not JSON text")
    try:
        fields = json.loads(meta)
    except ValueError:
        raise PointerError("ambient_meta is not JSON") from None
    if not isinstance(fields, dict):
        raise PointerError("ambient_meta is not a JSON object")
    return _from_wire({**fields, "path": path, "view": view})


def meta_json(pointer: Pointer) -> str:
    """The compact JSON text stored in `ambient_meta`."""
    return json.dumps(pointer.to_meta(), separators=(",", ":"), ensure_ascii=False)


def now_iso(now: datetime | None = None) -> str:
    """A capturedAt value: ISO 8601 UTC with milliseconds and Z."""
    now = (now or datetime.now(UTC)).astimezone(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def sha256_prefix(data: bytes) -> str:
    """The first 16 lowercase hex characters of SHA-256 over `data`."""
    return hashlib.sha256(data).hexdigest()[:16]


def _decode(value: str | bytes) -> Pointer:
    # Length first: an oversized value is refused before any decoding work.
    if len(value) > MAX_HEADER_BYTES:
        raise PointerError(f"longer than {MAX_HEADER_BYTES} bytes")
    if isinstance(value, bytes):
        try:
            value = value.decode("ascii")
        except UnicodeDecodeError:
            raise PointerError("not base64url") from None
    if not isinstance(value, str):
        raise PointerError("not a string")
    if not value:
        raise PointerError("empty")
    # Unpadded base64url only: '=' padding, '+', '/', whitespace and anything else refused.
    if not _B64URL.fullmatch(value) or len(value) % 4 == 1:
        raise PointerError("not base64url")
    padded = value + "=" * (-len(value) % 4)
    try:
        raw = base64.b64decode(padded, altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise PointerError("not base64url") from None
    # Refuse non-canonical encodings (stray bits in the last character): one value, one meaning.
    if base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii") != value:
        raise PointerError("not canonical base64url")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise PointerError("not UTF-8") from None
    try:
        obj = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants)
    except PointerError:
        raise
    except (ValueError, RecursionError):
        raise PointerError("not JSON") from None
    if not isinstance(obj, dict):
        raise PointerError("not a JSON object")
    return _from_wire(obj)


def _from_wire(obj: dict[str, Any]) -> Pointer:
    """Validate a wire object and build the Pointer; unknown fields are ignored."""
    for name in ("v", "path", "view", "frameId", "bytes", "sha256", "flushed", "capturedAt"):
        if name not in obj:
            raise PointerError(f"missing field {name}")
    if not _is_int(obj["v"]) or obj["v"] != VERSION:
        raise PointerError("unsupported v")
    try:
        path = check_path(obj["path"])
    except PathError:
        raise PointerError("bad path") from None
    view = obj["view"]
    if not isinstance(view, str) or view not in VIEWS:
        raise PointerError("unknown view")
    frame_id = obj["frameId"]
    if not isinstance(frame_id, str) or not frame_id or len(frame_id) > MAX_FRAME_ID_CHARS:
        raise PointerError("bad frameId")
    if any(ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 for ch in frame_id):
        raise PointerError("bad frameId")
    if not _is_count(obj["bytes"]):
        raise PointerError("bad bytes")
    sha = obj["sha256"]
    if not isinstance(sha, str) or not _SHA256_PREFIX.fullmatch(sha):
        raise PointerError("bad sha256")
    if not isinstance(obj["flushed"], bool):
        raise PointerError("bad flushed")
    captured_at = obj["capturedAt"]
    if not isinstance(captured_at, str) or not _is_utc_millis(captured_at):
        raise PointerError("bad capturedAt")
    selection = None
    raw_sel = obj.get("selection")
    if raw_sel is not None:
        if not isinstance(raw_sel, dict):
            raise PointerError("bad selection")
        anchor, head = raw_sel.get("anchor"), raw_sel.get("head")
        if not _is_count(anchor) or not _is_count(head):
            raise PointerError("bad selection")
        # A selection outside the edit view carries no meaning (SPEC §3): dropped, like an
        # unknown field, rather than failing an otherwise good pointer.
        if view == "edit":
            selection = Selection(anchor=anchor, head=head)
    return Pointer(
        path=path,
        view=view,
        frame_id=frame_id,
        bytes=obj["bytes"],
        sha256=sha,
        flushed=obj["flushed"],
        captured_at=captured_at,
        selection=selection,
    )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_SAFE_INT


def _is_utc_millis(value: str) -> bool:
    if not _CAPTURED_AT.fullmatch(value):
        return False
    try:
        datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ")
    except ValueError:  # e.g. month 13 or 30 February
        return False
    return True


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    obj: dict[str, object] = {}
    for key, val in pairs:
        if key in obj:
            raise PointerError("duplicate field")
        obj[key] = val
    return obj


def _no_constants(_name: str) -> object:
    raise PointerError("not JSON")
