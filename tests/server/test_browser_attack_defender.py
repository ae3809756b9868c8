"""An attack on another player's character from the table page on a phone (C7-7): the
player names the defender in the declared form, the defender's Dodge is read from their
sheet, and the card the attacker sees shows the defender by level only, not their skill; the
defender's player sees it whole. Luck on the attack made (C7-4) is offered on the card with
exactly what it buys, and taken there."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .browsing import enter, seat
from .test_browser import PHONE, overflow, view

pytestmark = pytest.mark.browser
ALICE = (
    'name = "Alice"\nsystem = "coc7"\ncharacteristics = { STR = 80, SIZ = 70 }\n'
    "skills = { brawl = 60 }\nluck = { current = 99, maximum = 99 }\n"
)
BOB = (
    'name = "Bob"\nsystem = "coc7"\ncharacteristics = { STR = 90, SIZ = 80 }\n'
    "skills = { dodge = 47 }\n"
)


def test_c7_7_a_player_attacks_another_s_character_on_a_phone_without_seeing_their_skill(
    base: str, browser: Any
) -> None:
    from playwright.sync_api import expect

    seated = seat(base, "The Keep", {"GM": [], "Pat": [ALICE], "Sam": [BOB]}, system="coc7")
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        enter(page, base, seated, "Pat")
        view(page, "table")
        page.locator("#declared-character").select_option(label="Alice")
        against = page.get_by_label("Defender", exact=True)
        expect(against).to_be_visible()
        assert against.locator("option").all_inner_texts() == ["nobody", "Bob"]
        against.select_option(label="Bob")
        words = page.get_by_label("Roll", exact=True)
        card = page.locator("#declared-result > .card")
        offered = None
        for _ in range(30):  # until the card offers Luck (a roll of 61-99: one in three)
            before = card.get_attribute("data-seq") if card.count() else None
            words.fill("brawl dmg=1d3+DB")
            page.get_by_role("button", name="Roll dice").click()
            if before is not None:  # this roll's card, not the one before it (still in view)
                expect(card).not_to_have_attribute("data-seq", before)
            expect(card).to_contain_text("against the defender (dodge)")
            shown = card.inner_text()
            assert "47" not in shown and "Exact odds" not in shown, shown
            assert re.search(r"defence (FUMBLE|FAILURE|REGULAR|HARD|EXTREME|CRITICAL)", shown)
            assert overflow(page) == 0
            offers = card.locator(".reroll button")
            if offers.count():
                offered = offers.first
                break
        assert offered is not None, "no attack offered Luck in 30"
        expect(card.locator(".gives").first).to_contain_text("a Luck point")
        label = offered.inner_text()
        cost = int(label.split()[1])
        page.once("dialog", lambda dialog: dialog.accept())  # a spend of several points asks
        offered.click()
        expect(page.locator("#declared-result .card")).to_contain_text(
            "Luck spent after the roll of roll #"
        )
        expect(page.locator("#declared-result .card")).to_contain_text(f"{cost} Luck spent")
        assert "47" not in page.locator("#declared-result .card").inner_text()
        # Sam, Bob's player, sees the attack whole: Bob's Dodge in its title
        theirs = context.new_page()
        enter(theirs, base, seated, "Sam")
        view(theirs, "log")
        expect(theirs.locator("#log")).to_contain_text("against 47 (dodge)")
        assert not errors, errors
    finally:
        context.close()
