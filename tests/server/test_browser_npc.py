"""A Keeper's rolls on a phone: the GM's own characters start hidden from the players."""

from __future__ import annotations

from typing import Any

import pytest

from .test_browser import PHONE, add_character, open_table, wired

pytestmark = pytest.mark.browser
GHOUL = 'name = "{name}"\nsystem = "brp"\nskills = {{ claw = 55 }}\n'


def test_the_gm_s_own_character_rolls_hidden_from_players_by_default(
    base: str, browser: Any
) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        address, _ = open_table(page, base, name="Ghoul night")
        page.goto(base + address)
        wired(page)
        add_character(page, "Ghoul", GHOUL)
        page.locator("#characters").get_by_role("button", name="Roll claw 55 for Ghoul").click()
        expect(page.locator("#roll-visibility")).to_have_value("gm")
    finally:
        context.close()
