"""The one exception the library raises for bad input (G5)."""

from __future__ import annotations

from typing import Any


class D100Error(ValueError):
    """Bad or contradictory input, with the field, the value and what is allowed.

    ``field`` is a dotted path into the request (``actor.assist.dice``, ``assisters[1].skill``);
    ``allowed`` says in words what the field accepts. The CLI maps this to exit status 2 and the
    HTTP API to status 422; both show ``message``.
    """

    def __init__(self, field: str, value: Any, allowed: str, reason: str | None = None) -> None:
        self.field = field
        self.value = value
        self.allowed = allowed
        self.reason = reason
        shown = _show(value)
        text = f"{field}: {reason}" if reason else f"{field}: got {shown}"
        self.message = f"{text}; allowed: {allowed}" if allowed else text
        super().__init__(self.message)

    def to_dict(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "value": self.value if _jsonable(self.value) else repr(self.value),
            "allowed": self.allowed,
            "message": self.message,
        }


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def _jsonable(value: Any) -> bool:
    if value is None or isinstance(value, str | int | float | bool):
        return True
    if isinstance(value, list | tuple):
        return all(_jsonable(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _jsonable(v) for k, v in value.items())
    return False


class TooMuchWork(D100Error):
    """An exact computation whose cost, known before it runs, is over the budget: ``field``
    names what makes it dear."""

    def __init__(self, field: str, cost: int, budget: int) -> None:
        super().__init__(
            field,
            cost,
            f"requests that try at most {budget:,} die faces",
            f"too much work: about {cost:,} die faces to enumerate exactly",
        )
        self.cost = cost
        self.budget = budget
