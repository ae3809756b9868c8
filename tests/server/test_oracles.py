"""What a player learns of a sheet they may not read from how the server refuses them: the
answer to a request naming a skill on the GM's character must not depend on whether that
skill is on its sheet (else guesses, a prefix at a time, spell out the NPC's skills)."""

from __future__ import annotations

from .tablehelp import Api, Table

GHOUL = """name = "Ghoul"
system = "brp"
luck = { current = 7, maximum = 9 }
skills = { claw = 55, "sneak attack" = 77 }
"""


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
        assert all(r.status_code == 422 for r in answers.values())
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
