"""The JSON bodies the HTTP API accepts. Strict: unknown fields and loose types are refused
(422). Contract fields inside ``fields`` and ``request`` are checked by the library."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from d100.systems import REGISTRY

from . import calculator
from .access import VISIBILITIES
from .declared import DeclaredSpec, Defender
from .party import PartySpec
from .rolls import RollSpec, Side
from .tokens import CONTROLS, UNPRINTABLE

OPTIONS = 50  # keys in an options object: every system has far fewer fields


def _printable(value: str) -> str:
    # A no-break (or other Unicode) space is a space: a phone or a pasted document brings them.
    value = "".join(" " if unicodedata.category(c) == "Zs" else c for c in value)
    if UNPRINTABLE.search(value):
        raise ValueError("control characters (a tab, a line break or the like) are not allowed")
    return value


def whole(value: Any) -> Any:
    """JSON Schema counts 76.0 an integer, so a client may send one: whole floats become ints
    here, at the boundary, and the core stays strict (it has no fractional field)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [whole(v) for v in value]
    if isinstance(value, dict):
        return {k: whole(v) for k, v in value.items()}
    return value


Printable = AfterValidator(_printable)
NoControl = Field(json_schema_extra={"pattern": f"^[^{CONTROLS}]*$"})
# A name is more than its spaces (runs of them become one).
NAMED = f"^[^{CONTROLS}]*[^{CONTROLS}\\s][^{CONTROLS}]*$"
Named = Field(json_schema_extra={"pattern": NAMED})
Int = Annotated[int, BeforeValidator(whole)]
Text = Annotated[str, Field(min_length=1, max_length=200), Named, Printable]
Name = Annotated[str, Field(min_length=1, max_length=80), Named, Printable]  # a skill, a member
Token = Annotated[str, Field(min_length=1, max_length=200), NoControl, Printable]
Id = Annotated[str, Field(min_length=1, max_length=40), NoControl, Printable]
Sheet = Annotated[str, Field(min_length=1, max_length=20_000)]
Options = Annotated[dict[str, Any], Field(max_length=OPTIONS), AfterValidator(whole)]
# The registry's names, described as the choices (the library still names them if refused).
System = Annotated[str, Field(json_schema_extra={"enum": list(REGISTRY.names())})]
Visibility = Annotated[str, Field(json_schema_extra={"enum": list(VISIBILITIES)})]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NewTable(Body):
    name: Text
    system: System
    gm_name: Name = "GM"
    house_rules: Options = Field(default_factory=dict)
    settings: Options = Field(default_factory=dict)
    beacon: bool = Field(
        False,
        description="every seed names a future drand quicknet round its dice mix in, so no "
        "one, the server's operator included, can choose them (on a server that fetches rounds)",
    )


class SignIn(Body):
    token: Token


class Invitation(Body):
    invite: Token


class JoinTable(Invitation):
    name: Name


class ClientSeed(Body):
    client_seed: Annotated[str, Field(min_length=1, max_length=128), NoControl, Printable]


class CharacterSheet(Body):
    sheet: Sheet
    member_id: Id | None = None


# pydantic describes no key's pattern: said here (a sheet's names are trimmed too, see characters).
Values = Annotated[
    dict[Name, Int | None],
    Field(max_length=100, json_schema_extra={"propertyNames": {"pattern": NAMED}}),
]


class LuckValues(Body):
    current: Int
    maximum: Int


class SheetValues(Body):
    """A form's edit of a sheet: each skill or ability set to a value, or removed (null)."""

    skills: Values = Field(default_factory=dict)
    abilities: Values = Field(default_factory=dict)
    luck: LuckValues | None = None


class Aim(Body):
    action: Text


class SideBody(Body):
    character_id: Id
    skill: Text | None = None
    ability: Text | None = None
    fields: Options = Field(default_factory=dict)
    dice: list[Int] | None = Field(default=None, max_length=100)
    aimed: bool = False

    def spec(self) -> Side:
        return Side(self.character_id, self.skill, self.ability, self.fields, self.dice, self.aimed)


class Roll(Body):
    actor: SideBody
    opponent: SideBody | None = None
    visibility: Visibility = "public"
    target_id: Id | None = None
    fields: Options = Field(default_factory=dict)  # a contest's own, beside its sides

    def spec(self) -> RollSpec:
        opponent = None if self.opponent is None else self.opponent.spec()
        return RollSpec(self.actor.spec(), opponent, self.visibility, self.target_id, self.fields)


class DeclaredDefender(Body):
    """The character an action is made against (a melee attack's defender): the table reads
    their skill (by default the response's: Dodge, or Fighting) and damage bonus from their
    sheet, kept from whoever may not read it."""

    character_id: Id
    skill: Name | None = None


class DeclaredRoll(Body):
    """A dice expression or a Sanity roll in the command line's words (``1d6+1``, ``2d6+DB``,
    ``sc 1/1d6``, ``sc 1/1d6 int=70``), for a character (its sheet gives a Sanity roll SAN,
    INT and the Mythos, and takes the SAN left) or none (then SAN is in the words)."""

    words: Text
    character_id: Id | None = None
    visibility: Visibility = "public"
    defender: DeclaredDefender | None = None

    def spec(self) -> DeclaredSpec:
        defender = self.defender
        faced = None if defender is None else Defender(defender.character_id, defender.skill)
        return DeclaredSpec(self.words, self.character_id, self.visibility, faced)


class PartyDevelopment(Body):
    """The whole party's development phase (the GM's): every player's character's, with
    each one's Luck recovery roll too where ``luck``."""

    luck: bool = False
    visibility: Visibility = "public"

    def spec(self) -> PartySpec:
        return PartySpec(self.luck, self.visibility)


class Reroll(Body):
    """A follow-up of a check (its card's offers): which one (its key; none: the first the
    rules give), and dice typed by hand for one that rolls."""

    follow_up: Name | None = None
    dice: list[Int] | None = Field(default=None, max_length=100)


class CalledOpponent(Body):
    """The side a called contest is against, chosen by the GM: the called player rolls
    against it without naming (or knowing) its skill."""

    character_id: Id
    skill: Name
    fields: Options = Field(default_factory=dict)
    contest: Options = Field(default_factory=dict)  # the contest's own fields (a response)

    def spec(self) -> Side:
        return Side(self.character_id, self.skill, fields=self.fields)


class CallTest(Body):
    skill: Name
    fields: Options = Field(default_factory=dict)
    hazard: Annotated[str, Field(max_length=500), NoControl, Printable] = ""
    character_ids: list[Id] = Field(min_length=1, max_length=50)
    visibility: Visibility = "public"
    opponent: CalledOpponent | None = None
    lowest: bool = Field(
        default=False,
        description="a group's Luck roll: called for the character named with the lowest "
        "Luck alone, where their system has one (CoC7)",
    )


class Assist(Body):
    character_id: Id
    skill: Name


class Chart(Body):
    model_config = ConfigDict(
        extra="forbid", strict=True, json_schema_extra=calculator.chart_bounds
    )

    request: Annotated[Options, Field(json_schema_extra=calculator.chart_request_schema())]
    low: Int = Field(default=0, ge=0, le=1000)
    high: Int = Field(
        default=100,
        ge=0,
        le=1000,
        description=f"the last skill charted; at most {calculator.MAX_POINTS} points in all, "
        "those past them left out (none where high is below low)",
    )
    step: Int = Field(default=5, ge=1, le=1000)
