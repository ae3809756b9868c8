"""Views of resolved checks, contests and group tests, each with the exact odds beside it:
each result's view (``d100.result_view``) laid out in lines; nothing here decides what a
level means."""

from __future__ import annotations

from collections.abc import Sequence

from ..dice import show_roll
from ..result_view import (
    ContestView,
    ResultView,
    dice_segments,
    inputs_text,
    result_view,
)
from ..result_view import (
    contest_view as contest_reading,
)
from ..results import CheckOdds, CheckResult, ContestOdds, ContestResult
from .view import Line, Segment, View, frac, joined, line, pct, seg, table

__all__ = ["dice_segments", "inputs_text"]


def headline_seg(view: ResultView | ContestView, upper: bool = True) -> Segment:
    """A result's headline in its view's style (best..worst, which renderers colour)."""
    return (view.headline.upper() if upper else view.headline, view.style)


def check_view(result: CheckResult, chance: CheckOdds, title: str | None = None) -> View:
    """A check for a person: the dice (kept one marked), target and bands, the level in words
    and what it means (OQ12, BRP8), the margin, and the exact odds of the request."""
    return check_lines(result_view(result, chance), result, title)


def check_lines(view: ResultView, result: CheckResult, title: str | None = None) -> View:
    head = title or f"{view.title} check"
    lines: list[Line] = [
        line(seg(head, "title"), seg(f" — {view.asked}" if view.asked else "", "dim"))
    ]
    lines.append(_row("dice", *dice_segments(result)))
    lines.append(_row("target", seg(view.target_words, "bold"), seg(f"   {view.bands}", "dim")))
    margin = view.margin_words
    lines.append(
        _row(
            "level",
            headline_seg(view),
            seg(f"  margin {margin}" if margin[0] in "+-" else f"  {margin}"),
        )
    )
    if view.meaning:
        lines.append(_row("meaning", seg(view.meaning, "dim")))
    if view.again:
        # as Discord says it: a push that worked says so before what it risked
        said = f"{view.verdict}; {view.stakes}" if view.met and view.stakes else view.stakes
        lines.append(_row(view.again, seg(said or view.verdict, "warn")))
    if view.level_odds is not None and view.success_odds is not None:
        p, any_success = view.level_odds, view.success_odds
        lines.append(
            _row(
                "odds",
                seg(f"{view.level} {pct(p)} ({frac(p)})", "bold"),
                seg(f" · any success {pct(any_success)} ({frac(any_success)})"),
            )
        )
        every = [(seg(f"{k} {pct(v)}", _mark(k, view.level)),) for k, v in view.every_level]
        lines.append(_row("", *joined(every)))
    for helper in view.helpers:
        label, _, text = helper.partition(": ")
        lines.append(_row(label, seg(text)))
    if view.note:
        lines.append(_row("note", seg(view.note)))
    if view.luck_spent:
        lines.append(_row("luck", seg(f"spent {view.luck_spent}", "warn")))
    lines.append(_row("why", seg(view.explanation, "dim")))
    return View(tuple(lines))


def contest_view(
    result: ContestResult, chance: ContestOdds, names: tuple[str, str] = ("actor", "opponent")
) -> View:
    reading = contest_reading(result, chance, names)
    lines: list[Line] = [
        line(seg(f"{reading.title} contest: ", "title"), seg(reading.verdict_words, reading.style))
    ]
    rows = []
    for side, checked in zip(reading.sides, (result.actor, result.opponent), strict=True):
        rows.append(
            [
                seg(side.name, "bold"),
                seg(dice_text(checked)),
                seg(str(checked.total if checked.total is not None else checked.target)),
                headline_seg(side.view, upper=False),
                seg(side.view.margin_words),
            ]
        )
    total = "total" if result.actor.total is not None else "target"
    lines += table(["side", "dice", total, "level", "margin"], rows).lines
    odds = [
        (seg(f"{names_of(k, names)} {pct(v)}", _mark(k, reading.winner)),)
        for k, v in chance.winner.items()
        if v or k == result.winner
    ]
    lines.append(_row("odds", *joined(odds)))
    lines.append(_row("why", seg(reading.explanation, "dim")))
    return View(tuple(lines))


def group_view(title: str, members: Sequence[tuple[str, CheckResult, CheckOdds]]) -> View:
    """Group tests (OQ10) and individual events (CH8): each result stands alone, one row each."""
    rows = []
    for name, result, chance in members:
        view = result_view(result, chance)
        rows.append(
            [
                seg(name, "bold"),
                seg(dice_text(result)),
                seg(str(result.target)),
                headline_seg(view, upper=False),
                seg(view.margin_words),
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


def dice_text(result: CheckResult) -> str:
    """The dice in a table cell: every die, "took 50", or "no roll" for a master."""
    if result.dice:
        return " ".join(show_roll(d) for d in result.dice)
    return "no roll" if result.roll is None else f"took {result.roll}"


def _row(label: str, *parts: Segment) -> Line:
    return (seg(f"  {label:<8} ", "label"), *parts)


def _mark(key: str, chosen: str) -> str:
    return "bold" if key == chosen else "dim"
