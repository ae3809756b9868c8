"""How a result reads: one view of a check or a contest, built once from its system's
declarations, that every renderer (the terminal, JSON, Discord, the web page) formats and none
decides again. A level that succeeds at most difficulties but falls short of the one asked
(CoC7's required level, C7-2) reads as a failure here, with its distance to what was asked,
so no door can call it a success."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import lru_cache
from typing import Any

from .declarations import Declaration, FollowUp, LevelSpec, Needed, Style
from .dice import show_roll
from .results import CheckOdds, CheckResult, ContestOdds, ContestResult, fraction_text, thawed
from .systems import REGISTRY

Segment = tuple[str, str]  # (text, emphasis: "bold", "dim", "warn" or "")
WINNER_WORDS = {"tie": "a tie", "none": "nobody wins"}


@dataclass(frozen=True)
class OfferView:
    """A follow-up offered on a result: its key, its words, the Luck it spends, its exact
    chance of success where it rolls anew, and what taking it risks."""

    key: str
    label: str
    luck: int
    odds: Fraction | None = None
    stakes: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = _plain(self)
        out["odds"] = None if self.odds is None else fraction_text(self.odds)
        return out


@dataclass(frozen=True)
class ResultView:
    """A check as every door shows it. ``shown`` False: a side seen by its level only (an
    NPC's), whose numbers are absent. ``met`` is the result's success, always."""

    system: str
    title: str
    level: str
    headline: str  # the level as the table reads it: "regular, short of hard"
    mark: str
    style: Style
    met: bool
    verdict: str  # "a success" or "a failure"
    badge: str  # the headline with its verdict where it does not say it: "regular (success)"
    meaning: str  # the level's meaning where it holds, else why the result fails
    shown: bool = True
    asked: str = ""  # the request's inputs in words: what the target was made of
    roll: int | None = None
    dice: str = ""  # every die, the kept one in brackets
    target: int | None = None
    target_label: str = "target"
    target_words: str = ""  # "17 (hard: half of 35)"
    bands: str = ""
    margin: int | None = None  # from what was asked: the target, or the needed value
    margin_words: str = ""
    level_odds: Fraction | None = None
    success_odds: Fraction | None = None
    every_level: tuple[tuple[str, Fraction], ...] = ()
    again: str = ""  # what this roll was, where it followed another: "pushed"
    stakes: str = ""  # what failing it brings, where a rule makes that worse
    follow_ups: tuple[OfferView, ...] = ()
    helpers: tuple[str, ...] = ()
    also_judged: tuple[ResultView, ...] = ()  # each skill judged on the same roll
    luck_spent: int | None = None
    note: str = ""
    explanation: str = ""

    @property
    def verdict_words(self) -> str:
        """The level and the verdict in one line: "REGULAR, SHORT OF HARD: a failure"."""
        return f"{self.headline.upper()}: {self.verdict}"

    def to_dict(self) -> dict[str, Any]:
        out = _plain(self)
        out["level_odds"] = _frac(self.level_odds)
        out["success_odds"] = _frac(self.success_odds)
        out["every_level"] = {k: fraction_text(v) for k, v in self.every_level}
        out["follow_ups"] = [o.to_dict() for o in self.follow_ups]
        out["helpers"] = list(self.helpers)
        # each other skill by its level and reasoning: the roll, bands and odds are this one's
        # (a combined roll's ten skills cost a log a tenth, not ten times, of its views)
        out["also_judged"] = [c.brief() for c in self.also_judged]
        return out

    def brief(self) -> dict[str, Any]:
        """The view's level part: what it reads as, and why."""
        keys = ("level", "headline", "mark", "style", "met", "verdict", "badge", "explanation")
        return {key: getattr(self, key) for key in keys}


@dataclass(frozen=True)
class SideView:
    name: str
    view: ResultView


@dataclass(frozen=True)
class ContestView:
    """A contest as every door shows it: who won in words, each side's view, the odds."""

    system: str
    title: str
    winner: str
    headline: str  # "alice wins", "a tie", "nobody wins"
    met: bool  # the actor won
    style: Style
    sides: tuple[SideView, SideView]
    winner_odds: tuple[tuple[str, Fraction], ...] = ()
    degree: str = ""  # by how much the winner won, where the system says (CH6)
    explanation: str = ""

    @property
    def verdict_words(self) -> str:
        """The headline with its degree: "alice wins (great)"."""
        return f"{self.headline} ({self.degree})" if self.degree else self.headline

    def to_dict(self) -> dict[str, Any]:
        out = _plain(self)
        out["sides"] = [{"name": s.name, "view": s.view.to_dict()} for s in self.sides]
        out["winner_odds"] = {k: fraction_text(v) for k, v in self.winner_odds}
        return out


def _plain(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


def _frac(p: Fraction | None) -> str | None:
    return None if p is None else fraction_text(p)


# -- building -----------------------------------------------------------------------------


def result_view(
    result: CheckResult | Mapping[str, Any],
    odds: CheckOdds | Mapping[str, Any] | None = None,
    offers: Sequence[FollowUp | Mapping[str, Any]] = (),
    taken: Mapping[str, Any] | None = None,
) -> ResultView:
    """A check's view from its result (or the contract's JSON of one, a withheld one holding
    its level and success only), its odds, the follow-ups offered on it and the follow-up it
    was (``taken``: its ``done`` and ``failed`` words), read from its system's declaration."""
    if isinstance(result, Mapping):
        if not _whole(result):
            return _level_only(str(result["system"]), str(result["level"]), bool(result["success"]))
        result = check_from_dict(result)
    system = REGISTRY.get(result.system)
    declared = system.declares
    words = declared.words
    needed = words.needed(result) if words.needed is not None else None
    head = _level_only(result.system, result.level, result.success, needed)
    target_words = str(result.target)
    if needed is not None:
        target_words = f"{needed.most} ({needed.asked}: {needed.how})"
    margin, margin_words = _margin(result, declared, needed)
    level_odds, success_odds, every = _odds(odds, result.level)
    # a later attempt (a push) within the result, or a follow-up of another roll: what it
    # was, and what failing it brings where a rule makes that worse; a follow-up that failed
    # says so in its own words (``FollowUp.failed``)
    again, stakes = (words.again, words.stakes) if len(result.attempts) > 1 else ("", "")
    if taken is not None:
        again = str(taken.get("done") or again)
        failed = str(taken.get("failed") or "")
        stakes = "" if not failed else words.stakes if result.success else failed
    # a later attempt that failed brings its stakes, not the level's meaning, which may offer
    # that attempt again ("the roll may be pushed", C7-5)
    meaning = "" if again and stakes and not result.success else head.meaning
    return ResultView(
        system=head.system,
        title=head.title,
        level=head.level,
        headline=head.headline,
        badge=head.badge,
        mark=head.mark,
        style=head.style,
        met=head.met,
        verdict=head.verdict,
        meaning=meaning,
        asked=inputs_text(thawed(result.request), result.system),
        roll=result.roll,
        dice="".join(text for text, _ in dice_segments(result)).strip(),
        target=result.target,
        target_label=words.target,
        target_words=target_words,
        bands=words.bands(result),
        margin=margin,
        margin_words=margin_words,
        level_odds=level_odds,
        success_odds=success_odds,
        every_level=every,
        again=again,
        stakes=stakes,
        follow_ups=tuple(_offer(o) for o in offers),
        helpers=_helpers(result, declared),
        also_judged=tuple(result_view(c) for c in result.combined),
        luck_spent=result.luck_spent or None,
        note=result.note or "",
        explanation=result.explanation,
    )


def contest_view(
    result: ContestResult | Mapping[str, Any],
    odds: ContestOdds | Mapping[str, Any] | None = None,
    names: tuple[str, str] = ("actor", "opponent"),
) -> ContestView:
    """A contest's view: the winner by name, each side's view (a withheld side's by level)."""
    data = result.to_dict() if isinstance(result, ContestResult) else result
    system = REGISTRY.get(str(data["system"]))
    winner = str(data["winner"])
    by_side = dict(zip(("actor", "opponent"), names, strict=True))
    headline = f"{by_side[winner]} wins" if winner in by_side else WINNER_WORDS[winner]
    sides = tuple(
        SideView(n, result_view({"system": system.name, **data[k]})) for k, n in by_side.items()
    )
    chances: Mapping[str, Any] = {}
    if isinstance(odds, ContestOdds):
        chances = odds.winner
    elif odds is not None:
        chances = odds.get("winner") or {}
    met = winner == "actor"
    # drawn as the roller fared: their side's level when they won, a failing level when not
    # (a side's good level in a lost contest is still a loss)
    bad: Style = "bad"
    losing = next((s.style for s in system.declares.levels if not s.success), bad)
    return ContestView(
        system=system.name,
        title=system.title,
        winner=winner,
        headline=headline,
        met=met,
        style=sides[0].view.style if met else losing,
        sides=(sides[0], sides[1]),
        winner_odds=tuple((by_side.get(k, k), Fraction(v)) for k, v in chances.items()),
        degree=str(data.get("degree") or ""),
        explanation=str(data.get("explanation", "")),
    )


def _whole(data: Mapping[str, Any]) -> bool:
    return all(k in data for k in ("roll", "dice", "target", "margin", "explanation"))


def _level_only(
    system_name: str, level: str, success: bool, needed: Needed | None = None
) -> ResultView:
    """The part of a view a level and its success decide: its words, mark, style and
    verdict. A level that succeeds but a result that fails fell short of what was asked: it
    reads, and is drawn, as the system's best failing level is."""
    system = REGISTRY.get(system_name)
    declared = system.declares
    spec = _spec(declared, level, success)
    verdict = "a success" if success else "a failure"
    headline, meaning, drawn = level, spec.meaning, spec
    if spec.success != success:
        drawn = next((s for s in declared.levels if s.success == success), spec)
        if success:
            meaning = f"{level}, yet as asked: a success"
        elif needed is not None:
            headline = f"{level}, short of {needed.asked}"
            meaning = f"{level}, but {needed.asked} needs {needed.most} ({needed.how}): a failure"
        else:
            headline = f"{level}, short of what was asked"
            meaning = f"{level}, short of what was asked: a failure"
    word = "success" if success else "failure"
    return ResultView(
        system=system_name,
        title=system.title,
        level=level,
        headline=headline,
        badge=headline if headline == word else f"{headline} ({word})",
        mark=drawn.mark,
        style=drawn.style,
        met=success,
        verdict=verdict,
        meaning=meaning,
        shown=False,
        target_label=declared.words.target,
    )


def _spec(declared: Declaration, level: str, success: bool) -> LevelSpec:
    try:
        return declared.level(level)
    except KeyError:  # a level the system does not list: drawn by its success alone
        return LevelSpec(level, "", "", "ok" if success else "bad", success)


def _margin(
    result: CheckResult, declared: Declaration, needed: Needed | None
) -> tuple[int | None, str]:
    """The margin from what was asked, in the rule's words: a failure short of a required
    value counts its distance to it; a failure within its target says it fails anyway."""
    if result.margin is None:
        return None, "none (no roll)"
    margin = result.margin + (needed.most - result.target if needed is not None else 0)
    shortfall = declared.words.shortfall
    if margin < 0 and not result.success:
        if needed is not None:
            return margin, f"{-margin} short of {needed.asked} ({needed.most})"
        if shortfall:
            return margin, f"{-margin} {shortfall}"
        return margin, f"{margin:+d}"
    if margin >= 0 and not result.success:
        return margin, f"{margin:+d}, yet {result.level}: a failure"
    return margin, f"{margin:+d}"


def _odds(
    odds: CheckOdds | Mapping[str, Any] | None, level: str
) -> tuple[Fraction | None, Fraction | None, tuple[tuple[str, Fraction], ...]]:
    if odds is None:
        return None, None, ()
    success: Fraction | None
    if isinstance(odds, CheckOdds):
        levels, success = dict(odds.levels), odds.success
    else:
        levels = {k: _fraction(v) for k, v in (odds.get("levels") or {}).items()}
        success = _fraction(odds["success"]) if odds.get("success") else None
    return levels.get(level), success, tuple(levels.items())


@lru_cache(maxsize=1024)
def _fraction(text: Any) -> Fraction:
    """A chance as a stored view writes it ("13/20"): parsing the text is the dearest part of
    reading a roll's odds again, and every view of every roll reads the same few hundred."""
    return Fraction(text)


def _offer(offer: FollowUp | Mapping[str, Any]) -> OfferView:
    if isinstance(offer, FollowUp):
        return OfferView(offer.key, offer.label, offer.luck, None, offer.stakes)
    chance = offer.get("odds")
    return OfferView(
        str(offer["key"]),
        str(offer["label"]),
        int(offer.get("luck", 0)),
        None if chance is None else _fraction(str(chance)),
        str(offer.get("stakes") or ""),
    )


def _helpers(result: CheckResult, declared: Declaration) -> tuple[str, ...]:
    """Each helper's result in a line (one helper named by its field, several counted)."""
    one = declared.assistance is not None and not declared.assistance.many
    name = declared.assistance.field if one and declared.assistance else ""
    return tuple(
        f"{name or f'helper {i}'}: {h.explanation}" for i, h in enumerate(result.helpers, 1)
    )


_CHECK_FIELDS = {f.name for f in fields(CheckResult)}


def check_from_dict(data: Mapping[str, Any]) -> CheckResult:
    """The contract's JSON of a check back as a result (``to_dict`` undone)."""
    kw: dict[str, Any] = {}
    for key, value in data.items():
        if key not in _CHECK_FIELDS:
            continue
        if _nested(value):  # a helper's result
            value = _helper(value, str(data["system"]))
        elif isinstance(value, list | tuple):  # dice, or nested results (helpers, skills)
            value = tuple(_helper(v, str(data["system"])) if _nested(v) else v for v in value)
        kw[key] = value
    return CheckResult(**kw)


def _nested(value: Any) -> bool:
    return isinstance(value, Mapping) and "level" in value


def _helper(data: Mapping[str, Any], system: str) -> CheckResult:
    """A nested result; one withheld (an NPC helper's, for a player) holds its level and
    success only, and reads as its level: no number of it is made up or shown."""
    if _whole(data):
        return check_from_dict({"system": system, **data})
    level = str(data["level"])
    return CheckResult(system, level, bool(data["success"]), None, (), 0, None, level)


# -- words of a result's parts, shared by every door ------------------------------------------


def dice_segments(result: CheckResult) -> list[Segment]:
    """Every die, the kept one in brackets; groups split where a later attempt began (a Luck
    reroll, a push: the system's words)."""
    words = REGISTRY.get(result.system).declares.words if result.system in REGISTRY else None
    if not result.dice:
        unrolled = f"no roll ({words.unrolled})" if words else "no roll"
        return [(unrolled if result.roll is None else f"took {result.roll}", "")]
    groups = [result.dice]
    if result.attempts:
        per = len(result.dice) // len(result.attempts)
        groups = [result.dice[i : i + per] for i in range(0, len(result.dice), per)]
    out: list[Segment] = []
    again = words.again if words else ""
    for n, group in enumerate(groups):
        if n:
            out.append((f"  then {again or 'again'}: ", "warn"))
        kept = result.attempts[n] if result.attempts else result.roll
        marked = False
        for i, die in enumerate(group):
            space = " " if i else ""
            if die == kept and not marked and len(group) > 1:
                out.append((f"{space}[{show_roll(die)}]", "bold"))
                marked = True
            else:
                out.append((f"{space}{show_roll(die)}", "" if len(group) == 1 else "dim"))
    if len(groups[-1]) > 1:
        lower = result.roll == min(groups[-1])
        out.append((f"  ({'lower' if lower else 'higher'} kept)", "dim"))
    return out


def inputs_text(request: dict[str, object], system: str | None = None) -> str:
    """A request's inputs in words, defaults left out: "skill 65, difficulty -40". Numbers a
    field lets go below zero are signed; helpers are counted (or, one, shown by skill)."""
    name = system or request.get("system")
    spec = REGISTRY.get(name) if isinstance(name, str) and name in REGISTRY else None
    declared = {f.name: f for f in (spec.check_fields if spec else ())}
    helpers = spec.declares.assistance if spec else None
    parts = []
    for key, value in request.items():
        f = declared.get(key)
        if key == "system" or (f and f.kind == "dice") or value in (0, False, None, [], {}):
            continue
        words = key.replace("_", " ")
        signed = f is not None and f.low is not None and f.low < 0
        if helpers is not None and key == helpers.field and isinstance(value, dict):
            parts.append(f"assisted (skill {value.get('skill')})")
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            parts.append(f"{len(value)} {words[:-1] if len(value) == 1 else words}")
        elif isinstance(value, dict):  # house rules, a resistance roll's sides: "active 13"
            named = (
                k.replace("_", " ") + ("" if v is True else f" {v}")
                for k, v in value.items()
                if v is not False and v is not None  # a house rule of 0 is a value, not "off"
            )
            parts.append(f"{words}: " + ", ".join(named))
        elif isinstance(value, list):
            parts.append(f"{words} " + ",".join(f"{v:+d}" if signed else str(v) for v in value))
        elif value is True:
            parts.append(words)
        elif signed and isinstance(value, int):
            parts.append(f"{words} {value:+d}")
        else:
            parts.append(f"{words} {value}")
    return ", ".join(parts)
