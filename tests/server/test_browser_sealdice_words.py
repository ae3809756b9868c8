"""SealDice's words in the page's roll box on a phone: ``.ra Spot Hidden`` is a check of the
sheet's skill, ``.rah`` a secret one (its roller sees it, another player only that someone
rolled), ``.sc 1/1d6`` the table's roll of the sheet, SAN written back, and ``.en Library
Use`` a development phase, the GM's; the server reads the words, the page only sends them."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .browsing import enter, seat
from .test_browser import PHONE, overflow, view

pytestmark = pytest.mark.browser
SHEET = (
    'name = "{name}"\nsystem = "coc7"\nluck = {{ current = 50, maximum = 99 }}\n'
    'skills = {{ "spot hidden" = 45, "library use" = 60, sanity = 60, int = 70 }}\n'
)


def test_sealdice_words_in_the_roll_box_on_a_phone(base: str, browser: Any) -> None:  # SD-W1
    from playwright.sync_api import expect

    pat = browser.new_page(viewport=PHONE, is_mobile=True)
    sam = browser.new_page(viewport=PHONE, is_mobile=True)
    errors: list[str] = []
    for page in (pat, sam):
        page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        keep = seat(
            base, "The Keep", {"GM": [], "Pat": [SHEET.format(name="Alice")], "Sam": []}, "coc7"
        )
        enter(pat, base, keep, "Pat")
        enter(sam, base, keep, "Sam")
        view(pat, "table")  # a player's roll box
        pat.locator("#declared-chat > summary").click()  # folded, as the actions' grammar
        expect(pat.locator("#declared-chat-help")).to_contain_text(".ra Spot Hidden")
        pat.locator("#declared-character").select_option(label="Alice")
        words = pat.get_by_label("Roll", exact=True)
        card = pat.locator("#declared-result > .card")
        roll = pat.get_by_role("button", name="Roll dice")
        words.fill(".ra Spot Hidden")  # rule: SD-W1
        roll.click()
        expect(card).to_contain_text("spot hidden")
        expect(card).to_contain_text(re.compile(r"vs (skill|Spot Hidden|spot hidden)? ?45|45"))
        # hidden: its roller sees it, tagged as the GM's and theirs; Sam only that one was made
        words.fill(".rah spot")  # rule: SD-W3
        roll.click()
        expect(card).to_contain_text("spot hidden")
        view(sam, "log")
        stub = sam.locator("#log .card").first
        expect(stub).to_contain_text("Someone rolled in secret")
        expect(stub).not_to_contain_text("spot")
        expect(stub).not_to_contain_text("Alice")
        words.fill(".sc 1/1d6")  # rule: SD-W6
        roll.click()
        expect(card).to_contain_text("SealDice .sc (setcoc 0)")
        left = re.search(r"SAN 60 -> (\d+)", card.inner_text())
        assert left is not None and 54 <= int(left.group(1)) <= 60, card.inner_text()
        words.fill(".en Library Use")  # rule: SD-W7: a development phase, the GM's
        roll.click()
        expect(pat.locator("#declared-error")).to_contain_text("development phase")
        words.fill(".setcoc 2")
        roll.click()
        refused = "Not allowed: set the table's house rules"  # the GM's (SD-W8)
        expect(pat.locator("#declared-error")).to_contain_text(refused)
        import httpx

        with httpx.Client(base_url=base, timeout=30) as client:  # the GM's .setcoc 2 (SD-W8)
            made = client.post(
                f"/api/tables/{keep.id}/declared-rolls",
                json={"words": ".setcoc 2"},
                headers={"authorization": f"Bearer {keep.tokens['GM']}"},
            )
            assert made.status_code == 201, made.text
        view(sam, "log")  # every member reads the line, and the table's rules say it
        expect(sam.locator("#log .card").first).to_contain_text("Gina set SealDice rule 2: 01-05")
        expect(pat.locator("#table-rules")).to_contain_text("setcoc: 2")
        # rule: SD-W8: .setcoc alone is a player's question too, answered in the box, unlogged
        words.fill(".setcoc")
        roll.click()
        told = pat.locator("#declared-result > .told")
        expect(told).to_have_text(re.compile(r"^SealDice rule 2: 01-05"))
        words.fill(".setcoc details")
        roll.click()
        expect(told).to_contain_text("SealDice rule dg: Delta Green")
        expect(pat.locator("#declared-error")).to_have_text("")
        assert len(told.inner_text().splitlines()) == 7
        assert overflow(pat) == 0 and overflow(sam) == 0
        assert not errors, errors
    finally:
        pat.close()
        sam.close()


def test_a_refused_word_leaves_no_earlier_answer_under_its_error(base: str, browser: Any) -> None:
    """On a phone the answer under the roll box is the one to the words in it: a refusal
    clears the one before (a card or a ``.setcoc`` answer read as the refused words'); the
    log keeps every roll."""
    from playwright.sync_api import expect

    pat = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        keep = seat(
            base,
            "The Keep",
            {"GM": [SHEET.format(name="Ghoul")], "Pat": [SHEET.format(name="Alice")]},
            "coc7",
        )
        enter(pat, base, keep, "Pat")
        view(pat, "table")
        pat.locator("#declared-chat > summary").click()
        pat.locator("#declared-character").select_option(label="Alice")
        words = pat.get_by_label("Roll", exact=True)
        roll = pat.get_by_role("button", name="Roll dice")
        answer, error = pat.locator("#declared-result"), pat.locator("#declared-error")
        words.fill(".setcoc")  # rule: SD-W8: answered under the box
        roll.click()
        expect(answer.locator(".told")).to_contain_text("SealDice rule 0")
        words.fill(".ra spot hidden @Ghoul")  # rule: SD-W5: the GM's, refused
        roll.click()
        expect(error).to_contain_text("Not allowed: roll for Ghoul")
        expect(answer).to_be_empty()
        words.fill(".ra spot hidden")
        roll.click()
        expect(answer.locator(".card")).to_contain_text("spot hidden")
        expect(error).to_have_text("")
        words.fill(".ra nosuch")
        roll.click()
        expect(error).to_contain_text("nosuch")
        expect(answer).to_be_empty()
        assert overflow(pat) == 0
    finally:
        pat.close()
