"""SealDice's words at a table through the API (the page's roll box sends them so): ``.sc`` and
``.en`` for a character are the table's declared rolls, drawn from its seeds, judged by its
``setcoc``, SAN and skills written back to the sheet and replayed by ``d100 verify``; ``.ra``
and ``.rah`` are checks of the sheet's skill, ``.rah`` a secret one a player who may not see it
learns nothing from."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from d100.provable import ProvableSource
from d100.systems.coc7_sealdice_rolls import ScRequest, improves, sc_roll
from tests.cli.conftest import d100

from .forging import relinked
from .tablehelp import SHEETS, Api, Table

SHEET = """name = "{name}"
system = "coc7"
luck = {{ current = 50, maximum = 99 }}
skills = {{ "spot hidden" = 45, "library use" = 60, sanity = 60, int = 70, brawl = 60 }}
"""


@pytest.fixture(autouse=True)
def sheets() -> Iterator[None]:
    SHEETS["coc7"] = SHEET
    yield
    del SHEETS["coc7"]


def seated(api: Api, **extra: Any) -> tuple[Table, str, str, str, str]:
    table = api.table("coc7", **extra)
    pat, sam = table.join("Pat"), table.join("Sam")
    return table, pat, sam, table.character(pat, "Alice"), table.character(table.gm, "Ghoul")


def words(table: Table, token: str, said: str, status: int = 201, **extra: Any) -> Any:
    out = table.ok("POST", "/declared-rolls", token, status, json={"words": said, **extra})
    return out if status == 201 else out["error"]


def sheet_of(table: Table, token: str, character_id: str) -> dict[str, Any]:
    found: dict[str, Any] = {c["id"]: c for c in table.ok("GET", "", token)["characters"]}[
        character_id
    ]
    return found


def seed_of(table: Table, token: str) -> bytes:
    """The seed the rolls so far were drawn from, revealed by rotating."""
    table.ok("POST", "/seeds/rotate", table.gm)
    seeds = [e for e in table.events(token) if e["kind"] == "seed"]
    return bytes.fromhex(seeds[-1]["revealed"]["server_seed"])


def test_sd_w6_sc_at_a_table_is_a_declared_roll_of_the_sheet_s_san_written_back(
    api: Api,
) -> None:
    table, pat, _, alice, _ = seated(api, house_rules={"setcoc": 3})
    made = words(table, pat, ".sc 1/1d6", character_id=alice)
    assert made["kind"] == "declared" and made["roll"] == "sealdice_sc"
    assert made["request"] == {"setcoc": 3, "loss": "1/1d6", "sanity": 60}  # the table's rule
    assert made["provable"]["request"] == {"roll": "sealdice_sc", "request": made["request"]}
    result = made["result"]
    assert result["rule"] == 3 and result["sanity"] == 60
    # SD-3 at D 0 by an independent reading: 01-05 succeed (rank 4), 96-00 fumble at maximum
    if result["roll"] <= 5:
        assert result["loss"] == 1
    elif result["roll"] >= 96:
        assert result["loss"] == 6 and result["maximised"]
    assert made["sheet"] == {"sanity": [60, result["sanity_after"]], "written": True}
    assert sheet_of(table, pat, alice)["skills"]["sanity"] == result["sanity_after"]
    # the roll's card is an action's: its title, its lines
    assert made["view"]["title"] == "SealDice .sc (setcoc 3)"
    assert made["view"]["rows"][0]["text"] == result["explanation"]
    assert "losses" not in made["odds"] and made["odds"]["success"]
    # drawn from the table's seed: the same seed, client seed and nonce give the same roll
    provable = made["provable"]
    source = ProvableSource(seed_of(table, pat), provable["client_seed"], provable["nonce"])
    again = sc_roll(ScRequest("1/1d6", 60), 3, source)
    assert again.to_dict() == result


def test_sd_w7_en_at_a_table_raises_the_sheet_s_skills_as_development_does(api: Api) -> None:
    table, pat, _, alice, _ = seated(api)
    made = words(table, table.gm, ".en Library Use spot", character_id=alice)
    assert made["roll"] == "sealdice_en"
    names = [s["name"] for s in made["request"]["skills"]]
    assert names == ["library use", "spot hidden"]  # two words one skill, as the sheet spells it
    assert made["request"]["setcoc"] == 0  # SealDice's default where the table sets none
    rolled = made["result"]["skills"]
    raised = {}
    for r, value in zip(rolled, (60, 45), strict=True):
        assert r["before"] == value
        assert r["improved"] == improves(0, value, r["roll"])  # rule: SD-W7
        assert r["after"] == value + (r["gain"] if r["improved"] else 0)
        if r["after"] != value:
            raised[r["name"]] = [value, r["after"]]
    assert made["sheet"] == {"skills": raised, "written": True}
    skills = sheet_of(table, pat, alice)["skills"]
    assert [skills["library use"], skills["spot hidden"]] == [r["after"] for r in rolled]
    assert len(made["odds"]["rolls"]) == 2


def test_sd_w6_a_hidden_sc_leaves_san_for_the_gm_and_tells_a_player_nothing(api: Api) -> None:
    table, pat, sam, alice, _ = seated(api)
    made = words(table, table.gm, ".sc 1/1d10", character_id=alice, visibility="gm")
    assert made["sheet"]["written"] is False
    assert sheet_of(table, pat, alice)["skills"]["sanity"] == 60
    for token in (pat, sam):
        seen = {e["seq"]: e for e in table.events(token)}[made["seq"]]
        assert seen["kind"] == "hidden" and "result" not in seen


def test_words_at_a_table_verify_and_a_changed_san_is_caught(api: Api, tmp_path: Path) -> None:
    table, pat, _, alice, ghoul = seated(api, house_rules={"setcoc": 2})
    words(table, pat, ".sc 1/1d6", character_id=alice)
    words(table, table.gm, ".en spot", character_id=alice)
    words(table, pat, ".sc 0/1d4", character_id=alice)  # reads the SAN the first one left
    words(table, table.gm, ".sc 1/1d4", character_id=ghoul)
    words(table, pat, ".ra spot", character_id=alice)
    table.ok("POST", "/seeds/rotate", table.gm)
    log = tmp_path / "log.jsonl"
    log.write_text(table.req("GET", "/log.jsonl", table.gm).text)
    run = d100("verify", "--json", str(log))
    out = json.loads(run.out)
    assert run.status == 0 and out["ok"] and out["verified"] == 5, out
    entries = [json.loads(x) for x in log.read_text().splitlines()]
    san = next(e for e in entries if e.get("roll") == "sealdice_sc")
    san["sheet"]["sanity"] = [60, 60]
    log.write_text("".join(json.dumps(e) + "\n" for e in relinked(entries)))
    run = d100("verify", "--json", str(log))
    found = json.loads(run.out)
    assert run.status == 1 and found["mismatch"] >= 1, found


def test_sd_w1_ra_at_a_table_is_a_check_of_the_sheet_s_skill(api: Api) -> None:
    table, pat, _, alice, _ = seated(api, house_rules={"setcoc": 2})
    made = words(table, pat, ".ra 困难Spot Hidden", character_id=alice)
    assert made["kind"] == "roll" and made["skill"] == "spot hidden"
    request = made["result"]["request"]
    assert request["skill"] == 45 and request["difficulty"] == "hard"
    assert request["house_rules"] == {"setcoc": 2}  # the table's (SD-W1)
    forced = words(table, pat, ".rc spot", character_id=alice)
    assert forced["result"]["request"]["house_rules"] == {"setcoc": 0}  # .rc: rule 0
    many = words(table, pat, ".ra 3#p spot", character_id=alice)
    rolls = [e for e in table.events(pat) if e["kind"] == "roll"]
    assert len(rolls) == 5 and rolls[-1]["seq"] == many["seq"]
    assert all(e["result"]["request"]["penalty_dice"] == 1 for e in rolls[-3:])


def test_sd_w3_rah_at_a_table_is_a_secret_roll_another_player_learns_nothing_from(
    api: Api,
) -> None:
    table, pat, sam, alice, _ = seated(api)
    made = words(table, pat, ".rah spot", character_id=alice)
    assert made["visibility"] == "gm" and "result" in made  # its roller sees it, as on Discord
    gm = {e["seq"]: e for e in table.events(table.gm)}[made["seq"]]
    assert gm["result"]["roll"] == made["result"]["roll"]
    seen = {e["seq"]: e for e in table.events(sam)}[made["seq"]]
    # to Sam: that a roll was made, with no character, skill, dice, level or odds
    assert seen["kind"] == "hidden" and set(seen) <= {"seq", "kind", "hidden", "provable", "head"}
    assert set(seen["provable"]) <= {"seed_id", "nonce"}
    line = [json.loads(x) for x in table.req("GET", "/log.jsonl", sam).text.splitlines()]
    assert {e["kind"] for e in line if e["seq"] == made["seq"]} == {"hidden"}
    # Sam asking for it is refused as for any roll hidden from him, naming nothing of it
    sam_own = words(table, sam, ".rah spot", 403, character_id=alice)
    assert "spot" not in json.dumps(sam_own).lower()


def test_sealdice_words_at_a_table_are_refused_naming_the_field(api: Api) -> None:
    table, pat, _, alice, _ = seated(api)
    for said, field, needle in (
        (".xyz 1", "words.quick", "unknown SealDice command"),
        (".sc 1/1d6 55", "words.sanity", "given twice"),  # SAN from the sheet once
        (".sc 1/1d6 @42", "words", "draws its dice"),
        (".en 侦查", "words", "unknown Alice's skill"),
        (".en Library Use 95", "words.library use", "given twice"),  # the sheet's is 60
        (".en spot95", "words.spot", "given twice"),
        (".en fakeskill50", "words", "unknown Alice's skill"),
        (".ra 侦查50", "words", "name it alone"),
    ):
        refused = words(table, table.gm, said, 422, character_id=alice)
        assert refused["field"].startswith(field) and needle in refused["message"], refused
    no_one = words(table, pat, ".ra spot", 422)
    assert no_one["field"] == "character_id"
    no_san = words(table, pat, ".sc 1/1d6", 422)  # no character and no SAN typed
    assert no_san["field"].startswith("words")
    bare = words(table, pat, ".sc 1/1d6 50")  # no character: the SAN typed, no sheet written
    assert bare["result"]["sanity"] == 50 and "sheet" not in bare


def test_sd_w7_en_at_a_table_is_the_gm_s_development_a_player_may_not_raise_a_skill(
    api: Api,
) -> None:
    """A player's own ``.en`` raised any skill at will, as often as asked, by any gain typed
    (``.en spot hidden +100d10`` left Spot Hidden at 605): a development phase, the GM's
    alone (a value typed beside the sheet's is refused to anyone: ``.en sanity 1`` set SAN
    to 11)."""
    table, pat, _, alice, _ = seated(api)
    for said in (".en spot hidden +100d10", ".en Library Use"):
        refused = words(table, pat, said, 403, character_id=alice)
        assert "development" in refused["message"], refused
        asked = {"words": said, "character_id": alice}
        assert table.req("POST", "/declared-odds", pat, json=asked).status_code == 403
    skills = sheet_of(table, pat, alice)["skills"]
    assert [skills["spot hidden"], skills["sanity"], skills["library use"]] == [45, 60, 60]
    assert [e for e in table.events(pat) if e["kind"] == "declared"] == []


def asks(table: Table, token: str, said: str) -> str:
    """What a word that sets nothing answers at the table: words, no event."""
    out = table.ok("POST", "/declared-rolls", token, 200, json={"words": said})
    assert set(out) == {"told"}, out
    told: str = out["told"]
    return told


def test_sd_w8_setcoc_alone_is_any_member_s_question_answered_and_not_logged(api: Api) -> None:
    from d100.systems.coc7_setcoc import RULES

    table, pat, sam, _, _ = seated(api)
    logged = len(table.events(table.gm))
    default = f"SealDice rule 0 (SealDice's default: no rule set): {RULES['0'].summary}"
    assert asks(table, pat, ".setcoc") == default  # a player may ask
    assert len(asks(table, sam, ".setcoc details").splitlines()) == len(RULES)
    assert ".setcoc N" in asks(table, pat, ".setcoc help")
    other = asks(table, table.gm, ".setcoc 9")  # anything else: the rule, set nothing
    assert other.startswith(default) and "0, 1, 2, 3, 4, 5 or dg" in other
    assert len(table.events(table.gm)) == logged  # nothing logged for a question
    assert "setcoc" not in table.ok("GET", "", pat)["table"]["house_rules"]
    words(table, table.gm, ".setcoc dg")  # only the GM sets
    assert words(table, pat, ".setcoc 2", 403)["message"]
    assert asks(table, sam, ".setcoc") == f"SealDice rule dg: {RULES['dg'].summary}"
    odds = table.req("POST", "/declared-odds", pat, json={"words": ".setcoc"})
    assert odds.status_code == 422 and "not a roll" in odds.text


# rule: SD-W5
def test_sd_w5_at_someone_rolls_that_character_s_sheet_where_the_roller_may(api: Api) -> None:
    table, pat, sam, alice, ghoul = seated(api)
    made = words(table, pat, ".ra 困难spot @alice")  # no character chosen: the words name her
    assert made["kind"] == "roll" and made["skill"] == "spot hidden"
    assert made["character"]["id"] == alice
    assert made["result"]["request"]["difficulty"] == "hard"
    gm = words(table, table.gm, ".ra spot @Alice", character_id=ghoul)  # @ wins over the box
    assert gm["character"]["id"] == alice
    # another's character: refused before its sheet is read (no skill's name tells of it)
    for said in (".ra spot @Ghoul", ".ra nosuchskill @Ghoul"):
        refused = table.req("POST", "/declared-rolls", pat, json={"words": said})
        assert refused.status_code == 403, refused.text
    theirs = table.req("POST", "/declared-rolls", sam, json={"words": ".ra spot @Alice"})
    assert theirs.status_code == 403, theirs.text
    nobody = words(table, pat, ".ra spot @Nobody", 422)
    assert nobody["field"] == "words" and "Alice" in nobody["allowed"]
    assert "Ghoul" in nobody["allowed"]  # every member reads the names


# rule: SD-W1
def test_an_english_skill_name_with_a_modifier_glued_to_its_last_word(api: Api) -> None:
    table, pat, _, alice, _ = seated(api)
    made = words(table, pat, ".ra spot hidden+20", character_id=alice)
    assert made["skill"] == "spot hidden"
    assert made["result"]["request"]["modifiers"] == [20]
    assert made["result"]["request"]["skill"] == 45
