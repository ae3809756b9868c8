"""The quick commands' answers, pure: the words typed in, the message out. Run on the
server's preview workers (``server/work.py``), as their odds may be dear.

A roll's dice are drawn from HMAC-SHA256 keyed by the server's Discord secret over the
interaction's id (``d100.provable``): the same interaction gives the same dice in any
process, so a replayed payload answers the same roll without anything stored."""

from __future__ import annotations

from typing import Any

from .. import expressions, quick, sanity_form
from ..actions import find
from ..advise import advise
from ..engine import is_contest, odds, resolve
from ..errors import D100Error
from ..provable import ProvableSource
from . import sanity
from .render import (
    advice_message,
    dice_message,
    dice_odds_message,
    error_message,
    odds_message,
    report_message,
    roll_message,
    word_roll_message,
)

ROLL, ODDS, ADVISE = "roll", "odds", "advise"


def dice_for(secret: bytes, interaction_id: str) -> ProvableSource:
    return ProvableSource(secret, f"discord:{interaction_id}", 0)


def quick_answer(
    command: str,
    words: str,
    system: str | None,
    private: bool,
    who: str,
    secret: bytes,
    interaction_id: str,
) -> dict[str, Any]:
    """The message answering ``/roll``, ``/odds`` or ``/advise`` with these words."""
    try:
        losing = sanity_form.read(words.split(), system)
        if losing is not None:
            return sanity.answer(command, losing, private, who, dice_for(secret, interaction_id))
        found = find(words.split(), system) if command == ROLL else None
        if found is not None:  # a system's own request: full auto, several shots
            rolled = found.action.roll(found.request, dice_for(secret, interaction_id))
            report = found.action.report(rolled, found.action.odds(found.request))
            return report_message(who, words, report, found.label, private)
        asked_dice = quick.dice_words(words.split()) if command in (ROLL, ODDS) else None
        if asked_dice is not None:  # 2d6+1, coc7 1d8+1d4: a dice expression with its odds
            chance = expressions.odds(asked_dice.text)
            if command == ODDS:
                return dice_odds_message(chance.to_dict(), private)
            rolled = expressions.roll(asked_dice.text, dice_for(secret, interaction_id))
            reading = expressions.reading(rolled.to_dict(), chance.to_dict())
            return dice_message(who, words, reading, private)
        special = quick.read_command(words, system) if words.lstrip()[:1] == "." else None
        if command == ROLL and special is not None and special.roll is not None:
            done = special.roll.play({}, dice_for(secret, interaction_id))  # .sc, .en
            return word_roll_message(who, words, done.title, done.lines, private)
        request = quick.read(words, system)
        asked = {k: v for k, v in request.items() if k != "dice"}
        if command == ROLL:
            result = resolve(request, dice_for(secret, interaction_id))
            return roll_message(who, result, odds(asked), private)
        if command == ODDS:
            return odds_message(request, odds(request), private)
        if command == ADVISE:
            if is_contest(request):
                raise D100Error("words", words, "a check", "advice is for a single check")
            return advice_message(request, advise(request), private)
    except D100Error as err:
        return error_message(err.message)
    raise ValueError(f"not a quick command: {command!r}")
