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
    check_fields: tuple[Field, ...]
    contest_fields: tuple[Field, ...]
    declares: Declaration

    @property
    def levels(self) -> tuple[str, ...]: ...  # best first

    @property
    def success_levels(self) -> frozenset[str]: ...

    def parse_check(self, data: Mapping[str, Any]) -> Any: ...

    def parse_contest(self, data: Mapping[str, Any]) -> Any: ...

    def check_plan(self, request: Any) -> Plan[Any, CheckResult]: ...

    def contest_plan(self, request: Any) -> Plan[Any, ContestResult]: ...

    def meaning(self, level: str) -> str: ...


class Declared:
    """A system's levels, its successes and what each means, read off its declaration's
    level records (set once the module has built them): nothing restated beside them."""

    declares: Declaration
    check_rules: tuple[Mapping[str, Any], ...] = ()  # none but each field's own
    contest_rules: tuple[Mapping[str, Any], ...] = ()

    @property
    def levels(self) -> tuple[str, ...]:
        return self.declares.level_names

    @property
    def success_levels(self) -> frozenset[str]:
        return self.declares.success_names

    def meaning(self, level: str) -> str:
        return self.declares.level(level).meaning


Rules = tuple[Mapping[str, Any], ...]


def rules_between_fields(system: System) -> tuple[Rules, Rules]:
    """A system's rules between a check's fields and a contest's, as JSON Schema
    (``fields.exactly_one``, ``only_with``), so the API's description states what its parse
    refuses: declared where it has any (``check_rules``, ``contest_rules``)."""
    return getattr(system, "check_rules", ()), getattr(system, "contest_rules", ())


def complete(system: System) -> None:
    """Refuse a system whose declared level records disagree with what it resolves to: the
    readers (renderers, charts, the page) take a level's style, mark, meaning and success from
    the records alone."""
    declared = system.declares
    where = f"rule system {system.name!r}"
    if not declared.levels:
        raise ValueError(f"{where} declares no levels (Declaration.levels, best first)")
    for spec in declared.levels:
        if spec.style not in ("best", "good", "ok", "bad", "worst"):
            raise ValueError(f"{where}: level {spec.name!r} has an unknown style {spec.style!r}")
    # A system of its own (not ``Declared``) may name levels its records do not.
    if declared.level_names != tuple(system.levels):
        raise ValueError(
            f"{where}: declared levels {declared.level_names} are not its levels {system.levels}"
        )
    if declared.success_names != frozenset(system.success_levels):
        raise ValueError(f"{where}: the levels declared successes are not its success_levels")
    tie = declared.tie_break
    if tie is not None and tie.field not in {f.name for f in system.contest_fields}:
        raise ValueError(f"{where}: the tie-break field {tie.field!r} is not a contest field")


class Registry:
    """Rule systems by name; registering a name twice is a mistake, not an override."""

    def __init__(self) -> None:
        self._systems: dict[str, System] = {}

    def register(self, system: System) -> System:
        """Add a system; the very same object again is already there (a module that registers
        itself, then found by discovery), another of the same name a mistake."""
        known = self._systems.get(system.name)
        if known is system:
            return system
        if known is not None:
            raise ValueError(f"a rule system named {system.name!r} is already registered")
        complete(system)
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
