"""What a GM and two players hit in their first hour at the table page: a call's Roll button
stays in view however long the log, one tap or click makes one roll, follow-ups are offered
only while they can be taken, errors read as sentences, and the page is usable from the
keyboard. What is in view is checked on a phone (390x844) and a desktop (1280x800); what the
page does, on a phone."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from .browsing import enter, joined, last_seq, seat, settled, watched
from .tablehelp import Api
from .test_browser import (
    DESKTOP,
    PHONE,
    SHEET,
    call_test,
    expand,
    open_table,
    view,
    wired,
)
from .test_browser_findings import SLOW
from .test_browser_phone import on_screen

pytestmark = pytest.mark.browser

SIZES = pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])


@contextmanager
def pages(browser: Any, size: dict[str, int]) -> Iterator[tuple[Any, Any]]:
    """Two pages at one screen size (touch on a phone), each in its own browser context,
    closed when done."""
    touch = size == PHONE
    contexts = [
        watched(browser.new_context(viewport=size, has_touch=touch, is_mobile=touch))
        for _ in range(2)
    ]
    try:
        gm, pat = (c.new_page() for c in contexts)
        yield gm, pat
    finally:
        for c in contexts:
            c.close()


ORC = SHEET.replace("stealth = 60", "stealth = 50")  # the GM's NPC's sheet
SAVE = "async (sheet) => api('POST', `${base}/characters`, { sheet })"  # a sheet, by the page


@contextmanager
def two(
    browser: Any,
    base: str,
    name: str,
    size: dict[str, int],
    by_form: bool = False,
    rolled: int = 0,
    gm_looks: bool = True,
) -> Iterator[tuple[Any, Any]]:
    """A GM with an NPC (Orc) and Pat playing Alice, both at one screen size, each page on the
    characters' view. The table, Pat and the sheets are made through the API and each page
    opened from its member's link: how a table is opened, joined and a sheet saved by form is
    the subject of the tests that drive those forms (test_browser.py, the join tests here,
    test_browser_findings.py's new character), not of these. ``by_form``: the GM opens the
    table on the home page's form, which keeps its invite in the browser (Pat joins by that
    invite, through the API). ``rolled``: that many
    rifle checks of Alice's in the log before the pages open (their live arrival one by one
    is not what the tests making them look at: a long log is). ``gm_looks`` False: the GM's
    page is not opened (None), for a test of Pat's page alone."""
    with pages(browser, size) as (gm, pat):
        if by_form:
            where, invite = open_table(gm, base, name)
            gm.goto(f"{base}{where}")
            wired(gm)
            gm.evaluate(SAVE, ORC.format(name="Orc"))
            view(gm, "characters")
            gm.locator("#characters [data-character=Orc]").wait_for()
            pat.goto(joined(base, invite, "Pat", (SHEET.format(name="Alice"),)))
            wired(pat)
            free_rolls(pat, rolled)
        else:
            sheets = {"GM": [ORC.format(name="Orc")], "Pat": [SHEET.format(name="Alice")]}
            seated = seat(base, name, sheets)
            seated.rolls(base, "Pat", "rifle", rolled)
            if gm_looks:
                enter(gm, base, seated, "GM")
                view(gm, "characters")
            enter(pat, base, seated, "Pat")
        yield (gm if gm_looks or by_form else None), pat


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

    with two(browser, base, "Long night", DESKTOP, rolled=40) as (gm, pat):
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
            return r.height > 0 && r.top >= box.top && r.bottom <= box.bottom; }"""
        )


def test_answered_calls_do_not_pile_up_where_they_were_rolled(base: str, browser: Any) -> None:
    """Each answered call showed its result in the calls box until the page was reloaded:
    after four, only the last answered one stays beside what is still pending."""
    from playwright.sync_api import expect

    with two(browser, base, "Many calls", PHONE) as (gm, pat):
        for skill in ("stealth", "rifle", "spot hidden", "stealth"):
            call_test(gm, skill, ["Alice"])
            button = pat.get_by_role("button", name=f"Roll {skill} for Alice")
            call = button.locator("xpath=ancestor::*[@data-call][1]").get_attribute("data-call")
            button.click()  # this call's own card, not an earlier one of the same skill
            card = pat.locator(f"#calls [data-call='{call}'] .card")
            expect(card).to_contain_text(skill)
            settled(pat, int(card.get_attribute("data-seq") or 0))
        call_test(gm, "rifle", ["Alice"])
        expect(pat.get_by_role("button", name="Roll rifle for Alice")).to_be_visible()
        settled(pat, last_seq(gm))
        expect(pat.locator("#calls [data-call]")).to_have_count(2)  # the pending one, the last
        # what is pending first
        expect(pat.locator("#calls [data-call]").first).to_contain_text("Alice: pending")


def test_a_double_click_on_roll_makes_one_roll(base: str, browser: Any) -> None:
    """The roll form's Roll, a call's quick Roll and a reroll offer, each double-clicked:
    one roll each."""
    from playwright.sync_api import expect

    with two(browser, base, "Twitchy", PHONE) as (gm, pat):
        table_id = pat.evaluate("tableId")
        # The answers come back slowly, as on a busy night: a second click has time to land.
        pat.evaluate(SLOW, [f"/api/tables/{table_id}/rolls", "POST", 400])
        pat.locator("#characters").get_by_role("button", name="Roll stealth 60 for Alice").click()
        expect(pat.locator("#roll-odds")).to_contain_text("Success")
        pat.get_by_role("button", name="Roll", exact=True).dblclick()
        expect(pat.locator("#roll-result .card")).to_contain_text("stealth")
        settled(pat)  # a second roll sent would still be held back or on its way
        assert rolls_made(pat) == 1
        call_test(gm, "rifle", ["Alice"])
        pat.get_by_role("button", name="Roll rifle for Alice").dblclick()
        expect(pat.locator("#calls [data-call] .card")).to_contain_text("rifle")
        settled(pat)
        assert rolls_made(pat) == 2
        # A failure typed by hand, then its Luck reroll offer double-clicked.
        pat.locator("#characters").get_by_role("button", name="Roll stealth 60 for Alice").click()
        expand(pat, "#more-options")
        pat.get_by_label("Dice rolled by hand (optional)").fill("90")
        pat.get_by_role("button", name="Roll", exact=True).click()
        offer = pat.get_by_role("button", name=re.compile("Spend 1 Luck to reroll")).first
        expect(offer).to_be_visible()
        offer.dblclick()
        expect(pat.locator("#log")).to_contain_text("Luck reroll of roll #")
        settled(pat)
        assert rolls_made(pat) == 4


def test_the_join_page_names_the_table_and_keeps_the_invite_on_reload(
    base: str, browser: Any
) -> None:
    from playwright.sync_api import expect

    with pages(browser, PHONE) as (gm, pat):
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


def test_the_gm_sees_the_invite_again_and_removing_a_player_asks_first(
    base: str, browser: Any
) -> None:
    from playwright.sync_api import expect

    with two(browser, base, "Fog", PHONE, by_form=True) as (gm, _):
        invite = gm.evaluate("keptInvites()[tableId]")
        gm.reload()
        wired(gm)
        view(gm, "more")
        expect(gm.locator("#invite-out code")).to_have_text(invite)
        # One handler answering in turn: two `once` handlers registered back to back can
        # both take the first dialog (Playwright delivers it asynchronously), and the second
        # is then dismissed by default.
        answers, asked = [False, True], []

        def answer(dialog: Any) -> None:
            asked.append(dialog.message)
            (dialog.accept if answers.pop(0) else dialog.dismiss)()

        gm.on("dialog", answer)
        with gm.expect_event("dialog"):  # ``answer``, registered first, has heard it
            gm.get_by_role("button", name="Remove Pat").click()
        assert len(asked) == 1, asked
        expect(gm.locator("#members")).not_to_contain_text("removed")
        gm.get_by_role("button", name="Remove Pat").click()
        expect(gm.locator("#page-error")).to_be_empty()
        expect(gm.locator("#revoke-out")).to_contain_text("/join#")
        expect(gm.locator("#members")).to_contain_text("Pat (player, removed)")
        assert len(asked) == 2, asked
        renewed = gm.locator("#revoke-out code").inner_text()
        assert "/join#" in renewed and renewed != invite
        view(gm, "call")
        expect(gm.locator("#call-characters")).to_contain_text("Orc")
        expect(gm.locator("#call-characters")).not_to_contain_text("Alice")
        gm.reload()  # the renewed invite is the one shown again
        wired(gm)
        view(gm, "more")
        expect(gm.locator("#invite-out code")).to_have_text(renewed)


def test_a_follow_up_names_a_number_its_first_roll_s_card_shows(base: str, browser: Any) -> None:
    """A follow-up's "Luck reroll of roll #8" and "Blind roll #12 shown" name the log's
    numbers: every card shows its own, beside its time."""
    from playwright.sync_api import expect

    with two(browser, base, "Numbers", PHONE) as (gm, pat):
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
        shown = pat.locator("#log li[data-kind=unblind]").first
        expect(shown).to_contain_text(f"Blind roll #{seq} shown")
        # When it was rolled, as the GM's blind card says, not when the GM showed it.
        rolled = gm.locator(f"#log li[data-seq='{seq}'] time").get_attribute("datetime")
        expect(shown.locator(".stamp time")).to_have_attribute("datetime", rolled or "")
        expect(shown.locator(".stamp")).to_contain_text("rolled ")


def test_a_reroll_taken_in_the_log_shows_once_there(base: str, browser: Any) -> None:
    """On a wide screen a failure's offer is tapped where it shows, in the log: the reroll is
    the log's newest entry, and the failed card points to it instead of holding a copy."""
    from playwright.sync_api import expect

    with two(browser, base, "Twice", DESKTOP, gm_looks=False) as (_, pat):
        pat.locator("#characters").get_by_role("button", name="Roll stealth 60 for Alice").click()
        expand(pat, "#more-options")
        pat.get_by_label("Dice rolled by hand (optional)").fill("90")
        pat.get_by_role("button", name="Roll", exact=True).click()
        failed = pat.locator("#log li[data-kind=roll]").first
        failed.get_by_role("button", name=re.compile("Spend 1 Luck to reroll")).click()
        expect(pat.locator("#log li[data-kind=roll]")).to_have_count(2)
        newest, later = (pat.locator("#log li[data-kind=roll]").nth(n) for n in (0, 1))
        seq = newest.get_attribute("data-seq")
        expect(newest).to_contain_text("Luck reroll of roll #")
        expect(later).to_contain_text(f"roll #{seq}, at the top of the log")
        expect(pat.locator("#log").get_by_text("Luck reroll of roll #")).to_have_count(1)


def test_a_failed_card_stops_offering_luck_once_too_long_ago(base: str, browser: Any) -> None:
    """A follow-up more than the table's window of events back is refused: the card of a
    failure that far back offers no "Spend 1 Luck to reroll" (it did, and the tap failed).
    The window's worth of events is made through the API; Pat's page shows the offer at the
    window's edge, and Pat's next roll there takes it away."""
    import httpx
    from playwright.sync_api import expect

    with httpx.Client(base_url=base, timeout=30) as client:
        table = Api(client).table("brp", name="Long ago")
        pat, sam = table.join("Pat"), table.join("Sam")
        ids = {
            who: table.ok("POST", "/characters", who, 201, json={"sheet": SHEET.format(name=name)})[
                "id"
            ]
            for who, name in ((table.gm, "Orc"), (pat, "Alice"), (sam, "Bob"))
        }
        failed = table.roll(pat, ids[pat], "stealth", actor={"dice": [90]})
        assert not failed["result"]["success"], failed
        seq = failed["seq"]
        window = table.ok("GET", "", pat)["table"]["follow_up_window"]
        assert window == 200

        def last() -> int:
            newest: int = table.ok("GET", "", pat)["table"]["last_seq"]
            return newest

        for who in (table.gm, sam):  # a member's first roll may log more than itself
            table.roll(who, ids[who], "rifle")
        for n in range(window - (last() - seq)):  # each member's own rate limit: half each
            who = table.gm if n % 2 else sam
            table.roll(who, ids[who], "rifle")
        assert last() - seq == window  # the last event the window takes in

        context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
        try:
            page = context.new_page()
            page.goto(f"{base}/t/{table.id}#{pat}")
            wired(page)
            offer = page.locator(f"[data-reroll='{seq}']")  # wherever the page shows it
            expect(offer.first).to_be_attached()
            chips = page.locator("#characters")
            chips.get_by_role("button", name="Roll rifle 45 for Alice").click()
            page.get_by_role("button", name="Roll", exact=True).click()
            expect(page.locator("#roll-result .card")).to_contain_text("rifle")
            expect(offer).to_have_count(0)
        finally:
            context.close()
        assert last() - seq == window + 1


def test_aiming_shows_once_begun_and_the_gm_is_offered_modes_that_mean_something(
    base: str, browser: Any
) -> None:
    """A character who is not aiming shows one "Aim a round" button, not "Aiming: 0 round(s)"
    and three buttons ending nothing (BRP's aim, declared with its ends); and the GM, who sees
    every roll, is not offered a blind roll or one "only me" apart from a secret one."""
    from playwright.sync_api import expect

    with two(browser, base, "Sights", PHONE) as (gm, pat):
        card = pat.locator("#characters [data-character=Alice]")
        expect(card.get_by_role("button", name="Aim a round (Alice)")).to_be_visible()
        expect(card).not_to_contain_text("Aiming")
        expect(card).not_to_contain_text("null")  # a missing line printed as a word
        expect(card.get_by_role("button", name="Move (Alice)")).to_have_count(0)
        card.get_by_role("button", name="Aim a round (Alice)").click()
        expect(card).to_contain_text("Aiming: 1 round, +20")
        for end in ("Move", "Damage", "Act"):
            expect(card.get_by_role("button", name=f"{end} (Alice)")).to_be_visible()
        card.get_by_role("button", name="Aim a round (Alice)").click()
        expect(card).to_contain_text("Aiming: 2 rounds, +40")
        card.get_by_role("button", name="Move (Alice)").click()
        expect(card).not_to_contain_text("Aiming")
        modes = (
            "() => [...document.querySelectorAll('#roll-visibility option')]"
            ".filter((o) => !o.hidden).map((o) => o.textContent)"
        )
        assert gm.evaluate(modes) == ["everyone", "only me (a secret roll)"]
        assert pat.evaluate(modes) == [
            "everyone",
            "only me and the GM",
            "only the GM (blind: I do not see it)",
            "only me",
        ]


def test_a_called_test_carries_the_gm_s_bonus_or_penalty_dice(base: str, browser: Any) -> None:
    """BRP declares bonus and penalty dice (BRP4): the GM's call form offers them, and the
    player's roll of the call is made with them (two dice, the kept one marked)."""
    from playwright.sync_api import expect

    with two(browser, base, "Vantage", PHONE) as (gm, pat):
        view(gm, "call")
        expand(gm, "#call-extra-box")
        gm.locator("#call-form").get_by_label("Penalty dice").fill("1")
        call_test(gm, "stealth", ["Alice"], hazard="the dogs wake")
        expect(pat.locator("#calls")).to_contain_text("penalty dice 1")
        pat.get_by_role("button", name="Roll stealth for Alice").click()
        card = pat.locator("#log li[data-kind=roll]").first
        expect(card).to_contain_text("penalty dice: 1")
        expect(card.locator(".dice .die")).to_have_count(2)


@SIZES
def test_the_first_tab_stops_skip_past_the_log(
    base: str, browser: Any, size: dict[str, int]
) -> None:
    """From the keyboard the log comes before the sheets (45 tabs to a first skill with 66
    entries): the first stop skips to the characters, whose first skill is then one tab away,
    and stays there as others' rolls redraw the page (the focus fell back to the page)."""
    from playwright.sync_api import expect

    with two(browser, base, "Keys", size, rolled=20) as (gm, pat):
        expect(pat.locator("#log li[data-kind=roll]")).to_have_count(20)
        pat.keyboard.press("Tab")
        skip = pat.get_by_role("link", name="Skip to the characters")
        expect(skip).to_be_focused()
        expect(skip).to_be_in_viewport()
        pat.keyboard.press("Enter")
        expect(pat.locator("#chars-title")).to_be_focused()
        expect(pat.locator("#chars-title")).to_be_in_viewport()
        for _ in range(3):
            pat.keyboard.press("Tab")
            if pat.evaluate("document.activeElement.dataset.skill"):
                break
        skill = pat.evaluate("document.activeElement.dataset.skill")
        assert skill is not None
        last = pat.evaluate("state.table.last_seq")
        free_rolls(gm, 2)
        pat.wait_for_function("n => state.table.last_seq >= n", arg=last + 2)
        expect(pat.locator(f"#characters [data-skill='{skill}']")).to_be_focused()
        pat.reload()  # from the top again: the second stop skips to the results
        wired(pat)
        pat.keyboard.press("Tab")
        pat.keyboard.press("Tab")
        expect(pat.get_by_role("link", name="Skip to the results")).to_be_focused()
        pat.keyboard.press("Enter")
        expect(pat.locator("#log-title")).to_be_focused()


@SIZES
def test_one_key_goes_to_a_part_of_the_page(base: str, browser: Any, size: dict[str, int]) -> None:
    """Outside a field, "r" brings the roll panel into view (its tab on a phone) and focuses
    it, "l" the results, "c" the characters; "?" lists the keys; in a field a key is typed."""
    from playwright.sync_api import expect

    with two(browser, base, "Keys", size, gm_looks=False) as (_, pat):
        pat.locator("body").click(position={"x": 5, "y": 5})
        for key, heading in (("r", "#roll-title"), ("l", "#log-title"), ("c", "#chars-title")):
            pat.keyboard.press(key)
            expect(pat.locator(heading)).to_be_focused()
            expect(pat.locator(heading)).to_be_in_viewport()
        pat.keyboard.press("?")
        listed = pat.get_by_role("dialog", name="Keyboard shortcuts")
        expect(listed).to_be_visible()
        expect(listed).to_contain_text("the roll panel")
        pat.keyboard.press("Escape")
        expect(listed).to_be_hidden()
        pat.keyboard.press("r")
        expand(pat, "#more-options")
        field = pat.locator("#roll-dice")
        field.fill("4")
        field.press("l")
        expect(field).to_have_value("4l")
        expect(field).to_be_focused()


def test_the_roll_panel_shows_what_belongs_to_the_roll_at_hand(base: str, browser: Any) -> None:
    """A GM with no character yet gets no Roll button with an empty skill list, but a word
    on what to do; answering a call with options shows no earlier result under its form;
    the Luck boost, once tapped, says it is on."""
    from playwright.sync_api import expect

    with pages(browser, PHONE) as (gm, _):
        enter(gm, base, seat(base, "Empty", {"GM": []}), "GM")  # opened through the API
        view(gm, "characters")
        expect(gm.locator("#roll-none")).to_be_visible()
        expect(gm.locator("#roll-form")).to_be_hidden()
    with two(browser, base, "Options panel", PHONE) as (gm, pat):
        pat.locator("#characters").get_by_role("button", name="Roll stealth 60 for Alice").click()
        pat.get_by_role("button", name="Roll", exact=True).click()
        expect(pat.locator("#roll-result .card")).to_contain_text("stealth")
        call_test(gm, "stealth", ["Alice"], hazard="the floor creaks")
        view(pat, "table")
        pat.get_by_role("button", name="With options…").click()
        expect(pat.locator("#answering")).to_be_visible()
        expect(pat.locator("#roll-result")).to_be_empty()
        boost = pat.locator("#luck-boost")
        boost.click()
        expect(boost).to_have_attribute("aria-pressed", "true")
        expect(boost).to_contain_text("Luck boost on")


def test_a_call_rolled_with_options_on_a_phone_shows_its_result(base: str, browser: Any) -> None:
    """The call's "With options…" opens the roll panel; once rolled, the result is on the
    screen (the panel went back to a free roll after scrolling to it, moving it away)."""
    from playwright.sync_api import expect

    with two(browser, base, "Options", PHONE, rolled=12) as (gm, pat):
        expect(pat.locator("#log li[data-kind=roll]")).to_have_count(12)
        call_test(gm, "stealth", ["Alice"], hazard="the floor creaks")
        pat.get_by_role("button", name="With options…").click()
        pat.get_by_role("button", name="Roll", exact=True).click()
        expect(pat.locator("#roll-result .card")).to_contain_text("stealth")
        assert on_screen(pat, "#roll-result .card")


def test_a_group_test_says_how_it_stands(base: str, browser: Any) -> None:
    """A test called for several shows its summary to the GM: how many rolled, how many of
    those succeeded, how many wait."""
    from playwright.sync_api import expect

    with two(browser, base, "Group", PHONE) as (gm, pat):
        call_test(gm, "stealth", ["Alice", "Orc"], hazard="the patrol turns")
        summary = gm.locator("#calls .group-summary")
        expect(summary).to_have_text("2 called: 2 waiting")
        pat.get_by_role("button", name="Roll stealth for Alice").click()
        expect(pat.locator("#calls [data-call] .card")).to_contain_text("stealth")
        won = pat.locator("#calls [data-call] .card .level").first.inner_text()
        outcome = "1 failure" if "failure" in won or "fumble" in won else "1 success"
        expect(summary).to_have_text(f"2 called: 1 rolled ({outcome}), 1 waiting")


def test_errors_read_as_sentences(base: str, browser: Any) -> None:
    """No raw error words: a roll tapped while the server does not answer says so (it said
    "Failed to fetch"), a refusal about the page's own fields stands alone ("Seq: ..."), and
    a called contest's options ask no odds the player may not see (it said "not allowed")."""
    from playwright.sync_api import expect

    with two(browser, base, "Words", DESKTOP) as (gm, pat):
        said = pat.evaluate(
            """() => [plainError("seq: roll #8 was already followed up: Luck reroll (#9)"),
                      plainError("name: control characters are not allowed")]"""
        )
        assert said == [
            "Roll #8 was already followed up: Luck reroll (#9)",
            "Name: control characters are not allowed",
        ]
        view(gm, "call")
        gm.locator("#call-skill").fill("stealth")
        gm.locator("#call-characters").get_by_label("Alice", exact=True).check()
        gm.locator("#call-opponent").select_option(label="Orc")
        gm.locator("#call-opponent-skill").fill("stealth")
        gm.get_by_role("button", name="Call for the test").click()
        pat.get_by_role("button", name="With options…").click()
        expect(pat.locator("#roll-odds")).to_contain_text("The odds would tell Orc's skill")
        expect(pat.locator("#roll-error")).to_have_text("")
        pat.route("**/rolls", lambda route: route.abort())
        pat.get_by_role("button", name="Roll", exact=True).click()
        expect(pat.locator("#roll-error")).to_have_text(
            "The server did not answer: check the connection and try again.", timeout=15000
        )


def test_a_failed_card_stops_offering_luck_once_the_luck_is_gone(base: str, browser: Any) -> None:
    """A failed card's "Spend 1 Luck to reroll" goes once the sheet has no Luck left: the
    server would refuse it, so the page must not offer it (the card was drawn with Luck)."""
    from playwright.sync_api import expect

    with two(browser, base, "No luck left", PHONE, gm_looks=False) as (_, pat):
        pat.evaluate(
            """async () => await api("POST", `${base}/rolls`, { actor: { character_id:
            mine()[0].id, skill: "stealth", dice: [90] } })"""
        )
        offer = pat.locator("#log [data-reroll] button", has_text="Spend 1 Luck")
        expect(offer).to_have_count(1)
        pat.evaluate(
            "async (sheet) => api('PUT', `${base}/characters/${mine()[0].id}`, { sheet })",
            SHEET.format(name="Alice").replace("current = 5", "current = 0"),
        )
        expect(pat.locator("#characters .luck")).to_have_text("Luck 0 of 5")
        expect(offer).to_have_count(0)
