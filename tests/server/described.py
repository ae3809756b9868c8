"""The server's OpenAPI description, worked out once per test process (it takes a second or
two) for every module that reads it: an app that is never started, only described."""

from __future__ import annotations

from typing import Any

from d100.server.app import create_app

APP = create_app("sqlite://", migrate=False)
DESCRIBED: dict[str, Any] = APP.openapi()  # FastAPI keeps it on the app: APP.openapi() is this
