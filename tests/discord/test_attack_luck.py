"""``/r`` of an attack against a character at the table (``against=NAME``), the defender's
skill read from their sheet and kept from a player who may not read it, and Luck on the attack
made (C7-4) offered to its roller as buttons with exactly what it buys; a push is never
offered (C7-5)."""

from __future__ import annotations

import httpx
import respx
from fastapi.testclient import TestClient

from d100.discord.router import Discord as Endpoint
from tests.server.tablehelp import bearer

from .signing import Discord
from .test_buttons import unlimited  # noqa: F401 (a fixture: clicks without a rate limit)
from .test_play import bodies, click, drained, r, the_link_of, webhooks
from .test_tables import CDN, GM, PLAYER, page_of, private, said, sheet, table_open

ALICE = (
    'name = "Alice"\nsystem = "coc7"\ncharacteristics = { STR = 80, SIZ = 70 }\n'
    "skills = { brawl = 60 }\nluck = { current = 99, maximum = 99 }\n"
)
GHOUL = (
    'name = "Ghoul"\nsystem = "coc7"\ncharacteristics = { STR = 60, SIZ = 60 }\n'
    "skills = { claw = 55, dodge = 25 }\n"
)


def fields(message: dict[str, object]) -> dict[str, str]:
    (card,) = message["embeds"]  # type: ignore[misc]
    return {f["name"]: f["value"] for f in card["fields"]}


@respx.mock
def test_c7_4_r_attacks_a_character_named_and_offers_luck_on_it_as_buttons(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    respx.get(CDN).mock(
        side_effect=[httpx.Response(200, text=ALICE), httpx.Response(200, text=GHOUL)]
    )
    posted, _ = webhooks()
    said(discord.post(client, table_open("coc7", user=GM, name="Gina")))
    said(discord.post(client, sheet(size=len(ALICE), user=PLAYER, name="Pat")))
    said(discord.post(client, sheet(size=len(GHOUL), user=GM, name="Gina")))
    nobody = said(
        discord.post(client, r("Alice", "brawl", "dmg=1d3 against=zed", user=PLAYER, name="Pat"))
    )
    assert private(nobody) and "a character at this table: Alice, Ghoul" in nobody["content"]
    for _ in range(60):
        words = "dmg=1d3+DB against=gho"
        shown = said(discord.post(client, r("Alice", "brawl", words, user=PLAYER, name="Pat")))
        card = fields(shown)
        assert "against the defender (dodge)" in card["Roll"] and "25" not in card["Roll"]
        # the channel's post offers nothing: each offer bounds Alice's Luck (her sheet's)
        assert "On offer" not in card and not shown.get("components"), shown
        drained(client, endpoint)
        offers = [b for b in bodies(posted) if b.get("components")]
        posted.reset()
        if offers:
            break
    else:
        raise AssertionError("no attack offered Luck in 60")
    own = offers[-1]
    assert private(own)
    buttons = [b for row in own["components"] for b in row["components"]]
    assert all(b["label"].startswith("Spend ") for b in buttons)  # never a push
    on_offer = [v for k, v in fields(own).items() if k == "On offer"]
    assert on_offer and "exactly: damage" in on_offer[0] and "a Luck point" in on_offer[0]
    cost = int(buttons[0]["label"].split()[1])
    taken = discord.post(client, click(buttons[0]["custom_id"], user=PLAYER, name="Pat"))
    assert taken.status_code == 200, taken.text
    drained(client, endpoint)
    (new,) = [b for b in bodies(posted) if not private(b)]
    assert f"{cost} Luck spent" in fields(new)["Follows"]
    url = the_link_of(client, discord)
    events = page_of(client, url)["events"]
    bought = [e for e in events if e["kind"] == "declared" and e.get("reroll_of")]
    assert [e["luck_spent"] for e in bought] == [cost]
    path, token = url.split("#")
    state = client.get(f"/api/tables/{path.rsplit('/', 1)[1]}", headers=bearer(token)).json()
    alice = next(c for c in state["characters"] if c["name"] == "Alice")
    assert alice["luck"]["current"] == 99 - cost  # written to the sheet
