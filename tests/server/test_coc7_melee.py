"""CoC7 melee at a table: a contest's own fields (the defender's response, C7-7) ride beside its
two sides, on a roll's body or on the GM's call, checked by the edition's parser, kept in the
request its event records, and never a way for a player to learn an NPC's skill."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .tablehelp import SHEETS, Api, Table

pytestmark = pytest.mark.sqlite_only(
    "Melee contests by the rules and who sees the NPC's skill: views and refusals."
)

SHEET = """name = "{name}"
system = "coc7"
luck = {{ current = 50, maximum = 99 }}
skills = {{ "fighting (brawl)" = 50, dodge = 47 }}
"""


@pytest.fixture(autouse=True)
def sheets() -> Iterator[None]:
    SHEETS["coc7"] = SHEET
    yield
    del SHEETS["coc7"]


def melee(attacker: str, npc: str, /, **fields: Any) -> dict[str, Any]:
    """Ada's brawl (50) rolled 40 against the NPC's dodge (47) rolled 45: a regular each."""
    return {
        "actor": {"character_id": attacker, "skill": "fighting", "dice": [40]},
        "opponent": {"character_id": npc, "skill": "dodge", "dice": [45]},
        **({"fields": fields} if fields else {}),
    }


def setup(api: Api) -> tuple[Table, str, str, str]:
    table = api.table("coc7")
    pat = table.join("Pat")
    return table, pat, table.character(pat, "Ada"), table.character(table.gm, "Ghoul")


def test_c7_7_a_response_sets_who_wins_a_tie(api: Api) -> None:
    table, _, ada, ghoul = setup(api)
    dodged = table.ok("POST", "/rolls", table.gm, 201, json=melee(ada, ghoul, response="dodge"))
    assert dodged["result"]["winner"] == "opponent"  # rule: C7-7 a tie with dodge: the defender
    assert dodged["request"]["response"] == "dodge"
    assert "dodges" in dodged["result"]["explanation"]
    fought = table.ok(
        "POST", "/rolls", table.gm, 201, json=melee(ada, ghoul, response="fight_back")
    )
    assert fought["result"]["winner"] == "actor"  # rule: C7-7 a tie fighting back: the attacker
    odds = table.ok("POST", "/odds", table.gm, json=melee(ada, ghoul, response="dodge"))
    plain = table.ok("POST", "/odds", table.gm, json=melee(ada, ghoul, response="fight_back"))
    assert odds["request"]["response"] == "dodge" and odds["odds"] != plain["odds"]
    shown = next(e for e in table.events(table.gm) if e["seq"] == dodged["seq"])
    assert shown["request"]["response"] == "dodge"


def test_c7_7_bad_contest_fields_are_refused_by_name(api: Api) -> None:
    table, pat, ada, ghoul = setup(api)
    r = table.req("POST", "/rolls", table.gm, json=melee(ada, ghoul, response="run"))
    err = r.json()["error"]
    assert r.status_code == 422 and err["field"] == "fields.response"  # rule: C7-7
    assert err["value"] == "run" and "dodge" in err["allowed"] and "fight_back" in err["allowed"]
    r = table.req("POST", "/odds", table.gm, json=melee(ada, ghoul, response="run"))
    assert r.status_code == 422 and r.json()["error"]["field"] == "fields.response"
    check = {"actor": {"character_id": ada, "skill": "dodge"}, "fields": {"response": "dodge"}}
    r = table.req("POST", "/rolls", pat, json=check)
    assert r.status_code == 422 and r.json()["error"]["field"] == "fields"
    r = table.req("POST", "/rolls", table.gm, json=melee(ada, ghoul, actor={"skill": 90}))
    assert r.status_code == 422 and r.json()["error"]["field"] == "fields.actor"
    bad_call = {
        "skill": "fighting",
        "character_ids": [ada],
        "opponent": {"character_id": ghoul, "skill": "dodge", "contest": {"response": "run"}},
    }
    r = table.req("POST", "/calls", table.gm, json=bad_call)
    assert r.status_code == 422 and r.json()["error"]["field"] == "opponent.contest.response"


def test_c7_7_a_called_melee_keeps_the_npc_skill_from_the_player(api: Api) -> None:
    table, pat, ada, ghoul = setup(api)
    # Not against the Keeper's NPC on their own, response or not: refused before its sheet.
    r = table.req("POST", "/rolls", pat, json=melee(ada, ghoul, response="dodge"))
    assert r.status_code == 403 and "47" not in r.text
    r = table.req("POST", "/odds", pat, json=melee(ada, ghoul, response="run"))
    assert r.status_code == 403 and "47" not in r.text
    called = {
        "skill": "fighting",
        "character_ids": [ada],
        "opponent": {"character_id": ghoul, "skill": "dodge", "contest": {"response": "dodge"}},
    }
    call = table.ok("POST", "/calls", table.gm, 201, json=called)
    target = call["targets"][0]["id"]
    seen = next(e for e in table.events(pat) if e["kind"] == "call")["call"]
    assert seen["opponent"] == {
        "character": seen["opponent"]["character"],
        "contest": {"response": "dodge"},
    }
    answer = {"actor": {"character_id": ada, "dice": [40]}, "target_id": target}
    r = table.req("POST", "/odds", pat, json=answer)
    assert r.status_code == 403 and "47" not in r.text
    r = table.req("POST", "/rolls", pat, json=answer | {"fields": {"response": "maneuver"}})
    assert r.status_code == 422 and r.json()["error"]["field"] == "fields" and "47" not in r.text
    rolled = table.ok("POST", "/rolls", pat, 201, json=answer)
    # rule: C7-7 Ada's regular beats a dodge only if the Ghoul fails: a regular dodge is its tie
    failed = rolled["result"]["opponent"]["level"] in ("failure", "fumble")
    assert rolled["result"]["winner"] == ("actor" if failed else "opponent")
    assert rolled["request"]["response"] == "dodge" and "opponent" not in rolled["request"]
    assert (
        set(rolled["result"]["opponent"]) == {"level", "success"} and "opponent_skill" not in rolled
    )
    gm_view = next(e for e in table.events(table.gm) if e["seq"] == rolled["seq"])
    assert gm_view["request"]["opponent"]["skill"] == 47
