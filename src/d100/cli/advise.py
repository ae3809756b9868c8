"""``d100 advise``: every option a player has for a check, best chance of success first."""

from __future__ import annotations

import argparse
from typing import Any

from ..advise import advise
from ..engine import odds
from ..errors import D100Error
from ..render.checks import inputs_text
from ..render.odds_views import advice_view
from ..results import CheckOdds
from ..systems import REGISTRY
from . import flags
from .output import show
from .roll import check_request

HELP = """\
For one check, each option with its exact chance of success and of each level, and its cost:
as is, and whatever the system's rules offer (Luck, extra dice, taking a value, a helper's
help). Best first; options needing more Luck than is left are left out.

examples:
  d100 advise -s brp --skill 45 --difficulty difficult --luck 3
  d100 advise -s chances --skill 40 --ability 10 --risk tough --helper 30+5
  d100 advise -s openquest --skill 50 --helper 40
  d100 advise --sheet party.toml alice stealth --difficulty hard
  d100 advise --sheet party.toml erin perception --helper finn
"""


def register(sub: Any) -> None:
    p = flags.check_parser(sub, "advise", HELP, dice=False)
    lucky = ", ".join(s.name for s in REGISTRY if s.declares.luck is not None)
    p.add_argument(
        "--luck", type=int, metavar="N", help=f"Luck left (default: the sheet's); {lucky}"
    )
    p.add_argument(
        "--helper",
        action="append",
        default=[],
        metavar="HELPER",
        help="someone who could help: SKILL[+ABILITY], or NAME[/SKILL] with a sheet",
    )
    flags.add_output(p)
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    sheet = flags.open_sheet(ns) if ns.names else None
    title, request = check_request(ns, sheet)
    luck = ns.luck
    skill = who = None
    if sheet is not None:
        character = sheet.get(ns.names[0])
        skill, who = character.skill(" ".join(ns.names[1:])), character.name
        if luck is None and character.luck is not None:
            luck = character.luck.current
    for text in ns.helper:
        if "@" in text:
            raise D100Error(
                "--helper",
                text,
                "SKILL[+ABILITY] or NAME[/SKILL]",
                "advice weighs every roll: no dice",
            )
    helpers = dict(
        flags.helper(text, request["system"], sheet, skill, who, "--helper") for text in ns.helper
    )
    options = advise(request, luck=luck, helpers=helpers)
    base = odds(request)
    assert isinstance(base, CheckOdds)
    head = f"{title or 'Options'} — {inputs_text(request)}"
    rule = REGISTRY.get(request["system"]).declares.luck
    if luck is not None:
        head += f"; Luck left {luck}"
    elif rule is not None:  # nobody said: the options assume some Luck, and say how much
        most = max((rule.cost_of(o.request) for o in options), default=0)
        head += f"; Luck not given, options spend up to {most} (give --luck N)"
    show(ns, advice_view(head, options, base), [o.to_dict() for o in options])
    return 0
