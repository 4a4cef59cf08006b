"""The streamed turn's parser: events split across chunks, multi-line data, CRLF, UTF-8."""

from __future__ import annotations

import json

import pytest
from app.chat.stream_model import Event, SseParser, TurnStream


def feed_all(parser: SseParser, pieces) -> list[Event]:
    return [event for piece in pieces for event in parser.feed(piece)]


def test_an_event_split_across_chunks_arrives_once_whole():
    raw = b'event: delta\ndata: {"text": "Hel"}\n\n'
    events = feed_all(SseParser(), [raw[i : i + 3] for i in range(0, len(raw), 3)])
    assert events == [Event("delta", '{"text": "Hel"}')]


def test_multi_line_data_is_joined_with_newlines_and_comments_are_skipped():
    raw = b": keep-alive\nevent: done\ndata: line one\ndata:line two\n\n"
    assert SseParser().feed(raw) == [Event("done", "line one\nline two")]


@pytest.mark.parametrize("end", ["\r\n", "\r", "\n"])
def test_every_line_ending_works_even_split_between_cr_and_lf(end):
    raw = f"event: a{end}data: 1{end}{end}data: 2{end}{end}".encode()
    for cut in range(len(raw)):
        assert feed_all(SseParser(), [raw[:cut], raw[cut:]]) == [
            Event("a", "1"),
            Event("message", "2"),
        ], cut


def test_a_character_split_between_chunks_is_decoded_whole():
    raw = 'event: delta\ndata: {"text": "旅行"}\n\n'.encode()
    cut = raw.index("旅".encode()) + 1
    events = feed_all(SseParser(), [raw[:cut], raw[cut:]])
    assert json.loads(events[0].data) == {"text": "旅行"}


def test_an_unfinished_event_is_not_delivered():
    parser = SseParser()
    assert parser.feed(b"event: delta\ndata: {}\n") == []
    assert parser.close() == []


def sse(kind: str, data: dict) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


def test_a_turn_gathers_deltas_tools_and_done():
    stream = TurnStream()
    tool = {"tool": "read_active_note", "arguments": {}, "result": {"ok": True}}
    done = {"conversationId": "c", "reply": "Pack it.", "toolCalls": [tool]}
    raw = sse("tool", tool) + sse("delta", {"text": "Pack "}) + sse("delta", {"text": "it."})
    seen = [kind for kind, _ in stream.feed(raw[:40])] + [kind for kind, _ in stream.feed(raw[40:])]
    assert seen == ["tool", "delta", "delta"] and stream.text == "Pack it."
    assert stream.tools == [tool]
    assert stream.feed(sse("done", done)) == [("done", done)]
    assert stream.result() == done


def test_a_stream_that_breaks_off_before_done_is_an_error_and_bad_events_are_skipped():
    stream = TurnStream()
    assert stream.feed(b"event: delta\ndata: not json\n\n" + sse("delta", {"text": "Hi"})) == [
        ("delta", {"text": "Hi"})
    ]
    with pytest.raises(ValueError, match="before it was complete"):
        stream.result()
