"""Every kind of event the log holds, one model each: the keys of its data, the member it
names as its actor, and who sees it (its visibility, and a called test's audience). Each kind
is made by its builder below and appended as that model (``events.append``); ``read`` turns a
logged row back into its model. The data written is the model's (``Entry.data``), key for key
the JSON events had before there were models, so old logs read as they did.

A key only some events of a kind have, only some viewers see (``access.shape`` takes parts
out of a view) or only events logged since some version have, is optional here and left out
of the data when unset; the builders take what every new event has. A key logs no longer
write is kept as ``legacy``: an old log reads as it was written. The JSON Schemas in
``schemas/events/`` describe each kind as a viewer sees it, generated from these
models (``event_views``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from .. import __version__
from .calculator import percents
from .models import Event, Logged

Visibility = Literal["public", "gm", "blind", "self"]
HIDDEN = "hidden"  # the kind of an event's stub, for a viewer who may not see it


def never_null(schema: dict[str, Any]) -> None:
    """An optional key is absent when unset, never null: its schema says so."""
    options = [s for s in schema.pop("anyOf", []) if s.get("type") != "null"]
    if options:
        schema.update(options[0] if len(options) == 1 else {"anyOf": options})
    schema.pop("default", None)


def absent() -> Any:
    """A key some events, or some views of one, leave out."""
    return Field(None, json_schema_extra=never_null)


def legacy(what: str) -> Any:
    """A key only events logged by an older version have."""
    return Field(None, description=f"in older logs only: {what}", json_schema_extra=never_null)


class Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class CharacterRef(Part):
    """A character as every member sees it: who it is and whose (None: deleted since)."""

    id: str
    name: str
    member_id: str | None


class LoggedMember(Part):
    id: str
    name: str
    role: Literal["gm", "player"]
    revoked: bool
    client_seed: str = Field(description="mixed into this member's rolls")


class BeaconRound(Part):
    """The drand quicknet round a seed's draws mix in (``d100.beacon``): named with the seed's
    commitment (a round published after it), its signature shown with the seed's reveal."""

    chain: str = Field(description="the drand chain's hash (quicknet's)")
    round: int
    signature: str | None = absent()


class LoggedSeed(Part):
    """A server seed: its commitment before its rolls, the seed itself once revealed."""

    id: str
    commitment: str = Field(description="SHA-256 of the server seed, shown before its rolls")
    rolls: int
    blind: bool
    chain: str | None = Field(
        None,
        description="open, blind, gm or self (access.Chain); absent in logs from before chains",
        json_schema_extra=never_null,
    )
    created_at: str
    member_id: str | None = absent()
    server_seed: str | None = absent()
    revealed_at: str | None = absent()
    beacon: BeaconRound | None = absent()


class BlindSeeds(Part):
    revealed: LoggedSeed | None = absent()
    active: LoggedSeed


class Provable(Part):
    """What a roll drew, to check it: with the revealed seed, resolving ``request`` gives the
    result again (``d100 verify``); a viewer kept from a part of the roll has no request."""

    seed_id: str
    commitment: str
    client_seed: str
    nonce: int
    engine: str | None = Field(
        None, description="the engine version that resolved it", json_schema_extra=never_null
    )
    request: dict[str, Any] | None = absent()
    # bound beside the numbers, so that verify holds the roll's ``character`` and ``skill``
    # to them; a roll made before d100 bound them has neither
    character_id: str | None = Field(
        None, description="whose roll: its character's id", json_schema_extra=never_null
    )
    character_name: str | None = Field(
        None, description="its character's name when rolled", json_schema_extra=never_null
    )
    member_id: str | None = Field(
        None, description="the member whose character it was", json_schema_extra=never_null
    )
    skill: str | None = Field(
        None, description="the skill rolled, by its name", json_schema_extra=never_null
    )


class Offer(Part):
    """A follow-up the roll's card offers its roller (``followups.offers``)."""

    key: str
    label: str
    luck: int
    needs: int | None = Field(
        None,
        description="the Luck the sheet must hold to take it, where more than it spends (C7-4)",
        json_schema_extra=never_null,
    )
    draws: bool
    chance: str | None = absent()
    odds: str | None = Field(
        None, description="its exact chance of success, p/q", json_schema_extra=never_null
    )
    stakes: str | None = Field(
        None,
        description="what taking it risks (C7-5)",
        json_schema_extra=never_null,
    )
    gives: dict[str, Any] | None = Field(
        None,
        description="exactly what it gives where that is more than a chance of success (Luck "
        "on an attack made, C7-4: the level, the outcome, the exact damage dealt after it "
        "beside the damage now)",
        json_schema_extra=never_null,
    )


class FollowUpTaken(Part):
    key: str
    done: str
    failed: str | None = absent()


class RollCall(Part):
    """The called test a roll answers; ``opponent``: the side the GM chose for a contest."""

    id: str
    target_id: str
    hazard: str
    opponent: CharacterRef | None = absent()


class LoggedAim(Part):
    rounds: int
    bonus: int


class LoggedAssist(Part):
    character_id: str
    skill: str
    name: str


class LoggedTarget(Part):
    id: str
    character: CharacterRef
    status: str = Field(description="pending, rolled, declined or cancelled")
    event_seq: int | None
    assists: list[LoggedAssist]


class LoggedSide(Part):
    """The side a called contest is against: its skill and fields only to its sheet's readers."""

    character: CharacterRef
    skill: str | None = absent()
    fields: dict[str, Any] | None = absent()
    contest: dict[str, Any] | None = absent()


class LoggedCall(Part):
    id: str
    skill: str
    fields: dict[str, Any]
    hazard: str
    visibility: Visibility
    at: str
    targets: list[LoggedTarget]
    opponent: LoggedSide | None = Field(None, description="a called contest's other side")
    players_fields: list[str] | None = Field(
        None, description="what a roller may add", json_schema_extra=never_null
    )


class Entry(Part):
    """One event of the log: its kind's data, and who made it and who sees it (not data)."""

    KIND: ClassVar[str]
    actor_id: str | None = Field(exclude=True)
    visibility: Visibility = Field(default="public", exclude=True)
    audience: list[str] | None = Field(default=None, exclude=True)

    def data(self) -> dict[str, Any]:
        """The event's data as the log keeps it: the keys set, in the model's order."""
        return self.model_dump(mode="json", exclude_unset=True)


class TableOpened(Entry):
    """A table's first event: its GM's client seed and the first seeds' commitments, bound
    before any roll."""

    KIND = "table"
    name: str
    system: str
    # absent in logs from before the GM's client seed, and then the first seeds, were bound
    gm: LoggedMember | None = absent()
    active: LoggedSeed | None = absent()
    blind: BlindSeeds | None = absent()
    chains: list[LoggedSeed] | None = absent()
    improvement: str | None = Field(
        None,
        description="what marks a skill for improvement at this table (its setting: off, "
        "failure, success), so that d100 verify replays each mark (absent in older logs)",
        json_schema_extra=never_null,
    )
    house_rules: dict[str, Any] | None = Field(
        None,
        description="the house rules the table opened with, so that d100 verify holds each "
        "roll to them (absent in older logs)",
        json_schema_extra=never_null,
    )


class Joined(Entry):
    KIND = "join"
    member: LoggedMember


class InviteRenewed(Entry):
    KIND = "invite"


class Revoked(Entry):
    KIND = "revoke"
    member: LoggedMember
    invite_renewed: bool | None = absent()


class ClientSeedSet(Entry):
    KIND = "client_seed"
    member_id: str
    client_seed: str


class ChainStarted(Entry):
    """A chain's first seed, announced by its commitment before the roll that starts it."""

    KIND = "chain"
    chains: list[LoggedSeed]


class SeedRevealed(Entry):
    """A private chain's seed revealed at a rotation, to that chain's audience only."""

    KIND = "reveal"
    revealed: LoggedSeed


class SeedRotated(Entry):
    KIND = "seed"
    revealed: LoggedSeed
    active: LoggedSeed
    blind: BlindSeeds | None = absent()
    chains: list[LoggedSeed] | None = absent()


class CharacterChanged(Entry):
    KIND = "character"
    character: CharacterRef
    change: Literal["created", "edited", "deleted", "marks"]
    changes: dict[str, list[Any]] | None = absent()
    sheet: dict[str, Any] | None = Field(
        None,
        description="the sheet as created or edited (its TOML table, sheets.to_table), so that "
        "d100 verify replays each roll from it; for its readers only (absent in older logs)",
        json_schema_extra=never_null,
    )


class RevealedSheet(Part):
    seq: int = Field(description="the character event whose sheet it is")
    character: CharacterRef = Field(description="the character as that event named it")
    sheet: dict[str, Any]


class SheetRevealed(Entry):
    """The GM shows every member a character's sheets, each as an earlier ``character`` event
    kept it from them: the export opens each one's commitment (``d100 verify`` checks it)."""

    KIND = "reveal_sheet"
    character: CharacterRef
    sheets: list[RevealedSheet]


class AboutCall(Entry):
    call: LoggedCall


class TestCalled(AboutCall):
    KIND = "call"


class CallCancelled(AboutCall):
    KIND = "cancel"


class Declined(Entry):
    KIND = "decline"
    call_id: str
    target_id: str
    character: CharacterRef
    skill: str


class Helped(Entry):
    KIND = "help"
    call_id: str
    target_id: str
    character: CharacterRef
    helping: CharacterRef
    skill: str


class Aimed(Entry):
    KIND = "aim"
    character: CharacterRef
    action: str
    aim: LoggedAim | None = None
    aim_rounds: int | None = legacy("the rounds aimed, before the bonus they add was logged")


class Rested(Entry):
    KIND = "rest"


class HouseRulesSet(Entry):
    """The GM sets the table's house rules in a chat-bot word (SealDice's ``.setcoc 2``):
    every roll after it is judged by them (``d100 verify`` holds each to them)."""

    KIND = "house_rules"
    before: dict[str, Any] = Field(description="the table's house rules until then")
    after: dict[str, Any] = Field(description="the table's house rules from then on")
    words: str = Field(description="the words the GM typed: .setcoc 2")
    told: str = Field(description="what the rules set say, in the system's words")


class Rolled(Entry):
    """A check or a contest, or a follow-up of a check (its ``rerolls`` .. ``spent``)."""

    character: CharacterRef
    skill: str
    request: dict[str, Any] | None = absent()
    odds: dict[str, Any] | None = Field(None, description="exact odds; null: no dice rolled")
    percent: dict[str, Any] | None = None
    manual: bool = Field(description="dice typed by hand")
    rerolls: int | None = absent()
    reroll_of: int | None = absent()
    reroll_number: int | None = legacy("a Luck reroll's number, before follow-ups were named")
    follow_up: FollowUpTaken | None = absent()
    taken: list[str] | None = absent()
    luck_spent: int | None = absent()
    spent: int | None = absent()
    provable: Provable
    result: dict[str, Any] | None = Field(
        None, description="the result (result.schema.json)", json_schema_extra=never_null
    )
    aim: LoggedAim | None = absent()
    follow_ups: list[Offer] | None = absent()
    opponent: CharacterRef | None = absent()
    opponent_skill: str | None = absent()
    helpers: list[CharacterRef] | None = Field(
        None, description="who helped, in the request's order", json_schema_extra=never_null
    )
    call: RollCall | None = absent()
    sheet: dict[str, Any] | None = Field(
        None,
        description="the value the check left its skill at on the actor's sheet (a Delta Green "
        "SAN test's SAN): the skill, its value before and after, and whether it was written "
        "(only where every reader of the sheet sees the roll)",
        json_schema_extra=never_null,
    )


class Roll(Rolled):
    KIND = "roll"


class Contest(Rolled):
    KIND = "contest"
    opponent: CharacterRef


class Unblinding(Entry):
    unblinds: int = Field(description="the blind roll's number")
    roll_kind: Literal["roll", "contest"]
    roller_id: str | None
    rolled_at: str | None = absent()


class Unblinded(Rolled, Unblinding):
    """A blind roll shown to everyone: the roll again, after what it shows."""

    KIND = "unblind"


class DeclaredDefender(Part):
    """The character an action was made against (a melee attack's defender) and the skill of
    their sheet it read: its value and their damage bonus are in the request, kept from
    whoever may not read that sheet."""

    character: CharacterRef
    skill: str


class DeclaredRoll(Entry):
    """A roll of a kind the table's system declares beside the check: a dice expression
    (``1d6+1``), a Sanity roll (``sc 1/1d6``) or one of its actions (CoC7's ``attack``,
    ``shots``, ``full_auto``, ``far``), for a character or none. Its ``provable.request`` is
    ``{"roll": kind, "request": ...}``, resolved again by verify."""

    KIND = "declared"
    roll: str = Field(
        description="dice, sanity, development (a character's phase), or the name of an "
        "action the table's system declares (an attack with its damage, several shots, full "
        "auto, FAR)"
    )
    words: str | None = Field(
        None,
        description="the roll as asked: 1d6+1, sc 1/1d6 (absent from a view withholding the "
        "roller's numbers: an NPC's, to players)",
        json_schema_extra=never_null,
    )
    character: CharacterRef | None = absent()
    request: dict[str, Any] | None = absent()
    odds: dict[str, Any] | None = Field(
        None, description="exact odds (DiceOdds, SanityOdds, an action's odds)"
    )
    provable: Provable
    result: dict[str, Any] | None = Field(
        None, description="the result (DiceResult, SanityResult)", json_schema_extra=never_null
    )
    reading: dict[str, Any] | None = Field(
        None,
        description="how it reads, as every door shows it (a SanityView, or a dice total)",
        json_schema_extra=never_null,
    )
    sheet: dict[str, Any] | None = Field(
        None,
        description="what it did to the character's sheet: SAN before and after, and whether "
        "it was written (only where every reader of the sheet sees the roll)",
        json_schema_extra=never_null,
    )
    defender: DeclaredDefender | None = absent()
    # a follow-up of an action (Luck spent on an attack made, C7-4), as a check's
    rerolls: int | None = absent()
    reroll_of: int | None = absent()
    follow_up: FollowUpTaken | None = absent()
    taken: list[str] | None = absent()
    luck_spent: int | None = absent()
    spent: int | None = absent()
    follow_ups: list[Offer] | None = absent()


class DeclaredUnblinded(DeclaredRoll):
    """A blind dice or Sanity roll shown to everyone: the roll again, after what it shows."""

    KIND = "unblind_declared"
    unblinds: int = Field(description="the blind roll's number")
    roller_id: str | None
    rolled_at: str | None = absent()


KINDS: dict[str, type[Entry]] = {
    kind.KIND: kind
    for kind in (
        TableOpened,
        Joined,
        InviteRenewed,
        Revoked,
        ClientSeedSet,
        ChainStarted,
        SeedRevealed,
        SeedRotated,
        CharacterChanged,
        SheetRevealed,
        TestCalled,
        CallCancelled,
        Declined,
        Helped,
        Aimed,
        Rested,
        HouseRulesSet,
        Roll,
        Contest,
        Unblinded,
        DeclaredRoll,
        DeclaredUnblinded,
    )
}


def read(event: Event | Logged) -> Entry:
    """A logged event as its kind's model."""
    envelope = {"actor_id": event.actor_id, "visibility": event.visibility}
    return KINDS[event.kind].model_validate(event.data | envelope | {"audience": event.audience})


# -- builders: one per kind ---------------------------------------------------------------

E = TypeVar("E", bound=Entry)


def _made(
    kind: type[E],
    actor_id: str | None,
    visibility: str = "public",
    audience: list[str] | None = None,
    **data: Any,
) -> E:
    """The event, checked as its model: the builders' parts come as the views they are."""
    envelope = {"actor_id": actor_id, "visibility": visibility, "audience": audience}
    return kind.model_validate(data | envelope)


def opened(
    name: str,
    system: str,
    gm: Mapping[str, Any],
    active: Mapping[str, Any],
    blind: Mapping[str, Any],
    improvement: str,
    house_rules: Mapping[str, Any],
) -> TableOpened:
    # The other chains (the GM's, each member's gm and self) start on their first roll,
    # each announced by a "chain" event before it: their rolls are bound to them.
    blinds = {"active": blind}
    return _made(
        TableOpened,
        gm["id"],
        name=name,
        system=system,
        gm=gm,
        active=active,
        blind=blinds,
        chains=[],
        improvement=improvement,
        house_rules=dict(house_rules),
    )


def joined(member: Mapping[str, Any]) -> Joined:
    return _made(Joined, member["id"], member=member)


def invite_renewed(actor_id: str) -> InviteRenewed:
    return _made(InviteRenewed, actor_id, "gm")  # the link is the GM's to share


def revoked(member: Mapping[str, Any], actor_id: str) -> Revoked:
    return _made(Revoked, actor_id, member=member, invite_renewed=True)


def client_seed_set(member_id: str, client_seed: str) -> ClientSeedSet:
    return _made(ClientSeedSet, member_id, member_id=member_id, client_seed=client_seed)


def chain_started(seed: Mapping[str, Any], actor_id: str) -> ChainStarted:
    return _made(ChainStarted, actor_id, chains=[seed])


def seed_revealed(seed: Mapping[str, Any], visibility: str, actor_id: str) -> SeedRevealed:
    return _made(SeedRevealed, actor_id, visibility, revealed=seed)


def seed_rotated(
    revealed: Mapping[str, Any],
    active: Mapping[str, Any],
    blind: tuple[Mapping[str, Any], Mapping[str, Any]] | None,
    chains: Sequence[Mapping[str, Any]],
    actor_id: str,
) -> SeedRotated:
    """``blind``: the blind seed revealed and the next, when every blind roll of it was shown."""
    shown: dict[str, Any] = {"revealed": revealed, "active": active}
    if blind is not None:
        shown["blind"] = {"revealed": blind[0], "active": blind[1]}
    return _made(SeedRotated, actor_id, **shown, chains=list(chains))


def character_changed(
    character: Mapping[str, Any],
    change: str,
    changes: dict[str, list[Any]] | None,
    actor_id: str,
    sheet: dict[str, Any] | None = None,
) -> CharacterChanged:
    """A character created, edited, deleted or its marks cleared. Its ``sheet`` (as created
    or edited) is for the sheet's readers only (``access.decide`` keeps it from the others,
    whose exports bind it by its salted digest in the chain). What an edit changed is too:
    the event is then the sheet's readers' (its player and the GMs), a stub for everyone else."""
    shown: dict[str, Any] = {} if sheet is None else {"sheet": sheet}
    if changes is None:
        return _made(CharacterChanged, actor_id, character=character, change=change, **shown)
    readers = None if character["member_id"] is None else [character["member_id"]]
    return _made(
        CharacterChanged,
        actor_id,
        "gm",
        readers,
        character=character,
        change=change,
        changes=changes,
        **shown,
    )


def sheet_revealed(
    character: Mapping[str, Any],
    shown: Sequence[tuple[int, Mapping[str, Any], Mapping[str, Any]]],
    actor_id: str,
) -> SheetRevealed:
    """A character's sheets shown to everyone (a public event): each with the number of the
    event that kept it and the character as that event named it."""
    sheets = [{"seq": seq, "character": ref, "sheet": sheet} for seq, ref, sheet in shown]
    return _made(SheetRevealed, actor_id, character=character, sheets=sheets)


def test_called(call: Mapping[str, Any], actor_id: str, audience: list[str] | None) -> TestCalled:
    return _made(TestCalled, actor_id, audience=audience, call=call)


def call_cancelled(
    call: Mapping[str, Any], actor_id: str, audience: list[str] | None
) -> CallCancelled:
    return _made(CallCancelled, actor_id, audience=audience, call=call)


def declined(
    call_id: str,
    target_id: str,
    character: Mapping[str, Any],
    skill: str,
    actor_id: str,
    audience: list[str] | None,
) -> Declined:
    return _made(
        Declined,
        actor_id,
        audience=audience,
        call_id=call_id,
        target_id=target_id,
        character=character,
        skill=skill,
    )


def helped(
    call_id: str,
    target_id: str,
    character: Mapping[str, Any],
    helping: Mapping[str, Any],
    skill: str,
    actor_id: str,
    audience: list[str] | None,
) -> Helped:
    return _made(
        Helped,
        actor_id,
        audience=audience,
        call_id=call_id,
        target_id=target_id,
        character=character,
        helping=helping,
        skill=skill,
    )


def aimed(
    character: Mapping[str, Any], action: str, aim: Mapping[str, Any] | None, actor_id: str
) -> Aimed:
    return _made(Aimed, actor_id, character=character, action=action, aim=aim)


def rested(actor_id: str) -> Rested:
    return _made(Rested, actor_id)


def house_rules_set(
    before: Mapping[str, Any], after: Mapping[str, Any], words: str, told: str, actor_id: str
) -> HouseRulesSet:
    return _made(
        HouseRulesSet, actor_id, before=dict(before), after=dict(after), words=words, told=told
    )


class Drawn(Protocol):
    """What a roll drew (``gametables.Draw``)."""

    @property
    def seed_id(self) -> str: ...
    @property
    def commitment(self) -> str: ...
    @property
    def client_seed(self) -> str: ...
    @property
    def nonce(self) -> int: ...


class Names(Protocol):
    """Whom a roll names: what the view policy reads of it (``access.decide``)."""

    @property
    def character(self) -> CharacterRef: ...
    @property
    def request(self) -> dict[str, Any] | None: ...
    @property
    def opponent(self) -> CharacterRef | None: ...
    @property
    def helpers(self) -> list[CharacterRef] | None: ...
    @property
    def call(self) -> RollCall | None: ...


class Named(Part):
    """Whom a roll names, known before it draws: its roller's character and request, and its
    opponent, helpers and call. The view policy reads them (``access.decide``) to say who sees
    what of the roll, and so which chain of seeds it draws from (``access.chain_of``)."""

    character: CharacterRef
    request: dict[str, Any]
    opponent: CharacterRef | None = None
    opponent_skill: str | None = None
    helpers: list[CharacterRef] | None = None
    call: RollCall | None = None
    # the character a declared action is made against, their sheet's side kept from whoever
    # may not read it
    defender: CharacterRef | None = None


class Followed(Part):
    """A follow-up's own part of its roll: the first roll, the one it follows, what it did,
    everything taken so far and the Luck spent, by it and by all."""

    rerolls: int
    reroll_of: int
    follow_up: FollowUpTaken
    taken: list[str]
    luck_spent: int
    spent: int


def rolled(
    named: Named,
    skill: str,
    odds: dict[str, Any] | None,
    manual: bool,
    drawn: Drawn,
    resolved: dict[str, Any],
    result: dict[str, Any],
    visibility: str,
    actor_id: str,
    offers: Sequence[Mapping[str, Any]] = (),
    aim: Mapping[str, Any] | None = None,
    followed: Followed | None = None,
    sheet: Mapping[str, Any] | None = None,
) -> Roll | Contest:
    """A check, a contest or a follow-up of a check (``followed``). ``resolved``: what was
    resolved, dice typed in by hand included, so that with the revealed seed resolving it
    gives ``result`` again (``d100 verify``); ``odds`` None where no dice are rolled."""
    provable = {
        "seed_id": drawn.seed_id,
        "commitment": drawn.commitment,
        "client_seed": drawn.client_seed,
        "nonce": drawn.nonce,
        "engine": __version__,  # the engine that resolved it: verify says if it differs
        "request": resolved,
        "character_id": named.character.id,
        "character_name": named.character.name,
        "member_id": named.character.member_id,
        "skill": skill,
    }
    fields: dict[str, Any] = {
        "character": named.character,
        "skill": skill,
        "request": named.request,
        "odds": odds,
        "percent": None if odds is None else percents(odds),
        "manual": manual,
        **({} if followed is None else dict(followed)),
        "provable": provable,
        "result": result,
        **({} if aim is None else {"aim": aim}),
        **({} if sheet is None else {"sheet": dict(sheet)}),
        **({"follow_ups": list(offers)} if offers else {}),
        **{k: v for k, v in named if k not in ("character", "request") and v is not None},
    }
    if named.opponent is None:
        return _made(Roll, actor_id, visibility, **fields)
    return _made(Contest, actor_id, visibility, **fields)


def unblinded(shown: Rolled, seq: int, roll_kind: str, rolled_at: str, actor_id: str) -> Unblinded:
    """A blind roll shown to everyone: a public event repeating it, result included."""
    return _made(
        Unblinded,
        actor_id,
        unblinds=seq,
        roll_kind=roll_kind,
        roller_id=shown.actor_id,
        rolled_at=rolled_at,  # the card tells when it was rolled, not shown
        **shown.data(),
    )


def declared(
    roll: str,
    words: str,
    character: Mapping[str, Any] | None,
    request: dict[str, Any],
    odds: dict[str, Any] | None,
    drawn: Drawn,
    result: dict[str, Any],
    reading: dict[str, Any],
    sheet: dict[str, Any] | None,
    visibility: str,
    actor_id: str,
    defender: Mapping[str, Any] | None = None,
    offers: list[dict[str, Any]] | None = None,
    followed: Followed | None = None,
) -> DeclaredRoll:
    """A dice expression or a Sanity roll: ``request`` resolved with the drawn seed gives
    ``result`` again (``d100 verify``); an action's follow-ups offered (``offers``), and
    where it is one, what it follows (``followed``: ``Followed``'s fields)."""
    provable: dict[str, Any] = {
        "seed_id": drawn.seed_id,
        "commitment": drawn.commitment,
        "client_seed": drawn.client_seed,
        "nonce": drawn.nonce,
        "engine": __version__,
        "request": {"roll": roll, "request": request},
    }
    if character is not None:
        provable |= {
            "character_id": character["id"],
            "character_name": character["name"],
            "member_id": character["member_id"],
        }
    fields: dict[str, Any] = {
        "roll": roll,
        "words": words,
        **({} if character is None else {"character": character}),
        "request": request,
        "odds": odds,
        "provable": provable,
        "result": result,
        "reading": reading,
        **({} if sheet is None else {"sheet": sheet}),
        **({} if defender is None else {"defender": defender}),
        **({} if followed is None else dict(followed)),
        **({"follow_ups": offers} if offers else {}),
    }
    return _made(DeclaredRoll, actor_id, visibility, **fields)


def declared_unblinded(
    shown: DeclaredRoll, seq: int, rolled_at: str, actor_id: str
) -> DeclaredUnblinded:
    """A blind dice or Sanity roll shown to everyone: a public event repeating it."""
    return _made(
        DeclaredUnblinded,
        actor_id,
        unblinds=seq,
        roller_id=shown.actor_id,
        rolled_at=rolled_at,
        **shown.data(),
    )
