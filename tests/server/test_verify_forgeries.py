"""``d100 verify`` against forged logs: a table played through the server in every mode, by
the GM and two players, over three seeds; each forgery a dishonest server (or anyone holding
an export) could make fails with a reason naming the roll, while every member's honest
export passes. A file that is no log is exit status 2 with one line, never a traceback."""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from d100.cli.verify import audit_log
from d100.engine import resolve
from d100.errors import D100Error
from d100.provable import ProvableSource, commitment
from d100.server.app import create_app
from tests.cli.conftest import clean_error, d100
from tests.conftest import depth

from .forging import relinked, unchained
from .services import DATABASES, database_for
from .tablehelp import SHEETS, Api, Table

Log = list[dict[str, Any]]
DRAWN = ("roll", "contest")
# An export's content is the same whichever database kept the table: the honest exports are
# read on both (they pass, link and show each member what they may see), while a forgery
# edits a copy of one and asks verify alone, which no database answers: on SQLite's.
FORGERY = pytest.mark.parametrize("honest", ["sqlite"], indirect=True)


def played(api: Api) -> tuple[Table, dict[str, str]]:
    """Three seeds' worth of play: checks in all four modes by a player and by the GM, dice
    typed by hand, a Luck reroll, a blind roll kept past one rotation and shown in the next, a
    contest, a called contest against the GM's Orc, a client seed changed. Members' tokens."""
    table = api.table("brp")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice, bob = table.character(pat, "Alice"), table.character(sam, "Bob")
    orc = table.character(table.gm, "Orc")
    for visibility in ("public", "gm", "self"):
        table.roll(pat, alice, "stealth", visibility=visibility)
        table.roll(table.gm, orc, "spot hidden", visibility=visibility)
    table.roll(pat, alice, "stealth", actor={"dice": [42]})  # typed in by hand
    blind = table.roll(pat, alice, "stealth", visibility="blind")
    table.roll(sam, bob, "dodge")
    table.roll(table.gm, alice, "dodge", opponent={"character_id": orc, "skill": "stealth"})
    typed_side = {"character_id": alice, "skill": "dodge", "dice": [7]}
    table.roll(table.gm, orc, "spot hidden", opponent=typed_side)
    secret = table.ok(
        "POST", "/calls", table.gm, 201,
        json={"skill": "spot", "character_ids": [alice], "visibility": "gm"},
    )  # fmt: skip
    table.roll(pat, alice, None, target_id=secret["targets"][0]["id"])
    call = table.ok(
        "POST",
        "/calls",
        table.gm,
        201,
        json={
            "skill": "spot",
            "character_ids": [alice],
            "opponent": {"character_id": orc, "skill": "stealth"},
        },
    )
    table.roll(pat, alice, None, target_id=call["targets"][0]["id"])
    table.ok("PUT", "/me/client-seed", sam, json={"client_seed": "Sam's own"})
    table.roll(sam, bob, "stealth")
    table.ok("POST", "/seeds/rotate", table.gm)  # the blind seed stays: its roll is not shown
    table.ok("POST", f"/rolls/{blind['seq']}/unblind", table.gm, 201)
    failed = table.roll(pat, alice, "stealth", actor={"dice": [99]})
    table.ok("POST", f"/rolls/{failed['seq']}/reroll", pat, 201)
    table.roll(sam, bob, "stealth", visibility="self")
    gm_blind = table.roll(table.gm, orc, "spot hidden", visibility="blind")
    table.ok("POST", f"/rolls/{gm_blind['seq']}/unblind", table.gm, 201)
    table.ok("POST", "/seeds/rotate", table.gm)  # both seeds revealed now
    table.roll(pat, alice, "spot hidden")
    table.roll(table.gm, orc, "dodge", visibility="gm")
    table.ok("POST", "/seeds/rotate", table.gm)
    return table, {"gm": table.gm, "pat": pat, "sam": sam}


def export(table: Table, token: str) -> Log:
    return [json.loads(line) for line in table.req("GET", "/log.jsonl", token).text.splitlines()]


def audit(log: Log) -> dict[str, Any]:
    """The report on a log whose links the forger recomputed (``forging.relinked``): what the
    checks of the rolls and seeds catch on their own (tests/server/test_chain.py: the chain)."""
    out: dict[str, Any] = audit_log(json.dumps(e) + "\n" for e in relinked(log)).to_dict()
    return out


def copy(log: Log) -> Log:
    copied: Log = json.loads(json.dumps(log))
    return copied


def failed(log: Log) -> dict[Any, str]:
    """The mismatches of a forged log, by the event number each names (reasons joined)."""
    out = audit(log)
    assert not out["ok"], out
    bad: dict[Any, str] = {}
    for c in out["checks"]:
        if c["status"] == "mismatch":
            bad[c["seq"]] = f"{bad[c['seq']]}; {c['reason']}" if c["seq"] in bad else c["reason"]
    return bad


def revealed_seeds(log: Log) -> dict[str, bytes]:
    return {
        s["id"]: bytes.fromhex(s["server_seed"])
        for e in log
        if e["kind"] in ("seed", "reveal")  # a private chain's seed: in a reveal of its own
        for s in (e["revealed"], *([e["blind"]["revealed"]] if "blind" in e else []))
    }


def recomputed(entry: dict[str, Any], seed: bytes) -> dict[str, Any]:
    """The result a forger would write for a roll under another seed: the roll still checks."""
    p = entry["provable"]
    result = resolve(p["request"], ProvableSource(seed, p["client_seed"], p["nonce"]))
    out: dict[str, Any] = json.loads(json.dumps(result.to_dict()))
    return out


def drawn_rolls(log: Log, seed_id: str | None = None) -> list[dict[str, Any]]:
    return [
        e
        for e in log
        if e["kind"] in DRAWN
        and "result" in e
        and "withheld" not in e
        and (seed_id is None or e["provable"]["seed_id"] == seed_id)
    ]


def luck_buyable(table: Table, token: str, character_id: str) -> dict[str, Any]:
    """A roll of library use that failed where Luck could buy it a success (C7-4)."""
    for _ in range(100):
        rolled = table.roll(token, character_id, "library")
        if "luck" in {o["key"] for o in rolled.get("follow_ups", ())}:
            return rolled
    pytest.fail("no failed roll Luck could buy in 100 rolls")


_PLAYED: dict[str, str] = {}  # the honest exports, by database: read, never edited


@pytest.fixture(scope="module", params=DATABASES)
def honest(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """Every member's export of one table played once per database for the whole test
    process (this module's, the chain's and the replay's tests): the forgeries edit copies,
    so one play serves them all."""
    if request.param not in _PLAYED:
        url = database_for(request, tmp_path_factory.mktemp("forgeries"))
        with TestClient(create_app(url)) as client:
            table, tokens = played(Api(client))
            exports = {who: export(table, token) for who, token in tokens.items()}
        _PLAYED[request.param] = json.dumps(exports)
    return _PLAYED[request.param]


@pytest.fixture
def logs(honest: str) -> dict[str, Log]:
    """A test's own copy of the exports (a test may edit it in place)."""
    out: dict[str, Log] = json.loads(honest)
    return out


def test_every_member_s_honest_export_passes(logs: dict[str, Log], tmp_path: Path) -> None:
    """The GM's, the roller's and another player's: every roll verified, typed or hidden,
    none mismatched, and every seed announced before its rolls."""
    counts, seeds = {}, {}
    for who, log in logs.items():
        out = audit(log)
        assert out["ok"] and out["mismatch"] == 0 and out["unverifiable"] == 0, (who, out)
        # a sheet this viewer may not read is named, the targets of its rolls taken on trust
        unread = {"gm": [], "pat": ["Bob's sheet"], "sam": ["Alice's sheet"]}[who]
        assert [n.split(" is ")[0] for n in out["unchecked"]] == unread, (who, out)
        counts[who] = (out["verified"], out["typed"], out["hidden"])
        seeds[who] = out["seeds_revealed"]
    # Three open seeds and two blind ones, revealed to everyone; each private chain's seeds to
    # its audience: the GM's chain's three (its NPC's rolls), Pat's gm chain's one and the
    # GM's own self chain's one to the GM; to Pat their gm and self chains' one each; to Sam
    # their self chain's one.
    assert seeds == {"gm": 10, "pat": 7, "sam": 6}, seeds
    # (verified, typed, hidden): the GM sees all but Pat's and Sam's self rolls (and checks a
    # blind roll twice, made and shown); Pat the called contest's own side only, none of the
    # GM's gm and self rolls, nor Sam's self roll; Sam none of Pat's either (the secret call's
    # included), nor the contest's. Three typed: two checks and a contest's opponent side.
    # The Orc is the GM's: a player has its public roll, both public contests it is in and
    # its blind roll shown later by name and level only (withheld), the typed contest too.
    assert counts == {"gm": (17, 3, 2), "pat": (9, 2, 11), "sam": (7, 2, 13)}, counts
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in logs["sam"]))
    run = d100("verify", str(path))
    assert run.status == 0 and " 0 mismatched" in run.out, run


def test_a_typed_roll_is_reported_as_typed_not_drawn(logs: dict[str, Log]) -> None:
    """Rule G3: dice typed by hand are the typist's, not the seed's: verify says so."""
    typed = [c for c in audit(logs["gm"])["checks"] if c["status"] == "typed"]
    assert [c["kind"] for c in typed] == ["roll", "contest", "roll"], typed
    assert all("typed by hand" in c["reason"] for c in typed)
    assert "opponent.dice" in typed[1]["reason"]
    # The contest's actor is the GM's Orc: withheld from Pat, so not checked from Pat's export.
    theirs = [c for c in audit(logs["pat"])["checks"] if c["status"] == "typed"]
    assert [c["kind"] for c in theirs] == ["roll", "roll"], theirs


def test_the_opening_and_each_rotation_announce_the_seeds(logs: dict[str, Log]) -> None:
    log = logs["sam"]
    opening, rotations = log[0], [e for e in log if e["kind"] == "seed"]
    announced = [opening["active"], *(r["active"] for r in rotations)]
    assert [r["revealed"]["id"] for r in rotations] == [a["id"] for a in announced[:-1]]
    assert [r["revealed"]["commitment"] for r in rotations] == [
        a["commitment"] for a in announced[:-1]
    ]
    assert "server_seed" not in opening["active"] and opening["active"]["rolls"] == 0
    assert opening["blind"]["active"]["id"] == rotations[1]["blind"]["revealed"]["id"]
    assert "blind" not in rotations[0]  # its blind roll was not shown yet: its seed kept


@FORGERY
@pytest.mark.parametrize("which", [0, 1])
def test_a_whole_seed_replaced_after_its_announcement_fails(
    logs: dict[str, Log], which: int
) -> None:
    """The first seed (announced by the opening) or the second (by a rotation) swapped for
    another, every roll made with it recomputed under the new one: each roll is named."""
    for who in ("gm", "pat"):
        log = copy(logs[who])
        rotation = [e for e in log if e["kind"] == "seed"][which]
        seed_id = rotation["revealed"]["id"]
        other = bytes(range(32))
        rotation["revealed"] |= {"server_seed": other.hex(), "commitment": commitment(other)}
        rolls = drawn_rolls(log, seed_id)
        assert rolls
        for entry in rolls:
            entry["provable"]["commitment"] = commitment(other)
            entry["result"] = recomputed(entry, other)
        bad = failed(log)
        assert rotation["seq"] in bad and "announced" in bad[rotation["seq"]], bad
        for entry in rolls:
            assert "commitment" in bad[entry["seq"]], (who, entry["seq"], bad)


@FORGERY
def test_a_typed_roll_relabelled_as_drawn_fails(logs: dict[str, Log]) -> None:
    for who, count in (("gm", 3), ("pat", 2)):  # Pat's withheld contest is not checked
        log = copy(logs[who])
        typed = [e for e in log if e.get("manual") and "withheld" not in e]
        assert len(typed) == count
        for entry in typed:
            entry["manual"] = False
        bad = failed(log)
        for entry in typed:
            assert "typed by hand" in bad[entry["seq"]] and "drawn" in bad[entry["seq"]], bad
    # And the other way: a drawn roll said to be typed (to excuse its dice) fails too.
    log = copy(logs["pat"])
    drawn = drawn_rolls(log)[0]
    drawn["manual"] = True
    assert "no dice" in failed(log)[drawn["seq"]]


@FORGERY
def test_an_edited_top_level_request_fails(logs: dict[str, Log]) -> None:
    for who in ("gm", "pat"):
        log = copy(logs[who])
        roll = drawn_rolls(log)[0]
        roll["request"]["skill"] = 5
        assert "request differs" in failed(log)[roll["seq"]], who


def _edit_outcome(entry: dict[str, Any]) -> None:
    result = entry["result"]
    result["roll"] = result["dice"][0] = result["dice"][0] % 100 + 1
    result["success"] = not result["success"]


@FORGERY
def test_an_edited_outcome_marked_withheld_is_no_hidden_roll(logs: dict[str, Log]) -> None:
    """A ``withheld`` key added to a roll whose outcome was edited: not counted hidden."""
    for who in ("gm", "pat", "sam"):
        log = copy(logs[who])
        roll = next(e for e in drawn_rolls(log) if e["kind"] == "roll")
        _edit_outcome(roll)
        roll["withheld"] = "opponent"
        out = audit(log)
        check = next(c for c in out["checks"] if c["seq"] == roll["seq"])
        assert check["status"] == "mismatch" and "withheld" in check["reason"], (who, check)
    # The GM's export of the called contest, said to withhold the side it shows: caught too.
    log = copy(logs["gm"])
    contest = next(e for e in log if e["kind"] == "contest" and "call" in e)
    contest["withheld"] = "opponent"
    assert "yet shows it" in failed(log)[contest["seq"]]


def _withheld_contests(log: Log) -> list[dict[str, Any]]:
    """The contests a player sees one side of, the GM's Orc's side withheld."""
    return [e for e in log if e["kind"] == "contest" and "withheld" in e]


def _shown_side(entry: dict[str, Any]) -> str:
    return "opponent" if entry["withheld"] == ["actor"] else "actor"


def _roll_99_against_5(entry: dict[str, Any]) -> None:
    """The report's self-contradicting side: 99 against a target of 5, said critical."""
    side = _shown_side(entry)
    entry["result"][side] |= {"roll": 99, "dice": [99], "digits": [[9, 9]], "attempts": [99]}
    entry["result"][side] |= {"level": "critical", "success": True, "target": 5, "margin": -94}
    entry["request"][side]["skill"] = 5


FORGED_SIDES: dict[str, Callable[[dict[str, Any]], None]] = {
    # another die than it rolled (a 100 becomes 1): an edit that changes nothing is no forgery
    "its die": lambda e: e["result"][_shown_side(e)]["dice"].__setitem__(
        0, 1 if e["result"][_shown_side(e)]["dice"][0] == 100 else 100
    ),
    # another level than it reached (a critical becomes a fumble): seeds are random
    "its level": lambda e: e["result"][_shown_side(e)].update(
        level="fumble" if e["result"][_shown_side(e)]["level"] == "critical" else "critical",
        success=e["result"][_shown_side(e)]["level"] == "critical",
    ),
    "its margin": lambda e: e["result"][_shown_side(e)].update(
        margin=(e["result"][_shown_side(e)].get("margin") or 0) + 77
    ),
    "its request's skill": lambda e: e["request"][_shown_side(e)].update(skill=5),
    "99 against 5, critical": _roll_99_against_5,
    # a system whose sides read each other's numbers, so that the side is not recomputed
    "its request's system": lambda e: e["request"].update(system="chances"),
}


@FORGERY
@pytest.mark.parametrize("forgery", FORGED_SIDES)
def test_a_contest_side_shown_beside_a_withheld_npc_side_follows_from_its_dice(
    logs: dict[str, Log], forgery: str
) -> None:
    """A player sees their side of a contest against the GM's Orc whole, drawn from the GM's
    chain: its outcome edited away from what its own request and dice give fails naming the
    roll, whichever side is shown (the Orc acting or opposing, the contest called or not)."""
    for who in ("pat", "sam"):
        log = copy(logs[who])
        contests = _withheld_contests(log)
        assert {_shown_side(e) for e in contests} == {"actor", "opponent"}, contests
        for entry in contests:
            FORGED_SIDES[forgery](entry)
        bad = failed(log)
        for entry in contests:
            side = _shown_side(entry)
            said = bad[entry["seq"]]
            assert f"its {side}'s side" in said or "table's" in said, (who, forgery, bad)


@FORGERY
def test_a_roll_relabelled_to_another_character_or_skill_fails(logs: dict[str, Log]) -> None:
    """The provable record binds whose roll it is and of which skill: a roll credited to
    another character (or to another name or member with the id kept), or to another skill,
    fails naming it, withheld contests included."""
    log = logs["pat"]
    made = [e["character"] for e in log if e["kind"] == "character"]
    bob = next(c for c in made if c["name"] == "Bob")
    for relabel, words in (
        (lambda e: e.update(skill="dodge" if e["skill"] != "dodge" else "stealth"), "shows skill"),
        (lambda e: e.update(character=dict(bob)), "shows character.id"),
        (lambda e: e["character"].update(name="Bob"), "shows character.name"),
        (lambda e: e["character"].update(member_id=bob["member_id"]), "shows character.member_id"),
    ):
        forged = copy(log)
        rolls = [e for e in forged if e["kind"] in DRAWN and e["character"]["name"] == "Alice"]
        assert any("withheld" in e for e in rolls)
        for entry in rolls:
            relabel(entry)
        bad = failed(forged)
        for entry in rolls:
            assert words in bad[entry["seq"]] and "binds" in bad[entry["seq"]], (words, bad)


@FORGERY
def test_a_roll_logged_before_its_character_and_skill_were_bound_still_verifies(
    logs: dict[str, Log],
) -> None:
    for who, log in logs.items():
        log = unchained(log)  # a log that old is from before the chain too
        old = copy(log)
        for entry in old:
            for key in ("character_id", "character_name", "member_id", "skill"):
                entry.get("provable", {}).pop(key, None)
        assert audit(old) == audit(log), who


@FORGERY
def test_an_edited_outcome_without_its_provable_request_is_no_old_roll(
    logs: dict[str, Log],
) -> None:
    """``provable.request`` removed, so the edited outcome cannot be recomputed: not counted
    "not yet verifiable" (only an older log's rolls, made before d100 kept it, are)."""
    for who in ("gm", "pat", "sam"):
        log = copy(logs[who])
        roll = drawn_rolls(log)[-1]
        _edit_outcome(roll)
        del roll["provable"]["request"]
        out = audit(log)
        check = next(c for c in out["checks"] if c["seq"] == roll["seq"])
        assert check["status"] == "mismatch" and "no request" in check["reason"], (who, check)
        assert out["unverifiable"] == 0


@FORGERY
def test_a_result_removed_to_pass_for_a_blind_roll_fails(logs: dict[str, Log]) -> None:
    for visibility in ("public", "blind"):
        log = copy(logs["sam"])
        roll = drawn_rolls(log)[0]
        del roll["result"]
        roll |= {"visibility": visibility, "hidden": True}
        assert "not a blind roll" in failed(log)[roll["seq"]], visibility


@FORGERY
def test_the_last_roll_of_a_seed_dropped_with_the_reveal_s_count_fails(
    logs: dict[str, Log],
) -> None:
    """Whether the viewer saw that roll or had its stub: the gap in the numbers names it."""
    for who in ("gm", "pat", "sam"):
        log = copy(logs[who])
        rotation = next(e for e in log if e["kind"] == "seed")
        seed_id = rotation["revealed"]["id"]
        last = [e for e in log if e.get("provable", {}).get("seed_id") == seed_id][-1]
        assert last["kind"] != "unblind"
        rotation["revealed"]["rolls"] -= 1
        log.remove(last)
        bad = failed(log)
        assert last["seq"] in bad and "missing" in bad[last["seq"]], (who, bad)


@FORGERY
def test_a_blind_roll_never_shown_before_its_seed_s_reveal_fails(logs: dict[str, Log]) -> None:
    """A blind seed is revealed only once its every roll was shown: a showing left out of
    the log (renumbered, so no gap tells it) still leaves its roll unshown."""
    log = copy(logs["sam"])
    shown = next(e for e in log if e["kind"] == "unblind")
    at = log.index(shown)
    del log[at]
    for entry in log[at:]:
        entry["seq"] -= 1
    assert "never shown" in failed(log)[shown["unblinds"]]


@FORGERY
def test_an_older_table_s_log_says_what_it_cannot_check(logs: dict[str, Log]) -> None:
    """A table opened before the opening announced its seeds: its log still passes, and
    verify says what it could not check; a roll made before d100 kept its request is not
    yet verifiable, not a mismatch."""
    log = copy(logs["gm"])
    del log[0]["active"], log[0]["blind"]
    old = drawn_rolls(log)[0]
    del old["provable"]["request"], old["provable"]["engine"]
    out = audit(log)
    assert out["ok"] and out["unverifiable"] == 1, out
    assert len(out["unchecked"]) == 1 and "announces no seed" in out["unchecked"][0]
    # Its later seeds are announced by rotations, and bound as in any log.
    rotation = [e for e in log if e["kind"] == "seed"][1]
    rotation["revealed"]["commitment"] = commitment(b"another")
    assert rotation["seq"] in failed(log)


COC7 = """name = "{name}"
system = "coc7"
luck = {{ current = 50, maximum = 99 }}
skills = {{ "library use" = 60 }}
"""


def test_c7_4_luck_spent_on_a_drawn_roll_verifies_as_drawn(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Luck spent after the roll reads the roll made: its request gives that roll's dice,
    drawn by the seed, so it verifies as drawn; dice of its own there are typed, and caught."""
    monkeypatch.setitem(SHEETS, "coc7", COC7)
    table = api.table("coc7")
    pat = table.join("Pat")
    ada = table.character(pat, "Ada")
    rolled = luck_buyable(table, pat, ada)
    luck = {"follow_up": "luck"}  # rule: C7-4
    bought = table.ok("POST", f"/rolls/{rolled['seq']}/reroll", pat, 201, json=luck)
    assert bought["provable"]["request"]["dice"] == rolled["result"]["dice"]
    table.ok("POST", "/seeds/rotate", table.gm)
    log = export(table, pat)
    out = audit(log)
    assert out["ok"] and out["typed"] == 0 and out["verified"] == out["rolls"], out
    forged = copy(log)
    entry = next(e for e in forged if e["seq"] == bought["seq"])
    other = [rolled["result"]["dice"][0] % 100 + 1]
    entry["provable"]["request"]["dice"] = entry["request"]["dice"] = other
    entry["result"] = json.loads(json.dumps(resolve(entry["provable"]["request"]).to_dict()))
    assert "typed by hand" in failed(forged)[bought["seq"]]


@FORGERY
def test_human_report_names_the_forged_roll(logs: dict[str, Log], tmp_path: Path) -> None:
    log = copy(logs["pat"])
    roll = drawn_rolls(log)[0]
    roll["request"]["skill"] = 99
    path = tmp_path / "forged.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in log))
    run = d100("verify", str(path))
    assert run.status == 1 and f"#{roll['seq']} roll" in run.out and "request" in run.out, run


ODD = (None, [], {}, "x", "", -1, 0, 2**70, True, 1.5, {"a": []}, [{}], "00" * 32)
# What a roll's provable record binds, in the GM's export (every roll whole but the players'
# self rolls): a change there is caught. The rest (names, times, odds, offers) is the
# server's words about it.
BOUND = re.compile(
    r"^#\d+ (roll|contest|unblind)\.(result|request|provable\.(request|commitment|nonce|"
    r"seed_id|client_seed))\b(?!.*\b(explanation|bands)\b)"
)


def _mutate(log: Log, rng: random.Random, bound: bool = False) -> str | None:
    """One random change somewhere in the log (``bound``: in what a drawn roll's provable
    record binds, its result, request or provable record): a key dropped, a value of another
    kind, an event left out. What it changed, said; None if it changed nothing."""
    if not bound and rng.random() < 0.1:
        gone = log.pop(rng.randrange(1, len(log)))
        return f"#{gone['seq']} {gone['kind']} left out"
    drawn = [e for e in log if e["kind"] in (*DRAWN, "unblind") and "result" in e]
    node: Any = rng.choice(drawn if bound else log)
    where = f"#{node['seq']} {node['kind']}"
    parts = [k for k in ("result", "request", "provable") if k in node] if bound else None
    while True:
        keys = parts or (list(node) if isinstance(node, dict) else list(range(len(node))))
        parts = None
        if not keys:
            return None
        key = rng.choice(keys)
        where += f".{key}"
        inner = node[key]
        if isinstance(inner, dict | list) and inner and rng.random() < 0.6:
            node = inner
            continue
        if rng.random() < 0.3:
            del node[key]
            return f"{where} dropped"
        value = rng.choice(ODD)
        if value == inner and type(value) is type(inner):
            return None
        node[key] = value
        return f"{where} = {value!r}"


@FORGERY
@pytest.mark.parametrize("value", [[], {}, ["gm"]], ids=["list", "object", "a list of ids"])
def test_a_member_id_made_a_list_or_object_is_reported_never_a_crash(
    logs: dict[str, Log], value: Any
) -> None:
    """Ids compared with the table's GMs may be any JSON value in a changed log (the fuzz
    below found a list there raise TypeError): every roll's actor and named characters."""
    for kind, part in (("contest", "opponent"), ("roll", "character"), ("roll", "actor_id")):
        forged = copy(logs["gm"])
        event = next(e for e in forged if e.get("kind") == kind)
        if part == "actor_id":
            event["actor_id"] = value
        else:
            event[part]["member_id"] = value
        audit(forged)  # a report, whatever it finds: no TypeError


@pytest.mark.slow
@FORGERY
def test_a_log_changed_anywhere_is_reported_never_a_crash(logs: dict[str, Log]) -> None:
    """Whatever is changed, verify answers: a report, or the error naming the line (exit 2),
    never another exception (a traceback). In the GM's export, a change to what a roll's
    provable record binds, or an event left out (but the last), is never a clean report."""
    rng = random.Random(20)
    passed: list[str] = []
    tried = 0
    for who, log in logs.items():
        # Every fourth change of the GM's export lands in what a drawn roll binds, where a
        # change must fail (a change anywhere landed there once in sixteen); the others
        # anywhere, each asked for an answer.
        for n in range(depth(150, 1200) if who == "gm" else depth(40, 300)):
            # without its links, so each change lands where it did before the chain
            # (tests/server/test_chain.py changes the links)
            forged = unchained(log)
            change = _mutate(forged, rng, bound=who == "gm" and n % 4 == 3)
            if change is None:
                continue
            tried += who == "gm" and bool(BOUND.match(change))
            try:
                clean = audit(forged)["ok"]
            except D100Error:
                continue
            last = f"#{log[-1]['seq']} "
            left_out = change.endswith("left out") and not change.startswith(last)
            if clean and who == "gm" and (BOUND.match(change) or left_out):
                passed.append(change)
    assert passed == [] and tried >= depth(24, 96), (passed, tried)


DEEP = 100_000


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(lambda: os.urandom(4096), id="binary"),
        pytest.param(lambda: b"\x00\x01\x02 \xff\xfe", id="bytes-not-utf8"),
        pytest.param(lambda: b'{"seq":1,"kind":"table"}\n\x00\x00\x00\n', id="nul-bytes"),
        pytest.param(lambda: ('{"a":' * DEEP + "1" + "}" * DEEP).encode(), id="deep-objects"),
        pytest.param(lambda: ("[" * DEEP + "]" * DEEP).encode(), id="deep-arrays"),
        pytest.param(
            lambda: (
                '{"seq":1,"kind":"table"}\n{"seq":2,"kind":"roll","result":'
                + "[" * DEEP
                + "]" * DEEP
                + "}\n"
            ).encode(),
            id="deep-inside-an-event",
        ),
        pytest.param(
            lambda: (
                '{"seq":1,"kind":"table"}\n{"seq":2,"kind":"roll","provable":'
                + '{"a":' * 900
                + "1"
                + "}" * 900
                + "}\n"
            ).encode(),
            id="nested-900-as-a-provable-record",
        ),
        pytest.param(lambda: b'{"seq":1,"kind":"table"}\n[1, 2]\n', id="line-an-array"),
        pytest.param(lambda: b'{"seq":1,"kind":"table"}\n"text"\n', id="line-a-string"),
        pytest.param(lambda: b'{"seq":1,"kind":"table"}\nnull\n', id="line-null"),
        pytest.param(lambda: b"42\n", id="a-number"),
    ],
)
def test_a_file_that_is_no_log_is_status_2_in_one_line(
    content: Callable[[], bytes], tmp_path: Path
) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(content())
    run = d100("verify", str(path))
    first = clean_error(run)
    assert run.err.strip() == first and len(first) < 400, run.err[:500]


@FORGERY
def test_a_roll_s_odds_edited_fails(logs: dict[str, Log]) -> None:
    """The odds logged beside a roll (what the luck ledger expects) are its request's: a
    drawn check's success made less likely, or its odds taken out, fails naming the roll, in
    the GM's and a player's export (the ledger of such a log would call honest dice lucky)."""
    for who in ("gm", "pat"):
        for edit in (
            lambda e: e["odds"].update(success="1/100"),
            lambda e: e.update(odds=None),
        ):
            log = copy(logs[who])
            rolls = [
                e
                for e in log
                if e["kind"] == "roll" and "withheld" not in e and "result" in e
                if not e["manual"] and "reroll_of" not in e and e.get("odds")
            ]
            assert rolls, who
            for entry in rolls:
                edit(entry)
            bad = failed(log)
            for entry in rolls:
                assert "its odds are not its request's" in bad[entry["seq"]], (who, bad)


@FORGERY
def test_a_roll_s_view_edited_fails_against_a_witnessed_head(
    logs: dict[str, Log], tmp_path: Path
) -> None:
    """How a roll reads (its ``view``: level, verdict, roll) is worked out from its result,
    so the chain does not bind it: a check said to read as a fumble, every link unchanged,
    fails naming the roll, even against the head its member saw, in the GM's and a
    player's export."""
    for who in ("gm", "pat"):
        log = copy(logs[who])
        head = log[-1]["head"]
        entry = next(
            e
            for e in log
            if e["kind"] == "roll" and "withheld" not in e and "result" in e and "view" in e
        )
        # a roll other than its own: the first roll may have been a 100 fumble already
        other = 99 if entry["view"].get("roll") == 100 else 100
        entry["view"].update(level="fumble", verdict="a failure", roll=other)
        path = tmp_path / f"{who}.jsonl"
        path.write_text("".join(json.dumps(e) + "\n" for e in log))
        run = d100("verify", str(path), "--head", f"{head['seq']}:{head['link']}")
        assert run.status == 1, run.out
        assert f"#{entry['seq']} roll (line" in run.out and "reads otherwise" in run.out, run.out


@FORGERY
def test_a_roll_logged_by_another_engine_names_its_view_unchecked(logs: dict[str, Log]) -> None:
    """A roll another engine logged may word its view otherwise, so its view is not held to
    this engine's reading: it is named under "not checked" with the engine and why, never
    passed in silence; an honest export names nothing so."""
    for who in ("gm", "pat"):
        assert not any("logged by engine" in n for n in audit(copy(logs[who]))["unchecked"])
        log = copy(logs[who])
        entry = next(
            e
            for e in log
            if e["kind"] == "roll" and "withheld" not in e and "result" in e and "view" in e
        )
        entry["provable"]["engine"] = "0.0.1"
        entry["view"].update(level="fumble", verdict="a failure")
        out = audit(log)
        assert out["ok"], [c["reason"] for c in out["checks"] if c["status"] == "mismatch"]
        (note,) = [n for n in out["unchecked"] if "logged by engine" in n]
        assert f"#{entry['seq']} " in note and '"0.0.1"' in note and "word" in note, note
