"""Every refusal is a JSON 4xx naming its kind, the field, the value and what is allowed: a
library error is the very ``D100Error`` mapped to a status (422), its ``to_dict()`` the body."""

from __future__ import annotations

from typing import Any

from ..errors import D100Error, echoed

# The kind of a refusal the server makes itself, by status (a library error says its own).
KINDS = {
    400: "bad_input",
    401: "unauthorised",
    403: "forbidden",
    404: "not_found",
    408: "too_slow",
    409: "conflict",
    413: "too_large",
    422: "bad_input",
    429: "rate_limited",
    500: "internal",
    503: "unavailable",  # a beacon round the server could not fetch (rounds.py)
}
RETRY_LATER = (429, 503)  # refusals of a moment: each says when to try again (Retry-After)


class ApiError(Exception):
    def __init__(
        self,
        status: int,
        field: str,
        value: Any,
        allowed: str,
        message: str,
        headers: dict[str, str] | None = None,  # Retry-After, say
    ) -> None:
        super().__init__(message)
        if status in RETRY_LATER and not any(k.lower() == "retry-after" for k in headers or {}):
            headers = {**(headers or {}), "retry-after": "1"}  # when to, on every such answer
        self.headers = headers
        self.status = status
        self.field = field
        self.value = value
        self.allowed = allowed
        self.message = message
        self.error: D100Error | None = None  # the library's own error, when it is one

    @classmethod
    def of(cls, err: D100Error, status: int = 422) -> ApiError:
        """A library error as it is, mapped to a status."""
        out = cls(status, err.field, err.value, err.allowed, err.message)
        out.error = err
        return out

    def to_dict(self) -> dict[str, Any]:
        if self.error is not None:
            return {"error": self.error.to_dict()}
        return {
            "error": {
                "kind": KINDS.get(self.status, "error"),
                "field": self.field,
                "value": echoed(self.value),
                "allowed": self.allowed,
                "message": self.message,
            }
        }


def invalid(err: D100Error, prefix: str = "") -> ApiError:
    """A library error as HTTP 422; ``prefix`` places the field inside the HTTP body."""
    if not prefix or err.field == prefix or err.field.startswith(prefix + "."):
        return ApiError.of(err)
    return ApiError.of(err.at(f"{prefix}.{err.field}"))


def renamed(err: D100Error, field: str) -> ApiError:
    """A library error about a value the API body names differently (a skill by name)."""
    return ApiError.of(err.at(field))


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


def wrong_method(path: str) -> ApiError:
    return ApiError(405, "path", path, "a path and method listed at /docs", "Method Not Allowed")


def database_busy() -> ApiError:
    """The database unreachable, restarting, locked past the busy timeout, out of connections
    for this process or refusing more clients. Rolled back as a rule; a COMMIT lost on its way
    back may have landed, so a roll is retried with its Idempotency-Key."""
    return ApiError(
        503,
        "database",
        None,
        "a retry in a moment (a roll with its Idempotency-Key)",
        "the database is busy",
    )


def forbidden(what: str, allowed: str) -> ApiError:
    return ApiError(403, "token", None, allowed, f"not allowed: {what}")


def conflict(field: str, value: Any, allowed: str, reason: str) -> ApiError:
    return ApiError(409, field, value, allowed, f"{field}: {reason}")
