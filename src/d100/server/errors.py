"""Every refusal is a JSON 4xx naming the field, the value and what is allowed, the shape the
library's D100Error already has (422 for bad input)."""

from __future__ import annotations

from typing import Any

from ..errors import D100Error, _jsonable


class ApiError(Exception):
    def __init__(self, status: int, field: str, value: Any, allowed: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.field = field
        self.value = value
        self.allowed = allowed
        self.message = message

    def to_dict(self) -> dict[str, Any]:
        value = self.value if _jsonable(self.value) else repr(self.value)
        return {
            "error": {
                "field": self.field,
                "value": value,
                "allowed": self.allowed,
                "message": self.message,
            }
        }


def invalid(err: D100Error, prefix: str = "") -> ApiError:
    """A library error as HTTP 422; ``prefix`` places the field inside the HTTP body."""
    if not prefix or err.field == prefix or err.field.startswith(prefix + "."):
        return ApiError(422, err.field, err.value, err.allowed, err.message)
    field, message = f"{prefix}.{err.field}", f"{prefix}.{err.message}"
    return ApiError(422, field, err.value, err.allowed, message)


def renamed(err: D100Error, field: str) -> ApiError:
    """A library error about a value the API body names differently (a skill by name)."""
    return ApiError(422, field, err.value, err.allowed, f"{field}: {err.reason or err.message}")


def bad(field: str, value: Any, allowed: str, reason: str) -> ApiError:
    return ApiError(422, field, value, allowed, f"{field}: {reason}; allowed: {allowed}")


def not_found(field: str, value: Any, what: str) -> ApiError:
    return ApiError(404, field, value, f"the id of a {what} at this table", f"no such {what}")


def unauthorised() -> ApiError:
    # The token itself is never echoed back: errors end up in logs.
    return ApiError(
        401,
        "token",
        None,
        "a current GM or player token for this table",
        "not signed in to this table (or access was revoked)",
    )


def forbidden(what: str, allowed: str) -> ApiError:
    return ApiError(403, "token", None, allowed, f"not allowed: {what}")


def conflict(field: str, value: Any, allowed: str, reason: str) -> ApiError:
    return ApiError(409, field, value, allowed, f"{field}: {reason}")
