"""Provable dice and blind rolls (a reveal never shows a blind result the GM has not shown),
and Idempotency-Key on rolls (a retry is never a free reroll)."""

from __future__ import annotations

import contextlib
import json
import threading
from typing import Any

import httpx
import pytest

from d100.cli.verify import HIDDEN, VERIFIED, audit_log
from d100.provable import commitment
from d100.server.app import create_app

from .tablehelp import Api, Table, bearer
from .test_access_matrix import serve_in_thread

RULES_AND_VIEWS = pytest.mark.sqlite_only(
    "What a reveal shows and what the GM's call sets: a view and rules. The keys, the "
    "reveals' and the calls' writes are on both databases (the retries here, "
    "test_event_schemas.py)."
)


def brp(api: Api) -> tuple[Table, str, str, str]:
    table = api.table("brp")
    pat = table.join("Pat")
    return table, pat, table.character(pat, "Alice"), table.character(table.gm, "Orc")


def seeds(table: Table, token: str) -> dict[str, dict[str, Any]]:
    return {s["id"]: s for s in table.ok("GET", "", token)["seeds"]}


def audit(table: Table, token: str) -> dict[int, str]:
    lines = table.req("GET", "/log.jsonl", token).text.splitlines()
    return {c.seq: c.status for c in audit_log(lines).checks}


@RULES_AND_VIEWS
def test_a_reveal_keeps_blind_rolls_secret_until_the_gm_shows_them(api: Api) -> None:
    table, pat, alice, _ = brp(api)
    open_roll = table.roll(pat, alice, "stealth")
    blind = table.roll(pat, alice, "stealth", visibility="blind")
    assert "result" not in blind
    # Blind rolls draw from their own committed seed, never the open one.
    assert blind["provable"]["seed_id"] != open_roll["provable"]["seed_id"]
    assert seeds(table, pat)[blind["provable"]["seed_id"]]["blind"] is True
    rotated = table.ok("POST", "/seeds/rotate", table.gm)
    assert rotated["blind"]["unblind_first"] == [blind["seq"]]
    assert rotated["blind"]["revealed"] is None
    now = seeds(table, pat)
    assert "server_seed" in now[open_roll["provable"]["seed_id"]]
    assert "server_seed" not in now[blind["provable"]["seed_id"]]  # the result stays hidden
    assert audit(table, pat) == {open_roll["seq"]: VERIFIED, blind["seq"]: HIDDEN}

    assert table.req("POST", f"/rolls/{blind['seq']}/unblind", pat).status_code == 403
    assert table.req("POST", f"/rolls/{open_roll['seq']}/unblind", table.gm).status_code == 404
    shown = table.ok("POST", f"/rolls/{blind['seq']}/unblind", table.gm, 201)
    assert shown["kind"] == "unblind" and shown["unblinds"] == blind["seq"]
    again = table.req("POST", f"/rolls/{blind['seq']}/unblind", table.gm)
    assert again.status_code == 409 and again.json()["error"]["field"] == "seq"
    pats_view = next(e for e in table.events(pat) if e["seq"] == shown["seq"])
    assert pats_view["result"] == shown["result"]

    rotated = table.ok("POST", "/seeds/rotate", table.gm)
    revealed = rotated["blind"]["revealed"]
    assert revealed["id"] == blind["provable"]["seed_id"]
    assert rotated["blind"]["unblind_first"] == []
    assert commitment(bytes.fromhex(revealed["server_seed"])) == blind["provable"]["commitment"]
    checks = audit(table, pat)
    assert checks[blind["seq"]] == HIDDEN and checks[shown["seq"]] == VERIFIED
    assert audit(table, table.gm)[blind["seq"]] == VERIFIED


def roll_body(alice: str, skill: str = "stealth") -> dict[str, Any]:
    return {"actor": {"character_id": alice, "skill": skill}}


def test_a_retry_with_the_same_key_gets_the_original_roll(api: Api) -> None:
    table, pat, alice, orc = brp(api)
    key = {"idempotency-key": "roll-1"}
    first = table.req("POST", "/rolls", pat, json=roll_body(alice), headers=key)
    assert first.status_code == 201 and "idempotent-replayed" not in first.headers
    retry = table.req("POST", "/rolls", pat, json=roll_body(alice), headers=key)
    assert retry.status_code == 201 and retry.json() == first.json()
    assert retry.headers["idempotent-replayed"] == "true"
    # The same request spelt differently is the same request.
    spelt = json.dumps({"actor": {"skill": "stealth", "character_id": alice}}, indent=3)
    same = table.req(
        "POST", "/rolls", pat, content=spelt, headers={**key, "content-type": "application/json"}
    )
    assert same.json()["seq"] == first.json()["seq"]
    assert [e["seq"] for e in table.events(pat) if e["kind"] == "roll"] == [first.json()["seq"]]

    other = table.req("POST", "/rolls", pat, json=roll_body(alice, "dodge"), headers=key)
    error = other.json()["error"]
    assert other.status_code == 422 and error["field"] == "Idempotency-Key"
    assert error["value"] == "roll-1" and error["allowed"] and error["message"]
    # Keys are per member: the GM's "roll-1" is the GM's own roll.
    gms = table.req("POST", "/rolls", table.gm, json=roll_body(orc, "spot"), headers=key)
    assert gms.status_code == 201 and gms.json()["seq"] != first.json()["seq"]
    contest = roll_body(alice) | {"opponent": {"character_id": orc, "skill": "dodge"}}
    made = table.ok("POST", "/rolls", table.gm, 201, json=contest, headers={"idempotency-key": "c"})
    assert (
        table.ok("POST", "/rolls", table.gm, 201, json=contest, headers={"idempotency-key": "c"})
        == made
    )
    for bad in (b"", b"x" * 201, "caf\u00e9".encode(), b"tab\there"):
        r = table.req(
            "POST", "/rolls", pat, json=roll_body(alice), headers={"idempotency-key": bad}
        )
        assert r.status_code == 422 and r.json()["error"]["field"] == "Idempotency-Key", bad


def test_brp7_a_reroll_retried_with_the_same_key_gets_the_original_reroll(api: Api) -> None:
    """A retry of a reroll whose answer was lost used to be a 409 (already rerolled), and
    one sent after the last Luck a 422, when the reroll had been made."""
    table, pat, alice, _ = brp(api)
    lost = [table.roll(pat, alice, "stealth", actor={"dice": [95]}) for _ in range(3)]
    key = {"idempotency-key": "reroll-1"}
    path = f"/rolls/{lost[0]['seq']}/reroll"
    first = table.req("POST", path, pat, json={"dice": [30]}, headers=key)
    assert first.status_code == 201 and "idempotent-replayed" not in first.headers
    retry = table.req("POST", path, pat, json={"dice": [30]}, headers=key)
    assert retry.status_code == 201 and retry.json() == first.json(), retry.text
    assert retry.headers["idempotent-replayed"] == "true"
    assert [e["reroll_of"] for e in table.events(pat) if "reroll_of" in e] == [lost[0]["seq"]]
    # Without the key the retry is refused as before; with it, other dice or another roll
    # is another request.
    again = table.req("POST", path, pat, json={"dice": [30]})
    assert again.status_code == 409 and "already followed up" in again.json()["error"]["message"]
    other = f"/rolls/{lost[1]['seq']}/reroll"
    for where, body in ((path, {"dice": [31]}), (path, None), (other, {"dice": [30]})):
        r = table.req("POST", where, pat, json=body, headers=key)
        error = r.json()["error"]
        assert r.status_code == 422 and error["field"] == "Idempotency-Key", (where, body, r.text)
        assert error["value"] == "reroll-1" and "different request" in error["message"]
    # A refused reroll leaves its key unused; a roll's key is not a reroll's.
    spent = {"idempotency-key": "spent"}
    r = table.req("POST", f"/rolls/{first.json()['seq']}/reroll", pat, headers=spent)
    assert r.status_code == 422 and "succeeded" in r.json()["error"]["message"]
    assert table.req("POST", f"/rolls/{lost[1]['seq']}/reroll", pat, headers=spent).is_success
    rolled = {"idempotency-key": "rolled"}
    table.ok("POST", "/rolls", pat, 201, json=roll_body(alice), headers=rolled)
    r = table.req("POST", f"/rolls/{lost[2]['seq']}/reroll", pat, headers=rolled)
    assert r.status_code == 422 and r.json()["error"]["field"] == "Idempotency-Key"
    r = table.req("POST", path, pat, headers={"idempotency-key": "caf\u00e9".encode()})
    assert r.status_code == 422 and r.json()["error"]["field"] == "Idempotency-Key"


def test_a_failed_request_leaves_its_key_unused(api: Api) -> None:
    table, pat, alice, _ = brp(api)
    key = {"idempotency-key": "k"}
    assert (
        table.req("POST", "/rolls", pat, json=roll_body(alice, "nope"), headers=key).status_code
        == 422
    )
    assert table.req("POST", "/rolls", pat, json=roll_body(alice), headers=key).status_code == 201


def test_concurrent_duplicates_roll_once(database_url: str) -> None:
    """16 requests with one key at once, each on a connection of its own to a server in this
    process (its threads and its database's, as ``d100 serve``'s): one roll, 16 answers."""
    served = serve_in_thread(create_app(database_url))
    base = next(served)
    with contextlib.closing(served), httpx.Client(base_url=base) as c:
        table, pat, alice, _ = brp(Api(c))
        start = threading.Barrier(16)
        answers: list[dict[str, Any]] = []

        def send() -> None:
            with httpx.Client(base_url=base, timeout=30) as mine:
                start.wait()
                r = mine.post(
                    f"/api/tables/{table.id}/rolls",
                    json=roll_body(alice),
                    headers={**bearer(pat), "idempotency-key": "once"},
                )
                assert r.status_code == 201, r.text
                answers.append(r.json())

        threads = [threading.Thread(target=send) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(answers) == 16 and all(a == answers[0] for a in answers)
        rolled = [e for e in table.events(pat) if e["kind"] == "roll"]
        assert [e["seq"] for e in rolled] == [answers[0]["seq"]]


@RULES_AND_VIEWS
def test_brp5_the_gm_s_call_sets_its_skill_and_aim(api: Api) -> None:
    """A player answering a called test may not name another skill or fire with the aim they
    built up themselves: an extreme Dodge call would go from a target of 1 to 30."""
    table, pat, alice, _ = brp(api)
    for _ in range(3):
        table.ok("POST", f"/characters/{alice}/aim", pat, json={"action": "aim"})
    call = table.ok(
        "POST",
        "/calls",
        table.gm,
        201,
        json={"skill": "dodge", "fields": {"difficulty": "extreme"}, "character_ids": [alice]},
    )
    target = call["targets"][0]["id"]
    for actor, field in (({"aimed": True}, "actor.aimed"), ({"skill": "stealth"}, "actor.skill")):
        for path in ("/rolls", "/odds"):
            r = table.req(
                "POST",
                path,
                pat,
                json={"actor": {"character_id": alice, **actor}, "target_id": target},
            )
            assert r.status_code == 422, r.text
            error = r.json()["error"]
            assert error["field"] == field and "GM's call" in error["message"], error
    assert "dodge" in table.roll(pat, alice, "stealth", 422, target_id=target)["error"]["allowed"]
    event = table.roll(pat, alice, "dodge", target_id=target)  # the call's own skill is no change
    assert "aim_rounds" not in event["request"] and event["result"]["target"] == 1


@RULES_AND_VIEWS
def test_ch8_the_gm_s_call_sets_its_ability(api: Api) -> None:
    table = api.table("chances", settings={"manual_dice": False})
    pat = table.join("Pat")
    alice = table.character(pat, "Alice")
    call = table.ok(
        "POST",
        "/calls",
        table.gm,
        201,
        json={"skill": "sneaking", "fields": {"risk": "easy"}, "character_ids": [alice]},
    )
    target = call["targets"][0]["id"]
    r = table.roll(pat, alice, None, 422, target_id=target, actor={"ability": "per"})
    assert r["error"]["field"] == "actor.ability" and "GM's call" in r["error"]["message"]
    assert table.roll(pat, alice, None, target_id=target)["request"]["ability"] == 10
