"""Call of Cthulhu 7th edition (and Pulp Cthulhu, whose skill roll is the same): levels from
01 critical to fumble with no cap on the target (C7-1), difficulty as a required level (C7-2),
bonus and penalty dice on the tens die (C7-3), Luck spent after the roll (C7-4), pushed rolls
(C7-5), opposed rolls (C7-6), melee responses (C7-7) and combined rolls (C7-8), as
EDITIONS.md states them. The check lives in ``coc7_check``, contests in ``coc7_contest``, the
bare rules in ``coc7_rules``; this module is the edition as the rest of d100 sees it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..declarations import (
    Command,
    Declaration,
    ExtraDice,
    FastPath,
    FollowUp,
    LevelSpec,
    Luck,
    Marks,
    Needed,
    Option,
    Rolled,
    Roller,
    Style,
    Target,
    Words,
    frozen_map,
)
from ..dice import show_roll
from ..fields import Field
from ..results import CheckResult, ContestResult
from ..system import Declared, Plan
from . import coc7_imports, coc7_sealdice, coc7_sealdice_words
from .coc7_check import (
    CHECK_FIELDS,
    MAX_EXTRA_DICE,
    MAX_LUCK,
    NAME,
    Coc7Check,
    HouseRules,
    ladder_of,
    one_roll,
    one_roll_bands,
    outcome_of,
    parse_check,
    plan_of,
)
from .coc7_contest import CONTEST_FIELDS, Coc7Contest, contest_plan, parse_contest, ranking
from .coc7_firearms import ACTIONS
from .coc7_investigator import DEVELOPMENT, INVESTIGATOR, NO_MARKS
from .coc7_rules import (
    BUYABLE,
    DIFFICULTIES,
    LEVELS,
    RANK,
    Level,
    changes,
    luck_offers,
    required_value,
    winning,
)
from .coc7_sanity import SANITY

__all__ = ["NAME", "SYSTEM", "Coc7", "Coc7Check", "Coc7Contest", "Level", "commands"]

MEANINGS = {
    "critical": "01: the best result there is; in combat, an extreme wound or an impale",
    "extreme": "a fifth of the target or under: an exceptional success",
    "hard": "half the target or under: a clear success",
    "regular": "the target or under: it works",
    "failure": "it does not work; the roll may be pushed, for a worse failure if it fails again",
    "fumble": "00, or 96-00 where the value needed is under 50: a failure with a dire twist",
}
ICONS = {
    "critical": "★",
    "extreme": "✦",
    "hard": "✚",
    "regular": "✓",
    "failure": "✗",
    "fumble": "☠",
}
STYLES: dict[str, Style] = {
    "critical": "best",
    "extreme": "good",
    "hard": "good",
    "regular": "ok",
    "failure": "bad",
    "fumble": "worst",
}
REGULAR = winning("regular")
UNKNOWN_LUCK = 50  # the Luck advice assumes when it does not know a character's (3D6x5 ~ 52)


class Coc7(Declared):
    name: str = NAME
    title: str = "Call of Cthulhu 7th edition"
    check_fields: tuple[Field, ...] = CHECK_FIELDS
    contest_fields: tuple[Field, ...] = CONTEST_FIELDS

    def parse_check(self, data: Mapping[str, Any]) -> Coc7Check:
        return parse_check(data)

    def parse_contest(self, data: Mapping[str, Any]) -> Coc7Contest:
        return parse_contest(data)

    def check_plan(self, check: Coc7Check) -> Plan[Any, CheckResult]:
        return plan_of(check)

    def contest_plan(self, contest: Coc7Contest) -> Plan[Any, ContestResult]:
        return contest_plan(contest)


# -- chat dice-bot commands (BCDice's Cthulhu7th) ----------------------------------------------

# the level suffix as BCDice writes it (``CC<=65h``) or as chat habits do (``CC<=65/h``)
_CC = re.compile(r"cc(?:\(([+-]?\d+)\)|([+-]?\d+))?(?:<=(\d+)(?:/?([rhec]))?)?", re.IGNORECASE)
_CBR = re.compile(r"cbr\((\d+),(\d+)\)", re.IGNORECASE)
_SUFFIX = {"r": "regular", "h": "hard", "e": "extreme", "c": "critical"}


def commands(text: str) -> dict[str, Any] | Command | None:
    """BCDice's Cthulhu7th checks as contract requests: ``CC<=65``; a net pool as ``CC1<=65``,
    ``CC+1``, ``CC-1`` or ``CC(2)`` (positive: bonus dice, negative: penalty dice); a required
    level as BCDice's suffix ``r``, ``h``, ``e`` or ``c`` (``CC1<=60h``, or ``CC1<=60/h``);
    and ``CBR(60,45)``, one roll judged against both skills. Letters in either case; anything
    after a space is a comment, as BCDice reads it. A pool BCDice accepts beyond Foundry's 2
    dice comes back as asked, for the request's own check to refuse. ``CC`` without a target
    is a bare roll, not a check (None); ``CC<=0`` is a skill of 0, resolved as Foundry does
    (C7-1)."""
    seal = coc7_sealdice.read(text)  # SealDice's .ra/.rc (SD-W1..SD-W5)
    if seal is not None or text.lstrip().startswith("."):
        return seal
    words = text.split()
    if not words:
        return None
    word = words[0]
    if m := _CBR.fullmatch(word):
        return {"system": NAME, "skill": int(m[1]), "combined": [int(m[2])]}
    m = _CC.fullmatch(word)
    if m is None or m[3] is None:
        return None
    out: dict[str, Any] = {"system": NAME, "skill": int(m[3])}
    pool = int(m[1] or m[2] or 0)
    if pool > 0:
        out["bonus_dice"] = pool
    elif pool < 0:
        out["penalty_dice"] = -pool
    if m[4]:
        out["difficulty"] = _SUFFIX[m[4].lower()]
    return out


# -- what the rest of d100 reads ----------------------------------------------------------------


def _options(
    base: dict[str, Any], luck: int | None, helpers: Mapping[str, Mapping[str, Any]]
) -> list[Option]:
    """Luck against a push (C7-4, C7-5): spend the character's Luck as needed, push a failure,
    or both (Luck first, then the push); and a bonus die the Keeper may grant. A combined roll
    takes neither Luck nor a push (C7-8)."""
    out: list[Option] = []
    if not base.get("combined"):
        asked_luck, asked_push = base.get("luck"), bool(base.get("push"))
        lucks = [asked_luck]
        if asked_luck is None or luck is not None:  # the Luck asked for stands unless known
            have = UNKNOWN_LUCK if luck is None else luck
            lucks += [have] if have > 1 and asked_luck != have else []
        for with_luck in lucks:
            for push in dict.fromkeys((asked_push, True)):
                if (with_luck, push) != (asked_luck, asked_push):
                    out.append(_luck_option(with_luck, push))
    if base.get("bonus_dice", 0) - base.get("penalty_dice", 0) < MAX_EXTRA_DICE:
        out.append(
            Option(
                "a bonus die",
                "if the Keeper grants one",
                lambda r: (
                    {**r, "bonus_dice": r.get("bonus_dice", 0) + 1}
                    if r.get("penalty_dice", 0) == 0
                    else {**r, "penalty_dice": r["penalty_dice"] - 1}
                ),
                _most_luck,
            )
        )
    return out


def _luck_option(luck: int | None, push: bool) -> Option:
    names, costs = [], []
    if luck is not None:
        names.append(f"spend Luck as needed (up to {luck - 1})")
        costs.append("1 Luck per point the roll is lowered, only to reach the difficulty")
    if push:
        names.append("push if it fails" if luck is None else "else push")
        costs.append("a pushed roll that fails again brings a dire consequence")

    def change(r: dict[str, Any]) -> dict[str, Any]:
        out = {**r, "push": push}
        if luck is not None:
            out["luck"] = luck
        return out

    return Option(", ".join(names), "; ".join(costs), change, _most_luck)


def _most_luck(request: dict[str, Any]) -> int:
    """The most a request may spend: Luck available must exceed the cost (C7-4)."""
    luck = request.get("luck")
    return 0 if luck is None else max(0, luck - 1)


def _roller(check: Coc7Check) -> Roller | None:
    """One kept tens-die roll decides a check without a push, Luck and all (C7-3, C7-4)."""
    if check.dice is not None or check.push:
        return None
    return Roller(abs(check.net_dice) + 1, check.net_dice >= 0, True)


def _shape(check: Coc7Check) -> tuple[int] | None:
    """Without a push a check ends on its kept die, whatever the target, Luck or difficulty."""
    if check.dice is not None or check.push:
        return None
    return (check.net_dice,)


def _key(check: Coc7Check) -> tuple[Any, ...]:
    return (check.targets, check.difficulty, check.house_rules.levels, check.luck, check.luck_to)


def _kept(state: int) -> int:
    """A final state without a push is the kept die itself."""
    return state


def _cuts(check: Coc7Check) -> tuple[int, ...] | None:
    """C7-1: the kept dice after which one skill's level may change (01, then the fumble range,
    fifths, halves and the target; under ``setcoc``, wherever its ladder changes); None where
    Luck or several skills name the roll."""
    cut = one_roll_bands(check)
    if cut is not None:
        fumbles, extreme, hard, target = cut
        return (1, fumbles - 1, extreme, hard, target)
    if not one_roll(check):
        return None
    return changes(ladder_of(check.target, check.difficulty, check.house_rules))


def _luck_key(check: Coc7Check) -> tuple[Any, ...] | None:
    return None if check.luck is None else _key(check)


def _bands(result: CheckResult) -> str:
    return result.bands or ""


HOW = {"hard": "half of", "extreme": "a fifth of"}  # C7-2: the required value of a target


def _needed(result: CheckResult) -> Needed | None:
    """What a roll had to reach beyond its target (C7-2): the required level's value, and on
    a combined roll (C7-8) every skill's, the lowest of them; None for one regular skill."""
    difficulty = str(result.request.get("difficulty", DIFFICULTIES[0]))
    targets = tuple(c.target for c in result.combined) or (result.target,)
    if difficulty == DIFFICULTIES[0] and len(targets) == 1:
        return None
    values = [required_value(t, difficulty) for t in targets]
    most = min(1 if v is None else v for v in values)  # critical: 01 only
    shown = ", ".join(str(t) for t in targets)
    if len(targets) > 1:
        asked = "every skill" + ("" if difficulty == DIFFICULTIES[0] else f" at {difficulty}")
        lowest = f"the lowest of {shown}"
        how = lowest if difficulty == DIFFICULTIES[0] else f"{HOW.get(difficulty, '')} {lowest}"
        return Needed(most, asked, "01 only" if values[0] is None else how.strip())
    if values[0] is None:  # 01, or a house rule's run of criticals (setcoc 3: 01-05)
        house = HouseRules(**result.request.get("house_rules", {}))
        lad = ladder_of(result.target, difficulty, house)
        top = next((r - 1 for r in range(1, 101) if lad[r] != "critical"), 100)
        how = "no roll" if top == 0 else "01 only" if top == 1 else f"01-{show_roll(top)}"
        return Needed(top, difficulty, how)
    return Needed(most, difficulty, f"{HOW[difficulty]} {shown}")


PUSH_STAKES = "a failed push brings a dire consequence, the Keeper's to choose"


# -- what may follow a roll at a table (C7-4, C7-5) ---------------------------------------

LUCK = Luck(
    boost_field="",  # no boost before the roll (BRP7's), no rerolls
    boost=0,
    reroll_field="",
    reroll_cap_rule=None,
    most=MAX_LUCK,
    summary="spent after the roll, 1 Luck per point the roll is lowered, to reach the "
    "difficulty or raise a success; a failure may be pushed once instead",
    after_field="luck",
)


# Rolls Luck may not be spent on, nor pushed (C7-4, C7-5: a Luck or Sanity roll), and skills
# never pushed (weapon rolls), by the sheet's skill name in any case; a prefix names a family
# ("fighting (brawl)").
UNLUCKY = ("luck", "sanity", "san")
UNPUSHABLE = ("fighting", "firearms")
LUCK_KEYS = ("luck", *(f"luck_{lvl}" for lvl in BUYABLE))


def _named(skill: str | None, names: tuple[str, ...]) -> bool:
    key = (skill or "").casefold().strip()
    return any(key == n or key.startswith(f"{n} ") for n in names)


def _earns_mark(check: CheckResult, skill: str | None) -> bool:
    """Whether a successful check earns its skill's improvement mark (S7-7, Foundry's
    ``isRolledSuccess``): no Luck spent on it and no bonus or penalty dice, and not Credit
    Rating nor Cthulhu Mythos. A mark is a tick, one per skill until the development phase
    clears it, and only an investigator's (a player's character), never an NPC's.

    Our reading of a pushed or Luck-bought success: S7-7 excludes a success with Luck spent
    on it, so Luck bought after the roll earns nothing (the roll it lowers had failed); it
    names no push, and Foundry's test holds for a pushed roll, so a pushed success with no
    Luck and no extra dice would earn one. The table marks first rolls only: a follow-up
    (Luck after the roll, a push) marks nothing."""
    request = check.request
    extra = request.get("bonus_dice", 0) or request.get("penalty_dice", 0)
    return not check.luck_spent and not extra and not _named(skill, NO_MARKS)


def follow_ups(rolled: Rolled) -> tuple[FollowUp, ...]:
    """What its roller may do about a check at a table: Luck on the roll already made, one
    offer per level C7-4 offers (a failure bought to the difficulty or higher, a success
    raised; not on a fumble, nor a Luck or Sanity roll; Luck available greater than the cost),
    again after Luck was spent (C7-4: more than once, from the roll as lowered), and after a
    failure a push, a roll of its own with the same pool (C7-5: not on a fumble unless
    ``allow_push_fumbles``, nor a Sanity or weapon roll). Nothing follows a push, a combined
    roll or a request that asked for Luck or a push itself.

    A spend's request gives the least Luck that buys it (one more than its whole cost, as
    C7-4 wants more than the cost), never the Luck the sheet holds: whoever sees the roll sees
    what was spent, not what is left."""
    result, request = rolled.result, rolled.request
    asked = request.get("luck") is not None or request.get("push") or request.get("combined")
    lucky = all(key in LUCK_KEYS for key in rolled.taken)  # only Luck spent after it so far
    if result.roll is None or request.get("combined") or not lucky or (asked and not rolled.taken):
        return ()
    base = {k: v for k, v in request.items() if k not in ("luck", "luck_to", "push", "dice")}
    check = parse_check(base)
    lad = ladder_of(check.target, check.difficulty, check.house_rules)
    out = []
    if rolled.luck is not None and not _named(rolled.skill, UNLUCKY):
        spent = result.luck_spent or 0  # the roll as lowered by Luck spent on it already
        lowered = result.roll - spent
        offers = luck_offers(lowered, lad, check.difficulty, rolled.luck)
        for n, (lvl, cost) in enumerate(offers.items()):
            # the cheapest offer on a failure is the plain "luck" one: the difficulty bought
            least = n == 0 and not result.success
            whole = spent + cost  # from the roll as first made
            same = {**base, "luck": whole + 1, "luck_to": lvl, "dice": list(result.dice)}
            label = f"Spend {cost} Luck: {lvl}"
            key = LUCK_KEYS[0] if least else f"luck_{lvl}"
            done = "Luck spent after the roll"
            out.append(FollowUp(key, label, done, cost, same, needs=cost + 1))  # more (C7-4)
    pushable = not _named(rolled.skill, UNLUCKY + UNPUSHABLE) and not rolled.taken
    allowed = result.level != "fumble" or check.house_rules.allow_push_fumbles
    if not result.success and pushable:
        failed = "the push failed: the Keeper brings a dire consequence"
        push = FollowUp("push", "Push the roll", "Pushed roll", 0, base, failed=failed)
        push = replace(push, stakes=PUSH_STAKES)
        if not allowed:  # said, not dropped: a roller who asks is told why (C7-5)
            why = "a fumble cannot be pushed"
            push = replace(
                push,
                refused=why,
                allowed="a failure that is not a fumble (C7-5), or the "
                "house rule allow_push_fumbles",
            )
        out.append(push)
    return tuple(out)


DECLARATION = Declaration(
    target=Target(
        field="difficulty",
        label="Difficulty",
        presets=frozen_map({d: RANK[d] for d in DIFFICULTIES}),
        default="regular",
        harder=1,
        example="hard, or extreme",
    ),
    skill_range=(0, None),
    words=Words(
        target="target",
        shortfall=None,
        bands=_bands,
        again="pushed",
        needed=_needed,
        stakes=PUSH_STAKES,
    ),
    options=_options,
    sampler=_roller,
    luck=LUCK,
    follow_ups=follow_ups,
    extra_dice=ExtraDice(
        "bonus_dice",
        "penalty_dice",
        MAX_EXTRA_DICE,
        None,
        "extra tens dice over one units die: a bonus die keeps the lower roll, a penalty die "
        "the higher; they cancel one for one",
    ),
    improvement="success",
    marks=Marks(tick=True, players_only=True, earns=_earns_mark),
    fast=FastPath(
        inputs=frozenset(
            {
                "skill",
                "modifiers",
                "bonus_dice",
                "penalty_dice",
                "difficulty",
                "luck",
                "luck_to",
                "push",
                "combined",
                "dice",
                "response",
                "house_rules.critical_difficulty_fumbles",
                "house_rules.allow_push_fumbles",
                "house_rules.setcoc",
            }
        ),
        shape=_shape,
        key=_key,
        luck_key=_luck_key,
        ranking=ranking,
        reading=_kept,
        cuts=_cuts,
        outcome=outcome_of,
    ),
    commands=commands,
    actions=ACTIONS,
    word_rolls=coc7_sealdice_words.KINDS,
    word_house_rules=coc7_sealdice.WORD_HOUSE_RULES,
    chat_examples=coc7_sealdice.EXAMPLES,
    success=lambda check: winning(check.difficulty),
    levels=tuple(
        LevelSpec(lv, MEANINGS[lv], ICONS[lv], STYLES[lv], lv in REGULAR) for lv in LEVELS
    ),
    sides_stand_alone=True,
    sanity=SANITY,
    investigator=replace(INVESTIGATOR, formats=coc7_imports.FORMATS),
    development=DEVELOPMENT,
)

Coc7.declares = DECLARATION
SYSTEM = Coc7()
