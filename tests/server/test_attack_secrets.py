"""An attack against another character's sheet as a hostile player tries it: nothing of the
defender's sheet (the skills it names, its damage bonus) reaches a member who may not read it,
nor the attacker's Luck a member who may not read the attacker's; an attack is a character's,
made by its player or the GM (C7-7, C7-4)."""

from __future__ import annotations

import json

import pytest

from d100 import sheets
from d100.declared import action_of
from d100.tallies import BUDGET

from .tablehelp import Api
from .test_attack_defenders import ALICE, BOB, attack, seated, seen
from .test_attack_luck import offered
from .test_attack_luck import seated as lucky

SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@SQLITE
def test_c7_7_the_skill_a_defender_s_sheet_names_is_kept_from_who_may_not_read_it(
    api: Api,
) -> None:
    """Pat names Bob's skill by its start ("f", "credit"): the roll answers as it does, but
    neither Pat nor Quinn is told the name Bob's sheet gives it (its specialisation, a skill
    the sheet lists); Sam and the GM are. Nor when the GM's Ghoul attacks Bob."""
    table, who, ids = seated(api)
    for attacker, token, query, named in (
        (ids["alice"], who["Pat"], "f", "fighting (brawl)"),
        (ids["alice"], who["Pat"], "credit", "Credit Rating"),
        (ids["ghoul"], table.gm, "fi", "fighting (brawl)"),
    ):
        defender = {"character_id": ids["bob"], "skill": query}
        rolled = attack(table, token, "60 dmg=1d3", attacker, defender)
        assert seen(table, table.gm, rolled["seq"])["defender"]["skill"] == named
        assert seen(table, who["Sam"], rolled["seq"])["defender"]["skill"] == named
        views = [seen(table, who[p], rolled["seq"]) for p in ("Pat", "Quinn")]
        if token != table.gm:
            views.append(rolled)
        for view in views:
            assert view["withheld"], view
            assert named.lower() not in json.dumps(view).lower(), view
            assert view["defender"]["character"]["name"] == "Bob"


@SQLITE
def test_c7_4_an_attack_s_luck_offers_are_shown_to_the_readers_of_the_attacker_s_sheet(
    api: Api,
) -> None:
    """The offers of Luck on Alice's attack tell Alice's Luck (each is offered while her
    sheet holds more than its cost): Pat and the GM see them; Sam and Quinn do not."""
    table, who, ids = lucky(api)  # Pat's Alice has 99 Luck, Sam plays Bob
    who["Quinn"] = table.join("Quinn")
    event, _ = offered(table, who["Pat"], ids["alice"], {"character_id": ids["bob"]}, None)
    assert seen(table, who["Pat"], event["seq"])["follow_ups"]
    assert seen(table, table.gm, event["seq"])["follow_ups"]
    for player in ("Sam", "Quinn"):
        assert "follow_ups" not in seen(table, who[player], event["seq"]), player


@SQLITE
def test_c7_7_a_member_attacks_another_character_only_with_a_character_they_play(
    api: Api,
) -> None:
    """Quinn plays no one: an attack of no one's on Bob (which would read Bob's sheet at
    will) is refused; the GM's monster of no sheet may attack him."""
    table, who, ids = seated(api)
    body = {"words": "60 dmg=1d3", "defender": {"character_id": ids["bob"]}}
    for token in (who["Quinn"], who["Pat"]):
        refused = table.ok("POST", "/declared-rolls", token, 403, json=body)["error"]
        assert refused["field"] == "character_id", refused
        refused = table.ok("POST", "/declared-odds", token, 403, json=body)["error"]
    assert table.ok("POST", "/declared-rolls", table.gm, 201, json=body)["roll"] == "attack"


@SQLITE
def test_c7_7_a_refusal_of_work_tells_no_number_the_defender_s_sheet_gave(api: Api) -> None:
    """Pat's Bob fighting back with 60d1000+DB is too much work only with Bob's DB: the
    refusal, to Pat, names no cost (each DB gave its own, +1d6 2,248,898) nor any of Bob's."""
    table, who, ids = seated(api)
    bob = {"character_id": ids["bob"], "skill": "fighting"}
    words = "brawl dmg=1d3 fight fb=60d1000+DB"
    gm = attack(table, table.gm, words, ids["alice"], bob, 422)
    assert gm["cost"] == 2248898  # the test can fail: the GM's refusal names it
    pat = attack(table, who["Pat"], words, ids["alice"], bob, 422)
    told = json.dumps(pat)
    assert "2248898" not in told and "2,248,898" not in told and "cost" not in pat, pat
    assert "+1d6" not in told and pat["field"].startswith("defender"), pat


@SQLITE
def test_c7_4_a_spend_needs_more_luck_than_its_cost_and_its_offer_says_so(api: Api) -> None:
    """An offer of Luck on an attack says the Luck the sheet must hold (``needs``: more than
    the cost, C7-4), which the page reads; with the sheet's Luck edited down to the cost
    since, taking it is refused naming what Alice has and what it needs."""
    table, who, ids = lucky(api)
    event, offer = offered(table, who["Pat"], ids["alice"], None, None)
    assert offer["needs"] == offer["luck"] + 1
    luck = {"current": offer["luck"], "maximum": 99}
    table.ok("PATCH", f"/characters/{ids['alice']}", who["Pat"], json={"luck": luck})
    body = {"follow_up": offer["key"]}
    refused = table.ok("POST", f"/rolls/{event['seq']}/reroll", who["Pat"], 422, json=body)
    told = refused["error"]
    assert told["field"] == "seq" and f"Alice has {offer['luck']} Luck" in told["message"], told
    assert f"{offer['needs']} Luck" in told["allowed"], told


@SQLITE
def test_c7_7_whether_a_fight_back_is_too_much_work_tells_no_damage_bonus(api: Api) -> None:
    """Pat probes with fight-back damage at the budget's edge: a number of dice that is within
    it with Bob's DB +1d4 and too much with +2d6 (as the GM's refusal, which names the cost,
    confirms). To Pat both DBs answer alike, so asking again and again narrows nothing down."""
    table, who, ids = seated(api)
    bob = {"character_id": ids["bob"], "skill": "fighting"}

    def with_bonus(db: str) -> None:
        sheet = BOB + f'derived = {{ DB = "{db}" }}\n'
        table.ok("PUT", f"/characters/{ids['bob']}", who["Sam"], json={"sheet": sheet})

    def cost(dice: int, db: str) -> int:  # the library's, as the GM's refusal names it
        (alice,) = sheets.loads(ALICE).characters
        found = action_of("coc7", f"brawl dmg=1d3 fight fb={dice}d1000+DB", alice, facing=True)
        assert found is not None and found.action.facing is not None
        return found.action.cost(found.action.facing.fill(found.request, 43, db))

    # the fewest dice too much work with +2d6, which +1d4 keeps within the budget
    edge = next(n for n in range(1, 200) if cost(n, "+2d6") > BUDGET)
    assert cost(edge, "+1d4") <= BUDGET, edge
    with_bonus("+2d6")
    words = f"brawl dmg=1d3 fight fb={edge}d1000+DB"
    body = {"words": words, "character_id": ids["alice"], "defender": bob}
    refused = table.req("POST", "/declared-odds", table.gm, json=body).json()["error"]
    assert refused["cost"] == cost(edge, "+2d6")  # the test's costs are the server's
    answers = []
    for db in ("+1d4", "+2d6"):
        with_bonus(db)
        got = table.req("POST", "/declared-rolls", who["Pat"], json=body)
        answers.append((got.status_code, got.json().get("error")))
    assert answers[0] == answers[1], answers
    assert answers[0][0] == 422 and "+6d6" in answers[0][1]["allowed"], answers
