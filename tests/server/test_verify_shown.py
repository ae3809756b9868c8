"""``d100 verify`` replays a blind dice or Sanity roll when the GM shows it (issue 34, item 2):
its request against the sheet as it was when it was rolled (the GM edits the sheet between
the roll and its showing), its odds worked out again, whoever sees it only when shown (the
roller, who saw no result; another player, who saw a stub and reads the sheet by the GM's
reveal) as the GM who saw it at once. Each forgery of the showing keeps the dice honest
where it edits the request (the result recomputed from the revealed seed, the chain relinked),
so only the replay catches it."""

from __future__ import annotations

import json
from typing import Any

from d100 import declared
from d100.provable import ProvableSource
from d100.verify.sides import DECLARED_SHOWN

from .tablehelp import Api, Table
from .test_verify_declared import SHEET, _again, _at, _rolled
from .test_verify_forgeries import Log, audit, copy, export, failed, revealed_seeds
from .test_verify_replay import WHOLE, _check

EDITED = SHEET.format(marks="").replace("STR = 80", "STR = 40")
EDITED = EDITED.replace("sanity = 60", "sanity = 50")


def _played(api: Api) -> tuple[Table, dict[str, str], dict[str, int]]:
    """Pat's blind Sanity and dice rolls for Alice, the GM's edit of her SAN and STR (so her
    DB) before showing them, a public Sanity roll after; her sheet revealed to Sam."""
    table = api.table("coc7")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice = table.ok("POST", "/characters", pat, 201, json={"sheet": SHEET.format(marks="")})
    san = _rolled(table, pat, "sc 1/1d6", alice["id"], visibility="blind")
    dice = _rolled(table, pat, "1d6+DB", alice["id"], visibility="blind")
    table.ok("PUT", f"/characters/{alice['id']}", table.gm, json={"sheet": EDITED})
    shown = {
        "sanity": table.ok("POST", f"/rolls/{san['seq']}/unblind", table.gm, 201)["seq"],
        "dice": table.ok("POST", f"/rolls/{dice['seq']}/unblind", table.gm, 201)["seq"],
    }
    after = _rolled(table, pat, "sc 1/1d6", alice["id"])
    assert after["request"]["sanity"] == 50  # the GM's edit, not the blind roll, set SAN
    table.ok("POST", f"/characters/{alice['id']}/reveal", table.gm, 201)
    table.ok("POST", "/seeds/rotate", table.gm)
    return table, {"gm": table.gm, "pat": pat, "sam": sam}, shown


def _shows(log: Log, seq: int) -> list[dict[str, Any]]:
    """The events of an export showing the roll a showing shows, request and all: the blind
    roll itself (to the GM, and to its roller without its result) and its showing."""
    rolled = _at(log, seq)["unblinds"]
    return [e for e in log if e["seq"] in (rolled, seq) and "request" in e]


def _asked_anew(log: Log, seq: int, **asked: Any) -> Log:
    """The shown roll's request edited wherever the export shows it, its result, odds and
    card and SAN recomputed from its revealed seed (a consistent forger's edit)."""
    forged, seeds = copy(log), revealed_seeds(log)
    for entry in _shows(forged, seq):
        _again(entry, seeds, **asked)
        result, view = entry["result"], entry.get("view", {})
        view.update({k: result[k] for k in DECLARED_SHOWN if k in view and k in result})
        if "sheet" in entry:
            entry["sheet"]["sanity"] = [result["sanity"], result["sanity_after"]]
    return forged


def test_a_blind_roll_shown_is_replayed_for_every_member(api: Api) -> None:
    """The GM's, the roller's and another player's exports pass, each proving both shown
    rolls whole (target, level and outcome from the sheet as it was when they were rolled,
    not as the GM edited it before showing them); nothing is named on trust."""
    table, tokens, shown = _played(api)
    for who, token in tokens.items():
        log = export(table, token)
        out = audit(log)
        assert out["ok"], (who, [c["reason"] for c in out["checks"] if c["status"] == "mismatch"])
        assert out["unchecked"] == [], (who, out["unchecked"])
        for seq in shown.values():
            check = _check(log, seq)
            assert check["proven"] == WHOLE and check["trusted"] == [], (who, check)


def _other_dice(entry: dict[str, Any], seeds: dict[str, bytes]) -> dict[str, Any]:
    """The shown dice roll's result drawn on a later nonce of its seed: the first that differs
    (1d6+1d4 repeats on one nonce in 24, so a single fixed nonce made the forgery honest)."""
    p, roll = entry["provable"], declared.roller("dice")
    assert roll is not None
    for later in range(p["nonce"] + 1, p["nonce"] + 200):
        source = ProvableSource(seeds[p["seed_id"]], p["client_seed"], later)
        again: dict[str, Any] = json.loads(json.dumps(roll(entry["request"], source).to_dict()))
        if again != entry["result"]:
            return again
    raise AssertionError("200 nonces drew the same dice")


def test_a_shown_roll_forged_fails_naming_the_showing(api: Api) -> None:
    """In every member's export, the showing of a blind roll forged fails naming it: its dice
    changed; its SAN or DB raised (its result recomputed from the revealed seed: only the
    replay against the sheet then catches it); its SAN said written to the sheet, though its
    player saw no result (a table writes a sheet only where every reader of it saw the roll)."""
    table, tokens, shown = _played(api)
    for who, token in tokens.items():
        log = export(table, token)
        seeds = revealed_seeds(log)
        forged = copy(log)
        for entry in _shows(forged, shown["dice"]):
            if "result" in entry:
                entry["result"] = _other_dice(entry, seeds)
        assert "recomputed" in failed(forged)[shown["dice"]], who
        for seq, edit, words in (
            (shown["sanity"], {"sanity": 80}, "has sanity 80"),
            (shown["dice"], {"damage_bonus": "+1d6"}, 'has damage_bonus "+1d6"'),
        ):
            bad = failed(_asked_anew(log, seq, **edit))[seq]
            assert words in bad and "Alice's sheet then (#4)" in bad, (who, bad)
        forged = copy(log)
        for entry in _shows(forged, shown["sanity"]):
            if "sheet" in entry:
                entry["sheet"]["written"] = True
        bad = failed(forged)[shown["sanity"]]
        assert "it says it wrote Alice's sheet" in bad, (who, bad)
