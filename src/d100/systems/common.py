"""Pieces the three systems share: request plumbing and small machines."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from copy import deepcopy
from typing import Any, TypeVar

from ..dice import show_roll
from ..errors import D100Error
from ..fields import BIG, Field, path, validate
from ..machine import Given, Need
from ..memo import memoised


def system_field(name: str) -> Field:
    return Field("system", "choice", "the rule system", choices=(name,), required=True, flags=())


def modifiers_field(description: str) -> Field:
    return Field(
        "modifiers",
        "int_list",
        description,
        low=-BIG,
        high=BIG,
        default=(),
        flags=("--mod", "-m"),
        words=("+#",),
    )


DICE = Field(
    "dice",
    "dice",
    "d100 values 1..100 to use instead of drawing, consumed in order (G3)",
    flags=("--dice",),
    words=("@*",),
)


_SCALARS = frozenset({int, str, bool, float, type(None)})


_FIELD_NAMES: dict[type, tuple[str, ...] | None] = {}


def _field_names(cls: type) -> tuple[str, ...] | None:
    """A dataclass's field names in order, looked up once per class; None for other types."""
    if cls not in _FIELD_NAMES:
        is_data = dataclasses.is_dataclass(cls)
        _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls)) if is_data else None
    return _FIELD_NAMES[cls]


def plain(value: Any, nested: bool = False) -> Any:
    """A request dataclass as contract JSON: tuples as lists, unset optional parts left out,
    and ``system`` first at the top only (nested requests such as an assist do not name it).
    Scalars are taken as they are without a call: every odds answer echoes its request."""
    cls = type(value)
    if cls in _SCALARS:
        return value
    names = _FIELD_NAMES.get(cls) if cls in _FIELD_NAMES else _field_names(cls)
    if names is not None:
        return _plain_fields(value, names, nested, ("system",))
    if isinstance(value, tuple | list):
        return [v if type(v) in _SCALARS else plain(v, nested) for v in value]
    if isinstance(value, Mapping):
        return {k: plain(v, nested) for k, v in value.items()}
    return value


# A kind of request's field names without those left out, worked out once per kind: every odds
# answer echoes its request, so this runs once per check of a table
_KEPT_NAMES: dict[tuple[type, tuple[str, ...]], tuple[str, ...]] = {}


def _plain_fields(
    value: Any, names: tuple[str, ...], nested: bool, skip: tuple[str, ...]
) -> dict[str, Any]:
    """``plain`` of a dataclass, its fields ``skip`` left out."""
    out = {"system": value.system} if not nested and hasattr(value, "system") else {}
    kept = _KEPT_NAMES.get((type(value), skip))
    if kept is None:
        kept = _KEPT_NAMES[(type(value), skip)] = tuple(n for n in names if n not in skip)
    for name in kept:
        v = getattr(value, name)
        kind = type(v)
        if kind in _SCALARS:  # most fields: a scalar, or None (left out)
            if v is not None:
                out[name] = v
        elif name == "house_rules" and not v:
            continue
        else:
            out[name] = [] if kind is tuple and not v else plain(v, True)
    return out


def house_dict(house: Any) -> dict[str, Any]:
    """The house rules that differ from the defaults, as the request would say them."""
    changed = _house_changed(house)
    if not changed:
        return {}
    return {"house_rules": {k: v if type(v) in _SCALARS else deepcopy(v) for k, v in changed}}


@memoised(256)  # the checks of a table, or of a table's players, share a few house rules
def _house_changed(house: Any) -> tuple[tuple[str, Any], ...]:
    return tuple((k, v) for k, v in plain(house).items() if v != getattr(type(house), k))


_CHECK_SKIP = ("system", "house_rules")


def check_dict(check: Any) -> dict[str, Any]:
    """A check as the request that makes it: ``plain``, its house rules said only where they
    differ from the defaults."""
    cls = type(check)
    names = _FIELD_NAMES.get(cls) if cls in _FIELD_NAMES else _field_names(cls)
    assert names is not None, cls
    out = _plain_fields(check, names, False, _CHECK_SKIP)
    changed = house_dict(check.house_rules)
    if changed:
        out.update(changed)
    return out


def one_of(values: Mapping[str, Any], names: tuple[str, ...], where: str = "") -> str:
    """The one target field a request sets among ``names``; none or two is a mistake that
    names the field."""
    given = [n for n in names if values.get(n) is not None]
    allowed = "exactly one of " + ", ".join(names)
    if not given:
        raise D100Error(path(where, names[0]), None, allowed, "required: the roll needs a target")
    if len(given) > 1:
        extra = given[1]
        raise D100Error(
            path(where, extra), values[extra], allowed, f"{given[0]} is already the target"
        )
    return given[0]


def shares_house_rules(contest: Any, where: str, side: Any) -> None:
    """A contest's house rules are both sides': a side built with others is refused."""
    if side.house_rules != contest.house_rules:
        raise D100Error(
            f"{where}.house_rules",
            plain(side.house_rules),
            f"the contest's own house rules, {plain(contest.house_rules)}",
            "differs from the contest's house rules",
        )


H = TypeVar("H")
C = TypeVar("C")


def house_from(values: Mapping[str, Any], house: Callable[..., H]) -> H:
    """A request's house rules, read: those it leaves out take their defaults."""
    return house(**{k: v for k, v in values["house_rules"].items() if v is not None})


def placed(where: str, build: Callable[[Mapping[str, Any], H], C], values: Any, house: H) -> C:
    """A nested check (a contest's side, a helper), its refusals named by where it sits
    (``opponent.difficulty``)."""
    try:
        return build(values, house)
    except D100Error as err:
        raise err.at(path(where, err.field)) from None


def contest_sides(
    contest: Any, fields: tuple[Field, ...], check: type, house: type
) -> tuple[tuple[str, Any], ...]:
    """A contest of two sides of one kind of check, validated, with its house rules both
    sides' (``shares_house_rules``): its sides by name, for the system's own refusals."""
    validate(contest, fields, {"actor": check, "opponent": check, "house_rules": house})
    sides = (("actor", contest.actor), ("opponent", contest.opponent))
    for where, side in sides:
        shares_house_rules(contest, where, side)
    return sides


def given(stream: str, dice: tuple[int, ...] | None) -> dict[str, Given]:
    return {} if dice is None else {stream: Given(dice)}


class Roll:
    """One die for one stream, a d100 unless told (a coin is 1..2): the state is None until
    rolled, then the roll."""

    def __init__(self, stream: str, high: int = 100) -> None:
        self.stream = stream
        self.high = high

    def start(self) -> int | None:
        return None

    def need(self, state: int | None) -> Need | None:
        return Need(self.stream, 1, self.high) if state is None else None

    def advance(self, state: int | None, value: int) -> int | None:
        return value


def dice_stream(where: str) -> str:
    return path(where, "dice")


def rolls(values: tuple[int, ...] | list[int]) -> str:
    return ", ".join(show_roll(v) for v in values)
