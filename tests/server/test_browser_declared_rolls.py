"""Dice and Sanity rolls on the table page, on a phone and a desktop: the Keeper's small form
takes ``1d6+1``, ``sc 1/1d6``, an attack with its damage and several shots, the card shows the
total, the Sanity roll or the action's report with its exact odds, and a character's SAN on
its card is what the roll left (S7-2); a blind one the GM shows to everyone from its card."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .browsing import enter, seat, seat_gm
from .test_browser import DESKTOP, PHONE, overflow, view

pytestmark = pytest.mark.browser
SHEET = (
    'name = "{name}"\nsystem = "coc7"\nluck = {{ current = 50, maximum = 99 }}\n'
    'skills = {{ "spot hidden" = 45, sanity = 60, int = 70, brawl = 50 }}\n'
)


def test_dice_and_a_sanity_roll_from_the_page(base: str, browser: Any) -> None:  # rule: S7-2
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PHONE, is_mobile=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        seat_gm(page, base, "coc7", [SHEET.format(name="Ada")])  # opened through the API
        words = page.get_by_label("Roll", exact=True)
        expect(words).to_have_attribute("placeholder", re.compile("sc 1/1d6"))
        # the actions' grammar is folded away: the field's help is a few lines on a phone
        help_box = page.locator("#declared-help").bounding_box()
        assert help_box is not None and help_box["height"] < 150, help_box
        page.locator("#declared-actions > summary").click()
        expect(page.locator("#declared-actions-help")).to_contain_text("FAR(")
        words.fill("1d6+1")
        page.get_by_role("button", name="Roll dice").click()
        card = page.locator("#declared-result > .card")
        expect(card).to_contain_text("Total")
        expect(card).to_contain_text("Exact chance of")
        expect(card).to_contain_text(re.compile(r"mean 4\.50 \(9/2\)"))  # not 9/2 alone
        total = int(card.locator(".total").inner_text())
        assert 2 <= total <= 7
        page.locator("#declared-character").select_option(label="Ada")
        words.fill("sc 1/1d6")
        page.get_by_role("button", name="Roll dice").click()
        expect(card).to_contain_text("Sanity sc 1/1d6")
        expect(card).to_contain_text("Odds of success 3/5")
        expect(card).to_contain_text(re.compile(r"mean loss 2\.0[23] \(81/40\)"))
        left = re.search(r"SAN 60 → (\d+)", card.inner_text())
        assert left is not None, card.inner_text()
        assert 54 <= int(left.group(1)) <= 59
        # an attack with its damage, led by the sheet's skill (S7-6), and several shots
        words.fill("brawl dmg=1d3+DB db=+1d4 impale")
        page.get_by_role("button", name="Roll dice").click()
        expect(card).to_contain_text("attack — skill 50; damage 1d3+DB with DB +1d4, impaling")
        expect(card).to_contain_text("Exact odds: a hit 1/2")
        words.fill("45 shots2 dmg=1d10 long")
        page.get_by_role("button", name="Roll dice").click()
        expect(card).to_contain_text("multiple shots — skill 45, 2 shots")
        expect(card).to_contain_text("any hit")
        assert overflow(page) == 0
        page.set_viewport_size(DESKTOP)
        expect(page.locator("#log .card").first).to_contain_text("multiple shots")
        assert overflow(page) == 0
        # a blind one: the GM shows it to everyone from its card
        page.locator("#declared-character").select_option(label="no character")
        page.locator("#declared-visibility").select_option("blind")
        words.fill("2d6")
        page.get_by_role("button", name="Roll dice").click()
        blind = page.locator("#log .card").first  # on a wide screen the log shows it
        expect(blind).to_contain_text("2d6")
        blind.get_by_role("button", name="Show to everyone").click()
        expect(page.locator("#log .card").first).to_contain_text("Blind roll #")
        expect(page.locator("#log .card").first).to_contain_text("Total")
        assert not errors, errors
    finally:
        context.close()


def test_an_npc_s_attack_reads_as_an_attack_on_a_player_s_page(base: str, browser: Any) -> None:
    """A player's page shows an NPC's attack by what it came to (hit or miss, the damage), not
    as an empty Sanity roll: its view to a player keeps the action's name and outcome only."""
    from playwright.sync_api import expect

    gm = browser.new_page(viewport=PHONE)
    player = browser.new_page(viewport=PHONE)
    errors: list[str] = []
    for page in (gm, player):
        page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        # opening and joining are tested elsewhere
        keep = seat(base, "The Keep", {"GM": [SHEET.format(name="Ghoul")], "Pat": []}, "coc7")
        enter(gm, base, keep, "GM")
        enter(player, base, keep, "Pat")
        view(gm, "characters")
        gm.locator("#declared-character").select_option(label="Ghoul")
        gm.get_by_label("Roll", exact=True).fill("brawl dmg=1d3+DB db=+1d4")
        gm.get_by_role("button", name="Roll dice").click()
        expect(gm.locator("#declared-result > .card")).to_contain_text("damage")
        view(player, "log")
        card = player.locator("#log .card").first
        expect(card).to_contain_text("Call of Cthulhu 7th edition attack")
        # every outcome its dice may give: a miss, a hit, an extreme hit (no impale here)
        expect(card).to_contain_text(re.compile(r"(hit|miss|extreme damage); \d+ damage"))
        expect(card).not_to_contain_text("Sanity")
        expect(card).not_to_contain_text("1d4")
        assert not errors, errors
    finally:
        gm.close()
        player.close()


def test_a_group_luck_call_from_the_page(base: str, browser: Any) -> None:
    """The call form offers the system's group Luck roll: of the characters ticked, only the
    lowest Luck is called."""
    from playwright.sync_api import expect

    page = browser.new_page(viewport=DESKTOP)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        bo = SHEET.replace("current = 50", "current = 30")  # opened through the API:
        seat_gm(page, base, "coc7", [SHEET.format(name="Ada"), bo.format(name="Bo")])
        view(page, "call")
        page.locator("#call-skill").fill("luck")
        for name in ("Ada", "Bo"):
            page.locator("#call-characters").get_by_label(name).check()
        lowest = page.get_by_label(re.compile("Group Luck roll: .*lowest Luck"))
        lowest.check()
        page.get_by_role("button", name="Call for the test").click()
        expect(page.locator("#call-done")).to_contain_text("Called Luck for Bo.")
        assert not errors, errors
    finally:
        page.close()


def test_the_development_phase_from_the_page(base: str, browser: Any) -> None:  # rule: S7-7
    """The GM's end-of-session action: a character's marked skills with their exact chance to
    improve first, then rolled into a card, the sheet written and its marks cleared. A
    characteristic on the character's card is rolled as a skill is (S7-10)."""
    from playwright.sync_api import expect

    page = browser.new_page(viewport=PHONE)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        marked = 'marks = ["spot hidden"]\ncharacteristics = {{ DEX = 50 }}\n'
        seat_gm(page, base, "coc7", [(SHEET + marked).format(name="Ada")])  # opened through the API
        page.get_by_role("button", name="Roll DEX 50 for Ada").click()
        expect(page.locator("#roll-skill")).to_have_value("DEX")
        view(page, "call")
        page.locator("#develop-details > summary").click()
        page.locator("#develop-character").select_option(label="Ada")
        page.get_by_role("button", name="Show the odds").click()
        chances = page.locator("#develop-chances")
        # worked out on the worker pool, whose first use starts its processes
        expect(chances).to_contain_text("spot hidden", timeout=30_000)
        expect(chances).to_contain_text("55.00%")  # over 45: 55 faces of 100
        page.get_by_role("button", name="Roll the development phase").click()
        card = page.locator("#develop-result")
        expect(card).to_contain_text("Development phase: Ada")
        expect(card).to_contain_text("Written to the sheet; marks cleared.")
        assert overflow(page) == 0
        assert not errors, errors
    finally:
        page.close()


def test_the_whole_party_s_development_phase_from_a_phone(
    base: str, browser: Any
) -> None:  # rule: XP-1
    """The GM's one action for every player's character of a BRP table: the
    party's odds first (each character's skills, the experience bonus added), then every
    phase rolled, a card each, on a phone's width."""
    from playwright.sync_api import expect

    brp = 'name = "{name}"\nsystem = "brp"\nskills = {{ {skills} }}\nmarks = {marks}\n'
    seated = seat(
        base,
        "The Keep",
        {
            "Pat": [
                brp.format(name="Ann", skills="spot = 60", marks='["spot"]')
                + "experience_bonus = 6\n"
            ],
            "Sam": [brp.format(name="Ben", skills="climb = 45", marks='["climb"]')],
        },
    )
    page = browser.new_page(viewport=PHONE)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        enter(page, base, seated, "GM")
        view(page, "call")
        page.locator("#develop-details > summary").click()
        page.get_by_role("button", name="Show the whole party's odds").click()
        chances = page.locator("#party-chances")
        expect(chances).to_contain_text("Ben", timeout=30_000)  # the worker pool's first use
        expect(chances).to_contain_text("46.00%")  # Ann: d100 + 6 over 60, 55..100
        expect(chances).to_contain_text("55.00%")  # Ben: no bonus, over 45
        expect(chances).to_contain_text("2 rolls")
        assert overflow(page) == 0
        page.get_by_role("button", name="Roll the whole party's phase").click()
        cards = page.locator("#party-result")
        expect(cards).to_contain_text("Development phase: Ann")
        expect(cards).to_contain_text("Development phase: Ben")
        expect(cards.get_by_text("Written to the sheet; marks cleared.")).to_have_count(2)
        assert overflow(page) == 0
        assert not errors, errors
    finally:
        page.close()
