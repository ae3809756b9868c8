"""``d100 verify`` replays what a table's declared rolls read of a character's sheet (issue
34): an attack's skill and DB, a Sanity roll's SAN and INT, a development phase's marked
skills (each mark replayed from the rolls that earned it, S7-7), and holds each one's logged
odds to its request. Each forgery keeps the dice honest (the result recomputed from the
revealed seed, the chain relinked), so only the replay catches it; honest exports pass."""

from __future__ import annotations

import json
from typing import Any

from d100 import declared
from d100.actions import named
from d100.provable import ProvableSource

from .tablehelp import Api, Table
from .test_verify_forgeries import Log, audit, copy, export, failed, revealed_seeds
from .test_verify_replay import WHOLE, _check

SHEET = """name = "Alice"
system = "coc7"
characteristics = {{ STR = 80, SIZ = 70, INT = 70 }}
skills = {{ "spot hidden" = 45, sanity = 60, brawl = 60, "library use" = 50 }}
{marks}"""


def _again(entry: dict[str, Any], seeds: dict[str, bytes], **asked: Any) -> None:
    """A declared roll's request edited (``asked``), its result and odds worked out again, as
    a forger holding the revealed seed would (the card's own checks then hold)."""
    p, kind = entry["provable"], entry["roll"]
    request = entry["request"] = p["request"]["request"] = {**entry["request"], **asked}
    roll = declared.roller(kind)
    assert roll is not None
    source = ProvableSource(seeds[p["seed_id"]], p["client_seed"], p["nonce"])
    done = roll(request, source)
    entry["result"] = json.loads(json.dumps(done.to_dict()))
    entry["odds"] = json.loads(json.dumps(declared.logged(kind, declared.odds(kind, request))))
    action = named(kind)
    if action is not None and "view" in entry:
        report = action.report(done, declared.odds(kind, request))
        entry["view"]["outcome"] = report.outcome
        entry["view"]["rows"] = [
            {"label": r.label, "text": r.text, **({"level": r.level} if r.level else {})}
            for r in report.rows
        ]


def _rolled(table: Table, token: str, words: str, cid: str, **extra: Any) -> Any:
    body = {"words": words, "character_id": cid, **extra}
    return table.ok("POST", "/declared-rolls", token, 201, json=body)


def _at(log: Log, seq: int) -> dict[str, Any]:
    return next(e for e in log if e["seq"] == seq)


def test_what_an_attack_or_a_sanity_roll_reads_of_the_sheet_is_replayed(api: Api) -> None:
    """An attack led by a skill of the sheet, DB the sheet's, and a Sanity roll reading SAN
    and INT verify whole in the GM's and the player's export; an attack's skill raised, its DB
    made larger, or a Sanity roll's INT changed (each result recomputed) fails naming the
    roll and the sheet. A skill or INT typed in the words is reported on trust."""
    table = api.table("coc7")
    pat = table.join("Pat")
    alice = table.ok("POST", "/characters", pat, 201, json={"sheet": SHEET.format(marks="")})
    hit = _rolled(table, pat, "brawl dmg=1d3+DB", alice["id"])
    assert hit["request"]["skill"] == 60 and hit["request"]["damage_bonus"] == "+1d4"
    san = _rolled(table, pat, "sc 1/1d6", alice["id"])
    assert san["request"]["intelligence"] == 70
    typed = _rolled(table, pat, "75 dmg=1d3", alice["id"])
    told = _rolled(table, pat, "sc 1/1d6 int=20", alice["id"])
    table.ok("POST", "/seeds/rotate", table.gm)
    for token in (table.gm, pat):
        log = export(table, token)
        out = audit(log)
        assert out["ok"], [c["reason"] for c in out["checks"] if c["status"] == "mismatch"]
        for roll in (hit, san):
            assert _check(log, roll["seq"])["proven"] == WHOLE, _check(log, roll["seq"])
        said = _check(log, typed["seq"])["trusted"]
        assert any(t.startswith("the skill: typed in its words") for t in said), said
        said = _check(log, told["seq"])["trusted"]
        assert any(t.startswith("intelligence: typed in its words") for t in said), said
        seeds = revealed_seeds(log)
        for seq, edit, words in (
            (hit["seq"], {"skill": 95}, "has skill 95"),
            (hit["seq"], {"damage_bonus": "+1d6"}, 'has damage_bonus "+1d6"'),
            (san["seq"], {"intelligence": 20}, "has intelligence 20"),
        ):
            forged = copy(log)
            _again(_at(forged, seq), seeds, **edit)
            bad = failed(forged)[seq]
            assert words in bad and "Alice's sheet then" in bad, (token, bad)


def test_a_development_phase_rolls_exactly_the_skills_marked(api: Api) -> None:
    """Marks are replayed (S7-7: a success without Luck or extra dice marks its skill, a
    failure nothing; the sheet's own marks too): the phase rolls exactly them and verifies
    whole. A phase forged to leave out a marked skill, or to roll one no success marked (its
    result and write-back recomputed), fails naming the phase, in the GM's and the player's
    export; a phase after the GM cleared the marks rolls none of the table's."""
    table = api.table("coc7")
    pat = table.join("Pat")
    sheet = SHEET.format(marks='marks = ["library use"]\n')
    alice = table.ok("POST", "/characters", pat, 201, json={"sheet": sheet})["id"]
    table.roll(pat, alice, "spot hidden", actor={"dice": [5]})  # a success: marked
    table.roll(pat, alice, "brawl", actor={"dice": [99]})  # a failure: not marked
    table.roll(pat, alice, "brawl", actor={"dice": [5, 5], "fields": {"bonus_dice": 1}})
    phase = _rolled(table, table.gm, "develop", alice)
    assert sorted(phase["request"]["skills"]) == ["library use", "spot hidden"], phase
    table.ok("POST", "/seeds/rotate", table.gm)
    for token in (table.gm, pat):
        log = export(table, token)
        out = audit(log)
        assert out["ok"], [c["reason"] for c in out["checks"] if c["status"] == "mismatch"]
        assert _check(log, phase["seq"])["proven"] == WHOLE, _check(log, phase["seq"])
        seeds = revealed_seeds(log)
        for skills in ({"library use": 50}, {**phase["request"]["skills"], "brawl": 60}):
            forged = copy(log)
            entry = _at(forged, phase["seq"])
            _again(entry, seeds, skills=skills)
            rolled = entry["result"]["skills"]
            entry["sheet"]["skills"] = {
                r["name"]: [r["before"], r["after"]] for r in rolled if r["after"] != r["before"]
            }
            bad = failed(forged)[phase["seq"]]
            assert "its request has skills" in bad and "Alice's sheet then" in bad, bad


def test_a_declared_roll_s_odds_are_its_request_s(api: Api) -> None:
    """The odds logged beside a dice roll, a Sanity roll, an attack and a development phase
    (what the luck ledger expects) are their requests', worked out again: each edited fails
    naming the roll, in the GM's and the player's export; honest, each verifies."""
    table = api.table("coc7")
    pat = table.join("Pat")
    sheet = SHEET.format(marks='marks = ["library use"]\n')
    alice = table.ok("POST", "/characters", pat, 201, json={"sheet": sheet})["id"]
    made = [
        _rolled(table, pat, "1d6+1", alice),
        _rolled(table, pat, "sc 1/1d6", alice),
        _rolled(table, pat, "brawl dmg=1d3+DB", alice),
        _rolled(table, table.gm, "develop", alice),
    ]
    table.ok("POST", "/seeds/rotate", table.gm)
    for token in (table.gm, pat):
        log = export(table, token)
        assert audit(log)["ok"]
        forged = copy(log)
        for roll in made:
            _lowered(_at(forged, roll["seq"])["odds"])
        bad = failed(forged)
        for roll in made:
            assert "its odds are not its request's" in bad[roll["seq"]], (roll["roll"], bad)


def _lowered(odds: Any) -> bool:
    """The first chance in the odds (a fraction's text) made 1/100 (1/99 if it was)."""
    items = odds.items() if isinstance(odds, dict) else enumerate(odds)
    for key, value in items:
        if isinstance(value, str) and "/" in value:
            odds[key] = "1/99" if value == "1/100" else "1/100"
            return True
        if isinstance(value, dict | list) and _lowered(value):
            return True
    return False
