"""A button clicked: a roll's follow-up (``f:{table_id}:{seq}:{key}``), a called test's
Roll (``c:{table_id}:{target_id}``) or a secret roll's "GM: show me" (``s:{table_id}:{seq}``)
and "Show to everyone" (``u:{table_id}:{seq}``), made by the server's own paths
(``followups``, ``rolls``) with the interaction's id as the idempotency key, so a click sent
again answers with the roll it made. "GM: show me" answers the GM alone; "Show to everyone"
shows a blind roll as the page's "Show" does, and its stub becomes the roll.

A click that acts is acknowledged at once (a deferred update); the message it was on then
gets its buttons as they now are (a used one disabled, so nobody takes it twice) and the new
roll follows, both through the outbox. A follow-up taken on the page disables them too
(``mirror``). A click on a button already used (on the page, by a second click, or the edit
came too late for Discord or from another process) sets its message's buttons the same way
and tells the clicker alone "Already used". A click that may not act (not theirs, not this
table's) is answered to the clicker alone."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from ..server import followups, rolls
from ..server.access import Viewer, in_audience, may_edit, view_event
from ..server.calculator import cheap_odds, odds_of
from ..server.errors import ApiError
from ..server.events import headed
from ..server.idempotency import once
from ..server.models import Call, CallTarget, Character, Event
from ..server.store import Store
from .calls import CALLED, call_buttons
from .interactions import Interaction, message
from .play import (
    FOLLOW,
    SHOW_ALL,
    SHOW_ME,
    Rolled,
    buttons,
    channel,
    key_of,
    roll_view,
    rolled_messages,
    roller_name,
    viewer_at,
    views,
)
from .render import in_words
from .tables import NO_TABLE, REMOVED

BUTTON = "custom_id"
NOT_YOURS = "This roll is not yours."
ELSEWHERE = "This button is not of this channel's table."
GM_ONLY = "Only the table's GM may use this button."
ROLLED = frozenset({"roll", "contest", "declared"})  # the kinds a secret roll's event may be


@dataclass(frozen=True)
class Updated:
    """What the clicked message becomes (Discord's UPDATE_MESSAGE answer)."""

    body: dict[str, Any]


@dataclass(frozen=True)
class Clicked:
    """What a click made: the new roll's messages, and the clicked message's buttons as they
    are now."""

    rolled: Rolled
    components: list[dict[str, Any]]


def click(
    store: Store, it: Interaction, planned: rolls.Planned | None
) -> Rolled | Clicked | Updated:
    """The click's work, or a private answer saying why it does none; ``rolls.Dear`` when a
    called test's odds are to be worked out first (then asked again with them)."""
    parts = str(it.data.get("custom_id", "")).split(":")
    try:
        if len(parts) == 4 and parts[0] == FOLLOW and parts[2].isdigit():
            return _follow_up(store, it, parts[1], int(parts[2]), parts[3])
        if len(parts) == 3 and parts[0] == CALLED:
            return _called(store, it, parts[1], parts[2], planned)
        if len(parts) == 3 and parts[0] == SHOW_ME and parts[2].isdigit():
            return _show_me(store, it, parts[1], int(parts[2]))
        if len(parts) == 3 and parts[0] == SHOW_ALL and parts[2].isdigit():
            return _show_all(store, it, parts[1], int(parts[2]))
    except ApiError as err:
        if err.message == REMOVED:
            raise
        if err.field == BUTTON:  # no such table or test here: said as it is
            return Rolled(message(err.message, private=True))
        if err.status in (403, 404):  # not the clicker's, or not theirs to see: alike
            return Rolled(message(NOT_YOURS, private=True))
        raise
    except Used as stale:  # taken already (here, on the page, by a double click)
        said = message(f"Already used: {in_words(stale.why)}", private=True)
        return Clicked(Rolled(said), stale.components)
    return Rolled(message("Not a button of this server.", private=True))


class Used(Exception):
    """A button whose work was done already (409): why, and its message's buttons as they
    are now, so a message the outbox could not edit then is set right by this click."""

    def __init__(self, why: str, components: list[dict[str, Any]]) -> None:
        super().__init__(why)
        self.why = why
        self.components = components


@contextmanager
def _once_only(components: list[dict[str, Any]]) -> Iterator[None]:
    try:
        yield
    except ApiError as err:
        if err.status == 409 and err.field in ("seq", "target_id"):  # the roll's or test's
            raise Used(err.message, components) from None
        raise


def _seated(session: Session, it: Interaction, table_id: str) -> Viewer:
    viewer = viewer_at(session, it)
    if viewer is None or viewer.table_id != table_id:
        why = NO_TABLE if viewer is None else ELSEWHERE
        raise ApiError(404, BUTTON, None, "a button of this channel's table", why)
    return viewer


def _follow_up(store: Store, it: Interaction, table_id: str, seq: int, key: str) -> Clicked:
    """The server's own follow-up of that roll, by its roller."""
    with store.write() as session:
        viewer = _seated(session, it, table_id)
        try:
            planned: followups.Plan | ApiError = followups.plan(session, viewer, seq, key)
        except ApiError as refused:
            planned = refused  # perhaps this very click, sent again: its roll, else the refusal
    chance = None
    if isinstance(planned, followups.Plan) and planned.odds is not None:
        chance = cheap_odds(planned.odds) or odds_of(planned.odds)
    with store.write() as session:
        viewer = _seated(session, it, table_id)

        def act() -> Event:
            if isinstance(planned, ApiError):
                raise planned
            return followups.follow(session, viewer, planned, chance, None)

        rolled = session.get(Event, (table_id, seq))
        # The clicker is its roller (else it is refused before this is used): their own view
        # holds every button the clicked message had.
        used = [] if rolled is None else buttons(table_id, view_event(viewer, rolled), True)
        with _once_only(used):
            done = once(session, viewer, key_of(it), {"reroll_of": seq, "follow_up": key}, act)
        own, public = views(viewer, done.event)
    made = rolled_messages(viewer.name, table_id, own, public)
    return Clicked(made, used)


def _secret_roll(session: Session, it: Interaction, table_id: str) -> Viewer:
    """The GM clicking a secret roll's button (``ApiError`` 403 for anyone else)."""
    viewer = _seated(session, it, table_id)
    if not viewer.is_gm:
        raise ApiError(403, BUTTON, None, "the table's GM", GM_ONLY)
    return viewer


def _show_me(store: Store, it: Interaction, table_id: str, seq: int) -> Rolled:
    """The roll as the GM sees it, to the GM alone."""
    with store.read() as session:
        viewer = _secret_roll(session, it, table_id)
        event = session.get(Event, (table_id, seq))
        if event is None or event.kind not in ROLLED:
            raise ApiError(404, BUTTON, None, "a roll of this table", ELSEWHERE)
        view = headed(view_event(viewer, event), event)
        return Rolled(roll_view(roller_name(session, event, view), view, True))


def _show_all(store: Store, it: Interaction, table_id: str, seq: int) -> Rolled | Updated:
    """A blind roll shown to everyone (``rolls.unblind``): its stub becomes the roll as the
    channel now sees it."""
    with store.write() as session:
        viewer = _secret_roll(session, it, table_id)
        try:
            done = once(
                session,
                viewer,
                key_of(it),
                {"unblind": seq},
                lambda: rolls.unblind(session, viewer, seq),
            )
        except ApiError as err:
            if err.status == 409:  # shown already (on the page, or by another click)
                return Rolled(message(f"Already shown: {err.message}", private=True))
            raise
        view = headed(view_event(channel(viewer), done.event), done.event)
        body = roll_view(roller_name(session, done.event, view), view, False)
    return Updated(body | {"components": []})


def _called(
    store: Store, it: Interaction, table_id: str, target_id: str, planned: rolls.Planned | None
) -> Rolled | Clicked:
    """A called test rolled for its character, by its player or the GM."""
    with store.write() as session:
        viewer = _seated(session, it, table_id)
        target = session.get(CallTarget, target_id)
        call = None if target is None else session.get(Call, target.call_id)
        # a test called out of the clicker's sight is answered as one never called: its id
        # tells them nothing, as the API's 404 does
        if (
            target is None
            or call is None
            or call.table_id != table_id
            or not in_audience(viewer, call.audience)
        ):
            raise ApiError(404, BUTTON, None, "a called test of this table", ELSEWHERE)
        row = session.get(Character, target.character_id)
        if row is None or not may_edit(viewer, row):
            return Rolled(message("This test is not yours to roll.", private=True))
        side = rolls.Side(row.id)
        spec = rolls.RollSpec(side, None, call.visibility, target.id)
        with _once_only(call_buttons(session, viewer, call)):
            done = once(
                session,
                viewer,
                key_of(it),
                {"target_id": target.id},
                lambda: rolls.roll(session, viewer, spec, planned),
            )
        own, public = views(viewer, done.event)
        session.flush()
        now = call_buttons(session, viewer, call)
    return Clicked(rolled_messages(viewer.name, table_id, own, public), now)
