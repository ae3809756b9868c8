"""What may follow a check, taken by its roller once the result shows: the system's
follow-ups (``Declaration.after``: BRP7's Luck reroll of a failure; CoC7's Luck spent after
the roll and its push). Each is its own provable roll (the next nonce on the roller's seed)
linked to the first, resolving the request the system makes from the first one, with the
Luck it costs spent from the sheet. A check's card lists its offers (``offers``) when it is
rolled; taking one asks the system again, with the Luck the sheet has then."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .. import sheets
from ..actions import Action, ActionRolled, named
from ..declarations import FollowUp, Rolled
from ..engine import resolve
from ..errors import D100Error
from ..provable import ProvableSource
from ..results import CheckResult
from ..systems import REGISTRY
from . import characters
from . import event_kinds as kinds
from .access import Viewer, chain_of, require_editor, sees_event, sheet_readers_see
from .action_cards import action_card, logged_action_odds
from .calculator import cheap_odds, percents
from .errors import ApiError, bad, conflict, invalid, not_found
from .events import FOLLOW_UP_WINDOW, append, get_table, lock_table
from .gametables import draw, drawing_seed
from .models import Event, GameTable, SeedSession

FOLLOWED = (kinds.Roll.KIND, kinds.DeclaredRoll.KIND)  # the rolls that may be followed up


def offers(rolled: Rolled, system: str) -> list[dict[str, Any]]:
    """What a check's card offers its roller, as the event keeps it (``listed``)."""
    return listed(REGISTRY.get(system).declares.after(rolled))


def action_offers(action: Action, done: Any, sheet: sheets.Character) -> list[dict[str, Any]]:
    """What an action's card offers its roller (``Action.after``), with the Luck the
    character's sheet holds (``listed``)."""
    if action.after is None:
        return []
    return listed(
        action.after(ActionRolled(done, None if sheet.luck is None else sheet.luck.current))
    )


def listed(given: Iterable[FollowUp]) -> list[dict[str, Any]]:
    """Each follow-up given that no rule refuses, as the event keeps it: with its chance of
    success where it rolls anew and its odds are cheap to work out, and exactly what it
    gives where it says (Luck on an attack: its damage)."""
    out = []
    for f in given:
        if f.refused is not None:
            continue
        offer: dict[str, Any] = {"key": f.key, "label": f.label, "luck": f.luck}
        if f.needs is not None:
            offer["needs"] = f.needs
        offer["draws"] = f.draws()
        chance = cheap_odds(f.request) if offer["draws"] else None
        if chance is not None:
            offer["chance"] = percents(chance)["success"]
            offer["odds"] = chance["success"]
        if f.stakes:
            offer["stakes"] = f.stakes
        if f.gives is not None:
            offer["gives"] = dict(f.gives)
        out.append(offer)
    return out


@dataclass(frozen=True)
class Plan:
    """What a follow-up would resolve (its odds are worked out from it before the write):
    ``odds`` is the request whose odds the card shows, None where it rolls no dice."""

    seq: int
    key: str
    request: dict[str, Any]
    odds: dict[str, Any] | None


def plan(session: Session, viewer: Viewer, seq: int, key: str | None) -> Plan:
    table = get_table(session, viewer.table_id)
    chosen = _checked(session, table, viewer, seq, key)[2]
    request = dict(chosen.request)
    return Plan(seq, chosen.key, request, request if chosen.draws() else None)


Followable = kinds.Roll | kinds.DeclaredRoll


def _checked(
    session: Session, table: GameTable, viewer: Viewer, seq: int, key: str | None
) -> tuple[Event, Followable, FollowUp]:
    """The roll to follow and the follow-up taken; refused unless this viewer rolled it, it
    is seen by every reader of the sheet, nothing followed it yet, the system offers that
    follow-up for it now and the sheet has the Luck it costs."""
    rolled = session.get(Event, (table.id, seq))
    # An event the viewer may not see is answered as one that does not exist: a different
    # refusal would tell them what kind of event it is.
    if (
        rolled is None
        or rolled.kind not in FOLLOWED
        or (rolled.actor_id != viewer.member_id and not sees_event(viewer, rolled))
    ):
        raise not_found("seq", seq, "check")
    if rolled.actor_id != viewer.member_id:
        raise ApiError(403, "seq", seq, "a check you rolled", "only its roller may follow it up")
    logged = kinds.read(rolled)
    assert isinstance(logged, Followable)  # its kind is checked above
    if logged.character is None:
        raise bad("seq", seq, "a roll of a character's", "nothing follows a roll for no character")
    row = characters.load(session, table.id, logged.character.id)
    require_editor(viewer, row, "follow up this character's roll")
    if not sheet_readers_see(session, rolled.visibility, viewer.member_id, row):
        raise bad(
            "seq",
            seq,
            "a roll whose result the character's player and the GM both see",
            f"a {rolled.visibility} roll is hidden: following it up would tell how it went",
        )
    if table.last_seq - seq > FOLLOW_UP_WINDOW:
        raise conflict(
            "seq",
            seq,
            f"one of the last {FOLLOW_UP_WINDOW} events",
            "too long ago: a follow-up is decided on seeing the result",
        )
    later = select(Event.seq, Event.data).where(
        Event.table_id == table.id,
        Event.seq > seq,
        Event.kind == rolled.kind,
        Event.data["reroll_of"].as_integer() == seq,
    )
    done = session.execute(later.limit(1)).first()
    if done is not None:
        what = done.data.get("follow_up", {}).get("done", "a follow-up")
        raise conflict(
            "seq",
            seq,
            "a roll not followed up yet",
            f"roll #{seq} was already followed up: {what} (#{done.seq})",
        )
    luck = characters.sheet_of(row).luck
    left = None if luck is None else luck.current
    given = _after(session, table.system, logged, left)
    if not given:
        result = logged.result if isinstance(logged, kinds.Roll) else None
        succeeded = result is not None and result["success"]
        reason = "this check succeeded" if succeeded else "nothing may follow it"
        raise bad("seq", seq, "a check its rules let its roller follow up", reason)
    keys = [f.key for f in given]
    if key is None:
        # Unnamed, the one follow-up offered is meant; of several, taking the first would
        # spend what the roller may not have chosen (Luck rather than a push).
        offered = [f.key for f in given if f.refused is None]
        if len(offered) > 1:
            raise bad(
                "follow_up",
                None,
                "one of " + ", ".join(offered),
                "this roll offers more than one follow-up: name the one taken",
            )
        key = offered[0] if offered else keys[0]
    chosen = next((f for f in given if f.key == key), None)
    if chosen is None:
        # offered when rolled, the sheet's Luck since spent or edited below what it needs
        was = next((o for o in logged.follow_ups or () if o.key == key), None)
        if was is not None and was.luck:
            _afford(row.name, seq, was.needs or was.luck, left)
        raise bad("follow_up", key, "one of " + ", ".join(keys), "not offered for this roll")
    if chosen.refused is not None:
        raise conflict("seq", seq, chosen.allowed, chosen.refused)
    if chosen.luck:
        _afford(row.name, seq, chosen.needs or chosen.luck, left)
    return rolled, logged, chosen


def _afford(name: str, seq: int, needs: int, left: int | None) -> None:
    """Refused unless the sheet holds the Luck a follow-up needs (its cost, or more)."""
    if (left or 0) < needs:
        raise bad("seq", seq, f"a character with {needs} Luck", f"{name} has {left or 0} Luck")


def _after(
    session: Session, system: str, logged: Followable, luck: int | None
) -> tuple[FollowUp, ...]:
    """What the rules let follow the roll now, the sheet holding ``luck``: a check's
    system's follow-ups, an action's own (``Action.after``), resolved again from its seed."""
    if isinstance(logged, kinds.Roll):
        return REGISTRY.get(system).declares.after(_rolled(session, logged, luck))
    action = named(logged.roll)
    if action is None or action.after is None:
        return ()
    tagged = logged.provable.request
    assert tagged is not None  # the log keeps what resolved it (a view may not)
    done = action.roll(action.build(tagged["request"]), _source(session, logged.provable))
    return action.after(ActionRolled(done, luck, tuple(logged.taken or ())))


def _source(session: Session, p: kinds.Provable) -> ProvableSource:
    """The random source a roll drew from: its seed, client seed and nonce."""
    seed = session.get_one(SeedSession, p.seed_id)
    return ProvableSource(drawing_seed(seed), p.client_seed, p.nonce)


def _rolled(session: Session, logged: kinds.Roll, luck: int | None) -> Rolled:
    """The check as the system sees it to say what may follow it: resolved again from its
    seed, nonce and request, as ``d100 verify`` does, so the result is the one logged."""
    p = logged.provable
    assert p.request is not None  # the log keeps what resolved it (a view may not)
    result = resolve(p.request, _source(session, p))
    assert isinstance(result, CheckResult)  # only checks are followed up
    taken = tuple(logged.taken or ())
    return Rolled(p.request, result, luck, spent_of(logged), taken, logged.skill)


def spent_of(logged: kinds.Rolled | kinds.DeclaredRoll) -> int:
    """The Luck a check and what followed it spent, as far as this event."""
    if logged.spent is not None:
        return logged.spent
    return int((logged.result or {}).get("luck_spent") or 0)


def follow(
    session: Session,
    viewer: Viewer,
    planned: Plan,
    odds: dict[str, Any] | None,
    dice: list[int] | None,
) -> Event:
    """The follow-up, made under the table's lock: its Luck spent, the next nonce drawn."""
    table = lock_table(session, viewer.table_id)
    rolled, logged, chosen = _checked(session, table, viewer, planned.seq, planned.key)
    if isinstance(logged, kinds.DeclaredRoll):
        return _follow_action(session, table, viewer, rolled, logged, chosen, dice)
    row = characters.load(session, table.id, logged.character.id)
    if dice is not None and not chosen.draws():
        raise bad("dice", dice, "no dice: this follow-up rolls none", "it reads the roll made")
    request = dict(chosen.request)
    resolved = request
    if dice is not None:
        if not table.settings.get("manual_dice"):
            raise bad(
                "dice",
                dice,
                "no dice: this table draws every die",
                "the GM has turned off dice rolled by hand",
            )
        resolved = {**request, "dice": dice}
    # Drawn from the chain of the roll it follows, as the view policy decides it for that roll.
    chain = chain_of(rolled.visibility, rolled.actor_id, logged, viewer.gms)
    drawn = draw(session, table, chain, viewer.member_id)
    source = ProvableSource(bytes.fromhex(drawn.server_seed), drawn.client_seed, drawn.nonce)
    try:
        result = resolve(resolved, source)
    except D100Error as err:
        raise invalid(err) from None
    assert isinstance(result, CheckResult)
    luck = characters.sheet_of(row).luck
    if chosen.luck:
        assert luck is not None  # _checked refuses a sheet without the Luck it costs
        luck = luck.spend(chosen.luck)
        characters.change_luck(session, row, luck)
    followed = _followed(rolled.seq, logged, chosen, not chosen.failed or result.success)
    taken, spent = followed.taken, followed.spent
    left = None if luck is None else luck.current
    again = Rolled(resolved, result, left, spent, tuple(taken), logged.skill)
    # the first roll's call, and who helped with it
    named = kinds.Named.model_validate(
        {
            "character": characters.public_view(row),
            "request": request,
            "helpers": logged.helpers,
            "call": logged.call,
        }
    )
    made = kinds.rolled(
        named,
        logged.skill,
        odds,
        dice is not None,
        drawn,
        resolved,
        result.to_dict(),
        rolled.visibility,
        viewer.member_id,
        offers(again, table.system),
        followed=followed,
    )
    return append(session, table, made)


def _followed(seq: int, logged: Followable, chosen: FollowUp, met: bool) -> kinds.Followed:
    """A follow-up's own part: the first roll, the one it follows (``seq``), what it did
    (and that it failed, where its rule makes that worse and it did not meet it), what was
    taken so far and the Luck spent, by it and by all."""
    done = {"key": chosen.key, "done": chosen.done}
    if not met:
        done["failed"] = chosen.failed
    return kinds.Followed.model_validate(
        {
            "rerolls": seq if logged.rerolls is None else logged.rerolls,  # the first
            "reroll_of": seq,  # the roll it follows
            "follow_up": done,
            "taken": [*(logged.taken or ()), chosen.key],
            "luck_spent": chosen.luck,
            "spent": spent_of(logged) + chosen.luck,
        }
    )


def _follow_action(
    session: Session,
    table: GameTable,
    viewer: Viewer,
    rolled: Event,
    logged: kinds.DeclaredRoll,
    chosen: FollowUp,
    dice: list[int] | None,
) -> Event:
    """Luck spent on an action made (C7-4): the request its rules make, resolved with the
    next nonce of the chain the roll drew from (new damage is drawn there), its Luck spent
    from the sheet, logged as a declared roll of its own following the first, with its
    exact odds, its card (and what a viewer who may not read the defender's sheet is shown)
    and what may follow it in turn."""
    if dice is not None:
        raise bad("dice", dice, "no dice: Luck is spent on the roll made", "its damage is drawn")
    action = named(logged.roll)
    assert action is not None and logged.character is not None  # ``_checked`` found follow-ups
    request = dict(chosen.request)
    built = action.build(request)
    defender = None if logged.defender is None else logged.defender.character
    named_ = kinds.Named(character=logged.character, request=request, defender=defender)
    chain = chain_of(rolled.visibility, rolled.actor_id, named_, viewer.gms)
    drawn = draw(session, table, chain, viewer.member_id)
    source = ProvableSource(bytes.fromhex(drawn.server_seed), drawn.client_seed, drawn.nonce)
    try:
        done, odds = action.roll(built, source), action.odds(built)
    except D100Error as err:
        raise invalid(err) from None
    row = characters.load(session, table.id, logged.character.id)
    luck = characters.sheet_of(row).luck
    if chosen.luck:
        assert luck is not None  # _checked refuses a sheet without the Luck it costs
        luck = luck.spend(chosen.luck)
        characters.change_luck(session, row, luck)
    followed = _followed(rolled.seq, logged, chosen, True)
    left = None if luck is None else luck.current
    after = (
        ()
        if action.after is None
        else action.after(ActionRolled(done, left, tuple(followed.taken)))
    )
    made = kinds.declared(
        logged.roll,
        logged.words or "",
        characters.public_view(row),
        request,
        logged_action_odds(odds),
        drawn,
        done.to_dict(),
        action_card(action, done, odds, logged.defender is not None),
        None,
        rolled.visibility,
        viewer.member_id,
        None if logged.defender is None else logged.defender.model_dump(),
        listed(after),
        followed,
    )
    return append(session, table, made)
