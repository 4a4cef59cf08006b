"""A streamed turn read piece by piece: server-sent events parsed, deltas and tools gathered."""

from __future__ import annotations

import codecs
import json
from dataclasses import dataclass, field

STREAM_TYPE = "text/event-stream"


@dataclass(frozen=True)
class Event:
    """One server-sent event: its name ("message" when unnamed) and its data lines joined."""

    name: str
    data: str


class SseParser:
    """Incremental text/event-stream parser: feed bytes as they come, get whole events.

    Bytes split inside a UTF-8 character, lines split across chunks, CRLF / CR / LF line ends
    (a CR at a chunk's end may be half of a CRLF) and multi-line `data` are all handled; the
    per-chunk work is proportional to the chunk.
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial = ""  # the unfinished last line
        self._cr = False  # the previous chunk ended with CR: a LF now is part of it
        self._name = ""
        self._data: list[str] = []

    def feed(self, chunk: bytes | str) -> list[Event]:
        text = self._decoder.decode(chunk) if isinstance(chunk, bytes) else chunk
        if not text:  # e.g. half a character: nothing changes
            return []
        if self._cr and text.startswith("\n"):
            text = text[1:]
        self._cr = text.endswith("\r")
        lines = (self._partial + text).replace("\r\n", "\n").replace("\r", "\n").split("\n")
        self._partial = lines.pop()
        events: list[Event] = []
        for line in lines:
            self._line(line, events)
        return events

    def close(self) -> list[Event]:
        """The stream ended: an event not closed by a blank line is dropped, as browsers do."""
        self.feed(self._decoder.decode(b"", final=True))
        self._partial, self._name, self._data = "", "", []
        return []

    def _line(self, line: str, events: list[Event]) -> None:
        if not line:
            if self._data:
                events.append(Event(self._name or "message", "\n".join(self._data)))
            self._name, self._data = "", []
            return
        if line.startswith(":"):  # a comment (keep-alive)
            return
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            self._name = value
        elif name == "data":
            self._data.append(value)


@dataclass
class TurnStream:
    """The events of one streamed turn (SPEC §4 form in `done`), gathered for the chat."""

    text: str = ""
    tools: list[dict] = field(default_factory=list)
    done: dict | None = None
    _parser: SseParser = field(default_factory=SseParser)

    def feed(self, chunk: bytes | str) -> list[tuple[str, dict]]:
        """The chunk's events as (kind, data): "delta" ({text}), "tool" (a call), "done"."""
        out: list[tuple[str, dict]] = []
        for event in self._parser.feed(chunk):
            try:
                data = json.loads(event.data)
            except ValueError:
                continue  # not ours; an unreadable event is skipped, not fatal
            if not isinstance(data, dict):
                continue
            if event.name == "delta" and isinstance(data.get("text"), str):
                self.text += data["text"]
            elif event.name == "tool":
                self.tools.append(data)
            elif event.name == "done":
                self.done = data
            else:
                continue
            out.append((event.name, data))
        return out

    def result(self) -> dict:
        """The turn's JSON form: `done`'s; without one the stream broke off (ValueError)."""
        self._parser.close()
        if self.done is None:
            raise ValueError("The reply stopped arriving before it was complete.")
        return self.done
