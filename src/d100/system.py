"""The protocol every rule system implements, and the registry that names them."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from .declarations import Declaration
from .errors import D100Error
from .fields import Field
from .machine import Dice, Given, Machine, run
from .memo import clear_all
from .results import CheckResult, ContestResult

S = TypeVar("S", bound=Hashable)
R = TypeVar("R", CheckResult, ContestResult)
Record = Mapping[str, list[int]]


@dataclass(frozen=True, kw_only=True)
class Plan(Generic[S, R]):
    """A request made ready: the machine that resolves it, the dice the caller gave, what a
    final state means (a level or a winner) and how to write it up as a result.

    ``cost`` is the system's bound on the work of enumerating the machine exactly, in die faces
    tried, known before anything runs; ``dear`` names the request field that drives it."""

    machine: Machine[S]
    given: Mapping[str, Given]
    outcome: Callable[[S], str]
    build: Callable[[S, Record], R]
    cost: int
    dear: str = "request"
    luck_spent: Callable[[S], int] | None = None  # Luck points a final state used


def replay(machine: Machine[S], record: Record) -> S:
    """Run a machine again over dice already drawn: the way nested results are rebuilt."""
    return run(machine, Dice(None, {k: Given(tuple(v)) for k, v in record.items()}), strict=False)


class System(Protocol):
    name: str
    title: str
    levels: tuple[str, ...]  # best first
    success_levels: frozenset[str]
    check_fields: tuple[Field, ...]
    contest_fields: tuple[Field, ...]
    declares: Declaration

    def parse_check(self, data: Mapping[str, Any]) -> Any: ...

    def parse_contest(self, data: Mapping[str, Any]) -> Any: ...

    def check_plan(self, request: Any) -> Plan[Any, CheckResult]: ...

    def contest_plan(self, request: Any) -> Plan[Any, ContestResult]: ...

    def meaning(self, level: str) -> str: ...


class Registry:
    """Rule systems by name; registering a name twice is a mistake, not an override."""

    def __init__(self) -> None:
        self._systems: dict[str, System] = {}

    def register(self, system: System) -> System:
        if system.name in self._systems:
            raise ValueError(f"a rule system named {system.name!r} is already registered")
        self._systems[system.name] = system
        return system

    def unregister(self, name: str) -> None:
        """Forget a system (a test's made-up one, say); the odds memos go with it."""
        del self._systems[name]
        clear_all()

    def get(self, name: Any, field: str = "system") -> System:
        if isinstance(name, str) and name in self._systems:
            return self._systems[name]
        raise D100Error(field, name, "one of " + ", ".join(self._systems), "unknown system")

    def names(self) -> tuple[str, ...]:
        return tuple(self._systems)

    def __iter__(self) -> Iterator[System]:
        return iter(self._systems.values())

    def __contains__(self, name: object) -> bool:
        return name in self._systems
