"""``d100 demo``: a short tour of the three systems."""

from __future__ import annotations

import argparse
import random
from typing import Any

from ..engine import odds, resolve
from ..results import CheckOdds

TOUR: tuple[tuple[str, dict[str, Any]], ...] = (
    (
        "OpenQuest: Perception 65, a hard test",
        {"system": "openquest", "skill": 65, "difficulty": "hard"},
    ),
    (
        "OpenQuest: opposed, Stealth 60 against Perception 45",
        {"system": "openquest", "actor": {"skill": 60}, "opponent": {"skill": 45}},
    ),
    ("BRP: Spot Hidden 65 with a bonus die", {"system": "brp", "skill": 65, "bonus_dice": 1}),
    (
        "BRP: Dodge 40, difficult, a Luck reroll on failure",
        {"system": "brp", "skill": 40, "difficulty": "difficult", "luck_rerolls": 1},
    ),
    (
        "Taking Chances: Shooting 40 + Dex 10 against a tough risk",
        {"system": "chances", "skill": 40, "ability": 10, "risk": "tough"},
    ),
)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "demo",
    )
    p.add_argument("--seed", type=int, default=None, help="seed for repeatable rolls")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    for title, request in TOUR:
        result = resolve(request, rng)
        chance = odds(request)
        print(title)
        print(f"  {result.explanation}")
        if isinstance(chance, CheckOdds):
            levels = ", ".join(f"{k} {float(v):.2%}" for k, v in chance.levels.items())
            print(f"  odds: {levels}")
        else:
            print("  odds: " + ", ".join(f"{k} {float(v):.2%}" for k, v in chance.winner.items()))
        print()
    return 0
