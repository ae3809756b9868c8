"""The table replayed from its log, in order: each character's sheet as created and edited,
its Luck as rolls spend it and rest restores it, each called test and what became of it. A
roll's request must follow from that state at its moment: each side's skill (and what else
the table fills in from a sheet) as the sheet then gave it, and a called test's skill,
mode and fields as the GM called it, answered once. A sheet this export does not show (its
player's and the GMs' to read, or logged before d100 logged sheets) is named, and what rests
on it is taken on trust."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .. import sanity_form, sheets
from ..actions import named
from ..errors import D100Error
from ..luck import Luck
from ..systems import REGISTRY
from ..table_fields import players_part, reserved
from .reveals import SHEET, opened
from .values import brief

SIDES = ("actor", "opponent")
KEPT = "kept from this viewer (its player's and the GMs' to read; the GM has not revealed it)"
OLDER = "not in the log (created before d100 logged sheets)"


@dataclass(frozen=True)
class Known:
    """A character as the log has shown this viewer so far."""

    name: str
    sheet: sheets.Character | None  # None: not shown (``why``)
    since: Any  # the event that set it
    luck: int | None  # its Luck now; None: changed where this viewer does not see
    why: str = ""
    revealed: bool = False  # shown by the GM's reveal: an edit after it may be a stub

    def reads_luck(self, skill: str) -> bool:
        """Whether a check of ``skill`` is a Luck roll (its target the Luck it has now)."""
        rules = None if self.sheet is None else self.sheet.investigator_rules
        if rules is None or self.sheet is None or skill in self.sheet.skills:
            return False
        return skill.casefold() == rules.luck.casefold()


@dataclass
class Replayed:
    """What a roll's replay found: a reason it does not follow from the state, or what rests
    on trust."""

    reason: str | None = None
    trusted: list[str] = field(default_factory=list)

    def fail(self, reason: str) -> None:
        self.reason = self.reason or reason


class Replay:
    def __init__(self, system: Any, entries: list[tuple[int, dict[str, Any]]]) -> None:
        self.system = system if isinstance(system, str) and system in REGISTRY else None
        self.known: dict[str, Known] = {}  # character id -> as shown so far
        self.calls: dict[str, Mapping[str, Any]] = {}  # call id -> the call as called
        self.answered: dict[str, str] = {}  # target id -> how it was answered
        self.states: dict[int, dict[str, Known]] = {}  # a roll's number -> the state then
        self.asked: dict[int, dict[str, Any]] = {}  # a roll's number -> its sheet's part
        self.proven: dict[int, bool] = {}  # a roll's number -> its target proven
        self.unread: dict[tuple[str, str], list[int]] = {}  # (name, why) -> rolls on trust
        self.revealed, self.failures = opened(entries)

    # -- what changes the state ------------------------------------------------------------

    def event(self, entry: Mapping[str, Any]) -> None:
        kind, seq = entry.get("kind"), entry.get("seq")
        if kind == "character":
            self._character(entry)
        elif kind == "call":
            call = entry.get("call")
            if isinstance(call, Mapping) and isinstance(call.get("id"), str):
                self.calls[call["id"]] = call
        elif kind == "cancel":
            for target in _targets(entry.get("call")):
                self.answered.setdefault(str(target.get("id")), f"cancelled at #{seq}")
        elif kind == "decline":
            self.answered.setdefault(str(entry.get("target_id")), f"declined at #{seq}")
        elif kind == "rest":
            for cid, known in self.known.items():
                luck = None if known.sheet is None else known.sheet.luck
                self.known[cid] = replace(known, luck=None if luck is None else luck.maximum)
        elif kind == "hidden" and seq in self.revealed:  # an edit kept from this viewer
            shown = self.revealed[seq]
            self._sheet(shown.character, shown.sheet, seq, "", True)
        elif kind == "hidden" and "provable" not in entry:
            # an event this viewer may not see may be an edit of a sheet revealed before it
            why = f"kept from this viewer since #{seq} (an event it may not see, perhaps an edit)"
            for cid, known in self.known.items():
                if known.revealed:
                    self.known[cid] = Known(known.name, None, seq, None, why)
        elif kind == "hidden" and isinstance(seq, int):
            # a roll this viewer may not see (shown later, if blind) may have spent anyone's Luck
            self.states[seq] = dict(self.known)
            self.known = {cid: replace(k, luck=None) for cid, k in self.known.items()}

    def _character(self, entry: Mapping[str, Any]) -> None:
        ref, seq, change = entry.get("character"), entry.get("seq"), entry.get("change")
        if not isinstance(ref, Mapping) or not isinstance(ref.get("id"), str):
            return
        if change == "deleted":
            self.known.pop(ref["id"], None)
        elif change in ("created", "edited"):
            shown = self.revealed.get(seq) if isinstance(seq, int) else None
            given = entry.get(SHEET, None if shown is None else shown.sheet)
            why = KEPT if "withheld" in entry else OLDER
            self._sheet(ref, given, seq, why, SHEET not in entry and shown is not None)

    def _sheet(
        self, ref: Mapping[str, Any], given: Any, seq: Any, why: str, revealed: bool = False
    ) -> None:
        """A character's sheet from an event (``why``: why it is not shown, if it is not;
        ``revealed``: shown by the GM's reveal, not to its readers)."""
        cid, name = str(ref.get("id")), str(ref.get("name"))
        if not isinstance(given, Mapping):
            self.known[cid] = Known(name, None, seq, None, why)
            return
        try:
            sheet = sheets.from_table(name, given, f"#{seq}.sheet")
        except D100Error as err:
            self.known[cid] = Known(name, None, seq, None, f"unreadable ({err.message})")
            return
        luck = None if sheet.luck is None else sheet.luck.current
        self.known[cid] = Known(name, sheet, seq, luck, revealed=revealed)

    # -- a roll ----------------------------------------------------------------------------

    def roll(self, entry: Mapping[str, Any]) -> Replayed:
        """A check or a contest (or a follow-up, or a blind roll shown): its request against
        the state at its moment; then what it spent."""
        seq, out = entry.get("seq"), Replayed()
        assert isinstance(seq, int)
        shows = entry.get("unblinds")
        if isinstance(shows, int):  # a blind roll shown: as of when it was rolled
            state = self.states.get(shows, self.known)
        else:
            state = self.states[seq] = dict(self.known)
        followed = entry.get("reroll_of")
        for side, ref, skill, part in _sides(entry):
            if str(ref.get("id")) not in state:
                out.fail(f"its {side} is {brief(ref.get('name'))}, a character the log never made")
                continue
            if isinstance(followed, int) and side == "actor":
                self._follows(out, followed, part)
                continue
            self._side(out, state.get(str(ref.get("id"))), side, skill, part, seq)
        if entry.get("helpers"):
            out.trusted.append("the helpers' values (not replayed against their sheets)")
        call = entry.get("call")
        if isinstance(call, Mapping) and followed is None and shows is None:
            self._answers(out, entry, call, state)
        self.proven[seq] = out.reason is None and not out.trusted
        if shows is None:
            self._spent(out, entry)
            self._left(entry)
        return out

    def _side(
        self,
        out: Replayed,
        known: Known | None,
        side: str,
        skill: Any,
        part: Any,
        seq: int,
    ) -> None:
        if part is None:
            out.trusted.append(f"the {side}'s target: its side is {KEPT}")
            return
        if known is None:
            return  # no such character: the roll failed already
        if known.sheet is None:
            out.trusted.append(f"the {side}'s target: {known.name}'s sheet is {known.why}")
            self.unread.setdefault((known.name, known.why), []).append(seq)
            return
        if not isinstance(skill, str):
            out.trusted.append(f"the {side}'s target: the skill is {KEPT}")
            return
        sheet = known.sheet
        if known.luck is not None and sheet.luck is not None:
            sheet = replace(sheet, luck=replace(sheet.luck, current=known.luck))
        if known.reads_luck(skill) and known.luck is None:
            out.trusted.append(
                f"the {side}'s target: {known.name}'s Luck, spent since where this viewer "
                "does not see"
            )
            return
        where = f"{known.name}'s sheet then (#{known.since})"
        try:
            sheet.skill(skill)
        except D100Error:
            out.fail(f"its {side} rolls {skill}, which {where} does not have")
            return
        # a roller may name the ability a skill adds: the sheet's ability of that value
        field_ = REGISTRY.get(sheet.system).declares.ability_field
        named = [a for a, v in sheet.abilities.items() if field_ and v == part.get(field_)]
        try:
            expected = sheet.side(skill, named[0] if named else None)
        except D100Error as err:
            out.fail(f"its {side}'s request does not follow from {where}: {err.message}")
            return
        if side == "actor":  # what a follow-up of it must read alike
            self.asked[seq] = {k: part.get(k) for k in expected}
        for key, value in expected.items():
            if part.get(key) != value:
                whose = f"{known.name}'s {skill}" if key == "skill" else f"its {key}"
                out.fail(
                    f"its {side}'s request has {key} {brief(part.get(key))}, where {where} "
                    f"gives {whose} {brief(value)}"
                )
                return

    def _follows(self, out: Replayed, followed: int, part: Any) -> None:
        """A follow-up reads the sheet as the roll it follows did."""
        asked = self.asked.get(followed)
        if asked is None or not isinstance(part, Mapping):
            out.trusted.append(f"the target: as roll #{followed}'s, which this export cannot check")
            return
        for key, value in asked.items():
            if part.get(key) != value:
                out.fail(
                    f"its request has {key} {brief(part.get(key))}, where roll #{followed}, "
                    f"which it follows, had {brief(value)}"
                )
                return
        if not self.proven.get(followed):
            out.trusted.append(f"the target: as roll #{followed}'s, taken on trust there")

    def _answers(
        self,
        out: Replayed,
        entry: Mapping[str, Any],
        answered: Mapping[str, Any],
        state: Mapping[str, Known],
    ) -> None:
        """A called test answered: the call the log holds, for this character, not answered
        before, rolled in its mode, of its skill, with its fields (a player adds only their
        Luck) and against the opponent it chose."""
        seq, call_id, target_id = entry["seq"], answered.get("id"), answered.get("target_id")
        call = self.calls.get(str(call_id))
        if call is None:
            out.fail(f"answers call {brief(call_id)}, which the log never called")
            return
        target = next((t for t in _targets(call) if t.get("id") == target_id), None)
        character = entry.get("character")
        cid = character.get("id") if isinstance(character, Mapping) else None
        if target is None or not isinstance(target.get("character"), Mapping):
            out.fail(f"answers target {brief(target_id)}, which call {call_id} did not call")
            return
        if target["character"].get("id") != cid:
            out.fail(f"answers call {call_id} for {brief(cid)}, not the character it called")
            return
        before = self.answered.get(str(target_id))
        if before is not None:
            out.fail(f"answers call {call_id}, {before}")
            return
        self.answered[str(target_id)] = f"rolled at #{seq}"
        if entry.get("visibility") != call.get("visibility"):
            out.fail(
                f"rolled {brief(entry.get('visibility'))}, where call {call_id} was called "
                f"{brief(call.get('visibility'))}"
            )
            return
        known = state.get(str(cid))
        if known is not None and known.sheet is not None:
            try:
                skill = known.sheet.skill(str(call.get("skill")))
            except D100Error:
                skill = None
            if skill != entry.get("skill"):
                out.fail(
                    f"rolls {brief(entry.get('skill'))}, where call {call_id} called "
                    f"{brief(call.get('skill'))}"
                )
                return
        self._called_fields(out, entry, call)
        self._called_opponent(out, entry, call)

    def _called_fields(
        self, out: Replayed, entry: Mapping[str, Any], call: Mapping[str, Any]
    ) -> None:
        sides = dict((s, p) for s, _, _, p in _sides(entry))
        part = sides.get("actor")
        if not isinstance(part, Mapping) or self.system is None:
            return
        asked = call.get("fields") if isinstance(call.get("fields"), Mapping) else {}
        assert isinstance(asked, Mapping)
        theirs = players_part(self.system)
        for key, value in asked.items():
            if key not in theirs and part.get(key) != value:
                out.fail(
                    f"its request has {key} {brief(part.get(key))}, where call {call['id']} "
                    f"asked {brief(value)}"
                )
                return
        allowed = reserved(self.system) | theirs | set(asked)
        added = sorted(k for k in part if k not in allowed)
        if added:
            out.fail(f"its request adds {added[0]}, which call {call['id']} did not ask")

    def _called_opponent(
        self, out: Replayed, entry: Mapping[str, Any], call: Mapping[str, Any]
    ) -> None:
        chosen = call.get("opponent")
        opponent = entry.get("opponent")
        if chosen is None:
            if opponent is not None:
                out.fail(f"a contest, where call {call['id']} called a check")
            return
        if not isinstance(chosen, Mapping) or not isinstance(opponent, Mapping):
            out.fail(f"a check, where call {call['id']} called a contest")
            return
        side = chosen.get("character")
        if not isinstance(side, Mapping) or side.get("id") != opponent.get("id"):
            out.fail(f"against {brief(opponent.get('name'))}, not the side call {call['id']} chose")
            return
        request = entry.get("request")
        if not isinstance(request, Mapping):
            return
        asked = [(request.get("opponent"), chosen.get("fields")), (request, chosen.get("contest"))]
        for part, fields in asked:
            if not (isinstance(part, Mapping) and isinstance(fields, Mapping)):
                continue
            for key, value in fields.items():
                if part.get(key) != value:
                    out.fail(
                        f"its request has {key} {brief(part.get(key))}, where call "
                        f"{call['id']} asked {brief(value)}"
                    )
                    return

    def _spent(self, out: Replayed, entry: Mapping[str, Any]) -> None:
        """The Luck each side spent, from what it had: unknown from here where the roll's
        result is not shown."""
        result = entry.get("result")
        for side, ref, _, _ in _sides(entry):
            cid = str(ref.get("id"))
            known = self.known.get(cid)
            if known is None:
                continue
            if not isinstance(result, Mapping) or "withheld" in entry:
                self.known[cid] = replace(known, luck=None)
                continue
            check = result.get(side) if "opponent" in result else result
            spent = check.get("luck_spent") if isinstance(check, Mapping) else None
            if side == "actor" and isinstance(entry.get("luck_spent"), int):
                spent = entry["luck_spent"]  # a follow-up's own spend
            if not isinstance(spent, int) or isinstance(spent, bool) or not spent:
                continue
            if known.luck is not None and spent > known.luck:
                out.fail(f"{known.name} spends {spent} Luck, having {known.luck}")
            left = None if known.luck is None else known.luck - spent
            self.known[cid] = replace(known, luck=left)

    def _left(self, entry: Mapping[str, Any]) -> None:
        """The value a check wrote to its actor's sheet (a Delta Green SAN test's SAN), as
        the event says: later rolls read it there."""
        left, ref = entry.get("sheet"), entry.get("character")
        if not (isinstance(left, Mapping) and left.get("written") is True):
            return
        if not isinstance(ref, Mapping) or str(ref.get("id")) not in self.known:
            return
        known = self.known[str(ref["id"])]
        values, skill = left.get("values"), left.get("skill")
        if known.sheet is None or not isinstance(values, list) or not isinstance(skill, str):
            return
        skills = {**known.sheet.skills, skill: values[-1]}
        self.known[str(ref["id"])] = replace(known, sheet=replace(known.sheet, skills=skills))

    def declared(self, entry: Mapping[str, Any]) -> Replayed:
        """A Sanity roll reads SAN from its sheet and, written back, leaves the SAN it came
        to there (and may spend Luck, P-2); a development phase reads each value it rolls
        from the sheet and writes back what it raised."""
        out = Replayed()
        self._defended(out, entry)
        if out.reason is not None:
            return out
        sheet, result, ref = entry.get("sheet"), entry.get("result"), entry.get("character")
        if not isinstance(ref, Mapping) or ref.get("id") not in self.known:
            return out
        known = self.known[str(ref["id"])]
        if named(str(entry.get("roll"))) is not None:  # an action writes no sheet back
            self._luck_after(out, str(ref["id"]), known, entry)
            return out
        if not (isinstance(sheet, Mapping) and isinstance(result, Mapping)):
            self.known[str(ref["id"])] = replace(known, luck=None)
            return out
        request = entry.get("request")
        request = request if isinstance(request, Mapping) else {}
        where = f"{known.name}'s sheet then (#{known.since})"
        if known.sheet is not None and entry.get("roll") == "development":
            reason = _development_read(known, known.sheet, request)
            if reason is not None:
                out.fail(f"its request {reason}, where {where} gives otherwise")
                return out
        san = sheet.get("sanity")
        if known.sheet is not None and isinstance(san, list) and len(san) == 2:
            try:
                has = sanity_form.sheet_fields(known.sheet).get("sanity")
            except D100Error:
                has = None
            if request.get("sanity") != has:
                out.fail(
                    f"its request has SAN {brief(request.get('sanity'))}, where {where} "
                    f"gives {brief(has)}"
                )
                return out
            if sheet.get("written") is True and isinstance(san[1], int) and san[1] != has:
                changed = sanity_form.with_sanity(known.sheet, san[1])
                known = self.known[str(ref["id"])] = replace(known, sheet=changed)
        spent = result.get("luck_spent")
        if sheet.get("written") is True and isinstance(spent, int) and known.luck is not None:
            self.known[str(ref["id"])] = replace(known, luck=known.luck - spent)
        raised = sheet.get("skills")  # a development phase written back (its dice checked)
        if sheet.get("written") is True and isinstance(raised, Mapping) and known.sheet:
            self.known[str(ref["id"])] = _developed(known, known.sheet, raised, sheet)
        return out

    def _luck_after(self, out: Replayed, cid: str, known: Known, entry: Mapping[str, Any]) -> None:
        """What follows an action (Luck spent on an attack made, C7-4) spends the Luck it
        says from the sheet, which must hold more than that (Luck is offered only then)."""
        spent = entry.get("luck_spent")
        if entry.get("reroll_of") is None or not isinstance(spent, int) or not spent:
            return
        if known.luck is not None and spent >= known.luck:
            out.fail(f"{known.name} spends {spent} Luck, having {known.luck} (more is needed)")
        left = None if known.luck is None else known.luck - spent
        self.known[cid] = replace(known, luck=left)

    def _defended(self, out: Replayed, entry: Mapping[str, Any]) -> None:
        """An action made against a character (``Facing``): the defender's value and damage
        bonus in its request as the defender's sheet then gave them (the request is kept from
        a viewer who may not read that sheet: its roll is checked by seed and nonce only)."""
        faced, request = entry.get("defender"), entry.get("request")
        ref = faced.get("character") if isinstance(faced, Mapping) else None
        if not isinstance(faced, Mapping) or not isinstance(ref, Mapping):
            return
        action = named(str(entry.get("roll")))
        known = self.known.get(str(ref.get("id")))
        if action is None or action.facing is None or not isinstance(request, Mapping):
            return
        if known is None:
            out.fail(f"its defender is {brief(ref.get('name'))}, a character the log never made")
            return
        if known.sheet is None:
            out.trusted.append(f"the defender's value: {known.name}'s sheet is {known.why}")
            self.unread.setdefault((known.name, known.why), []).append(int(entry["seq"]))
            return
        try:
            value, bonus = action.facing.side(action.build(request))
        except D100Error:
            return  # the roll's own check names a request that does not build
        where = f"{known.name}'s sheet then (#{known.since})"
        skill = faced.get("skill")
        has = known.sheet.rollable.get(skill) if isinstance(skill, str) else None
        if value != has:
            out.fail(
                f"its defender's {brief(skill)} is {brief(value)}, where {where} has {brief(has)}"
            )
        elif bonus is not None and bonus != known.sheet.damage_bonus:
            out.fail(
                f"its defender's damage bonus is {brief(bonus)}, where {where} gives "
                f"{brief(known.sheet.damage_bonus)}"
            )

    def notes(self) -> list[str]:
        """Each sheet a roll's target was taken on trust for, by name."""
        out = []
        for (name, why), rolls in self.unread.items():
            shown = ", ".join(f"#{seq}" for seq in rolls)
            out.append(f"{name}'s sheet is {why}: the targets of rolls {shown} rest on trust")
        return out


def _development_read(known: Known, c: sheets.Character, request: Mapping[str, Any]) -> str | None:
    """What a development phase's request reads of the sheet, against the sheet: each value
    it rolls, the Luck it recovers from, the value mastery rewards (a reason if not)."""
    values = {k.casefold(): v for k, v in c.rollable.items()}
    rules = c.investigator_rules
    if rules is not None and known.luck is not None:
        values[rules.luck.casefold()] = known.luck
    skills = request.get("skills")
    for name, value in skills.items() if isinstance(skills, Mapping) else ():
        if values.get(str(name).casefold()) != value:
            return f"rolls {brief(name)} at {brief(value)}"
    luck = request.get("luck")
    if luck is not None and known.luck is not None and luck != known.luck:
        return f"recovers Luck from {brief(luck)}"
    phase = REGISTRY.get(c.system).declares.development
    reward = c.derived_values.get(phase.reward_to) if phase and phase.reward_to else None
    if reward is not None and request.get("reward_value") != reward[0]:
        return f"rewards from {brief(request.get('reward_value'))}"
    return None


def _developed(
    known: Known, c: sheets.Character, raised: Mapping[str, Any], sheet: Mapping[str, Any]
) -> Known:
    """The character after its development phase: each value raised (Luck's too), the
    mastery reward added, the marks cleared, as the table wrote them."""
    rules = c.investigator_rules
    skills, luck, derived = dict(c.skills), c.luck, dict(c.derived)
    now = known.luck
    for name, pair in raised.items():
        after = pair[1] if isinstance(pair, list) and len(pair) == 2 else None
        if not isinstance(after, int):
            return replace(known, sheet=None, why="changed by a phase it does not show")
        if rules is not None and name == rules.luck and luck is not None:
            luck, now = Luck(after, max(luck.maximum, after)), after
        else:
            skills[name] = after
    reward, phase = sheet.get("reward"), REGISTRY.get(c.system).declares.development
    if isinstance(reward, list) and phase is not None and phase.reward_to is not None:
        derived[phase.reward_to] = reward[1]
    changed = replace(c, skills=skills, luck=luck, derived=derived, marks=())
    return replace(known, sheet=changed, luck=now)


def _targets(call: Any) -> list[Mapping[str, Any]]:
    targets = call.get("targets") if isinstance(call, Mapping) else None
    return [t for t in targets if isinstance(t, Mapping)] if isinstance(targets, list) else []


def _sides(entry: Mapping[str, Any]) -> list[tuple[str, Any, Any, Any]]:
    """Each side of a roll as its view shows it: the character, the skill and its part of
    the request (None where it is kept from this viewer)."""
    request = entry.get("request")
    request = request if isinstance(request, Mapping) else {}
    contest = isinstance(entry.get("opponent"), Mapping)
    named = [("actor", entry.get("character"), entry.get("skill"))]
    if contest:
        named.append(("opponent", entry.get("opponent"), entry.get("opponent_skill")))
    out = []
    for side, ref, skill in named:
        if not isinstance(ref, Mapping):
            continue
        part = request.get(side) if contest else (request or None)
        out.append((side, ref, skill, part if isinstance(part, Mapping) else None))
    return out
