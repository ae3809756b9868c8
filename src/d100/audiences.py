"""Who sees a table's roll, as the table server decides it (``server.access``) and ``d100
verify`` replays it (a roll changes a sheet only where every reader of it sees the roll)."""

from __future__ import annotations


def sees_result(visibility: str, actor_id: str | None, member_id: str, is_gm: bool) -> bool:
    """Whether a member may see the result of a roll made in this mode by ``actor_id``."""
    mine = actor_id == member_id
    return (
        visibility == "public"
        or (visibility == "gm" and (mine or is_gm))
        or (visibility == "self" and mine)
        or (visibility == "blind" and is_gm)
    )
