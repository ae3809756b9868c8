"""A group's Luck roll, where a system's investigator rule has one (CoC7: the investigator
present with the lowest Luck rolls for the group, ``Investigator.group_luck``). Who rolls is
chosen here; the roll is the character's own Luck check, made as any other."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .errors import D100Error
from .systems import REGISTRY

if TYPE_CHECKING:  # a roll by numbers reads no sheet: start-up counts
    from .sheets import Character


def declared() -> list[tuple[str, str]]:
    """The systems with a group Luck roll, with their rule in words."""
    return [
        (s.name, i.group_luck)
        for s in REGISTRY
        if (i := s.declares.investigator) is not None and i.group_luck is not None
    ]


def who_rolls(present: Sequence[Character], where: str = "WHO") -> Character:
    """The character who rolls for the group: the lowest Luck, the first named of a tie.
    Everyone present must play by a group Luck rule and have Luck on the sheet."""
    if not present:
        raise D100Error(where, None, "one or more characters present", "nobody present")
    systems = ", ".join(s for s, _ in declared())
    for c in present:
        rules = c.investigator_rules
        if rules is None or rules.group_luck is None:
            allowed = f"characters of a system with a group Luck roll: {systems}"
            raise D100Error(where, c.name, allowed, f"{c.system} has no group Luck roll")
        if c.luck is None:
            raise D100Error(where, c.name, "characters with Luck on the sheet", "no Luck")
    return min(present, key=lambda c: c.luck.current if c.luck else 0)
