"""The whole party's development phase, the GM's one action at the end of a session: every
player's character at the table with something to roll has its own phase (``developing``),
its odds shown first, each logged as its own ``declared`` event, so ``d100 verify`` replays
each as it replays one asked alone (``develop``). The GMs' own characters (NPCs) are left out:
their phases are the GM's alone, never public.

Its work is known before any is done: the party's rolls (characters x marked skills, and Luck
where asked) are counted from the sheets, and refused past ``MOST_ROLLS``; each character's
request is bounded as one asked alone (``development.MAX_ROLLS`` and the engine's budget)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .. import tallies
from ..declarations import DEVELOP_LUCK, DEVELOP_WORDS
from ..errors import TooMuchWork
from ..systems import REGISTRY
from . import declared, developing
from .access import Viewer, require_gm
from .errors import bad, conflict, invalid
from .events import get_table, lock_table
from .models import Character, Event, GameTable
from .rolls import Planned

MOST_ROLLS = 400  # a party's rolls in one action: a dozen characters with thirty marks each
WORD = DEVELOP_WORDS[0]


@dataclass(frozen=True)
class PartySpec:
    """The party's phase: with each character's Luck recovery roll too (where the rules have
    one), in a roll mode every reader of each sheet sees (public)."""

    luck: bool = False
    visibility: str = "public"

    @property
    def words(self) -> str:
        """Each character's phase's words, as one asked alone logs them."""
        return f"{WORD} {DEVELOP_LUCK}" if self.luck else WORD


@dataclass(frozen=True)
class Phase:
    """One character's phase in the party's: whose (id and name) and what it asks, as a
    declared roll logs it."""

    character: dict[str, str]
    tagged: dict[str, Any]  # {"roll": "development", "request": ...}

    @property
    def rolls(self) -> int:
        request = self.tagged["request"]
        return len(request["skills"]) + ("luck" in request)


@dataclass(frozen=True)
class Party:
    """The party's phases, in the order the characters joined, and the characters left out
    with why (nothing marked)."""

    phases: tuple[Phase, ...]
    skipped: tuple[dict[str, str], ...]

    @property
    def rolls(self) -> int:
        return sum(p.rolls for p in self.phases)


def players_characters(session: Session, viewer: Viewer) -> list[Character]:
    """The characters of the table's players, in the order they were made."""
    rows = session.scalars(
        select(Character)
        .where(Character.table_id == viewer.table_id)
        .order_by(Character.created_at, Character.id)
    ).all()
    return [r for r in rows if r.member_id not in viewer.gms]


def plan(session: Session, viewer: Viewer, table: GameTable, spec: PartySpec) -> Party:
    """Every player's character's phase, refused as the GM's alone, where the table's rules
    have none, past ``MOST_ROLLS``, or where nobody has anything to roll; a character with
    nothing marked (nor Luck asked) is left out, named."""
    require_gm(viewer, "roll the party's development phase")
    if REGISTRY.get(table.system).declares.development is None:
        raise bad(
            "system",
            table.system,
            "a table whose rules have a development phase",
            "its rules have no development phase",
        )
    rows, skipped = [], []
    for row in players_characters(session, viewer):
        if developing.marks_of(row) or spec.luck:
            rows.append(row)
        else:
            skipped.append({"id": row.id, "name": row.name, "why": "nothing marked"})
    counted = sum(len(developing.marks_of(r)) + spec.luck for r in rows)
    if counted > MOST_ROLLS:  # counted from the marks, before any request is made
        raise bad(
            "party",
            f"{counted} rolls",
            f"at most {MOST_ROLLS} rolls (characters x marked skills) in one action",
            "too many for one action: roll some characters' phases alone (develop)",
        )
    if not rows:
        raise bad("party", None, "a player's character with marks to roll", "nothing to roll")
    phases, cost = [], 0
    for row in rows:
        developing.may_develop(session, viewer, spec.visibility, row)
        made = declared.asked(table, row, spec.words)
        cost += made.cost()
        whose = {"id": row.id, "name": row.name}
        phases.append(Phase(whose, {"roll": made.roll, "request": made.to_dict()}))
    if cost > tallies.BUDGET:
        raise invalid(TooMuchWork("party", cost, tallies.BUDGET), "party")
    return Party(tuple(phases), tuple(skipped))


def preview(session: Session, viewer: Viewer, spec: PartySpec) -> Party:
    """The party's phases as they would be rolled now, read without the table's lock."""
    return plan(session, viewer, get_table(session, viewer.table_id), spec)


def asks(words: str) -> PartySpec | None:
    """The party's phase where the words ask for it (``develop party``, ``develop party
    luck``), else None: the words a chat command takes."""
    tokens = [t.lower() for t in words.split()]
    if tokens[:1] not in ([w] for w in DEVELOP_WORDS) or tokens[1:2] != [declared.PARTY]:
        return None
    if tokens[2:] not in ([], [DEVELOP_LUCK]):
        return None
    return PartySpec(luck=len(tokens) > 2)


def tagged(party: Party) -> dict[str, Any]:
    """The party's phases as a declared roll's ``Dear`` names them, for their odds."""
    return {"roll": declared.PARTY, "request": [p.tagged for p in party.phases]}


def odds(tagged: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each phase's exact odds, in order (on a worker: bounded by ``plan``)."""
    return list(declared.planned_odds({"roll": declared.PARTY, "request": tagged})["phases"])


def shown(party: Party, chances: list[dict[str, Any]]) -> dict[str, Any]:
    """The preview's answer: each character's request and odds, who is left out, and the
    rolls it comes to against the most one action makes."""
    return {
        "phases": [
            {"character": p.character, **p.tagged, "odds": o}
            for p, o in zip(party.phases, chances, strict=True)
        ],
        "skipped": list(party.skipped),
        "rolls": party.rolls,
        "most": MOST_ROLLS,
    }


def roll(
    session: Session, viewer: Viewer, spec: PartySpec, planned: list[Planned]
) -> tuple[list[Event], Party]:
    """Every phase, under the table's lock, with the odds worked out for it (``planned``, in
    order): each its own event, as ``declared.roll`` makes one asked alone. Refused, nothing
    rolled, where a sheet changed since its odds were worked out."""
    table = lock_table(session, viewer.table_id)
    party = plan(session, viewer, table, spec)
    if [p.tagged for p in party.phases] != [p.request for p in planned]:
        raise conflict(
            "party",
            None,
            "the party as it was when its odds were worked out",
            "a character changed meanwhile; roll again",
        )
    events = []
    for phase, odds_planned in zip(party.phases, planned, strict=True):
        one = declared.DeclaredSpec(spec.words, phase.character["id"], spec.visibility)
        events.append(declared.roll(session, viewer, one, odds_planned))
    return events, party
