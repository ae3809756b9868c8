"""The table page plays a system whose every name is new (tests/new_names_system.py, loaded by
the server from D100_SYSTEMS), on a phone (390x844): the level's
style and mark on a card, the target's label and presets, the Luck boost and its cost, the
Luck reroll offered on a failed card, the improvement default, the contest and the exports
come from what the system declares, with nothing written for it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from tests import new_names_system as omens

from .browsing import seat_gm
from .test_browser import (
    DESKTOP,
    PHONE,
    add_character,
    call_test,
    expand,
    overflow,
    shot,
    view,
    wired,
)

pytestmark = pytest.mark.browser
SHEET = ('name = "{name}"\nsystem = "omens"\nluck = {{ current = 3, maximum = 3 }}\n'
         'skills = {{ augury = 50, "star lore" = 35 }}\n')
STYLE = {r.name: r for r in omens.RECORDS}



def roll_chip(page: Any, skill: str, dice: str, peril: str = "") -> Any:
    """Tap a skill of Ada's (the GM's), type the peril and the die, roll: the card where it
    was rolled."""
    view(page, "characters")
    page.locator("#characters [data-character=Ada]").get_by_role(
        "button", name=re.compile(f"^Roll {skill} \\d+ for Ada")).click()
    page.locator("#roll-peril").fill(peril)
    expand(page, "#more-options")
    page.get_by_label("Dice rolled by hand (optional)").fill(dice)
    here = page.locator("#roll-result > .card")
    before = here.get_attribute("data-seq") if here.count() else None
    page.get_by_role("button", name="Roll", exact=True).click()
    if before is not None:  # the card of this roll, not the last one's
        from playwright.sync_api import expect

        expect(here).not_to_have_attribute("data-seq", before)
    return shown(page)


def shown(page: Any) -> Any:
    """The card of the roll just made, where this screen shows it: where it was rolled on a
    phone, at the top of the log beside on a wide screen."""
    here = page.locator("#roll-result > .card")
    here.wait_for(state="attached")
    seq = here.get_attribute("data-seq")
    return page.locator(f".card[data-seq='{seq}']").filter(visible=True).first


def badge(card: Any, level: str) -> None:
    """The card's level as its record says: the style's class, the mark, the words."""
    from playwright.sync_api import expect

    spec = STYLE[level]
    expect(card).to_have_class(re.compile(rf"\b{spec.style}\b"))
    shown = card.locator(".level").first
    expect(shown).to_have_attribute("data-icon", spec.mark)
    expect(shown).to_have_class(re.compile(rf"\b{spec.style}\b"))
    expect(shown).to_contain_text(level)


def test_the_page_plays_a_system_whose_every_name_is_new(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        page.goto(f"{base}/")
        page.get_by_label("Table name").fill("Omens on a phone")
        page.get_by_label("Rule system").select_option("omens")
        usual = {"off": "off", "failure": "on failures", "success": "on successes"}
        expect(page.locator("#improvement-usual")).to_have_text(
            f"the system's usual ({usual[omens.DECLARATION.improvement]})")
        expand(page, "#house-rules-box")
        expect(page.locator("#house-rules")).to_contain_text("Doom from")
        page.get_by_role("button", name="Open the table").click()
        page.get_by_role("link", name="Go to the table").click()
        wired(page)

        # Ada by the form (name, skills, Luck: the system has Luck, no abilities).
        view(page, "characters")
        expand(page, "#sheet-details")
        expect(page.locator("#new-abilities-box")).to_be_hidden()
        page.get_by_label("Name", exact=True).fill("Ada")
        page.get_by_label("Skill 1", exact=True).fill("augury")
        page.get_by_label("Skill 1 value").fill("50")
        page.get_by_label("Skill 2", exact=True).fill("star lore")
        page.get_by_label("Skill 2 value").fill("35")
        page.get_by_label("Luck", exact=True).fill("3")
        page.get_by_role("button", name="Create the character").click()
        page.locator("#characters [data-character=Ada]").wait_for()
        # The Seer by TOML, the way the command line writes sheets.
        add_character(page, "Seer", SHEET)

        # A call at a peril only this system names, answered by tapping.
        expect(page.locator("#call-difficulty-label")).to_have_text(omens.DECLARATION.target.label)
        call_test(page, "augury", ["Ada"], difficulty="dire")
        expect(page.locator("#calls")).to_contain_text("success 30.00% (3/10)")  # 50 - 20
        page.get_by_role("button", name="Roll augury for Ada").click()
        expect(page.locator("#calls [data-call]")).to_contain_text("rolled")
        expect(page.locator("#log li[data-kind=roll] .level").first).to_be_attached()

        # A doom: its record's style and mark; the card offers a reroll for the reroll's Luck.
        card = roll_chip(page, "augury", "99")
        badge(card, "doom")
        offer = card.get_by_role("button", name="Spend 1 Luck to reroll (50.00% to succeed)")
        expect(offer).to_be_visible()
        card.get_by_label(re.compile("Your die for the reroll")).fill("3")
        offer.click()
        expect(page.locator("#roll-result > .card")).to_contain_text("Luck reroll of roll #")
        again = shown(page)  # the reroll, in the first roll's place
        expect(again).to_contain_text("Luck reroll of roll #")
        expect(again).to_contain_text("1 Luck spent")
        badge(again, "triumph")  # 03 <= 50 // 10
        expect(page.locator("#characters [data-character=Ada]")).to_contain_text("Luck 2 of 3")

        # Reading the omen is the system's Luck boost: its cost and bonus as declared.
        page.locator("#characters [data-character=Ada]").get_by_role(
            "button", name=re.compile("^Roll star lore")).click()
        boost = page.locator("#luck-boost")
        expect(boost).to_contain_text(f"spend {omens.LUCK.cost(True, 0)} for +{omens.OMEN}")
        boost.click()
        expect(page.locator("#roll-odds")).to_contain_text("Success 45.00%")  # 35 + 10
        expand(page, "#more-options")
        page.get_by_label("Dice rolled by hand (optional)").fill("40")
        page.get_by_role("button", name="Roll", exact=True).click()
        expect(page.locator("#roll-result > .card")).to_contain_text("star lore")
        card = shown(page)
        badge(card, "scrape")
        expect(card).to_contain_text(f"Luck boost +{omens.OMEN}")

        # A contest between the GM's two characters (equal levels go to the lots).
        page.locator("#characters [data-character=Ada]").get_by_role(
            "button", name=re.compile("^Roll augury")).click()
        page.get_by_role("button", name="Oppose…").click()
        page.get_by_label("Against").select_option(label="Seer (NPC)")
        page.get_by_label("Their skill").fill("augury")
        expect(page.locator("#oppose-lots")).to_have_count(0)  # a tie-break flip: drawn
        page.locator("#oppose-yield_to").select_option("opponent")  # the contest's own field
        expect(page.locator("#roll-odds")).to_contain_text("who wins")
        page.get_by_role("button", name="Roll the contest").click()
        expect(page.locator("#roll-result > .card")).to_contain_text("Winner:")
        expect(shown(page)).to_contain_text("Seer")
        expect(shown(page).locator(".contest-fields")).to_have_text("Yield to: opponent")
        page.get_by_role("button", name="Roll a check instead").click()

        # The sheet exports with its system named, Luck spent at the table in it.
        href = page.get_by_role("link", name="Export Ada's sheet").get_attribute("href")
        text = page.evaluate("async (h) => (await fetch(h)).text()", href)
        assert 'system = "omens"' in text and "current = 1" in text, text
        assert overflow(page) == 0
        shot(page, "table-omens-phone")
        page.set_viewport_size(DESKTOP)  # the same cards, the log beside
        assert overflow(page) == 0
        assert not errors, errors
    finally:
        context.close()


def test_the_odds_page_shows_the_new_system(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        page.goto(f"{base}/odds")
        page.get_by_label("Rule system").select_option("omens")
        page.get_by_label("Skill", exact=True).fill("70")
        page.get_by_label("Peril", exact=True).fill("cursed")
        page.get_by_role("button", name="Show the odds").click()
        expect(page.locator("#odds-result")).to_contain_text("Success: 30.00%")  # 70 - 40
        expect(page.locator("#odds-result")).to_contain_text("triumph")
        expect(page.locator("#odds-advice")).to_contain_text("read the omen")
        assert overflow(page) == 0
    finally:
        context.close()


@pytest.fixture
def followed(servers: Callable[..., str]) -> str:
    """A server whose omens declare follow-ups of their own (tests/server/omens_follow.py)."""
    return servers(D100_SYSTEMS="tests.server.omens_follow")


def test_a_failed_card_offers_what_the_system_declares_may_follow(
    followed: str, browser: Any
) -> None:
    """On a phone: a miss offers reading the omen on the same die (no die asked for it) and
    looking again (a roll with its chance); each taken shows where the first was rolled."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        seat_gm(page, followed, "omens", [SHEET.format(name="Ada")])  # opened through the API
        card = roll_chip(page, "augury", "55")  # 55 > 50: a miss
        badge(card, "miss")
        read = card.get_by_role("button", name="Read the omen now (+10)", exact=True)
        again = card.get_by_role("button", name="Look again (50.00% to succeed)")
        expect(read).to_be_visible()
        expect(again).to_be_visible()
        read.click()
        expect(page.locator("#roll-result > .card")).to_contain_text(
            "Omen read after the roll of roll #")
        card = shown(page)
        badge(card, "scrape")  # the same 55 against 60
        expect(card).to_contain_text("1 Luck spent")
        expect(card.get_by_role("button")).to_have_count(0)
        expect(page.locator("#characters [data-character=Ada]")).to_contain_text("Luck 2 of 3")

        card = roll_chip(page, "augury", "99")
        card.get_by_label(re.compile("Your die for the reroll")).fill("97")
        card.get_by_role("button", name=re.compile("^Look again")).click()
        expect(page.locator("#roll-result > .card")).to_contain_text("Second look of roll #")
        card = shown(page)
        badge(card, "doom")
        expect(card.get_by_role("button", name=re.compile("Look again|omen"))).to_have_count(0)
        assert overflow(page) == 0
        shot(page, "table-omens-follow-ups-phone")
        assert not errors, errors
    finally:
        context.close()
