"""The odds page's answers, open to anyone: the same numbers as ``d100 odds`` and the same
options as ``advise``, plus a chart across skills."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..advise import advise
from ..engine import is_contest, odds, parse
from ..fields import json_schema
from ..results import CheckOdds
from ..system import System
from ..systems import REGISTRY
from .errors import bad

MAX_POINTS = 101


def systems() -> list[dict[str, Any]]:
    """Each system's levels, what they mean, its declarations (the target and its presets,
    assistance, aiming, Luck, bonus dice, taking, words) and its request fields as JSON Schema:
    the web page builds its forms and words from this, so no rule is typed twice."""
    return [
        {
            "name": s.name,
            "title": s.title,
            "levels": list(s.levels),
            "success_levels": [lv for lv in s.levels if lv in s.success_levels],
            "meanings": meanings(s),
            "declares": s.declares.to_dict(),
            "check": json_schema(s.check_fields),
            "contest": json_schema(s.contest_fields),
        }
        for s in REGISTRY
    ]


def request_schema() -> dict[str, Any]:
    variants = [
        {"title": f"{s.name} {kind}", **json_schema(fields)}
        for s in REGISTRY
        for kind, fields in (("check", s.check_fields), ("contest", s.contest_fields))
    ]
    return {"oneOf": variants}


def answer(request: Mapping[str, Any]) -> dict[str, Any]:
    chance = odds(request)
    out: dict[str, Any] = {"request": parse(request).to_dict(), "odds": chance.to_dict()}
    if not is_contest(request):
        out["advice"] = advice(request)
    out["meanings"] = meanings(REGISTRY.get(request.get("system")))
    return out


def meanings(system: System) -> dict[str, str]:
    """What each level means at the table (OQ12, BRP8), best first."""
    return {lv: system.meaning(lv) for lv in system.levels}


def advice(request: Mapping[str, Any], luck: int | None = None) -> list[dict[str, Any]]:
    """``advise``'s options, best first."""
    return [o.to_dict() for o in advise(request, luck=luck)]


def chart(request: Mapping[str, Any], low: int, high: int, step: int) -> list[dict[str, Any]]:
    """Success and every level's odds at each skill from ``low`` to ``high``."""
    if is_contest(request):
        raise bad("request", "a contest", "a check", "the chart varies one check's skill")
    skills = list(range(low, high + 1, step))
    if not 1 <= len(skills) <= MAX_POINTS:
        raise bad("step", step, f"low..high in 1..{MAX_POINTS} points", "too many points")
    points = []
    for skill in skills:
        chance = odds({**request, "skill": skill})
        assert isinstance(chance, CheckOdds)
        points.append({"skill": skill, **chance.to_dict()})
    return points
