"""What a player learns of a sheet they may not read from how the server refuses them: the
answer to a request naming a skill on the GM's character must not depend on whether that
skill is on its sheet (else guesses, a prefix at a time, spell out the NPC's skills)."""

from __future__ import annotations

from typing import Any

import pytest

from .tablehelp import Api, Table

pytestmark = pytest.mark.sqlite_only(
    "What a refusal or a view tells a player of what they may not see: access rules, "
    "decided before the store is asked."
)


@pytest.fixture
def api(shared_api: Api) -> Api:
    """One server per database for the module: each test opens a table of its own there."""
    return shared_api


GHOUL = """name = "Ghoul"
system = "brp"
luck = { current = 7, maximum = 9 }
skills = { claw = 55, "sneak attack" = 77 }
"""
NPC = 'name = "{name}"\nsystem = "brp"\nskills = {{ claw = 55, stealth = 40 }}\n'


def _table(api: Api) -> tuple[Table, str, str, str]:
    table = api.table("brp")
    pat = table.join("Pat")
    alice = table.character(pat, "Alice")
    ghoul = table.ok("POST", "/characters", table.gm, 201, json={"sheet": GHOUL})["id"]
    return table, pat, alice, ghoul


def _contest(alice: str, ghoul: str, skill: str, **actor: object) -> dict[str, object]:
    return {
        "actor": {"character_id": alice, "skill": "stealth", **actor},
        "opponent": {"character_id": ghoul, "skill": skill},
    }


def test_brp6_a_contest_preview_against_an_npc_tells_nothing_of_its_skill_names(api: Api) -> None:
    """The preview of a contest against a sheet the player may not read is refused the same
    way for a skill it has ("claw"), the start of one ("sn") and one it lacks."""
    table, pat, alice, ghoul = _table(api)
    answers = {
        guess: table.req("POST", "/odds", pat, json=_contest(alice, ghoul, guess))
        for guess in ("claw", "sn", "zzz")
    }
    seen = {(r.status_code, r.text) for r in answers.values()}
    assert len(seen) == 1, {g: (r.status_code, r.text[:120]) for g, r in answers.items()}
    assert answers["zzz"].status_code == 403
    # The GM, who reads the Ghoul's sheet, still previews it.
    gm = table.ok("POST", "/odds", table.gm, json=_contest(alice, ghoul, "claw"))
    assert gm["request"]["opponent"]["skill"] == 55


def test_brp6_a_refused_contest_roll_tells_nothing_of_the_npc_s_skill_names(api: Api) -> None:
    table, pat, alice, ghoul = _table(api)
    for why in ({"fields": {"modifiers": [10**6]}}, {}):
        visibility = "public" if why else "self"  # self: a mode the Ghoul's GM would not see
        answers = {
            guess: table.req(
                "POST",
                "/rolls",
                pat,
                json=_contest(alice, ghoul, guess, **why) | {"visibility": visibility},
            )
            for guess in ("claw", "zzz")
        }
        assert all(r.status_code == 403 for r in answers.values())
        fields = {r.json()["error"]["field"] for r in answers.values()}
        assert len(fields) == 1, {g: r.text[:160] for g, r in answers.items()}


def test_a_secret_call_on_the_gm_s_character_tells_players_none_of_it(api: Api) -> None:
    table, pat, _, ghoul = _table(api)
    hazard = "the ghoul smells the intruders"
    call = table.ok(
        "POST",
        "/calls",
        table.gm,
        201,
        json={
            "skill": "sneak",
            "fields": {"difficulty": "hard"},
            "hazard": hazard,
            "character_ids": [ghoul],
            "visibility": "gm",
        },
    )
    table.ok("POST", f"/calls/{call['id']}/cancel", table.gm)
    seen = table.req("GET", "", pat).text + table.req("GET", "/log.jsonl", pat).text
    for secret in ("sneak attack", hazard, "hard"):
        assert secret not in seen, secret
    # The GM still has it.
    assert hazard in table.req("GET", "", table.gm).text


def test_a_called_test_asked_for_in_a_more_hidden_mode_is_refused_not_shown(api: Api) -> None:
    """The call's mode rules; a player who asks for `self` on a public call was rolled in
    public without a word, their result shown to everyone."""
    table, pat, alice, _ = _table(api)
    call = table.ok(
        "POST", "/calls", table.gm, 201, json={"skill": "stealth", "character_ids": [alice]}
    )
    target = call["targets"][0]["id"]
    refused = table.roll(pat, alice, None, 422, target_id=target, visibility="self")
    assert refused["error"]["field"] == "visibility"
    assert "public" in refused["error"]["allowed"]
    assert table.events(table.gm)[-1]["kind"] == "call"  # nothing was rolled
    # The call's own mode, or none given, still rolls it.
    assert table.roll(pat, alice, None, target_id=target, visibility="public")["kind"] == "roll"


def test_brp7_a_player_s_own_luck_choice_on_a_called_test_is_theirs(api: Api) -> None:
    """A call naming `luck_rerolls` spent the player's Luck even when they answered with
    `luck_rerolls: 0`: their choice was dropped without a word."""
    table, pat, alice, _ = _table(api)
    call = table.ok(
        "POST",
        "/calls",
        table.gm,
        201,
        json={"skill": "stealth", "character_ids": [alice], "fields": {"luck_rerolls": 2}},
    )
    target = call["targets"][0]["id"]
    done = table.roll(pat, alice, None, target_id=target, actor={"fields": {"luck_rerolls": 0}})
    assert done["request"].get("luck_rerolls", 0) == 0
    assert done["result"]["luck_spent"] == 0


def _secret_call(table: Table, who: list[str], **extra: object) -> Any:
    body = {
        "skill": "stealth",
        "fields": {"difficulty": "hard"},
        "hazard": "the guard turns round",
        "character_ids": who,
        "visibility": "gm",
        **extra,
    }
    return table.ok("POST", "/calls", table.gm, 201, json=body)


def test_a_secret_call_is_seen_by_the_gm_and_its_players_only(api: Api) -> None:
    """Pat, called, sees the call to roll it; Sam, not called, gets stubs in the log, no call
    in the table's state, and for the called test's id the answer an unknown id gets; once
    the GM attaches Sam's character as a helper, Sam sees what it helps with (OQ11)."""
    table = api.table("openquest")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice, bob = table.character(pat, "Alice"), table.character(sam, "Bob")
    call = _secret_call(table, [alice])
    target = call["targets"][0]["id"]
    mine = table.ok("GET", "", pat)["calls"]
    assert [c["id"] for c in mine] == [call["id"]] and mine[0]["hazard"] == "the guard turns round"
    assert table.events(pat)[-1]["kind"] == "call"
    assert table.ok("GET", "", sam)["calls"] == []
    assert table.events(sam)[-1] == {
        "seq": table.events(pat)[-1]["seq"],
        "kind": "hidden",
        "hidden": True,
        "head": table.events(pat)[-1]["head"],  # the log's head after it: one for all
    }
    unknown = "x" * len(target)
    for path, body in (
        ("decline", None),
        ("assists", {"character_id": bob, "skill": "perception"}),
    ):
        seen = [
            table.req("POST", f"/targets/{t}/{path}", sam, json=body) for t in (target, unknown)
        ]
        assert {r.status_code for r in seen} == {404}
        assert seen[0].text.replace(target, unknown) == seen[1].text
    guessed = table.roll(sam, alice, None, 404, target_id=target)
    assert guessed == table.roll(sam, alice, None, 404, target_id=unknown) | {
        "error": guessed["error"] | {"value": target}
    }
    # The GM attaches Bob: Sam now sees the call (to know what Bob helps with), the assist too.
    table.ok(
        "POST",
        f"/targets/{target}/assists",
        table.gm,
        201,
        json={"character_id": bob, "skill": "perception"},
    )
    assert [c["id"] for c in table.ok("GET", "", sam)["calls"]] == [call["id"]]
    assert table.events(sam)[-1]["kind"] == "help"
    # Pat rolls it in the GM's mode: Sam, who helped, gets the stub with its seed and nonce.
    rolled = table.roll(pat, alice, None, target_id=target)
    assert rolled["call"]["hazard"] == "the guard turns round"
    stub = table.events(sam)[-1]
    assert stub["kind"] == "hidden" and set(stub) == {"seq", "kind", "hidden", "provable", "head"}
    # Rolled, the call is still told as unknown to a member outside it, never "already rolled".
    outsider = table.join("Lee")
    assert table.req("POST", f"/targets/{target}/decline", outsider).status_code == 404
    assert table.req("POST", f"/targets/{target}/decline", pat).status_code == 409


def test_a_public_call_stays_public(api: Api) -> None:
    table, _, alice, _ = _table(api)
    sam = table.join("Sam")
    call = _secret_call(table, [alice], visibility="public")
    assert table.ok("GET", "", sam)["calls"][0]["id"] == call["id"]
    assert table.events(sam)[-1]["call"]["hazard"] == "the guard turns round"


def _called_contest(table: Table, alice: str, ghoul: str, **extra: object) -> Any:
    body = {
        "skill": "spot",
        "character_ids": [alice],
        "visibility": "gm",
        "opponent": {"character_id": ghoul, "skill": "sneak", "fields": {"difficulty": "routine"}},
        **extra,
    }
    return table.ok("POST", "/calls", table.gm, 201, json=body)


def test_a_called_contest_against_an_npc_keeps_its_skill_the_gm_s(api: Api) -> None:
    """The GM names the Ghoul's side; Pat rolls against it without naming it and sees the
    Ghoul's name and level, never its skill, target, dice or the odds that tell them."""
    table, pat, alice, ghoul = _table(api)
    sam = table.join("Sam")
    call = _called_contest(table, alice, ghoul)
    assert call["opponent"]["skill"] == "sneak attack"
    target = call["targets"][0]["id"]
    seen = table.ok("GET", "", pat)["calls"][0]["opponent"]
    assert seen == {  # the contest's own fields (none here) are the players', its sides not
        "character": {"id": ghoul, "name": "Ghoul", "member_id": seen["character"]["member_id"]},
        "contest": {},
    }
    odds = table.req(
        "POST", "/odds", pat, json={"actor": {"character_id": alice}, "target_id": target}
    )
    assert odds.status_code == 403
    chosen = table.roll(
        pat, alice, None, 422, target_id=target, opponent={"character_id": ghoul, "skill": "claw"}
    )
    assert chosen["error"]["field"] == "opponent" and "GM chose" in chosen["error"]["message"]
    rolled = table.roll(pat, alice, None, target_id=target)
    assert rolled["kind"] == "contest" and rolled["opponent"]["name"] == "Ghoul"
    assert set(rolled["result"]["opponent"]) == {"level", "success"}
    assert rolled["result"]["winner"] in ("actor", "opponent", "tie", "none")
    assert rolled["result"]["actor"]["target"] == 50  # Pat's own side: all of it
    assert "odds" not in rolled and "opponent" not in rolled["request"]
    assert rolled["withheld"] == ["opponent"]
    texts = [table.req("GET", p, who).text for p in ("", "/log.jsonl") for who in (pat, sam)]
    for text in texts:
        assert "sneak attack" not in text and '"skill":77' not in text.replace(" ", "")
    assert table.events(sam)[-1]["kind"] == "hidden"
    gm = table.events(table.gm)[-1]
    assert gm["opponent_skill"] == "sneak attack" and gm["request"]["opponent"]["skill"] == 77
    # The GM may still preview it: the GM reads the Ghoul's sheet.
    again = _called_contest(table, alice, ghoul)
    body = {"actor": {"character_id": alice}, "target_id": again["targets"][0]["id"]}
    assert table.ok("POST", "/odds", table.gm, json=body)["request"]["opponent"]["skill"] == 77


def test_a_called_contest_s_opponent_is_checked_when_the_gm_calls_it(api: Api) -> None:
    table, _, alice, ghoul = _table(api)
    cases = [
        ({"opponent": {"character_id": ghoul, "skill": "fly"}}, "opponent.skill"),
        ({"opponent": {"character_id": alice, "skill": "dodge"}}, "opponent.character_id"),
        ({"visibility": "self"}, "visibility"),  # Pat's self roll would hide it from the GM
    ]
    for extra, field in cases:
        r = table.req(
            "POST",
            "/calls",
            table.gm,
            json={
                "skill": "spot",
                "character_ids": [alice],
                "visibility": "gm",
                "opponent": {"character_id": ghoul, "skill": "claw"},
                **extra,
            },
        )
        assert r.status_code == 422 and r.json()["error"]["field"] == field, r.text
    assert (
        "sneak attack"
        in table.req(
            "POST",
            "/calls",
            table.gm,
            json={
                "skill": "spot",
                "character_ids": [alice],
                "opponent": {"character_id": ghoul, "skill": "snek"},
            },
        ).text
    )  # the GM's did-you-mean


def test_a_blind_called_contest_shown_later_still_keeps_the_npc_s_side(api: Api) -> None:
    """Blind, its roller sees that they rolled and not the Ghoul's side; shown to everyone by
    the GM, the players read the levels and the winner, still not the Ghoul's skill."""
    table, pat, alice, ghoul = _table(api)
    call = _called_contest(table, alice, ghoul, visibility="blind")
    rolled = table.roll(pat, alice, None, target_id=call["targets"][0]["id"])
    assert rolled["hidden"] and "result" not in rolled and "opponent_skill" not in rolled
    shown = table.ok("POST", f"/rolls/{rolled['seq']}/unblind", table.gm, 201)
    assert shown["opponent_skill"] == "sneak attack"
    seen = table.events(pat)[-1]
    assert seen["kind"] == "unblind" and seen["withheld"] == ["opponent"]
    assert set(seen["result"]["opponent"]) == {"level", "success"}
    assert "sneak attack" not in table.req("GET", "/log.jsonl", pat).text


def _hidden_events(table: Table) -> dict[str, int]:
    """One event of each kind a player may not see, by kind: its number."""
    ghoul = table.ok("POST", "/characters", table.gm, 201, json={"sheet": NPC.format(name="G")})
    ghast = table.ok("POST", "/characters", table.gm, 201, json={"sheet": NPC.format(name="H")})
    check = table.roll(table.gm, ghoul["id"], "claw", visibility="gm")
    contest = table.ok(
        "POST",
        "/rolls",
        table.gm,
        201,
        json={
            "actor": {"character_id": ghoul["id"], "skill": "claw"},
            "opponent": {"character_id": ghast["id"], "skill": "stealth"},
            "visibility": "gm",
        },
    )
    sam = table.join("Sam")
    sams = table.character(sam, "Sam")
    call_body = {"skill": "stealth", "character_ids": [sams], "visibility": "gm"}
    table.ok("POST", "/calls", table.gm, 201, json=call_body)
    table.ok("PATCH", f"/characters/{ghoul['id']}", table.gm, json={"skills": {"claw": 60}})
    last = {e["kind"]: e["seq"] for e in table.events(table.gm)}  # the call, then the edit
    return {
        "check": check["seq"],
        "contest": contest["seq"],
        "call": last["call"],
        "edit": last["character"],
    }


def test_a_hidden_event_answers_as_a_missing_one_on_every_seq_route(api: Api) -> None:
    """For an event a player may not see, a route taking its number answers as for a number
    that does not exist: a reroll was a 403 for a hidden check but a 404 for a hidden contest,
    call or edit, which told them what kind of event it was."""
    table = api.table("brp")
    pat = table.join("Pat")
    table.character(pat, "Alice")
    hidden = _hidden_events(table)
    seen = {e["seq"]: e["kind"] for e in table.events(pat)}
    assert all(seen[seq] == "hidden" for seq in hidden.values()), (hidden, seen)
    missing = max(seen) + 50
    for route in ("reroll", "unblind"):
        absent = table.req("POST", f"/rolls/{missing}/{route}", pat, json={})
        assert 400 <= absent.status_code < 500, absent.text
        for kind, seq in hidden.items():
            r = table.req("POST", f"/rolls/{seq}/{route}", pat, json={})
            shown = r.json()["error"]
            expected = absent.json()["error"]
            if expected["value"] == missing:  # the number asked for is echoed, nothing more
                assert shown["value"] == seq
                shown, expected = {**shown, "value": None}, {**expected, "value": None}
            assert (r.status_code, shown) == (absent.status_code, expected), (route, kind)


def test_a_player_s_own_contest_against_an_npc_is_refused_whatever_its_skill(api: Api) -> None:
    """Before, a contest a player started against the GM's character answered with the NPC's
    skill matching a prefix ("c" gave "claw") and its target: the sheet, a guess at a time.
    Now it is refused alike for a skill it has, the start of one and one it lacks."""
    table, pat, alice, ghoul = _table(api)
    answers = {
        guess: table.req(
            "POST", "/rolls", pat, json=_contest(alice, ghoul, guess) | {"visibility": visibility}
        )
        for guess in ("claw", "c", "zzz")
        for visibility in ("gm", "public")
    }
    assert {(r.status_code, r.text) for r in answers.values()} == {
        (answers["zzz"].status_code, answers["zzz"].text)
    }
    refused = answers["c"].json()["error"]
    assert (
        answers["c"].status_code == 403 and "ask the GM to call this contest" in refused["message"]
    )
    # The GM, who reads both sheets, still starts it.
    gm = table.ok("POST", "/rolls", table.gm, 201, json=_contest(alice, ghoul, "c"))
    assert gm["opponent_skill"] == "claw"
