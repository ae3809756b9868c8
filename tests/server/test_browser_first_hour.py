"""What a GM and two players hit in their first hour at the table page (desktop 1280x800 and
phone 390x844): a call's Roll button stays in view however long the log, one tap or click
makes one roll, follow-ups are offered only while they can be taken, errors read as
sentences, and the page is usable from the keyboard."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .test_browser import (
    DESKTOP,
    PHONE,
    SHEET,
    add_character,
    base,
    browser,
    call_test,
    expand,
    join,
    open_table,
    view,
    wired,
)
from .test_browser_findings import SLOW
from .test_browser_phone import on_screen

pytestmark = pytest.mark.browser
__all__ = ["base", "browser"]  # the shared server and Chromium

SIZES = pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])


def two(browser: Any, base: str, name: str, size: dict[str, int]) -> tuple[list[Any], Any, Any]:
    """A GM with an NPC (Orc) and Pat playing Alice, both at one screen size."""
    touch = size == PHONE
    contexts = [
        browser.new_context(viewport=size, has_touch=touch, is_mobile=touch) for _ in range(2)
    ]
    gm, pat = (c.new_page() for c in contexts)
    where, invite = open_table(gm, base, name)
    gm.goto(f"{base}{where}")
    wired(gm)
    add_character(gm, "Orc", SHEET.replace("stealth = 60", "stealth = 50"))
    join(pat, invite, "Pat")
    add_character(pat, "Alice")
    return contexts, gm, pat


def rolls_made(page: Any) -> int:
    """How many rolls (checks and their follow-ups) the table's log holds, as its page reads it."""
    count: int = page.evaluate(
        "async () => (await api('GET', `${base}/events`)).filter((e) => e.kind === 'roll').length"
    )
    return count


def free_rolls(page: Any, count: int, skill: str = "rifle") -> None:
    """``count`` rolls of the page's first character, made through the API (log entries)."""
    page.evaluate(
        """async ([n, skill]) => { const id = mine()[0].id; for (let i = 0; i < n; i++)
        await api("POST", `${base}/rolls`, { actor: { character_id: id, skill } }); }""",
        [count, skill],
    )


def test_a_call_s_roll_button_stays_in_view_however_long_the_log(base: str, browser: Any) -> None:
    """On a wide screen the calls sit above the log in a column that stays in view: the log
    growing to 40 entries must not squeeze the call's Roll button out of its box."""
    from playwright.sync_api import expect

    contexts, gm, pat = two(browser, base, "Long night", DESKTOP)
    try:
        free_rolls(pat, 40)
        expect(pat.locator("#log li[data-kind=roll]")).to_have_count(40)
        call_test(gm, "stealth", ["Alice"], hazard="the guard hears you")
        button = pat.get_by_role("button", name="Roll stealth for Alice")
        expect(button).to_be_visible()
        pat.evaluate("scrollTo(0, 0)")
        assert on_screen(pat, "#calls [data-call] button[data-target]")
        # Wholly inside its box, not cut off by the box's own scroll (looked at once the
        # page settles: the call's odds arriving draw the calls again).
        pat.wait_for_function(
            """() => { const b = document.querySelector('#calls button[data-target]');
            const box = document.getElementById('calls-box').getBoundingClientRect();
            if (!b) return false; const r = b.getBoundingClientRect();
            return r.height > 0 && r.top >= box.top && r.bottom <= box.bottom; }""",
            timeout=3000,
        )
    finally:
        for c in contexts:
            c.close()


@SIZES
def test_answered_calls_do_not_pile_up_where_they_were_rolled(
    base: str, browser: Any, size: dict[str, int]
) -> None:
    """Each answered call showed its result in the calls box until the page was reloaded:
    after four, only the last answered one stays beside what is still pending."""
    from playwright.sync_api import expect

    contexts, gm, pat = two(browser, base, "Many calls", size)
    try:
        for skill in ("stealth", "rifle", "spot hidden", "stealth"):
            call_test(gm, skill, ["Alice"])
            button = pat.get_by_role("button", name=f"Roll {skill} for Alice")
            button.click()
            expect(pat.locator("#calls [data-call] .card").first).to_contain_text(skill)
        call_test(gm, "rifle", ["Alice"])
        expect(pat.get_by_role("button", name="Roll rifle for Alice")).to_be_visible()
        pat.wait_for_timeout(300)
        expect(pat.locator("#calls [data-call]")).to_have_count(2)  # the pending one, the last
        # what is pending first
        expect(pat.locator("#calls [data-call]").first).to_contain_text("Alice: pending")
    finally:
        for c in contexts:
            c.close()


@SIZES
def test_a_double_click_on_roll_makes_one_roll(
    base: str, browser: Any, size: dict[str, int]
) -> None:
    """The roll form's Roll, a call's quick Roll and a reroll offer, each double-clicked:
    one roll each."""
    from playwright.sync_api import expect

    contexts, gm, pat = two(browser, base, "Twitchy", size)
    try:
        table_id = pat.evaluate("tableId")
        # The answers come back slowly, as on a busy night: a second click has time to land.
        pat.evaluate(SLOW, [f"/api/tables/{table_id}/rolls", "POST", 400])
        pat.locator("#characters").get_by_role("button", name="Roll stealth 60 for Alice").click()
        expect(pat.locator("#roll-odds")).to_contain_text("Success")
        pat.get_by_role("button", name="Roll", exact=True).dblclick()
        expect(pat.locator("#roll-result .card")).to_contain_text("stealth")
        pat.wait_for_timeout(1200)
        assert rolls_made(pat) == 1
        call_test(gm, "rifle", ["Alice"])
        pat.get_by_role("button", name="Roll rifle for Alice").dblclick()
        expect(pat.locator("#calls [data-call] .card")).to_contain_text("rifle")
        pat.wait_for_timeout(1200)
        assert rolls_made(pat) == 2
        # A failure typed by hand, then its Luck reroll offer double-clicked.
        pat.locator("#characters").get_by_role("button", name="Roll stealth 60 for Alice").click()
        expand(pat, "#more-options")
        pat.get_by_label("Dice rolled by hand (optional)").fill("90")
        pat.get_by_role("button", name="Roll", exact=True).click()
        offer = pat.get_by_role("button", name=re.compile("Spend 1 Luck to reroll")).first
        expect(offer).to_be_visible()
        offer.dblclick()
        pat.wait_for_timeout(1500)
        assert rolls_made(pat) == 4
    finally:
        for c in contexts:
            c.close()


@SIZES
def test_the_join_page_names_the_table_and_keeps_the_invite_on_reload(
    base: str, browser: Any, size: dict[str, int]
) -> None:
    from playwright.sync_api import expect

    touch = size == PHONE
    contexts = [
        browser.new_context(viewport=size, has_touch=touch, is_mobile=touch) for _ in range(2)
    ]
    gm, pat = (c.new_page() for c in contexts)
    try:
        _, invite = open_table(gm, base, "Salt Marsh", gm="Gwen")
        pat.goto(invite)
        expect(pat.locator("#join-title")).to_have_text("Join Salt Marsh")
        expect(pat.locator("#join-about")).to_contain_text("Basic Roleplaying, run by Gwen")
        pat.reload()  # the fragment is gone from the address: the tab kept the invite
        expect(pat.locator("#join-title")).to_have_text("Join Salt Marsh")
        pat.get_by_label("Your name at the table").fill("Pat")
        pat.get_by_role("button", name="Join").click()
        expect(pat.locator("#whoami")).to_contain_text("Pat, a player")
        pat.goto(f"{base}/join")  # the invite was used: the tab no longer holds it
        expect(pat.locator("#join-error")).to_contain_text("needs the invite link")
    finally:
        for c in contexts:
            c.close()


@SIZES
def test_the_gm_sees_the_invite_again_and_removing_a_player_asks_first(
    base: str, browser: Any, size: dict[str, int]
) -> None:
    from playwright.sync_api import expect

    contexts, gm, _ = two(browser, base, "Fog", size)
    try:
        invite = gm.evaluate("keptInvites()[tableId]")
        gm.reload()
        wired(gm)
        view(gm, "more")
        expect(gm.locator("#invite-out code")).to_have_text(invite)
        gm.once("dialog", lambda d: d.dismiss())
        gm.get_by_role("button", name="Remove Pat").click()
        expect(gm.locator("#members")).not_to_contain_text("removed")
        gm.once("dialog", lambda d: d.accept())
        gm.get_by_role("button", name="Remove Pat").click()
        expect(gm.locator("#members")).to_contain_text("Pat (player, removed)")
        expect(gm.locator("#revoke-out")).to_contain_text("/join#")
        renewed = gm.locator("#revoke-out code").inner_text()
        assert "/join#" in renewed and renewed != invite
        view(gm, "call")
        expect(gm.locator("#call-characters")).to_contain_text("Orc")
        expect(gm.locator("#call-characters")).not_to_contain_text("Alice")
        gm.reload()  # the renewed invite is the one shown again
        wired(gm)
        view(gm, "more")
        expect(gm.locator("#invite-out code")).to_have_text(renewed)
    finally:
        for c in contexts:
            c.close()


@SIZES
def test_a_follow_up_names_a_number_its_first_roll_s_card_shows(
    base: str, browser: Any, size: dict[str, int]
) -> None:
    """"Luck reroll of roll #8" and "Blind roll #12 shown" name the log's numbers: every card
    shows its own, beside its time."""
    from playwright.sync_api import expect

    contexts, gm, pat = two(browser, base, "Numbers", size)
    try:
        pat.locator("#characters").get_by_role("button", name="Roll stealth 60 for Alice").click()
        expand(pat, "#more-options")
        pat.get_by_label("Dice rolled by hand (optional)").fill("90")
        pat.get_by_role("button", name="Roll", exact=True).click()
        pat.get_by_role("button", name=re.compile("Spend 1 Luck to reroll")).first.click()
        followed = pat.locator("#log li[data-kind=roll]").first
        expect(followed).to_contain_text("Luck reroll of roll #")
        first = re.search(r"of roll #(\d+)", followed.inner_text())
        assert first is not None
        card = pat.locator(f"#log li[data-seq='{first[1]}']")
        expect(card.locator(".stamp").first).to_have_text(re.compile(f"^#{first[1]} · "))
        seq = gm.evaluate(
            """async () => (await api("POST", `${base}/rolls`, { actor: { character_id:
            state.characters.find((c) => c.name === "Orc").id, skill: "stealth" },
            visibility: "blind" })).seq"""
        )
        gm.evaluate("async (seq) => api('POST', `${base}/rolls/${seq}/unblind`)", seq)
        expect(pat.locator("#log li[data-kind=unblind]").first).to_contain_text(
            f"Blind roll #{seq} shown"
        )
    finally:
        for c in contexts:
            c.close()
