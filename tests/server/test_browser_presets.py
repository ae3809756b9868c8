"""The table page shows a system's difficulty presets as its declaration gives them: a
multiplicative preset in its declared words ("difficult (x1/2)"), never as a modifier."""

from __future__ import annotations

from typing import Any

import pytest

from .test_browser import PHONE

pytestmark = pytest.mark.browser



@pytest.mark.parametrize(
    ("system", "shown", "not_shown"),
    [
        ("brp-foundry", "difficult (x1/2)", "difficult +50"),
        ("brp-uge", "easy (x2)", "easy +200"),
        ("brp", "difficult -20", "difficult (x"),
    ],
)
def test_presets_show_as_declared(
    base: str, browser: Any, system: str, shown: str, not_shown: str
) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PHONE, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(f"{base}/")
        page.get_by_label("Rule system").select_option(system)
        page.get_by_role("button", name="Open the table").click()
        page.get_by_role("link", name="Go to the table").click()
        help_text = page.locator("#call-difficulty-help")
        expect(help_text).to_contain_text(shown)
        assert not_shown not in (help_text.text_content() or "")
    finally:
        context.close()
