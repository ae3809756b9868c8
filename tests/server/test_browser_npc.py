"""A Keeper's rolls on a phone: the GM's own characters start hidden from the players."""

from __future__ import annotations

from typing import Any

import pytest

from .browsing import seat_gm
from .test_browser import PHONE

pytestmark = pytest.mark.browser
GHOUL = 'name = "{name}"\nsystem = "brp"\nskills = {{ claw = 55 }}\n'


def test_the_gm_s_own_character_rolls_hidden_from_players_by_default(
    base: str, browser: Any
) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        seat_gm(page, base, "brp", [GHOUL.format(name="Ghoul")])  # opened through the API
        page.locator("#characters").get_by_role("button", name="Roll claw 55 for Ghoul").click()
        expect(page.locator("#roll-visibility")).to_have_value("gm")
    finally:
        context.close()
