"""The odds page's answers, open to anyone: the same numbers as ``d100 odds`` and the same
options as ``advise``, plus a chart across skills."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..advise import advise
from ..contract import Request
from ..engine import is_contest, odds, parse
from ..errors import D100Error
from ..fields import json_schema
from ..memo import memoised
from ..render.view import pct
from ..results import CheckOdds
from ..system import System, rules_between_fields
from ..systems import REGISTRY
from ..tallies import plan_of
from .errors import bad, invalid

MAX_POINTS = 101
VARIED = "skill"  # the field a chart sets at each of its points
CHEAP = 20_000  # die faces: a hundredth of the engine's budget (tallies.BUDGET), ~10 ms at most


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


def request_schema(kinds: Sequence[str] = ("check", "contest")) -> dict[str, Any]:
    """The requests odds are worked out for: without ``dice`` (odds cover every roll)."""
    variants = [
        {"title": f"{s.name} {kind}", **_without_dice(json_schema(fields)), "allOf": list(rules)}
        for s in REGISTRY
        for kind, fields, rules in zip(
            ("check", "contest"),
            (s.check_fields, s.contest_fields),
            rules_between_fields(s),
            strict=True,
        )
        if kind in kinds
    ]
    for variant in variants:  # a rule between fields, where the system has one
        if not variant["allOf"]:
            del variant["allOf"]
    return {"oneOf": variants}


def _without_dice(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_without_dice(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _without_dice(v) for k, v in schema.items()}
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: v for k, v in out["properties"].items() if k != "dice"}
    if isinstance(out.get("required"), list):
        out["required"] = [k for k in out["required"] if k != "dice"]
    return out


def answer(request: Mapping[str, Any]) -> dict[str, Any]:
    chance = odds(request)
    shown = chance.to_dict()
    out: dict[str, Any] = {"request": parse(request).to_dict(), "odds": shown}
    out["percent"] = percents(shown)
    if not is_contest(request):
        out["advice"] = advice(request)
    out["meanings"] = meanings(REGISTRY.get(request.get("system")))
    return out


def meanings(system: System) -> dict[str, str]:
    """What each level means at the table (OQ12, BRP8), best first."""
    return {lv: system.meaning(lv) for lv in system.levels}


def advice(request: Mapping[str, Any], luck: int | None = None) -> list[dict[str, Any]]:
    """``advise``'s options, best first, each with its odds and gain as percentages."""
    out = []
    for option in advise(request, luck=luck):
        shown = option.to_dict()
        gain = pct(option.gain)
        shown["percent"] = {
            "success": pct(option.odds.success),
            "gain": gain if gain.startswith(("-", "<", ">")) else f"+{gain}",
        }
        out.append(shown)
    return out


def percents(odds_view: Mapping[str, Any]) -> dict[str, Any]:
    """An odds answer's probabilities as the percentages a page shows beside the exact
    fractions: computed here, exactly, so a fraction with hundreds of digits still reads
    right ("Luck spent" is an expected count, not a probability, and is left out)."""
    out: dict[str, Any] = {}
    for key, value in odds_view.items():
        if isinstance(value, str) and key != "luck_spent":
            out[key] = _pct(value)
        elif isinstance(value, Mapping):
            out[key] = {k: _pct(v) for k, v in value.items()}
    return out


@memoised(1 << 14)
def _pct(fraction: str) -> str:
    """One exact fraction's percentage: the same few come back on every roll."""
    return pct(Fraction(fraction))


def preview(
    request: Mapping[str, Any], luck: int | None, contest: bool, system: str
) -> dict[str, Any]:
    """A table roll's preview: its exact odds, for a check the options with their gains
    (``luck`` the character's Luck left), and what each level means."""
    out: dict[str, Any] = {"request": request, "odds": odds(request).to_dict()}
    if not contest:
        out["advice"] = advice(request, luck)
    out["meanings"] = meanings(REGISTRY.get(system))
    return out


def odds_of(request: Mapping[str, Any]) -> dict[str, Any]:
    return odds(request).to_dict()


def cheap_odds(request: Mapping[str, Any] | Request) -> dict[str, Any] | None:
    """The odds, where the engine's bound on their work is small enough to be worked out at
    once (a few milliseconds at most, less than handing them to a worker); else None. The
    request as sent, or already parsed (a roll has parsed it)."""
    return _cheap(parse(request) if isinstance(request, Mapping) else request)


@memoised(1024)
def _cheap(parsed: Request) -> dict[str, Any] | None:
    """``cheap_odds`` per parsed request (frozen, so a key): a table rolls the same few checks
    again and again. Shared between callers: never changed in place."""
    if plan_of(parsed).cost > CHEAP:
        return None
    return odds(parsed).to_dict()


def chart_request_schema() -> dict[str, Any]:
    """A chart's request: a check's, its skill optional, as the chart sets it at each point.
    So the skill is its target: no other target of the check's, and nothing the check takes
    only at one skill (the rules between fields that would say otherwise are turned round)."""
    schema = request_schema(("check",))
    for variant in schema["oneOf"]:
        if VARIED in variant.get("required", ()):
            variant["required"] = [k for k in variant["required"] if k != VARIED]
            if not variant["required"]:
                del variant["required"]
        if "allOf" in variant:
            variant["allOf"] = [_charted(rule) for rule in variant["allOf"]]
    return schema


def _charted(rule: dict[str, Any]) -> dict[str, Any]:
    """A check's rule between fields as a chart holds it, its skill given at every point."""
    targets = [r.get("required") for r in rule.get("oneOf", ())]
    if [VARIED] in targets:  # exactly one target: the skill, so none of the others
        return {"not": {"anyOf": [{"required": t} for t in targets if t != [VARIED]]}}
    if VARIED in rule.get("then", {}).get("properties", {}):  # only at one skill: never
        return {"not": rule["if"]}
    return rule


def chart_skills(request: Mapping[str, Any], low: int, high: int, step: int) -> list[int]:
    """The skills a chart has points at, from ``low`` by ``step`` up to ``high`` and at most
    ``MAX_POINTS`` of them (none where ``high`` is below ``low``): those past are left out,
    as the answer's points say. The request is a check's, checked as one at ``low`` (or at a
    skill it gives, which each point then replaces); ``low`` and ``high`` are skills its
    system takes (``chart_bounds``), a refusal naming the bound."""
    if is_contest(request):
        raise bad("request", "a contest", "a check", "the chart varies one check's skill")
    if VARIED in request:  # a skill it gives is held to its field, though each point replaces it
        _check_at(request, request[VARIED], "request")
    _check_at(request, low, "low")
    if high >= low:  # else no points: nothing is charted at it
        _check_at(request, high, "high")
    return list(range(low, high + 1, step))[:MAX_POINTS]


def _check_at(request: Mapping[str, Any], skill: Any, bound: str) -> None:
    """The request, checked as a check at ``skill``: its skill refused names ``bound``."""
    try:
        parse({**request, VARIED: skill})
    except D100Error as err:
        if err.field == VARIED and bound != "request":
            raise invalid(err.at(bound)) from None
        raise invalid(err, "request") from None


def chart_bounds(schema: dict[str, Any]) -> None:
    """A chart's ``low`` and ``high`` are skills: at most the highest skill its request's
    system takes (where that is below the chart's own bound), stated in its JSON Schema."""
    rules = []
    for s in REGISTRY:
        field = next((f for f in s.check_fields if f.name == VARIED), None)
        most = None if field is None else field.high
        if most is None or most >= schema["properties"]["high"]["maximum"]:
            continue
        rules.append(
            {
                "if": {
                    "properties": {"request": {"properties": {"system": {"const": s.name}}}},
                    "required": ["request"],
                },
                "then": {
                    "properties": {"low": {"maximum": most}, "high": {"maximum": most}},
                },
            }
        )
    if rules:
        schema["allOf"] = rules


def chart_points(
    skills: Sequence[int], seconds: float, request: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The chart's points at the first of ``skills`` that are done within ``seconds`` (one at
    least): the server asks for the rest in the requester's next turn of a worker."""
    points: list[dict[str, Any]] = []
    deadline = time.monotonic() + seconds
    for skill in skills:
        if points and time.monotonic() >= deadline:
            break
        chance = odds({**request, "skill": skill})
        assert isinstance(chance, CheckOdds)
        shown = chance.to_dict()
        points.append({"skill": skill, **shown, "percent": percents(shown)})
    return points
