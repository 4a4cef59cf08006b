"""The X-Ambient-Note codec: round trips, the 2,048-byte cap and the malformed-value list."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime

import pytest

from ambient import pointer as codec
from ambient.pointer import MAX_HEADER_BYTES, Pointer, PointerError, Selection


def make(**overrides) -> Pointer:
    fields = {
        "path": "inbox/today.md",
        "view": "edit",
        "frame_id": "frame-1",
        "bytes": 42,
        "sha256": "0123456789abcdef",
        "flushed": True,
        "captured_at": "2026-11-29T20:46:45.123Z",
        "selection": Selection(anchor=3, head=7),
    }
    fields.update(overrides)
    return Pointer(**fields)


def wire(**overrides) -> dict:
    obj = {
        "v": 1,
        "path": "inbox/today.md",
        "view": "edit",
        "frameId": "frame-1",
        "selection": {"anchor": 3, "head": 7},
        "bytes": 42,
        "sha256": "0123456789abcdef",
        "flushed": True,
        "capturedAt": "2026-11-29T20:46:45.123Z",
    }
    obj.update(overrides)
    return {k: v for k, v in obj.items() if v is not _DROP}


_DROP = object()


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def header(obj: object) -> str:
    return b64(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def raw_json(value: str) -> str:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode("utf-8")


def test_round_trip():
    p = make()
    value = codec.encode(p)
    assert value is not None
    assert codec.decode(value) == p
    assert codec.decode(value.encode("ascii")) == p


def test_wire_names_and_compact_json():
    value = codec.encode(make())
    assert raw_json(value) == (
        '{"v":1,"path":"inbox/today.md","view":"edit","frameId":"frame-1",'
        '"selection":{"anchor":3,"head":7},"bytes":42,"sha256":"0123456789abcdef",'
        '"flushed":true,"capturedAt":"2026-11-29T20:46:45.123Z"}'
    )
    assert "=" not in value and "+" not in value and "/" not in value


def test_japanese_path_is_raw_utf8():
    p = make(path="メモ/議事録.md")
    value = codec.encode(p)
    text = raw_json(value)
    assert "メモ/議事録.md" in text
    assert "\\u" not in text
    assert codec.decode(value) == p


def test_selection_only_in_edit_view():
    value = codec.encode(make(view="preview"))
    assert "selection" not in raw_json(value)
    assert codec.decode(value).selection is None
    # A selection sent outside the edit view is dropped, not an error.
    got = codec.decode(header(wire(view="todo")))
    assert got is not None and got.selection is None


def test_selection_optional_in_edit_view():
    got = codec.decode(header(wire(selection=_DROP)))
    assert got is not None and got.selection is None
    assert codec.decode(header(wire(selection=None))).selection is None


def _value_of_length(n: int) -> str:
    """A valid header value of exactly `n` characters, grown through the path."""
    for extra in range(3000):
        segs = ["a" * 200] * (extra // 200) + ["b" * (extra % 200 or 1)]
        p = make(path="/".join(segs) + ".md")
        obj = p.to_wire()
        value = header(obj)
        if len(value) == n:
            return value
        if len(value) > n:
            break
    raise AssertionError("no value of that length")


def test_exactly_2048_bytes_accepted_2049_rejected():
    ok = _value_of_length(2048)
    assert len(ok.encode("ascii")) == MAX_HEADER_BYTES
    assert codec.decode(ok) is not None
    too_long = _value_of_length(2050)  # 2049 is not a base64 length; 2050 is the next
    assert codec.decode(too_long) is None
    assert codec.decode_with_reason(too_long)[1] == "longer than 2048 bytes"
    assert codec.decode(ok + "A") is None  # 2049 characters


def test_encode_returns_none_when_too_long():
    p = make(path="/".join(["x" * 250] * 8) + ".md")  # valid path, > 2048 once encoded
    assert codec.encode(p) is None


def test_encode_accepts_exactly_2048():
    value = _value_of_length(2048)
    p = codec.decode(value)
    assert codec.encode(p) == value


@pytest.mark.parametrize(
    "bad",
    [
        make(path="a\r\nX-Evil: 1"),
        make(path="a\nb"),
        make(path="../x"),
        make(path="/etc/passwd"),
        make(view="raw"),
        make(sha256="0123456789ABCDEF"),
        make(bytes=-1),
        make(bytes=True),
        make(frame_id=""),
        make(flushed=1),
        make(captured_at="2026-11-29T20:46:45Z"),
        make(selection=Selection(anchor=-1, head=0)),
    ],
)
def test_encode_refuses_bad_pointer(bad):
    with pytest.raises(PointerError):
        codec.encode(bad)
    with pytest.raises(ValueError):
        codec.encode(bad)


MALFORMED = {
    "bad base64": "!!!not-base64!!!",
    "padding": header(wire()) + "==",
    "standard alphabet": base64.b64encode(json.dumps(wire()).encode() + b"\xff\xfe").decode(),
    "whitespace": " " + header(wire()),
    "impossible length": "AAAAA",
    "empty": "",
    "not utf-8": b64(b"\xff\xfe{}"),
    "not json": b64(b"hello, world"),
    "json array": header([wire()]),
    "json string": header("x"),
    "json null": header(None),
    "missing v": header(wire(v=_DROP)),
    "missing path": header(wire(path=_DROP)),
    "missing view": header(wire(view=_DROP)),
    "missing frameId": header(wire(frameId=_DROP)),
    "missing bytes": header(wire(bytes=_DROP)),
    "missing sha256": header(wire(sha256=_DROP)),
    "missing flushed": header(wire(flushed=_DROP)),
    "missing capturedAt": header(wire(capturedAt=_DROP)),
    "v 2": header(wire(v=2)),
    "v true": header(wire(v=True)),
    "v 1.0": header(wire(v=1.0)),
    "v string": header(wire(v="1")),
    "path number": header(wire(path=7)),
    "path ../x": header(wire(path="../x")),
    "path /etc/passwd": header(wire(path="/etc/passwd")),
    "path a/../b": header(wire(path="a/../b")),
    "path backslash": header(wire(path="a\\b.md")),
    "path NUL": header(wire(path="a\x00b")),
    "path CR LF": header(wire(path="a\r\nb.md")),
    "path empty": header(wire(path="")),
    "unknown view": header(wire(view="raw")),
    "view upper": header(wire(view="EDIT")),
    "frameId number": header(wire(frameId=3)),
    "frameId empty": header(wire(frameId="")),
    "frameId huge": header(wire(frameId="f" * 300)),
    "bytes string": header(wire(bytes="42")),
    "bytes negative": header(wire(bytes=-1)),
    "bytes float": header(wire(bytes=4.5)),
    "bytes bool": header(wire(bytes=False)),
    "sha256 short": header(wire(sha256="0123")),
    "sha256 upper": header(wire(sha256="0123456789ABCDEF")),
    "sha256 full": header(wire(sha256="0" * 64)),
    "sha256 non-hex": header(wire(sha256="0123456789abcdeg")),
    "sha256 newline": header(wire(sha256="0123456789abcdef\n")),
    "flushed string": header(wire(flushed="true")),
    "flushed int": header(wire(flushed=1)),
    "capturedAt no ms": header(wire(capturedAt="2026-11-29T20:46:45Z")),
    "capturedAt offset": header(wire(capturedAt="2026-11-29T20:46:45.123+00:00")),
    "capturedAt garbage": header(wire(capturedAt="yesterday")),
    "capturedAt month 13": header(wire(capturedAt="2026-13-29T20:46:45.123Z")),
    "capturedAt number": header(wire(capturedAt=1700000000)),
    "selection list": header(wire(selection=[1, 2])),
    "selection negative": header(wire(selection={"anchor": -1, "head": 2})),
    "selection missing head": header(wire(selection={"anchor": 1})),
    "selection string": header(wire(selection={"anchor": "1", "head": 2})),
    "selection bool": header(wire(selection={"anchor": True, "head": 2})),
    "duplicate key": b64(b'{"v":1,"v":1}'),
    "NaN": b64(b'{"v":NaN}'),
    "too long": "A" * 2052,
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_values_are_no_pointer(name):
    value = MALFORMED[name]
    p, reason = codec.decode_with_reason(value)
    assert p is None
    assert reason
    # The reason names the rule, never the value.
    assert value not in reason or not value


def test_none_is_absent():
    assert codec.decode_with_reason(None) == (None, "absent")


def test_non_ascii_bytes_value():
    assert codec.decode("ｱ".encode()) is None
    assert codec.decode("ｱbc") is None


def test_non_canonical_base64_refused():
    value = header(wire())
    # Flip the unused low bits of the final character when there are any.
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    if len(value) % 4 in (2, 3):
        last = alphabet.index(value[-1])
        tweaked = value[:-1] + alphabet[last | 1]
        if tweaked != value:
            assert codec.decode(tweaked) is None


def test_unknown_fields_ignored_and_not_in_meta():
    got = codec.decode(header(wire(extra="secret", nested={"a": 1})))
    assert got is not None
    meta = got.to_meta()
    assert "extra" not in meta and "nested" not in meta
    assert set(meta) == {"v", "frameId", "selection", "bytes", "sha256", "flushed", "capturedAt"}


def test_meta_round_trip_through_columns():
    p = make(path="ノート.md")
    again = codec.from_columns(p.path, p.view, codec.meta_json(p))
    assert again == p
    assert "ノート" not in codec.meta_json(p)
    with pytest.raises(PointerError):
        codec.from_columns("a.md", "edit", "[]")
    with pytest.raises(PointerError):
        codec.from_columns("a.md", "edit", None)
    with pytest.raises(PointerError):
        codec.from_columns("../a.md", "edit", codec.meta_json(p))


def test_now_iso_and_sha256_prefix():
    stamp = codec.now_iso(datetime(2026, 11, 29, 20, 46, 45, 123456, tzinfo=UTC))
    assert stamp == "2026-11-29T20:46:45.123Z"
    assert codec.decode(header(wire(capturedAt=codec.now_iso()))) is not None
    assert codec.sha256_prefix(b"") == "e3b0c44298fc1c14"
    assert len(codec.sha256_prefix("日本語".encode())) == 16


def test_header_name_and_views():
    assert codec.HEADER_NAME == "X-Ambient-Note"
    assert codec.VIEWS == ("edit", "preview", "todo", "mindmap")


def test_pointer_module_imports_only_stdlib():
    import ast
    import sys

    with open(codec.__file__, encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            assert top in sys.stdlib_module_names or top in ("ambient", "__future__"), name
