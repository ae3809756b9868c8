"""A table played through every kind of event the log holds: what the event schema tests
read, as each member sees it."""

from __future__ import annotations

from dataclasses import dataclass

from .tablehelp import Api, Table


@dataclass(frozen=True)
class Played:
    table: Table
    viewers: tuple[str, ...]  # its GM's token, its roller's, another player's


def play_every_kind(api: Api) -> list[Played]:
    """Public, GM-only, blind and self rolls, a contest, a called contest against the GM's
    NPC answered, a call declined and cancelled, help (at an OpenQuest table: BRP has no
    assistance), a Luck reroll, aim, a rest, a blind roll shown, a character edit, a sheet
    revealed, a client seed, an invite renewed, a player revoked and a rotation revealing a
    private chain's seed."""
    table = api.table()
    pat, sam, gone = table.join("Pat"), table.join("Sam"), table.join("Gone")
    mine, theirs = table.character(pat, "Pat's"), table.character(sam, "Sam's")
    npc = table.character(table.gm, "Guard")
    for visibility in ("public", "gm", "blind", "self"):
        table.roll(pat, mine, "spot hidden", visibility=visibility)
    blind = table.roll(pat, mine, "stealth", visibility="blind")
    table.ok("POST", f"/rolls/{blind['seq']}/unblind", table.gm, 201)
    table.roll(table.gm, npc, "stealth", opponent={"character_id": mine, "skill": "dodge"})
    missed = table.roll(pat, mine, "rifle", actor={"dice": [99]})
    table.ok("POST", f"/rolls/{missed['seq']}/reroll", pat, 201, json={"dice": [30]})
    table.ok("POST", f"/characters/{mine}/aim", pat, json={"action": "aim"})
    table.roll(pat, mine, "rifle", actor={"aimed": True, "dice": [55]})
    opponent = {"character_id": npc, "skill": "dodge"}
    body = {"skill": "stealth", "character_ids": [mine], "hazard": "heard", "opponent": opponent}
    called = table.ok("POST", "/calls", table.gm, 201, json=body)
    table.roll(pat, mine, None, target_id=called["targets"][0]["id"])
    body = {"skill": "stealth", "character_ids": [mine, theirs], "visibility": "gm"}
    group = table.ok("POST", "/calls", table.gm, 201, json=body)
    by_character = {t["character"]["id"]: t["id"] for t in group["targets"]}
    table.ok("POST", f"/targets/{by_character[theirs]}/decline", sam)
    table.ok("POST", f"/calls/{group['id']}/cancel", table.gm)
    for visibility in ("public", "gm", "self"):  # dice, and an NPC's (withheld from players)
        body = {"words": "1d6+1", "character_id": mine, "visibility": visibility}
        table.ok("POST", "/declared-rolls", pat, 201, json=body)
    table.ok("POST", "/declared-rolls", table.gm, 201, json={"words": "2d6", "character_id": npc})
    table.ok("PATCH", f"/characters/{mine}", pat, json={"skills": {"stealth": 70}})
    table.ok("DELETE", f"/characters/{mine}/marks", table.gm)
    table.ok("POST", f"/characters/{theirs}/reveal", table.gm, 201)
    table.ok("POST", "/rest", table.gm)
    table.ok("PUT", "/me/client-seed", pat, json={"client_seed": "Pat's own"})
    table.ok("POST", "/invite", table.gm)
    table.ok("POST", "/seeds/rotate", table.gm)
    table.ok("POST", f"/members/{_member_id(table, gone)}/revoke", table.gm)
    helped = api.table("openquest")
    ann, bea = helped.join("Ann"), helped.join("Bea")
    alice, bob = helped.character(ann, "Alice"), helped.character(bea, "Bob")
    call = {"skill": "perception", "character_ids": [alice], "hazard": "missed"}
    target = helped.ok("POST", "/calls", helped.gm, 201, json=call)["targets"][0]["id"]
    assist = {"character_id": bob, "skill": "stealth"}
    helped.ok("POST", f"/targets/{target}/assists", bea, 201, json=assist)
    helped.roll(ann, alice, None, target_id=target)
    return [
        Played(table, (table.gm, pat, sam)),
        Played(helped, (helped.gm, ann, bea)),
        _sanity(api),
    ]


SANITY = 'name = "{}"\nsystem = "coc7"\nskills = {{ sanity = 60, int = 70, "spot hidden" = 40 }}\n'


def _sanity(api: Api) -> Played:
    """Sanity rolls at a CoC7 table, after its GM set its SealDice rule (``.setcoc 2``): a
    player's, the GM's secret one of the player's character, an NPC's, and a blind one
    shown."""
    table = api.table("coc7")
    pat, sam = table.join("Pat"), table.join("Sam")
    table.ok("POST", "/declared-rolls", table.gm, 201, json={"words": ".setcoc 2"})
    made = [
        table.ok("POST", "/characters", who, 201, json={"sheet": SANITY.format(name)})["id"]
        for who, name in ((pat, "Alice"), (table.gm, "Ghoul"))
    ]
    for who, character, visibility in (
        (pat, made[0], "public"),
        (table.gm, made[0], "gm"),
        (table.gm, made[1], "public"),
    ):
        body = {"words": "sc 1/1d6", "character_id": character, "visibility": visibility}
        table.ok("POST", "/declared-rolls", who, 201, json=body)
    body = {"words": "sc 1/1d6", "character_id": made[0], "visibility": "blind"}
    blind = table.ok("POST", "/declared-rolls", pat, 201, json=body)
    table.ok("POST", f"/rolls/{blind['seq']}/unblind", table.gm, 201)
    return Played(table, (table.gm, pat, sam))


def _member_id(table: Table, token: str) -> str:
    me: str = table.ok("GET", "", token)["me"]["id"]
    return me
