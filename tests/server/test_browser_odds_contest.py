"""The odds page works out a check and a contest for every registered system: the opponent's
skill and fields beside the check's, the check's fields a contest's side does not take hidden
(CoC7's opposed roll has no difficulty, Luck or push), and the page's numbers are the
library's for the same contest, asked directly; then the check alone, its chart beside."""

from __future__ import annotations

from typing import Any

import pytest

from d100 import odds
from d100.systems import REGISTRY

from .test_browser import PHONE, overflow

pytestmark = pytest.mark.browser



def exact(page: Any) -> dict[str, str]:
    """The result table's outcome -> exact fraction."""
    rows = page.locator("#odds-result tbody tr")
    return {
        rows.nth(i).locator("th").inner_text(): rows.nth(i).locator("td.exact").inner_text()
        for i in range(rows.count())
    }


@pytest.mark.parametrize("name", REGISTRY.names())
def test_the_odds_page_works_out_a_contest_of_every_system(
    base: str, browser: Any, name: str
) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        page.goto(f"{base}/odds")
        page.get_by_label("Rule system").select_option(name)
        expect(page.locator("#odds-opponent")).to_be_hidden()
        page.get_by_label("Skill", exact=True).fill("62")
        page.get_by_label("Against an opponent").check()
        page.get_by_label("Their skill").fill("41")
        page.get_by_role("button", name="Show the odds").click()
        expect(page.locator("#odds-result caption")).to_contain_text("62 against 41")
        expect(page.locator("#odds-error")).to_have_text("")
        expect(page.locator("#odds-chart-box")).to_be_hidden()
        want = odds({"system": name, "actor": {"skill": 62}, "opponent": {"skill": 41}})
        assert exact(page) == want.to_dict()["winner"]
        assert overflow(page) == 0
        # The same system's check, its chart beside.
        page.get_by_label("Against an opponent").uncheck()
        page.get_by_role("button", name="Show the odds").click()
        expect(page.locator("#odds-result")).to_contain_text("Success:")
        expect(page.locator("#odds-error")).to_have_text("")
        expect(page.locator("#odds-chart svg")).to_be_visible()
        assert overflow(page) == 0
        assert not errors, errors
    finally:
        context.close()


def test_c7_6_the_odds_of_a_coc7_melee_on_the_odds_page(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        page.goto(f"{base}/odds")
        page.get_by_label("Rule system").select_option("coc7")
        expect(page.locator("#odds-difficulty")).to_be_visible()
        page.get_by_label("Skill", exact=True).fill("55")
        page.locator("#odds-bonus_dice").fill("1")
        page.get_by_label("Against an opponent").check()
        # rule: C7-6 a side of an opposed roll takes no difficulty, Luck after the roll or push
        for field in ("difficulty", "luck", "luck_to", "push", "combined"):
            assert page.locator(f"#odds-{field}").evaluate("i => i.closest('div').hidden"), field
        expect(page.locator("#odds-bonus_dice")).to_be_visible()
        page.get_by_label("Their skill").fill("47")
        page.locator("#odds-opponent-penalty_dice").fill("1")
        page.locator("#odds-contest-response").select_option("dodge")  # rule: C7-7
        page.get_by_role("button", name="Show the odds").click()
        expect(page.locator("#odds-result caption")).to_contain_text("55 against 47")
        want = odds(
            {
                "system": "coc7",
                "actor": {"skill": 55, "bonus_dice": 1},
                "opponent": {"skill": 47, "penalty_dice": 1},
                "response": "dodge",
            }
        )
        assert exact(page) == want.to_dict()["winner"]
        expect(page.locator("#odds-advice-box")).to_be_hidden()
        assert overflow(page) == 0
        assert not errors, errors
    finally:
        context.close()
