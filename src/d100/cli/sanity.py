"""Sanity rolls on the command line: ``d100 roll coc7 sc 1/1d6 60`` rolls one with its odds,
``d100 odds coc7 sc 1/1d6 60`` shows every loss exactly; with a sheet, ``d100 roll --sheet
party.toml alice sc 1/1d6`` takes SAN (and INT, the Cthulhu Mythos) from alice's skills and
writes the SAN left back, and with ``pulp`` spends her Luck to halve a loss (P-2). The words
are ``d100.sanity_form``'s."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace

from .. import sanity, sanity_form
from ..errors import D100Error, TooMuchWork, integer
from ..render.sanity_views import odds_view, roll_view
from ..render.view import View, seg
from ..sanity import SanityOdds, SanityRequest
from ..sanity_view import sanity_view
from ..sheets import Character
from ..systems import REGISTRY
from . import flags
from .output import show


def read(ns: argparse.Namespace, said: Sequence[str]) -> sanity_form.Asked | None:
    """The Sanity roll the words ask for, or None: a system's name (or ``--system``'s, or a
    character's on the sheet) and a Sanity word first."""
    words = sanity_form.words()
    # a sheet is looked for only where a character's name may stand before a Sanity word
    maybe = len(said) > 1 and said[1].lower() in words and said[0].lower() not in words
    named = maybe and bool(flags.sheet_path(ns))
    return sanity_form.read(said, ns.system, named)


def request(
    ns: argparse.Namespace, asked: sanity_form.Asked
) -> tuple[SanityRequest, Character | None]:
    """The request the words ask for, with the sheet's values for a character on it."""
    flagged = getattr(ns, flags.dest_of("luck"), None)  # luck=N: the roll's --luck took it
    if flagged is not None:
        luck = integer(str(flagged), "luck", "the Luck to spend, with pulp (P-2)")
        asked = replace(asked, fields={**asked.fields, "luck": luck})
    if asked.who is None:
        return sanity_form.request(asked), None
    character = flags.open_sheet(ns).get(asked.who)
    named = replace(asked, who=character.name)
    return sanity_form.request(named, sanity_form.sheet_fields(character)), character


def run_roll(ns: argparse.Namespace, asked: sanity_form.Asked) -> int:
    from .roll import rng_of, spend_luck

    wanted, character = request(ns, asked)
    result = sanity.roll(wanted, rng_of(ns))
    chance: SanityOdds | None
    try:
        chance = sanity.odds(wanted)
    except TooMuchWork:  # rolling costs little; counting every loss may cost more
        chance = None
    shown = sanity_view(result, chance)
    data = {**result.to_dict(), "view": shown.to_dict()}
    if chance is not None:
        data["odds"] = {k: v for k, v in chance.to_dict().items() if k != "request"}
    view = roll_view(shown, wanted)
    if character is not None:
        data["who"] = character.name
        written = []
        if result.sanity_after != result.sanity:
            written.append(write_back(ns.sheet, character.name, result.sanity_after))
        if result.luck_spent:
            written += spend_luck(ns.sheet, [(character.name, result.luck_spent)])
        view = view + View(tuple((seg("  sheet      ", "label"), seg(w, "warn")) for w in written))
    show(ns, view, data)
    return 0


def write_back(path: str, who: str, value: int) -> str:
    """The SAN left written to the sheet, read afresh so other edits are kept; atomic."""
    from ..sheets import load, save

    sheet = load(path)
    character = sheet.get(who)
    save(path, sheet.put(sanity_form.with_sanity(character, value)))
    return f"{who}'s SAN is now {value}"


def run_odds(ns: argparse.Namespace, asked: sanity_form.Asked) -> int:
    if asked.dice is not None:
        raise D100Error("dice", list(asked.dice), "no dice: odds weigh every roll", "dice given")
    wanted, _ = request(ns, asked)
    chance = sanity.odds(wanted)
    title = f"{REGISTRY.get(wanted.system).title} Sanity roll odds"
    advice = sanity.luck_advice(wanted) if wanted.pulp else None
    data = chance.to_dict()
    if advice is not None:  # P-2: whether the Luck pays, beside the odds spending it
        data["luck_advice"] = {k: v for k, v in advice.to_dict().items() if k != "spending"}
    show(ns, odds_view(title, wanted, chance, advice), data)
    return 0
