"""``d100 verify`` replays the table (issue 34, item 2): each roll's request must follow from
the sheet its character had then (as created and edited), the Luck it had left and the call
it answers. Each forgery here keeps the dice honest (the result recomputed from the revealed
seed, as ``d100 resolve`` would, and the chain relinked), so only the replay catches it; a
sheet the viewer may not read is named, and what rests on it is reported as taken on trust."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from d100.declared import roller as declared_roll
from d100.engine import odds, resolve
from d100.provable import ProvableSource
from d100.result_view import result_view
from d100.systems import REGISTRY
from tests.cli.conftest import d100

from .forging import unchained
from .played import SANITY
from .tablehelp import SHEETS, Api
from .test_verify_forgeries import (
    COC7,
    FORGERY,
    Log,
    _shown_side,
    _withheld_contests,
    audit,
    copy,
    export,
    failed,
    honest,
    logs,
    luck_buyable,
    recomputed,
    revealed_seeds,
)

pytestmark = pytest.mark.sqlite_only(
    "The replay is verify's, reading an export file. The exports themselves are made and "
    "read on both databases by test_verify.py, test_verify_forgeries.py and "
    "test_chain.py."
)

__all__ = ["honest", "logs"]  # the played table's exports, shared with the forgeries' tests
WHOLE = ["dice", "target", "level", "outcome"]


def _check(log: Log, seq: int) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in audit(log)["checks"] if c["seq"] == seq)
    return found


def _plain_rolls(log: Log, name: str) -> list[dict[str, Any]]:
    """A character's drawn checks this export shows whole, asked freely (no call, no
    follow-up, no dice typed by hand)."""
    return [
        e
        for e in log
        if e["kind"] == "roll"
        and e["character"]["name"] == name
        and "result" in e
        and "withheld" not in e
        and not e["manual"]
        and "call" not in e
        and "reroll_of" not in e
    ]


def _raise(entry: dict[str, Any], seeds: dict[str, bytes], skill: int, side: str = "") -> None:
    """A skill raised in the roll's request and its provable record, its result recomputed
    from its own dice: the forgery the dice alone cannot catch."""
    for request in (entry["request"], entry["provable"]["request"]):
        (request[side] if side else request)["skill"] = skill
    entry["result"] = recomputed(entry, seeds[entry["provable"]["seed_id"]])
    entry["odds"] = json.loads(json.dumps(odds(entry["request"]).to_dict()))
    if not side:  # and how it reads, worked out again as the server would
        offers = entry.get("follow_ups") or ()
        reading = result_view(entry["result"], entry["odds"], offers, entry.get("follow_up"))
        entry["view"] = json.loads(json.dumps(reading.to_dict()))


@FORGERY
def test_a_roll_made_a_success_by_raising_its_skill_fails(
    logs: dict[str, Log], tmp_path: Path
) -> None:
    """In the GM's and the roller's exports each of Alice's rolls is proven whole; raised to
    99 with its result recomputed, each fails naming her sheet. In another player's export,
    which does not hold Bob's sheet, Bob's roll so raised is no mismatch, but its target is
    reported as taken on trust, naming Bob's sheet."""
    for who in ("gm", "pat"):
        log = copy(logs[who])
        rolls = _plain_rolls(log, "Alice")
        assert rolls
        for entry in rolls:
            assert _check(log, entry["seq"])["proven"] == WHOLE, (who, entry["seq"])
            _raise(entry, revealed_seeds(log), 99)
        bad = failed(log)
        for entry in rolls:
            said = bad[entry["seq"]]
            assert "skill 99" in said and "Alice's sheet then" in said, (who, said)
    log = copy(logs["pat"])
    bob = _plain_rolls(log, "Bob")[0]
    _raise(bob, revealed_seeds(log), 99)
    check = _check(log, bob["seq"])
    assert check["status"] == "verified" and "target" not in check["proven"], check
    assert any("Bob's sheet" in t for t in check["trusted"]), check
    path = tmp_path / "pat.jsonl"  # the report as a person reads it: per roll, then by name
    path.write_text("".join(json.dumps(e) + "\n" for e in logs["pat"]))
    run = d100("verify", str(path))
    assert run.status == 0 and f"#{bob['seq']} roll (line {bob['seq']}): proven dice; " in run.out
    assert "on trust: the actor's target: Bob's sheet is kept" in run.out, run.out
    assert "not checked: Bob's sheet is kept from this viewer" in run.out, run.out


def _unbound(entry: dict[str, Any]) -> None:
    for key in ("character_id", "character_name", "member_id", "skill"):
        entry["provable"].pop(key, None)


@FORGERY
def test_a_roll_unbound_and_moved_to_a_made_up_character_or_another_skill_fails(
    logs: dict[str, Log],
) -> None:
    """The character and skill its provable record binds deleted (so that it would pass for
    a roll logged before the binding), then moved to a made-up character, or to another skill
    of the same value: a roll linked in the chain binds them, and the log never made such a
    character. Every check and contest of Alice's, withheld contests included."""
    for who in ("gm", "pat"):
        for move, words in (
            (lambda e: e["character"].update(id="MADEUPMADEUP", name="Zed"), "binds no"),
            (lambda e: e.update(skill="dodge"), "binds no"),
        ):
            log = copy(logs[who])
            rolls = [e for e in log if e["kind"] in ("roll", "contest")]
            rolls = [e for e in rolls if e["character"]["name"] == "Alice"]
            assert any("withheld" in e for e in rolls) == (who == "pat")
            for entry in rolls:
                _unbound(entry)
                move(entry)
            bad = failed(log)
            for entry in rolls:
                assert words in bad[entry["seq"]], (who, bad)
    # and in a log from before the chain, where an unbound roll may be an older one, the
    # made-up character is one the log never made
    log = unchained(copy(logs["gm"]))
    roll = _plain_rolls(log, "Alice")[0]
    _unbound(roll)
    roll["character"] |= {"id": "MADEUPMADEUP", "name": "Zed"}
    assert "a character the log never made" in failed(log)[roll["seq"]]


@FORGERY
def test_a_skill_raised_inside_a_contest_fails(logs: dict[str, Log]) -> None:
    """The GM's export holds both sides' sheets: the Orc's side raised fails naming its sheet.
    A player's export shows Alice's side whole beside the Orc's withheld one: raised, and its
    side's result recomputed from its own dice, it fails naming Alice's sheet."""
    log = copy(logs["gm"])
    contest = next(
        e
        for e in log
        if e["kind"] == "contest" and "call" not in e and not e["manual"] and "result" in e
    )
    _raise(contest, revealed_seeds(log), 99, "opponent")
    said = failed(log)[contest["seq"]]
    assert "opponent's request has skill 99" in said and "Orc's sheet then" in said, said
    log = copy(logs["pat"])
    contests = _withheld_contests(log)
    assert contests
    for entry in contests:
        side = _shown_side(entry)
        hidden = "actor" if side == "opponent" else "opponent"
        mine = {**entry["request"][side], "skill": 99}
        stand_in = {**entry["request"], side: {**mine, "dice": entry["result"][side]["dice"]}}
        again = resolve(stand_in | {hidden: mine}, ProvableSource(b"", "", 0)).to_dict()
        binds = REGISTRY.get("brp").declares.binds_other_side
        entry["request"][side] = mine
        entry["result"][side] = {k: v for k, v in again[side].items() if k not in binds}
    bad = failed(log)
    for entry in contests:
        assert "Alice's sheet then" in bad[entry["seq"]], bad


@FORGERY
def test_a_called_roll_follows_its_call(logs: dict[str, Log]) -> None:
    """The roll answering the GM's secret call of Spot: relabelled as a roll of another skill
    (Alice's own value for it, so her sheet agrees), or given a difficulty the GM did not
    ask, it fails naming the call."""
    for who in ("gm", "pat"):
        for forge, words in (
            (lambda e: e.update(skill="stealth"), "where call"),
            (lambda e: e["request"].update(difficulty="hard"), "adds difficulty"),
        ):
            log = copy(logs[who])
            entry = next(e for e in log if e["kind"] == "roll" and "call" in e)
            assert _check(log, entry["seq"])["proven"] == WHOLE
            forge(entry)
            if entry["skill"] == "stealth":
                entry["provable"]["skill"] = "stealth"
                entry["request"]["skill"] = 65
            entry["provable"]["request"] = {**entry["provable"]["request"], **entry["request"]}
            entry["result"] = recomputed(entry, revealed_seeds(log)[entry["provable"]["seed_id"]])
            said = failed(log)[entry["seq"]]
            assert words in said, (who, said)


def test_the_sheet_as_edited_is_the_one_rolled_from(api: Api) -> None:
    """A sheet edited by the GM between two rolls: the player's export holds the edit (its
    readers see it, another player a stub), each roll is proven whole from the sheet it was
    rolled from, and the first roll claiming the edited value fails."""
    table = api.table("brp")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice = table.character(pat, "Alice")
    table.roll(pat, alice, "stealth")
    sheet = SHEETS["brp"].format(name="Alice").replace("stealth = 65", "stealth = 80")
    table.ok("PUT", f"/characters/{alice}", table.gm, json={"sheet": sheet})
    table.roll(pat, alice, "stealth")
    table.ok("POST", "/seeds/rotate", table.gm)
    log = export(table, pat)
    edit = next(e for e in log if e.get("change") == "edited")
    assert edit["sheet"]["skills"]["stealth"] == 80 and edit["changes"]
    theirs = next(e for e in export(table, sam) if e["seq"] == edit["seq"])
    assert theirs["kind"] == "hidden" and "sheet" not in theirs
    created = next(e for e in export(table, sam) if e.get("change") == "created")
    assert created["withheld"] == ["sheet"] and "sheet" not in created
    out = audit(log)
    assert out["ok"] and out["unchecked"] == [] and out["proven_whole"] == 2, out
    first = _plain_rolls(log, "Alice")[0]
    _raise(first, revealed_seeds(log), 80)
    assert "gives Alice's stealth 65" in failed(log)[first["seq"]]


def test_luck_spent_beyond_what_was_left_fails(api: Api) -> None:
    """BRP7: Alice has 3 Luck and spends 1 on each of three rolls. Her sheet as created,
    forged to say 2, leaves the third spend more than she had."""
    table = api.table("brp")
    pat = table.join("Pat")
    alice = table.character(pat, "Alice")
    boosted = [
        table.roll(pat, alice, "stealth", actor={"fields": {"luck_boost": True}}) for _ in range(3)
    ]
    table.ok("POST", "/seeds/rotate", table.gm)
    log = export(table, pat)
    assert audit(log)["proven_whole"] == 3
    created = next(e for e in log if e.get("change") == "created")
    created["sheet"]["luck"]["current"] = 2
    assert "spends 1 Luck, having 0" in failed(log)[boosted[-1]["seq"]]


@FORGERY
def test_an_older_log_without_sheets_names_each_unchecked(logs: dict[str, Log]) -> None:
    """A log from before d100 logged sheets still passes: each character's sheet is named as
    not in the log, and no roll's target is proven."""
    for who, log in logs.items():
        old = unchained(log)
        for entry in old:
            if entry["kind"] == "character":
                entry.pop("sheet", None)
                entry.pop("withheld", None)
        out = audit(old)
        assert out["ok"] and out["proven_whole"] == 0, (who, out)
        named = {n.split("'s sheet")[0] for n in out["unchecked"] if "sheet" in n}
        assert named == {"Alice", "Bob", "Orc"} - ({"Orc"} if who != "gm" else set()), out
        assert all("before d100 logged sheets" in n for n in out["unchecked"] if "sheet" in n)


def test_a_player_s_export_shows_only_the_sheets_they_read(logs: dict[str, Log]) -> None:
    """A hostile player learns nothing of another's sheet from the export: Bob's and the
    Orc's creation events carry no sheet in Pat's export, Alice's does; the GM's has all."""
    for who, readable in (("pat", {"Alice"}), ("sam", {"Bob"}), ("gm", {"Alice", "Bob", "Orc"})):
        made = [e for e in logs[who] if e.get("change") == "created"]
        assert {e["character"]["name"] for e in made if "sheet" in e} == readable, who
        text = json.dumps([e for e in made if e["character"]["name"] not in readable])
        assert '"skills"' not in text and '"luck"' not in text, who


def test_a_sheet_the_gm_reveals_is_replayed_by_every_member(api: Api) -> None:
    """Bob's sheet, created and edited, is kept from Pat, so Pat's export takes Bob's targets
    on trust; once the GM reveals it (a player may not), Pat's export opens each commitment
    and proves Bob's rolls whole, a raised skill fails, and a reveal showing another sheet
    than was committed to, or leaving one out, fails naming the reveal."""
    table = api.table("brp")
    pat, sam = table.join("Pat"), table.join("Sam")
    table.character(pat, "Alice")
    bob = table.character(sam, "Bob")
    table.roll(sam, bob, "stealth")
    sheet = SHEETS["brp"].format(name="Bob").replace("stealth = 65", "stealth = 70")
    table.ok("PUT", f"/characters/{bob}", sam, json={"sheet": sheet})
    table.roll(sam, bob, "stealth")
    table.ok("POST", "/seeds/rotate", table.gm)
    before = audit(export(table, pat))
    assert before["ok"] and before["proven_whole"] == 0, before
    assert [n.split(" is ")[0] for n in before["unchecked"]] == ["Bob's sheet"]
    table.ok("POST", f"/characters/{bob}/reveal", pat, 403)
    shown = table.ok("POST", f"/characters/{bob}/reveal", table.gm, 201)
    assert [s["sheet"]["skills"]["stealth"] for s in shown["sheets"]] == [65, 70]
    log = export(table, pat)
    after = audit(log)
    assert after["ok"] and after["unchecked"] == [] and after["proven_whole"] == 2, after
    for token in (table.gm, sam):  # the sheet's readers: the reveal opens what they saw
        assert audit(export(table, token))["ok"]
    # an edit after the reveal is a stub to Pat again: Bob's later roll rests on trust
    later = sheet.replace("stealth = 70", "stealth = 90")
    table.ok("PUT", f"/characters/{bob}", table.gm, json={"sheet": later})
    again = table.roll(sam, bob, "stealth")
    table.ok("POST", "/seeds/rotate", table.gm)
    out = audit(export(table, pat))
    assert out["ok"] and out["proven_whole"] == 2, out
    assert [n.split(" is ")[0] for n in out["unchecked"]] == ["Bob's sheet"], out
    assert f"#{again['seq']}" in out["unchecked"][0]
    first = _plain_rolls(log, "Bob")[0]
    forged = copy(log)
    _raise(next(e for e in forged if e["seq"] == first["seq"]), revealed_seeds(log), 70)
    assert "gives Bob's stealth 65" in failed(forged)[first["seq"]]
    reveal = next(e for e in log if e["kind"] == "reveal_sheet")
    for forge, words in (
        (lambda e: e["sheets"][0]["sheet"]["skills"].update(stealth=99), "committed to it"),
        (lambda e: e["sheets"].pop(0), "but not the one"),
    ):
        forged = copy(log)
        forge(next(e for e in forged if e["seq"] == reveal["seq"]))
        assert words in failed(forged)[reveal["seq"]], words


def test_c7_4_luck_spent_is_the_luck_a_later_luck_roll_is_made_against(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Luck bought a failed roll a success (C7-4): a Luck roll after it is made against the
    Luck left, and proven so; forged to the Luck Ada had before, it fails naming her Luck."""
    monkeypatch.setitem(SHEETS, "coc7", COC7)
    table = api.table("coc7")
    pat = table.join("Pat")
    ada = table.character(pat, "Ada")
    rolled = luck_buyable(table, pat, ada)
    bought = table.ok(
        "POST", f"/rolls/{rolled['seq']}/reroll", pat, 201, json={"follow_up": "luck"}
    )
    luck = table.roll(pat, ada, "luck")
    assert luck["request"]["skill"] == 50 - bought["luck_spent"] < 50
    table.ok("POST", "/seeds/rotate", table.gm)
    log = export(table, pat)
    out = audit(log)
    assert out["ok"] and _check(log, luck["seq"])["proven"] == WHOLE, out
    entry = next(e for e in log if e["seq"] == luck["seq"])
    _raise(entry, revealed_seeds(log), 50)
    assert "gives Ada's Luck" in failed(log)[luck["seq"]]


def test_an_ability_the_roller_names_is_one_on_the_sheet(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the table adds an ability to a skill and the sheet does not say which, the
    roller names one of the sheet's: proven whole whichever; a value the sheet has for none
    of its abilities fails."""
    unsaid = SHEETS["chances"].replace('uses = {{ sneaking = "dex", hearing = "per" }}\n', "")
    monkeypatch.setitem(SHEETS, "chances", unsaid)
    table = api.table("chances")
    pat = table.join("Pat")
    ivy = table.character(pat, "Ivy")
    made = [
        table.roll(pat, ivy, "sneaking", actor={"ability": name, "fields": {"risk": "tough"}})
        for name in ("dex", "per")
    ]
    assert [m["request"]["ability"] for m in made] == [10, 5]
    table.ok("POST", "/seeds/rotate", table.gm)
    log = export(table, pat)
    assert audit(log)["proven_whole"] == 2
    entry = next(e for e in log if e["seq"] == made[1]["seq"])
    for request in (entry["request"], entry["provable"]["request"]):
        request["ability"] = 30
    entry["result"] = recomputed(entry, revealed_seeds(log)[entry["provable"]["seed_id"]])
    assert "has ability 30, where Ivy's sheet" in failed(log)[made[1]["seq"]]


def _declared_again(entry: dict[str, Any], seeds: dict[str, bytes], **asked: Any) -> None:
    """A dice, Sanity or development roll's request edited (``asked``), its result and card
    recomputed from its own seed, as a forger holding the revealed seed would."""
    p = entry["provable"]
    request = entry["request"] = p["request"]["request"] = {**entry["request"], **asked}
    roll = declared_roll(p["request"]["roll"])
    assert roll is not None
    source = ProvableSource(seeds[p["seed_id"]], p["client_seed"], p["nonce"])
    entry["result"] = found = json.loads(json.dumps(roll(request, source).to_dict()))
    for key in ("total", "roll", "level", "loss", "sanity", "sanity_after"):
        if key in entry.get("view", {}) and key in found:
            entry["view"][key] = found[key]


def test_a_sanity_roll_reads_san_from_the_sheet_and_writes_it_back(api: Api) -> None:
    """A CoC7 Sanity roll written back leaves SAN lower on the sheet: a check of SAN after it
    is made against the SAN it left, and verifies whole in the GM's and the player's export.
    The Sanity roll forged to read a higher SAN than the sheet's (its result recomputed, the
    later check made against the SAN it would leave) fails naming the Sanity roll."""
    table = api.table("coc7")
    pat = table.join("Pat")
    sheet = SANITY.format("Alice")
    alice = table.ok("POST", "/characters", pat, 201, json={"sheet": sheet})["id"]
    body = {"words": "sc 1/1d6", "character_id": alice, "visibility": "public"}
    sanity = table.ok("POST", "/declared-rolls", pat, 201, json=body)
    checked = table.roll(pat, alice, "sanity")
    assert checked["request"]["skill"] == sanity["result"]["sanity_after"] < 60
    table.ok("POST", "/seeds/rotate", table.gm)
    for token in (table.gm, pat):
        out = audit(export(table, token))
        assert out["ok"], [c["reason"] for c in out["checks"] if c["status"] == "mismatch"]
        assert _check(export(table, token), checked["seq"])["proven"] == WHOLE
    log = export(table, pat)
    seeds = revealed_seeds(log)
    made = next(e for e in log if e["seq"] == sanity["seq"])
    _declared_again(made, seeds, sanity=90)
    made["sheet"]["sanity"] = [90, made["result"]["sanity_after"]]
    later = next(e for e in log if e["seq"] == checked["seq"])
    _raise(later, seeds, made["result"]["sanity_after"])
    said = failed(log)[made["seq"]]
    assert "its request has sanity 90, where" in said and "Alice's sheet then" in said, said


def test_a_development_phase_reads_each_value_from_the_sheet(api: Api) -> None:
    """A development phase forged to roll Library Use from a lower value, so that it
    improves (its result recomputed, the sheet written back as it would be), and a later
    roll made against the value it would leave: the phase fails naming the value, in the
    GM's and the player's export; the honest phase and the roll after it verify whole."""
    table = api.table("coc7")
    pat = table.join("Pat")
    alice = table.ok("POST", "/characters", pat, 201, json={"sheet": DEVELOPED})["id"]
    body = {"words": "develop", "character_id": alice}
    phase = table.ok("POST", "/declared-rolls", table.gm, 201, json=body)
    checked = table.roll(pat, alice, "library use")
    table.ok("POST", "/seeds/rotate", table.gm)
    for token in (table.gm, pat):
        log = export(table, token)
        assert audit(log)["ok"] and _check(log, checked["seq"])["proven"] == WHOLE
        seeds = revealed_seeds(log)
        made = next(e for e in log if e["seq"] == phase["seq"])
        die = made["result"]["skills"][0]["roll"]
        lower = min(die, 96) - 1  # under the die, so it improves; never the sheet's own 88
        _declared_again(made, seeds, skills={"library use": lower - (lower == 88)})
        (rolled,) = made["result"]["skills"]
        assert rolled["improved"], rolled
        made["sheet"]["skills"] = {"library use": [rolled["before"], rolled["after"]]}
        _raise(next(e for e in log if e["seq"] == checked["seq"]), seeds, rolled["after"])
        said = failed(log)[made["seq"]]
        assert f'rolls "library use" at {rolled["before"]}' in said, said


DEVELOPED = """name = "Alice"
system = "coc7"
characteristics = { POW = 60 }
skills = { "library use" = 88 }
marks = ["library use"]
"""


def test_a_dice_or_sanity_roll_unbound_and_moved_to_another_character_fails(api: Api) -> None:
    """A dice roll's and a Sanity roll's provable records bind their character as a check's
    does: with the binding deleted (to pass for a roll from before it) and the roll moved to
    another character, each fails, in the GM's and the roller's export."""
    table = api.table("coc7")
    pat, sam = table.join("Pat"), table.join("Sam")
    made = [
        table.ok("POST", "/characters", who, 201, json={"sheet": SANITY.format(name)})["id"]
        for who, name in ((pat, "Alice"), (sam, "Bob"))
    ]
    rolled = [
        table.ok("POST", "/declared-rolls", pat, 201, json={"words": w, "character_id": made[0]})
        for w in ("1d6+1", "sc 0/1")
    ]
    table.ok("POST", "/seeds/rotate", table.gm)
    for token in (table.gm, pat):
        log = export(table, token)
        assert audit(log)["ok"]
        bob = next(e for e in log if e.get("character", {}).get("id") == made[1])
        for roll in rolled:
            entry = next(e for e in log if e["seq"] == roll["seq"])
            _unbound(entry)
            entry["character"] = dict(bob["character"])
        bad = failed(log)
        for roll in rolled:
            assert "binds no character_id" in bad[roll["seq"]], bad
