"""A fourth, made-up system (tests/fourth_system.py) registers and works end to end without
touching any other module: the engine, the fast paths, advice, sampling, the command line, the
HTTP API and a table on the server all read what it declares."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from collections.abc import Iterator, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import d100
from d100 import REGISTRY
from d100.advise import advise
from d100.batch import _sides, sample
from d100.declarations import Aim, Assistance, Declaration
from d100.fields import Field, read
from d100.system import Plan
from tests import forked, fourth_system
from tests.helpers import brute_force, odds_map

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def percent() -> Iterator[None]:
    REGISTRY.register(fourth_system.SYSTEM)
    yield
    REGISTRY.unregister(fourth_system.NAME)


@pytest.mark.usefixtures("percent")
def test_g3_it_resolves_given_and_drawn_dice() -> None:
    result = d100.resolve({"system": "percent", "skill": 50, "difficulty": "hard", "dice": [4]})
    assert (result.level, result.target, result.dice) == ("great", 40, (4,))
    import random

    assert d100.resolve({"system": "percent", "skill": 50}, random.Random(1)).level in (
        fourth_system.LEVELS
    )


@pytest.mark.slow
@pytest.mark.usefixtures("percent")
@pytest.mark.parametrize("skill", [0, 1, 9, 10, 55, 100])
def test_g4_its_odds_are_brute_force(skill: int) -> None:
    for request in (
        {"system": "percent", "skill": skill, "modifiers": [5]},
        {"system": "percent", "skill": skill, "house_rules": {"share": 5}},
        {"system": "percent", "actor": {"skill": skill}, "opponent": {"skill": 40}},
    ):
        expected = brute_force(request)
        assert {k: v for k, v in odds_map(request).items() if v} == expected


@dataclasses.dataclass(frozen=True)
class _DoublesCheck(fourth_system.Check):
    doubles: bool = False

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        return (
            {**out, "house_rules": {**out.get("house_rules", {}), "doubles": True}}
            if (self.doubles)
            else out
        )


class _Doubles(fourth_system.Percent):
    """The fourth system with a house rule its fast path does not name: doubles under the
    target are great successes too."""

    rule = Field("doubles", "bool", "doubles are great", default=False)
    house = dataclasses.replace(fourth_system.HOUSE, fields=(*fourth_system.HOUSE.fields, rule))
    check_fields = (*fourth_system.CHECK_FIELDS[:-1], house)

    def parse_check(self, data: Mapping[str, Any]) -> _DoublesCheck:
        values = read(data, self.check_fields)
        base = fourth_system._check(values, values["house_rules"].get("share"))
        return _DoublesCheck(**vars(base), doubles=bool(values["house_rules"].get("doubles")))

    def check_plan(self, check: Any) -> Plan[Any, Any]:
        plan = super().check_plan(check)
        if not getattr(check, "doubles", False):
            return plan
        return dataclasses.replace(
            plan,
            outcome=lambda s: "great" if s % 11 == 0 and s <= check.target else plan.outcome(s),
        )


@pytest.mark.usefixtures("percent")
def test_a_new_house_rule_is_never_served_stale_odds() -> None:
    """A house rule added to a system, and not to its fast path's inputs, changes the odds
    even after the default request has warmed every memo."""
    REGISTRY.unregister("percent")
    REGISTRY.register(_Doubles())
    warm = d100.odds({"system": "percent", "skill": 60})
    doubles = d100.odds({"system": "percent", "skill": 60, "house_rules": {"doubles": True}})
    assert warm.levels["great"] == Fraction(6, 100)  # 01-06
    assert doubles.levels["great"] == Fraction(11, 100)  # 01-06 and 11, 22, 33, 44, 55
    assert doubles.levels["success"] == Fraction(49, 100)


@pytest.mark.usefixtures("percent")
def test_advice_and_sampling_read_its_declaration() -> None:
    options = advise({"system": "percent", "skill": 40})
    assert [o.name for o in options] == ["take it easy", "as asked"]
    assert options[0].gain == Fraction(10, 100)
    request = d100.parse({"system": "percent", "skill": 40})
    assert _sides(request) is not None  # the vectorised sampler, from the declared roller
    counts = sample(request, 20_000, seed=3)
    assert abs(counts["success"] + counts["great"] - 8_000) < 400  # 40% of 20,000, ~5 sigma


def _d100(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join((str(ROOT / "src"), str(ROOT)))  # this tree's d100, then tests
    env = {**os.environ, "D100_SYSTEMS": "tests.fourth_system", "PYTHONPATH": path}
    return subprocess.run(
        [forked.SHIM, *args],
        env={**env, **forked.environment()},
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_the_command_line_loads_it() -> None:
    run = _d100("check", "-s", "percent", "--skill", "50", "--difficulty", "hard", "--dice", "4")
    assert run.returncode == 0, run.stderr
    assert "great" in run.stdout.lower() and "40" in run.stdout
    lines = '{"system":"percent","skill":30}\n{"system":"percent","skill":300}\n'
    odds = _d100("odds", stdin=lines)
    first, second = (json.loads(line) for line in odds.stdout.splitlines())
    assert first["levels"] == {"great": "3/100", "success": "27/100", "failure": "7/10"}
    assert second["error"]["field"] == "skill" and odds.returncode != 0


@pytest.mark.usefixtures("percent")
def test_the_server_plays_it(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from d100.server.app import create_app
    from tests.server.tablehelp import SHEETS, Api

    with TestClient(create_app(f"sqlite:///{tmp_path / 'd.db'}")) as client:
        r = client.post("/api/odds", json={"system": "percent", "skill": 30})
        assert r.status_code == 200 and r.json()["odds"]["success"] == "3/10"
        names = [s["name"] for s in client.get("/api/systems").json()]
        assert "percent" in names
        SHEETS["percent"] = 'name = "{name}"\nsystem = "percent"\nskills = {{ climb = 45 }}\n'
        try:
            table = Api(client).table("percent")
            pat = table.join("Pat")
            cid = table.character(pat, "Ivy")
            rolled = table.roll(pat, cid, "climb", actor={"dice": [44]})
        finally:
            del SHEETS["percent"]
        assert rolled["result"]["level"] == "success"


class _Helped(fourth_system.Percent):
    """The fourth system declaring every field the table fills in from elsewhere: an
    ability, synergies, helpers (with the fields each takes from a character) and aiming."""

    declares = dataclasses.replace(
        fourth_system.Percent.declares,  # type: ignore[attr-defined]
        ability_field="knack",
        synergy_field="kin_skills",
        assistance=Assistance("backup", True, 3, None, 5, ("skill", "trade"), "+5 each"),
        aim=Aim("steady_rounds", 5, 15, ("move",)),
    )


def test_the_fields_it_declares_the_table_fills_are_reserved(tmp_path: Path) -> None:
    """The reserved fields were a list naming the three systems' own: a fourth system's
    ability or helpers could be set by a player's roll."""
    from fastapi.testclient import TestClient

    from d100.server.app import create_app
    from tests.server.tablehelp import SHEETS, Api

    REGISTRY.register(_Helped())
    SHEETS["percent"] = 'name = "{name}"\nsystem = "percent"\nskills = {{ climb = 45 }}\n'
    try:
        with TestClient(create_app(f"sqlite:///{tmp_path / 'd.db'}")) as client:
            table = Api(client).table("percent")
            pat = table.join("Pat")
            cid = table.character(pat, "Ivy")
            for name in ("knack", "kin_skills", "backup", "trade", "steady_rounds", "skill"):
                actor = {"character_id": cid, "skill": "climb", "fields": {name: 1}}
                r = table.req("POST", "/rolls", pat, json={"actor": actor})
                error = r.json()["error"]
                assert r.status_code == 422 and error["field"] == f"actor.fields.{name}", r.text
                assert "the table sets this field itself" in error["message"]
                assert name in error["allowed"].split(" than ")[1].split(", ")
    finally:
        del SHEETS["percent"]
        REGISTRY.unregister(fourth_system.NAME)


def test_its_declaration_is_all_it_takes() -> None:
    assert isinstance(fourth_system.SYSTEM.declares, Declaration)  # type: ignore[attr-defined]
    lines = (ROOT / "tests" / "fourth_system.py").read_text().count("\n")
    assert lines < 150
