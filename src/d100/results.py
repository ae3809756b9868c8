"""Frozen results (G6) and exact odds (G4), written to the JSON of CONTRACT.md.

Results carry data only; text for people is made by the renderers. They are truly immutable:
the request a result echoes and the odds' tables are read-only mappings (lists as tuples), and
``to_dict`` gives the contract's JSON back."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, cast

if TYPE_CHECKING:  # the contract's dict types, for type checkers only: no import at run time
    from .contract import CheckData, ContestData

# A level: a string, one of its system's declared levels (``Declaration.levels``, held to them
# when the system registers); no union of every system's names, so a new one needs no edit.
Level = str

Winner = Literal["actor", "opponent", "tie", "none"]
WINNERS: tuple[Winner, ...] = ("actor", "opponent", "tie", "none")


_EMPTY: Mapping[str, Any] = MappingProxyType({})


def _none() -> Any:
    """A dataclass default: the empty read-only mapping."""
    return field(default_factory=lambda: _EMPTY)


# Values ``frozen`` passes through as they are, by exact type: most of what it sees, and the
# check costs far less than asking ``Mapping`` about each of them.
_ATOMS = frozenset({str, int, bool, float, type(None), Fraction})


def frozen(value: Any) -> Any:
    """JSON made read-only, all the way down: objects as mapping proxies, lists as tuples."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is list or kind is tuple:
        return tuple([v if type(v) in _ATOMS else frozen(v) for v in value]) if value else ()
    if kind is dict or isinstance(value, Mapping):
        return MappingProxyType(  # a request's many empty lists made () without a call each
            {k: v if type(v) in _ATOMS else () if v == [] else frozen(v) for k, v in value.items()}
        )
    if isinstance(value, list | tuple):
        return tuple(frozen(v) for v in value)
    return value


def check_data(request: Mapping[str, Any]) -> CheckData:
    """A check's contract dict as a result echoes it, typed as one (``CheckData``): so
    ``d100.odds(result.request)`` type-checks as a check's odds. Read-only at run time."""
    return cast("CheckData", request)


def contest_data(request: Mapping[str, Any]) -> ContestData:
    """A contest's contract dict as a result echoes it, typed as one (``ContestData``)."""
    return cast("ContestData", request)


def thawed(value: Any) -> Any:
    """``frozen`` undone: the contract's JSON as dicts and lists."""
    if isinstance(value, Mapping):
        return {k: thawed(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thawed(v) for v in value]
    return value


def _freeze(obj: Any, *names: str) -> None:
    for name in names:
        object.__setattr__(obj, name, frozen(getattr(obj, name)))


@dataclass(frozen=True)
class CheckResult:
    """One check, resolved. ``roll`` is the deciding d100 (None for an OpenQuest master, OQ3)."""

    system: str
    level: Level
    success: bool
    roll: int | None
    dice: tuple[int, ...]
    target: int
    margin: int | None
    explanation: str
    request: CheckData = _none()  # noqa: RUF009 (a field of the empty read-only mapping)
    total: int | None = None
    luck_spent: int | None = None
    attempts: tuple[int, ...] = ()
    bands: str | None = None
    note: str | None = None
    assist: CheckResult | None = None
    assisters: tuple[CheckResult, ...] = ()
    luck_costs: Mapping[str, int] | None = None  # coc7: Luck each level on offer costs (C7-4)
    combined: tuple[CheckResult, ...] = ()  # coc7: each skill judged on the same roll (C7-8)
    # the value the check leaves its skill at on the sheet (a Delta Green SAN test: SAN less
    # its loss, DG-5), None where it changes nothing
    skill_after: int | None = None

    def __post_init__(self) -> None:
        _freeze(self, "request", "luck_costs")

    @property
    def helpers(self) -> tuple[CheckResult, ...]:
        """The nested results of whoever helped, one or several."""
        return self.assisters if self.assist is None else (self.assist, *self.assisters)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "system": self.system,
            "level": self.level,
            "success": self.success,
            "roll": self.roll,
            "dice": list(self.dice),
            "digits": [[(d // 10) % 10, d % 10] for d in self.dice],
            "target": self.target,
            "margin": self.margin,
        }
        out.update(_optional(self, _CHECK_OPTIONAL))
        out["explanation"] = self.explanation
        out["request"] = thawed(self.request)
        return out


@dataclass(frozen=True)
class ContestResult:
    system: str
    winner: Winner
    actor: CheckResult
    opponent: CheckResult
    explanation: str
    request: ContestData = _none()  # noqa: RUF009 (a field of the empty read-only mapping)
    degree: str | None = None
    coin: str | None = None

    def __post_init__(self) -> None:
        _freeze(self, "request")

    @property
    def success(self) -> bool:
        return self.winner == "actor"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "system": self.system,
            "winner": self.winner,
            "actor": self.actor.to_dict(),
            "opponent": self.opponent.to_dict(),
        }
        out.update(_optional(self, _CONTEST_OPTIONAL))
        out["explanation"] = self.explanation
        out["request"] = thawed(self.request)
        return out


Result = CheckResult | ContestResult


def _optional_names(cls: type, after: str) -> tuple[str, ...]:
    """A result's optional fields, in the contract's order: every field declared after
    ``after`` but the request, written only when set (G6)."""
    names = [f.name for f in fields(cls)]
    return tuple(n for n in names[names.index(after) + 1 :] if n != "request")


_CHECK_OPTIONAL = _optional_names(CheckResult, "explanation")
_CONTEST_OPTIONAL = _optional_names(ContestResult, "explanation")


def _optional(result: Any, names: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        value = getattr(result, name)
        if value is None or value == ():
            continue
        if isinstance(value, CheckResult):
            value = value.to_dict()
        elif isinstance(value, tuple):
            value = [v.to_dict() if isinstance(v, CheckResult) else thawed(v) for v in value]
        else:
            value = thawed(value)
        out[name] = value
    return out


class Echo(Mapping[str, Any]):
    """A parsed request's contract JSON, read-only, made from the request when first read:
    the same mapping as ``frozen(request.to_dict())``. Odds echo every check they answer, and
    most echoes are never read (a table's cells, a chart's points); the request is frozen, so
    the echo is the same whenever it is made."""

    __slots__ = ("_asked", "_echo")

    def __init__(self, asked: Any) -> None:
        self._asked = asked
        self._echo: Mapping[str, Any] | None = None

    def _read(self) -> Mapping[str, Any]:
        echo = self._echo
        if echo is None:  # two threads may both make it: equal mappings, either kept
            echo = self._echo = frozen(self._asked.to_dict())
        return echo

    def __getitem__(self, key: str) -> Any:
        return self._read()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())

    def __repr__(self) -> str:
        return repr(self._read())


def fraction_text(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


@dataclass(frozen=True)
class CheckOdds:
    """Exact probability of every level of the system, best level first."""

    system: str
    levels: Mapping[str, Fraction]
    success: Fraction
    request: CheckData = _none()  # noqa: RUF009 (a field of the empty read-only mapping)
    luck_spent: Fraction | None = None  # brp: the expected Luck points spent

    def __post_init__(self) -> None:
        _freeze(self, "levels", "request")

    @classmethod
    def counted(
        cls,
        system: str,
        levels: dict[str, Fraction],
        success: Fraction,
        asked: Any,
        luck_spent: Fraction | None = None,
    ) -> CheckOdds:
        """The odds the engine counted for the parsed request ``asked``: equal to
        ``CheckOdds(...)`` of the same values and ``asked.to_dict()``, made without its walk
        over them. ``levels`` is a dict of Fractions made for these odds alone (nobody else
        holds it), so it is made read-only as it is rather than copied; the request is echoed
        when first read (``Echo``). Every check's odds are made here, one per cell of a
        table: the constructor's work was a third of a check's cost."""
        odds = cls.__new__(cls)
        vars(odds).update(
            system=system,
            levels=MappingProxyType(levels),
            success=success,
            request=check_data(Echo(asked)),
            luck_spent=luck_spent,
        )
        return odds

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "levels": {k: fraction_text(v) for k, v in self.levels.items()},
            "success": fraction_text(self.success),
        }
        if self.luck_spent is not None:
            out["luck_spent"] = fraction_text(self.luck_spent)
        return out


@dataclass(frozen=True)
class ContestOdds:
    system: str
    winner: Mapping[str, Fraction]
    degree: Mapping[str, Fraction] = _none()
    request: ContestData = _none()  # noqa: RUF009 (a field of the empty read-only mapping)

    def __post_init__(self) -> None:
        _freeze(self, "winner", "degree", "request")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"winner": {k: fraction_text(v) for k, v in self.winner.items()}}
        if self.degree:
            out["degree"] = {k: fraction_text(v) for k, v in self.degree.items()}
        return out


Odds = CheckOdds | ContestOdds
