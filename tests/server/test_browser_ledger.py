"""The page's luck ledger ("Are the dice fair?", under More) at 390x844 and 1280x800: a player
sees their character's rolls against the odds, the tail in words, no sideways scroll and no
serious accessibility fault; the GM's secret rolls change nothing the player's ledger shows."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .browsing import enter, idle, seat, watched
from .test_browser import (
    DESKTOP,
    PHONE,
    SHEET,
    overflow,
    serious_violations,
    shot,
    view,
)

pytestmark = pytest.mark.browser

ROLLS = """async ([name, skill, visibility, n]) => {
  const c = state.characters.find((x) => x.name === name);
  for (let i = 0; i < n; i++)
    await api("POST", `${base}/rolls`, { actor: { character_id: c.id, skill }, visibility });
}"""


def roll(page: Any, name: str, skill: str, visibility: str, n: int) -> None:
    page.evaluate(ROLLS, [name, skill, visibility, n])


def shown_ledger(page: Any) -> str:
    """The ledger panel's text once asked for again."""
    view(page, "more")
    page.get_by_role("button", name="Show the ledger").click()
    idle(page)
    text: str = page.locator("#ledger-out").inner_text()
    return text


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_player_reads_their_luck_ledger(base: str, browser: Any, size: dict[str, int]) -> None:
    from playwright.sync_api import expect

    contexts = [
        watched(
            browser.new_context(
                viewport=size,
                has_touch=size == PHONE,
                is_mobile=size == PHONE,
                bypass_csp=True,  # for axe-core's script
            )
        )
        for _ in range(2)
    ]
    gm, pat = (c.new_page() for c in contexts)
    # made through the API, each page opened from its member's link: the ledger is tested here
    ledger = seat(
        base, "Ledger", {"GM": [SHEET.format(name="Orc")], "Pat": [SHEET.format(name="Alice")]}
    )
    enter(gm, base, ledger, "GM")
    enter(pat, base, ledger, "Pat")
    roll(pat, "Alice", "stealth", "public", 6)
    roll(pat, "Alice", "stealth", "blind", 1)
    roll(gm, "Orc", "spot hidden", "public", 2)

    before = shown_ledger(pat)
    card = pat.locator("#ledger-out article")
    expect(card.get_by_role("heading", name="Luck ledger of Alice")).to_be_visible()
    assert "6 rolls counted" in before
    assert re.search(r"a run this (un)?lucky or (un)?luckier: |exactly as many successes", before)
    table = card.get_by_role("table")
    expect(table).to_be_visible()
    seen = table.locator("tbody tr td.num:first-of-type")
    counts = [int(x) for x in seen.all_inner_texts()]
    assert sum(counts[:-1]) == 6  # every level's count; the last row is the successes'
    assert "1 left out: blind: its result is not shown to this viewer" in before
    expect(pat.get_by_label("Whose rolls")).to_have_value("each")
    assert overflow(pat) == 0
    assert serious_violations(pat) == []
    shot(pat, f"ledger-{'phone' if size == PHONE else 'desktop'}")

    # the GM rolls in secret, for Alice and for the NPC: Pat's ledger stays as it was
    for visibility in ("gm", "blind", "self"):
        roll(gm, "Alice", "rifle", visibility, 1)
        roll(gm, "Orc", "spot hidden", visibility, 1)
    assert shown_ledger(pat) == before

    # the table's ledger, as Pat sees it: the NPC's public rolls left out by their level
    view(pat, "more")
    pat.get_by_label("Whose rolls").select_option("")
    table_text = shown_ledger(pat)
    assert "Luck ledger of the table" in table_text
    assert "2 left out: its odds are not shown to this viewer" in table_text
    # the GM's ledger is the table's by default, and counts every roll but the others'
    # "self" ones: Alice's 6 open and 1 blind, the Orc's 2, and the GM's 6 secret ones
    assert "Luck ledger of the table" in (gms := shown_ledger(gm))
    assert "15 rolls counted" in gms
    assert overflow(gm) == 0
