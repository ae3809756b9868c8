"""A table plays a system whose every name is new (tests/new_names_system.py: ``omens``, its
levels triumph..doom, its target ``peril``, its Luck ``omen`` and ``second_sight``): the server
reads only what it declares, so opening a table, sheets by TOML and by form, rolls, a called
roll, a contest, odds, a Luck reroll and the exports all work with nothing written for it."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from d100 import REGISTRY
from d100.sheets import loads
from tests import new_names_system as omens
from tests.cli.conftest import d100
from tests.helpers import brute_force

from . import omens_follow
from .tablehelp import SHEETS, Api, Table

pytestmark = pytest.mark.sqlite_only(
    "A system registered at run time plays by what it declares: rules and views. Its "
    "events are stored as any system's, on both databases by test_event_schemas.py and "
    "test_every_system.py."
)

SHEET = """name = "{name}"
system = "omens"
luck = {{ current = 2, maximum = 4 }}
skills = {{ augury = 50, "star lore" = 35 }}
"""


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    REGISTRY.register(omens.SYSTEM)
    SHEETS["omens"] = SHEET
    yield
    del SHEETS["omens"]
    REGISTRY.unregister(omens.NAME)


def fractions(levels: dict[str, str]) -> dict[str, Fraction]:
    return {k: Fraction(v) for k, v in levels.items() if Fraction(v)}


def luck_of(table: Table, token: str, character_id: str) -> int:
    chars = {c["id"]: c for c in table.ok("GET", "", token)["characters"]}
    current: int = chars[character_id]["luck"]["current"]
    return current


def test_a_table_of_the_new_system_rolls_calls_and_contests(api: Api) -> None:
    table = api.table("omens", house_rules={"doom_from": 98})
    state = table.ok("GET", "", table.gm)
    assert state["table"]["settings"]["improvement"] == omens.DECLARATION.improvement
    pat = table.join("Pat")
    ada = table.character(pat, "Ada")
    seer = table.character(table.gm, "Seer")
    view = next(c for c in table.ok("GET", "", pat)["characters"] if c["id"] == ada)
    assert view["system"] == "omens" and view["luck"] == {"current": 2, "maximum": 4}
    assert view["aim"] is None  # the system has no aiming

    # A check at a peril only this system names: the target is the skill moved by it.
    dire = table.roll(pat, ada, "aug", actor={"fields": {"peril": "dire"}, "dice": [30]})
    assert dire["skill"] == "augury" and dire["result"]["target"] == 50 - 20
    assert dire["result"]["level"] == "scrape" and dire["result"]["success"]
    assert "follow_ups" not in dire  # a success: nothing to reroll

    # The preview's odds are exact: the naive count over every die (with the house rule).
    preview = table.ok("POST", "/odds", pat, json={"actor": {
        "character_id": ada, "skill": "star lore", "fields": {"peril": "calm"}}})
    assert preview["request"]["house_rules"]["doom_from"] == 98
    expected = brute_force(preview["request"])
    assert fractions(preview["odds"]["levels"]) == expected
    assert Fraction(preview["odds"]["success"]) == Fraction(45, 100)  # 35 + 10, doom from 98
    assert any(o["name"] == "read the omen" for o in preview["advice"])

    # A called roll: the GM's peril, the player's own Luck (reading the omen) and nothing else.
    call = table.ok("POST", "/calls", table.gm, 201, json={
        "skill": "augury", "character_ids": [ada], "fields": {"peril": "calm"}})
    assert call["players_fields"] == sorted(
        [omens.LUCK.boost_field, omens.LUCK.reroll_field])
    target = call["targets"][0]["id"]
    refused = table.roll(pat, ada, None, 422, target_id=target,
                         actor={"fields": {"peril": "dire"}})
    assert refused["error"]["field"] == "actor.fields.peril"
    answered = table.roll(pat, ada, None, target_id=target,
                          actor={"fields": {"omen": True}, "dice": [62]})
    assert answered["result"]["target"] == 50 + 10 + 10 and answered["result"]["level"] == "scrape"
    assert answered["call"]["target_id"] == target and luck_of(table, pat, ada) == 1

    # A contest: better level wins, equal levels go to the lots (the system's tie-break).
    contest = table.roll(table.gm, seer, "augury", opponent={"character_id": ada,
                                                             "skill": "augury"})
    assert contest["kind"] == "contest" and contest["result"]["winner"] in ("actor", "opponent")
    tied = table.roll(table.gm, seer, "augury", actor={"dice": [20]},
                      opponent={"character_id": ada, "skill": "augury", "dice": [21]})
    assert tied["result"]["actor"]["level"] == tied["result"]["opponent"]["level"] == "boon"
    assert tied["result"]["coin"] in ("actor", "opponent")  # drawn by lots
    # The contest's own field, by its declaration: equal levels yield to the side named.
    named = {"character_id": ada, "skill": "augury", "dice": [21]}
    yielded = table.roll(
        table.gm, seer, "augury", actor={"dice": [20]}, opponent=named,
        fields={"yield_to": "opponent"},
    )
    assert yielded["result"]["winner"] == "opponent"
    assert yielded["request"]["yield_to"] == "opponent"
    assert yielded["result"].get("coin") is None  # no lots drawn
    both = {"actor": {"character_id": seer, "skill": "augury"}, "opponent": named}
    r = table.req("POST", "/rolls", table.gm, json=both | {"fields": {"yield_to": "nobody"}})
    assert r.status_code == 422 and r.json()["error"]["field"] == "fields.yield_to"
    r = table.req("POST", "/rolls", table.gm, json=both | {"fields": {"lots": "actor"}})
    assert r.status_code == 422 and r.json()["error"]["field"] == "fields.lots"  # drawn, as dice

    # What the system lacks, the table refuses by the declaration: aiming, helpers, abilities.
    aim = table.req("POST", f"/characters/{ada}/aim", pat, json={"action": "aim"})
    assert aim.status_code == 422 and "no aiming" in aim.json()["error"]["message"]
    helped = table.req("POST", f"/targets/{target}/assists", table.gm,
                       json={"character_id": seer, "skill": "augury"})
    assert helped.status_code == 422
    with_abilities = SHEET.format(name="Bo") + "abilities = { wit = 3 }\n"
    r = table.req("POST", "/characters", pat, json={"sheet": with_abilities})
    assert r.status_code == 422 and r.json()["error"]["field"] == "sheet.abilities"


def test_the_new_system_s_luck_reroll_is_its_own_roll_and_the_sheet_exports(
    api: Api, tmp_path: Path
) -> None:
    table = api.table("omens")
    pat = table.join("Pat")
    ada = table.character(pat, "Ada")
    # 99 is a doom (from 96): the card offers a reroll for the system's reroll cost.
    doomed = table.roll(pat, ada, "augury", actor={"dice": [99]})
    assert doomed["result"]["level"] == "doom"
    cost = omens.LUCK.cost(False, 1)
    (offer,) = doomed["follow_ups"]
    assert offer["luck"] == cost and offer["draws"] and offer["label"].startswith("Spend")
    assert offer["chance"] == doomed["percent"]["success"] == "50.00%"  # the same request
    again = table.ok("POST", f"/rolls/{doomed['seq']}/reroll", pat, 201,
                     json={"follow_up": offer["key"], "dice": [12]})
    assert again["reroll_of"] == doomed["seq"] and again["luck_spent"] == cost
    assert again["result"]["level"] == "boon" and again["manual"]
    assert omens.LUCK.reroll_field not in again["request"]
    assert luck_of(table, pat, ada) == 2 - cost
    bad = table.req("POST", f"/rolls/{again['seq']}/reroll", pat, json={"follow_up": "nope"})
    assert bad.status_code == 422  # a success offers nothing

    # A form's edit, then the sheet as the command line reads it: its edition named in it.
    table.ok("PATCH", f"/characters/{ada}", pat, json={"skills": {"augury": 55}})
    text = table.req("GET", f"/characters/{ada}/sheet", pat).text
    assert tomllib.loads(text)["system"] == "omens"
    (back,) = loads(text).characters
    assert back.skills["augury"] == 55 and back.luck is not None
    assert back.luck.current == 2 - cost

    # The log verifies once the seed is revealed, the reroll included.
    table.ok("POST", "/seeds/rotate", table.gm)
    log = tmp_path / "log.jsonl"
    log.write_text(table.req("GET", "/log.jsonl", pat).text)
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["seq"] for e in entries if e.get("reroll_of")] == [again["seq"]]
    run = d100("verify", "--json", str(log), env={"D100_SYSTEMS": "tests.new_names_system"})
    report = json.loads(run.out)
    # Every die was typed by hand (a follow-up reading the roll made, its dice): told so.
    assert run.status == 0 and report["typed"] == 2 and report["mismatch"] == 0, run


def test_the_odds_api_and_the_systems_list_serve_the_new_system(api: Api) -> None:
    client = api.client
    served = next(s for s in client.get("/api/systems").json() if s["name"] == "omens")
    levels = served["declares"]["levels"]
    assert [lv["name"] for lv in levels] == list(omens.LEVELS)
    assert [lv["style"] for lv in levels] == ["best", "good", "ok", "bad", "worst"]
    assert served["declares"]["luck"]["boost_cost"] == omens.LUCK.cost(True, 0)
    request = {"system": "omens", "skill": 70, "peril": "cursed", "favour": 2}
    answer = client.post("/api/odds", json=request).json()
    assert fractions(answer["odds"]["levels"]) == brute_force(request)
    assert Fraction(answer["odds"]["success"]) == Fraction(40, 100)  # 70 - 40 + 10


@pytest.fixture
def followed() -> Iterator[None]:
    """The system in its place with follow-ups of its own (tests/server/omens_follow.py)."""
    REGISTRY.unregister(omens.NAME)
    REGISTRY.register(omens_follow.SYSTEM)
    yield
    REGISTRY.unregister(omens.NAME)
    REGISTRY.register(omens.SYSTEM)


@pytest.mark.usefixtures("followed")
def test_a_system_s_own_follow_ups_on_the_same_die_or_a_roll_that_ends_them(
    api: Api, tmp_path: Path
) -> None:
    """As CoC7's Luck after the roll (no new dice) and its push (a roll after which nothing
    follows) are shaped: the card lists what the declaration gives, each taken is a provable
    roll of its own linked to the first, and the log verifies."""
    table = api.table("omens")
    pat = table.join("Pat")
    ada = table.character(pat, "Ada")
    missed = table.roll(pat, ada, "augury", actor={"dice": [55]})  # 55 > 50: a miss
    offers = {o["key"]: o for o in missed["follow_ups"]}
    assert list(offers) == [omens_follow.READ, omens_follow.AGAIN]
    assert offers[omens_follow.READ]["luck"] == 1 and not offers[omens_follow.READ]["draws"]
    assert "chance" not in offers[omens_follow.READ]  # no dice to come: nothing to chance
    assert offers[omens_follow.AGAIN] == {"key": omens_follow.AGAIN, "label": "Look again",
                                          "luck": 0, "draws": True, "chance": "50.00%",
                                          "odds": "1/2"}  # its exact chance beside it
    path = f"/rolls/{missed['seq']}/reroll"
    r = table.req("POST", path, pat, json={"follow_up": omens_follow.READ, "dice": [5]})
    assert r.status_code == 422 and r.json()["error"]["field"] == "dice"  # it rolls none
    read = table.ok("POST", path, pat, 201, json={"follow_up": omens_follow.READ})
    # The same die against the target the omen raises: 55 <= 60.
    assert read["result"]["dice"] == [55] and read["result"]["target"] == 60
    assert read["result"]["level"] == "scrape" and read["odds"] is None
    assert read["follow_up"]["done"] == "Omen read after the roll" and read["luck_spent"] == 1
    assert read["provable"]["nonce"] == missed["provable"]["nonce"] + 1
    assert "follow_ups" not in read and luck_of(table, pat, ada) == 1

    doomed = table.roll(pat, ada, "augury", actor={"dice": [99]})
    again = table.ok("POST", f"/rolls/{doomed['seq']}/reroll", pat, 201,
                     json={"follow_up": omens_follow.AGAIN, "dice": [97]})
    assert again["result"]["level"] == "doom" and again["taken"] == [omens_follow.AGAIN]
    assert "follow_ups" not in again  # nothing follows a second look, even a failed one
    r = table.req("POST", f"/rolls/{again['seq']}/reroll", pat)
    assert r.status_code == 422 and "nothing may follow" in r.json()["error"]["message"]
    assert luck_of(table, pat, ada) == 1  # looking again costs none

    table.ok("POST", "/seeds/rotate", table.gm)
    log = tmp_path / "log.jsonl"
    log.write_text(table.req("GET", "/log.jsonl", pat).text)
    run = d100("verify", "--json", str(log), env={"D100_SYSTEMS": "tests.server.omens_follow"})
    report = json.loads(run.out)
    # Every die was typed by hand (a follow-up reading the roll made, its dice): told so.
    assert run.status == 0 and report["typed"] == 4 and report["mismatch"] == 0, run
