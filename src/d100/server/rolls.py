"""Checks and contests at a table: a character's sheet and the table's rules make the contract
request, the odds are worked out before the dice fall and kept with the result, and every
drawn die comes from the table's provable-dice session (``d100.provable``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..audiences import sees_result
from ..declarations import IMPROVEMENTS, Rolled
from ..engine import parse, resolve
from ..errors import D100Error
from ..luck import Luck, luck_needed
from ..provable import ProvableSource
from ..results import CheckResult, Result
from ..systems import REGISTRY
from ..table_fields import TABLE_FIELDS, players_part, reserved
from . import characters, followups
from . import event_kinds as kinds
from .access import (
    VISIBILITIES,
    Viewer,
    chain_of,
    in_audience,
    may_edit,
    require_editor,
    require_gm,
    sheet_readers_see,
    withholds,
)
from .calculator import cheap_odds
from .errors import ApiError, bad, conflict, forbidden, invalid, not_found, renamed
from .events import append, get_table, lock_table
from .gametables import draw
from .models import BlindRoll, Call, CallAssist, CallTarget, Character, Event, GameTable
from .store import write_columns

SIDES = ("actor", "opponent")


@dataclass(frozen=True)
class Side:
    """One character's part in a roll: which skill, what else applies, and any dice rolled
    by hand."""

    character_id: str
    skill: str | None = None
    ability: str | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)
    dice: list[int] | None = None
    aimed: bool = False  # BRP5: fire with the aim built up, spending it


@dataclass(frozen=True)
class RollSpec:
    actor: Side
    opponent: Side | None = None  # a contest between two characters
    visibility: str = "public"
    target_id: str | None = None  # the called test this roll answers
    fields: Mapping[str, Any] = field(default_factory=dict)  # a contest's own (its response)
    # the house rules a chat-bot word asks of its roll over the table's (SealDice's ``.rc``:
    # rule 0): set by a door reading such words, never by a request's body
    house_rules: Mapping[str, Any] = field(default_factory=dict)

    @property
    def sides(self) -> list[Side]:
        return [self.actor] if self.opponent is None else [self.actor, self.opponent]


@dataclass(frozen=True)
class Prepared:
    request: dict[str, Any]  # without dice: the odds' request
    parsed: Any  # ``request`` as engine.parse gives it (frozen), parsed once
    rows: list[Character]
    skills: list[str]
    target: CallTarget | None
    call: Call | None
    spec: RollSpec  # as asked, with the opponent a GM's call chose for a called contest
    helpers: list[dict[str, Any]]  # the called test's helpers, named in its event's order


def prepare(session: Session, table: GameTable, spec: RollSpec, viewer: Viewer) -> Prepared:
    """The checked contract request for this roll, without any dice yet. Only the actor's
    editor may roll or preview it, and a player starts a contest only against a sheet they
    read (the GM calls any other): refused before the sheets are read, so no error tells of a
    hidden sheet."""
    if spec.visibility not in VISIBILITIES:
        raise bad(
            "visibility", spec.visibility, "one of " + ", ".join(VISIBILITIES), "unknown roll mode"
        )
    target, call = _target(session, table, spec, viewer)
    if spec.opponent is not None and call is not None:
        raise bad(
            "opponent",
            "a contest",
            "no opponent when answering a called test",
            "the GM chose this contest's opponent"
            if call.opponent is not None
            else "a called test is a check",
        )
    if spec.fields and call is not None:
        raise bad("fields", spec.fields, "none (leave it out)", "the GM's call sets the contest")
    if call is not None and call.opponent is not None:
        chosen = call.opponent
        opponent = Side(chosen["character_id"], chosen["skill"], None, chosen["fields"])
        spec = replace(spec, opponent=opponent, fields=chosen.get("contest", {}))
    _contest_fields(spec, table.system)
    if spec.opponent is not None and spec.opponent.character_id == spec.actor.character_id:
        raise bad(
            "opponent.character_id",
            spec.opponent.character_id,
            "another character than the actor",
            "a character cannot contest themselves",
        )
    if call is not None and spec.visibility not in ("public", call.visibility):
        # Silently rolling it in the call's mode would show a roll its roller asked to hide.
        raise bad(
            "visibility",
            spec.visibility,
            f"{call.visibility!r}, the mode the GM called it in (or leave it out)",
            "a called test is rolled in the mode the GM chose",
        )
    rows, skills, parts = [], [], []
    helpers: list[dict[str, Any]] = []
    for name, side in zip(SIDES, spec.sides, strict=False):
        row = characters.load(session, table.id, side.character_id, f"{name}.character_id")
        editor = may_edit(viewer, row)
        called = call if name == "actor" else None  # the GM's call for the roller's side
        # An opponent the GM's call chose has the GM's options, and whether its readers see
        # the roll is checked in the call's mode (_hideable, and when it was called).
        if name == "actor":
            require_editor(viewer, row, "roll or preview odds for this character")
        elif call is None and not editor:
            # Refused alike whatever skill is named, before the sheet is read: else naming a
            # skill's first letters tells what is on a sheet the roller may not read.
            raise forbidden(
                f"a contest against {row.name}: ask the GM to call this contest",
                "a contest against a character whose sheet you may read, or one the GM calls",
            )
        skill = side.skill if called is None else called.skill
        if called is not None:
            _players_part(table, called, side)
        # Past _players_part only the player's own Luck differs from the call: theirs to spend.
        fields = {**({} if called is None else called.fields), **side.fields}
        try:
            skill_name, part = side_request(table, row, skill, side.ability, fields, name, editor)
        except ApiError:
            if editor:
                raise
            # Only the GM's call names a sheet the roller may not read: it changed since.
            raise conflict(
                "target_id",
                spec.target_id,
                "a call that still fits every sheet in it",
                f"{row.name}'s sheet changed since the call: ask the GM to call it again",
            ) from None
        if side.aimed:
            aim = REGISTRY.get(table.system).declares.aim
            if aim is None:
                raise bad(
                    f"{name}.aimed",
                    True,
                    "false: this table's rules have no aiming",
                    "this table does not aim",
                )
            part[aim.field] = row.aim_rounds
        if target is not None and name == "actor":
            assisted, helpers = _assistance(session, table, target, viewer)
            part |= assisted
        rows.append(row)
        skills.append(skill_name)
        parts.append(part)
    request: dict[str, Any] = {"system": table.system}
    request |= parts[0] if len(parts) == 1 else {"actor": parts[0], "opponent": parts[1]}
    request |= spec.fields
    house = {**table.house_rules, **spec.house_rules}
    if house:
        request["house_rules"] = house
    try:
        parsed = parse(request)
    except D100Error as err:
        root = err.field.split(".")[0].split("[")[0]
        if _unreadable(viewer, table, rows, helpers, root):
            raise conflict(
                "target_id",
                spec.target_id,
                "a call that still fits every sheet in it",
                "a sheet in this call changed since: ask the GM to call it again",
            ) from None
        own = root in spec.fields  # placed as the body has it
        raise (invalid(err, "fields") if own else invalid(err)) from None
    return Prepared(request, parsed, rows, skills, target, call, spec, helpers)


def _unreadable(
    viewer: Viewer,
    table: GameTable,
    rows: list[Character],
    helpers: list[dict[str, Any]],
    root: str,
) -> bool:
    """Whether an error about the request's ``root`` field would tell a number of a sheet the
    viewer may not read: a side's (a contest's) or a helper's."""
    sides = dict(zip(SIDES, rows, strict=False)) if len(rows) > 1 else {}
    if root in sides and not may_edit(viewer, sides[root]):
        return True
    assistance = REGISTRY.get(table.system).declares.assistance
    helped = assistance is not None and root in (assistance.field, "actor")
    return helped and any(withholds(viewer, h["member_id"]) for h in helpers)


def _contest_fields(spec: RollSpec, system: str) -> None:
    """A contest's own fields (a melee response) go beside its two sides: only in a contest,
    and none of the fields the table fills in itself (its tie-break flip is drawn, as dice are)."""
    if spec.fields and spec.opponent is None:
        raise bad(
            "fields", spec.fields, "none without an opponent", "a check has no contest fields"
        )
    tie_break = REGISTRY.get(system).declares.tie_break
    table_sets = TABLE_FIELDS | ({tie_break.field} if tie_break is not None else set())
    for key, value in spec.fields.items():
        if key in table_sets:
            raise bad(
                f"fields.{key}",
                value,
                "contest fields other than " + ", ".join(sorted(table_sets)),
                "the table sets this field itself",
            )


def _seen_by_readers(session: Session, viewer: Viewer, visibility: str, row: Character) -> None:
    """A contest against a character whose sheet the roller may not read is seen by that
    sheet's readers (its player and the GM)."""
    if not sheet_readers_see(session, visibility, viewer.member_id, row):
        raise bad(
            "visibility",
            visibility,
            "a mode in which the opponent's player and the GM see the result",
            f"a contest against {row.name} is seen by {row.name}'s player and the GM",
        )


def side_request(
    table: GameTable,
    row: Character,
    skill: str | None,
    ability: str | None,
    fields: Mapping[str, Any],
    where: str,
    editor: bool,
) -> tuple[str, dict[str, Any]]:
    """The skill's name as the sheet has it, and one side's check fields: the sheet's skill
    (and ability, synergy) plus ``fields``. An error about a sheet the
    viewer may not read (``editor`` false) names none of its skills: a did-you-mean would
    list them."""
    if not skill:
        raise bad(f"{where}.skill", skill, "a skill on the character's sheet", "required")
    table_sets = reserved(table.system)
    for key in fields:
        if key in table_sets:
            raise bad(
                f"{where}.fields.{key}",
                fields[key],
                "check fields other than " + ", ".join(sorted(table_sets)),
                "the table sets this field itself",
            )
    sheet = characters.sheet_of(row)
    try:
        skill = sheet.skill(skill)
    except D100Error as err:
        if not editor:
            raise bad(
                f"{where}.skill", skill, f"a skill on {row.name}'s sheet", "not on that sheet"
            ) from None
        raise renamed(err, f"{where}.skill") from None
    try:
        return skill, {**sheet.side(skill, ability), **fields}
    except D100Error as err:
        if not editor:
            raise bad(
                f"{where}.ability", ability, f"an ability on {row.name}'s sheet", "not usable"
            ) from None
        raise renamed(err, f"{where}.ability") from None


def _players_part(table: GameTable, call: Call, side: Side) -> None:
    """A called test's request is the GM's: the player may only spend their own Luck (and
    type dice where the table lets them). Its skill, ability and aim are the call's too."""
    if side.skill is not None and side.skill != call.skill:
        raise bad(
            "actor.skill",
            side.skill,
            f"{call.skill!r}, the skill the GM called (or leave it out)",
            "the GM's call sets the test",
        )
    if side.ability is not None:
        raise bad(
            "actor.ability",
            side.ability,
            "none: the called skill's own ability (leave it out)",
            "the GM's call sets the test",
        )
    if side.aimed:
        raise bad(
            "actor.aimed",
            True,
            "false on a called test (leave it out)",
            "the GM's call sets the test",
        )
    theirs = players_part(table.system)
    for key, value in side.fields.items():
        if key not in theirs and (key not in call.fields or call.fields[key] != value):
            allowed = ", ".join(sorted(theirs)) or "no fields"
            raise bad(
                f"actor.fields.{key}",
                value,
                f"only {allowed} on a called test",
                "the GM called this test: its fields are the GM's",
            )


@dataclass(frozen=True)
class Planned:
    """What a roll's odds were worked out for, before its write transaction, and the odds."""

    request: dict[str, Any]
    odds: dict[str, Any]


def preview(session: Session, viewer: Viewer, spec: RollSpec) -> tuple[dict[str, Any], int | None]:
    """The request a roll would make and its actor's Luck left, for its preview
    (``calculator.preview``). For the player of every character in it and the GM only: odds
    and advice tell a sheet's skills and Luck."""
    table = get_table(session, viewer.table_id)
    if spec.opponent is not None:  # before its sheet is read: a refusal there tells its skills
        opponent = spec.opponent.character_id
        row = characters.load(session, table.id, opponent, "opponent.character_id")
        require_editor(viewer, row, "preview odds against this character (its odds tell its skill)")
    prepared = prepare(session, table, spec, viewer)
    if len(prepared.rows) > 1:  # a called contest: the opponent is the one the GM chose
        require_editor(viewer, prepared.rows[1], "preview odds against this character")
    hidden = next((h for h in prepared.helpers if withholds(viewer, h["member_id"])), None)
    if hidden is not None:  # the odds of a helped test tell each helper's skill
        raise forbidden(
            f"preview odds helped by {hidden['name']} (its odds tell its skill)",
            "the helpers' players or the game master",
        )
    luck = characters.sheet_of(prepared.rows[0]).luck
    return prepared.request, None if luck is None else luck.current


class Dear(Exception):
    """A roll's odds are too dear to work out under the table's lock: the caller has a worker
    work them out for ``request`` and rolls again with them (``Planned``)."""

    def __init__(self, request: dict[str, Any]) -> None:
        super().__init__("odds to be worked out first")
        self.request = request


def roll(session: Session, viewer: Viewer, spec: RollSpec, planned: Planned | None) -> Event:
    """The roll, made under the table's lock. Cheap odds are worked out here, in the one
    transaction (``calculator.cheap_odds``: a memo look-up once asked); dear ones raise
    ``Dear`` before anything is written, and are worked out elsewhere first (``planned``):
    if what they were worked out for has changed since (a sheet edited, a call answered),
    the roll is refused, to be asked again."""
    table = lock_table(session, viewer.table_id)
    prepared = prepare(session, table, spec, viewer)
    spec = prepared.spec
    if planned is None:
        chance = cheap_odds(prepared.parsed)
        if chance is None:
            raise Dear(prepared.request)
        planned = Planned(prepared.request, chance)
    elif planned.request != prepared.request:
        raise conflict(
            "request",
            None,
            "the roll as it was when its odds were worked out",
            "the character or the call changed meanwhile; roll again",
        )
    # A test the GM called is rolled in the mode the GM chose.
    visibility = prepared.call.visibility if prepared.call is not None else spec.visibility
    shared = _hideable(session, viewer, visibility, prepared, spec)
    lucks = _luck_before(viewer, prepared)
    request = _with_dice(table, prepared.request, spec)
    named = _named(prepared, spec)
    chain = chain_of(visibility, viewer.member_id, named, viewer.gms)
    drawn = draw(session, table, chain, viewer.member_id)
    source = ProvableSource(bytes.fromhex(drawn.server_seed), drawn.client_seed, drawn.nonce)
    try:
        # Without dice typed in by hand the request is the one already parsed.
        result = resolve(prepared.parsed if request is prepared.request else request, source)
    except D100Error as err:
        raise invalid(err) from None
    checks = _checks(result)
    for row, luck, check in zip(prepared.rows, lucks, checks, strict=True):
        if luck is not None and check.luck_spent:
            characters.change_luck(session, row, luck.spend(check.luck_spent))
    aimed = None
    for row, side in zip(prepared.rows, spec.sides, strict=True):
        if side.aimed:  # firing spends the aim (BRP5): the card says what it added
            aimed = characters.aim_view(table.system, row.aim_rounds)
            row.aim_rounds = 0
    _mark(session, table, prepared.rows, prepared.skills, checks, shared, viewer.gms)
    wrote = None
    if isinstance(result, CheckResult):
        wrote = _leave(session, prepared.rows[0], prepared.skills[0], result, shared[0])
    offers: list[dict[str, Any]] = []
    if isinstance(result, CheckResult) and shared[0]:  # only its sheet's readers may see
        luck = characters.sheet_of(prepared.rows[0]).luck
        left = None if luck is None else luck.current
        rolled = Rolled(request, result, left, result.luck_spent or 0, (), prepared.skills[0])
        offers = followups.offers(rolled, table.system)
    made = kinds.rolled(
        named,
        prepared.skills[0],
        planned.odds,
        any(side.dice is not None for side in spec.sides),
        drawn,
        request,
        result.to_dict(),
        visibility,
        viewer.member_id,
        offers,
        aimed,
        sheet=wrote,
    )
    # nothing pending that it refers to: the commit writes the rest
    event = append(session, table, made, flush=False)
    if prepared.target is not None:
        prepared.target.status = "rolled"
        prepared.target.event_seq = event.seq
    if visibility == "blind":
        session.add(BlindRoll(table_id=table.id, seq=event.seq, seed_id=drawn.seed_id))
    return event


def _leave(
    session: Session, row: Character, skill: str, result: CheckResult, seen: bool
) -> dict[str, Any] | None:
    """The value a check leaves its skill at (a Delta Green SAN test's SAN less its loss),
    written to the sheet, as a CoC7 Sanity roll's SAN is (``declared``): only where every
    reader of the sheet sees the roll (``seen``), as the new value would tell them how it
    went. What the event says of it, for ``d100 verify``'s replay of the sheet: the skill, its
    value before and after, and whether it was written; None where the check leaves none."""
    sheet = characters.sheet_of(row)
    after = result.skill_after
    if after is None or skill not in sheet.skills:
        return None
    before = sheet.skills[skill]
    if seen and before != after:
        changed = replace(sheet, skills={**sheet.skills, skill: after})
        write_columns(session, row, sheet=characters.sheet_text(changed, row.sheet))
    return {"skill": skill, "values": [before, after], "written": seen}


def _named(prepared: Prepared, spec: RollSpec) -> kinds.Named:
    """Whom a roll's event names (its actor, opponent, helpers and call): what the view
    policy reads to decide who sees what of it and so which seeds it draws from."""
    named: dict[str, Any] = {
        "character": characters.public_view(prepared.rows[0]),
        "request": prepared.request,
    }
    if spec.opponent is not None:
        named |= {
            "opponent": characters.public_view(prepared.rows[1]),
            "opponent_skill": prepared.skills[1],
        }
    if prepared.helpers:  # named, so each viewer's view knows whose values they are
        named["helpers"] = prepared.helpers
    if prepared.call is not None and prepared.target is not None:
        named["call"] = {
            "id": prepared.call.id,
            "target_id": prepared.target.id,
            "hazard": prepared.call.hazard,
        }
        if prepared.call.opponent is not None:  # the GM's side: access.view_event keeps it
            named["call"]["opponent"] = named["opponent"]
    return kinds.Named.model_validate(named)


def _hideable(
    session: Session, viewer: Viewer, visibility: str, prepared: Prepared, spec: RollSpec
) -> list[bool]:
    """Whether every reader of each side's sheet may see the roll (only then may it change the
    sheet). Refuse what would show a roll's result to someone it is hidden from, judged on the
    request as resolved (the player's fields, the call's and the defaults merged): a Luck
    reroll, spent only on failure, shows on the sheet; dice typed by hand are known to whoever
    typed them; and a contest against another's character must be seen by its readers."""
    parsed = prepared.parsed
    parts = [parsed] if spec.opponent is None else [parsed.actor, parsed.opponent]
    luck = REGISTRY.get(str(prepared.request["system"])).declares.luck
    shared = []
    for name, row, part in zip(SIDES, prepared.rows, parts, strict=False):
        shared.append(sheet_readers_see(session, visibility, viewer.member_id, row))
        if shared[-1]:
            continue
        if name == "opponent" and not may_edit(viewer, row):
            _seen_by_readers(session, viewer, visibility, row)
        rerolls = 0 if luck is None else getattr(part, luck.reroll_field, 0)
        if rerolls:
            assert luck is not None
            raise bad(
                f"{name}.fields.{luck.reroll_field}",
                rerolls,
                "0 when the result is hidden from the character's player or the GM",
                "a Luck reroll on failure would show the result on the sheet",
            )
    typed = next((n for n, s in zip(SIDES, spec.sides, strict=False) if s.dice is not None), None)
    if typed is not None and not sees_result(
        visibility, viewer.member_id, viewer.member_id, viewer.is_gm
    ):
        raise bad(
            f"{typed}.dice",
            "dice typed by hand",
            "no dice typed by hand in a roll whose result is hidden from its roller",
            f"a {visibility} roll's result is hidden from whoever typed its dice",
        )
    return shared


def unblind(session: Session, viewer: Viewer, seq: int) -> Event:
    """Show a blind roll to everyone: a public event repeating it, result included. Once every
    blind roll of the blind seed is shown, the next rotation reveals that seed too."""
    require_gm(viewer, "show a blind roll")
    table = lock_table(session, viewer.table_id)
    blind = session.get(BlindRoll, (table.id, seq))
    if blind is None:
        raise not_found("seq", seq, "blind roll")
    if blind.unblinded_seq is not None:
        raise conflict(
            "seq",
            seq,
            "a blind roll not shown yet",
            f"already shown as event {blind.unblinded_seq}",
        )
    rolled = session.get_one(Event, (table.id, seq))
    logged = kinds.read(rolled)
    told: kinds.Entry
    if isinstance(logged, kinds.DeclaredRoll):  # dice or a Sanity roll, rolled blind
        told = kinds.declared_unblinded(logged, seq, rolled.created_at, viewer.member_id)
    else:
        assert isinstance(logged, kinds.Rolled)  # only rolls are blind rolls
        told = kinds.unblinded(logged, seq, rolled.kind, rolled.created_at, viewer.member_id)
    shown = append(session, table, told)
    blind.unblinded_seq = shown.seq
    return shown


def _target(
    session: Session, table: GameTable, spec: RollSpec, viewer: Viewer
) -> tuple[CallTarget | None, Call | None]:
    if spec.target_id is None:
        return None, None
    target, call = pending_target(session, table, viewer, spec.target_id)
    if target.character_id != spec.actor.character_id:
        raise bad(
            "actor.character_id",
            spec.actor.character_id,
            f"{target.character_id}, the character the test was called for",
            "another character's test",
        )
    return target, call


def pending_target(
    session: Session, table: GameTable, viewer: Viewer, target_id: str
) -> tuple[CallTarget, Call]:
    """A called test still waiting for this character's roll or refusal. One the viewer may
    not see is answered as one that does not exist, before its state is told."""
    target = session.get(CallTarget, target_id)
    call = None if target is None else session.get(Call, target.call_id)
    if (
        target is None
        or call is None
        or call.table_id != table.id
        or not in_audience(viewer, call.audience)
    ):
        raise not_found("target_id", target_id, "called test")
    if target.status != "pending":
        raise conflict(
            "target_id", target_id, "a pending test", f"this test was already {target.status}"
        )
    return target, call


def _assistance(
    session: Session, table: GameTable, target: CallTarget, viewer: Viewer
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The helpers attached to a called test, as the system's assistance field takes them,
    and who they are, in the same order. A helper's sheet changed since (the skill gone) is
    a refusal naming none of that sheet's skills to a viewer who may not read it."""
    assistance = REGISTRY.get(table.system).declares.assistance
    if assistance is None:
        return {}, []
    found = session.scalars(
        select(CallAssist).where(CallAssist.target_id == target.id).order_by(CallAssist.position)
    ).all()
    if not found:
        return {}, []
    helps, who = [], []
    for help_ in found:
        row = characters.load(session, table.id, help_.character_id)
        try:
            side = characters.sheet_of(row).side(help_.skill)
        except D100Error as err:
            if may_edit(viewer, row):
                raise renamed(err, "target_id") from None
            raise conflict(
                "target_id",
                target.id,
                "a called test whose helpers still have the skill they help with",
                f"{row.name}'s sheet changed since they were asked to help: ask the GM",
            ) from None
        helps.append({k: v for k, v in side.items() if k in assistance.helper_fields})
        who.append(characters.public_view(row))
    return assistance.as_request(helps), who


def _with_dice(table: GameTable, request: dict[str, Any], spec: RollSpec) -> dict[str, Any]:
    """The request with any dice typed in by hand (G3), where the table allows it."""
    given = [
        (name, side.dice)
        for name, side in zip(SIDES, spec.sides, strict=False)
        if side.dice is not None
    ]
    if not given:
        return request
    if not table.settings.get("manual_dice"):
        raise bad(
            f"{given[0][0]}.dice",
            given[0][1],
            "no dice: this table draws every die",
            "the GM has turned off dice rolled by hand",
        )
    if spec.opponent is None:
        return {**request, "dice": given[0][1]}
    return {**request, **{name: {**request[name], "dice": dice} for name, dice in given}}


def _luck_before(viewer: Viewer, prepared: Prepared) -> list[Luck | None]:
    """Each side's Luck, checked to cover the most the request may spend (BRP7). A side the
    roller may not read (the one a GM's call chose) is refused in words that tell nothing of
    its sheet: how much Luck it has left is its readers' to know."""
    parsed = prepared.parsed
    parts = [parsed] if len(prepared.rows) == 1 else [parsed.actor, parsed.opponent]
    out = []
    for name, row, part in zip(SIDES, prepared.rows, parts, strict=False):
        luck = characters.sheet_of(row).luck
        need = luck_needed(part)
        if need and not may_edit(viewer, row) and (luck is None or luck.current < need):
            raise conflict(
                f"{name}.fields",
                "Luck",
                "Luck the character can spend",
                f"the {name} cannot spend that Luck: ask the GM to call it again",
            )
        if need and luck is None:
            raise bad(
                f"{name}.fields",
                "Luck",
                "no Luck options: the sheet has no Luck",
                f"{row.name} has no Luck on their sheet",
            )
        if need and luck is not None:
            try:
                luck.spend(need)
            except D100Error as err:
                raise invalid(err, name) from None
        out.append(luck)
    return out


def _checks(result: Result) -> list[CheckResult]:
    return [result] if isinstance(result, CheckResult) else [result.actor, result.opponent]


def _mark(
    session: Session,
    table: GameTable,
    rows: list[Character],
    skills: list[str],
    checks: list[CheckResult],
    shared: list[bool],
    gms: frozenset[str],
) -> None:
    """Improvement marks per skill, on what the table's setting counts (CH12: failures) and
    as the system's rules mark (``Declaration.marks``: a tick or a count, an NPC's or not,
    which checks earn one); only where every reader of the sheet may see the roll, as a mark
    tells how it went."""
    trigger = table.settings.get("improvement", IMPROVEMENTS[0])
    rule = REGISTRY.get(table.system).declares.marks
    for row, skill, check, seen in zip(rows, skills, checks, shared, strict=True):
        if not seen:
            continue
        now = row.marks.get(skill, 0)
        after = rule.after(trigger, check, skill, row.member_id in gms, now)
        if after != now:
            write_columns(session, row, marks={**row.marks, skill: after})
