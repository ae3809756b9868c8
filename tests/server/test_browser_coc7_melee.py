"""CoC7 melee on the table page, on phones: the Keeper calls Ada's brawl against the
Ghoul, which dodges (C7-7), from the response the edition declares for a contest; Ada's player
rolls it and the card shows the response, never the Ghoul's skill; the Keeper's own contest
form offers the response too, and its card shows it."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .browsing import enter, seat
from .test_browser import DESKTOP, PHONE, overflow, shot, view

pytestmark = pytest.mark.browser
SHEET = (
    'name = "{name}"\nsystem = "coc7"\nluck = {{ current = 50, maximum = 99 }}\n'
    'skills = {{ "fighting (brawl)" = 50, dodge = 47 }}\n'
)



def test_c7_7_a_called_melee_the_ghoul_dodges(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    contexts = [
        browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True) for _ in range(2)
    ]
    gm, pat = (c.new_page() for c in contexts)
    errors: list[str] = []
    for page in (gm, pat):
        page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        # opening, joining and the sheet form are tested elsewhere
        sheets = {"GM": [SHEET.format(name="Ghoul")], "Pat": [SHEET.format(name="Ada")]}
        keep = seat(base, "The Keep", sheets, "coc7")
        enter(gm, base, keep, "GM")
        view(gm, "characters")
        enter(pat, base, keep, "Pat")

        view(gm, "call")  # rule: C7-7 the Keeper chooses the defender's response
        expect(gm.locator("#call-contest-response")).to_be_hidden()  # a check has none
        gm.locator("#call-skill").fill("fighting")
        gm.locator("#call-characters").get_by_label("Ada", exact=True).check()
        gm.get_by_label("Opposed by").select_option(label="Ghoul")
        gm.get_by_label("Opposed with skill").fill("dodge")
        gm.locator("#call-contest-response").select_option("dodge")
        gm.get_by_role("button", name="Call for the test").click()
        expect(pat.locator("#calls")).to_contain_text("vs Ghoul (response dodge)")
        pat.locator("#calls").get_by_role(
            "button", name="Roll fighting (brawl) for Ada vs Ghoul"
        ).click()
        card = pat.locator("#calls .card")
        expect(card).to_contain_text("Winner")
        expect(card.locator(".contest-fields")).to_have_text("Response: dodge")
        # the Ghoul's dodge 47 nowhere on its side (Ada's own dice or margin may be 47)
        said = card.inner_text()
        ghoul_lines = [line for line in said.splitlines() if "Ghoul" in line]
        assert ghoul_lines and not any("47" in line for line in ghoul_lines), said
        assert not re.search(r"(vs|target|skill) 47\b", said), said
        gm_card = gm.locator("#log li[data-kind=contest]").first
        expect(gm_card.locator(".contest-fields")).to_have_text("Response: dodge")
        expect(gm_card).to_contain_text("dodges")  # the explanation the core gives

        # The Keeper's own contest: the response is offered beside the opponent, and the odds
        # are worked out with it.
        view(gm, "characters")
        gm.locator("#characters [data-character=Ghoul]").get_by_role(
            "button", name=re.compile("^Roll fighting")
        ).click()
        expect(gm.locator("#roll-difficulty")).to_be_visible()
        gm.get_by_role("button", name="Oppose…").click()
        # rule: C7-6 an opposed roll's sides take no difficulty, Luck or push: none is offered
        expect(gm.locator("#roll-difficulty")).to_be_hidden()
        for field in ("luck_to", "push", "combined"):
            assert gm.locator(f"#roll-{field}").evaluate("i => i.closest('div').hidden"), field
        expect(gm.locator("#roll-bonus_dice")).to_be_attached()
        assert not gm.locator("#roll-bonus_dice").evaluate("i => i.closest('div').hidden")
        gm.locator("#oppose-character").select_option(label="Ada (Pat)")
        gm.locator("#oppose-skill").fill("dodge")
        # a choice reads in words, not as its key (issue 32: "fight_back" on the page)
        gm.locator("#oppose-response").select_option(label="fight back")
        expect(gm.locator("#roll-odds")).to_contain_text("who wins")
        gm.get_by_role("button", name="Roll the contest").click()
        expect(gm.locator("#roll-result .contest-fields")).to_have_text("Response: fight back")
        assert overflow(gm) == 0 and overflow(pat) == 0
        for page in (gm, pat):  # the same cards, the log beside
            page.set_viewport_size(DESKTOP)
            assert overflow(page) == 0
        shot(pat, "table-coc7-melee-phone")
        assert not errors, errors
    finally:
        for c in contexts:
            c.close()
