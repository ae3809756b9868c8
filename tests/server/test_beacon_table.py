"""A table whose seeds are bound to drand's quicknet: rounds come from a recorded-rounds fake
(nothing here touches the network), the server's clock is set just before a recorded round
so each seed names it; its exports verify, and a round swapped, forged or left out fails
verify naming the event. Without the beacon, verify lists the rolls the operator could have
chosen."""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from d100 import beacon
from d100.cli.extras import MissingExtra
from d100.cli.verify import audit_log
from d100.errors import D100Error
from d100.server import events, gametables, rounds
from d100.server.app import create_app
from d100.server.errors import ApiError
from tests.cli.conftest import d100

from .services import DATABASES, database_for
from .tablehelp import Api, Table
from .test_verify import export, report, write

pytest.importorskip("pyblst")

RECORDED = json.loads(
    (Path(__file__).parent.parent / "references" / "data" / "drand-quicknet.json").read_text()
)
SIGNATURES = {r["round"]: r["signature"] for r in RECORDED["rounds"]}
ROUND = 9367912  # the round every seed of these tables names
OTHER = 2798644  # another real round, published a year before


class Recorded:
    """The relays, as recorded: the rounds it was asked for; ``missing`` rounds it has not."""

    def __init__(self) -> None:
        self.asked: list[int] = []
        self.missing: set[int] = set()

    def __call__(self, round_number: int) -> str:
        self.asked.append(round_number)
        if round_number in self.missing or round_number not in SIGNATURES:
            raise LookupError(f"no round {round_number} recorded")
        return SIGNATURES[round_number]


def recorded(monkeypatch: pytest.MonkeyPatch) -> Recorded:
    """Rounds from the recording; the server's clock a little before round ``ROUND``, so
    every seed it commits names that round (a millisecond a reading)."""
    monkeypatch.delenv(rounds.URL_ENV, raising=False)
    fake = Recorded()
    monkeypatch.setattr(rounds, "fetcher", fake)
    moment = [beacon.round_time(ROUND) - 5.5]

    def clock() -> str:
        moment[0] += 0.001
        return datetime.fromtimestamp(moment[0], UTC).isoformat(timespec="milliseconds")

    monkeypatch.setattr(gametables, "now", clock)
    monkeypatch.setattr(events, "now", clock)
    return fake


@pytest.fixture
def relays(monkeypatch: pytest.MonkeyPatch) -> Recorded:
    return recorded(monkeypatch)


@pytest.fixture
def bound(relays: Recorded, database_url: str) -> Iterator[Api]:
    with TestClient(create_app(database_url)) as client:
        yield Api(client)


def played(api: Api, **extra: Any) -> tuple[Table, str]:
    """A BRP table: a player's rolls (under the client seed the server gave, then their own),
    the GM's for an NPC, a contest, a blind roll; then a rotation. The player's token."""
    table = api.table("brp", **extra)
    pat = table.join("Pat")
    alice, orc = table.character(pat, "Alice"), table.character(table.gm, "Orc")
    table.roll(pat, alice, "stealth")
    table.ok("PUT", "/me/client-seed", pat, json={"client_seed": "pat's own"})
    table.roll(pat, alice, "stealth")
    table.roll(table.gm, alice, "dodge", opponent={"character_id": orc, "skill": "stealth"})
    table.roll(table.gm, orc, "spot")
    blind = table.roll(pat, alice, "stealth", visibility="blind")
    table.ok("POST", f"/rolls/{blind['seq']}/unblind", table.gm, 201)
    table.ok("POST", "/seeds/rotate", table.gm)
    return table, pat


@pytest.fixture(scope="module", params=DATABASES)
def bound_log(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The GM's export of a beacon-bound table (``played``) played once per database for the
    tests that edit copies of it."""
    url = database_for(request, tmp_path_factory.mktemp("beacon"))
    with pytest.MonkeyPatch.context() as monkeypatch:
        recorded(monkeypatch)
        with TestClient(create_app(url)) as client:
            table, _ = played(Api(client), beacon=True)
            text: str = table.req("GET", "/log.jsonl", table.gm).text
    return text


def exported(bound_log: str, path: Path) -> list[dict[str, Any]]:
    """The GM's export, written at ``path`` as read."""
    path.write_text(bound_log)
    return [json.loads(line) for line in bound_log.splitlines()]


def test_every_seed_names_a_round_and_the_exports_verify(bound: Api, tmp_path: Path) -> None:
    table, pat = played(bound, beacon=True)
    assert table.ok("GET", "", table.gm)["table"]["beacon"] is True
    for token in (table.gm, pat):
        entries = export(table, token, tmp_path / "log.jsonl")
        opening = entries[0]
        assert opening["active"]["beacon"] == beacon.named(ROUND)
        status, out = report(tmp_path / "log.jsonl")
        assert status == 0 and out["ok"], out
        # the GM's export: all six rolls; the player's, those shown to them in full
        assert out["mismatch"] == 0 and out["verified"] == (6 if token == table.gm else 3), out
        # no roll could have been chosen: every seed waited for its round
        assert out["operator_could_choose"] == []
        revealed = next(e for e in entries if e["kind"] == "seed")["revealed"]
        assert revealed["beacon"] == {"chain": beacon.CHAIN_HASH, "round": ROUND,
                                      "signature": SIGNATURES[ROUND]}  # fmt: skip
    assert set(bound_rounds(table, tmp_path)) == {ROUND}


def bound_rounds(table: Table, tmp_path: Path) -> list[int]:
    """Every round the GM's export names."""
    text = json.dumps(export(table, table.gm, tmp_path / "rounds.jsonl"))
    return [int(n) for n in re.findall(r'"round": (\d+)', text)]


def tampered(entries: list[dict[str, Any]], tmp_path: Path, change: Any) -> dict[str, Any]:
    copy = json.loads(json.dumps(entries))
    change(copy)
    path = tmp_path / "tampered.jsonl"
    write(path, copy)
    status, out = report(path)
    assert status == 1 and not out["ok"], out
    return out


def failures(out: dict[str, Any]) -> list[tuple[Any, str]]:
    return [(c["seq"], c["reason"]) for c in out["checks"] if c["status"] == "mismatch"]


def test_a_swapped_round_fails_naming_the_event(bound_log: str, tmp_path: Path) -> None:
    entries = exported(bound_log, tmp_path / "log.jsonl")
    at = next(i for i, e in enumerate(entries) if e["kind"] == "seed")
    seq = entries[at]["seq"]

    def reveal_only(log: list[dict[str, Any]]) -> None:  # another real round, at the reveal
        log[at]["revealed"]["beacon"] |= {"round": OTHER, "signature": SIGNATURES[OTHER]}

    out = tampered(entries, tmp_path, reveal_only)
    assert any(
        s == seq and f"with beacon round {OTHER}, where line 1 named round {ROUND}" in r
        for s, r in failures(out)
    ), failures(out)

    def both(log: list[dict[str, Any]]) -> None:  # the announcement changed as well
        log[0]["active"]["beacon"]["round"] = OTHER
        reveal_only(log)

    out = tampered(entries, tmp_path, both)
    reasons = failures(out)
    assert any(
        s == seq and f"beacon round {OTHER} was published at" in r and "not after" in r
        for s, r in reasons
    ), reasons
    # and the open seed's rolls are not taken as verified
    assert any(s != seq and "beacon round does not check" in r for s, r in reasons), reasons


def test_a_forged_or_missing_signature_fails(bound_log: str, tmp_path: Path) -> None:
    entries = exported(bound_log, tmp_path / "log.jsonl")
    at = next(i for i, e in enumerate(entries) if e["kind"] == "seed")
    seq = entries[at]["seq"]

    def flipped(log: list[dict[str, Any]]) -> None:
        signature = bytearray.fromhex(log[at]["revealed"]["beacon"]["signature"])
        signature[20] ^= 1
        log[at]["revealed"]["beacon"]["signature"] = signature.hex()

    out = tampered(entries, tmp_path, flipped)
    assert any(s == seq and "is not quicknet's" in r for s, r in failures(out)), failures(out)

    def missing(log: list[dict[str, Any]]) -> None:
        del log[at]["revealed"]["beacon"]["signature"]

    out = tampered(entries, tmp_path, missing)
    assert any(s == seq and "without its beacon round's signature" in r for s, r in failures(out))

    def unbound(log: list[dict[str, Any]]) -> None:  # the next seed committed without a round
        del log[at]["active"]["beacon"]

    out = tampered(entries, tmp_path, unbound)
    assert any(s == seq and "announced without a beacon round" in r for s, r in failures(out))

    def dropped(log: list[dict[str, Any]]) -> None:  # the round dropped from the whole log
        for entry in log:
            for part in (entry, entry.get("blind") or {}):
                for key in ("active", "revealed"):
                    if isinstance(part.get(key), dict):
                        part[key].pop("beacon", None)
            for seed in entry.get("chains") or []:
                seed.pop("beacon", None)
            if isinstance(entry.get("revealed"), dict):
                entry["revealed"].pop("beacon", None)

    out = tampered(entries, tmp_path, dropped)
    assert any("recomputed" in r for _, r in failures(out))


def test_a_roll_waits_for_its_round_or_is_refused(
    bound: Api, relays: Recorded, tmp_path: Path
) -> None:
    table = bound.table("brp", beacon=True)
    pat = table.join("Pat")
    alice = table.character(pat, "Alice")
    relays.missing.add(ROUND)
    rounds_wait = rounds.WAIT, rounds.RETRY
    try:
        rounds.WAIT, rounds.RETRY = 0.05, 0.01
        refused = table.req(
            "POST",
            "/rolls",
            pat,
            json={"actor": {"character_id": alice, "skill": "stealth"}},
        )
    finally:
        rounds.WAIT, rounds.RETRY = rounds_wait
    assert refused.status_code == 503, refused.text
    assert refused.headers["Retry-After"] == "3"
    assert refused.json()["error"]["field"] == "beacon.round"
    relays.missing.clear()
    table.roll(pat, alice, "stealth")  # nothing was drawn: this roll takes nonce 0
    table.ok("POST", "/seeds/rotate", table.gm)
    entries = export(table, table.gm, tmp_path / "log.jsonl")
    rolls = [e for e in entries if e["kind"] == "roll"]
    assert [r["provable"]["nonce"] for r in rolls] == [0]
    status, out = report(tmp_path / "log.jsonl")
    assert status == 0 and out["verified"] == 1, out


def test_a_server_without_rounds_makes_no_beacon_table(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(rounds.URL_ENV, raising=False)
    monkeypatch.setattr(rounds, "fetcher", None)
    with TestClient(create_app(database_url)) as client:
        r = client.post("/api/tables", json={"name": "K", "system": "brp", "beacon": True})
        assert r.status_code == 422, r.text
        assert r.json()["error"]["field"] == "beacon"


def test_without_the_beacon_verify_lists_the_rolls_the_operator_could_choose(
    bound: Api, tmp_path: Path
) -> None:
    table, _ = played(bound)
    entries = export(table, table.gm, tmp_path / "log.jsonl")
    assert "beacon" not in entries[0]["active"]
    status, out = report(tmp_path / "log.jsonl")
    assert status == 0 and out["ok"], out
    by_kind = [
        (e["seq"], e["kind"], e["actor_id"]) for e in entries if e["kind"] in ("roll", "contest")
    ]
    gm_id = entries[0]["gm"]["id"]
    # the player's first roll (the server's client seed), the GM's contest and NPC roll;
    # not the player's roll under the client seed they set after the seed was announced
    expected = [seq for n, (seq, _kind, actor) in enumerate(by_kind) if actor == gm_id or n == 0]
    assert out["operator_could_choose"] == expected and len(expected) == 3
    human = d100("verify", str(tmp_path / "log.jsonl"))
    shown = ", ".join(f"#{s}" for s in expected)
    assert f"  the operator could have chosen: {shown} (no beacon round binds" in human.out


def test_verify_without_the_beacon_extra_says_which_to_install(
    bound_log: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exported(bound_log, tmp_path / "log.jsonl")
    monkeypatch.setitem(sys.modules, "pyblst", None)  # as if not installed
    with pytest.raises(MissingExtra) as err:
        audit_log((tmp_path / "log.jsonl").read_text().splitlines())
    assert err.value.extra == "beacon" and err.value.module == "pyblst"
    assert "pip install 'd100[beacon]'" in err.value.message


def test_fetching_a_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """The relays are asked in turn (mocked: no network); a round not yet due is waited for
    only so long, a forged signature refused."""
    import httpx
    import respx

    path = f"/{beacon.CHAIN_HASH}/public/{ROUND}"
    with respx.mock(assert_all_called=False) as mock:
        mock.get(f"https://one.example{path}").mock(return_value=httpx.Response(500))
        mock.get(f"https://two.example{path}").mock(
            return_value=httpx.Response(200, json={"round": ROUND, "signature": SIGNATURES[ROUND]})
        )
        fetch = rounds.http_fetch(["https://one.example", "https://two.example"])
        assert fetch(ROUND) == SIGNATURES[ROUND]
        monkeypatch.setattr(rounds, "fetcher", fetch)
        assert rounds.signature_of(ROUND) == SIGNATURES[ROUND]
    monkeypatch.setattr(rounds, "fetcher", lambda n: SIGNATURES[OTHER])  # another round's
    with pytest.raises(ApiError) as err:
        rounds.signature_of(ROUND)
    assert err.value.status == 503 and "does not verify" in err.value.message
    due = beacon.round_time(ROUND)
    with pytest.raises(ApiError) as err:
        rounds.signature_of(ROUND, clock=lambda: due - 60)
    assert err.value.status == 503 and "published only in 60 s" in err.value.message
    monkeypatch.setattr(rounds, "fetcher", None)
    with pytest.raises(ApiError) as err:
        rounds.signature_of(ROUND)
    assert rounds.URL_ENV in err.value.message
    assert rounds.relays({rounds.URL_ENV: " https://a.example/, https://b.example"}) == [
        "https://a.example",
        "https://b.example",
    ]


def test_a_round_is_asked_for_once() -> None:
    import httpx
    import respx

    path = f"/{beacon.CHAIN_HASH}/public/{ROUND}"
    with respx.mock() as mock:
        route = mock.get(f"https://one.example{path}").mock(
            return_value=httpx.Response(200, json={"round": ROUND, "signature": SIGNATURES[ROUND]})
        )
        fetch = rounds.http_fetch(["https://one.example"])
        assert fetch(ROUND) == fetch(ROUND) == SIGNATURES[ROUND]
        assert route.call_count == 1


def test_a_new_seeds_round_is_fetched_in_the_background() -> None:
    import httpx
    import respx

    path = f"/{beacon.CHAIN_HASH}/public/{ROUND}"
    with respx.mock() as mock:
        route = mock.get(f"https://one.example{path}").mock(
            return_value=httpx.Response(200, json={"round": ROUND, "signature": SIGNATURES[ROUND]})
        )
        fetch = rounds.http_fetch(["https://one.example"])
        fetch.warm(ROUND)
        fetch.warm(ROUND)  # one fetch a round
        deadline = time.monotonic() + 10
        while ROUND not in fetch.kept and time.monotonic() < deadline:
            time.sleep(0.01)
        assert fetch.kept[ROUND] == SIGNATURES[ROUND]
        assert fetch(ROUND) == SIGNATURES[ROUND] and route.call_count == 1


ODD_VALUES: list[Any] = [None, "9367912", 0, -1, 1 << 70, True, [], {}, "zz" * 48, 3.5]


# the beacon fields of an export are the same whichever database kept the table (the round
# swapped or forged above is caught on both): its odd values are tried once
@pytest.mark.parametrize("bound_log", ["sqlite"], indirect=True)
def test_odd_beacon_fields_are_reported_never_a_crash(bound_log: str, tmp_path: Path) -> None:
    """Each odd value audited as ``d100 verify --json`` does (its report as JSON, exit status
    1; or the error naming the line, status 2; anything else a traceback), the command itself
    run on the first: each run of it imports the signature check's package afresh."""
    entries = exported(bound_log, tmp_path / "log.jsonl")
    at = next(i for i, e in enumerate(entries) if e["kind"] == "seed")
    places = [
        (0, ("active", "beacon")),
        (0, ("active", "beacon", "round")),
        (0, ("active", "beacon", "chain")),
        (at, ("revealed", "beacon")),
        (at, ("revealed", "beacon", "round")),
        (at, ("revealed", "beacon", "signature")),
    ]
    for n, (line, keys) in enumerate(places):
        value = ODD_VALUES[n % len(ODD_VALUES)], ODD_VALUES[(n + 3) % len(ODD_VALUES)]
        for odd in value:
            copy = json.loads(json.dumps(entries))
            part = copy[line]
            for key in keys[:-1]:
                part = part[key]
            part[keys[-1]] = odd
            path = tmp_path / "odd.jsonl"
            write(path, copy)
            if n == 0 and odd is value[0]:
                run = d100("verify", "--json", str(path))
                assert run.status in (1, 2), (keys, odd, run.out, run.err)
                assert "Traceback" not in run.err, (keys, odd, run.err)
            try:
                out = audit_log(path.read_text().splitlines()).to_dict()
            except D100Error:
                continue  # status 2, its line named
            assert not out["ok"] and json.dumps(out), (keys, odd, out)


def test_a_luck_reroll_draws_from_the_mixed_seed(bound: Api, tmp_path: Path) -> None:
    """A follow-up re-reads the roll it follows from the seed mixed with its round, and draws
    its own dice from it: the export verifies."""
    table = bound.table("brp", beacon=True)
    pat = table.join("Pat")
    alice = table.character(pat, "Alice")
    drawn = table.roll(pat, alice, "stealth")
    failed = table.roll(pat, alice, "stealth", actor={"dice": [99]})
    again = table.ok("POST", f"/rolls/{failed['seq']}/reroll", pat, 201)
    assert again["provable"]["nonce"] == drawn["provable"]["nonce"] + 2
    table.ok("POST", "/seeds/rotate", table.gm)
    export(table, table.gm, tmp_path / "log.jsonl")
    status, out = report(tmp_path / "log.jsonl")
    assert status == 0 and out["mismatch"] == 0 and out["verified"] == 2, out


def test_a_follow_up_and_a_dice_roll_fetch_their_round_then_are_made(
    bound: Api, relays: Recorded, tmp_path: Path
) -> None:
    """A reroll and a dice roll whose seed's round is not kept yet (each after a rotation
    started a new seed) draw nothing in their transaction: the round is fetched outside it,
    kept with the seed, and the roll made, its seed's round asked for once."""
    table = bound.table("brp", beacon=True)
    pat = table.join("Pat")
    alice = table.character(pat, "Alice")
    missed = table.roll(pat, alice, "rifle", actor={"dice": [99]})
    table.ok("POST", "/seeds/rotate", table.gm)
    asked = len(relays.asked)
    again = table.ok("POST", f"/rolls/{missed['seq']}/reroll", pat, 201)
    assert again["reroll_of"] == missed["seq"] and len(relays.asked) == asked + 1
    table.ok("POST", "/seeds/rotate", table.gm)
    body = {"words": "1d6", "character_id": alice}
    dice = table.ok("POST", "/declared-rolls", pat, 201, json=body)
    assert 1 <= dice["result"]["total"] <= 6 and len(relays.asked) == asked + 2
    table.ok("POST", "/seeds/rotate", table.gm)
    for token in (table.gm, pat):  # each seed's round is the one its rolls were drawn with
        export(table, token, tmp_path / "log.jsonl")
        status, out = report(tmp_path / "log.jsonl")
        assert status == 0 and out["ok"] and out["operator_could_choose"] == [], out
