"""Every registered system plays at a table, from what it declares alone: a table opened with
it, a character by TOML naming its system and one by the form's values, a roll, a called roll
at its target's presets, a contest, the odds preview (exact, against the naive count) and the
sheet and log exports. The seeds today, every edition as it registers. On both databases:
the one whole flow per system through every route a table uses (a list read in its order, a
text stored as sent), where the narrower tests of those routes' rules run on SQLite."""

from __future__ import annotations

import json
import re
import tomllib
from fractions import Fraction
from typing import Any

import pytest

from d100 import REGISTRY
from d100.system import System
from tests.helpers import brute_force

from .tablehelp import Api

SYSTEMS = REGISTRY.names()


@pytest.fixture
def api(shared_api: Api) -> Api:
    """One server per database for the module: each system's test opens a table of its own
    there, and reads nothing of the others'."""
    return shared_api


def sheet(system: System, name: str) -> str:
    """A sheet using what the system's characters may have: skills in its range, Luck."""
    high = system.declares.skill_range[1]
    top = 60 if high is None else min(60, high)
    lines = [f'name = "{name}"', f'system = "{system.name}"']
    if system.declares.luck is not None:
        most = min(system.declares.luck.most, 10)
        lines.append(f"luck = {{ current = {most}, maximum = {most} }}")
    lines.append(f'skills = {{ watch = {top}, "climb rock" = {top // 2} }}')
    if system.declares.ability_field is not None:
        lines += ["abilities = { wit = 5 }", 'uses = { watch = "wit", "climb rock" = "wit" }']
    return "\n".join(lines) + "\n"


def typed(system: System, text: str) -> Any:
    """What the page sends for a target typed as ``text``: a name or a number, or the numbers
    typed where the target is a list (a modifier)."""
    spec = next(f for f in system.check_fields if f.name == system.declares.target.field)
    if spec.kind == "int_list":
        return [int(n) for n in re.findall(r"[+-]?\d+", text)]
    return int(text) if text.lstrip("+-").isdigit() else text


def levels(answer: dict[str, Any]) -> dict[str, Fraction]:
    return {k: Fraction(v) for k, v in answer["odds"]["levels"].items() if Fraction(v)}


@pytest.mark.parametrize("name", SYSTEMS)
def test_every_registered_system_plays_at_a_table(api: Api, name: str) -> None:
    system = REGISTRY.get(name)
    target = system.declares.target
    table = api.table(name)
    assert table.ok("GET", "", table.gm)["table"]["settings"]["improvement"] == (
        system.declares.improvement
    )
    pat = table.join("Pat")
    ada = table.ok("POST", "/characters", pat, 201, json={"sheet": sheet(system, "Ada")})["id"]
    npc = table.ok("POST", "/characters", table.gm, 201, json={"sheet": sheet(system, "Orc")})
    # The form's values on a sheet, as the page sends them: a skill raised, one added.
    edited = table.ok(
        "PATCH", f"/characters/{ada}", pat, json={"skills": {"watch": 55, "listen": 40}}
    )
    assert edited["skills"]["listen"] == 40 and edited["system"] == name

    usual = typed(system, str(target.default))
    rolled = table.roll(pat, ada, "watch", actor={"fields": {target.field: usual}})
    assert rolled["result"]["system"] == name and rolled["skill"] == "watch"
    assert rolled["result"]["level"] in system.declares.level_names

    # Another preset where there is one, else an example of what may be typed.
    other = next((p for p in target.presets if p != target.default), None)
    preset = typed(system, other or target.example.split(",")[0])
    call = table.ok(
        "POST",
        "/calls",
        table.gm,
        201,
        json={"skill": "climb", "character_ids": [ada], "fields": {target.field: preset}},
    )
    answered = table.roll(pat, ada, None, target_id=call["targets"][0]["id"])
    assert answered["request"][target.field] == preset and answered["call"]

    contest = table.roll(
        table.gm, npc["id"], "watch", opponent={"character_id": ada, "skill": "watch"}
    )
    assert contest["result"]["winner"] in ("actor", "opponent", "tie", "none")

    added = {"character_id": ada, "skill": "listen", "fields": {target.field: preset}}
    if system.declares.ability_field is not None:  # the form's new skill names no ability
        added["ability"] = "wit"
    preview = table.ok("POST", "/odds", pat, json={"actor": added})
    assert levels(preview) == brute_force(preview["request"])

    text = table.req("GET", f"/characters/{ada}/sheet", pat).text
    assert tomllib.loads(text)["system"] == name
    log = table.req("GET", "/log.jsonl", pat).text.splitlines()
    assert [json.loads(line)["seq"] for line in log] == list(range(1, len(log) + 1))
