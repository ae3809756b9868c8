"""The table page plays every registered system on a phone, from what it declares: a table
opened with it, a character from a sheet naming it, a test called at its usual target and
answered by tapping, a roll from the character's skill, nothing wider than the screen."""

from __future__ import annotations

from typing import Any

import pytest

from d100 import REGISTRY

from .test_browser import PHONE, overflow, tap_through
from .test_every_system import sheet

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("name", REGISTRY.names())
def test_the_page_plays_every_registered_system(base: str, browser: Any, name: str) -> None:
    system = REGISTRY.get(name)
    text = sheet(system, "{name}").replace("{", "{{").replace("}", "}}")
    text = text.replace("{{name}}", "{name}")
    tap_through(browser, base, name, text, "watch", system.declares.target.label)


@pytest.mark.parametrize("name", REGISTRY.names())
def test_the_odds_page_shows_every_registered_system(base: str, browser: Any, name: str) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        page.goto(f"{base}/odds")
        page.get_by_label("Rule system").select_option(name)
        page.get_by_label("Skill", exact=True).fill("55")
        page.get_by_role("button", name="Show the odds").click()
        expect(page.locator("#odds-result")).to_contain_text("Success:")
        expect(page.locator("#odds-error")).to_have_text("")
        expect(page.locator("#odds-chart svg")).to_be_visible()
        assert overflow(page) == 0
        assert not errors, errors
    finally:
        context.close()
