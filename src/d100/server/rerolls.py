"""Luck spent after a failure (BRP7): a failed check rerolled by its roller, as its own
provable roll (the next nonce on the roller's seed) linked to the first, with the same
request, so the same target and dice, and 1 Luck spent from the sheet."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .. import __version__
from ..declarations import Luck as LuckRule
from ..engine import resolve
from ..errors import D100Error
from ..provable import ProvableSource
from ..systems import REGISTRY
from . import characters
from .access import Viewer, require_editor, sees_event, sheet_readers_see
from .calculator import percents
from .errors import ApiError, bad, conflict, invalid, not_found
from .events import append, get_table, lock_table
from .gametables import draw
from .models import Event, GameTable
from .rolls import RollSpec, Side, _with_dice

# A reroll is decided on seeing the failure: one further back than this many events is
# refused, which also bounds the search for a reroll already made.
REROLL_WINDOW = 200


@dataclass(frozen=True)
class Plan:
    """What a reroll would resolve (its odds are worked out from it before the write)."""

    seq: int
    request: dict[str, Any]


def plan(session: Session, viewer: Viewer, seq: int) -> Plan:
    table = get_table(session, viewer.table_id)
    return Plan(seq, _checked(session, table, viewer, seq)[1])


def _checked(
    session: Session, table: GameTable, viewer: Viewer, seq: int
) -> tuple[Event, dict[str, Any], int]:
    """The roll to reroll, the reroll's request and which reroll of the first roll it is;
    refused unless this viewer rolled it, it failed, it is seen by every reader of the sheet,
    and Luck and the house rule allow one more."""
    rule = REGISTRY.get(table.system).declares.luck
    if rule is None:
        raise bad("seq", seq, "a roll at a table whose rules have Luck", "this table has no Luck")
    rolled = session.get(Event, (table.id, seq))
    # An event the viewer may not see is answered as one that does not exist: a different
    # refusal would tell them what kind of event it is.
    if (
        rolled is None
        or rolled.kind != "roll"
        or (rolled.actor_id != viewer.member_id and not sees_event(viewer, rolled))
    ):
        raise not_found("seq", seq, "check")
    if rolled.actor_id != viewer.member_id:
        raise ApiError(
            403, "seq", seq, "a check you rolled", "only its roller may spend Luck to reroll it"
        )
    data = rolled.data
    row = characters.load(session, table.id, data["character"]["id"])
    require_editor(viewer, row, "spend this character's Luck")
    if not sheet_readers_see(session, rolled.visibility, viewer.member_id, row):
        raise bad(
            "seq",
            seq,
            "a roll whose result the character's player and the GM both see",
            f"a {rolled.visibility} roll is hidden: spending Luck on it would show it failed",
        )
    if data["result"]["success"]:
        raise bad("seq", seq, "a failed check", "this check succeeded: nothing to reroll")
    if table.last_seq - seq > REROLL_WINDOW:
        raise conflict(
            "seq",
            seq,
            f"one of the last {REROLL_WINDOW} events",
            "too long ago: a reroll is decided on seeing the failure",
        )
    later = select(Event.seq).where(
        Event.table_id == table.id,
        Event.seq > seq,
        Event.kind == "roll",
        Event.data["reroll_of"].as_integer() == seq,
    )
    done = session.scalars(later.limit(1)).first()
    if done is not None:
        raise conflict("seq", seq, "a roll not rerolled yet", f"already rerolled as event {done}")
    number = data.get("reroll_number", _taken(rule, data)) + 1
    cap = table.house_rules.get(rule.reroll_cap_rule) if rule.reroll_cap_rule else None
    if cap is not None and number > cap:
        raise conflict(
            "seq",
            seq,
            f"at most {cap} Luck reroll(s) of one check (house rule {rule.reroll_cap_rule})",
            "this check has had all the rerolls the table allows",
        )
    luck = characters.sheet_of(row).luck
    if luck is None or luck.current < 1:
        left = 0 if luck is None else luck.current
        raise bad("seq", seq, "a character with 1 Luck to spend", f"{row.name} has {left} Luck")
    request = {k: v for k, v in data["request"].items() if k != rule.reroll_field}
    return rolled, request, number


def _taken(rule: LuckRule, data: dict[str, Any]) -> int:
    """Rerolls the first roll already took (its request's own, spent on failure)."""
    boost = bool(data["request"].get(rule.boost_field))
    return int(data["result"].get("luck_spent", 0)) - rule.cost(boost, 0)


def reroll(
    session: Session, viewer: Viewer, planned: Plan, odds: dict[str, Any], dice: list[int] | None
) -> Event:
    """The reroll, made under the table's lock: 1 Luck spent, the next nonce drawn."""
    table = lock_table(session, viewer.table_id)
    rolled, request, number = _checked(session, table, viewer, planned.seq)
    data = rolled.data
    row = characters.load(session, table.id, data["character"]["id"])
    resolved = _with_dice(table, request, RollSpec(Side(row.id, dice=dice)))
    drawn = draw(session, table.id, False, viewer.member_id)
    source = ProvableSource(bytes.fromhex(drawn.server_seed), drawn.client_seed, drawn.nonce)
    try:
        result = resolve(resolved, source)
    except D100Error as err:
        raise invalid(err) from None
    luck = characters.sheet_of(row).luck
    assert luck is not None  # _checked refuses a sheet without Luck
    characters.change_luck(session, row, luck.spend(1))
    out: dict[str, Any] = {
        "character": characters.public_view(row),
        "skill": data["skill"],
        "request": request,
        "odds": odds,
        "percent": percents(odds),
        "manual": dice is not None,
        "rerolls": data.get("rerolls", planned.seq),
        "reroll_of": planned.seq,
        "reroll_number": number,
        "luck_spent": 1,
        "provable": {
            "seed_id": drawn.seed_id,
            "commitment": drawn.commitment,
            "client_seed": drawn.client_seed,
            "nonce": drawn.nonce,
            "engine": __version__,
            "request": resolved,
        },
        "result": result.to_dict(),
    }
    if "call" in data:
        out["call"] = data["call"]
    return append(
        session, table, "roll", out, visibility=rolled.visibility, actor_id=viewer.member_id
    )
