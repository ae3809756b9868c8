"""What /openapi.json says every route can answer besides its success: the error shape
(``errors.ApiError.to_dict``) under each status the server, its guard or the library refuse with."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .guard import Limits


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="allow")  # a budget refusal adds its cost and budget

    kind: str = Field(description="bad_input, unauthorised, forbidden, not_found, ...")
    field: str = Field(description="the field (or header, path, token) refused")
    value: Any = Field(description="the value refused, echoed short (never a token)")
    allowed: str = Field(description="what would have been accepted")
    message: str


class ErrorBody(BaseModel):
    error: ErrorDetail


# The guard (413, 408, 429) and the database (503) answer on any route; sign-in, rights,
# ids and state refuse on most. Listed alike for each so no answer is undescribed.
STATUSES = {
    400: "not a JSON document",
    401: "not signed in to this table (or access was revoked)",
    403: "signed in, but not allowed this",
    404: "no such table, member, character, roll or call",
    408: "the request was too slow to arrive",
    409: "the table's state does not allow it now",
    413: f"the request is too large: its body over {Limits().body_bytes} bytes (a text field's"
    " length in characters does not bound its bytes: escaped, a character may take 12)",
    422: "a field out of its type, range or choices",
    429: "too many requests (Retry-After says when to try again)",
    503: "the database is busy (Retry-After)",
}
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": why} for status, why in STATUSES.items()
}
