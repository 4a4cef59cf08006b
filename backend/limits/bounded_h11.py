"""uvicorn's h11 protocol with deadlines, so a half-sent request cannot hold a connection open.

uvicorn only times out idle keep-alive connections; a client that opens a connection and
sends part of a header section, or part of a body, is waited for forever. This subclass
closes such a connection: the header section must be complete within `header_timeout`
seconds of the connection opening (or of the previous response), and a body must keep
arriving, at most `body_timeout` seconds between two pieces. The 16 KiB header cap itself is
h11's own (`h11_max_incomplete_event_size`), set in backend.cli.
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_HEADER_BYTES = 16 * 1024


class BoundedH11Protocol(H11Protocol):
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    _deadline: asyncio.TimerHandle | None = None
    _waiting_for: str | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm("header", self.header_timeout)

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE and self._header_too_large(data):
            self._refuse_header()
            return
        super().data_received(data)
        self._follow()

    def _header_too_large(self, data: bytes) -> bool:
        """Whether the header section being received passes MAX_HEADER_BYTES.

        h11's own cap only applies while the section is incomplete, so a larger one that
        arrives in a single read would pass; this counts every header section.
        """
        pending = self.conn.trailing_data[0]
        if len(pending) + len(data) <= MAX_HEADER_BYTES:
            return False
        head = pending + data[: MAX_HEADER_BYTES + 4]
        ends = [i for i in (head.find(b"\r\n\r\n"), head.find(b"\n\n")) if i >= 0]
        return not ends or min(ends) > MAX_HEADER_BYTES

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a malformed request, with `nosniff` like every response."""
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"x-content-type-options", b"nosniff"),
            (b"connection", b"close"),
        ]
        self.transport.write(self.conn.send(h11.Response(status_code=400, headers=headers)))
        self.transport.write(self.conn.send(h11.Data(data=msg.encode("ascii"))))
        self.transport.write(self.conn.send(h11.EndOfMessage()))
        self._disarm()
        self.transport.close()

    def _refuse_header(self) -> None:
        kib = MAX_HEADER_BYTES // 1024
        body = f"The request header section is larger than {kib} KiB.".encode()
        self.logger.info("Refused a request whose header section is over %d KiB.", kib)
        self.transport.write(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
            b"content-type: text/plain; charset=utf-8\r\nx-content-type-options: nosniff\r\n"
            b"connection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        )
        self._disarm()
        self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _follow(self) -> None:
        """Arm or clear the deadline for what the peer still owes us."""
        if self.transport.is_closing():
            self._disarm()
            return
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            # Restarted per piece while the app may still want the body; once the response
            # is out (say a 401 to a PUT) the rest is unwanted: due once, not per piece.
            answered = self.conn.our_state in (h11.DONE, h11.MUST_CLOSE)
            self._arm("body", self.body_timeout, restart=not answered)
        elif state is h11.IDLE and self.conn.trailing_data[0]:
            if self._waiting_for != "header":  # a new request began: its headers are due
                self._arm("header", self.header_timeout)
        else:
            # Request complete (the app is working), or idle between requests, where
            # uvicorn's keep-alive timeout applies.
            self._disarm()

    def _arm(self, waiting_for: str, seconds: float, *, restart: bool = False) -> None:
        if self._waiting_for == waiting_for and not restart:
            return
        self._disarm()
        self._waiting_for = waiting_for
        self._deadline = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = None
        self._waiting_for = None

    def _expired(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.logger.info("Closed a connection whose request did not arrive in time.")
            self.transport.close()


def bounded_h11(header_timeout: float, body_timeout: float) -> type[BoundedH11Protocol]:
    """The protocol class uvicorn is given (`http=`), with these deadlines."""
    return type(
        "BoundedH11Protocol",
        (BoundedH11Protocol,),
        {"header_timeout": header_timeout, "body_timeout": body_timeout},
    )
