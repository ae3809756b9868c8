"""``/call skill characters [hazard] [words]``: the GM calls a test in the channel, as the
page's call does (``server/flow.py``: the hazard declared before anyone rolls, OQ12), and
the channel gets one Roll button per character called. A button's id holds only the table
and the called test's id; a click rolls it (``clicks``) for the character's player or the
GM. The message shows the call as a plain player of the table sees it (``access.view_call``).

A call here is public: Discord cannot show a message in a channel to some of its members
only, so a secret call is made on the page."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .. import quick
from ..errors import D100Error
from ..render.checks import inputs_text
from ..server import flow, rolls
from ..server.access import Viewer, require_gm, view_call
from ..server.characters import sheet_of
from ..server.errors import ApiError
from ..server.models import Call, Character, GameTable
from ..server.store import Store
from .commands import CHARACTERS, HAZARD, LOWEST, OPPONENT, OPPONENT_SKILL, SKILL, WORDS
from .interactions import Interaction, message
from .limits import BUTTONS_PER_ROW, CHOICE_MAX, CUSTOM_ID_MAX, NAME_MAX, ROWS_MAX
from .play import button, button_rows, channel, readable, viewer_at
from .render import embed, escaped
from .tables import channel_table, no_table

CALLED = "c"  # a called test's Roll button: ``c:{table_id}:{target_id}``
MOST_CALLED = BUTTONS_PER_ROW * ROWS_MAX  # one button each, in one message


def call_command(store: Store, it: Interaction, options: dict[str, Any]) -> dict[str, Any]:
    """The call, made by the GM, as the channel's message with its Roll buttons."""
    skill = str(options.get(SKILL) or "").strip()
    names = [n.strip() for n in str(options.get(CHARACTERS) or "").split(",") if n.strip()]
    with store.write() as session:
        viewer = viewer_at(session, it)
        if viewer is None:
            return no_table()
        require_gm(viewer, "call for a test")  # before the table's characters are named
        table = session.get_one(GameTable, viewer.table_id)
        ids = _called(session, table.id, names)
        try:
            fields = quick.fields(str(options.get(WORDS) or "").split(), table.system)
        except D100Error as err:
            raise ApiError(422, WORDS, None, "", err.message) from None
        hazard = str(options.get(HAZARD) or "")
        opponent = _opponent(session, table.id, options)
        lowest = options.get(LOWEST) is True
        call = flow.call_test(
            session, viewer, skill, fields, hazard, ids, "public", opponent, lowest=lowest
        )
        shown = view_call(channel(viewer), flow.call_view(session, call))
        components = call_buttons(session, viewer, call)
    return _call_message(viewer.name, shown, components)


def _called(
    session: Session, table_id: str, names: list[str], field: str = CHARACTERS
) -> list[str]:
    """The characters named in ``field``, by name as the table has them (in any case)."""
    rows = session.scalars(
        select(Character).where(Character.table_id == table_id).order_by(Character.name)
    ).all()
    by_name = {row.name.casefold(): row.id for row in rows}
    allowed = ", ".join(row.name for row in rows) or "none yet (/sheet makes one)"
    if not names or len(names) > MOST_CALLED:
        raise ApiError(
            422,
            CHARACTERS,
            None,
            allowed,
            f"characters: 1..{MOST_CALLED} names, separated by commas; at this table: {allowed}",
        )
    unknown = [n for n in names if n.casefold() not in by_name]
    if unknown:
        raise ApiError(
            422,
            field,
            unknown[0],
            allowed,
            f"{field}: no character {unknown[0]} at this table; at this table: {allowed}",
        )
    return list(dict.fromkeys(by_name[n.casefold()] for n in names))


def _opponent(session: Session, table_id: str, options: dict[str, Any]) -> rolls.Side | None:
    """The character and skill the called characters are opposed by, if any (a contest)."""
    name = str(options.get(OPPONENT) or "").strip()
    skill = str(options.get(OPPONENT_SKILL) or "").strip()
    if not name:
        if skill:
            raise ApiError(
                422,
                OPPONENT_SKILL,
                skill,
                "only with an opponent",
                f"{OPPONENT_SKILL}: no {OPPONENT} named to roll it",
            )
        return None
    if not skill:
        raise ApiError(
            422,
            OPPONENT_SKILL,
            None,
            "the opponent's skill",
            f"{OPPONENT_SKILL}: a contest needs the opponent's skill",
        )
    (found,) = _called(session, table_id, [name], OPPONENT)
    return rolls.Side(found, skill)


def call_buttons(session: Session, viewer: Viewer, call: Call) -> list[dict[str, Any]]:
    """One Roll button per character called, as its test now is (only a pending one takes a
    click), from the call as the channel sees it."""
    found = []
    shown = view_call(channel(viewer), flow.call_view(session, call))
    for target in _by_name(shown["targets"]):
        custom = f"{CALLED}:{call.table_id}:{target['id']}"
        name = str(target["character"]["name"])
        pending = target["status"] == "pending"
        label = f"Roll: {name}" if pending else f"{name}: {target['status']}"
        if len(custom) <= CUSTOM_ID_MAX:
            found.append(button(label, custom, disabled=not pending))
    return button_rows(found)


def _by_name(targets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A call's targets in the order of their names: the same order in every edit."""
    return sorted(targets, key=lambda t: str(t["character"]["name"]).casefold())


def _call_message(
    who: str, call: dict[str, Any], components: list[dict[str, Any]]
) -> dict[str, Any]:
    names = ", ".join(str(t["character"]["name"]) for t in _by_name(call["targets"]))
    fields = [("Called", escaped(names))]
    asked = inputs_text(dict(call["fields"]))
    if asked:
        fields.append(("As", escaped(asked)))
    hazard = str(call.get("hazard") or "")
    head = f"{escaped(who)} calls for a test of {escaped(str(call['skill']))}"
    against = call.get("opponent") or {}
    if against:  # the channel's view: the opponent's skill is the GM's to know
        head += f" against {escaped(str(against['character']['name']))}"
    body = embed(
        f"Test: {call['skill']}",
        f"{head}.\nIf it fails: {escaped(hazard)}" if hazard else f"{head}.",
        fields,
    )
    return message(embeds=[body], components=components)


def suggest(store: Store, it: Interaction, focused: str, typed: str) -> list[tuple[str, str]]:
    """Completions for ``/call``: the characters the user may roll for (the GM: every one),
    each added to the names typed before it; and the skills of the characters named. Both
    are checked again when the call is sent."""
    with store.read() as session:
        table_id = channel_table(session, it.channel_id)
        rows = [] if table_id is None else readable(session, it, table_id)
        if focused == OPPONENT:
            found = [row.name for row in rows if typed.strip().casefold() in row.name.casefold()]
        elif focused == OPPONENT_SKILL:
            found = _skills(rows, [str(it.options().get(OPPONENT) or "")], typed)
        elif focused == CHARACTERS:
            *before, last = typed.split(",")
            done = [n.strip() for n in before if n.strip()]
            head, taken = ", ".join([*done, ""]), {n.casefold() for n in done}
            part = last.strip().casefold()
            found = [
                head + row.name
                for row in rows
                if row.name.casefold() not in taken and part in row.name.casefold()
            ]
        else:
            found = _skills(rows, str(it.options().get(CHARACTERS) or "").split(","), typed)
    return [(n, n) for n in found if len(n) <= NAME_MAX][:CHOICE_MAX]


def _skills(rows: list[Character], names: list[str], typed: str) -> list[str]:
    """The skills of the characters named (once each) that hold what is typed."""
    chosen = {n.strip().casefold() for n in names}
    skills = (s for r in rows if r.name.casefold() in chosen for s in sheet_of(r).rollable)
    return [s for s in dict.fromkeys(skills) if typed.casefold() in s.casefold()]
