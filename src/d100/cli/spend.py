"""``d100 luck`` and ``d100 wound``: a sheet's character spends Luck outside a check, or takes
a hit, by the spends and wounds the character's system declares (``spending``); the Luck and
hit points left are written back to the sheet."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .. import spending
from ..errors import D100Error
from ..render.view import View, line, pct, seg
from ..sheets import Character, Sheet
from ..systems import REGISTRY
from . import flags
from .output import show
from .roll import rng_of
from .sheet import saved

LUCK_HELP = """\
Spend a character's Luck outside a check, as the sheet's rules allow (rules = [...] on the
sheet): each spend's cost, what it heals with the exact odds of the hit points after, and the
Luck and hit points left written back to the sheet, with a doubling spend's uses since the
Keeper reset it (luck_uses).

spends:
{spends}

examples:
  d100 luck --sheet party.toml zora scratch --seed 4
  d100 luck --sheet party.toml zora --advise                # which spend pays, exactly
  d100 luck --sheet party.toml zora stay-conscious          # its uses kept on the sheet
  d100 luck --sheet party.toml zora stay-conscious --reset  # the Keeper reset its cost
"""

WOUND_HELP = """\
A character takes one hit of DAMAGE: the hit points left (written back to the sheet), and
whether the hit kills, leaves the character dying or unconscious, or calls for a roll.

rules:
{rules}

examples:
  d100 wound --sheet party.toml zora 7
  d100 wound --sheet party.toml vera 7
"""


def _spends() -> str:
    lines = []
    for s in REGISTRY:
        rules = s.declares.investigator
        for option, group in ({} if rules is None else rules.spends).items():
            for spend in group:
                lines.append(
                    f"  {spend.name:16} {spend.rule_id:4} {spend.title} ({s.name}, {option})"
                )
    return "\n".join(lines) or "  none"


def _wounds() -> str:
    lines = []
    for s in REGISTRY:
        rules = s.declares.investigator
        if rules is not None and rules.wounds is not None:
            lines.append(f"  {s.name}: {rules.wounds.rule}")
    return "\n".join(lines) or "  none"


def _words() -> list[str]:
    out: list[str] = []
    for s in REGISTRY:
        rules = s.declares.investigator
        for group in ({} if rules is None else rules.spends).values():
            out += [x.name for x in group if x.name not in out]
    return out


def register(sub: Any) -> None:
    p = sub.add_parser(
        "luck",
        description=LUCK_HELP.format(spends=_spends()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("who", metavar="WHO", help="the character on the sheet")
    p.add_argument("spend", metavar="SPEND", nargs="?", help="one of: " + ", ".join(_words()))
    p.add_argument(
        "--advise",
        action="store_true",
        help="spend nothing: each spend the sheet allows, its cost now and what it buys, with "
        "the exact odds of the hit points it heals, so you see which pays",
    )
    p.add_argument(
        "--used",
        type=int,
        default=None,
        metavar="N",
        help="times a doubling spend was made since the Keeper reset its cost (default: the "
        "sheet's luck_uses, else 0)",
    )
    p.add_argument(
        "--reset",
        action="store_true",
        help="the Keeper resets a doubling spend's cost first (P-3: from 1 again)",
    )
    p.add_argument("--dice", help="dice rolled by hand, every die in order")
    flags.add_sheet(p)
    flags.add_roll(p)
    flags.add_output(p)
    p.set_defaults(run=run_luck)

    w = sub.add_parser(
        "wound",
        description=WOUND_HELP.format(rules=_wounds()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    w.add_argument("who", metavar="WHO", help="the character on the sheet")
    w.add_argument("damage", metavar="DAMAGE", help="the hit's damage, after armour")
    flags.add_sheet(w)
    flags.add_output(w)
    w.set_defaults(run=run_wound)


def _character(ns: argparse.Namespace) -> tuple[Sheet, Character]:
    sheet = flags.open_sheet(ns)
    return sheet, sheet.get(ns.who)


def _written(ns: argparse.Namespace, who: str, after: Character) -> View:
    from ..sheets import load

    sheet = load(ns.sheet)  # read afresh so other edits are kept
    saved(Path(ns.sheet), sheet.put(after))
    return View((line(seg("  sheet    ", "label"), seg(f"{ns.sheet}: written", "warn")),))


def run_luck(ns: argparse.Namespace) -> int:
    _, c = _character(ns)
    if ns.advise:
        return advise(ns, c)
    if ns.spend is None:
        raise D100Error("SPEND", None, "one of: " + ", ".join(_words()), "no spend named")
    given = (
        None if ns.dice is None else tuple(flags.number("--dice", d) for d in ns.dice.split(","))
    )
    try:
        used = 0 if ns.reset else ns.used
        request = spending.spend_of(c, ns.spend, used, given)
    except D100Error as err:
        if err.field == "used":
            raise D100Error("--used", err.value, err.allowed, err.reason) from None
        if err.field == "spend":
            raise D100Error("SPEND", err.value, err.allowed, err.reason) from None
        raise
    result = spending.spend(request, rng_of(ns))
    hp_name, _, _ = spending.hit_points(c)
    data = {"who": c.name, **result.to_dict()}
    view = luck_view(c, result, hp_name)
    view = view + _written(ns, c.name, spending.apply_spend(c, result))
    show(ns, view, data)
    return 0


def advise(ns: argparse.Namespace, c: Character) -> int:
    """Every spend the sheet allows and whether it pays now; nothing written."""
    found = spending.advise(c, 0 if ns.reset else ns.used)
    hp_name, now, most = spending.hit_points(c)
    luck = "no" if c.luck is None else str(c.luck.current)
    rows = [line(seg(f"{c.name}: {luck} Luck, {hp_name} {now} of {most}", "title"))]
    for a in found:
        cost = "-" if a.cost is None else f"{a.cost} Luck"
        word = seg("pays", "ok") if a.pays else seg("does not pay", "bad")
        said = a.refused or a.buys or ""
        if a.gained:
            chances = " · ".join(f"+{g} {pct(p)}" for g, p in a.gained.items())
            mean = a.mean or 0
            said = f"{hp_name} {chances}; mean +{float(mean):.2f} ({mean})"
            if a.per_luck is not None:
                said += f", {float(a.per_luck):.3f} a Luck point"
        head = f"  {a.spend.name:16} {a.spend.rule_id:4} {cost:9} "
        rows.append(line(seg(head, "label"), word, seg(f"  {said}", "dim")))
    show(ns, View(tuple(rows)), {"who": c.name, "advice": [a.to_dict() for a in found]})
    return 0


def luck_view(c: Character, result: spending.SpendResult, hp_name: str) -> View:
    r = result.request
    head = f"{c.name} ({REGISTRY.get(c.system).title}): {r.rule.name} ({r.rule.rule_id})"
    rows = [
        line(seg(head, "title")),
        line(seg(f"  {r.rule.title}", "dim")),
        line(
            seg("  Luck     ", "label"),
            seg(f"{r.luck} - {result.cost} -> "),
            seg(str(result.luck_after), "bold"),
        ),
    ]
    if r.rule.heal is not None:
        dice = ", ".join(str(d) for d in result.dice)
        rows.append(
            line(
                seg(f"  {hp_name:9}", "label"),
                seg(f"{r.hp} + {r.rule.heal} [{dice}] -> "),
                seg(str(result.hp_after), "bold"),
                seg(f" (at most {r.hp_most})", "dim"),
            )
        )
        chances = " · ".join(f"{hp} {pct(p)}" for hp, p in spending.odds(r).items())
        rows.append(line(seg("  odds     ", "label"), seg(f"{hp_name} after: {chances}", "dim")))
    if result.cancels is not None:
        rows.append(line(seg("  cancels  ", "label"), seg(result.cancels)))
    if result.next_cost is not None:
        rows.append(line(seg("  next     ", "label"), seg(f"costs {result.next_cost} Luck")))
    return View(tuple(rows))


def run_wound(ns: argparse.Namespace) -> int:
    _, c = _character(ns)
    damage = flags.number("DAMAGE", ns.damage)
    try:
        request = spending.wound_of(c, damage)
    except D100Error as err:
        if err.field != "damage":
            raise
        raise D100Error("DAMAGE", err.value, err.allowed, err.reason) from None
    result = spending.wound(request)
    hp_name, _, _ = spending.hit_points(c)
    w = result.wound
    head = f"{c.name} ({REGISTRY.get(c.system).title}): a hit of {damage} ({w.rule_id})"
    rows = [
        line(seg(head, "title")),
        line(
            seg(f"  {hp_name:9}", "label"),
            seg(f"{request.hp} - {damage} -> "),
            seg(str(w.hp_after), "bold"),
            seg(f" (at most {request.hp_most})", "dim"),
        ),
        line(seg("  state    ", "label"), seg(w.state, "bad" if w.state != "conscious" else "")),
    ]
    if w.calls_for is not None:
        rows.append(line(seg("  calls for", "label"), seg(f" {w.calls_for}")))
    if w.marks:
        rows.append(line(seg("  marks    ", "label"), seg(", ".join(w.marks))))
    rows.append(
        line(seg("  heals    ", "label"), seg(f"{result.heals_a_day} {hp_name} a day", "dim"))
    )
    view = View(tuple(rows))
    view = view + _written(ns, c.name, spending.apply_wound(c, result))
    show(ns, view, {"who": c.name, **result.to_dict()})
    return 0
