"""Luck offered on an attack's card on a phone (C7-4): each offer a tap target tall enough,
within the screen; an offer the sheet's Luck no longer covers (C7-4 wants more Luck than the
cost, ``needs``) goes from the card, as the server would refuse it."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from .browsing import enter, seat
from .test_browser import PHONE, overflow, view
from .test_browser_attack_defender import ALICE

pytestmark = pytest.mark.browser


def test_c7_4_an_attack_s_luck_offer_goes_once_the_sheet_holds_only_its_cost(
    base: str, browser: Any
) -> None:
    from playwright.sync_api import expect

    seated = seat(base, "The Keep", {"GM": [], "Pat": [ALICE]}, system="coc7")
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        enter(page, base, seated, "Pat")
        view(page, "table")
        page.locator("#declared-character").select_option(label="Alice")
        words = page.get_by_label("Roll", exact=True)
        card = page.locator("#declared-result > .card")
        offers = card.locator(".reroll button")
        for _ in range(30):  # until the card offers Luck (a roll of 61-99: one in three)
            before = card.get_attribute("data-seq") if card.count() else None
            words.fill("brawl dmg=1d3+DB")
            page.get_by_role("button", name="Roll dice").click()
            if before is not None:  # this roll's card, not the one before it (still in view)
                expect(card).not_to_have_attribute("data-seq", before)
            expect(card).to_contain_text("damage 1d3+DB")
            if offers.count():
                break
        assert offers.count(), "no attack offered Luck in 30"
        assert overflow(page) == 0
        for button in offers.all():  # the page's small button: 32 px, over WCAG 2.5.8's 24
            box = button.bounding_box()
            assert box is not None and box["height"] >= 24 and box["width"] <= PHONE["width"]
        cost = int(offers.first.inner_text().split()[1])
        with httpx.Client(base_url=base, timeout=30) as client:
            edited = client.patch(
                f"/api/tables/{seated.id}/characters/{seated.characters['Pat'][0]}",
                json={"luck": {"current": cost, "maximum": 99}},
                headers={"authorization": f"Bearer {seated.tokens['Pat']}"},
            )
            assert edited.status_code == 200, edited.text
        expect(page.locator("#characters")).to_contain_text(f"Luck {cost} of 99")
        expect(card.locator(f".reroll button:has-text('Spend {cost} Luck')")).to_have_count(0)
        assert not errors, errors
    finally:
        context.close()
