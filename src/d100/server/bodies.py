"""The JSON bodies the HTTP API accepts. Strict: unknown fields and loose types are refused
(422). Contract fields inside ``fields`` and ``request`` are checked by the library."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .rolls import RollSpec, Side

OPTIONS = 50  # keys in an options object: every system has far fewer fields


def _printable(value: str) -> str:
    # A no-break (or other Unicode) space is a space, not a control character: a phone or a
    # pasted document brings them. Control characters have no place in a one-line text, and
    # PostgreSQL refuses NUL outright.
    value = "".join(" " if unicodedata.category(c) == "Zs" else c for c in value)
    if not value.isprintable():
        raise ValueError("control characters are not allowed")
    return value


Printable = AfterValidator(_printable)
Text = Annotated[str, Field(min_length=1, max_length=200), Printable]
Name = Annotated[str, Field(min_length=1, max_length=80), Printable]  # a skill, as stored
Token = Annotated[str, Field(min_length=1, max_length=200), Printable]
Id = Annotated[str, Field(min_length=1, max_length=40), Printable]
Sheet = Annotated[str, Field(min_length=1, max_length=20_000)]
Options = Annotated[dict[str, Any], Field(max_length=OPTIONS)]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NewTable(Body):
    name: Text
    system: Text
    gm_name: Text = "GM"
    house_rules: Options = Field(default_factory=dict)
    settings: Options = Field(default_factory=dict)


class SignIn(Body):
    token: Token


class JoinTable(Body):
    invite: Token
    name: Text


class ClientSeed(Body):
    client_seed: Annotated[str, Field(max_length=200), Printable]


class CharacterSheet(Body):
    sheet: Sheet
    member_id: Id | None = None


class LuckValues(Body):
    current: int
    maximum: int


class SheetValues(Body):
    """A form's edit of a sheet: each skill or ability set to a value, or removed (null)."""

    skills: Annotated[dict[Name, int | None], Field(max_length=100)] = Field(default_factory=dict)
    abilities: Annotated[dict[Name, int | None], Field(max_length=100)] = Field(
        default_factory=dict
    )
    luck: LuckValues | None = None


class Aim(Body):
    action: Text


class SideBody(Body):
    character_id: Id
    skill: Text | None = None
    ability: Text | None = None
    fields: Options = Field(default_factory=dict)
    dice: list[int] | None = Field(default=None, max_length=100)
    aimed: bool = False

    def spec(self) -> Side:
        return Side(self.character_id, self.skill, self.ability, self.fields, self.dice, self.aimed)


class Roll(Body):
    actor: SideBody
    opponent: SideBody | None = None
    visibility: Text = "public"
    target_id: Id | None = None
    fields: Options = Field(default_factory=dict)  # a contest's own, beside its sides

    def spec(self) -> RollSpec:
        opponent = None if self.opponent is None else self.opponent.spec()
        return RollSpec(self.actor.spec(), opponent, self.visibility, self.target_id, self.fields)


class Reroll(Body):
    """A follow-up of a check (its card's offers): which one (its key; none: the first the
    rules give), and dice typed by hand for one that rolls."""

    follow_up: Name | None = None
    dice: list[int] | None = Field(default=None, max_length=100)


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
    hazard: Annotated[str, Field(max_length=500), Printable] = ""
    character_ids: list[Id] = Field(min_length=1, max_length=50)
    visibility: Text = "public"
    opponent: CalledOpponent | None = None


class Assist(Body):
    character_id: Id
    skill: Name


class Chart(Body):
    request: Options
    low: int = Field(default=0, ge=0, le=1000)
    high: int = Field(default=100, ge=0, le=1000)
    step: int = Field(default=5, ge=1, le=1000)
