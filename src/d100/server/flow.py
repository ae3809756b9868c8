"""The flow of play the GM drives: tests called for one character or a group (OQ10, CH8),
declined or rolled, helpers attached to a pending test (OQ11, CH8), aiming (BRP5) and rest
(BRP7)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session, load_only

from ..errors import D100Error
from ..group_luck import who_rolls
from ..systems import REGISTRY
from ..table_fields import players_part
from . import characters
from . import event_kinds as kinds
from .access import (
    GM,
    Viewer,
    audience,
    in_audience,
    require_editor,
    require_gm,
    sheet_readers_see,
    view_call,
)
from .errors import ApiError, bad, conflict, invalid, not_found, renamed
from .events import append, lock_table
from .models import Call, CallAssist, CallTarget, Character, GameTable, Member
from .rolls import RollSpec, Side, pending_target, prepare
from .tokens import new_id, now

HAZARD_LIMIT = 500
RECENT_CALLS = 20
CALLS_SCANNED = 10 * RECENT_CALLS  # a player may be in few of a table's calls


def call_test(
    session: Session,
    viewer: Viewer,
    skill: str,
    fields: dict[str, Any],
    hazard: str,
    character_ids: list[str],
    visibility: str,
    opponent: Side | None = None,
    contest: dict[str, Any] | None = None,
    lowest: bool = False,
) -> Call:
    """The GM asks for a test; the hazard for failure is declared before anyone rolls (OQ12).
    With an ``opponent`` it is a contest against the side the GM chose (an NPC's, whose
    skill the players need not know) and the ``contest``'s own fields the GM chose (a melee
    response). ``lowest``: a group's Luck roll, called for the one with the lowest Luck of
    the characters named; the call names only them, so nobody else learns who was weighed."""
    require_gm(viewer, "call for a test")
    table = lock_table(session, viewer.table_id)
    if not character_ids or len(set(character_ids)) != len(character_ids):
        raise bad(
            "character_ids",
            character_ids,
            "one or more distinct character ids",
            "empty or repeated",
        )
    if len(hazard) > HAZARD_LIMIT:
        raise bad("hazard", hazard[:40] + "...", f"at most {HAZARD_LIMIT} characters", "too long")
    names, against = [], []
    for character_id in character_ids:  # each must be able to roll it as called
        spec = RollSpec(Side(character_id, skill, fields=fields), opponent, visibility)
        spec = replace(spec, fields=contest or {})
        try:
            prepared = prepare(session, table, spec, viewer)
        except ApiError as err:
            raise _in_call(err) from None
        _still_seated(session, prepared.rows[0])
        names.append(prepared.skills[0])
        if opponent is not None:
            _faced(session, visibility, opponent, prepared.rows)
            against.append(prepared.skills[1])
    if len({name.casefold() for name in names}) > 1:  # sheets match names in any case
        raise bad(
            "skill",
            skill,
            "a name (or its start) that means the same skill on every sheet",
            f"{skill!r} means {', '.join(sorted(set(names)))}: type more of the name",
        )
    if lowest:
        character_ids = _lowest(session, table, character_ids, names, opponent)
    faced = {
        "opponent": None
        if opponent is None
        else {
            "character_id": opponent.character_id,
            "skill": against[0],
            "fields": dict(opponent.fields),
            "contest": dict(contest or {}),
        }
    }
    everyone = [*character_ids, *([] if opponent is None else [opponent.character_id])]
    call = Call(
        id=new_id(),
        table_id=table.id,
        skill=names[0],  # a prefix stands for the full name it matched
        fields=dict(fields),
        hazard=hazard.strip(),
        visibility=visibility,
        created_at=now(),
        audience=audience(session, visibility, everyone),
        **faced,
    )
    session.add(call)
    session.flush()
    for character_id in character_ids:
        session.add(
            CallTarget(
                id=new_id(),
                call_id=call.id,
                character_id=character_id,
                status="pending",
            )
        )
    session.flush()
    called = kinds.test_called(call_view(session, call), viewer.member_id, call.audience)
    append(session, table, called)
    return call


def _lowest(
    session: Session,
    table: GameTable,
    character_ids: list[str],
    names: list[str],
    opponent: Side | None,
) -> list[str]:
    """The character of a group's Luck roll: the lowest Luck named (``group_luck``)."""
    if opponent is not None:
        raise bad("lowest", True, "a call with no opponent", "a group's Luck roll faces nobody")
    rows = [characters.load(session, table.id, i) for i in character_ids]
    # An NPC weighed beside players' characters: the call naming it would tell the players
    # its Luck is under each of theirs (and naming one of theirs, that it is over)
    npcs = [r for r in rows if _role(session, r) == GM]
    if npcs and len(npcs) < len(rows):
        raise bad(
            "character_ids",
            npcs[0].id,
            "the players' characters, or the GM's alone (a group's Luck roll)",
            f"{npcs[0].name} is an NPC: weighed with the players' characters, the call would "
            "tell them how its Luck compares with theirs",
        )
    present = [characters.sheet_of(r) for r in rows]
    for sheet, name in zip(present, names, strict=True):
        rules = sheet.investigator_rules
        if rules is not None and name != rules.luck:
            raise bad("skill", name, f"{rules.luck}: a group's Luck roll", "not Luck")
    try:
        chosen = who_rolls(present, "character_ids")
    except D100Error as err:
        raise invalid(err) from None
    return [next(r.id for r, s in zip(rows, present, strict=True) if s is chosen)]


def _role(session: Session, row: Character) -> str | None:
    owner = session.get(Member, row.member_id)
    return None if owner is None else str(owner.role)


def _still_seated(session: Session, row: Character) -> None:
    """A removed player's character cannot be called: nobody could roll it."""
    owner = session.get(Member, row.member_id)
    if owner is not None and owner.revoked:
        raise bad(
            "character_ids",
            row.id,
            "characters of members still at the table",
            f"{row.name}'s player was removed",
        )


def _in_call(err: ApiError) -> ApiError:
    """An error about a contest's own fields, placed where the call's body has them."""
    if err.field != "fields" and not err.field.startswith("fields."):
        return err
    where = "opponent.contest" + err.field.removeprefix("fields")
    if err.error is not None:
        return renamed(err.error, where)
    message = err.message.replace(err.field, where, 1)
    return ApiError(err.status, where, err.value, err.allowed, message)


def _faced(session: Session, visibility: str, opponent: Side, rows: list[Character]) -> None:
    """A called contest is rolled by the called character's player: refused now, not then,
    if its mode would hide the result from a reader of the opponent's sheet (their player or
    the GM), or if a character is called to face themselves."""
    actor, faced = rows
    if actor.id == faced.id:
        raise bad(
            "opponent.character_id",
            opponent.character_id,
            "a character other than those called",
            "a character cannot contest themselves",
        )
    if not sheet_readers_see(session, visibility, actor.member_id, faced):
        raise bad(
            "visibility",
            visibility,
            "a mode in which the opponent's player and the GM see the result",
            f"{actor.name}'s player rolls it, and a {visibility} roll would hide it from "
            f"{faced.name}'s readers",
        )


def decline(session: Session, viewer: Viewer, target_id: str) -> CallTarget:
    table = lock_table(session, viewer.table_id)
    target, call, row = _pending(session, table, viewer, target_id)
    require_editor(viewer, row, "decline this test")
    target.status = "declined"
    shown = characters.public_view(row)
    told = kinds.declined(call.id, target.id, shown, call.skill, viewer.member_id, call.audience)
    append(session, table, told)
    return target


def cancel(session: Session, viewer: Viewer, call_id: str) -> Call:
    """The GM withdraws a called test: whoever has not rolled or declined it yet no longer has
    to; rolls already made stand."""
    require_gm(viewer, "cancel a called test")
    table = lock_table(session, viewer.table_id)
    call = session.get(Call, call_id)
    if call is None or call.table_id != table.id:
        raise not_found("call_id", call_id, "called test")
    waiting = session.scalars(
        select(CallTarget).where(CallTarget.call_id == call.id, CallTarget.status == "pending")
    ).all()
    if not waiting:
        raise conflict(
            "call_id", call_id, "a call someone still has to answer", "nobody is waiting on it"
        )
    for target in waiting:
        target.status = "cancelled"
    session.flush()
    cancelled = kinds.call_cancelled(call_view(session, call), viewer.member_id, call.audience)
    append(session, table, cancelled)
    return call


def assist(
    session: Session, viewer: Viewer, target_id: str, character_id: str, skill: str
) -> CallTarget:
    """Attach a helper to a pending test, as many as the system's assistance rule and the
    table's house rules take."""
    table = lock_table(session, viewer.table_id)
    system = REGISTRY.get(table.system)
    assistance = system.declares.assistance
    if assistance is None:
        raise bad(
            "target_id",
            target_id,
            "a test at a table whose rules have assistance",
            f"{system.title} has no assistance rule",
        )
    target, call, helped = _pending(session, table, viewer, target_id)
    helper = characters.load(session, table.id, character_id)
    require_editor(viewer, helper, "offer this character's help")
    if helper.id == helped.id:
        raise bad(
            "character_id",
            character_id,
            "another character than the one tested",
            "a character cannot help themselves",
        )
    try:
        skill = characters.sheet_of(helper).skill(skill)
    except D100Error as err:
        raise renamed(err, "skill") from None
    helping = session.scalars(
        select(CallAssist).where(CallAssist.target_id == target.id).order_by(CallAssist.position)
    ).all()
    if any(a.character_id == helper.id for a in helping):
        raise conflict(
            "character_id",
            character_id,
            "a character not already helping",
            "already helping with this test",
        )
    # The system's cap, lowered by a house rule: one past the engine's would fail the roll for
    # good, so there is one even without the house rule.
    most = assistance.cap(table.house_rules)
    if len(helping) >= most:
        raise conflict(
            "target_id",
            target_id,
            f"at most {most} helper(s)",
            "this test already has all the help it may take",
        )
    position = helping[-1].position + 1 if helping else 0
    session.add(
        CallAssist(target_id=target.id, character_id=helper.id, skill=skill, position=position)
    )
    if call.audience is not None and helper.member_id not in call.audience:
        # The GM may attach anyone's character: its player must see what they help with.
        call.audience = sorted([*call.audience, helper.member_id])
    told = kinds.helped(
        call.id,
        target.id,
        characters.public_view(helper),
        characters.public_view(helped),
        skill,
        viewer.member_id,
        call.audience,
    )
    append(session, table, told)
    return target


def aim(session: Session, viewer: Viewer, character_id: str, action: str) -> Character:
    """Each round aimed adds the system's step up to its cap; what the system names ends it."""
    table = lock_table(session, viewer.table_id)
    system = REGISTRY.get(table.system)
    rule = system.declares.aim
    if rule is None:
        raise bad(
            "character_id",
            character_id,
            "a character at a table whose rules have aiming",
            f"{system.title} has no aiming rule",
        )
    actions = ("aim", *rule.ends)
    if action not in actions:
        raise bad("action", action, "one of " + ", ".join(actions), "unknown action")
    row = characters.load(session, table.id, character_id)
    require_editor(viewer, row, "change this character's aim")
    row.aim_rounds = min(row.aim_rounds + 1, rule.rounds) if action == "aim" else 0
    aim_now = characters.aim_view(table.system, row.aim_rounds)
    told = kinds.aimed(characters.public_view(row), action, aim_now, viewer.member_id)
    append(session, table, told)
    return row


def rest(session: Session, viewer: Viewer) -> list[Character]:
    """A full night's rest: every character's Luck back to its maximum (BRP7), where the
    table's system declares a rest rule (refused elsewhere), one statement
    on the Luck columns (no sheet is rewritten); the table's characters, as named."""
    require_gm(viewer, "call a rest")
    table = lock_table(session, viewer.table_id)
    luck = REGISTRY.get(table.system).declares.luck
    if luck is None or luck.rest is None:  # CoC7's Luck comes back by its own roll, not rest
        resting = [s.name for s in REGISTRY if s.declares.luck and s.declares.luck.rest]
        raise conflict(
            "rest",
            table.system,
            "a table of a system with a rest rule: " + (", ".join(resting) or "none"),
            f"{REGISTRY.get(table.system).title} has no rest rule: Luck comes back only by "
            "its rules",
        )
    restored = (
        update(Character)
        .where(Character.table_id == table.id, Character.luck_current < Character.luck_maximum)
        .values(luck_current=Character.luck_maximum)
    )
    session.execute(restored, execution_options={"synchronize_session": False})
    named = load_only(Character.id, Character.name, Character.member_id)
    rows = session.scalars(
        select(Character).where(Character.table_id == table.id).options(named)
    ).all()
    append(session, table, kinds.rested(viewer.member_id))
    return list(rows)


def recent_calls(session: Session, viewer: Viewer) -> list[dict[str, Any]]:
    """The last calls this viewer is in the audience of, as they may see them: looked for
    among the table's last ``CALLS_SCANNED``, so a state read stays bounded."""
    calls = session.scalars(
        select(Call)
        .where(Call.table_id == viewer.table_id)
        .order_by(Call.created_at.desc())
        .limit(CALLS_SCANNED)
    ).all()
    seen = [c for c in calls if in_audience(viewer, c.audience)][:RECENT_CALLS]
    return [view_call(viewer, shown) for shown in call_views(session, seen)]


def call_view(session: Session, call: Call) -> dict[str, Any]:
    (shown,) = call_views(session, [call])
    return shown


def call_views(session: Session, calls: Sequence[Call]) -> list[dict[str, Any]]:
    """Calls with their targets and helpers, read in a few statements whatever their number:
    a table's state lists twenty calls of up to fifty targets each, on every live event."""
    if not calls:
        return []
    ids = [call.id for call in calls]
    targets: dict[str, list[CallTarget]] = {call_id: [] for call_id in ids}
    for target in session.scalars(
        select(CallTarget).where(CallTarget.call_id.in_(ids)).order_by(CallTarget.id)
    ):
        targets[target.call_id].append(target)
    every = [t for found in targets.values() for t in found]
    helping = _assists(session, [t.id for t in every])
    wanted = {t.character_id for t in every} | {
        str(c.opponent["character_id"]) for c in calls if c.opponent is not None
    }
    rows = {
        row.id: row
        for row in session.scalars(select(Character).where(Character.id.in_(sorted(wanted))))
    }
    # what a roller may add to a call (the rest is the GM's): the page offers only these
    players = sorted(players_part(session.get_one(GameTable, calls[0].table_id).system))
    return [
        {
            "id": call.id,
            "skill": call.skill,
            "fields": call.fields,
            "hazard": call.hazard,
            "visibility": call.visibility,
            "at": call.created_at,
            "targets": [_target_view(rows, t, helping.get(t.id, [])) for t in targets[call.id]],
            "opponent": None if call.opponent is None else _opponent_view(rows, call.opponent),
            "players_fields": players,
        }
        for call in calls
    ]


def _opponent_view(rows: Mapping[str, Character], opponent: dict[str, Any]) -> dict[str, Any]:
    row = rows.get(opponent["character_id"])
    # One deleted since (its waiting tests were cancelled with it) is named as such.
    gone = {"id": opponent["character_id"], "name": "a deleted character", "member_id": None}
    return {
        "character": gone if row is None else characters.public_view(row),
        "skill": opponent["skill"],
        "fields": opponent["fields"],
        "contest": opponent.get("contest", {}),
    }


def assists_of(session: Session, target_id: str) -> list[dict[str, str]]:
    """The helpers attached to a called test, in the order they were: each one's character,
    name and skill."""
    return _assists(session, [target_id]).get(target_id, [])


def _assists(session: Session, target_ids: list[str]) -> dict[str, list[dict[str, str]]]:
    found = session.execute(
        select(CallAssist.target_id, CallAssist.character_id, CallAssist.skill, Character.name)
        .join(Character, Character.id == CallAssist.character_id)
        .where(CallAssist.target_id.in_(target_ids))
        .order_by(CallAssist.target_id, CallAssist.position)
    )
    out: dict[str, list[dict[str, str]]] = {}
    for target_id, c, skill, name in found:
        out.setdefault(target_id, []).append({"character_id": c, "skill": skill, "name": name})
    return out


def _target_view(
    rows: Mapping[str, Character], target: CallTarget, assists: list[dict[str, str]]
) -> dict[str, Any]:
    return {
        "id": target.id,
        "character": characters.public_view(rows[target.character_id]),
        "status": target.status,
        "event_seq": target.event_seq,
        "assists": assists,
    }


def _pending(
    session: Session, table: GameTable, viewer: Viewer, target_id: str
) -> tuple[CallTarget, Call, Character]:
    target, call = pending_target(session, table, viewer, target_id)
    return target, call, session.get_one(Character, target.character_id)
