"""Call of Cthulhu 7th edition contests: opposed rolls on the level ladder (C7-6) and melee
responses to an attack (C7-7), with their exact odds counted through a ranking of the six
levels (every contest has the same few results to order, whatever the skills)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..declarations import RankedContest, RankedSide
from ..errors import D100Error
from ..fields import Field, read
from ..machine import Then
from ..results import ContestResult, Winner, contest_data
from ..system import Plan, Record
from .coc7_check import (
    HOUSE_RULES,
    NAME,
    SIDE_FIELDS,
    Coc7Check,
    HouseRules,
    attempt_of,
    check_of,
    ends_of,
    given_of,
    ladder_of,
    machine_of,
    result,
    table_of,
)
from .coc7_rules import LEVELS, RESPONSES, Ladder, contest_winner, succeeds
from .common import contest_sides, dice_stream, house_dict, house_from, system_field

CONTEST_FIELDS = (
    system_field(NAME),
    Field(
        "actor",
        "object",
        "the acting side (the attacker in melee)",
        required=True,
        fields=SIDE_FIELDS,
    ),
    Field(
        "opponent", "object", "the opposing side (the defender)", required=True, fields=SIDE_FIELDS
    ),
    Field(
        "response",
        "choice",
        "the defender's answer to a melee attack (C7-7); absent: an opposed roll (C7-6)",
        choices=RESPONSES,
    ),
    HOUSE_RULES,
)
_CHECK_ONLY = {"difficulty": "regular", "luck": None, "push": False, "combined": ()}
VERB = {"dodge": "dodges", "fight_back": "fights back", "maneuver": "maneuvers"}


@dataclass(frozen=True)
class Coc7Contest:
    actor: Coc7Check
    opponent: Coc7Check
    response: str | None = None
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def __post_init__(self) -> None:
        for name, side in contest_sides(self, CONTEST_FIELDS, Coc7Check, HouseRules):
            for attr, default in _CHECK_ONLY.items():
                if getattr(side, attr) != default:
                    raise D100Error(
                        f"{name}.{attr}",
                        getattr(side, attr),
                        f"the default, {default!r}: a side takes only "
                        + ", ".join(f.name for f in SIDE_FIELDS),
                        "a check's field on a contest's side",
                    )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "system": NAME,
            "actor": self.actor.side_dict(),
            "opponent": self.opponent.side_dict(),
        }
        if self.response is not None:
            out["response"] = self.response
        return {**out, **house_dict(self.house_rules)}


def parse_contest(data: Mapping[str, Any]) -> Coc7Contest:
    values = read(data, CONTEST_FIELDS)
    house = house_from(values, HouseRules)
    return Coc7Contest(
        check_of(values["actor"], house),
        check_of(values["opponent"], house),
        values["response"],
        house,
    )


def side_level(check: Coc7Check, state: Any) -> str:
    """A side's level: its roll against its target at regular difficulty."""
    return table_of(check).first[ends_of(state)[1]]


def contest_plan(contest: Coc7Contest) -> Plan[Any, ContestResult]:
    a, o = contest.actor, contest.opponent
    a_attempt, o_attempt = attempt_of(a, "actor.dice"), attempt_of(o, "opponent.dice")
    o_machine = machine_of(o, o_attempt)
    response = contest.response

    lower = response is None and contest.house_rules.lower_roll_wins

    def decide(state: Any) -> Winner:
        x = side_level(a, state[1])
        winner = contest_winner(x, side_level(o, state[2]), response)
        if winner == "tie" and lower and succeeds(x, "regular"):  # SD-dg: the lower roll
            ra, ro = ends_of(state[1])[1], ends_of(state[2])[1]
            return "tie" if ra == ro else "actor" if ra < ro else "opponent"
        return winner

    def build(state: Any, record: Record) -> ContestResult:
        winner = decide(state)
        ra = result(a, a_attempt, state[1], record, side=True)
        ro = result(o, o_attempt, state[2], record, side=True)
        return ContestResult(
            system=NAME,
            winner=winner,
            actor=ra,
            opponent=ro,
            explanation=f"{_verdict(winner, response, ra.level)} — actor {ra.explanation}; "
            f"opponent {ro.explanation}",
            request=contest_data(contest.to_dict()),
        )

    return Plan(
        machine=Then(machine_of(a, a_attempt), lambda _: o_machine),
        given={
            **given_of(a, a_attempt, dice_stream("actor")),
            **given_of(o, o_attempt, dice_stream("opponent")),
        },
        outcome=decide,
        build=build,
        cost=a_attempt.cost + o_attempt.cost,
        dear="bonus_dice",
    )


def _verdict(winner: Winner, response: str | None, actor_level: str) -> str:
    if response is None:
        return "tie" if winner == "tie" else f"{winner} wins"
    told = f"the opponent {VERB[response]}: "
    if winner == "none":
        return told + "nobody wins (both below regular)"
    if winner == "opponent":
        return told + "opponent wins"
    # C7-7: an attacker's extreme or better win does extreme damage (impaling weapons impale)
    extreme = actor_level in ("critical", "extreme")
    return told + "actor wins" + (", extreme damage" if extreme else "")


# -- the fast path: the winner is an ordering of the two sides' levels ------------------------


def ranking(contest: Coc7Contest) -> RankedContest | None:
    if contest.response is None and contest.house_rules.lower_roll_wins:
        return None  # levels alone do not order it: the rolls do
    sides = []
    for check in (contest.actor, contest.opponent):
        if check.dice is not None:
            return None
        t, house = check.target, contest.house_rules
        shown = partial(_shown, ladder_of(t, "regular", house))
        sides.append(RankedSide(check, (check.net_dice,), (t, house.levels), shown))
    return RankedContest(
        (NAME, contest.response),
        _results,
        partial(_beats, contest.response),
        (sides[0], sides[1]),
    )


def _shown(lad: Ladder, state: Any) -> str:
    """What a side shows the ranking: its level (C7-1, or ``setcoc``'s; regular difficulty)."""
    return lad[ends_of(state)[1]]


def _results() -> list[Hashable]:
    return list(LEVELS)


def _beats(response: str | None, x: str, y: str) -> tuple[Winner]:
    return (contest_winner(x, y, response),)
