"""A small Server-Sent Events reader over httpx, for the live-log tests."""

from __future__ import annotations

import json
from typing import Any

import httpx

from .tablehelp import bearer


class Stream:
    def __init__(
        self, base: str, table_id: str, token: str, last_id: int | None = None, timeout: float = 10
    ) -> None:
        headers = bearer(token)
        if last_id is not None:
            headers["last-event-id"] = str(last_id)
        self.client = httpx.Client(timeout=httpx.Timeout(timeout))
        self._cm = self.client.stream(
            "GET", f"{base}/api/tables/{table_id}/events/stream", headers=headers
        )
        self.response = self._cm.__enter__()
        self._lines = self.response.iter_lines()

    def next(self) -> tuple[str, int | None, dict[str, Any]]:
        """The next event: its type ("message" unless named), id and data."""
        kind, seq, data = "message", None, ""
        for line in self._lines:
            if line == "":
                if data:
                    return kind, seq, json.loads(data)
                kind, seq, data = "message", None, ""
            elif line.startswith("id: "):
                seq = int(line[4:])
            elif line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                data += line[6:]
        raise EOFError("stream ended")

    def close(self) -> None:
        self._cm.__exit__(None, None, None)
        self.client.close()

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
