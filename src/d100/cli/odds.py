"""``d100 odds``: exact odds from human flags, an odds table over skills, or JSON Lines."""

from __future__ import annotations

import argparse
from typing import Any

from .. import quick
from ..engine import odds
from ..errors import D100Error
from ..render.checks import inputs_text
from ..render.odds_views import contest_odds_view, odds_table_view, odds_view
from ..render.view import View
from ..results import CheckOdds, ContestOdds
from ..systems import REGISTRY
from . import dice, flags, jsonl, sanity
from .output import show
from .roll import check_request, contest_request

HELP = """\
Exact odds of a check: every level as a percentage and an exact fraction; of a dice
expression (d100 odds 3d6): every total, exactly. Without flags, read JSON Lines requests on
standard input (see d100 resolve) and answer each with its odds.

examples:
  d100 odds -s brp --skill 65 --difficulty hard --bonus 1
  d100 odds -s chances --skill 40 --ability 10 --risk tough
  d100 odds --sheet party.toml alice stealth
  d100 odds -s openquest --skill 60 --vs --skill 45
  d100 odds --sheet party.toml carol sneaking --vs dara hearing
  d100 odds -s brp --table --difficulty standard,hard --bonus 0,1 --step 10
  d100 odds -s openquest --table --skills 30-70 --step 5 --difficulty hard
  echo '{"system":"brp","skill":65}' | d100 odds
  d100 odds 3d6
  d100 odds 1d8+DB --db +1d4
  d100 odds coc7 sc 1d4/1d10 45 int=70
"""


def register(sub: Any) -> None:
    p = flags.check_parser(sub, "odds", HELP, dice=False, contest=True)
    p.add_argument(
        "--table",
        action="store_true",
        help="P(level) for a range of skills; difficulty, risk and dice flags take "
        "comma lists of alternatives",
    )
    p.add_argument("--skills", default="0-100", metavar="LOW-HIGH", help="the table's skills")
    p.add_argument("--step", type=int, default=10, help="the table's skill step (default 10)")
    p.add_argument(
        "--vs",
        nargs=argparse.REMAINDER,
        metavar="OPPONENT",
        help="odds of a contest: the opponent's [WHO SKILL] and flags, as in d100 contest",
    )
    flags.add_output(p)
    dice.add_db(p)
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    losing = sanity.read(ns, ns.names) if ns.names and ns.vs is None else None
    if losing is not None:
        return sanity.run_odds(ns, losing)
    asked = quick.dice_words(ns.names) if ns.names and ns.vs is None else None
    if asked is not None:
        return dice.run_odds(ns, asked)
    dice.no_db(ns)
    dice.refuse_lookalike(ns, ns.names)
    if not (ns.names or ns.system or ns.table or ns.vs is not None or flags.asked(ns)):
        return jsonl.run_odds(ns)  # the JSON Lines form of CONTRACT.md
    if ns.vs is not None:
        return run_contest(ns)
    flags.no_contest_flags(ns)
    if ns.table:
        return run_table(ns)
    sheet = flags.open_sheet(ns) if ns.names else None
    title, request = check_request(ns, sheet)
    chance = odds(request)
    assert isinstance(chance, CheckOdds)
    system = REGISTRY.get(request["system"])
    head = f"{title or system.title + ' odds'} — {inputs_text(request)}"
    show(ns, odds_view(head, chance), chance.to_dict())
    return 0


def run_contest(ns: argparse.Namespace) -> int:
    request, names, _ = contest_request(ns)
    if flags.without_dice(request) != request:  # as before --vs: odds weigh every roll
        raise D100Error("--dice", ns.vs, "no dice: odds weigh every roll", "dice given to odds")
    chance = odds(request)
    assert isinstance(chance, ContestOdds)
    system = REGISTRY.get(request["system"])
    head = f"{system.title} contest odds — {names[0]} against {names[1]}"
    show(ns, contest_odds_view(head, chance, names), chance.to_dict())
    return 0


def skill_range(text: str, step: int) -> list[int]:
    low, dash, high = text.partition("-")
    lo = flags.number("--skills", low, "LOW-HIGH, e.g. 0-100")
    hi = flags.number("--skills", high, "LOW-HIGH, e.g. 0-100") if dash else lo
    if step < 1 or hi < lo:
        raise D100Error(
            "--skills", text, "LOW-HIGH with LOW <= HIGH and --step >= 1", "empty range"
        )
    return list(range(lo, hi + 1, step))


def table_requests(ns: argparse.Namespace) -> list[dict[str, Any]]:
    """The alternatives the variant flags describe, without a skill (the table's rows)."""
    if ns.skill is not None:
        raise D100Error("--skill", ns.skill, "--skills LOW-HIGH in a table", "a single skill")
    ns.skill = "0"
    requests = flags.side_request(ns, flags.system_of(ns))
    ns.skill = None
    return [{k: v for k, v in r.items() if k != "skill"} for r in requests]


def run_table(ns: argparse.Namespace) -> int:
    skills = skill_range(ns.skills, ns.step)
    system = REGISTRY.get(flags.system_of(ns))
    views = []
    data = []
    for variant in table_requests(ns):
        rows = []
        for skill in skills:
            chance = odds({**variant, "skill": skill})
            assert isinstance(chance, CheckOdds)
            rows.append(chance)
        asked = inputs_text(variant) or "as asked"
        views.append(
            odds_table_view(
                f"{system.title}: P(level) in %, {asked}",
                skills,
                list(system.declares.level_names),
                rows,
            )
        )
        data.append(
            {
                "request": variant,
                "rows": [{"skill": s, **o.to_dict()} for s, o in zip(skills, rows, strict=True)],
            }
        )
    out = views[0]
    for view in views[1:]:
        out = out + View((((" ", ""),),)) + view
    show(ns, out, data)
    return 0
