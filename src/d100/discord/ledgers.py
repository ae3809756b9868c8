"""``/ledger [character] [public]``: the luck ledger of the user's characters at the
channel's table (or of one of them), from the log as they see it (``server.ledgers``, the
page's and the export's view), answered to them alone. Asked ``public``, it is posted to the
channel from the log as the channel sees it (a plain player's view): a GM's or a player's
ledger counts rolls the channel may not see (a GM's secret ones, a player's "only me" ones),
and posting it would tell the channel their number, levels and luck."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import D100Error
from ..server import ledgers
from ..server.access import Viewer
from ..server.errors import ApiError
from ..server.store import Store
from ..sheets import lookup
from .commands import CHARACTER, PUBLIC
from .interactions import Interaction
from .play import _mine, channel, viewer_at
from .render import ledger_message
from .tables import no_table

AS_YOU_SEE = "counting the rolls you may see (only you see this)"
AS_CHANNEL = "counting only the rolls this channel may see"


@dataclass(frozen=True)
class Asked:
    """Whose ledger (a character's id, else a member's id), for whom, shown where."""

    viewer: Viewer
    character: str | None
    member: str | None
    public: bool


def asked(store: Store, it: Interaction, options: dict[str, Any]) -> Asked | dict[str, Any]:
    """The user at the channel's table (a member from now on, as ``/r`` makes them) and the
    ledger asked for: one of their characters by name, or all of theirs."""
    typed = str(options.get(CHARACTER) or "").strip()
    with store.write() as session:
        viewer = viewer_at(session, it)
        if viewer is None:
            return no_table()
        if not typed:
            return Asked(viewer, None, viewer.member_id, bool(options.get(PUBLIC)))
        by_name = {r.name: r for r in _mine(session, viewer)}
        try:
            row = by_name[lookup(typed, by_name, CHARACTER)]
        except D100Error:
            allowed = ", ".join(by_name) or "none yet (/sheet makes one)"
            raise ApiError(
                422, CHARACTER, typed, allowed, f"character: not yours; yours: {allowed}"
            ) from None
        return Asked(viewer, row.id, None, bool(options.get(PUBLIC)))


def read(store: Store, wanted: Asked) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The log as the user sees it, or as the channel does when it is to be posted there;
    and the characters the user may name."""
    shown_to = channel(wanted.viewer) if wanted.public else wanted.viewer
    with store.read() as session:
        return ledgers.read_as(session, shown_to), ledgers.named(session, wanted.viewer)


def shown(answer: dict[str, Any], wanted: Asked) -> dict[str, Any]:
    view = answer["view"]
    if wanted.member is not None:
        whose = f"{wanted.viewer.name}'s characters"
        view = view | {"title": f"Luck ledger of {whose}", "whose": whose}
    words = AS_CHANNEL if wanted.public else AS_YOU_SEE
    return ledger_message(view, words, not wanted.public)
