"""Call of Cthulhu 7th edition on the table page, on a phone: a failed card offers the
Luck the edition's follow-ups price and a push with its chance (C7-4, C7-5), a success the Luck
that raises it (C7-4); each taken shows where the roll was made. Skipped while the edition
declares no follow-ups."""

from __future__ import annotations

import re
from typing import Any

import pytest

from d100 import REGISTRY

from .browsing import seat_gm
from .test_browser import DESKTOP, PHONE, overflow, shot
from .test_browser_new_names import shown

READY = "coc7" in REGISTRY and REGISTRY.get("coc7").declares.follow_ups is not None
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not READY, reason="coc7 declares no follow-ups yet")]
SHEET = ('name = "{name}"\nsystem = "coc7"\nluck = {{ current = 50, maximum = 99 }}\n'
         'skills = {{ "library use" = 60, "spot hidden" = 45 }}\n')



def roll(page: Any, dice: str) -> Any:
    from playwright.sync_api import expect

    page.locator("#characters [data-character=Ada]").get_by_role(
        "button", name=re.compile("^Roll library use")).click()
    page.locator("#more-options").evaluate("d => { d.open = true; }")
    page.get_by_label("Dice rolled by hand (optional)").fill(dice)
    page.get_by_role("button", name="Roll", exact=True).click()
    expect(page.locator("#roll-result > .card")).to_contain_text(f"Dice {dice}")
    return shown(page)


def test_c7_4_c7_5_the_card_offers_luck_and_a_push(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PHONE, is_mobile=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        seat_gm(page, base, "coc7", [SHEET.format(name="Ada")])  # opened through the API
        asked: list[str] = []
        page.on("dialog", lambda d: (asked.append(d.message), d.accept()))
        card = roll(page, "70")  # 70 > 60: a failure, 10 Luck from a regular success
        expect(card.get_by_role("button", name="Push the roll (60.00% to succeed)")).to_be_visible()
        # what a push risks shows before it is taken, in Discord's words (issue 32)
        expect(card.locator(".stakes")).to_have_text(
            "Push the roll, 60.00% (3/5) to succeed; a failed push brings a dire consequence,"
            " the Keeper's to choose."
        )
        card.get_by_role("button", name=re.compile("^Spend 10 Luck")).click()
        expect(page.locator("#roll-result > .card")).to_contain_text("10 Luck spent")
        expect(shown(page).locator(".level")).to_contain_text("regular")
        # A spend of several points asks first, saying what it leaves; the card shows the
        # roll as the Luck lowered it, not only the die.
        assert asked == ["Spend 10 Luck: regular? Ada has 50 Luck and keeps 40."], asked
        expect(shown(page)).to_contain_text("10 Luck lowers it to 60")
        expect(page.locator("#characters")).to_contain_text("Luck 40 of 99")
        card = roll(page, "40")  # a regular success, raised by Luck (C7-4): no push on offer
        expect(card.get_by_role("button", name=re.compile("^Push"))).to_have_count(0)
        expect(card.get_by_role("button", name=re.compile("^Spend 28 Luck"))).to_be_visible()
        card.get_by_role("button", name=re.compile("^Spend 10 Luck: hard")).click()
        expect(page.locator("#roll-result > .card")).to_contain_text("10 Luck spent")
        expect(shown(page).locator(".level")).to_contain_text("hard")
        expect(page.locator("#characters")).to_contain_text("Luck 30 of 99")
        card = roll(page, "80")
        card.get_by_label(re.compile("Your die for the reroll")).fill("30")
        card.get_by_role("button", name=re.compile("^Push the roll")).click()
        expect(page.locator("#roll-result > .card")).to_contain_text("of roll #")
        card = shown(page)
        expect(card.locator(".level")).to_contain_text("hard")  # 30 <= 60 / 2
        expect(card.get_by_role("button", name=re.compile("Luck|Push"))).to_have_count(0)
        expect(card.locator(".hazard")).to_have_count(0)  # a push that worked is no warning
        expect(card.locator(".stakes")).to_have_count(0)  # nor offers what it risked
        card = roll(page, "90")  # pushed again to a 95: a failed push is flagged (C7-5)
        card.get_by_label(re.compile("Your die for the reroll")).fill("95")
        card.get_by_role("button", name=re.compile("^Push the roll")).click()
        expect(page.locator("#roll-result > .card")).to_contain_text("of roll #")
        expect(shown(page).locator(".hazard")).to_contain_text(
            "The push failed: the Keeper brings a dire consequence"
        )
        assert overflow(page) == 0
        page.set_viewport_size(DESKTOP)  # the same cards, the log beside
        assert overflow(page) == 0
        shot(page, "table-coc7-phone")
        assert not errors, errors
    finally:
        context.close()
