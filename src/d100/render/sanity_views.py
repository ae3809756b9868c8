"""Views of Sanity rolls for the terminal: a roll from its ``SanityView``, and a request's exact
odds (every loss with its chance, and the insanity each kind of roll may bring)."""

from __future__ import annotations

from fractions import Fraction

from ..sanity import LuckAdvice, SanityOdds, SanityRequest
from ..sanity_view import SanityView
from .view import Line, Segment, View, frac, joined, line, pct, seg, table


def asked(request: SanityRequest) -> str:
    """A request's inputs in words: SAN, the loss, and what else it was given."""
    parts = [f"SAN {request.sanity}", f"loss {request.loss}"]
    if request.intelligence is not None:
        parts.append(f"INT {request.intelligence}")
    if request.mythos:
        parts.append(f"Cthulhu Mythos {request.mythos} (SAN at most {request.most})")
    if request.lost_today:
        parts.append(f"{request.lost_today} lost today")
    parts.append(f"the day's limit {request.daily_limit}")
    if request.insane:
        parts.append("already insane")
    if request.source_lost is not None:
        parts.append(f"{request.source_lost} lost to this source")
    if request.halve:
        parts.append("halved")
    if request.pulp:
        parts.append(f"Pulp: {request.luck} Luck to halve a loss")
    return ", ".join(parts)


def roll_view(view: SanityView, request: SanityRequest) -> View:
    head = view.label or view.title
    lines: list[Line] = [line(seg(head, "title"), seg(f" — {asked(request)}", "dim"))]
    every = "" if len(view.dice) == 1 else f"  of {', '.join(f'{d:02d}' for d in view.dice)}"
    lines.append(_row("dice", seg(f"{view.roll:02d}", "bold"), seg(every, "dim")))
    lines.append(_row("level", seg(view.level.upper(), view.style), seg(f"  {view.verdict}")))
    words = "" if view.loss_words == str(view.loss) else f"  {view.loss_words}"
    lines.append(_row("loss", seg(str(view.loss), "bold"), seg(words, "dim")))
    lines.append(_row("SAN", seg(f"{view.sanity} -> {view.sanity_after}", "bold")))
    if view.int_words:
        lines.append(_row("INT roll", seg(view.int_words)))
    lines.append(_row("insanity", seg(view.insanity, "warn" if view.insanity != "none" else "")))
    if view.success_odds is not None and view.mean_loss is not None:
        lines.append(_row("odds", *joined(_odds(view))))
    lines.append(_row("why", seg(view.explanation, "dim")))
    return View(tuple(lines))


def _odds(view: SanityView) -> list[list[Segment]]:
    assert view.success_odds is not None and view.mean_loss is not None
    out = [
        [seg(f"success {pct(view.success_odds)} ({frac(view.success_odds)})", "bold")],
        [seg(f"mean loss {_number(view.mean_loss)}")],
    ]
    insanity: tuple[tuple[str, Fraction | None], ...] = (
        ("temporary", view.temporary_odds),
        ("indefinite", view.indefinite_odds),
        ("permanent", view.permanent_odds),
    )
    for name, p in insanity:
        if p:
            out.append([seg(f"{name} {pct(p)}")])
    return out


def odds_view(
    title: str, request: SanityRequest, chance: SanityOdds, advice: LuckAdvice | None = None
) -> View:
    """Every loss with its exact chance and the chance of it or more, then the insanity; with
    Pulp's Luck, whether halving a loss pays (P-2)."""
    head = line(seg(title, "title"), seg(f" — {asked(request)}", "dim"))
    rows = []
    above = Fraction(1)
    for loss, chanced in chance.losses.items():
        rows.append(
            [seg(str(loss), "bold"), seg(pct(chanced)), seg(frac(chanced)), seg(pct(above))]
        )
        above -= chanced
    lines = [head, _row("success", seg(f"{pct(chance.success)} ({frac(chance.success)})"))]
    lines.append(_row("mean", seg(f"loss {_number(chance.mean)}")))
    if request.pulp:
        lines.append(_row("Luck", seg(f"spent {_number(chance.luck_spent)} on average")))
    if advice is not None:
        lines.append(_row("halving", *luck_words(advice)))
    big = chance.big_loss
    lines.append(_row(f"loss {request.rules.int_roll_from}+", seg(f"{pct(big)} ({frac(big)})")))
    lines.append(_row("INT roll", seg(f"{pct(chance.int_roll)} ({frac(chance.int_roll)})")))
    temporary = "an INT roll may be called for: give INT" if chance.temporary is None else None
    insanity: tuple[tuple[str, Fraction | None], ...] = (
        ("temporary", chance.temporary),
        ("indefinite", chance.indefinite),
        ("permanent", chance.permanent),
    )
    for name, p in insanity:
        said = temporary if p is None else f"{pct(p)} ({frac(p)})"
        lines.append(_row(name, seg(said or "", "dim" if p is None else "")))
    return View(tuple(lines)) + table(["loss", "chance", "exact", "or more"], rows)


def _number(p: Fraction) -> str:
    return str(p.numerator) if p.denominator == 1 else f"{float(p):.2f} ({frac(p)})"


def _row(label: str, *parts: Segment) -> Line:
    return (seg(f"  {label:<10} ", "label"), *parts)


def luck_words(advice: LuckAdvice) -> tuple[Segment, ...]:
    """Whether Luck spent halving a loss pays (P-2), in words: the SAN it saves on average
    and a Luck point's share, and each insanity's chance against keeping the Luck."""
    if not advice.pays:
        return (seg("does not pay: it saves no SAN here", "bad"),)
    said = f"saves {_number(advice.saved)} SAN on average"
    if advice.per_luck is not None:
        said += f", {float(advice.per_luck):.3f} a Luck point"
    kinds = (
        ("temporary", advice.spending.temporary, advice.keeping.temporary),
        ("indefinite", advice.spending.indefinite, advice.keeping.indefinite),
    )
    against = [f"{k} {pct(a)} against {pct(b)}" for k, a, b in kinds if a is not None and b]
    return (seg("pays", "ok"), seg(f": {said}" + ("; " if against else "") + "; ".join(against)))
