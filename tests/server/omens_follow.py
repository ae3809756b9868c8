"""The new-names system (tests/new_names_system.py) with follow-ups of its own, made up for
the tests as CoC7's are shaped (C7-4, C7-5): after a miss or a doom, read the omen on the die
already rolled (1 Luck, +10, no new dice), or look again (a roll of its own, after which
nothing more may follow). Registered in its place (the same name) in-process, or loaded by a
server with ``D100_SYSTEMS=tests.server.omens_follow``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from d100.declarations import Declaration, FollowUp, Rolled
from tests import new_names_system as omens

READ, AGAIN = "omen-now", "again"


def after(rolled: Rolled) -> tuple[FollowUp, ...]:
    result, request = rolled.result, rolled.request
    if result.success or AGAIN in rolled.taken:
        return ()
    base: dict[str, Any] = {
        k: v for k, v in request.items() if k not in ("dice", omens.LUCK.reroll_field)
    }
    out = []
    if not base.get(omens.LUCK.boost_field):
        same = {**base, omens.LUCK.boost_field: True, "dice": list(result.dice)}
        out.append(FollowUp(READ, "Read the omen now (+10)", "Omen read after the roll", 1, same))
    out.append(FollowUp(AGAIN, "Look again", "Second look", 0, base))
    return tuple(out)


class OmensFollowed(omens.Omens):
    """The same system, by the same name, declaring these follow-ups."""

    declares: Declaration = replace(omens.DECLARATION, follow_ups=after)


SYSTEM = OmensFollowed()
