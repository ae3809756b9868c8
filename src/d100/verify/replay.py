"""The table replayed from its log, in order: each character's sheet as created and edited,
its Luck as rolls spend it and rest restores it, each called test and what became of it. A
roll's request must follow from that state at its moment: each side's skill (and what else
the table fills in from a sheet) as the sheet then gave it, and a called test's skill,
mode and fields as the GM called it, answered once. A sheet this export does not show (its
player's and the GMs' to read, or logged before d100 logged sheets) is named, and what rests
on it is taken on trust."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .. import declared, quick, sanity_form, sheets
from ..actions import named
from ..errors import D100Error
from ..luck import Luck
from ..systems import REGISTRY
from ..table_fields import players_part, reserved
from .house import House
from .marks import Marked
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
    def __init__(
        self, system: Any, entries: list[tuple[int, dict[str, Any]]], gms: set[str]
    ) -> None:
        self.system = system if isinstance(system, str) and system in REGISTRY else None
        self.marked = Marked(self.system, gms)  # each character's marks at the table
        self.house = House(self.system)  # the table's house rules at each moment
        self.known: dict[str, Known] = {}  # character id -> as shown so far
        self.calls: dict[str, Mapping[str, Any]] = {}  # call id -> the call as called
        self.answered: dict[str, str] = {}  # target id -> how it was answered
        self.helps: dict[str, dict[str, str]] = {}  # target id -> helper id -> skill helping
        self.states: dict[int, dict[str, Known]] = {}  # a roll's number -> the state then
        self.asked: dict[int, dict[str, Any]] = {}  # a roll's number -> its sheet's part
        self.proven: dict[int, bool] = {}  # a roll's number -> its target proven
        self.unread: dict[tuple[str, str], list[int]] = {}  # (name, why) -> rolls on trust
        self.written: set[int] = set()  # declared rolls whose write-back is applied
        self.revealed, self.failures = opened(entries)

    # -- what changes the state ------------------------------------------------------------

    def event(self, entry: Mapping[str, Any]) -> None:
        kind, seq = entry.get("kind"), entry.get("seq")
        if kind == "table":
            self.marked.opened(entry)
            self.house.opened(entry)
        elif kind == "character":
            self._character(entry)
        elif kind == "call":
            call = entry.get("call")
            if isinstance(call, Mapping) and isinstance(call.get("id"), str):
                self.calls[call["id"]] = call
        elif kind == "cancel":
            for target in _targets(entry.get("call")):
                self.answered.setdefault(str(target.get("id")), f"cancelled at #{seq}")
        elif kind == "help":
            helper = entry.get("character")
            if isinstance(helper, Mapping) and isinstance(entry.get("skill"), str):
                helping = self.helps.setdefault(str(entry.get("target_id")), {})
                helping.setdefault(str(helper.get("id")), entry["skill"])
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
            # and marked a skill of a sheet this viewer reads only by the GM's reveal
            self.states[seq] = dict(self.known)
            self.marked.keep(seq)
            self.house.then(seq)
            for cid in (cid for cid, k in self.known.items() if k.revealed):
                self.marked.unseen(cid, f"roll #{seq}, kept from this viewer, may have marked one")
            self.known = {cid: replace(k, luck=None) for cid, k in self.known.items()}

    def _character(self, entry: Mapping[str, Any]) -> None:
        ref, seq, change = entry.get("character"), entry.get("seq"), entry.get("change")
        if not isinstance(ref, Mapping) or not isinstance(ref.get("id"), str):
            return
        self.marked.character(ref["id"], change)
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
        rules = self.house.then(seq, shows if isinstance(shows, int) else followed)
        ruled = self.house.check(entry.get("request"), rules, out.trusted)
        if ruled is not None:
            out.fail(ruled)
        for side, ref, skill, part in _sides(entry):
            if str(ref.get("id")) not in state:
                out.fail(f"its {side} is {brief(ref.get('name'))}, a character the log never made")
                continue
            if isinstance(followed, int) and side == "actor":
                self._follows(out, followed, part)
                continue
            self._side(out, state.get(str(ref.get("id"))), side, skill, part, seq)
        if entry.get("helpers"):
            self._helpers(out, entry, state)
        call = entry.get("call")
        if isinstance(call, Mapping) and followed is None and shows is None:
            self._answers(out, entry, call, state)
        self.proven[seq] = out.reason is None and not out.trusted
        if shows is None:
            self._spent(out, entry)
            self._left(entry)
            if followed is None:  # the table marks first rolls only
                self.marked.rolled(entry, _sides(entry))
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

    def _helpers(self, out: Replayed, entry: Mapping[str, Any], state: Mapping[str, Known]) -> None:
        """Each helper's part of the request (assistance, cooperation) is what its sheet then
        gives the skill its help event names, as the table took it."""
        helpers, call = entry.get("helpers"), entry.get("call")
        assistance = None if self.system is None else REGISTRY.get(self.system).declares.assistance
        actor = next((p for s, _, _, p in _sides(entry) if s == "actor"), None)
        given = actor.get(assistance.field) if assistance and isinstance(actor, Mapping) else None
        parts = given if assistance and assistance.many else [given]
        target = call.get("target_id") if isinstance(call, Mapping) else None
        if not (assistance and isinstance(helpers, list) and isinstance(parts, list)):
            out.trusted.append("the helpers' values: this export does not show them")
            return
        if len(parts) != len(helpers):
            out.fail(f"its request has {len(parts)} helpers, where it names {len(helpers)}")
            return
        helping = self.helps.get(str(target), {})
        for ref, part in zip(helpers, parts, strict=True):
            ref = ref if isinstance(ref, Mapping) else {}
            name, skill = brief(ref.get("name")), helping.get(str(ref.get("id")))
            known = state.get(str(ref.get("id")))
            if skill is None or known is None or not isinstance(part, Mapping):
                out.trusted.append(f"helper {name}'s value: its help is not shown to this viewer")
                continue
            if known.sheet is None:
                out.trusted.append(f"helper {known.name}'s value: their sheet is {known.why}")
                self.unread.setdefault((known.name, known.why), []).append(entry["seq"])
                continue
            name, where = known.name, f"{known.name}'s sheet then (#{known.since})"
            try:
                side = known.sheet.side(skill)
            except D100Error as err:
                out.fail(
                    f"its helper {name} helps with {skill}, which {where} lacks: {err.message}"
                )
                return
            for key in assistance.helper_fields:
                if part.get(key) != side.get(key):
                    out.fail(
                        f"its helper {name}'s request has {key} {brief(part.get(key))}, where "
                        f"{where} gives their {skill} {brief(side.get(key))}"
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
        """A declared roll for a character asks of its sheet then what its words ask (an
        action's skill and DB, a dice roll's DB, a Sanity roll's SAN, INT and Mythos, a
        development phase's marked skills and their values); a blind one shown (``unblinds``)
        is replayed as of when it was made, as one seen at once. What it wrote back (a Sanity
        roll's SAN, Luck spent, P-2, a phase's raises; only where every reader of the sheet
        saw it) is applied where this viewer learns it: when made, or when shown."""
        out, seq, shows = Replayed(), entry["seq"], entry.get("unblinds")
        if isinstance(shows, int):
            state, rolled = self.states.get(shows, self.known), shows
        else:
            state, rolled = dict(self.known), seq
            self.states[seq] = state
            self.marked.keep(seq)
        earlier = shows if isinstance(shows, int) else entry.get("reroll_of")
        rules = self.house.then(int(seq), earlier)  # a roll shown or followed: its roll's
        if quick.word_kind(entry.get("roll")):  # a chat-bot word's: ruled by the table's
            ruled = self.house.word(entry.get("roll"), entry.get("request"), rules)
            if ruled is not None:
                out.fail(ruled)
                return out
        self._defended(out, entry, state)
        if out.reason is not None:
            return out
        sheet, result, ref = entry.get("sheet"), entry.get("result"), entry.get("character")
        if not isinstance(ref, Mapping) or ref.get("id") not in state:
            return out
        cid = str(ref["id"])
        known = state[cid]
        if not isinstance(result, Mapping):  # its result kept from this viewer
            if cid in self.known:
                self.known[cid] = replace(self.known[cid], luck=None)
            return out
        request = entry.get("request")
        request = request if isinstance(request, Mapping) else {}
        where = f"{known.name}'s sheet then (#{known.since})"
        written = isinstance(sheet, Mapping) and sheet.get("written") is True
        if written and not self.marked.shared(entry, ref.get("member_id")):
            out.fail(
                f"it says it wrote {known.name}'s sheet, yet not every reader of that sheet saw "
                "the roll (a table writes a sheet only then)"
            )
            return out
        if known.sheet is None:
            out.trusted.append(f"what it read of the sheet: {known.name}'s sheet is {known.why}")
            self.unread.setdefault((known.name, known.why), []).append(seq)
        elif not isinstance(entry.get("words"), str):
            out.trusted.append("what it read of the sheet: its words are kept from this viewer")
        if known.sheet is not None and entry.get("roll") == "development":
            reason = _development_read(known, known.sheet, request)
            if reason is not None:
                out.fail(f"its request {reason}, where {where} gives otherwise")
                return out
        follows = entry.get("reroll_of") is not None  # its request its rules' offer (rolls.py)
        if known.sheet is not None and isinstance(entry.get("words"), str) and not follows:
            self._asked(out, entry, known, known.sheet, cid, rolled)
        san = sheet.get("sanity") if isinstance(sheet, Mapping) else None
        if out.reason is None and known.sheet is not None and isinstance(san, list) and san:
            try:
                has = sanity_form.sheet_fields(known.sheet).get("sanity")
            except D100Error:
                has = None
            if request.get("sanity") != has:
                out.fail(
                    f"its request has SAN {brief(request.get('sanity'))}, where {where} "
                    f"gives {brief(has)}"
                )
        if out.reason is None and cid in self.known and rolled not in self.written:
            self.written.add(rolled)  # once, where this viewer first sees it whole
            self._written(out, entry, cid)
        return out

    def _written(self, out: Replayed, entry: Mapping[str, Any], cid: str) -> None:
        """What a declared roll wrote back to its character's sheet, on the sheet as it is
        now: the SAN it came to, the Luck it spent, a phase's raises (its marks cleared)."""
        known, sheet, result = self.known[cid], entry.get("sheet"), entry["result"]
        if named(str(entry.get("roll"))) is not None:
            self._luck_after(out, cid, known, entry)  # an action writes no sheet back
            return
        if not isinstance(sheet, Mapping) or sheet.get("written") is not True:
            return  # nothing written back (a dice roll, or one some reader did not see)
        san = sheet.get("sanity")
        if known.sheet is not None and isinstance(san, list) and len(san) == 2:
            try:
                has = sanity_form.sheet_fields(known.sheet).get("sanity")
            except D100Error:
                has = None
            if isinstance(san[1], int) and san[1] != has:
                changed = sanity_form.with_sanity(known.sheet, san[1])
                known = self.known[cid] = replace(known, sheet=changed)
        spent = result.get("luck_spent")
        if isinstance(spent, int) and known.luck is not None:
            self.known[cid] = replace(known, luck=known.luck - spent)
        raised = sheet.get("skills")  # a development phase written back (its dice checked)
        if isinstance(raised, Mapping) and known.sheet:
            phase = entry.get("roll") == "development"  # a phase clears the marks, .en none
            self.known[cid] = _developed(known, known.sheet, raised, sheet, phase)
            if phase:
                self.marked.cleared(cid)

    def _asked(
        self,
        out: Replayed,
        entry: Mapping[str, Any],
        known: Known,
        c: sheets.Character,
        cid: str,
        rolled: int,
    ) -> None:
        """A dice, Sanity, development roll or an action asked in words for a character: its
        request is what the words ask of the sheet then (an attack's skill and DB, a Sanity
        roll's SAN, INT and Mythos, a phase's marked skills), as the table asked it."""
        words, kind, request = str(entry["words"]), entry.get("roll"), entry.get("request")
        if self.system is None or not isinstance(request, Mapping):
            return
        if quick.word_kind(kind):  # its rules checked (``House.word``); the sheet's part not
            out.trusted.append(f"what its words {brief(words)} read of the sheet")
            return
        where = f"{known.name}'s sheet then (#{known.since})"
        marked: list[str] = []
        if kind == "development":
            marks, why = self.marked.of(cid, rolled)
            if marks is None:
                out.trusted.append(f"the skills it rolls: {known.name}'s marks are {why}")
                return
            marked = sorted(marks)
        if known.luck is not None and c.luck is not None:
            c = replace(c, luck=replace(c.luck, current=known.luck))
        try:
            again = _asked_again(self.system, words, c, marked, entry)
        except D100Error as err:
            out.fail(f"its words {brief(words)} ask for no roll of {where}: {err.message}")
            return
        if again.roll != kind:
            out.fail(f"its words {brief(words)} ask for a {again.roll} roll, not {brief(kind)}")
            return
        found = json.loads(json.dumps(again.to_dict()))
        for key in sorted(set(found) | set(request)):
            if key == "luck" and known.luck is None:
                out.trusted.append(
                    f"its Luck: {known.name}'s, spent where this viewer does not see"
                )
            elif found.get(key) != request.get(key):
                out.fail(
                    f"its request has {key} {brief(request.get(key))}, where its words "
                    f"{brief(words)} on {where} ask {brief(found.get(key))}"
                )
                return
        out.trusted += _typed(self.system, words, kind, request, c)

    def _luck_after(self, out: Replayed, cid: str, known: Known, entry: Mapping[str, Any]) -> None:
        """What follows an action (Luck spent on an attack made, C7-4) spends the Luck it
        says from the sheet, which must hold more than that (Luck is offered only then); an
        action spending Luck as it is made (a Pulp hero's on a malfunction, P-6) the Luck its
        result says, where it wrote the sheet."""
        sheet, result = entry.get("sheet"), entry.get("result")
        if entry.get("reroll_of") is None:
            written = isinstance(sheet, Mapping) and sheet.get("written") is True
            spent = result.get("luck_spent") if isinstance(result, Mapping) else None
            if written and isinstance(spent, int) and known.luck is not None:
                self.known[cid] = replace(known, luck=known.luck - spent)
            return
        spent = entry.get("luck_spent")
        if not isinstance(spent, int) or not spent:
            return
        if known.luck is not None and spent >= known.luck:
            out.fail(f"{known.name} spends {spent} Luck, having {known.luck} (more is needed)")
        left = None if known.luck is None else known.luck - spent
        self.known[cid] = replace(known, luck=left)

    def _defended(
        self, out: Replayed, entry: Mapping[str, Any], state: Mapping[str, Known]
    ) -> None:
        """An action made against a character (``Facing``): the defender's value and damage
        bonus in its request as the defender's sheet then gave them (the request is kept from
        a viewer who may not read that sheet: its roll is checked by seed and nonce only)."""
        faced, request = entry.get("defender"), entry.get("request")
        ref = faced.get("character") if isinstance(faced, Mapping) else None
        if not isinstance(faced, Mapping) or not isinstance(ref, Mapping):
            return
        action = named(str(entry.get("roll")))
        known = state.get(str(ref.get("id")))
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
        """Each sheet a roll's target was taken on trust for, by name; the house rules, where
        the log does not give them."""
        out = self.house.notes()
        for (name, why), rolls in self.unread.items():
            shown = ", ".join(f"#{seq}" for seq in rolls)
            out.append(f"{name}'s sheet is {why}: the targets of rolls {shown} rest on trust")
        return out


def _asked_again(
    system: str,
    words: str,
    c: sheets.Character,
    marked: Sequence[str],
    entry: Mapping[str, Any],
) -> declared.Asked:
    """What the words ask of the sheet, as the table asked it: an action made against another
    character read as such, that side's value and DB the request's (``_defended`` checks them
    against that sheet)."""
    if not isinstance(entry.get("defender"), Mapping):
        return declared.asked(system, words, c, marked)
    found = declared.action_of(system, words, c, facing=True)
    facing = None if found is None else found.action.facing
    if found is None or facing is None:
        raise D100Error("words", words, "an action made against a character", "none")
    value, bonus = facing.side(found.action.build(entry["request"]))
    if value is None:
        raise D100Error("request", None, "the defender's value", "missing")
    made = facing.fill(found.request, value, bonus)
    return declared.Asked(found.action.name, made, found.action)


def _typed(
    system: str, words: str, kind: Any, request: Mapping[str, Any], c: sheets.Character
) -> list[str]:
    """What the words typed that the sheet would otherwise give (an action's skill as a
    number, a damage bonus given by ``db=``, a Sanity roll's INT or Mythos given by name):
    the roller's word, not the sheet's, so named on trust."""
    tokens = words.split()
    typed = [t.partition("=")[0] for t in tokens if t.lower().startswith(declared.BONUS)]
    said = sanity_form.read(tokens, system) if kind == "sanity" else None
    if said is not None:
        try:
            given = sanity_form.sheet_fields(c)
        except D100Error:
            given = {}
        typed += sorted(k for k in said.fields if k in given and k != "system")
    if kind not in declared.ROLLS:
        try:
            alone = json.loads(json.dumps(declared.asked(system, words, None).to_dict()))
        except D100Error:
            alone = None
        typed += ["the skill"] if alone == request else []
    if not typed:
        return []
    return [f"{', '.join(typed)}: typed in its words ({words}), not read from the sheet"]


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
    known: Known,
    c: sheets.Character,
    raised: Mapping[str, Any],
    sheet: Mapping[str, Any],
    clears: bool = True,
) -> Known:
    """The character after its development phase: each value raised (Luck's too), the
    mastery reward added, the marks cleared (a phase's; SealDice's ``.en`` leaves them), as
    the table wrote them."""
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
    changed = replace(c, skills=skills, luck=luck, derived=derived, marks=() if clears else c.marks)
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
