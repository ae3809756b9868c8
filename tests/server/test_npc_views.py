"""An NPC (a character the GM owns) as a player sees it: by name and level only, as the actor
of a roll, a side of a contest or a helper, in every roll mode, in every answer, stream and
export and in errors; every role (the GM, the roller, another player, a revoked player, an
outsider). Each test walks the JSON a player gets for the NPC's distinctive numbers."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from d100.cli.verify import audit_log
from d100.server.app import create_app
from d100.server.guard import Limits

from .forging import unchained
from .services import migrated_sqlite
from .sse import Stream
from .tablehelp import Api
from .test_access_matrix import serve_in_thread

VISIBILITIES = ("public", "gm", "blind", "self")
# The Ghoul's numbers: none of them is any other number these tables show a player.
SKILL, LUCK, MOST = 83, 87, 91
GHOUL = {
    "brp": f'name = "Ghoul"\nsystem = "brp"\nluck = {{ current = {LUCK}, maximum = {MOST} }}\n'
    f'skills = {{ claw = {SKILL}, "spot hidden" = {SKILL} }}\n',
    "openquest": f'name = "Ghoul"\nsystem = "openquest"\nskills = {{ perception = {SKILL} }}\n',
    "chances": f'name = "Ghoul"\nsystem = "chances"\nskills = {{ hearing = {SKILL} }}\n'
    'abilities = { per = 4 }\nuses = { hearing = "per" }\n',
}
ADA = {
    "brp": 'name = "{name}"\nsystem = "brp"\nluck = { current = 3, maximum = 5 }\n'
    'skills = { stealth = 60, "spot hidden" = 50, dodge = 30 }\n',
    "openquest": 'name = "{name}"\nsystem = "openquest"\nskills = { perception = 40 }\n',
    "chances": 'name = "{name}"\nsystem = "chances"\nskills = { hearing = 30 }\n'
    'abilities = { per = 5 }\nuses = { hearing = "per" }\n',
}
# Where a number is no value of a sheet: event and seed numbers, ids, times, hashes.
NOT_VALUES = frozenset(
    {"seq", "nonce", "unblinds", "reroll_of", "rerolls", "event_seq", "last_seq", "rolls"}
    | {"at", "created_at", "rolled_at", "revealed_at", "commitment", "client_seed"}
    | {"server_seed", "engine"}
)


def numbers(value: Any, key: str = "") -> set[int]:
    """Every number in a JSON value, those written in its words included ("83.00%", "61 vs
    83"), but for the keys that hold no value of a sheet."""
    if key in NOT_VALUES or key == "id" or key.endswith("_id") or key.endswith("link"):
        return set()
    if isinstance(value, bool):
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, str):
        return {int(n) for n in re.findall(r"\d+", value)}
    if isinstance(value, dict):
        return set().union(*(numbers(v, k) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(*(numbers(v, key) for v in value))
    return set()


def tells_nothing(value: Any) -> None:
    found = numbers(value) & {SKILL, LUCK, MOST}
    assert not found, (found, json.dumps(value)[:3000])


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    where: Path = tmp_path_factory.mktemp("npc")
    # Every table here is opened, joined and refused from one address with no token: the
    # address's rate limit is not what these tests are about. The server runs in this
    # process (the live stream needs a real one; what it shows is the app's).
    off = Limits(burst=1_000_000, per_second=1_000_000.0)
    app = create_app(migrated_sqlite(where / "d100.sqlite3"), limits=off)
    yield from serve_in_thread(app)


@pytest.fixture
def api(base: str) -> Iterator[Api]:
    with httpx.Client(base_url=base) as client:
        yield Api(client)


class Seated:
    """A table with its GM, the roller Pat, another player Quinn, Rex (revoked once the rolls
    are made) and the characters: Pat's Ada, Quinn's Bo and the GM's Ghoul."""

    def __init__(self, api: Api, system: str) -> None:
        self.table = table = api.table(system, settings={"manual_dice": True})
        self.pat, self.quinn, self.rex = table.join("Pat"), table.join("Quinn"), table.join("Rex")
        self.ada = self.sheet(self.pat, ADA[system].replace("{name}", "Ada"))
        self.bo = self.sheet(self.quinn, ADA[system].replace("{name}", "Bo"))
        self.ghoul = self.sheet(table.gm, GHOUL[system])

    def sheet(self, token: str, text: str) -> str:
        made = self.table.ok("POST", "/characters", token, 201, json={"sheet": text})
        cid: str = made["id"]
        return cid

    def revoke_rex(self) -> None:
        members = self.table.ok("GET", "", self.table.gm)["members"]
        (rex,) = [m for m in members if m["name"] == "Rex"]
        self.table.ok("POST", f"/members/{rex['id']}/revoke", self.table.gm)

    def players(self) -> dict[str, str]:
        return {"pat": self.pat, "quinn": self.quinn}

    def everything(self, base: str, token: str) -> list[Any]:
        """All a member gets of the table: its state, the log page, the stream and export."""
        table = self.table
        log = table.events(token)
        lines = table.req("GET", "/log.jsonl", token).text.splitlines()
        export = [json.loads(line) for line in lines]
        streamed = []
        with Stream(base, table.id, token) as stream:
            while not streamed or streamed[-1]["seq"] < log[-1]["seq"]:
                streamed.append(stream.next()[2])
        assert streamed == log  # one view, however it is read; the export's lines add
        assert unchained(export) == unchained(log)  # their links, and it ends with the head
        assert export[-1]["head"] == log[-1]["head"]
        return [table.ok("GET", "", token), log]

    def refused(self) -> None:
        """Rex, revoked, and an outsider get a 401 and nothing else, everywhere."""
        for token in (self.rex, "not-a-token", None):
            for path in ("", "/events", "/log.jsonl"):
                answer = self.table.req("GET", path, token)
                assert answer.status_code == 401, answer.text
                tells_nothing(answer.json())


def roll_of(log: list[dict[str, Any]], seq: int) -> dict[str, Any]:
    (found,) = [e for e in log if e["seq"] == seq]
    return found


def test_an_npc_s_roll_shows_a_player_its_name_and_level_only(api: Api, base: str) -> None:
    """The GM rolls the Ghoul's claw, with Luck, in every mode: the GM reads all of it, a
    player its name and level where the mode shows it (a stub elsewhere), never its skill,
    target, dice, margin, odds, Luck spent or follow-ups."""
    seated = Seated(api, "brp")
    table, gm = seated.table, seated.table.gm
    made = {}
    for visibility in VISIBILITIES:
        actor = {"dice": [95], "fields": {"luck_boost": True}}  # a failure: offers follow
        made[visibility] = table.roll(gm, seated.ghoul, "claw", visibility=visibility, actor=actor)
    made["shown"] = table.ok("POST", f"/rolls/{made['blind']['seq']}/unblind", gm, 201)
    seated.revoke_rex()
    seated.refused()
    mine = table.events(gm)
    for visibility in ("public", "gm", "blind", "self"):
        full = roll_of(mine, made[visibility]["seq"])
        assert full["result"]["dice"] == [95] and full["request"]["skill"] == SKILL
        assert "withheld" not in full
    for who, token in seated.players().items():
        state, log = seated.everything(base, token)
        tells_nothing([state, log])
        seen = roll_of(log, made["public"]["seq"])
        assert seen["character"]["name"] == "Ghoul" and seen["skill"] == "claw", who
        assert set(seen["result"]) == {"system", "level", "success"}, seen
        assert seen["withheld"] == ["actor"] and "follow_ups" not in seen
        drawn = {"seed_id", "commitment", "client_seed", "nonce", "engine"}
        bound = {"character_id", "character_name", "member_id", "skill"}
        assert set(seen["provable"]) == drawn | bound, seen
        for hidden in ("gm", "blind", "self"):
            assert roll_of(log, made[hidden]["seq"])["kind"] == "hidden", (who, hidden)
        shown = roll_of(log, made["shown"]["seq"])
        assert shown["kind"] == "unblind" and set(shown["result"]) == {"system", "level", "success"}
        out = audit_log(json.dumps(e) + "\n" for e in log).to_dict()
        assert out["mismatch"] == 0 and out["verified"] == 0 and out["hidden"] == 5, out


def test_another_player_s_public_roll_stays_public_but_its_offers_are_its_player_s(
    api: Api,
) -> None:
    """Public means public: Quinn sees Ada's public roll whole, but not the follow-ups it
    offers (they bound Ada's Luck); Pat and the GM do."""
    seated = Seated(api, "brp")
    table = seated.table
    rolled = table.roll(seated.pat, seated.ada, "stealth", actor={"dice": [99]})  # rule: BRP7
    seen = roll_of(table.events(seated.quinn), rolled["seq"])
    assert seen["result"]["dice"] == [99] and seen["request"]["skill"] == 60
    assert "withheld" not in seen and "follow_ups" not in seen
    for reader in (seated.pat, table.gm):
        assert roll_of(table.events(reader), rolled["seq"])["follow_ups"]


@pytest.mark.parametrize("visibility", VISIBILITIES)
def test_an_npc_opposing_a_player_s_character_shows_its_level_only(
    api: Api, base: str, visibility: str
) -> None:
    """# rule: BRP6. The GM's contest of Ada against the Ghoul: Ada's side is her player's
    and, public, everyone's; the Ghoul's side is the GM's."""
    seated = Seated(api, "brp")
    table, gm = seated.table, seated.table.gm
    opponent = {"character_id": seated.ghoul, "skill": "spot hidden", "dice": [30]}
    rolled = table.roll(
        gm, seated.ada, "stealth", visibility=visibility, actor={"dice": [20]}, opponent=opponent
    )
    full = roll_of(table.events(gm), rolled["seq"])
    assert full["result"]["opponent"]["dice"] == [30] and "withheld" not in full
    for who, token in seated.players().items():
        state, log = seated.everything(base, token)
        tells_nothing([state, log])
        seen = roll_of(log, rolled["seq"])
        if visibility != "public":  # a GM's roll in any other mode: the GM's alone
            assert seen["kind"] == "hidden", (who, seen)
            continue
        assert seen["withheld"] == ["opponent"] and "opponent_skill" not in seen
        level = {k: full["result"]["opponent"][k] for k in ("level", "success")}
        assert seen["result"]["opponent"] == level
        assert seen["result"]["actor"]["dice"] == [20]  # Ada's side: public
        assert "odds" not in seen and "opponent" not in seen["request"]


@pytest.mark.parametrize("visibility", ["public", "gm", "blind"])
def test_a_called_chances_contest_keeps_the_npc_s_total_from_the_actor_s_target(
    api: Api, base: str, visibility: str
) -> None:
    """# rule: CH6. In a Taking Chances contest each side's target is the other's total:
    Pat's own side goes without its target, margin and words when the Ghoul's is withheld."""
    seated = Seated(api, "chances")
    table, gm = seated.table, seated.table.gm
    opponent = {"character_id": seated.ghoul, "skill": "hearing"}
    call = {"skill": "hearing", "character_ids": [seated.ada], "opponent": opponent}
    made = table.ok("POST", "/calls", gm, 201, json=call | {"visibility": visibility})
    target = made["targets"][0]["id"]
    typed = {} if visibility == "blind" else {"dice": [10]}  # a blind roll's dice are drawn
    rolled = table.roll(seated.pat, seated.ada, None, target_id=target, actor=typed)
    full = roll_of(table.events(gm), rolled["seq"])
    assert full["result"]["actor"]["target"] == full["result"]["opponent"]["total"]
    seated.revoke_rex()
    seated.refused()
    for who, token in seated.players().items():
        state, log = seated.everything(base, token)
        tells_nothing([state, log, rolled])
        seen = roll_of(log, rolled["seq"])
        if who == "quinn" and visibility != "public":
            assert seen["kind"] == "hidden"
            continue
        if visibility == "blind":
            assert "result" not in seen and seen["hidden"], seen
            continue
        actor = seen["result"]["actor"]
        assert actor["dice"] == [10] and actor["total"] == full["result"]["actor"]["total"]
        assert not {"target", "margin", "explanation"} & set(actor), actor
        assert full["result"]["opponent"]["total"] not in numbers(seen)


@pytest.mark.parametrize(("system", "skill"), [("openquest", "perception"), ("chances", "hearing")])
@pytest.mark.parametrize("visibility", VISIBILITIES)
def test_an_npc_helper_shows_the_helped_player_its_name_and_level_only(
    api: Api, base: str, system: str, skill: str, visibility: str
) -> None:
    """# rule: OQ11, CH8. The GM has the Ghoul help Ada: Pat's roll names it and its level,
    never its skill ("rolled 61 vs 83"), in the roll's answer, the log, stream and export; a
    preview of the helped odds (they tell its skill) is refused."""
    seated = Seated(api, system)
    table, gm = seated.table, seated.table.gm
    fields = {"risk": "average"} if system == "chances" else {}
    call = {"skill": skill, "character_ids": [seated.ada], "fields": fields}
    made = table.ok("POST", "/calls", gm, 201, json=call | {"visibility": visibility})
    target = made["targets"][0]["id"]
    helped = {"character_id": seated.ghoul, "skill": skill}
    table.ok("POST", f"/targets/{target}/assists", gm, 201, json=helped)
    preview = {"actor": {"character_id": seated.ada}, "target_id": target}
    refused = table.req("POST", "/odds", seated.pat, json=preview)
    assert refused.status_code == 403 and "Ghoul" in refused.text, refused.text
    tells_nothing(refused.json())
    assert table.ok("POST", "/odds", gm, json=preview)["request"]  # the GM reads it all
    typed = {} if visibility == "blind" else {"dice": [20]}  # a blind roll's dice are drawn
    rolled = table.roll(seated.pat, seated.ada, None, target_id=target, actor=typed)
    full = roll_of(table.events(gm), rolled["seq"])
    if visibility != "self":  # a self roll is its roller's alone
        assert SKILL in numbers(full["result"]) and full["helpers"][0]["name"] == "Ghoul"
    seated.revoke_rex()
    seated.refused()
    for who, token in seated.players().items():
        state, log = seated.everything(base, token)
        tells_nothing([state, log, rolled, refused.json()])
        seen = roll_of(log, rolled["seq"])
        if who == "quinn" and visibility != "public":
            assert seen["kind"] == "hidden"
            continue
        assert seen["withheld"] == ["helpers"] and seen["helpers"][0]["name"] == "Ghoul"
        assert "odds" not in seen and "percent" not in seen  # they tell the helper's skill
        if visibility == "blind":  # made, not seen: its result is the GM's
            assert "result" not in seen and seen["hidden"]
            continue
        assert seen["result"]["dice"] == [20]  # Ada's own roll
        (field,) = {"openquest": ["assist"], "chances": ["assisters"]}[system]
        help_ = seen["result"][field]
        assert set(help_ if isinstance(help_, dict) else help_[0]) == {
            "system",
            "level",
            "success",
        }
        out = audit_log(json.dumps(e) + "\n" for e in log).to_dict()
        assert out["mismatch"] == 0, out


def test_an_error_never_names_an_npc_s_luck(api: Api) -> None:
    """# rule: BRP7. The GM calls Ada's contest against the Ghoul spending its Luck, then
    empties its Luck: Pat's roll is refused in words that tell nothing of the Ghoul's sheet
    (it said "opponent.luck: only 0 Luck left")."""
    seated = Seated(api, "brp")
    table, gm = seated.table, seated.table.gm
    opponent = {"character_id": seated.ghoul, "skill": "claw", "fields": {"luck_boost": True}}
    call = {"skill": "stealth", "character_ids": [seated.ada], "opponent": opponent}
    made = table.ok("POST", "/calls", gm, 201, json=call)
    sheet = GHOUL["brp"].replace(f"current = {LUCK}", "current = 0")
    table.ok("PUT", f"/characters/{seated.ghoul}", gm, json={"sheet": sheet})
    target = made["targets"][0]["id"]
    refused = table.req("POST", "/rolls", seated.pat, json={
        "actor": {"character_id": seated.ada}, "target_id": target})  # fmt: skip
    assert refused.status_code in (409, 422), refused.text
    error = refused.json()["error"]
    assert "cannot spend that Luck" in error["message"] and "0" not in error["message"], error
    tells_nothing(error)


def test_verify_takes_withheld_only_in_the_form_the_policy_gives(api: Api) -> None:
    """A player's export of the Ghoul's roll and of Ada's contest against it passes, each
    roll hidden (its seed and nonce checked); the same entries showing a withheld part's
    numbers or what resolved them, or naming a part the roll does not have, fail."""
    seated = Seated(api, "brp")
    table, gm = seated.table, seated.table.gm
    check = table.roll(gm, seated.ghoul, "claw", actor={"dice": [40]})
    opponent = {"character_id": seated.ghoul, "skill": "claw", "dice": [30]}
    contest = table.roll(gm, seated.ada, "stealth", actor={"dice": [20]}, opponent=opponent)
    table.ok("POST", "/seeds/rotate", gm)
    mine, log = table.events(gm), table.events(seated.pat)

    def audit(entries: list[dict[str, Any]]) -> dict[Any, tuple[str, str]]:
        out = audit_log(json.dumps(e) + "\n" for e in entries).to_dict()
        return {c["seq"]: (c["status"], c["reason"]) for c in out["checks"]}

    honest = audit(log)
    assert honest[check["seq"]][0] == honest[contest["seq"]][0] == "hidden", honest
    assert all(status != "mismatch" for status, _ in honest.values()), honest

    def forged(seq: int, change: Any) -> str:
        copied = json.loads(json.dumps(log))
        change(roll_of(copied, seq), roll_of(mine, seq))
        status, reason = audit(copied)[seq]
        assert status == "mismatch", (status, reason)
        return reason

    def dice(seen: dict[str, Any], full: dict[str, Any]) -> None:
        seen["result"] = full["result"]

    def request(seen: dict[str, Any], full: dict[str, Any]) -> None:
        seen["provable"]["request"] = full["provable"]["request"]

    def side(seen: dict[str, Any], full: dict[str, Any]) -> None:
        seen["result"]["opponent"] = full["result"]["opponent"]

    def helpers(seen: dict[str, Any], _: dict[str, Any]) -> None:
        seen["withheld"] = ["helpers"]

    def opponent_of_a_check(seen: dict[str, Any], _: dict[str, Any]) -> None:
        seen["withheld"] = ["opponent"]

    assert "shows it" in forged(check["seq"], dice)
    assert "shows it" in forged(check["seq"], request)
    assert "shows it" in forged(contest["seq"], side)
    assert "shows it" in forged(contest["seq"], request)
    assert "has none" in forged(check["seq"], helpers)
    assert "names no opponent" in forged(check["seq"], opponent_of_a_check)


def test_an_error_never_names_an_npc_helper_s_skills(api: Api) -> None:
    """# rule: OQ11. The Ghoul's sheet loses the skill it helps with: Pat's roll is refused
    without a did-you-mean listing the Ghoul's skills (it named them)."""
    seated = Seated(api, "openquest")
    table, gm = seated.table, seated.table.gm
    made = table.ok("POST", "/calls", gm, 201, json={"skill": "perception", "character_ids": [
        seated.ada]})  # fmt: skip
    target = made["targets"][0]["id"]
    helped = {"character_id": seated.ghoul, "skill": "perception"}
    table.ok("POST", f"/targets/{target}/assists", gm, 201, json=helped)
    sheet = 'name = "Ghoul"\nsystem = "openquest"\nskills = { secretive = 87 }\n'
    table.ok("PUT", f"/characters/{seated.ghoul}", gm, json={"sheet": sheet})
    body = {"actor": {"character_id": seated.ada}, "target_id": target}
    for asked in ("/rolls", "/odds"):
        refused = table.req("POST", asked, seated.pat, json=body)
        assert refused.status_code == 409, refused.text
        assert "secretive" not in refused.text and "Ghoul" in refused.text
        tells_nothing(refused.json())


def test_an_rqg_contest_keeps_the_npc_s_rating_over_100_from_the_player_s_side(
    api: Api, base: str
) -> None:
    """# rule: RQ-3. In RQG the highest rating's excess over 100 comes off everyone's chance:
    with the Ghoul's Scan at 133, Pat's own side (Ada's 60, less 33) would tell it by its
    target, margin, bands and words. Shown beside the Ghoul's withheld side, it has none."""
    table = api.table("rqg", settings={"manual_dice": True})
    pat = table.join("Pat")
    ada = table.ok("POST", "/characters", pat, 201, json={
        "sheet": 'name = "Ada"\nsystem = "rqg"\nskills = { scan = 60 }\n'})["id"]
    ghoul = table.ok("POST", "/characters", table.gm, 201, json={
        "sheet": 'name = "Ghoul"\nsystem = "rqg"\nskills = { scan = 133 }\n'})["id"]
    opponent = {"character_id": ghoul, "skill": "scan"}
    made = table.ok("POST", "/calls", table.gm, 201, json={
        "skill": "scan", "character_ids": [ada], "opponent": opponent})
    rolled = table.roll(pat, ada, None, target_id=made["targets"][0]["id"], actor={"dice": [10]})
    full = roll_of(table.events(table.gm), rolled["seq"])["result"]
    assert full["actor"]["target"] == 60 - 33, full["actor"]
    seen = roll_of(table.events(pat), rolled["seq"])
    assert seen["withheld"] == ["opponent"]
    actor = seen["result"]["actor"]
    assert actor["dice"] == [10] and actor["level"] == full["actor"]["level"]
    assert not {"target", "margin", "bands", "explanation"} & set(actor), actor
    assert not numbers([seen, rolled]) & {133, 33, 27, 100 - 33}, seen
