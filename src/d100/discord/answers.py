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
from ..results import CheckOdds, CheckResult
from . import sanity
from .interactions import message
from .limits import CONTENT_MAX, clip
from .render import (
    advice_message,
    dice_message,
    dice_odds_message,
    error_message,
    escaped,
    odds_message,
    repeated_message,
    report_message,
    roll_message,
    word_roll_message,
)

ROLL, ODDS, ADVISE = "roll", "odds", "advise"
SETTING = "/table open system: coc7 house_rules: setcoc = 2"
OWN = "own"  # an answer's part its roller alone gets, after it (a hidden roll's result)


def dice_for(secret: bytes, interaction_id: str) -> ProvableSource:
    return ProvableSource(secret, f"discord:{interaction_id}", 0)


def hidden(who: str, made: dict[str, Any]) -> dict[str, Any]:
    """A roll asked hidden (SealDice's ``.rah``, BCDice's ``S``): the channel is told only
    that it was made, and the roll goes to its roller alone (``OWN``: a private follow-up),
    as SealDice sends it privately with a notice to the group (SD-W3)."""
    return {**message(f"{escaped(who)} rolled in secret."), OWN: made}


def quick_answer(
    command: str,
    words: str,
    system: str | None,
    private: bool,
    who: str,
    secret: bytes,
    interaction_id: str,
    table: quick.Settings | None = None,
) -> dict[str, Any]:
    """The message answering ``/roll``, ``/odds`` or ``/advise`` with these words; ``table``:
    the settings of the channel's table, by system, which a chat-bot word leaves to its table
    (SealDice's words: the table's ``setcoc``, else rule 0, as in the shell's session; a
    word that sets nothing, SealDice's ``.setcoc`` alone, says that table's rule)."""
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
            totals = expressions.odds(asked_dice.text).to_dict()
            if command == ODDS:
                return dice_odds_message(totals, private)
            thrown = expressions.roll(asked_dice.text, dice_for(secret, interaction_id))
            reading = expressions.reading(thrown.to_dict(), totals)
            return dice_message(who, words, reading, private)
        special = quick.read_command(words, system) if words.lstrip()[:1] == "." else None
        if special is not None and special.tells is not None:  # .setcoc alone: no roll
            kept = (table or {}).get(str(special.request["system"]), {})
            return message(clip(escaped(special.tells(kept)), CONTENT_MAX), private=private)
        if special is not None and special.settings:  # .setcoc: a channel's table's
            raise D100Error(
                "words",
                words,
                f"a roll; a channel's table takes its rules when opened ({SETTING}), or from "
                f"its GM's /r {words.strip()}",
                "a setting, not a roll",
            )
        if command == ROLL and special is not None and special.roll is not None:
            kept = (table or {}).get(str(special.request["system"]), {})
            house = kept.get(quick.HOUSE, {})
            done = special.roll.play(house, dice_for(secret, interaction_id))  # .sc, .en
            return word_roll_message(who, words, done.title, done.lines, private)
        form = quick.read_form(words, system, table)
        request = form.request
        asked = {k: v for k, v in request.items() if k != "dice"}
        if command == ROLL:
            source = dice_for(secret, interaction_id)  # one source: each repeat draws anew
            rolled = [resolve(request, source) for _ in range(form.repeat)]
            if form.repeat == 1:
                made = roll_message(who, rolled[0], odds(asked), private or form.secret)
            else:
                checks = [r for r in rolled if isinstance(r, CheckResult)]
                chance = odds(asked)
                assert len(checks) == len(rolled) and isinstance(chance, CheckOdds)  # 3#: .ra
                made = repeated_message(who, checks, chance, private or form.secret)
            return hidden(who, made) if form.secret and not private else made
        if command == ODDS:
            return odds_message(request, odds(request), private)
        if command == ADVISE:
            if is_contest(request):
                raise D100Error("words", words, "a check", "advice is for a single check")
            return advice_message(request, advise(request), private)
    except D100Error as err:
        return error_message(err.message)
    raise ValueError(f"not a quick command: {command!r}")
