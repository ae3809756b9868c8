"""Dice expressions and Sanity rolls at a table (``/declared-rolls``): drawn from the table's
provable seeds, logged with their exact odds and reading, seen as any roll in its mode, a
Sanity roll's SAN written back to the sheet only where every reader of it sees the roll, and
every one recomputed by ``d100 verify`` from an export."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from d100 import expressions, sanity
from d100.provable import ProvableSource
from tests.cli.conftest import d100

from .forging import relinked
from .tablehelp import SHEETS, Api, Table

pytestmark = pytest.mark.sqlite_only(
    "Declared rolls' rules, odds, secrecy and verify. Every kind of event they log (dice "
    "and Sanity rolls, blind ones shown) is stored, read and exported on both databases "
    "by test_event_schemas.py, and a roll's sheet writes by test_lock.py."
)


SHEET = """name = "{name}"
system = "coc7"
luck = {{ current = 50, maximum = 99 }}
characteristics = {{ STR = 80, SIZ = 70 }}
skills = {{ "spot hidden" = 45, sanity = 60, int = 70, "cthulhu mythos" = 5, brawl = 60 }}
"""


@pytest.fixture(autouse=True)
def sheets() -> Iterator[None]:
    SHEETS["coc7"] = SHEET
    yield
    del SHEETS["coc7"]


def seated(api: Api, system: str = "coc7") -> tuple[Table, str, str, str]:
    table = api.table(system)
    pat = table.join("Pat")
    return table, pat, table.character(pat, "Alice"), table.character(table.gm, "Ghoul")


def declared(table: Table, token: str, words: str, status: int = 201, **extra: Any) -> Any:
    """The roll's view, or a refusal's error (its field, value, allowed and message)."""
    out = table.ok("POST", "/declared-rolls", token, status, json={"words": words, **extra})
    return out if status == 201 else out["error"]


def san_of(table: Table, token: str, character_id: str) -> int:
    mine = {c["id"]: c for c in table.ok("GET", "", token)["characters"]}
    value: int = mine[character_id]["skills"]["sanity"]
    return value


def test_a_dice_roll_is_drawn_provably_with_its_exact_odds(api: Api) -> None:
    table, pat, alice, _ = seated(api, "brp")
    made = declared(table, pat, "1d6 + 1d4", character_id=alice)
    assert made["kind"] == "declared" and made["roll"] == "dice" and made["words"] == "1d6 + 1d4"
    result, view = made["result"], made["view"]
    assert 2 <= result["total"] <= 10 and view["total"] == result["total"]
    # the odds are the expression's exact distribution, and the card's chance is its total's
    chance = expressions.odds("1d6+1d4")
    assert Fraction(view["chance"]) == chance.chance(result["total"])
    assert made["odds"]["mean"] == "6/1" or Fraction(made["odds"]["mean"]) == Fraction(6)
    # drawn from the table's seed: the same seed, client seed and nonce give the same dice
    assert made["provable"]["request"] == {"roll": "dice", "request": {"expression": "1d6+1d4"}}
    bonus = declared(table, pat, "2d6+DB db=+1d4", character_id=alice)
    assert bonus["request"] == {"expression": "2d6+DB", "damage_bonus": "+1d4"}
    assert 3 <= bonus["result"]["total"] <= 16
    no_bonus = declared(table, pat, "2d6+DB", 422)
    assert no_bonus["field"] == "words.damage_bonus"
    nobody = declared(table, table.gm, "3d6")
    assert "character" not in nobody and nobody["result"]["total"] >= 3


def test_a_sanity_roll_reads_the_sheet_and_writes_san_back(api: Api) -> None:  # rule: S7-2
    table, pat, alice, _ = seated(api)
    made = declared(table, pat, "sc 1/1d6", character_id=alice)
    result = made["result"]
    assert made["roll"] == "sanity" and result["sanity"] == 60
    assert made["request"]["intelligence"] == 70 and made["request"]["mythos"] == 5
    # S7-2: a success loses A, a failure B, a fumble B at its maximum
    if result["success"]:
        assert result["loss"] == 1
    elif result["level"] == "fumble":
        assert result["loss"] == 6
    else:
        assert 1 <= result["loss"] <= 6
    assert made["sheet"] == {"sanity": [60, 60 - result["loss"]], "written": True}
    assert san_of(table, pat, alice) == 60 - result["loss"]
    # the odds beside it are the library's exact ones for the request the sheet made
    exact = sanity.odds(made["request"])
    assert Fraction(made["view"]["success_odds"]) == exact.success
    # S7-1: d100 against the current SAN, 01..60 succeed
    assert Fraction(made["odds"]["success"]) == Fraction(60, 100)  # rule: S7-1


def test_db_is_read_from_the_character_s_sheet(api: Api) -> None:  # rule: S7-11
    """``DB`` in a character's dice is its sheet's damage bonus (STR 80 + SIZ 70: +1D4) unless
    the words say otherwise; an NPC's stays out of what a player sees of the roll."""
    table, pat, alice, ghoul = seated(api)
    made = declared(table, pat, "1d8+DB", character_id=alice)
    assert made["request"] == {"expression": "1d8+DB", "damage_bonus": "+1d4"}
    assert 2 <= made["result"]["total"] <= 12 and Fraction(made["view"]["mean"]) == 7
    told = declared(table, pat, "1d8+DB db=-1", character_id=alice)
    assert told["request"]["damage_bonus"] == "-1"
    nobody = declared(table, pat, "1d8+DB", 422)
    assert nobody["field"] == "words.damage_bonus" and nobody["value"] is None
    npc = declared(table, table.gm, "1d8+DB", character_id=ghoul)
    shown = {e["seq"]: e for e in table.events(pat)}[npc["seq"]]
    assert shown["view"] == {"title": "1d8+DB", "total": npc["result"]["total"]}
    assert "+1d4" not in json.dumps(shown) and "mean" not in json.dumps(shown)


def test_attacks_and_firearms_roll_at_the_table_and_verify(
    api: Api, tmp_path: Path
) -> None:  # rule: S7-6, S7-13, S7-14
    """An attack led by a skill of the sheet, with the sheet's DB; several shots; full auto
    (its odds dear: worked out on a worker first); FAR: each drawn from the table's seeds,
    shown with its rows and chances, and recomputed by verify from every member's export."""
    table, pat, alice, ghoul = seated(api)
    hit = declared(table, pat, "brawl dmg=1d3+DB impale Punch", character_id=alice)
    assert hit["roll"] == "attack" and hit["words"] == "brawl dmg=1d3+DB impale Punch"
    assert hit["request"] == {
        "skill": 60,
        "damage": "1d3+DB",
        "damage_bonus": "+1d4",
        "impaling": True,
    }
    assert hit["odds"]["hit"] == "3/5" and "damage" not in hit["odds"]  # rule: C7-1
    view = hit["view"]
    assert view["title"].endswith("attack — skill 60; damage 1d3+DB with DB +1d4, impaling")
    assert (
        view["rows"][0]["label"] == "attack" and view["rows"][0]["level"] == hit["result"]["level"]
    )
    assert view["odds"][0] == {"what": "a hit", "chance": "3/5"}
    shots = declared(table, pat, "45 shots2 dmg=1d10 long", visibility="gm")
    assert shots["roll"] == "shots" and len(shots["result"]["fired"]) in (1, 2)
    auto = declared(table, table.gm, "62 auto30 volley4 dmg=1d8 mal98")
    assert auto["roll"] == "full_auto" and "malfunction" in auto["odds"]
    far = declared(table, pat, "FAR(30,62,98)")
    assert far["roll"] == "far" and far["view"]["outcome"].endswith("impaling")
    refused = declared(table, pat, "60 dmg=1d6 @05", 422)
    assert refused["field"] == "words" and "draws its dice" in refused["message"]
    brp, brp_pat, _, _ = seated(api, "brp")
    elsewhere = declared(brp, brp_pat, "60 dmg=1d6", 422)
    assert elsewhere["field"] == "words"
    # an NPC's attack tells a player its outcome, not its skill, its DB or its dice
    npc = declared(table, table.gm, "brawl dmg=1d3+DB", character_id=ghoul)
    shown = {e["seq"]: e for e in table.events(pat)}[npc["seq"]]
    assert shown["withheld"] == ["actor"] and "odds" not in shown and "request" not in shown
    assert set(shown["view"]) == {"title", "outcome"}
    assert shown["view"]["title"] == "Call of Cthulhu 7th edition attack"
    assert shown["result"] == {"level": npc["result"]["level"], "outcome": npc["result"]["outcome"]}
    assert "+1d4" not in json.dumps(shown) and "skill" not in json.dumps(shown)
    table.ok("POST", "/seeds/rotate", table.gm)
    for token, checked in ((table.gm, 5), (pat, 4)):
        log = tmp_path / "log.jsonl"
        log.write_text(table.req("GET", "/log.jsonl", token).text)
        run = d100("verify", "--json", str(log))
        out = json.loads(run.out)
        assert run.status == 0 and out["ok"] and out["verified"] == checked, out
    entries = [json.loads(x) for x in log.read_text().splitlines()]
    forged = next(e for e in entries if e.get("roll") == "attack")
    forged["result"]["damage"] += 1
    log.write_text("".join(json.dumps(e) + "\n" for e in relinked(entries)))
    run = d100("verify", "--json", str(log))
    assert run.status != 0 and json.loads(run.out)["mismatch"] == 1


def test_san_given_twice_and_words_that_are_no_roll_are_refused(api: Api) -> None:
    table, pat, alice, _ = seated(api)
    twice = declared(table, pat, "sc 1/1d6 55", 422, character_id=alice)
    assert twice["field"] == "words.sanity" or "sanity" in twice["field"]
    nothing = declared(table, pat, "hello there", 422)
    assert nothing["field"] == "words" and "dice expression" in nothing["allowed"]
    no_san = declared(table, pat, "sc 1/1d6", 422)  # no character, no SAN in the words
    assert no_san["field"].startswith("words")
    typed = declared(table, pat, "sc 1/1d6 @42", 422, character_id=alice)
    assert "@DICE" in typed["allowed"]
    unknown = declared(table, pat, "1d6", 422, visibility="nobody")
    assert unknown["field"] == "visibility" and "blind" in unknown["allowed"]
    other = declared(table, pat, "1d6", 403, character_id=table.character(table.gm, "Bob"))
    assert other["field"]
    brp, sam, _, _ = seated(api, "brp")
    no_sanity = declared(brp, sam, "sc 1/1d6 50", 422)
    assert no_sanity["field"].startswith("words")


def test_a_secret_sanity_roll_of_a_player_s_character_tells_the_player_nothing(
    api: Api,
) -> None:  # rule: S7-2
    """The GM's gm roll of Alice: Pat sees a stub, in the answer, the log and the export, and
    Alice's sheet keeps its SAN (a SAN changed on Pat's sheet would tell the loss)."""
    table, pat, alice, _ = seated(api)
    made = declared(table, table.gm, "sc 1/1d10", character_id=alice, visibility="gm")
    assert made["sheet"]["written"] is False and "result" in made
    assert san_of(table, pat, alice) == 60 == san_of(table, table.gm, alice)
    seen = {e["seq"]: e for e in table.events(pat)}[made["seq"]]
    seen.pop("head", None)  # the log's head as it stood (d100.chain): the stub's own
    assert seen == {
        "seq": made["seq"],
        "kind": "hidden",
        "hidden": True,
        "provable": {"seed_id": made["provable"]["seed_id"], "nonce": 0},
    } or (seen["kind"] == "hidden" and set(seen) == {"seq", "kind", "hidden", "provable"})
    line = [json.loads(x) for x in table.req("GET", "/log.jsonl", pat).text.splitlines()]
    assert {e["kind"] for e in line if e["seq"] == made["seq"]} == {"hidden"}
    # the player's own gm roll is seen by every reader of the sheet: it writes SAN
    own = declared(table, pat, "sc 0/1", character_id=alice, visibility="gm")
    assert own["sheet"]["written"] is True
    assert san_of(table, pat, alice) == own["result"]["sanity_after"]
    # a self roll is hidden from the GM, a reader of the sheet: SAN stays
    kept = declared(table, pat, "sc 1/1", character_id=alice, visibility="self")
    assert kept["sheet"]["written"] is False
    assert san_of(table, pat, alice) == own["result"]["sanity_after"]
    assert {e["seq"]: e for e in table.events(table.gm)}[kept["seq"]]["kind"] == "hidden"


def test_an_npc_s_sanity_roll_shows_players_its_outcome_only(api: Api) -> None:
    table, pat, _, ghoul = seated(api)
    made = declared(table, table.gm, "sc 1/1d6", character_id=ghoul)
    shown = {e["seq"]: e for e in table.events(pat)}[made["seq"]]
    assert shown["withheld"] == ["actor"]
    assert "request" not in shown and "odds" not in shown and "sheet" not in shown
    assert "request" not in shown["provable"] and "sanity" not in shown["result"]
    assert shown["result"]["level"] == made["result"]["level"]
    assert "sanity" not in shown["view"] and "dice" not in shown["view"]


def test_an_export_with_dice_and_sanity_rolls_verifies(api: Api, tmp_path: Path) -> None:
    table, pat, alice, ghoul = seated(api)
    declared(table, pat, "1d6+1", character_id=alice)
    declared(table, pat, "sc 1/1d6", character_id=alice)
    declared(table, table.gm, "2d6", visibility="gm")
    declared(table, table.gm, "sc 1/1d4", character_id=ghoul)
    table.ok("POST", "/seeds/rotate", table.gm)
    for token, checked in ((table.gm, 4), (pat, 2)):
        log = tmp_path / "log.jsonl"
        log.write_text(table.req("GET", "/log.jsonl", token).text)
        run = d100("verify", "--json", str(log))
        out = json.loads(run.out)
        assert run.status == 0 and out["ok"], out
        assert out["verified"] == checked and out["mismatch"] == 0
    # a die changed in the log is caught by the roll's own check, the links recomputed
    # (tests/server/forging.py: an edit the chain alone would catch is no test of the roll's)
    entries = [json.loads(x) for x in log.read_text().splitlines()]
    rolled = next(e for e in entries if e["kind"] == "declared" and e.get("roll") == "dice")
    rolled["result"]["total"] += 1
    log.write_text("".join(json.dumps(e) + "\n" for e in relinked(entries)))
    run = d100("verify", "--json", str(log))
    assert run.status != 0 and json.loads(run.out)["mismatch"] == 1
    # so is a card or a sheet showing other numbers than the dice give
    rolled["result"]["total"] -= 1
    rolled["view"]["total"] += 1
    san = next(e for e in entries if e["kind"] == "declared" and e.get("roll") == "sanity")
    san["sheet"]["sanity"] = [60, 60]
    log.write_text("".join(json.dumps(e) + "\n" for e in relinked(entries)))
    run = d100("verify", "--json", str(log))
    found = json.loads(run.out)
    assert run.status == 1 and found["mismatch"] == 2, found
    reasons = [c["reason"] for c in found["checks"] if c["status"] == "mismatch"]
    assert any("card shows total" in r for r in reasons), reasons
    assert any("sheet shows SAN" in r or "card shows" in r for r in reasons), reasons


def test_the_dice_recompute_from_the_table_s_seed(api: Api) -> None:
    table, pat, alice, _ = seated(api, "brp")
    made = declared(table, pat, "2d10", character_id=alice)
    table.ok("POST", "/seeds/rotate", table.gm)
    seeds = [e for e in table.events(pat) if e["kind"] == "seed"]
    seed = bytes.fromhex(seeds[-1]["revealed"]["server_seed"])
    p = made["provable"]
    again = expressions.roll("2d10", ProvableSource(seed, p["client_seed"], p["nonce"]))
    assert list(again.dice) == made["result"]["dice"]


def test_dear_odds_are_worked_out_first_and_too_dear_ones_refused(api: Api) -> None:
    """The odds' cost is known before any work: past a cheap bound they are worked out on a
    worker, then the roll made; past the engine's budget the roll is refused, naming it."""
    table, pat, alice, _ = seated(api, "brp")
    # dear by its cost (past calculator.CHEAP) yet quick to work out: a loaded machine's
    # worker still meets its deadline
    dear = declared(table, pat, "8d1000", character_id=alice)
    assert 8 <= dear["result"]["total"] <= 8_000
    assert Fraction(dear["odds"]["mean"]) == Fraction(4004)
    refused = declared(table, pat, "100d1000", 422, character_id=alice)
    assert refused["kind"] == "too_much_work" and refused["field"] == "words.expression"
    assert refused["budget"] == 2_000_000
    # an attack's odds weigh its weapon's dice twice (its damage and an impale's): each under
    # the budget, together over it, refused as a dear expression is (rule: S7-6)
    coc7, player, vera, _ = seated(api)
    attack = declared(coc7, player, "60 dmg=50d1000", 422, character_id=vera)
    assert attack["kind"] == "too_much_work", attack


def test_an_attack_s_damage_odds_cost_what_their_estimate_says(api: Api) -> None:
    """An attack's damage odds weigh each total once: 10d1000 impaling (20,000 totals, an
    estimate of a tenth of a second) was worked out in seconds past the worker's deadline,
    summing every total's ways again for each total, and refused as too much work."""
    table, pat, alice, _ = seated(api)
    made = declared(table, pat, "brawl dmg=10d1000 impale", character_id=alice)
    assert made["roll"] == "attack" and made["odds"]["mean_damage"]


def test_a_roll_s_preview_answers_its_odds_as_the_roll_logs_them(api: Api) -> None:
    """``/declared-odds`` leaves out the chance of every total, as the roll's event does: a
    member's 50d1000 preview was the whole 30 MB table, asked again at will (20d1000's would
    be 20,000 rows, and is quick to work out on a loaded machine)."""
    table, pat, alice, _ = seated(api)
    for words in ("20d1000", "sc 1d100/1d100", "brawl dmg=1d1000"):
        body = {"words": words, "character_id": alice}
        preview = table.req("POST", "/declared-odds", pat, json=body)
        assert preview.status_code == 200 and len(preview.content) < 10_000, words
        made = declared(table, pat, words, character_id=alice)
        assert preview.json()["odds"] == made["odds"], words


def test_pulp_luck_spent_halving_a_loss_is_written_only_where_all_readers_see_it(
    api: Api,
) -> None:
    """P-2: twice the full loss in Luck halves it (rounded up); the Luck left is the sheet's,
    so a roll hidden from one of its readers may not spend it."""
    table, pat, alice, _ = seated(api)
    made = declared(table, pat, "sc 10/10 pulp", character_id=alice)
    assert made["result"]["loss"] == 5 and made["result"]["luck_spent"] == 20
    mine = {c["id"]: c for c in table.ok("GET", "", pat)["characters"]}[alice]
    assert mine["luck"]["current"] == 30 and mine["skills"]["sanity"] == 55
    secret = declared(table, table.gm, "sc 10/10 pulp", 422, character_id=alice, visibility="gm")
    assert secret["field"] == "visibility" and "Luck" in secret["message"]
    after = {c["id"]: c for c in table.ok("GET", "", pat)["characters"]}[alice]
    assert after["luck"]["current"] == 30 and after["skills"]["sanity"] == 55


def test_a_blind_sanity_roll_is_the_gm_s_until_shown_and_then_verifies(
    api: Api, tmp_path: Path
) -> None:  # rule: S7-2
    """Pat's blind Sanity roll: Pat sees that it was made and its odds, not its result, nor
    their SAN changed; the GM shows it to everyone, and the blind seed's reveal then lets
    every export verify it."""
    table, pat, alice, _ = seated(api)
    made = declared(table, pat, "sc 1/1d6", character_id=alice, visibility="blind")
    assert made["hidden"] is True and "result" not in made and "view" not in made
    assert "sheet" not in made and made["odds"]["success"] == "3/5"
    assert san_of(table, pat, alice) == 60  # kept from Pat: the sheet stays
    gm_view = {e["seq"]: e for e in table.events(table.gm)}[made["seq"]]
    assert gm_view["sheet"] == {"sanity": [60, gm_view["result"]["sanity_after"]], "written": False}
    sam = table.join("Sam")
    assert {e["seq"]: e for e in table.events(sam)}[made["seq"]]["kind"] == "hidden"
    shown = table.ok("POST", f"/rolls/{made['seq']}/unblind", table.gm, 201)
    assert shown["kind"] == "unblind_declared" and shown["unblinds"] == made["seq"]
    assert shown["view"]["sanity_after"] == gm_view["result"]["sanity_after"]
    assert {e["seq"]: e for e in table.events(sam)}[shown["seq"]]["result"] == gm_view["result"]
    table.ok("POST", "/seeds/rotate", table.gm)
    for token in (table.gm, pat, sam):
        log = tmp_path / "log.jsonl"
        log.write_text(table.req("GET", "/log.jsonl", token).text)
        run = d100("verify", "--json", str(log))
        out = json.loads(run.out)
        assert run.status == 0 and out["ok"] and out["mismatch"] == 0, out
        assert out["verified"] >= 1


def test_a_blind_attack_is_the_gm_s_until_shown_and_then_verifies(
    api: Api, tmp_path: Path
) -> None:  # rule: S7-6
    """Pat's blind attack: Pat learns that it was made, not how it went; shown by the GM, its
    report reaches everyone and every export verifies it."""
    table, pat, alice, _ = seated(api)
    made = declared(table, pat, "brawl dmg=1d3+DB", character_id=alice, visibility="blind")
    assert made["hidden"] is True and "result" not in made and "view" not in made
    shown = table.ok("POST", f"/rolls/{made['seq']}/unblind", table.gm, 201)
    assert shown["kind"] == "unblind_declared" and shown["roll"] == "attack"
    assert shown["view"]["rows"][0]["label"] == "attack"
    table.ok("POST", "/seeds/rotate", table.gm)
    for token in (table.gm, pat):
        log = tmp_path / "log.jsonl"
        log.write_text(table.req("GET", "/log.jsonl", token).text)
        out = json.loads(d100("verify", "--json", str(log)).out)
        assert out["ok"] and out["mismatch"] == 0 and out["verified"] >= 1, out


DG_SHEET = """name = "{name}"
system = "delta-green"
skills = {{ SAN = 50, search = 40 }}
"""


def test_dg_5_a_san_test_writes_san_back_where_every_reader_sees_it(
    api: Api, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A Delta Green SAN test's loss leaves SAN on the sheet as a CoC7 Sanity roll's does:
    written where the agent's player and the GM both see the roll, kept otherwise."""
    monkeypatch.setitem(SHEETS, "delta-green", DG_SHEET)
    table = api.table("delta-green")
    pat = table.join("Pat")
    agent = table.character(pat, "Agent")
    tested = {"fields": {"test": "sanity", "san_loss": "1d4/1d6+1"}}

    def san() -> int:
        mine = {c["id"]: c for c in table.ok("GET", "", table.gm)["characters"]}
        value: int = mine[agent]["skills"]["SAN"]
        return value

    made = table.roll(pat, agent, "SAN", actor=tested)
    result = made["result"]
    lost = int(result["note"].split(" = ")[1].split(";")[0])  # the loss the card tells
    assert 1 <= lost <= 7 and result["skill_after"] == 50 - lost == san()
    now = san()
    for token, visibility in ((pat, "self"), (table.gm, "gm"), (pat, "blind")):
        kept = table.roll(token, agent, "SAN", visibility=visibility, actor=tested)
        assert kept["seq"] and san() == now  # the GM or Pat may not see it: the sheet stays
    seen = table.roll(pat, agent, "SAN", visibility="gm", actor=tested)
    assert san() == seen["result"]["skill_after"]  # the player's own gm roll: both see it
    plain = table.roll(pat, agent, "search", actor={"fields": {}})
    assert "skill_after" not in plain["result"]  # a test with no loss leaves the sheet be
    # a later SAN test's target is the SAN written: the replayed log agrees (d100 verify)
    again = table.roll(pat, agent, "SAN", actor=tested)
    assert again["result"]["request"]["skill"] == seen["result"]["skill_after"]
    for token in (table.gm, pat):
        log = tmp_path / "log.jsonl"
        log.write_text(table.req("GET", "/log.jsonl", token).text)
        out = json.loads(d100("verify", "--json", str(log)).out)
        assert out["ok"] and out["mismatch"] == 0, json.dumps(out)[:3000]


def test_an_attack_s_card_edited_fails_against_a_witnessed_head(api: Api, tmp_path: Path) -> None:
    """An attack's card (what it came to, its rows) is worked out from its result, so the
    chain does not bind it: its damage edited on the card fails naming the roll, even
    against the head its member saw."""
    table, pat, alice, _ = seated(api)
    hit = declared(table, pat, "brawl dmg=1d3+DB Punch", character_id=alice)
    table.ok("POST", "/seeds/rotate", table.gm)
    log = [json.loads(line) for line in table.req("GET", "/log.jsonl", pat).text.splitlines()]
    head = log[-1]["head"]
    entry = next(e for e in log if e["seq"] == hit["seq"])
    entry["view"]["outcome"] = "hit; 99 damage"
    path = tmp_path / "pat.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in log))
    run = d100("verify", str(path), "--head", f"{head['seq']}:{head['link']}")
    assert run.status == 1 and 'its card reads "hit; 99 damage"' in run.out, run.out
