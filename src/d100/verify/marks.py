"""Improvement marks replayed from a table's log: a first roll (not a follow-up) marks each
side's skill as the system's rules say (``Declaration.marks``) under the table's setting (its
opening logs it), where every reader of the sheet sees the roll, as the table marks it; the
GM's clearing and a development phase clear them. A phase must then roll exactly the skills
marked (on the sheet and at the table). A mark this viewer cannot replay (a roll it does not
see of a sheet it reads only by the GM's reveal, a log from before the setting was logged)
leaves that character's marks unknown, and its phase's skills on trust."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..audiences import sees_result
from ..results import CheckResult, check_data
from ..systems import REGISTRY

OLDER = (
    "not replayed: the log does not give the table's improvement setting (opened before d100 "
    "logged it)"
)


class Marked:
    """Each character's skills marked at the table (casefolded), as the log replays them;
    None where this viewer cannot tell (``why``)."""

    def __init__(self, system: str | None, gms: set[str]) -> None:
        self.system, self.gms = system, gms
        self.improvement: str | None = None
        self.marks: dict[str, set[str] | None] = {}
        self.why: dict[str, str] = {}
        # a roll kept from this viewer until shown: the marks as they were when it was made
        self.then: dict[int, tuple[dict[str, set[str] | None], dict[str, str]]] = {}

    def opened(self, entry: Mapping[str, Any]) -> None:
        setting = entry.get("improvement")
        self.improvement = setting if isinstance(setting, str) else None

    def character(self, cid: str, change: Any) -> None:
        if change == "deleted":
            self.marks.pop(cid, None)
        elif change == "created" or change == "marks":
            self.marks[cid] = set()
        elif change == "edited":
            self.marks.setdefault(cid, set())

    def cleared(self, cid: str) -> None:
        """A development phase written back clears every mark."""
        self.marks[cid] = set()

    def unseen(self, cid: str, why: str) -> None:
        self.marks[cid], self.why[cid] = None, why

    def keep(self, seq: int) -> None:
        """The marks as they are when roll ``seq`` is made, for its showing (``of``)."""
        marks = {cid: None if m is None else set(m) for cid, m in self.marks.items()}
        self.then[seq] = (marks, dict(self.why))

    def of(self, cid: str, rolled: int | None = None) -> tuple[set[str] | None, str]:
        """The character's marks (as they were when roll ``rolled`` was made, if kept), or
        None and why they are unknown here."""
        if self.improvement is None:
            return None, OLDER
        marks, why = self.marks, self.why
        if rolled is not None and rolled in self.then:
            marks, why = self.then[rolled]
        return marks.get(cid), why.get(cid, "")

    def rolled(self, entry: Mapping[str, Any], sides: list[tuple[str, Any, Any, Any]]) -> None:
        """A first roll's marks: each side's skill, where every reader of its sheet sees it."""
        if self.improvement is None or self.system is None:
            return
        rule = REGISTRY.get(self.system).declares.marks
        result = entry.get("result")
        contest = isinstance(result, Mapping) and "opponent" in result
        for side, ref, skill, part in sides:
            cid = str(ref.get("id"))
            now = self.marks.get(cid)
            if now is None or not self.shared(entry, ref.get("member_id")):
                continue
            check = result.get(side) if contest and isinstance(result, Mapping) else result
            if not (isinstance(check, Mapping) and isinstance(part, Mapping)):
                self.unseen(cid, f"a roll's (#{entry.get('seq')}) result is kept from this viewer")
                continue
            if not isinstance(skill, str):
                self.unseen(cid, f"the skill of roll #{entry.get('seq')} is kept from this viewer")
                continue
            made = _check(self.system, check, part)
            npc = isinstance(ref.get("member_id"), str) and ref["member_id"] in self.gms
            if made is not None and rule.after(self.improvement, made, skill, npc, 0):
                now.add(skill.casefold())

    def shared(self, entry: Mapping[str, Any], owner: Any) -> bool:
        """Whether every reader of the sheet (its player and the GMs) sees the roll's result
        (a blind roll shown: as it was made, blind, by its roller)."""
        visibility, actor = str(entry.get("visibility")), entry.get("actor_id")
        if isinstance(entry.get("unblinds"), int):
            visibility, actor = "blind", entry.get("roller_id")
        actor = actor if isinstance(actor, str) else None
        owner = owner if isinstance(owner, str) else None
        readers = [(str(owner), owner in self.gms), *((g, True) for g in self.gms)]
        return all(sees_result(visibility, actor, who, gm) for who, gm in readers)


def _check(system: str, check: Mapping[str, Any], part: Mapping[str, Any]) -> CheckResult | None:
    """What a mark reads of a check (its success, request and Luck spent), from its result."""
    success, spent, asked = check.get("success"), check.get("luck_spent"), check.get("request")
    if not isinstance(success, bool):
        return None
    return CheckResult(
        system=system,
        level=str(check.get("level")),
        success=success,
        roll=None,
        dice=(),
        target=0,
        margin=None,
        explanation="",
        request=check_data(asked if isinstance(asked, Mapping) else part),
        luck_spent=spent if isinstance(spent, int) else None,
    )
