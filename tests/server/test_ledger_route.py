"""GET /api/tables/{id}/ledger: the luck ledger as its member sees the log. The GM's counts
every roll; a player's none of those hidden from them (the GM's secret rolls, blind rolls
not yet shown, an NPC's numbers), and it is the very ledger of that player's own export.
A player's ledger is the same, to the last digit, before and after the GM rolls in secret
for the player's own character and for an NPC: it tells no count, time or total of them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from d100.ledger import HIDDEN, ledger
from d100.server.access import Viewer
from d100.server.api import Server
from d100.server.app import create_app
from d100.server.ledgers import Readings

from .services import DATABASES, database_for
from .tablehelp import Api, Table

pytestmark = pytest.mark.sqlite_only(
    "A ledger is a view of the log by the viewer's rights. The log's reads and exports on "
    "both databases are test_event_schemas.py's and test_chain.py's."
)


def played(api: Api) -> tuple[Table, str, str, str]:
    """Pat's Alice rolls in the open and blind; the GM's Orc in the open and in secret."""
    table = api.table("brp")
    pat = table.join("Pat")
    alice, orc = table.character(pat, "Alice"), table.character(table.gm, "Orc")
    for i in range(8):
        table.roll(pat, alice, "stealth", **({"visibility": "blind"} if i % 4 == 3 else {}))
        table.roll(table.gm, orc, "spot hidden", **({"visibility": "gm"} if i % 3 == 2 else {}))
    return table, pat, alice, orc


Ledgered = tuple[Table, str, str, str]


@pytest.fixture(scope="module", params=DATABASES)
def ledgered(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Ledgered]:
    """The table played once per database for the tests that only read its ledgers (the one
    that rolls more plays its own), its server kept up."""
    url = database_for(request, tmp_path_factory.mktemp("ledger"))
    with TestClient(create_app(url)) as client:
        yield played(Api(client))


def ledger_of(table: Table, token: str, query: str = "") -> dict[str, Any]:
    out: dict[str, Any] = table.ok("GET", f"/ledger{query}", token)
    return out


def exported(table: Table, token: str) -> list[dict[str, Any]]:
    text = table.req("GET", "/log.jsonl", token).text
    return [json.loads(line) for line in text.splitlines()]


def test_the_gm_counts_every_roll_and_a_player_only_what_they_see(ledgered: Ledgered) -> None:
    table, pat, alice, _ = ledgered
    gms = ledger_of(table, table.gm)
    assert gms["rolls"] == 16 and gms["left_out"] == []
    pats = ledger_of(table, pat)
    # Pat sees Alice's six open rolls; her two blind ones are left out as blind; the Orc's
    # six open rolls by their level only; its two secret ones not at all
    assert pats["rolls"] == 6
    left = {x["reason"]: x["rolls"] for x in pats["left_out"]}
    assert left == {
        "blind: its result is not shown to this viewer": 2,
        "its odds are not shown to this viewer (an NPC's roll, shown by its level)": 6,
    }
    assert HIDDEN not in left
    # the ledger of the player's own export, but for the stubs it does not mention
    shown = ledger(exported(table, pat)).to_dict()
    shown["left_out"] = [x for x in shown["left_out"] if x["reason"] != HIDDEN]
    assert {k: v for k, v in pats.items() if k != "view"} == shown
    # and the GM's, of the GM's export
    assert {k: v for k, v in gms.items() if k != "view"} == ledger(
        exported(table, table.gm)
    ).to_dict()
    # by character (id or name) and by member
    mine = ledger_of(table, pat, f"?character={alice}")
    assert mine["rolls"] == 6 and mine["character"] == alice
    assert ledger_of(table, pat, "?character=Alice")["seqs"] == mine["seqs"]
    assert ledger_of(table, pat, "?member=Pat")["seqs"] == mine["seqs"]
    assert ledger_of(table, table.gm, "?character=Alice")["rolls"] == 8
    last = ledger_of(table, pat, "?character=Alice&last=2")
    assert last["seqs"] == mine["seqs"][-2:] and last["window"]["last"] == 2


def test_the_view_is_the_card_the_page_formats(ledgered: Ledgered) -> None:
    table, pat, _, _ = ledgered
    got = ledger_of(table, pat, "?character=Alice")
    view = got["view"]
    assert view["title"] == "Luck ledger of Alice" and view["rolls"] == 6
    assert view["summary"].startswith("6 rolls counted, events ")
    assert sum(r["observed"] for r in view["rows"]) == 6
    assert all(r["system"] == "brp" and r["style"] for r in view["rows"])
    assert view["successes"]["observed"] == got["successes"]["observed"]
    assert view["tail"].startswith(("a run this lucky", "a run this unlucky", "exactly as"))
    assert view["left_out"] == ["2 left out: blind: its result is not shown to this viewer"]


def test_secret_rolls_change_nothing_in_a_players_ledger(api: Api) -> None:
    table, pat, alice, orc = played(api)
    queries = ("", f"?character={alice}", "?character=Alice", "?member=Pat", "?last=3")
    before = [ledger_of(table, pat, q) for q in queries]
    gm_before = ledger_of(table, table.gm)
    # the GM rolls in secret for Pat's own character, and for the NPC; blind for Alice too
    for visibility in ("gm", "blind", "self"):
        table.roll(table.gm, alice, "dodge", visibility=visibility, actor={"dice": [1]})
        table.roll(table.gm, orc, "spot hidden", visibility=visibility, actor={"dice": [99]})
    after = [ledger_of(table, pat, q) for q in queries]
    assert after == before  # counts, expectations, tails, windows, left out: all of it
    # the GM's own ledger does count them (the "self" ones are the GM's own rolls too)
    assert ledger_of(table, table.gm)["rolls"] == gm_before["rolls"] + 6


def test_a_character_with_no_rolls_has_an_empty_ledger(api: Api) -> None:
    table = api.table("brp")
    pat = table.join("Pat")
    table.character(pat, "Alice")
    got = ledger_of(table, pat, "?character=Alice")
    assert got["rolls"] == 0 and got["character"] == "Alice"
    assert got["view"]["tail"] == "no rolls to judge yet"
    assert got["successes"]["verdict"] == "no rolls to judge"


def test_refusals_name_the_field_the_value_and_what_is_allowed(ledgered: Ledgered) -> None:
    table, pat, _, _ = ledgered
    cases = {
        "?character=Bob": ("character", "Bob", "a character this log shows: Alice, Orc"),
        "?member=Nobody": ("member", "Nobody", "a member this log shows: Gina, Pat"),
        "?last=0": ("query.last", "0", "Input should be greater than or equal to 1"),
        "?last=1001": ("query.last", "1001", "Input should be less than or equal to 1000"),
        "?last=x": (
            "query.last",
            "x",
            "Input should be a valid integer, unable to parse string as an integer",
        ),
        "?character=Alice&member=Pat": ("member", "Pat", "a character or a member, not both"),
        f"?character={'x' * 81}": ("query.character", None, None),
    }
    for query, (field, value, allowed) in cases.items():
        r = table.req("GET", f"/ledger{query}", pat)
        assert r.status_code == 422, (query, r.text)
        error = r.json()["error"]
        assert error["field"] == field, (query, error)
        assert error["allowed"], (query, error)
        if value is not None:
            assert error["value"] == value and error["allowed"] == allowed, (query, error)
    assert table.req("GET", "/ledger", None).status_code == 401
    assert table.req("GET", "/ledger", "not-a-token").status_code == 401
    # a player's refusal names only the characters they see: the same two
    gm = table.req("GET", "/ledger?character=Bob", table.gm).json()["error"]
    assert gm["allowed"] == "a character this log shows: Alice, Orc"


def test_a_member_reads_one_ledger_at_a_time(ledgered: Ledgered) -> None:
    """Each ledger reads the whole log, as an export does: a member's second one while the
    first is read is a 429, and a table's players read four at once; a GM always may."""
    table, pat, _, _ = ledgered
    server: Server = table.api.client.app.state.server  # type: ignore[attr-defined]
    reads: Readings = server.ledger_reads
    members = table.ok("GET", "", table.gm)["members"]
    pats = next(m for m in members if m["name"] == "Pat")
    viewer = Viewer(pats["id"], table.id, "player", "Pat", frozenset())
    with reads.place(viewer):
        r = table.req("GET", "/ledger", pat)
        assert r.status_code == 429 and r.headers["retry-after"] == "2"
        assert r.json()["error"]["allowed"] == "one ledger at a time for each member"
        assert table.req("GET", "/ledger", table.gm).status_code == 200
    assert table.req("GET", "/ledger", pat).status_code == 200
