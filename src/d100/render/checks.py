"""Views of resolved checks, contests and group tests, each with the exact odds beside it."""

from __future__ import annotations

from collections.abc import Sequence

from ..dice import show_roll
from ..results import CheckOdds, CheckResult, ContestOdds, ContestResult, thawed
from ..systems import REGISTRY
from .view import Line, Segment, View, frac, joined, level_seg, line, pct, seg, table


def check_view(result: CheckResult, chance: CheckOdds, title: str | None = None) -> View:
    """A check for a person: the dice (kept one marked), target and bands, the level in words
    and what it means (OQ12, BRP8), the margin, and the exact odds of the request."""
    system = REGISTRY.get(result.system)
    head = title or f"{system.title} check"
    asked = inputs_text(thawed(result.request))
    lines: list[Line] = [line(seg(head, "title"), seg(f" — {asked}" if asked else "", "dim"))]
    lines.append(_row("dice", *dice_segments(result)))
    lines.append(
        _row("target", seg(str(result.target), "bold"), seg(f"   {bands_text(result)}", "dim"))
    )
    margin = margin_text(result)
    # a level that succeeds at most difficulties but not at this one's (CoC7's required level)
    short = not result.success and system.declares.level(result.level).success
    lines.append(
        _row(
            "level",
            level_seg(result.level, result.system),
            seg("  short of the difficulty: a failure", "warn") if short else seg(""),
            seg(f"  margin {margin}" if margin[0] in "+-" else f"  {margin}"),
        )
    )
    lines.append(_row("meaning", seg(system.declares.level(result.level).meaning, "dim")))
    p = chance.levels[result.level]
    lines.append(
        _row(
            "odds",
            seg(f"{result.level} {pct(p)} ({frac(p)})", "bold"),
            seg(f" · any success {pct(chance.success)} ({frac(chance.success)})"),
        )
    )
    lines.append(
        _row(
            "",
            *joined(
                [(seg(f"{k} {pct(v)}", _mark(k, result.level)),) for k, v in chance.levels.items()]
            ),
        )
    )
    declared = system.declares.assistance  # one helper is named as the field, several counted
    for i, helper in enumerate(result.helpers, 1):
        label = declared.field if declared is not None and not declared.many else f"helper {i}"
        lines.append(_row(label, seg(helper.explanation)))
    if result.note:
        lines.append(_row("note", seg(result.note)))
    if result.luck_spent:
        lines.append(_row("luck", seg(f"spent {result.luck_spent}", "warn")))
    lines.append(_row("why", seg(result.explanation, "dim")))
    return View(tuple(lines))


def contest_view(
    result: ContestResult, chance: ContestOdds, names: tuple[str, str] = ("actor", "opponent")
) -> View:
    system = REGISTRY.get(result.system)
    winner = {"actor": names[0], "opponent": names[1]}.get(result.winner)
    verdict = f"{winner} wins" if winner else ("tie" if result.winner == "tie" else "nobody wins")
    if result.degree:
        verdict += f" ({result.degree})"
    lines: list[Line] = [
        line(seg(f"{system.title} contest: ", "title"), seg(verdict, "best" if winner else "bad"))
    ]
    rows = []
    for name, side in zip(names, (result.actor, result.opponent), strict=True):
        rows.append(
            [
                seg(name, "bold"),
                seg(dice_text(side)),
                seg(str(side.total if side.total is not None else side.target)),
                level_seg(side.level, side.system, upper=False),
                seg(margin_text(side)),
            ]
        )
    total = "total" if result.actor.total is not None else "target"
    lines += table(["side", "dice", total, "level", "margin"], rows).lines
    odds = [
        (seg(f"{names_of(k, names)} {pct(v)}", _mark(k, result.winner)),)
        for k, v in chance.winner.items()
        if v or k == result.winner
    ]
    lines.append(_row("odds", *joined(odds)))
    lines.append(_row("why", seg(result.explanation, "dim")))
    return View(tuple(lines))


def group_view(title: str, members: Sequence[tuple[str, CheckResult, CheckOdds]]) -> View:
    """Group tests (OQ10) and individual events (CH8): each result stands alone, one row each."""
    rows = []
    for name, result, chance in members:
        rows.append(
            [
                seg(name, "bold"),
                seg(dice_text(result)),
                seg(str(result.target)),
                level_seg(result.level, result.system, upper=False),
                seg(margin_text(result)),
                seg(pct(chance.success)),
            ]
        )
    head = View((line(seg(title, "title")),))
    return head + table(["who", "dice", "target", "level", "margin", "P(success)"], rows)


def cover_line(result: CheckResult, dodging: int, struck: bool) -> Line:
    """CH10: whether a shot that failed struck the cover it was aimed past."""
    if result.success:
        return _row("cover", seg("not struck: the shot succeeded", "dim"))
    points = -(result.margin or 0)
    if struck:
        text = f"struck: {points} failure points, fewer than its dodging factor {dodging}"
    else:
        text = f"not struck: {points} failure points, not fewer than its dodging factor {dodging}"
    return _row("cover", seg(text, "warn" if struck else "dim"))


def names_of(key: str, names: tuple[str, str]) -> str:
    return {"actor": names[0], "opponent": names[1]}.get(key, key)


def dice_segments(result: CheckResult) -> list[Segment]:
    """Every die, the kept one in brackets; groups split where a later attempt began (a Luck
    reroll, a push: the system's words)."""
    if not result.dice:
        return [seg("no roll (a master)" if result.roll is None else f"took {result.roll}")]
    groups = [result.dice]
    if result.attempts:
        per = len(result.dice) // len(result.attempts)
        groups = [result.dice[i : i + per] for i in range(0, len(result.dice), per)]
    out: list[Segment] = []
    again = REGISTRY.get(result.system).declares.words.again if result.system in REGISTRY else ""
    for n, group in enumerate(groups):
        if n:
            out.append(seg(f"  then {again or 'again'}: ", "warn"))
        kept = result.attempts[n] if result.attempts else result.roll
        marked = False
        for i, die in enumerate(group):
            space = " " if i else ""
            if die == kept and not marked and len(group) > 1:
                out.append(seg(f"{space}[{show_roll(die)}]", "bold"))
                marked = True
            else:
                out.append(seg(f"{space}{show_roll(die)}", "" if len(group) == 1 else "dim"))
    if len(groups[-1]) > 1:
        lower = result.roll == min(groups[-1])
        out.append(seg(f"  ({'lower' if lower else 'higher'} kept)", "dim"))
    return out


def bands_text(result: CheckResult) -> str:
    """Which rolls give which level, in the words of each system."""
    return REGISTRY.get(result.system).declares.words.bands(result)


def margin_text(result: CheckResult) -> str:
    if result.margin is None:
        return "none (no roll)"
    shortfall = REGISTRY.get(result.system).declares.words.shortfall
    if shortfall and result.margin < 0:
        return f"{-result.margin} {shortfall}"
    return f"{result.margin:+d}"


def dice_text(result: CheckResult) -> str:
    """The dice in a table cell: every die, "took 50", or "no roll" for a master."""
    if result.dice:
        return " ".join(show_roll(d) for d in result.dice)
    return "no roll" if result.roll is None else f"took {result.roll}"


def inputs_text(request: dict[str, object], system: str | None = None) -> str:
    """A request's inputs in words, defaults left out: "skill 65, difficulty -40". Numbers a
    field lets go below zero are signed; helpers are counted (or, one, shown by skill)."""
    name = system or request.get("system")
    spec = REGISTRY.get(name) if isinstance(name, str) and name in REGISTRY else None
    declared = {f.name: f for f in (spec.check_fields if spec else ())}
    helpers = spec.declares.assistance if spec else None
    parts = []
    for key, value in request.items():
        f = declared.get(key)
        if key == "system" or (f and f.kind == "dice") or value in (0, False, None, [], {}):
            continue
        words = key.replace("_", " ")
        signed = f is not None and f.low is not None and f.low < 0
        if helpers is not None and key == helpers.field and isinstance(value, dict):
            parts.append(f"assisted (skill {value.get('skill')})")
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            parts.append(f"{len(value)} {words[:-1] if len(value) == 1 else words}")
        elif isinstance(value, dict):  # house rules, a resistance roll's sides: "active 13"
            named = (
                k.replace("_", " ") + ("" if v is True else f" {v}")
                for k, v in value.items()
                if v not in (False, None)
            )
            parts.append(f"{words}: " + ", ".join(named))
        elif isinstance(value, list):
            parts.append(f"{words} " + ",".join(f"{v:+d}" if signed else str(v) for v in value))
        elif value is True:
            parts.append(words)
        elif signed and isinstance(value, int):
            parts.append(f"{words} {value:+d}")
        else:
            parts.append(f"{words} {value}")
    return ", ".join(parts)


def _row(label: str, *parts: Segment) -> Line:
    return (seg(f"  {label:<8} ", "label"), *parts)


def _mark(key: str, chosen: str) -> str:
    return "bold" if key == chosen else "dim"
