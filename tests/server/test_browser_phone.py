"""The table page's first screens at 390x844 and 1280x800: the GM sees the latest result and
what is pending, each GM tool one tap away; a player's result shows once; a contest starts
from the skill panel."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .browsing import enter, seat, settled, watched
from .test_browser import (
    DESKTOP,
    PHONE,
    SHEET,
    add_character,
    call_test,
    overflow,
    shot,
    view,
    wired,
)

pytestmark = pytest.mark.browser


def on_screen(page: Any, selector: str) -> bool:
    """Whether the element is rendered and wholly inside the viewport once the page settles:
    a state read re-renders a list, so a single look can catch its element detached. Layout
    is in fractions of a pixel and scrolling in whole ones: a pixel's give at each edge."""
    from playwright.sync_api import TimeoutError as Timeout

    try:
        page.wait_for_function(
            "s => { const e = document.querySelector(s); if (!e) return false;"
            " const r = e.getBoundingClientRect(); return e.checkVisibility() && r.height > 0"
            " && r.top >= -1 && r.bottom <= innerHeight + 1 && r.left >= -1"
            " && r.right <= innerWidth + 1; }",
            arg=selector,
            timeout=3000,
        )
    except Timeout:
        return False
    return True


def times_seen(page: Any, seq: str) -> int:
    """How many cards of one result are rendered at least partly inside the viewport."""
    seen: int = page.evaluate(
        """seq => [...document.querySelectorAll(`.card[data-seq="${seq}"]`)].filter((e) => {
            const r = e.getBoundingClientRect();
            return e.checkVisibility() && r.height > 0 && r.bottom > 0 && r.top < innerHeight;
        }).length""",
        seq,
    )
    return seen


def scene(
    browser: Any, base: str, size: dict[str, int], sam_looks: bool = True
) -> tuple[list[Any], Any, Any, Any]:
    """A GM with an NPC and two players with a character each, all at one screen size, the
    GM's page on the characters' view; Sam's page None unless ``sam_looks`` (a test that only
    needs Bob at the table leaves it closed)."""
    who_looks = ["GM", "Pat", "Sam"] if sam_looks else ["GM", "Pat"]
    contexts = [
        watched(
            browser.new_context(viewport=size, has_touch=size == PHONE, is_mobile=size == PHONE)
        )
        for _ in who_looks
    ]
    pages = [c.new_page() for c in contexts]
    # made through the API, each page opened from its member's link: what is tested is what
    # each first screen shows, not the forms that open, join and fill the table
    sheets = {"GM": "Orc", "Pat": "Alice", "Sam": "Bob"}
    seated = seat(base, "First screens", {k: [SHEET.format(name=v)] for k, v in sheets.items()})
    for page, who in zip(pages, who_looks, strict=True):
        enter(page, base, seated, who)
    view(pages[0], "characters")
    gm, pat, sam = [*pages, None][:3]
    return contexts, gm, pat, sam


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_gm_s_first_screen_shows_results_and_calls_and_every_tool_is_one_tap_away(
    base: str, browser: Any, size: dict[str, int]
) -> None:
    from playwright.sync_api import expect

    contexts, gm, pat, _ = scene(browser, base, size, sam_looks=False)
    label = "phone" if size == PHONE else "desktop"
    try:
        call_test(gm, "stealth", ["Alice", "Bob"], "difficult", "the guard hears you")
        pat.get_by_role("button", name="Roll stealth for Alice").click()
        expect(gm.locator("#calls [data-call]")).to_contain_text("Alice: rolled")
        gm.reload()
        wired(gm)
        gm.evaluate("scrollTo(0, 0)")  # the first screen
        calls = "#calls [data-call]"
        expect(gm.locator(calls)).to_contain_text("Bob: pending")  # who still has to roll
        if size == PHONE:
            result = "#latest .card"
            expect(gm.locator(result)).to_contain_text("Alice")
        else:  # the log beside the call form, its newest card on top
            result = "#log li[data-kind=roll]"
            expect(gm.locator("#log li").first).to_have_attribute("data-kind", "roll")  # replayed
            assert on_screen(gm, "#call-button")
        shot(gm, f"first-gm-{label}")
        assert on_screen(gm, result) and on_screen(gm, calls)
        # Each GM tool one tap from the first screen (on a wide one, already in view or
        # a scroll away beside the log); the call form's button at most a screen below.
        tools = {
            "call": ["#call-skill"],
            "characters": ["#characters [data-character=Orc]"],
            "more": ["#rest-button", "#invite-button", "#table-rules"],
        }
        for name, wanted in tools.items():
            gm.evaluate("scrollTo(0, 0)")
            view(gm, name)
            for selector in wanted:
                if size == DESKTOP:
                    gm.locator(selector).evaluate("e => e.scrollIntoView({ block: 'center' })")
                assert on_screen(gm, selector), (name, selector)
            assert overflow(gm) == 0
            shot(gm, f"first-gm-{name}-{label}")
            if name == "call":
                button = gm.locator("#call-button")
                expect(button).to_be_visible()
                bottom = button.evaluate("e => e.getBoundingClientRect().bottom + scrollY")
                assert bottom <= 2 * size["height"], bottom
        if size == PHONE:  # the view is in the address: a reload keeps it
            assert gm.url.endswith("#view=more")
            gm.reload()
            wired(gm)
            assert on_screen(gm, "#rest-button")
            expect(gm.locator("#tabs a[aria-current=page]")).to_have_text("More")
            expect(gm.locator("#calls-box")).to_be_hidden()
    finally:
        for c in contexts:
            c.close()


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_player_s_result_shows_once_on_the_screen(
    base: str, browser: Any, size: dict[str, int]
) -> None:
    from playwright.sync_api import expect

    contexts, gm, pat, _ = scene(browser, base, size, sam_looks=False)
    label = "phone" if size == PHONE else "desktop"
    try:
        # A free roll: beside the roll panel (on a wide screen, in the log beside it).
        pat.locator("#characters").get_by_role("button", name="Roll stealth 60 for Alice").click()
        pat.get_by_role("button", name="Roll", exact=True).click()
        card = pat.locator("#roll-result .card")
        expect(card).to_contain_text("Alice")
        seq = card.get_attribute("data-seq")
        expect(pat.locator(f"#log li[data-seq='{seq}']")).to_have_count(1)
        settled(pat, int(seq or 0))  # the live event too has arrived and been drawn
        assert times_seen(pat, seq) == 1
        # A called test: in its called card.
        call_test(gm, "rifle", ["Alice"])
        pat.get_by_role("button", name="Roll rifle for Alice").click()
        called = pat.locator("#calls [data-call] .card")
        expect(called).to_contain_text("rifle")
        seq = called.get_attribute("data-seq")
        pat.evaluate("scrollTo(0, 0)")
        expect(pat.locator(f"#log li[data-seq='{seq}']")).to_have_count(1)
        settled(pat, int(seq or 0))
        assert times_seen(pat, seq) == 1
        shot(pat, f"once-player-{label}")
        # Opened again (nothing rolled here any more): the newest result once, on top.
        pat.reload()
        wired(pat)
        pat.evaluate("scrollTo(0, 0)")
        expect(pat.locator(f"#log li[data-seq='{seq}']")).to_have_count(1)
        settled(pat, int(seq or 0))
        shot(pat, f"once-player-reopened-{label}")
        assert times_seen(pat, seq) == 1
    finally:
        for c in contexts:
            c.close()


def test_a_contest_starts_from_the_skill_panel(base: str, browser: Any) -> None:
    """A player taps a skill, opposes another of their own characters (never one whose sheet
    they do not read: the GM calls that one), the contest within a screen of the Oppose
    button; the GM may oppose anyone."""
    from playwright.sync_api import expect

    contexts, gm, pat, sam = scene(browser, base, PHONE)
    try:
        add_character(pat, "Ann")
        pat.locator("#characters").get_by_role("button", name="Roll stealth 60 for Alice").click()
        oppose = pat.get_by_role("button", name="Oppose…")
        expect(oppose).to_be_in_viewport()
        oppose.click()
        against = pat.get_by_label("Against")
        expect(against.locator("option")).to_have_text(["Ann (Pat)"])  # no Orc, Bob nor Alice
        expect(pat.locator("#oppose-help")).to_contain_text("ask the GM to call it")
        against.select_option(label="Ann (Pat)")
        roll = pat.get_by_role("button", name="Roll the contest")
        expect(roll).to_be_in_viewport()
        # Within a screen of the Oppose button, itself in view once the skill is tapped (Pat's
        # second sheet, in the panel above, pushes both down).
        top = pat.locator("#oppose-button").evaluate("e => e.getBoundingClientRect().top + scrollY")
        bottom = roll.evaluate("e => e.getBoundingClientRect().bottom + scrollY")
        assert bottom - top <= PHONE["height"], (top, bottom)
        pat.get_by_label("Their skill").fill("spot")
        expect(pat.locator("#roll-odds")).to_contain_text("who wins")  # Pat reads Ann's sheet
        roll.click()
        card = pat.locator("#roll-result .card")
        expect(card).to_contain_text("Winner")
        expect(card).to_contain_text("spot hidden")  # the prefix, as Ann's sheet names it
        expect(card).to_be_in_viewport()
        seq = card.get_attribute("data-seq")
        expect(sam.locator(f"#log li[data-seq='{seq}']")).to_contain_text("Winner")
        shot(pat, "contest-player-phone")
        # The GM opposes anyone from an NPC's skill, its odds shown (the GM reads every sheet).
        view(gm, "characters")
        gm.locator("#characters [data-character=Orc]").get_by_role(
            "button", name=re.compile("^Roll stealth")
        ).click()
        gm.get_by_role("button", name="Oppose…").click()
        expect(gm.get_by_label("Against").locator("option")).to_have_text(
            ["Alice (Pat)", "Bob (Sam)", "Ann (Pat)"]
        )
        expect(gm.locator("#oppose-help")).to_be_empty()
        gm.get_by_label("Their skill").fill("spot")
        expect(gm.locator("#roll-odds")).to_contain_text("who wins")
        gm.get_by_role("button", name="Roll the contest").click()
        expect(gm.locator("#roll-result .card")).to_contain_text("Winner")
        assert overflow(pat) == 0 and overflow(gm) == 0
        shot(gm, "contest-gm-phone")
    finally:
        for c in contexts:
            c.close()
