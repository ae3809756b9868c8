"""The rolls of a log, each checked against the seed it drew from: made under its seed's
commitment, its nonce due, on the chain its visibility allows, by the roller's client seed,
showing what its provable record resolved; and what only the whole log tells (every blind
roll shown before its seed is revealed)."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from .. import __version__, declared, quick
from ..actions import ActionRolled, named
from ..engine import odds as engine_odds
from ..engine import parse, resolve
from ..errors import D100Error, TooMuchWork
from ..provable import ProvableSource, commitment
from ..result_view import contest_view, result_view
from ..tallies import BUDGET, plan_of
from .replay import Replay
from .report import HIDDEN, MISMATCH, TYPED, UNVERIFIABLE, VERIFIED, Audit, Check
from .seeds import BLIND, GM_CHAIN, OPEN, SEALED, Seed, SeedPass
from .sides import declared_shown, names_bound, side_shown, withheld_parts
from .values import (
    MISSING,
    at,
    brief,
    client_seeds,
    dice_of,
    differing,
    drawn_by,
    in_force,
    outcome,
    path_of,
    too_deep,
    without,
)

ROLL_KINDS = ("roll", "contest", "unblind")
HOUSE_RULES = "house_rules"  # the GM's change of the table's house rules (``House.changed``)
DECLARED_KIND = "declared"  # a dice expression or a Sanity roll at a table
DECLARED_UNBLIND = "unblind_declared"  # a blind one shown to everyone


@functools.lru_cache(maxsize=1024)
def declared_odds(kind: str, request: str) -> dict[str, Any] | None:
    """A declared roll's odds from its request (as JSON), as its event keeps them; None past
    the engine's budget (a table refuses such a roll); none at all ({}) for a request they do
    not follow from."""
    try:
        asked = json.loads(request)
        found = declared.logged(kind, declared.odds(kind, asked), quick.word_roll(kind, asked))
    except TooMuchWork:
        return None
    except (D100Error, KeyError, TypeError, ValueError):
        return {}
    out: dict[str, Any] = json.loads(json.dumps(found))
    return out


@functools.lru_cache(maxsize=4096)
def odds_of(request: str) -> dict[str, Any] | None:
    """A check's or contest's exact odds from its request (as JSON), as a table works them
    out; None past the engine's budget (a table refuses such a roll) or for no request."""
    try:
        parsed = parse(json.loads(request))
        if plan_of(parsed).cost > BUDGET:
            return None
        found: dict[str, Any] = json.loads(json.dumps(engine_odds(parsed).to_dict()))
    except D100Error:
        return None
    return found


def _action_reads(entry: Mapping[str, Any], done: Any) -> str | None:
    """A reason if a system's action (an attack, shots, full auto) shows another outcome or
    other rows on its card than its recomputed result reads as, where this engine logged it
    (the card is worked out from the result, so the chain does not bind it)."""
    action = named(str(entry.get("roll")))
    view, request = entry.get("view"), entry.get("request")
    if action is None or not isinstance(view, Mapping) or not isinstance(request, Mapping):
        return None
    try:  # its odds whole, as the table worked them out (the log keeps some of them)
        report = action.report(done, action.odds(action.build(request)))
    except (D100Error, KeyError, TypeError, ValueError):
        return None
    rows = [
        {"label": r.label, "text": r.text, **({"level": r.level} if r.level else {})}
        for r in report.rows
    ]
    if view.get("outcome") != report.outcome or view.get("rows") != rows:
        return f"its card reads {brief(view.get('outcome'))}, its dice {brief(report.outcome)}"
    return None


# the Luck an action's follow-up is checked against: what the roller held is the sheet's, which
# ``Replay`` checks; here the offer is made as if any Luck would do
ANY_LUCK = 10**6
HIDDEN_KIND = "hidden"  # an event this export's viewer may not see: its number, seed and nonce


class Auditor(SeedPass):
    """One pass for the seeds (announced, revealed), one for the rolls and the table's
    state they are made from, then what only the whole log tells (each seed's roll count,
    every blind roll shown before its seed)."""

    def __init__(self, entries: list[tuple[int, dict[str, Any]]]) -> None:
        super().__init__(entries)
        self.replay = Replay(self.system, entries, self.gms)
        self.dear: list[int] = []  # rolls whose odds are past the engine's budget
        self.engines: dict[str, list[Any]] = {}  # another engine's rolls whose view is unchecked
        self.done: dict[int, Any] = {}  # an action's roll resolved again, by its number

    def run(self) -> Audit:
        self._numbers()
        for number, entry in self.entries:
            try:
                self._seed_event(number, entry)
            except RecursionError:
                raise too_deep(number) from None
        if self.older:
            self.audit.unchecked.append(
                "the table's opening announces no seed (a table opened before d100 announced "
                "its first seeds there): its first open and blind seeds are checked against "
                "their own reveal, not against a commitment announced before their rolls"
            )
        if self.bound_from != self.entries[0][0]:
            before = "" if self.bound_from is None else f" before line {self.bound_from}"
            self.audit.unchecked.append(
                f"rolls{before} are not checked against the chain of seeds their visibility "
                "allows (made before d100 drew each audience's rolls from seeds of its own, "
                "a gm or self roll or an NPC's part drew from the open seed)"
            )
        for number, entry in self.entries:
            try:
                self._roll_event(number, entry)
            except RecursionError:
                raise too_deep(number) from None
        self._counts()
        self._blind_rolls_shown()
        self.audit.unchecked += self.replay.notes()
        if self.dear:
            rolls = ", ".join(f"#{seq}" for seq in self.dear)
            self.audit.unchecked.append(
                f"the odds of rolls {rolls} (past the engine's budget): the server's word"
            )
        for engine, logged in self.engines.items():
            self.audit.unchecked.append(
                f"how rolls {', '.join(f'#{seq}' for seq in logged)} read (their view or card): "
                f"logged by engine {brief(engine)}, this is {__version__}, which may word a "
                "result otherwise; their dice and results are checked"
            )
        for line, seq, reason in self.replay.failures:
            self._fail(line, seq, "sheet", reason)
        return self.audit

    # -- rolls ------------------------------------------------------------------------------

    def _roll_event(self, number: int, entry: Mapping[str, Any]) -> None:
        kind, seq = entry["kind"], entry["seq"]
        for member_id, client_seed in client_seeds(entry):
            self.history.setdefault(member_id, []).append((seq, client_seed))
        if kind == "client_seed":
            self.own.setdefault(str(entry.get("member_id")), []).append(seq)
        self.replay.event(entry)
        if kind == HOUSE_RULES and (why := self.replay.house.changed(entry)) is not None:
            self._fail(number, seq, HOUSE_RULES, why)
        if kind not in ROLL_KINDS and not isinstance(entry.get("provable"), Mapping):
            return
        check = Check(number, seq, str(kind), VERIFIED)
        self.audit.checks.append(check)
        self._drawn(check, number, entry)
        self._replayed(check, entry)
        self._odds(check, entry)
        self._reads(check, entry)

    def _reads(self, check: Check, entry: Mapping[str, Any]) -> None:
        """A check's or contest's view (how its result reads: its level, verdict, roll, as a
        person reads the export) is what its result and odds read as, where the engine that
        logged it is this one (a later one may say it in other words)."""
        view, result = entry.get("view"), entry.get("result")
        if entry["kind"] not in ("roll", "contest") or check.status not in (VERIFIED, TYPED):
            return
        if view is None or not isinstance(result, Mapping) or self._other_engine(entry):
            return
        try:
            if isinstance(entry.get("opponent"), Mapping):
                names = (str(entry["character"]["name"]), str(entry["opponent"]["name"]))
                reading = contest_view(result, entry.get("odds"), names).to_dict()
            else:
                offers, taken = entry.get("follow_ups") or (), entry.get("follow_up")
                reading = result_view(result, entry.get("odds"), offers, taken).to_dict()
        except (D100Error, KeyError, TypeError, ValueError):
            reading = None
        if reading is None or json.loads(json.dumps(reading)) != view:
            check.status, check.reason = MISMATCH, "its view reads otherwise than its result"
            check.proven, check.trusted = [], []

    def _other_engine(self, entry: Mapping[str, Any]) -> bool:
        """Whether another engine than this one logged a roll (whose view is then named
        unchecked: it may word a result otherwise)."""
        provable = entry.get("provable")
        engine = provable.get("engine") if isinstance(provable, Mapping) else None
        if engine == __version__:
            return False
        self.engines.setdefault(str(engine), []).append(entry["seq"])
        return True

    def _odds(self, check: Check, entry: Mapping[str, Any]) -> None:
        """The odds logged beside a roll (the ledger's expected counts) are its request's,
        worked out again (within the engine's budget, as the table worked them out; one past
        it is named unchecked): a check's or contest's, and a declared roll's (a dice, Sanity
        or development roll's, an action's), as its event keeps them."""
        odds, request = entry.get("odds"), entry.get("request")
        if check.status not in (VERIFIED, TYPED) or not isinstance(request, Mapping):
            return
        asked = json.dumps(request)  # in its order: a phase rolls its skills as listed
        if entry["kind"] in (DECLARED_KIND, DECLARED_UNBLIND):
            expected = declared_odds(str(entry.get("roll")), asked)
        elif entry["kind"] not in ("roll", "contest"):
            return
        elif odds is None and (check.status == TYPED or "reroll_of" in entry):
            return  # no dice drawn (typed, or Luck spent on the roll made), no odds
        else:
            expected = odds_of(asked)
        if expected is None:
            self.dear.append(entry["seq"])
        elif expected != odds:
            check.status, check.reason = MISMATCH, "its odds are not its request's"
            check.proven, check.trusted = [], []

    def _drawn(self, check: Check, number: int, entry: Mapping[str, Any]) -> None:
        """The roll's dice, from the seed it drew from."""
        kind, seq = entry["kind"], entry["seq"]
        if kind in ("unblind", DECLARED_UNBLIND):
            check.status, check.reason = self._unblind(number, entry)
            return
        seed_id, nonce = drawn_by(number, entry)
        self.drawn[seq] = (seed_id, nonce)
        seed = self._seed_of(seed_id)
        if seed is not None and seed.chain == BLIND:
            self.blind.setdefault(seed_id, []).append(check)
        reason = self._order(seed_id, nonce) or self._bound(number, entry, seed_id, seed)
        if reason is not None:
            check.status, check.reason = MISMATCH, reason
            return
        roller = in_force(self.history, entry.get("actor_id"), seq)
        assert seed is not None  # else _bound gave the reason
        check.status, check.reason = self._check(number, entry, seed, roller)
        # Its chain is checked once its form is (a forged form is named as such first).
        bound = self.bound_from is not None and number > self.bound_from
        formed = check.status != MISMATCH and entry["kind"] != HIDDEN_KIND
        if bound and formed and (reason := self._chain_allows(entry, seed)) is not None:
            check.status, check.reason = MISMATCH, reason
        self.status[seq] = check.status
        if self._choosable(entry, seed):
            self.audit.choosable.append(seq)

    def _replayed(self, check: Check, entry: Mapping[str, Any]) -> None:
        """The roll against the table's state at its moment (``replay``): a mismatch if its
        request does not follow from it; else what its report proves and takes on trust."""
        kind = entry["kind"]
        if kind in (DECLARED_KIND, DECLARED_UNBLIND):
            found = self.replay.declared(entry)  # a blind one shown: as of when it was made
        elif kind in ROLL_KINDS:
            found = self.replay.roll(entry)
        else:
            return  # a stub
        if found.reason is not None and check.status != MISMATCH:
            check.status, check.reason = MISMATCH, found.reason
        if check.status not in (VERIFIED, TYPED):
            return
        drawn = check.status == VERIFIED
        check.proven = ["dice"] if drawn else []
        check.trusted = ([] if drawn else ["the dice: typed by hand"]) + found.trusted
        if not found.trusted:
            check.proven.append("target")
        if drawn and not found.trusted:
            check.proven += ["level", "outcome"]
        else:
            check.trusted.append("the level and outcome: from what is taken on trust")

    def _followed(self, entry: Mapping[str, Any], request: Any, given: list[str]) -> int | None:
        """The roll a follow-up reads the dice of (Luck spent on the roll already made,
        C7-4), when every die its request gives is that roll's, as this log shows it."""
        seq = entry.get("reroll_of")
        earlier = self.results.get(seq) if isinstance(seq, int) else None
        if earlier is None:
            return None
        for stream in given:
            mine, theirs = at(request, path_of(stream)), at(earlier, path_of(stream))
            if mine is MISSING or mine != theirs:
                return None
        assert isinstance(seq, int)
        return seq

    def _seed_of(self, seed_id: str) -> Seed | None:
        """The seed a roll drew from; an older log's first seeds (at most one open and one
        blind) are taken as they come, announced nowhere."""
        seed = self.seeds.get(seed_id)
        if seed is None and self.older and sum(not s.announced for s in self.seeds.values()) < 2:
            seed = self.seeds[seed_id] = Seed(seed_id, None, None)
        return seed

    def _order(self, seed_id: str, nonce: int) -> str | None:
        """Each seed's nonces once each, in order from 0: a reason if not."""
        expected = self.due.get(seed_id, 0)
        self.due[seed_id] = max(expected, nonce + 1)
        if nonce != expected:
            return f"seed {seed_id} nonce {nonce} where nonce {expected} was due"
        return None

    def _bound(
        self, number: int, entry: Mapping[str, Any], seed_id: str, seed: Seed | None
    ) -> str | None:
        """Drawn from a seed announced before it and revealed after, below its roll count,
        and shown in a form its seed allows: a reason if not."""
        if seed is None:
            return f"drawn from seed {seed_id}, which the log never announced"
        if seed.announced > number:
            return f"drawn from seed {seed_id} before line {seed.announced} announced it"
        if seed.revealed and seed.revealed < number:
            return f"drawn from seed {seed_id} after line {seed.revealed} revealed it"
        if seed.retired and seed.retired < number:
            return f"drawn from seed {seed_id} after line {seed.retired} announced its next"
        nonce = entry["provable"]["nonce"]
        if seed.rolls is not None and nonce >= seed.rolls:
            return f"seed {seed_id} nonce {nonce} past its {seed.rolls} rolls"
        bound = self.bound_from is not None and number > self.bound_from
        if entry["kind"] == HIDDEN_KIND:
            if bound and seed.chain == OPEN:
                return (
                    f"not shown to this viewer, yet drawn from the open seed {seed_id} (its "
                    "reveal would show the roll's dice to every member)"
                )
            return None
        blind = entry.get("visibility") == "blind"
        if seed.chain == BLIND and not blind:
            return (
                f"drawn from the blind seed {seed_id}, yet shown as a "
                f"{entry.get('visibility')} roll"
            )
        # Blind rolls made before blind seeds (an older table's) drew from the open seed.
        blind_seed = seed.chain != OPEN or self.older
        if "result" not in entry and "withheld" not in entry and not (blind and blind_seed):
            return "shows no result, yet it is not a blind roll drawn from a blind seed"
        if "result" not in entry and "withheld" not in entry and entry.get("hidden") is not True:
            return "shows no result, yet it is not its roller's view of a blind roll (hidden)"
        return None

    def _chain_allows(self, entry: Mapping[str, Any], seed: Seed) -> str | None:
        """Whether the roll's visibility allows the chain it drew from: a chain's seed is
        revealed to its audience, so each roll must be on the chain of those who see all of
        it. A reason if not."""
        visibility, actor = entry.get("visibility"), entry.get("actor_id")
        kept = self._kept_from_some(entry)
        chain, _, member = (seed.chain or OPEN).partition(":")
        if chain == OPEN:
            allowed = visibility == "public" and not kept
            whose = "every member sees whole"
        elif chain == BLIND:
            return None  # blind rolls: bound as they always were (below)
        elif chain == SEALED:
            allowed = visibility == "self" and kept
            whose = "no one sees whole (a self roll with an NPC's part)"
        elif chain == GM_CHAIN and not member:
            gm_roll = visibility == "gm" and self._gm(actor)
            allowed = (visibility in ("public", "gm", "blind") and kept) or gm_roll
            whose = "only the GM sees whole (a GM's gm roll, an NPC's part, a blind one's)"
        else:
            allowed = visibility == chain and actor == member
            whose = f"{chain} rolls of member {member}"
        if allowed:
            return None
        what = f"a {visibility} roll" + (" with a part kept from some members" if kept else "")
        return (
            f"{what} of {actor}, drawn from seed {seed.id} of the {seed.chain} chain, which "
            f"serves rolls {whose}: its reveal would show this roll to whoever it is hidden from"
        )

    def _kept_from_some(self, entry: Mapping[str, Any]) -> bool:
        """Whether a roll has a part some member sees by name and level only, as the server's
        policy has it: an NPC's (a character of the GM's), a side a GM's call chose, or the
        defender of an action made against a character's sheet (read by its player and the
        GMs only)."""
        if "withheld" in entry or isinstance(entry.get("defender"), Mapping):
            return True
        call = entry.get("call")
        if isinstance(call, Mapping) and "opponent" in call:
            return True
        helpers = entry.get("helpers")
        named = [entry.get("character"), entry.get("opponent")]
        named += helpers if isinstance(helpers, list) else []
        return any(isinstance(c, Mapping) and self._gm(c.get("member_id")) for c in named)

    def _gm(self, member: Any) -> bool:
        """Whether a member id, as a log gives it (any JSON value), is a GM's."""
        return isinstance(member, str) and member in self.gms

    def _unblind(self, number: int, entry: Mapping[str, Any]) -> tuple[str, str]:
        """A blind roll shown: the roll it repeats, drawn from a blind seed, checked as of
        when it was made."""
        rolled = entry.get("unblinds")
        drawn = drawn_by(number, entry)
        if not isinstance(rolled, int) or self.drawn.get(rolled) != drawn:
            return MISMATCH, f"shows roll #{rolled}, which the log does not have with this nonce"
        seed = self.seeds.get(drawn[0])
        if seed is None:
            return MISMATCH, f"shows roll #{rolled}, drawn from a seed the log never announced"
        if seed.chain == OPEN and not self.older:
            return MISMATCH, f"shows roll #{rolled} as blind, yet it drew from the open seed"
        if seed.chain not in (None, OPEN, BLIND, GM_CHAIN):
            return MISMATCH, f"shows roll #{rolled} as blind, yet it drew from a member's seed"
        self.shown.setdefault(rolled, number)
        return self._check(
            number, entry, seed, in_force(self.history, entry.get("roller_id"), rolled)
        )

    def _check(
        self, number: int, entry: Mapping[str, Any], seed: Seed, roller_seed: str | None
    ) -> tuple[str, str]:
        provable = entry["provable"]
        if entry["kind"] == HIDDEN_KIND:
            return HIDDEN, "not shown to this viewer: its seed and nonce are checked in order"
        seed_id, client_seed, nonce = (provable.get(k) for k in ("seed_id", "client_seed", "nonce"))
        if not isinstance(client_seed, str):
            raise D100Error(
                f"line {number}.provable.client_seed",
                client_seed,
                "the roller's client seed (a string)",
                "missing or not a string",
            )
        made_under = provable.get("commitment")
        if seed.commitment is None:  # an older log's first seed, not revealed: its first roll's
            seed.commitment = made_under
        if made_under != seed.commitment:
            where = f"line {seed.announced}" if seed.announced else "its reveal"
            return MISMATCH, (
                f"made under commitment {made_under}, not the one {where} gives seed {seed_id}"
            )
        if (reason := names_bound(entry, provable, entry["kind"] in ROLL_KINDS)) is not None:
            return MISMATCH, reason
        if entry["kind"] in (DECLARED_KIND, DECLARED_UNBLIND):
            return self._declared(number, entry, seed, roller_seed)
        if "withheld" in entry:
            status, reason = withheld_parts(entry)
            shown = side_shown(entry, self.system) if status == HIDDEN else None
            return shown or (status, reason)
        if "request" not in provable:
            if self.older and "engine" not in provable:
                return (
                    UNVERIFIABLE,
                    "logged without its resolved request (made before d100 kept it)",
                )
            return MISMATCH, "its provable record has no request: nothing binds what it shows"
        request = provable["request"]
        try:
            given = sorted(plan_of(parse(request)).given)
        except D100Error as err:
            return MISMATCH, f"the logged request does not resolve: {err.message}"
        manual = entry.get("manual")
        followed = self._followed(entry, request, given) if given and manual is not True else None
        if given and manual is not True and followed is None:
            return MISMATCH, (
                f"its request gives its dice ({', '.join(given)}): typed by hand, yet it is "
                f"shown as drawn (manual: {json.dumps(manual)})"
            )
        if not given and manual is True:
            return MISMATCH, "shown as typed by hand (manual), yet its request gives no dice"
        shown = request
        if followed is None:  # the dice typed by hand are in the provable record only
            for stream in given:
                shown = without(shown, path_of(stream))
        if entry.get("request") != shown:
            return MISMATCH, (
                f"its request differs from the one its provable record resolved "
                f"({differing(entry.get('request'), shown)})"
            )
        if "result" not in entry:
            return HIDDEN, "a blind roll: this export does not show its result"
        self.results[entry["seq"]] = entry["result"]
        roll = {"request": request, "client_seed": client_seed, "result": entry["result"]}
        first = self.made.setdefault((str(seed_id), nonce), (number, roll))
        if first[1] != roll:  # an unblind event repeats its roll; anything else reuses a nonce
            return MISMATCH, f"seed {seed_id} nonce {nonce} also gave line {first[0]} another roll"
        if roller_seed is None:
            return MISMATCH, "the log does not say which client seed its roller had set"
        if roller_seed != client_seed:
            return MISMATCH, f"client seed {client_seed!r} is not the roller's ({roller_seed!r})"
        if seed.seed is None:
            return UNVERIFIABLE, f"seed {seed_id} not revealed yet (the GM reveals it by rotating)"
        if commitment(seed.seed) != seed.commitment:
            return MISMATCH, (
                f"seed {seed_id} as line {seed.revealed} reveals it does not hash to the "
                f"commitment it was announced under, {seed.commitment}"
            )
        try:
            drawing = seed.drawing if seed.round is not None else seed.seed
            if drawing is None:
                return MISMATCH, f"seed {seed_id}'s beacon round does not check: see its reveal"
            again = resolve(request, ProvableSource(drawing, client_seed, nonce)).to_dict()
        except D100Error as err:
            return MISMATCH, f"the logged request does not resolve: {err.message}"
        if outcome(json.loads(json.dumps(again))) != outcome(entry["result"]):
            engine = provable.get("engine")
            other = (
                f" (logged by engine {engine}, this is {__version__})"
                if engine != __version__
                else ""
            )
            return (
                MISMATCH,
                f"recomputed {dice_of(again)}, logged {dice_of(entry['result'])}{other}",
            )
        if followed is not None:  # Luck spent on the roll made (C7-4): that roll's dice
            if self.status.get(followed) != TYPED:
                return VERIFIED, ""
            return TYPED, f"the dice of roll #{followed}, which were typed by hand"
        if given:
            return TYPED, (
                f"dice typed by hand ({', '.join(given)}): its outcome is recomputed from them, "
                "but no seed drew them"
            )
        return VERIFIED, ""

    def _choosable(self, entry: Mapping[str, Any], seed: Seed) -> bool:
        """Whether the server's operator could have chosen this roll: drawn from a seed no
        beacon round binds, by the GM (their own or an NPC's: on a self-hosted server the GM
        runs it, so knows the client seed and may try server seeds before committing one), or
        by a player whose client seed in force was not set by them after the seed was
        announced (the server gave it, or it was known when the seed was committed)."""
        if seed.round is not None or entry.get("kind") == HIDDEN_KIND:
            return False
        actor = str(entry.get("actor_id"))
        if actor in self.gms:
            return True
        seq = entry["seq"]
        announced = self.entries_seq.get(seed.announced) or 0
        own = [at for at in self.own.get(actor, []) if at < seq]
        return not own or own[-1] < announced

    def _declared(
        self, number: int, entry: Mapping[str, Any], seed: Seed, roller_seed: str | None
    ) -> tuple[str, str]:
        """A dice expression or a Sanity roll: its request resolved again with its seed."""
        provable = entry["provable"]
        if "withheld" in entry:
            return HIDDEN, (
                "shown in part (an NPC's outcome only, or a defender by level: their sheet is "
                "kept from this viewer), its seed and nonce checked"
            )
        tagged = provable.get("request")
        if not isinstance(tagged, Mapping) or declared.roller(tagged.get("roll")) is None:
            return MISMATCH, "its provable record has no request: nothing binds what it shows"
        if entry.get("request") != tagged.get("request") or entry.get("roll") != tagged["roll"]:
            return MISMATCH, "its request differs from the one its provable record resolved"
        if "result" not in entry:
            return HIDDEN, "this export does not show its result"
        client_seed, nonce = provable["client_seed"], provable["nonce"]
        made = {"request": dict(tagged), "client_seed": client_seed, "result": entry["result"]}
        first = self.made.setdefault((str(provable["seed_id"]), nonce), (number, made))
        if first[1] != made:
            return MISMATCH, f"seed {provable['seed_id']} nonce {nonce} also gave line {first[0]}"
        if roller_seed is None or roller_seed != client_seed:
            return MISMATCH, f"client seed {client_seed!r} is not the roller's ({roller_seed!r})"
        if seed.seed is None:
            return UNVERIFIABLE, f"seed {seed.id} not revealed yet (the GM reveals it by rotating)"
        if commitment(seed.seed) != seed.commitment:
            return MISMATCH, f"seed {seed.id} does not hash to its commitment {seed.commitment}"
        roll = declared.roller(tagged["roll"])
        assert roll is not None  # checked above
        try:
            drawing = seed.drawing if seed.round is not None else seed.seed
            if drawing is None:
                return MISMATCH, f"seed {seed.id}'s beacon round does not check: see its reveal"
            again = roll(tagged["request"], ProvableSource(drawing, client_seed, nonce))
        except D100Error as err:
            return MISMATCH, f"the logged request does not resolve: {err.message}"
        found = json.loads(json.dumps(again.to_dict()))
        if outcome(found) != outcome(entry["result"]):
            return MISMATCH, f"recomputed {dice_of(found)}, logged {dice_of(entry['result'])}"
        if (reason := declared_shown(entry, found)) is not None:
            return MISMATCH, reason
        carded = named(str(tagged["roll"])) is not None and "view" in entry
        reason = None if not carded or self._other_engine(entry) else _action_reads(entry, again)
        if reason is not None:
            return MISMATCH, reason
        if (reason := self._action_follows(entry, tagged)) is not None:
            return MISMATCH, reason
        self.done[entry["seq"]] = again
        return VERIFIED, ""

    def _action_follows(self, entry: Mapping[str, Any], tagged: Mapping[str, Any]) -> str | None:
        """A follow-up of an action (Luck spent on an attack made): one its rules offer after
        the roll it follows, as this log shows that roll resolved, with that offer's request
        and the Luck it costs; a reason if not."""
        seq = entry.get("reroll_of")
        if seq is None:
            return None
        action = named(str(tagged.get("roll")))
        earlier = self.done.get(seq) if isinstance(seq, int) else None
        if action is None or action.after is None or earlier is None:
            return f"it follows roll #{brief(seq)}, which this log does not show resolved"
        taken = entry.get("taken")
        taken = tuple(taken[:-1]) if isinstance(taken, list) and taken else ()
        followed = entry.get("follow_up")
        key = followed.get("key") if isinstance(followed, Mapping) else None
        offered = action.after(ActionRolled(earlier, ANY_LUCK, taken))
        chosen = next((f for f in offered if f.key == key and f.refused is None), None)
        if chosen is None:
            return f"it takes {brief(key)}, which its rules do not offer after roll #{seq}"
        if dict(chosen.request) != tagged.get("request"):
            return (
                f"its request is not the one its rules make of roll #{seq} for {key} "
                f"({differing(tagged.get('request'), dict(chosen.request))})"
            )
        if entry.get("luck_spent") != chosen.luck:
            return (
                f"it says it spent {brief(entry.get('luck_spent'))} Luck, where {key} after "
                f"roll #{seq} costs {chosen.luck}"
            )
        return None

    def _blind_rolls_shown(self) -> None:
        """A blind seed is revealed only once every roll drawn from it has been shown: one
        not shown by then was no blind roll (or its showing was left out)."""
        for seed_id, checks in self.blind.items():
            seed = self.seeds[seed_id]
            if not seed.revealed:
                continue
            for check in checks:
                shown = self.shown.get(check.seq)
                if shown is None or shown > seed.revealed:
                    check.status, check.reason = (
                        MISMATCH,
                        (
                            f"drawn from the blind seed {seed_id}, which line {seed.revealed} "
                            "revealed, yet never shown before (a blind seed is revealed only once "
                            "every roll drawn from it is shown)"
                        ),
                    )
