"""What a phone test (390x844) of the table page found: a Luck reroll keeps its place, a
called test offers only what its roller may add, a roll shows as rolled at once, the odds
follow the skill tapped, NPCs and lost contests read right, a call is confirmed, and no page
logs a console error."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .browsing import enter, idle, last_seq, seat, settled, watched
from .test_browser import (
    PHONE,
    SHEET,
    add_character,
    call_test,
    expand,
    join,
    open_table,
    overflow,
    shot,
    view,
    wired,
)

pytestmark = pytest.mark.browser

# Answers the page waits for, held back as a slow phone network would; how many are held
# back now, as ``window.held``.
SLOW = """([pattern, method, ms]) => {
  const fetch0 = window.fetch;
  window.held = window.held || 0;
  window.fetch = (url, init = {}) => {
    const asked = init.body ? `${url} ${init.body}` : String(url);
    const late = new RegExp(pattern).test(asked) && (init.method || "GET") === method;
    if (!late) return fetch0(url, init);
    window.held += 1;
    // ms null: held until the test calls releaseHeld(), so what the page does meanwhile is
    // seen before the answer comes, however slow the machine
    const wait = ms === null
      ? new Promise((ok) => { (window.waiting = window.waiting || []).push(ok); })
      : new Promise((ok) => setTimeout(ok, ms));
    return wait.then(() => {
      const sent = fetch0(url, init);
      window.held -= 1;
      return sent;
    });
  };
}"""

RELEASE = "() => (window.waiting || []).splice(0).forEach((go) => go())"  # what SLOW held


def phone(browser: Any, errors: list[str]) -> tuple[Any, Any]:
    """A phone's page; the console errors it logs (a blocked image is one) go to ``errors``."""
    context = watched(browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True))
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda err: errors.append(str(err)))
    return context, page


def table(
    browser: Any, base: str, name: str, by_form: bool = False, gm_looks: bool = True
) -> tuple[list[Any], Any, Any, list[str], str]:
    """A GM with an NPC (Orc) and Pat playing Alice, both on phones, the GM's page on the
    characters' view. The table, Pat and the sheets are made through the API and each page
    opened from its member's link (the forms that do it have tests of their own);
    ``by_form``: through the home page's, the join page's and the sheet's forms, as a table
    opens on a first night. ``gm_looks`` False: the GM's page is not opened (None), for a
    test of Pat's page alone."""
    errors: list[str] = []
    (gc, gm), (pc, pat) = phone(browser, errors), phone(browser, errors)
    orc = SHEET.replace("stealth = 60", "stealth = 50")
    if by_form:
        where, invite = open_table(gm, base, name)
        gm.goto(f"{base}{where}")
        wired(gm)
        add_character(gm, "Orc", orc)
        join(pat, invite, "Pat")
        add_character(pat, "Alice")
    else:
        seated = seat(
            base, name, {"GM": [orc.format(name="Orc")], "Pat": [SHEET.format(name="Alice")]}
        )
        if gm_looks:
            enter(gm, base, seated, "GM")
            view(gm, "characters")
        enter(pat, base, seated, "Pat")
        invite = seated.invite
    return [gc, pc], (gm if gm_looks or by_form else None), pat, errors, invite


def failed_called_stealth(gm: Any, pat: Any) -> Any:
    """The GM calls Alice's stealth with a hazard; Pat rolls it, typing a failing 90 by hand.
    The called test's line on Pat's page, where the failure and its reroll offer show."""
    call_test(gm, "stealth", ["Alice"], "", "the guard hears you")
    pat.get_by_role("button", name="With options…").click()
    expand(pat, "#more-options")
    pat.get_by_label("Dice rolled by hand (optional)").fill("90")
    pat.get_by_role("button", name="Roll", exact=True).click()
    return pat.locator("#calls [data-call]", has_text="the guard hears you").locator("li")


def test_a_die_typed_for_a_reroll_stays_as_the_page_draws_again(base: str, browser: Any) -> None:
    """A player types the die for a Luck reroll; an event arrives meanwhile and the page
    draws again: the die is still there, and the reroll uses it (was drawn instead)."""
    from playwright.sync_api import expect

    contexts, gm, pat, _, _ = table(browser, base, "Typed dice")
    try:
        called = failed_called_stealth(gm, pat)
        die = called.get_by_label(re.compile("Your die for the reroll"))
        die.fill("10")
        call_test(gm, "rifle", ["Alice"])  # the page draws the calls again
        expect(pat.locator("#calls [data-call]")).to_have_count(2)
        expect(die).to_have_value("10")
        called.get_by_role("button", name=re.compile("Spend 1 Luck to reroll")).click()
        expect(called).to_contain_text("Luck reroll of roll #")
        expect(called.locator(".dice")).to_contain_text("10")
        expect(called.locator(".hazard")).to_have_count(0)
    finally:
        for c in contexts:
            c.close()


def test_a_called_test_rolled_before_its_odds_come_back_logs_no_error(
    base: str, browser: Any
) -> None:
    """On a slow phone network a called test's odds are still on their way when its roller
    taps Roll: the roll waits for them, so they are not asked of a test already rolled (which
    the server refuses with a 409, logged as a console error)."""
    from playwright.sync_api import expect

    contexts, gm, pat, errors, _ = table(browser, base, "Slow odds")
    try:
        table_id = pat.evaluate("tableId")
        pat.evaluate(SLOW, [f"/api/tables/{table_id}/odds .*target_id", "POST", 800])
        call_test(gm, "stealth", ["Alice"])
        pat.get_by_role("button", name="Roll stealth for Alice").click()  # the call's own odds
        expect(pat.locator("#calls [data-call] li")).to_contain_text("Alice: rolled")
        call_test(gm, "stealth", ["Alice"])
        pat.get_by_role("button", name="With options…").click()  # the roll box's odds
        pat.get_by_role("button", name="Roll", exact=True).click()
        card = pat.locator("#roll-result .card")
        expect(card).to_contain_text("stealth")
        settled(pat, int(card.get_attribute("data-seq") or 0))  # any odds held back arrived
        assert not errors, errors
    finally:
        for c in contexts:
            c.close()


def test_no_page_logs_a_console_error(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    contexts, gm, _, errors, invite = table(browser, base, "Quiet", by_form=True)
    try:
        where = gm.url
        for address in (f"{base}/", f"{base}/odds", where):
            gm.goto(address)
            gm.wait_for_load_state("load")
        wired(gm)
        newcomer, seen = phone(browser, errors)
        contexts.append(newcomer)
        settled(gm, last_seq(gm))
        seen.goto(invite)  # the join page
        expect(seen.locator("#join-title")).to_have_text("Join Quiet")
        idle(seen)
        assert not errors, errors
    finally:
        for c in contexts:
            c.close()


def test_a_luck_reroll_keeps_the_first_roll_s_place(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    contexts, gm, pat, errors, _ = table(browser, base, "Second chances")
    try:
        called = failed_called_stealth(gm, pat)
        expect(called).to_contain_text("Hazard: the guard hears you")
        called.get_by_label(re.compile("Your die for the reroll")).fill("10")
        called.get_by_role("button", name=re.compile("Spend 1 Luck to reroll")).click()
        expect(called).to_contain_text("Luck reroll of roll #")
        call_test(gm, "rifle", ["Alice"])  # any event: the page draws again
        expect(pat.locator("#calls [data-call]")).to_have_count(2)
        for shown in (called, pat.locator("#roll-result")):  # wherever the first showed
            expect(shown).to_contain_text("Luck reroll of roll #")
            expect(shown).to_contain_text("success")
            expect(shown.locator(".hazard")).to_have_count(0)
        assert not errors, errors
    finally:
        for c in contexts:
            c.close()


def test_a_called_test_offers_only_what_its_roller_may_add(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    contexts, gm, pat, errors, _ = table(browser, base, "The GM's test")
    try:
        call_test(gm, "stealth", ["Alice"])
        pat.get_by_role("button", name="With options…").click()
        state = pat.evaluate("state.calls[0].players_fields")
        assert state == ["luck_boost", "luck_rerolls"], state  # the server's list, in the call
        expand(pat, "#more-options")
        fields = pat.locator("#roll-fields input:visible, #roll-fields select:visible")
        expect(fields).to_have_count(0)  # modifiers and bonus dice are the GM's
        pat.get_by_role("button", name=re.compile("^Luck boost")).click()
        expect(pat.locator("#roll-odds")).to_contain_text("Success 80.00%")  # 60 + 20, back
        pat.get_by_role("button", name="Roll", exact=True).click()
        expect(pat.locator("#roll-result .card")).to_contain_text("Luck boost")
        expect(pat.locator("#roll-error")).to_be_empty()
        # A free roll offers them all again.
        view(pat, "table")
        pat.locator("#characters").get_by_role("button", name="Roll rifle 45 for Alice").click()
        expect(pat.get_by_label("Modifiers", exact=True)).to_be_visible()
        assert not errors, errors
    finally:
        for c in contexts:
            c.close()


def call_contest(gm: Any, skill: str, name: str, opponent: str, hazard: str) -> None:
    view(gm, "call")
    gm.locator("#call-skill").fill(skill)
    gm.get_by_label("Hazard if it fails").fill(hazard)
    gm.locator("#call-characters").get_by_label(name, exact=True).check()
    gm.get_by_label("Opposed by").select_option(label=opponent)
    gm.get_by_label("Opposed with skill").fill(skill)
    gm.get_by_role("button", name="Call for the test").click()


def test_a_called_contest_is_rolled_at_once_and_reads_right(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    contexts, gm, pat, errors, _ = table(browser, base, "Contests")
    try:
        call_contest(gm, "stealth", "Alice", "Orc", "the orc spots you")
        expect(pat.get_by_role("button", name="Roll stealth for Alice vs Orc")).to_be_visible()
        # The state read after the roll is slow: the card says rolled on the roll's answer.
        table_id = pat.evaluate("tableId")
        pat.evaluate(SLOW, [f"/api/tables/{table_id}$", "GET", None])
        pat.get_by_role("button", name="Roll stealth for Alice vs Orc").click()
        called = pat.locator("#calls [data-call] li")
        expect(called.locator(".card")).to_contain_text("Winner")
        expect(called).to_contain_text("Alice: rolled")
        pat.evaluate(RELEASE)
        expect(called.get_by_role("button", name=re.compile("^Roll stealth"))).to_have_count(0)
        # The NPC is the GM's, not the GM as a player.
        card = pat.locator("#log li[data-kind=contest]")
        expect(card).to_contain_text("Orc (NPC)")
        expect(card).not_to_contain_text("Gina")
        # A lost contest shows the call's hazard, as a failed check does; a won one does not.
        lines = pat.evaluate("""() => ["opponent", "actor"].map((winner) => {
            const e = structuredClone([...rolledHere.values()][0]);
            e.result.winner = winner;
            return el("div", {}, describe(e)).querySelectorAll(".hazard").length; })""")
        assert lines == [1, 0], lines
        assert overflow(pat) == 0
        shot(pat, "findings-contest-phone")
        assert not errors, errors
    finally:
        for c in contexts:
            c.close()


def test_a_call_is_confirmed_and_the_chime_is_the_players(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    contexts, gm, pat, errors, _ = table(browser, base, "Calls")
    try:
        call_test(gm, "stealth", ["Alice"])
        view(gm, "call")  # where the GM called it: told it went out, and where it waits
        expect(gm.locator("#call-done")).to_have_text(re.compile("^Called stealth for Alice"))
        gm.locator("#call-done").get_by_role("link", name="See the open calls").click()
        expect(gm.locator("#calls [data-call]")).to_contain_text("Alice: pending")
        expect(gm.locator("#turn-sound")).to_be_hidden()
        expect(pat.locator("#turn-sound")).to_be_visible()
        assert not errors, errors
    finally:
        for c in contexts:
            c.close()


def test_the_odds_follow_the_skill_tapped(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    contexts, _, pat, errors, _ = table(browser, base, "Odds", gm_looks=False)
    try:
        chips = pat.locator("#characters")
        chips.get_by_role("button", name="Roll stealth 60 for Alice").click()
        odds = pat.locator("#roll-odds")
        expect(odds).to_contain_text("Success 60.00%")
        view(pat, "table")
        chips.get_by_role("button", name="Roll rifle 45 for Alice").click()
        assert "60.00%" not in odds.inner_text()  # at once, not after the next answer
        expect(odds).to_contain_text("Success 45.00%")
        # An older pick's answer arriving last does not win.
        pat.evaluate(SLOW, ['"skill":"spot hidden"', "POST", None])
        view(pat, "table")
        chips.get_by_role("button", name="Roll spot hidden 55 for Alice").click()
        pat.wait_for_function("() => window.held === 1")  # its odds are asked, and held back
        view(pat, "table")
        chips.get_by_role("button", name="Roll stealth 60 for Alice").click()
        expect(odds).to_contain_text("Success 60.00%")
        pat.evaluate(RELEASE)  # the older pick's answer now comes last
        settled(pat)  # the older pick's answer has come, and the page has read it
        expect(odds).to_contain_text("Success 60.00%")
        assert not errors, errors
    finally:
        for c in contexts:
            c.close()


def test_a_new_character_by_form(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    contexts, _, pat, errors, _ = table(browser, base, "New faces", gm_looks=False)
    try:
        view(pat, "characters")
        expand(pat, "#sheet-details")
        pat.get_by_label("Name", exact=True).fill('Bea "the Quiet"')
        pat.get_by_role("button", name="Another skill").click()  # several new skills at once
        for i, (skill, value) in enumerate(
            [("climb", "40"), ("spot hidden", "55"), ("dodge", "30"), ("rifle", "25")], 1
        ):
            pat.get_by_label(f"Skill {i}", exact=True).fill(skill)
            pat.get_by_label(f"Skill {i} value", exact=True).fill(value)
        pat.get_by_label("Luck", exact=True).fill("4")  # BRP declares Luck
        expect(pat.locator("#new-abilities-box")).to_be_hidden()  # and no ability field
        assert overflow(pat) == 0
        pat.get_by_role("button", name="Create the character").click()
        card = pat.locator("#characters [data-character='Bea \"the Quiet\"']")
        expect(card).to_contain_text("climb 40")
        expect(card).to_contain_text("rifle 25")
        expect(card).to_contain_text("Luck 4 of 4")
        expect(pat.get_by_label("Skill 1", exact=True)).to_have_value("")  # ready for the next
        assert not errors, errors
    finally:
        for c in contexts:
            c.close()


def test_a_roll_refused_as_busy_or_cut_off_is_sent_again_and_made_once(
    base: str, browser: Any
) -> None:
    """A roll tapped at a busy moment: its first try's connection drops, its second is told
    to come back in a second (503, Retry-After), its third gets through. The page sends the
    same Idempotency-Key each time, so the roll is made, once, and no error shows."""
    from playwright.sync_api import expect

    contexts, gm, pat, _, _ = table(browser, base, "Busy night")
    keys: list[str | None] = []

    def flaky(route: Any, request: Any) -> None:
        keys.append(request.headers.get("idempotency-key"))
        if len(keys) == 1:
            route.abort("connectionreset")
        elif len(keys) == 2:
            route.fulfill(
                status=503,
                headers={"retry-after": "1"},
                content_type="application/json",
                body='{"error": {"message": "busy"}}',
            )
        else:
            route.continue_()

    try:
        call_test(gm, "stealth", ["Alice"])
        pat.route(re.compile(r"/api/tables/[^/]+/rolls$"), flaky)
        pat.get_by_role("button", name="Roll stealth for Alice").click()
        # Two waits of a second each before the try that gets through.
        expect(pat.locator("#calls [data-call] .card")).to_contain_text("stealth", timeout=15000)
        assert len(keys) == 3 and keys[0] and len(set(keys)) == 1, keys
        expect(pat.locator("#page-error")).to_have_text("")
        table_id = pat.url.split("/t/", 1)[1].split("#")[0]
        rolls = pat.evaluate(
            "async (t) => (await (await fetch(`/api/tables/${t}/events`)).json())"
            ".filter((e) => e.kind === 'roll').length",
            table_id,
        )
        assert rolls == 1
    finally:
        for c in contexts:
            c.close()
