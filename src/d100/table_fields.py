"""The fields of a roll at a table: those the table fills in itself from the sheet and its
own state, and those a player may add to a test the GM called. The server refuses a roll
asking others (``server.rolls``); ``d100 verify`` holds a logged roll to the same."""

from __future__ import annotations

from .systems import REGISTRY

# Fields the table fills in itself at every table: the system, its house rules, the sheet's
# skill, a contest's sides and dice (typed by hand in their own field, where checked).
TABLE_FIELDS = frozenset({"system", "skill", "dice", "house_rules", "actor", "opponent"})


def reserved(system: str) -> frozenset[str]:
    """The fields a roll may not set at a table of ``system``: the table's own, and those
    the system declares the table fills in from the sheet (ability, synergies), the aiming
    state, the helpers attached to a called test (with what each takes from a sheet) and the
    Luck its follow-ups spend after the roll."""
    declares = REGISTRY.get(system).declares
    named = {declares.ability_field, declares.synergy_field}
    if declares.luck is not None:  # Luck spent after the roll: its follow-ups' to fill in
        named.add(declares.luck.after_field)
    if declares.aim is not None:
        named.add(declares.aim.field)
    if (helped := declares.assistance) is not None:
        named |= {helped.field, *helped.helper_fields}
    return TABLE_FIELDS | {name for name in named if name is not None}


def players_part(system: str) -> frozenset[str]:
    """What a player may add to a test the GM called: spending their own Luck, where the
    system has Luck. Every other field of a called test is the GM's (difficulty, modifiers,
    bonus dice, taking 50 or 100...)."""
    luck = REGISTRY.get(system).declares.luck
    fields = () if luck is None else (luck.boost_field, luck.reroll_field)
    return frozenset(f for f in fields if f)
