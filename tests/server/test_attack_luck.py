"""Luck spent on an attack made at the table (C7-4, EDITIONS decision 7), never a push (C7-5):
offered on the attack's card while the sheet's Luck is more than the cost, taken through the
API as a follow-up of its own (the next nonce of the roll's chain draws its new damage), its
Luck written to the sheet, kept from a member who may not read the defender's sheet as the
attack is, and replayed by ``d100 verify``, which fails a forged spend."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import d100

from .forging import relinked
from .tablehelp import Api, Table
from .test_attack_defenders import BOB, BOBS, made, seen, tells_bob

SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
BOTH = pytest.mark.parametrize(
    "database_url",
    ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)],
    indirect=True,
)


def alice(luck: int) -> str:
    return f"""name = "Alice"
system = "coc7"
characteristics = {{ STR = 80, SIZ = 70 }}
skills = {{ brawl = 60 }}
luck = {{ current = {luck}, maximum = 99 }}
"""


def seated(api: Api, luck: int = 99) -> tuple[Table, dict[str, str], dict[str, str]]:
    """Pat plays Alice (brawl 60, DB +1d4), Sam plays Bob."""
    table = api.table("coc7")
    who = {name: table.join(name) for name in ("Pat", "Sam")}
    ids = {"alice": made(table, who["Pat"], alice(luck)), "bob": made(table, who["Sam"], BOB)}
    return table, who, ids


def costs_aside(view: Any, offers: list[dict[str, Any]], rolled: tuple[int, ...] = ()) -> Any:
    """The view with the offers' Luck costs, and the attacker's own ``rolled`` numbers, written
    as words: either may be one of Bob's values (an extreme bought from a roll of 55 costs 43;
    a roll of 47 lowered or not), which is no leak."""
    costs = sorted(
        {str(o[k]) for o in offers for k in ("luck", "needs") if o.get(k) is not None}
        | {str(n) for n in rolled},
        key=len,
        reverse=True,
    )
    cost = re.compile(rf"(?<![\d.])({'|'.join(costs)})(?!\d)") if costs else None

    def aside(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: aside(x) for k, x in v.items()}
        if isinstance(v, list):
            return [aside(x) for x in v]
        if cost is None or isinstance(v, bool) or not isinstance(v, str | int):
            return v
        return cost.sub("a cost", str(v)) if isinstance(v, str) or cost.fullmatch(str(v)) else v

    return aside(view)


def leaks(view: Any) -> list[str]:
    """Bob's values a view holds as numbers of their own (not digits of another number)."""
    told = json.dumps(view)
    return [v for v in BOBS if re.search(rf"(?<![\d.]){re.escape(v)}(?!\d)", told)]


def rolled(table: Table, token: str, alice_id: str, defender: dict[str, Any] | None) -> Any:
    body: dict[str, Any] = {"words": "brawl dmg=1d3+DB", "character_id": alice_id}
    if defender is not None:
        body["defender"] = defender
    return table.ok("POST", "/declared-rolls", token, 201, json=body)


def offered(
    table: Table,
    token: str,
    alice_id: str,
    defender: dict[str, Any] | None = None,
    key: str | None = "luck_regular",
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Attacks until one's card offers Luck (``key``; None: any): that attack and the offer
    (a roll of 61-99 misses and offers its regular: about one in three)."""
    for _ in range(80):
        event = rolled(table, token, alice_id, defender)
        offers = [o for o in event.get("follow_ups") or [] if key in (None, o["key"])]
        if offers:
            return event, offers[0]
    raise AssertionError(f"no attack offered {key} in 80")


def luck_of(table: Table, token: str, cid: str) -> Any:
    return {c["id"]: c for c in table.ok("GET", "", token)["characters"]}[cid]["luck"]


def follow(table: Table, token: str, seq: int, key: str | None, status: int = 201) -> Any:
    body = {} if key is None else {"follow_up": key}
    out = table.ok("POST", f"/rolls/{seq}/reroll", token, status, json=body)
    return out if status == 201 else out["error"]


@SQLITE
def test_c7_4_luck_bought_on_an_attack_redoes_it_and_spends_the_sheet_s_luck(api: Api) -> None:
    table, who, ids = seated(api)
    pat = who["Pat"]
    missed, offer = offered(table, pat, ids["alice"])
    roll = missed["result"]["roll"]
    assert missed["result"]["outcome"] == "miss" and missed["result"]["level"] == "failure"
    assert offer["key"] == "luck_regular" and offer["luck"] == roll - 60
    assert offer["gives"]["outcome"] == "hit" and offer["gives"]["mean_damage"] == "9/2"
    assert offer["gives"]["damage"] == {  # 1d3 + 1d4, S7-6
        "2": "1/12", "3": "1/6", "4": "1/4", "5": "1/4", "6": "1/6", "7": "1/12"
    }  # fmt: skip
    pushed = follow(table, pat, missed["seq"], "push", 409)
    assert pushed["field"] == "seq" and "never pushed (C7-5)" in pushed["message"]
    bought = follow(table, pat, missed["seq"], offer["key"])
    assert bought["kind"] == "declared" and bought["reroll_of"] == missed["seq"]
    assert bought["luck_spent"] == offer["luck"] and bought["follow_up"]["key"] == "luck_regular"
    result = bought["result"]
    assert (result["roll"], result["level"], result["outcome"]) == (roll, "regular", "hit")
    assert result["luck_spent"] == offer["luck"] and 2 <= result["damage"] <= 7
    assert result["damage"] == sum(result["damage_dice"])  # drawn anew
    assert bought["odds"]["outcomes"]["hit"] == "1/1"
    assert bought["provable"]["nonce"] == missed["provable"]["nonce"] + 1
    assert bought["provable"]["seed_id"] == missed["provable"]["seed_id"]
    assert luck_of(table, pat, ids["alice"]) == {"current": 99 - offer["luck"], "maximum": 99}
    again = follow(table, pat, missed["seq"], offer["key"], 409)
    assert "already followed up" in again["message"]
    extreme = [o for o in bought.get("follow_ups", []) if o["key"] == "luck_extreme"]
    assert [o["luck"] for o in extreme] == [max(0, 60 - 12)] or not extreme  # from 60 to 12
    typed = table.ok(
        "POST", f"/rolls/{bought['seq']}/reroll", pat, 422, json={"follow_up": "x", "dice": [5]}
    )
    assert typed["error"]["field"] in ("follow_up", "dice")


@SQLITE
def test_c7_4_no_luck_is_offered_unless_the_sheet_holds_more_than_the_cost(api: Api) -> None:
    table, who, ids = seated(api, luck=1)  # every spend costs at least 1
    pat = who["Pat"]
    for _ in range(12):
        event = rolled(table, pat, ids["alice"], None)
        assert "follow_ups" not in event
        if event["result"]["outcome"] == "miss" and event["result"]["level"] == "failure":
            refused = follow(table, pat, event["seq"], "luck_regular", 422)
            assert refused["field"] == "follow_up" and "not offered" in refused["message"]
            nothing = follow(table, pat, event["seq"], None, 409)
            assert "never pushed (C7-5)" in nothing["message"]
            break
    other = follow(table, who["Sam"], event["seq"], "luck_regular", 403)
    assert other["field"] == "seq"


@SQLITE
def test_c7_4_luck_on_an_attack_against_a_defender_keeps_their_sheet_from_the_roller(
    api: Api,
) -> None:
    """Alice attacks Bob (his Dodge from his sheet): Pat spends Luck on it; the follow-up, as
    the attack, tells Pat Bob's level only; Sam and the GM see it whole."""
    table, who, ids = seated(api)
    pat = who["Pat"]
    bob = {"character_id": ids["bob"]}
    first, offer = offered(table, pat, ids["alice"], bob, None)
    offers = list(first.get("follow_ups") or [])
    roll = seen(table, table.gm, first["seq"])["result"]["roll"]
    mine = (roll, *(roll - o["luck"] for o in offers))  # Alice's roll, and as Luck lowers it
    assert not leaks(costs_aside(offers, offers, mine))
    bought = follow(table, pat, first["seq"], offer["key"])
    gm = seen(table, table.gm, bought["seq"])
    assert gm["request"]["defender"] == 47 and gm["request"]["luck_to"] == offer["key"][5:]
    assert gm["result"]["outcome"] == offer["gives"]["outcome"]
    row = gm["view"]["rows"][0]["text"]
    for view in (bought, seen(table, pat, bought["seq"])):
        assert view["withheld"] == ["opponent"] and view["luck_spent"] == offer["luck"]
        offers += view.get("follow_ups") or []
        shown = costs_aside({k: v for k, v in view.items() if k != "follow_ups"}, offers)
        assert tells_bob(shown, row) == [], view
        assert not leaks(costs_aside(view.get("follow_ups", []), offers, mine))
    assert seen(table, who["Sam"], bought["seq"])["request"] == gm["request"]


@BOTH
def test_c7_4_verify_replays_luck_spent_on_an_attack_and_fails_a_forged_spend(
    api: Api, tmp_path: Path
) -> None:
    table, who, ids = seated(api)
    pat = who["Pat"]
    missed, offer = offered(table, pat, ids["alice"])
    bought = follow(table, pat, missed["seq"], offer["key"])
    table.ok("POST", "/seeds/rotate", table.gm)
    log = tmp_path / "log.jsonl"
    for token in (pat, who["Sam"], table.gm):  # the GM's last: forged below
        log.write_text(table.req("GET", "/log.jsonl", token).text)
        run = d100("verify", "--json", str(log))
        out = json.loads(run.out)
        assert run.status == 0 and out["ok"], json.dumps(out["checks"], indent=1)
        verified = {c["seq"]: c["status"] for c in out["checks"]}
        assert verified[bought["seq"]] == "verified", out["checks"]
    entries = [json.loads(x) for x in log.read_text().splitlines()]

    def forged(change: Any) -> list[str]:
        changed = json.loads(json.dumps(entries))
        change(changed)
        log.write_text("".join(json.dumps(e) + "\n" for e in relinked(changed)))
        run = d100("verify", "--json", str(log))
        found = json.loads(run.out)
        assert run.status == 1, found
        return [c["reason"] for c in found["checks"] if c["status"] == "mismatch"]

    def at(changed: list[Any], seq: int) -> Any:
        return next(e for e in changed if e.get("seq") == seq)

    def cheaper(changed: list[Any]) -> None:  # the sheet charged less than the spend costs
        at(changed, bought["seq"])["luck_spent"] = offer["luck"] - 1

    assert any(f"costs {offer['luck']}" in r for r in forged(cheaper))

    def poorer(changed: list[Any]) -> None:  # Alice made with no more Luck than it costs
        sheet = next(
            e for e in changed if e.get("character", {}).get("name") == "Alice" and "sheet" in e
        )
        sheet["sheet"]["luck"]["current"] = offer["luck"]

    reasons = forged(poorer)
    assert any(f"spends {offer['luck']} Luck, having {offer['luck']}" in r for r in reasons)

    def unoffered(changed: list[Any]) -> None:  # a spend that follows a roll it cannot
        at(changed, bought["seq"])["reroll_of"] = 1  # the table's opening

    reasons = forged(unoffered)
    assert any("follows roll #1, which this log does not show resolved" in r for r in reasons)
