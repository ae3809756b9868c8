"""The table page plays a fourth, made-up system (tests/fourth_system.py) that the server loads
from D100_SYSTEMS: every label, preset and option comes from what the system declares, so the
page needs nothing written for it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .services import serve
from .test_browser import PHONE, add_character, browser, call_test, overflow, shot, wired

pytestmark = pytest.mark.browser
__all__ = ["browser"]  # the shared Chromium fixture
SHEET = 'name = "{name}"\nsystem = "percent"\nskills = {{ climb = 45, swim = 30 }}\n'


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    where: Path = tmp_path_factory.mktemp("fourth")
    url = f"sqlite:///{where / 'd100.sqlite3'}"
    with serve(url, where / "server.log", D100_SYSTEMS="tests.fourth_system") as found:
        yield found


def test_the_page_calls_and_rolls_a_system_it_was_never_written_for(
    base: str, browser: Any
) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        page.goto(f"{base}/")
        page.get_by_label("Table name").fill("A percent night")
        page.get_by_label("Rule system").select_option("percent")
        page.get_by_role("button", name="Open the table").click()
        page.get_by_role("link", name="Go to the table").click()
        wired(page)
        add_character(page, "Ada", SHEET)
        expect(page.locator("#call-difficulty-label")).to_have_text("Difficulty")
        call_test(page, "climb", ["Ada"], difficulty="hard")  # a preset only this system has
        page.get_by_role("button", name="Roll climb for Ada").click()
        expect(page.locator("#calls .card")).to_contain_text("climb")
        page.locator("#characters").get_by_role("button", name=re.compile("^Roll climb ")).click()
        expect(page.locator("#roll-odds")).to_contain_text("Success")
        page.get_by_role("button", name="Roll", exact=True).click()
        expect(page.locator("#roll-result .card .level")).to_be_visible()
        assert overflow(page) == 0
        shot(page, "table-percent-phone")
        assert not errors, errors
    finally:
        context.close()
