"""Sanity rolls in Discord's quick commands: ``/roll words: coc7 sc 1/1d6 60`` rolls one on the
interaction's provable dice, as any quick roll, and ``/odds`` shows every loss exactly. The
words are ``d100.sanity_form``'s; a roll shows its ``SanityView``."""

from __future__ import annotations

from typing import Any

from .. import sanity, sanity_form
from ..dice import RandomSource
from ..errors import TooMuchWork
from ..render.sanity_views import asked as asked_text
from ..render.sanity_views import luck_words
from ..render.view import frac, pct
from ..sanity import SanityOdds
from ..sanity_view import sanity_view
from ..systems import REGISTRY
from .interactions import message
from .render import COLOURS, embed, escaped


def answer(
    command: str, asked: sanity_form.Asked, private: bool, who: str, dice: RandomSource
) -> dict[str, Any]:
    """The message answering ``/roll`` (``command`` "roll") or ``/odds`` with a Sanity roll's
    words; ``/advise`` says whether Pulp's Luck halving its loss pays (P-2)."""
    request = sanity_form.request(asked)
    inputs = escaped(asked_text(request))
    system = REGISTRY.get(request.system).title
    if command == "advise":  # P-2: whether Luck spent halving a loss pays
        advice = sanity.luck_advice(request)
        said = "".join(text for text, _ in luck_words(advice))
        fields = [("Halving the loss", said), *_odds(advice.spending)]
        fields += [(f"{name}, keeping the Luck", text) for name, text in _odds(advice.keeping)]
        title = f"{system} Sanity roll: is Pulp's Luck worth it?"
        return message(embeds=[embed(title, inputs, fields)], private=private)
    if command == "odds":
        every = sanity.odds(request)
        rows = [(f"Loss {loss}", f"{pct(p)} ({frac(p)})") for loss, p in every.losses.items()]
        title = f"{system} Sanity roll: exact odds"
        return message(embeds=[embed(title, inputs, _odds(every) + rows)], private=private)
    result = sanity.roll(request, dice)
    chance: SanityOdds | None
    try:
        chance = sanity.odds(request)
    except TooMuchWork:  # rolling costs little; counting every loss may cost more
        chance = None
    view = sanity_view(result, chance)
    fields = [
        ("Dice", f"{view.roll:02d}"),
        ("Level", f"{view.mark} {view.level.upper()}: {view.verdict}"),
        ("Loss", f"{view.loss} ({view.loss_words})"),
        ("SAN", f"{view.sanity} → {view.sanity_after}"),
    ]
    if view.int_words:
        fields.append(("INT roll", view.int_words))
    fields.append(("Insanity", view.insanity))
    fields += [] if chance is None else _odds(chance)
    title = f"{view.mark} {view.level.upper()} · {view.title}"
    body = embed(
        title,
        f"{escaped(who)} rolled {inputs}" if who else inputs,
        fields,
        view.explanation,
        COLOURS.get(view.style, 0),
    )
    return message(embeds=[body], private=private)


def _odds(chance: SanityOdds) -> list[tuple[str, str]]:
    out = [
        ("Success", f"{pct(chance.success)} ({frac(chance.success)})"),
        ("Mean loss", f"{float(chance.mean):.2f} ({frac(chance.mean)})"),
    ]
    for name, p in (
        ("Temporary insanity", chance.temporary),
        ("Indefinite insanity", chance.indefinite),
        ("Permanent insanity", chance.permanent),
    ):
        out.append((name, "give INT for its odds" if p is None else f"{pct(p)} ({frac(p)})"))
    return out
