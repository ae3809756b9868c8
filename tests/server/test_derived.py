"""What a viewer can learn from derived data, not only from each route's direct answer: odds
previews and advice (they tell a sheet's skills and Luck), did-you-mean messages, Luck spent
on a hidden roll, dice typed into one; and the GM's call as law (OQ10, CH8)."""

from __future__ import annotations

from typing import Any

import pytest

from .tablehelp import Api, Table

pytestmark = pytest.mark.sqlite_only(
    "Odds, advice and refusals by the rules and the viewer's rights: access rules, views."
)

ORC = """name = "Orc"
system = "brp"
luck = { current = 7, maximum = 9 }
skills = { ambush = 73, "spot hidden" = 41 }
"""


def brp_table(api: Api) -> tuple[Table, str, str, str, str]:
    table = api.table("brp")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice = table.character(pat, "Alice")
    orc = table.ok("POST", "/characters", table.gm, 201, json={"sheet": ORC})["id"]
    return table, pat, sam, alice, orc


def luck_of(table: Table, token: str, character_id: str) -> Any:
    return next(c for c in table.ok("GET", "", token)["characters"] if c["id"] == character_id)[
        "luck"
    ]


def test_brp7_odds_and_advice_for_a_character_are_its_player_s_and_the_gm_s(api: Api) -> None:
    """Advice drops "as asked" once luck_rerolls passes the character's Luck: a preview for
    another's character would tell their Luck, and so how their hidden rolls went."""
    table, pat, sam, alice, orc = brp_table(api)
    body = {"actor": {"character_id": alice, "skill": "stealth", "fields": {"luck_rerolls": 3}}}
    assert table.ok("POST", "/odds", pat, json=body)["advice"]  # the player's own: advised
    assert table.ok("POST", "/odds", table.gm, json=body)["advice"]
    refused = table.req("POST", "/odds", sam, json=body)
    assert refused.status_code == 403 and "3" not in refused.text.replace("403", "")
    # The GM's Orc: no odds for players, nor a contest's odds against it (they tell its skill).
    npc = {"actor": {"character_id": orc, "skill": "ambush"}}
    assert table.req("POST", "/odds", pat, json=npc).status_code == 403
    contest = {
        "actor": {"character_id": alice, "skill": "stealth"},
        "opponent": {"character_id": orc, "skill": "ambush"},
    }
    r = table.req("POST", "/odds", pat, json=contest)
    assert r.status_code == 403 and "73" not in r.text
    # Players see the GM's characters by name, never their skills or Luck.
    seen = next(c for c in table.ok("GET", "", pat)["characters"] if c["id"] == orc)
    assert seen == {"id": orc, "name": "Orc", "member_id": seen["member_id"]}
    assert table.req("GET", f"/characters/{orc}/sheet", pat).status_code == 403


def test_did_you_mean_names_no_skill_of_a_sheet_the_viewer_may_not_read(api: Api) -> None:
    table, pat, _, alice, orc = brp_table(api)
    body = {
        "actor": {"character_id": alice, "skill": "stealth"},
        "opponent": {"character_id": orc, "skill": "ambsh"},
    }
    r = table.req("POST", "/rolls", pat, json=body)
    assert r.status_code == 403 and "ambush" not in r.text and "spot hidden" not in r.text
    # The player's own sheet still suggests; so does the GM's view of the Orc.
    own = table.req(
        "POST", "/rolls", pat, json={"actor": {"character_id": alice, "skill": "stelth"}}
    )
    assert own.status_code == 422 and "stealth" in own.text
    gm = table.req("POST", "/rolls", table.gm, json=body)
    assert gm.status_code == 422 and "ambush" in gm.text


def test_brp7_a_called_luck_reroll_on_a_hidden_roll_is_refused(api: Api) -> None:
    """The guard judges the merged request: a Luck reroll in the call's fields counts as much
    as one the player adds."""
    table, pat, _, alice, _ = brp_table(api)
    before = luck_of(table, pat, alice)
    for mode in ("blind", "self"):
        call = table.ok(
            "POST",
            "/calls",
            table.gm,
            201,
            json={
                "skill": "stealth",
                "fields": {"luck_rerolls": 2},
                "character_ids": [alice],
                "visibility": mode,
            },
        )
        target = call["targets"][0]["id"]
        refused = table.roll(pat, alice, None, 422, target_id=target)
        assert refused["error"]["field"] == "actor.fields.luck_rerolls", (mode, refused)
        assert "Luck reroll" in refused["error"]["message"]
    assert luck_of(table, pat, alice) == before
    assert luck_of(table, table.gm, alice) == before


def test_g3_dice_typed_into_a_roll_hidden_from_the_typist_are_refused(api: Api) -> None:
    table, pat, _, alice, _ = brp_table(api)
    r = table.roll(pat, alice, "stealth", 422, visibility="blind", actor={"dice": [3]})
    assert r["error"]["field"] == "actor.dice" and "hidden" in r["error"]["message"]
    table.roll(pat, alice, "stealth", visibility="self", actor={"dice": [3]})  # they see it


def test_ch8_oq10_the_gm_s_call_is_law(api: Api) -> None:
    """A player answering a called test may spend their own Luck, nothing else: not take 100,
    add modifiers, bonus dice or another difficulty."""
    chances = api.table("chances", settings={"manual_dice": False})
    pat = chances.join("Pat")
    alice = chances.character(pat, "Alice")
    call = chances.ok(
        "POST",
        "/calls",
        chances.gm,
        201,
        json={"skill": "sneaking", "fields": {"risk": "heroic"}, "character_ids": [alice]},
    )
    target = call["targets"][0]["id"]
    for fields in ({"take": 100}, {"modifiers": [1000]}, {"risk": "easy"}):
        r = chances.roll(pat, alice, None, 422, target_id=target, actor={"fields": fields})
        (key,) = fields
        assert r["error"]["field"] == f"actor.fields.{key}" and "GM" in r["error"]["message"]
    # Repeating the GM's own value is no change.
    chances.roll(pat, alice, None, target_id=target, actor={"fields": {"risk": "heroic"}})

    brp = api.table("brp")
    sam = brp.join("Sam")
    bob = brp.character(sam, "Bob")
    call = brp.ok(
        "POST",
        "/calls",
        brp.gm,
        201,
        json={
            "skill": "stealth",
            "fields": {"difficulty": "near-impossible"},
            "character_ids": [bob],
        },
    )
    target = call["targets"][0]["id"]
    for fields in ({"modifiers": [1000]}, {"bonus_dice": 2}, {"difficulty": "easy"}):
        r = brp.roll(sam, bob, None, 422, target_id=target, actor={"fields": fields})
        assert r["error"]["field"].startswith("actor.fields."), r
        assert (
            brp.req(
                "POST",
                "/odds",
                sam,
                json={"actor": {"character_id": bob, "fields": fields}, "target_id": target},
            ).status_code
            == 422
        )
    event = brp.roll(sam, bob, None, target_id=target, actor={"fields": {"luck_rerolls": 1}})
    assert event["request"]["luck_rerolls"] == 1  # Luck is the player's to spend
