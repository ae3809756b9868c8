"""uvicorn's HTTP/1.1 protocol with a deadline on a request's head. uvicorn times out an idle
keep-alive connection, and the guard a body that trickles in, but nothing a client sending
its request line and headers a byte every few seconds: each such connection stays open for
good, and a few hundred of them starve the server of sockets (slowloris). A head the HTTP
parser refuses is answered in the JSON error shape too."""

from __future__ import annotations

import asyncio
import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .errors import ApiError


class HeaderDeadline(H11Protocol):
    """Closes the connection when a request's head is not all in within ``header_seconds``,
    counted from the connection's opening and, after a response, from the next request's
    first byte (till then uvicorn's keep-alive timeout holds). A client that sent part of a
    head is told why (a ``408``); one that sent nothing is just closed."""

    header_seconds: float  # set by ``with_header_deadline``
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is h11.IDLE:  # a head begun, not yet complete
            if self._head_timer is None:
                self._arm()
        else:  # the head is in: from here the body is the guard's to time
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._head_timer = self.loop.call_later(self.header_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _too_slow(self) -> None:
        self._head_timer = None
        if self.transport.is_closing():
            return
        if self.conn.trailing_data[0]:
            slow = ApiError(
                408,
                "headers",
                None,
                f"the request line and headers within {self.header_seconds:g} s",
                "request headers too slow",
            )
            self.transport.write(_refusal(slow, "Request Timeout"))
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        """A head the HTTP parser refuses (malformed, or headers past its size limit) gets the
        JSON error shape every other refusal has, not uvicorn's plain text."""
        bad = ApiError(
            400,
            "headers",
            None,
            "a well-formed HTTP request line and headers, at most 16 KB in all",  # h11's cap
            f"not a request this server can read: {msg}",
        )
        self.transport.write(_refusal(bad, "Bad Request"))
        self.transport.close()


def with_header_deadline(seconds: float) -> type[HeaderDeadline]:
    """The protocol class for ``uvicorn.run(http=...)``, heads due within ``seconds``."""

    class Deadline(HeaderDeadline):
        header_seconds = seconds

    return Deadline


def _refusal(error: ApiError, reason: str) -> bytes:
    body = json.dumps(error.to_dict()).encode()
    head = (
        f"HTTP/1.1 {error.status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body
