"""Call of Cthulhu 7th edition at a table: a failed card offers Luck spent after the roll
(C7-4) and a push (C7-5), each its own provable roll linked to the first, from what the edition
declares (its ``luck`` with ``after_field`` and its ``follow_ups``); nothing follows a push or a
fumble. Skipped while the edition declares no follow-ups."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from d100 import REGISTRY
from tests.cli.conftest import d100

from .tablehelp import SHEETS, Api, Table

READY = "coc7" in REGISTRY and REGISTRY.get("coc7").declares.follow_ups is not None
pytestmark = [
    pytest.mark.skipif(not READY, reason="coc7 declares no follow-ups yet"),
    pytest.mark.sqlite_only(
        "A CoC 7 table's cards and follow-ups by the rules: views of the events "
        "test_event_schemas.py stores on both databases."
    ),
]
SHEET = """name = "{name}"
system = "coc7"
luck = {{ current = 50, maximum = 99 }}
skills = {{ "library use" = 60, "spot hidden" = 45 }}
"""


@pytest.fixture(autouse=True)
def sheets() -> Iterator[None]:
    SHEETS["coc7"] = SHEET
    yield
    del SHEETS["coc7"]


def luck_of(table: Table, token: str, character_id: str) -> int:
    chars = {c["id"]: c for c in table.ok("GET", "", token)["characters"]}
    current: int = chars[character_id]["luck"]["current"]
    return current


def test_c7_4_c7_5_a_failed_card_offers_luck_and_a_push(api: Api, tmp_path: Path) -> None:
    table = api.table("coc7")
    pat = table.join("Pat")
    ada = table.character(pat, "Ada")
    first = table.roll(pat, ada, "library", actor={"dice": [70]})  # 70 > 60: a failure
    assert first["result"]["level"] == "failure"
    offers = {o["key"]: o for o in first["follow_ups"]}
    assert offers["luck"]["luck"] == 70 - 60 and not offers["luck"]["draws"]  # rule: C7-4
    assert offers["push"]["draws"] and offers["push"]["chance"] == "60.00%"  # rule: C7-5
    bought = table.ok("POST", f"/rolls/{first['seq']}/reroll", pat, 201, json={"follow_up": "luck"})
    assert bought["result"]["dice"] == [70] and bought["result"]["level"] == "regular"
    assert bought["luck_spent"] == bought["result"]["luck_spent"] == 10
    assert luck_of(table, pat, ada) == 40
    # Luck may be spent more than once (C7-4), from the roll as lowered: 60 -> 30 is hard.
    assert {o["key"]: o["luck"] for o in bought["follow_ups"]} == {"luck_hard": 30}
    raised = table.ok(
        "POST", f"/rolls/{bought['seq']}/reroll", pat, 201, json={"follow_up": "luck_hard"}
    )
    assert raised["result"]["level"] == "hard" and raised["result"]["dice"] == [70]
    assert raised["luck_spent"] == 30 and raised["spent"] == raised["result"]["luck_spent"] == 40
    assert luck_of(table, pat, ada) == 10 and "follow_ups" not in raised  # 10 buys no more

    fumbled = table.roll(pat, ada, "spot", actor={"dice": [99]})  # 45 < 50: 96-00 fumble
    assert fumbled["result"]["level"] == "fumble" and "follow_ups" not in fumbled

    failed = table.roll(pat, ada, "library", actor={"dice": [80]})
    pushed = table.ok(
        "POST", f"/rolls/{failed['seq']}/reroll", pat, 201, json={"follow_up": "push", "dice": [85]}
    )
    assert pushed["reroll_of"] == failed["seq"] and pushed["taken"] == ["push"]
    assert pushed["result"]["level"] == "failure" and "follow_ups" not in pushed
    # A push that fails again is worse than a failure (C7-5): its event says so, for the card.
    assert pushed["follow_up"]["failed"].startswith("the push failed")
    r = table.req("POST", f"/rolls/{pushed['seq']}/reroll", pat, json={"follow_up": "luck"})
    assert r.status_code == 422  # neither Luck nor a push after a push (C7-5)

    # The Luck spent after the roll is its follow-ups' to set, never a player's at the table.
    r = table.req(
        "POST",
        "/rolls",
        pat,
        json={"actor": {"character_id": ada, "skill": "library", "fields": {"luck": 30}}},
    )
    assert r.status_code == 422 and r.json()["error"]["field"] == "actor.fields.luck"
    call = table.ok(
        "POST",
        "/calls",
        table.gm,
        201,
        json={"skill": "library use", "character_ids": [ada], "fields": {"difficulty": "hard"}},
    )
    hard = table.roll(pat, ada, None, target_id=call["targets"][0]["id"], actor={"dice": [35]})
    assert hard["result"]["level"] == "regular" and not hard["result"]["success"]
    offers = {o["key"]: o for o in hard["follow_ups"]}
    assert offers["luck"]["luck"] == 35 - 30  # up to hard: half of 60 (C7-2, C7-4)

    table.ok("POST", "/seeds/rotate", table.gm)
    log = tmp_path / "log.jsonl"
    log.write_text(table.req("GET", "/log.jsonl", pat).text)
    run = d100("verify", "--json", str(log))
    report = json.loads(run.out)
    # Every die was typed by hand (a follow-up reading the roll made, its dice): told so.
    assert run.status == 0 and report["typed"] == 7 and report["mismatch"] == 0, run


def test_c7_4_a_success_card_offers_luck_to_raise_it(api: Api) -> None:
    """Each level above a success that the Luck left can buy is its own offer; no push."""
    table = api.table("coc7")
    pat = table.join("Pat")
    ada = table.character(pat, "Ada")
    first = table.roll(pat, ada, "library", actor={"dice": [40]})  # rule: C7-4
    assert first["result"]["level"] == "regular"
    offers = {o["key"]: o["luck"] for o in first["follow_ups"]}
    assert offers == {"luck_hard": 10, "luck_extreme": 28, "luck_critical": 39}
    raised = table.ok(
        "POST", f"/rolls/{first['seq']}/reroll", pat, 201, json={"follow_up": "luck_hard"}
    )
    assert raised["result"]["dice"] == [40] and raised["result"]["level"] == "hard"
    assert raised["luck_spent"] == 10 and luck_of(table, pat, ada) == 40
    failed = table.roll(pat, ada, "library", actor={"dice": [70]})
    keys = [o["key"] for o in failed["follow_ups"]]
    assert keys == ["luck", "push"]  # hard costs 40: not below the 40 left


def test_s7_7_a_skill_is_ticked_once_for_improvement_and_only_an_investigators(
    api: Api,
) -> None:
    """A success marks its skill once until the marks are cleared (a tick, not a count); an
    NPC's never; nor a success with Luck spent on it or with a bonus or penalty die."""
    # rule: S7-7 (the check mark: a success with no Luck spent and no bonus or penalty dice)
    table = api.table("coc7")
    pat = table.join("Pat")
    ada = table.character(pat, "Ada")
    for die in (10, 20, 30):  # three successes with Library Use (60)
        assert table.roll(pat, ada, "library", actor={"dice": [die]})["result"]["success"]
    table.roll(pat, ada, "spot", actor={"fields": {"bonus_dice": 1}, "dice": [5, 15]})
    table.roll(pat, ada, "spot", actor={"fields": {"penalty_dice": 1}, "dice": [5, 15]})
    marks = {c["id"]: c for c in table.ok("GET", "", pat)["characters"]}[ada]["marks"]
    assert marks == {"library use": 1}, marks
    cultist = table.character(table.gm, "Cultist")
    table.roll(table.gm, cultist, "library", actor={"dice": [10]})
    npc = {c["id"]: c for c in table.ok("GET", "", table.gm)["characters"]}[cultist]
    assert npc["marks"] == {}


def test_a_nights_rest_is_refused_where_the_system_has_no_rest_rule(api: Api) -> None:
    # rule: BRP7 (a rest restores Luck); CoC7 recovers Luck by its own roll, not by rest
    table = api.table("coc7")
    r = table.req("POST", "/rest", table.gm)
    assert r.status_code == 409 and "no rest rule" in r.json()["error"]["message"]
    assert "brp" in r.json()["error"]["allowed"]
