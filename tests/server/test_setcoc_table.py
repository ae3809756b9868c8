"""SealDice's ``.setcoc`` at a table (SD-W8, decision S9): the GM's word sets the table's
``setcoc`` house rule from then on, logged as a ``house_rules`` event with the rules before and
after and the rule's words; every roll after it (``.ra``, ``.sc``, ``.en``, a check, odds) is
judged by it; a player is refused as for any GM action; ``d100 verify`` replays the change and
holds each roll to the rules of its moment."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from d100.systems.coc7_setcoc import RULES
from tests.cli.conftest import d100

from .forging import relinked
from .tablehelp import SHEETS, Api, Table
from .test_sealdice_table import SHEET, seated, words


@pytest.fixture(autouse=True)
def sheets() -> Iterator[None]:
    SHEETS["coc7"] = SHEET
    yield
    del SHEETS["coc7"]


def verify(log: Path, entries: list[dict[str, Any]] | None = None) -> Any:
    if entries is not None:
        log.write_text("".join(json.dumps(e) + "\n" for e in relinked(entries)))
    run = d100("verify", "--json", str(log))
    return run.status, json.loads(run.out)


def exported(table: Table, tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    table.ok("POST", "/seeds/rotate", table.gm)
    log = tmp_path / "log.jsonl"
    log.write_text(table.req("GET", "/log.jsonl", table.gm).text)
    return log, [json.loads(x) for x in log.read_text().splitlines()]


def test_sd_w8_the_gm_s_setcoc_sets_the_table_s_rule_for_every_later_roll(api: Api) -> None:
    table, pat, sam, alice, _ = seated(api, house_rules={"allow_push_fumbles": True})
    before = words(table, pat, ".ra spot", character_id=alice)
    assert before["result"]["request"]["house_rules"] == {"allow_push_fumbles": True, "setcoc": 0}
    kept = table.ok("GET", "", pat)["table"]["house_rules"]
    assert kept["allow_push_fumbles"] is True and "setcoc" not in kept
    made = words(table, table.gm, ".setcoc 2")
    told = f"SealDice rule 2: {RULES['2'].summary}"
    assert made["kind"] == "house_rules" and made["told"] == told
    assert made["before"] == kept and made["after"] == kept | {"setcoc": 2}
    assert made["words"] == ".setcoc 2"
    for token in (pat, sam):  # every member sees the line
        seen = {e["seq"]: e for e in table.events(token)}[made["seq"]]
        assert seen["kind"] == "house_rules" and seen["told"] == told
    assert table.ok("GET", "", pat)["table"]["house_rules"] == made["after"]
    ra = words(table, pat, ".ra spot", character_id=alice)
    assert ra["result"]["request"]["house_rules"]["setcoc"] == 2
    sc = words(table, pat, ".sc 1/1d6", character_id=alice)
    assert sc["request"]["setcoc"] == 2 and sc["result"]["rule"] == 2
    en = words(table, table.gm, ".en spot", character_id=alice)
    assert en["request"]["setcoc"] == 2
    check = table.roll(pat, alice, "spot hidden")
    assert check["result"]["request"]["house_rules"]["setcoc"] == 2
    rc = words(table, pat, ".rc spot", character_id=alice)  # .rc: rule 0, whatever the table's
    assert rc["result"]["request"]["house_rules"]["setcoc"] == 0


def test_sd_w8_rule_2_odds_at_the_table_follow_the_change(api: Api) -> None:
    """Skill 45 under rule 2 (SD-2): 01-05 critical where they succeed, fumble 96-00: the
    table's odds of a check, counted by hand from the rule's words."""
    table, pat, _, alice, _ = seated(api)
    asked = {"actor": {"character_id": alice, "skill": "spot hidden"}}
    old = table.ok("POST", "/odds", pat, json=asked)
    words(table, table.gm, ".setcoc 2")
    new = table.ok("POST", "/odds", pat, json=asked)
    assert old["odds"]["levels"]["critical"] == "1/100"  # the rulebook's 01 alone
    # counted by hand: 01-05 critical, 06-09 extreme, 10-22 hard, 23-45 regular, 96-00 fumble
    counts = {"critical": 5, "extreme": 4, "hard": 13, "regular": 23, "failure": 50, "fumble": 5}
    assert new["odds"]["levels"] == {k: str(Fraction(n, 100)) for k, n in counts.items()}


def test_sd_w8_a_player_may_not_set_the_rule_and_a_bad_value_names_the_allowed(
    api: Api,
) -> None:
    table, pat, _, _, _ = seated(api)
    refused = words(table, pat, ".setcoc 2", 403)
    assert "house rules" in refused["message"], refused
    for said in (".setcoc 6", ".setcoc x"):  # anything else says the rule, sets nothing
        told = table.ok("POST", "/declared-rolls", table.gm, 200, json={"words": said})["told"]
        assert told.startswith("SealDice rule 0 (") and "0, 1, 2, 3, 4, 5 or dg" in told
    assert "setcoc" not in table.ok("GET", "", pat)["table"]["house_rules"]
    assert [e for e in table.events(pat) if e["kind"] == "house_rules"] == []
    odds = table.req("POST", "/declared-odds", table.gm, json={"words": ".setcoc 2"})
    assert odds.status_code == 422 and "not a roll" in odds.text


def test_sd_w8_a_setcoc_beside_a_rule_it_replaces_is_refused(api: Api) -> None:
    table, _, _, _, _ = seated(api, house_rules={"critical_difficulty_fumbles": True})
    bad = words(table, table.gm, ".setcoc 2", 422)
    assert bad["field"].startswith("words") and "setcoc" in bad["message"], bad


def test_sd_w8_verify_replays_the_change_and_catches_a_forged_one(api: Api, tmp_path: Path) -> None:
    table, pat, _, alice, _ = seated(api)
    words(table, pat, ".ra spot", character_id=alice)
    words(table, table.gm, ".setcoc 3")
    words(table, pat, ".ra spot", character_id=alice)
    words(table, pat, ".rc spot", character_id=alice)
    words(table, pat, ".sc 1/1d6", character_id=alice)
    table.roll(pat, alice, "spot hidden")
    log, entries = exported(table, tmp_path)
    status, out = verify(log)
    assert status == 0 and out["ok"] and out["verified"] == 5, out
    # a change whose rules before are not the table's then
    forged = json.loads(json.dumps(entries))
    change = next(e for e in forged if e["kind"] == "house_rules")
    change["before"] = {"setcoc": 1}
    status, out = verify(log, forged)
    assert status == 1 and any("house rules" in c["reason"] for c in out["checks"]), out
    # a change to a rule the system does not take
    forged = json.loads(json.dumps(entries))
    change = next(e for e in forged if e["kind"] == "house_rules")
    change["after"] = {"setcoc": 9}
    status, out = verify(log, forged)
    assert status == 1 and out["mismatch"] >= 1, out
    # a change left out of the log: the rolls after it were judged by another rule
    forged = json.loads(json.dumps(entries))
    change = next(e for e in forged if e["kind"] == "house_rules")
    change["after"] = {}
    status, out = verify(log, forged)
    assert status == 1 and out["mismatch"] >= 2, out


def test_sd_w8_verify_catches_rolls_judged_by_another_rule_than_the_change_s(
    api: Api, tmp_path: Path
) -> None:
    table, pat, _, alice, _ = seated(api)
    words(table, table.gm, ".setcoc 2")
    made = table.roll(pat, alice, "spot hidden")
    sc = words(table, pat, ".sc 1/1d6", character_id=alice)
    log, entries = exported(table, tmp_path)
    assert verify(log)[0] == 0
    # the change said another rule than the rolls after it were judged by
    forged = json.loads(json.dumps(entries))
    change = next(e for e in forged if e["kind"] == "house_rules")
    change["after"] = change["after"] | {"setcoc": 3}
    status, out = verify(log, forged)
    mismatched = {c["seq"]: c["reason"] for c in out["checks"] if c["status"] == "mismatch"}
    assert status == 1 and set(mismatched) == {made["seq"], sc["seq"]}, out
    assert "the table's house rules then give 3" in mismatched[made["seq"]]
    assert "the table's house rules then give 3" in mismatched[sc["seq"]]
