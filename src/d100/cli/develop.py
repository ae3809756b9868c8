"""``d100 develop``: the development phase of a sheet's characters, each marked skill's exact
chance to improve and mean gain shown beside its roll, and the sheet written back."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .. import development
from ..errors import D100Error
from ..render.view import View, line, pct, seg, table
from ..sheets import Character
from ..systems import REGISTRY
from . import flags
from .output import show
from .roll import rng_of
from .sheet import saved

HELP = """\
The development phase: each skill marked on the sheet (marks = ["Spot Hidden"]) makes its
improvement roll, shown with its exact chance to improve and its mean gain; skills improved,
marks cleared and what mastery rewards are written back to the sheet. --luck adds the optional
Luck recovery roll; --odds shows the chances and rolls nothing.

examples:
  d100 develop --sheet party.toml vera --odds
  d100 develop --sheet party.toml vera --luck --seed 68
"""


def _house_help() -> str:
    named = [
        f"{s.name}: " + ", ".join(f"{k} ({v})" for k, v in d.house_rules.items())
        for s in REGISTRY
        if (d := s.declares.development) is not None and d.house_rules
    ]
    return "a house rule of the development roll, repeatable (" + "; ".join(named) + ")"


def register(sub: Any) -> None:
    p = sub.add_parser("develop", description=HELP)
    p.add_argument("names", nargs="*", metavar="WHO", help="default: everyone with marks")
    flags.add_sheet(p)
    p.add_argument("--luck", action="store_true", help="roll the optional Luck recovery too")
    p.add_argument("--house", action="append", default=[], metavar="RULE", help=_house_help())
    p.add_argument("--odds", action="store_true", help="show the chances; roll and write nothing")
    p.add_argument("--dice", help="dice rolled by hand, every die in order (one character)")
    flags.add_roll(p)
    flags.add_output(p)
    p.set_defaults(run=run)


def _chosen(ns: argparse.Namespace, everyone: tuple[Character, ...]) -> list[Character]:
    """The characters named, else everyone whose system has a development phase and who has
    marks (or Luck, with --luck)."""
    sheet_names = [c.name for c in everyone]
    if ns.names:
        from ..sheets import lookup

        picked = [lookup(n, sheet_names, "character") for n in ns.names]
        return [c for c in everyone if c.name in picked]
    return [
        c
        for c in everyone
        if REGISTRY.get(c.system).declares.development is not None
        and (c.marks or (ns.luck and c.luck is not None))
    ]


def _request(
    c: Character, ns: argparse.Namespace, given: tuple[int, ...] | None
) -> development.DevelopmentRequest:
    """The character's phase; a house rule refused is named by its flag."""
    try:
        return development.from_character(c, ns.luck, frozenset(ns.house), given)
    except D100Error as err:
        if err.field != "house_rules":
            raise
        raise D100Error("--house", err.value, err.allowed, err.reason) from None


def run(ns: argparse.Namespace) -> int:
    sheet = flags.open_sheet(ns)
    chosen = _chosen(ns, sheet.characters)
    if not chosen:
        raise D100Error(
            "WHO", None, "a character with marks = [...] on the sheet, or --luck", "no marks"
        )
    given = (
        None if ns.dice is None else tuple(flags.number("--dice", d) for d in ns.dice.split(","))
    )
    if given is not None and len(chosen) > 1:
        raise D100Error("--dice", ns.dice, "dice for one character: name WHO", "several chosen")
    rng = rng_of(ns)
    view, data = View(()), []
    for c in chosen:
        request = _request(c, ns, given)
        chances = development.odds(request)
        entry: dict[str, Any] = {"name": c.name, "odds": [o.to_dict() for o in chances]}
        if ns.odds:
            view = view + phase_view(c, request, chances, None)
        else:
            result = development.develop(request, rng)
            sheet = sheet.put(development.apply(c, result))
            entry |= result.to_dict()
            view = view + phase_view(c, request, chances, result)
        data.append(entry)
    if not ns.odds and any(d.get("skills") or d.get("luck") for d in data):
        saved(Path(ns.sheet), sheet)
        view = view + View(
            (line(seg("  sheet    ", "label"), seg(f"{ns.sheet}: written", "warn")),)
        )
    show(ns, view, data)
    return 0


def phase_view(
    c: Character,
    request: development.DevelopmentRequest,
    chances: tuple[development.RollOdds, ...],
    result: development.DevelopmentResult | None,
) -> View:
    rules = request.rules
    head = f"{c.name} ({REGISTRY.get(c.system).title}): development phase"
    view = View((line(seg(head, "title")), line(seg(f"  {request.rule}", "dim"))))
    rolled = [] if result is None else [*result.skills, *([result.luck] if result.luck else [])]
    rows = []
    for i, o in enumerate(chances):
        cells = [seg(o.name), seg(str(o.value)), seg(pct(o.improves)), seg(f"+{float(o.gain):.2f}")]
        if rolled:
            r = rolled[i]
            cells += [
                seg(f"{r.roll:02d}"),
                seg(f"+{r.gain}"),
                seg(str(r.after), "bold"),
            ]
        if o.rewards:
            cells.append(
                seg(
                    f"reaches {rules.mastery}: {pct(o.rewards)}, +{rules.reward} {rules.reward_to}",
                    "dim",
                )
            )
        rows.append(cells)
    heads = ["roll", "value", "improves", "mean gain"]
    if rolled:
        heads += ["d100", "gain", "now"]
    if any(o.rewards for o in chances):
        heads.append("")
    if not rows:
        return view + View((line(seg("  no marks", "dim")),))
    view = view + table(heads, [r + [seg("")] * (len(heads) - len(r)) for r in rows])
    if result is not None and result.reward_before is not None:
        said = f"{rules.reward_to} {result.reward_before} -> {result.reward_after}"
        view = view + View((line(seg(f"  {said}", "bold")),))
    return view
