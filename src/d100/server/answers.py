"""What /openapi.json shows of the main success answers: documentation only (routes list them in
``responses``, so no answer is validated or re-serialised on its way out). A field only some
viewers get is optional; a field no viewer may see is never named."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .event_kinds import CharacterRef
from .event_views import Head


class Answer(BaseModel):
    model_config = ConfigDict(extra="allow")  # a later field is no breaking change


class TableView(Answer):
    id: str
    name: str
    system: str = Field(description="a name from /api/systems")
    house_rules: dict[str, Any]
    settings: dict[str, Any]
    last_seq: int = Field(description="the last event's number: read the log from here")
    follow_up_window: int = Field(
        description="a roll more than this many events before last_seq can no longer be followed up"
    )
    beacon: bool | None = Field(
        None, description="true: every seed names a drand quicknet round its dice mix in"
    )
    head: Head | None = Field(
        None,
        description="the log's head (its last event's number and link), for a member to keep: "
        "absent until the log's first linked event",
    )


class MemberView(Answer):
    id: str
    name: str
    role: str = Field(description="gm or player")
    revoked: bool
    client_seed: str | None = Field(None, description="mixed into this member's rolls")


class InvitedTo(Answer):
    name: str
    system: str = Field(description="a name from /api/systems")
    title: str = Field(description="the system's title, in words")


class Invitation(Answer):
    """What an invite link opens, before joining."""

    table: InvitedTo
    game_masters: list[str]


class CharacterView(Answer):
    """A character; its values (skills, abilities, sheet ...) only to the GM and its player."""

    id: str
    name: str
    member_id: str | None
    system: str | None = None
    skills: dict[str, int] | None = None
    abilities: dict[str, int] | None = None
    luck: Any = None
    uses: dict[str, Any] | None = None
    aim: Any = None
    marks: dict[str, Any] | None = None
    rollable: dict[str, int] | None = Field(
        None,
        description="every value a check may be made against: the skills, then (with an "
        "investigator) characteristics, Luck and base skills",
    )
    sheet: str | None = Field(None, description="the sheet's TOML")


class SeedView(Answer):
    id: str
    commitment: str = Field(description="SHA-256 of the server seed, shown before its rolls")
    rolls: int
    blind: bool
    created_at: str
    server_seed: str | None = Field(None, description="once revealed (rotated)")
    revealed_at: str | None = None
    beacon: dict[str, Any] | None = Field(
        None, description="at a table with the beacon: the quicknet round its draws mix in"
    )


class CalledSide(Answer):
    """The side a called contest is against: its skill and fields only to the GM."""

    character: CharacterRef
    skill: str | None = None
    fields: dict[str, Any] | None = None


class CallView(Answer):
    """A GM's call for a test: whom it calls (targets: one each, answered by rolling)."""

    id: str
    targets: list[dict[str, Any]]
    skill: str | None = None
    fields: dict[str, Any] | None = None
    hazard: str | None = None
    visibility: str | None = None
    at: str | None = None
    opponent: CalledSide | None = None
    players_fields: list[str] | None = Field(None, description="what a roller may add")


class TableState(Answer):
    table: TableView
    me: MemberView
    members: list[MemberView]
    characters: list[CharacterView]
    calls: list[CallView] = Field(description="the open calls for a test")
    seeds: list[SeedView] = Field(default_factory=list)


class CreatedTable(Answer):
    table: TableView
    me: MemberView
    gm_link: str = Field(description="the GM's link: keep it, it is the GM's only key")
    invite_link: str


Fractions = dict[str, Any]  # exact chances as "p/q" strings: each level's, and success's


class Advice(Answer):
    name: str
    cost: str
    request: dict[str, Any]
    odds: Fractions


class DeclaredOdds(Answer):
    """A dice, Sanity or development roll before it is made: its kind, the request its words
    make at this table (from the character's sheet) and its exact odds, as the roll logs
    them."""

    roll: str
    request: dict[str, Any]
    odds: dict[str, Any]


class Told(Answer):
    """What a word that sets nothing says of the table's rules (SealDice's ``.setcoc`` alone:
    the rule in use), asked in the roll box's words; nothing is logged."""

    told: str


class PartyPhase(Answer):
    """One character's phase in the party's: who, its request and its exact odds."""

    character: dict[str, str]
    roll: str
    request: dict[str, Any]
    odds: dict[str, Any]


class PartyOdds(Answer):
    """The whole party's development phase before it is rolled: each player's character's
    phase with its odds, the characters left out and why, and the rolls it comes to against
    the most one action makes."""

    phases: list[PartyPhase]
    skipped: list[dict[str, str]]
    rolls: int
    most: int


class PartyRolled(Answer):
    """The whole party's development phase as rolled: each character's phase its own event
    (as one asked alone), and the characters left out."""

    events: list[dict[str, Any]]
    skipped: list[dict[str, str]]


class OddsAnswer(Answer):
    """Exact odds of a request (CONTRACT.md): the request as read, chances as fractions and
    percentages; for a check, advice (ways to better them) and what each level means."""

    request: dict[str, Any]
    odds: Fractions
    percent: dict[str, Any] | None = None
    advice: list[Advice] | None = None
    meanings: dict[str, str] | None = None


def documented(status: int, model: Any) -> dict[int | str, dict[str, Any]]:
    return {status: {"model": model}}


class LedgerAnswer(Answer):
    character: str | None = Field(description="whose ledger: a character's id or name, or null")
    member: str | None = Field(description="a member's id or name, or null (the table's)")
    window: dict[str, Any] = Field(description="the part of the log read: last, the rolls kept")
    rolls: int = Field(description="the rolls counted")
    seqs: list[int] = Field(description="the numbers of the events counted")
    typed: int = Field(description="of them, rolls with dice typed by hand")
    levels: list[dict[str, Any]] = Field(
        description="each level rolled: system, level, success, observed, expected (p/q)"
    )
    successes: dict[str, Any] = Field(
        description="rolls, observed, expected, at_least and at_most (exact p/q), verdict"
    )
    left_out: list[dict[str, Any]] = Field(
        description="the rolls seen but not counted: reason, rolls, seqs"
    )
    view: dict[str, Any] = Field(
        description="the ledger as the page shows it: title, summary, rows, successes, tail"
        " (in words), verdict, left_out"
    )
