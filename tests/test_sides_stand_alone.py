"""A system that declares its contest sides stand alone (``sides_stand_alone``): a side's
result, its dice given, is the same against any other side. ``d100 verify`` leans on it to
recompute the side a player is shown beside a withheld NPC side."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from d100.engine import resolve
from d100.provable import ProvableSource
from d100.systems import REGISTRY

ALONE = [s.name for s in REGISTRY if s.declares.sides_stand_alone]


def _side(result: dict[str, Any], binds: frozenset[str]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k not in binds | {"explanation", "bands"}}


@pytest.mark.parametrize("system", ALONE)
def test_a_declared_side_resolves_the_same_against_any_other_side(system: str) -> None:
    declares = REGISTRY.get(system).declares
    low, high = declares.skill_range
    skills = range(low, (high if high is not None else 150) + 1)
    rng = random.Random(system)
    for _ in range(150):
        actor, opponent = {"skill": rng.choice(skills)}, {"skill": rng.choice(skills)}
        made = resolve({"system": system, "actor": actor, "opponent": opponent}, rng).to_dict()
        dice = json.loads(json.dumps(made["actor"]["dice"]))
        other = {"skill": rng.choice(skills)}
        again = resolve(
            {"system": system, "actor": {**actor, "dice": dice}, "opponent": other},
            ProvableSource(b"", "", 0),
        ).to_dict()
        binds = declares.binds_other_side
        first = _side(json.loads(json.dumps(made["actor"])), binds)
        second = _side(json.loads(json.dumps(again["actor"])), binds)
        second["request"] = {k: v for k, v in second["request"].items() if k != "dice"}
        assert first == second, (actor, opponent, other)


def test_some_system_declares_its_sides_stand_alone() -> None:
    assert ALONE
