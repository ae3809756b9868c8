"""The web pages in Debian's Chromium, driven by Playwright: a GM (desktop) and two players
(phones) in separate browser contexts play a scene; every page is checked at phone and desktop
widths for horizontal overflow with hostile content, for accessibility (axe-core) and in dark
mode; a watching page's requests per log event are counted. Screenshots go to
artifacts/browser/ where D100_SCREENSHOTS=1 (to look at the pages by hand: a screenshot
checks nothing, and making them took a fifth of the layout test's time)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from .browsing import (
    DESKTOP,
    NARROW,
    PHONE,
    enter,
    idle,
    joined,
    last_seq,
    seat,
    settled,
    watched,
)
from .services import ROOT

pytestmark = pytest.mark.browser
ARTIFACTS = ROOT / "artifacts" / "browser"
AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
SHEET = (
    'name = "{name}"\nsystem = "brp"\nluck = {{ current = 5, maximum = 5 }}\n'
    'skills = {{ stealth = 60, "spot hidden" = 55, rifle = 45 }}\n'
)
# Resolves once the page has been drawn twice more: what the last change laid out is painted.
DRAWN = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
LONG = "A" * 400  # one word, no place to break
LONG_SKILL = "A" * 80  # the longest skill name a sheet takes, no place to break either


def shot(page: Any, name: str) -> None:
    """The whole page as artifacts/browser/``name``.png, where D100_SCREENSHOTS=1."""
    if os.environ.get("D100_SCREENSHOTS", "") in ("", "0"):
        return
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def overflow(page: Any) -> int:
    """How many pixels the page is wider than its viewport (0: no horizontal scroll)."""
    width: int = page.evaluate(
        "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
        " - document.documentElement.clientWidth"
    )
    return width


# The axe-core rules whose findings may change with the colour scheme alone: the dark pages
# are the light ones' markup at the same size in other colours (app.css changes colours only).
COLOUR_RULES = ("color-contrast", "link-in-text-block")


def serious_violations(page: Any, rules: tuple[str, ...] = ()) -> list[str]:
    """axe-core's serious and critical findings on the page: of ``rules``, or of every rule."""
    if not page.evaluate("typeof axe !== 'undefined'"):  # once a document, not once a view
        page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(
        """async (rules) => (await axe.run(rules.length
            ? { runOnly: { type: "rule", values: rules } } : {})).violations""",
        list(rules),
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


def open_table(
    page: Any,
    base: str,
    name: str = "The Keep",
    gm: str = "Gina",
    house: dict[str, str] | None = None,
) -> tuple[str, str]:
    """A new BRP table from the home page; its address and invite link."""
    page.goto(f"{base}/")
    page.get_by_label("Table name").fill(name)
    page.get_by_label("Rule system").select_option("brp")
    page.get_by_label("Your name").fill(gm)
    for label, value in (house or {}).items():
        expand(page, "#house-rules-box")
        page.get_by_label(label, exact=True).select_option(value)
    page.get_by_role("button", name="Open the table").click()
    invite = page.locator("#invite-link")
    from playwright.sync_api import expect

    expect(invite).to_contain_text("/join#")
    return page.locator("#go").get_attribute("href"), invite.inner_text()


def join(page: Any, invite: str, name: str) -> None:
    from playwright.sync_api import expect

    page.goto("about:blank")  # from /join, a new fragment alone would not load the page again
    page.goto(invite)
    page.get_by_label("Your name at the table").fill(name)
    page.get_by_role("button", name="Join").click()
    expect(page.locator("#whoami")).to_contain_text(f"{name}, a player")
    wired(page)


def wired(page: Any) -> None:
    from playwright.sync_api import expect

    expect(page.locator("#table-page")).not_to_have_attribute("inert", "")


def expand(page: Any, details: str) -> None:
    page.locator(details).evaluate("d => { d.open = true; }")


def view(page: Any, name: str) -> None:
    """On a narrow screen, the tab showing that view (table, call, characters, log, more);
    on a wide one every section shows and the tabs hide."""
    tab = page.locator(f"#tabs a[data-view={name}]")
    if tab.is_visible():
        tab.click()
        from playwright.sync_api import expect

        expect(tab).to_have_attribute("aria-current", "page")


def add_character(page: Any, name: str, sheet: str = SHEET) -> None:
    view(page, "characters")
    expand(page, "#sheet-details")
    page.get_by_label("Sheet (the command line's TOML format)").fill(sheet.format(name=name))
    page.get_by_role("button", name="Save character").click()
    page.locator(f"#characters [data-character='{name}']").wait_for()  # the page shows its card


def call_test(
    gm: Any, skill: str, names: list[str], difficulty: str = "", hazard: str = ""
) -> None:
    view(gm, "call")
    gm.locator("#call-skill").fill(skill)
    gm.locator("#call-difficulty").fill(difficulty)
    gm.get_by_label("Hazard if it fails").fill(hazard)
    for name in names:
        gm.locator("#call-characters").get_by_label(name, exact=True).check()
    gm.get_by_role("button", name="Call for the test").click()
    view(gm, "table")  # where the call waits


def test_a_scene_between_a_gm_and_two_players(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    contexts = [browser.new_context(viewport=DESKTOP)] + [
        browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True) for _ in range(2)
    ]
    gm, pat, sam = (c.new_page() for c in contexts)
    errors: list[str] = []
    for page in (gm, pat, sam):
        page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        # The Call of Cthulhu way of bonus dice, chosen as the table opens (BRP4).
        where, invite = open_table(gm, base, house={"Bonus dice method": "tens"})
        gm.get_by_role("link", name="Go to the table").click()
        expect(gm.locator("#whoami")).to_contain_text("game master")
        wired(gm)
        expect(gm.locator("#table-rules")).to_contain_text("bonus dice method: tens")
        add_character(gm, "Orc")
        join(pat, invite, "Pat")
        assert "#" not in pat.url  # the token left the address bar
        add_character(pat, "Alice")

        # Names are unique per table, whatever the case: nobody can pass for someone else.
        sam.goto(invite)
        sam.get_by_label("Your name at the table").fill("pAT")
        sam.get_by_role("button", name="Join").click()
        expect(sam.locator("#join-error")).to_contain_text("choose another name")
        join(sam, invite, "Sam")
        view(sam, "characters")
        expand(sam, "#sheet-details")
        sam.get_by_label("Sheet (the command line's TOML format)").fill(SHEET.format(name="alice"))
        sam.get_by_role("button", name="Save character").click()
        expect(sam.locator("#sheet-error")).to_contain_text("taken")
        add_character(sam, "Bob")
        expect(gm.locator("#log")).to_contain_text("Sam joins the table")

        # The GM calls for a test with its hazard, without leaving the GM's tools.
        expect(gm.locator("#call-characters").get_by_label("Bob", exact=True)).to_be_visible()
        gm.locator("#call-skill").fill("stealth")
        gm.locator("#call-characters").get_by_label("Alice", exact=True).check()
        gm.evaluate("render()")  # as a live event does: what the GM ticked stays ticked
        expect(gm.locator("#call-characters").get_by_label("Alice", exact=True)).to_be_checked()
        pat.get_by_label("A sound when a test is called for me").check()
        pat.evaluate("() => { window.chime = () => { window.chimed = (window.chimed ?? 0) + 1 }; }")
        call_test(gm, "stealth", ["Bob"], "difficult", "the guard hears you")
        expect(gm.locator("#log-box")).to_be_in_viewport()  # the log stays in view...
        gm.evaluate("scrollTo(0, document.body.scrollHeight)")
        expect(gm.locator("#log-box")).to_be_in_viewport()  # ...wherever the GM scrolls
        gm.evaluate("scrollTo(0, 0)")

        # On Pat's phone: the call, its odds and its Roll button on the first screen, and the
        # tab's title says it is their turn.
        roll_call = pat.get_by_role("button", name="Roll stealth for Alice")
        expect(roll_call).to_be_visible()
        pat.evaluate("scrollTo(0, 0)")  # the first screen, as the page opens
        expect(roll_call).to_be_in_viewport()
        expect(pat.locator("#calls")).to_contain_text("success 40.00% (2/5)")  # 60 - 20 (BRP2)
        expect(pat).to_have_title(re.compile(r"^\(1\) Your turn"))
        assert pat.evaluate("window.chimed") == 1  # the sound Pat asked for, once
        shot(pat, "table-player-called-phone")
        # A called test takes the free roll's options: here a Luck boost (BRP7).
        pat.get_by_role("button", name="With options…").click()
        expect(pat.locator("#answering")).to_contain_text("Alice rolls stealth")
        boost = pat.locator("#luck-boost")
        expect(boost).to_contain_text(re.compile(r"\+\d+\.\d\d% success"))
        boost.click()
        expect(pat.locator("#roll-odds")).to_contain_text("Success 60.00%")  # 40 + 20
        pat.get_by_role("button", name="Roll", exact=True).click()
        result = pat.locator("#roll-result .card")
        expect(result).to_contain_text("Alice")
        expect(result).to_contain_text("Luck spent: 1")
        expect(result).to_contain_text("vs effective skill 60")  # 40 + 20, in BRP's words
        expect(pat.locator("#calls [data-call] .card")).to_contain_text("stealth")  # where rolled
        expect(pat.locator("#characters")).to_contain_text("Luck 4 of 5")
        expect(pat).to_have_title(re.compile(r"^The Keep"))
        expect(gm.locator("#log li[data-kind=roll]").first).to_contain_text("Alice (Pat)")

        # The GM cancels what is left of the call: it leaves both boxes.
        expect(sam.get_by_role("button", name="Roll stealth for Bob")).to_be_visible()
        gm.get_by_role("button", name="Cancel the stealth call").click()
        expect(gm.locator("#calls")).to_contain_text("No call is open.")
        expect(sam.locator("#calls")).to_contain_text("No test called for you.")
        expect(sam.locator("#log li[data-kind=cancel]")).to_contain_text("cancels the stealth call")

        # Rolling by tapping a skill; "+20" is a difficulty and "00" a die (G1: 00 is 100).
        pat.locator("#characters [data-character=Alice]").get_by_role(
            "button", name="Roll spot hidden 55 for Alice"
        ).click()
        expect(pat.get_by_role("button", name="Roll", exact=True)).to_be_in_viewport()
        pat.locator("#roll-difficulty").fill("+20")
        expect(pat.locator("#roll-odds")).to_contain_text("Success 75.00%")
        pat.locator("#more-options > summary").click()
        pat.get_by_label("Dice rolled by hand (optional)").fill("00")
        pat.get_by_role("button", name="Roll", exact=True).click()
        card = pat.locator("#roll-result .card")
        expect(card).to_contain_text("fumble (failure)")  # BRP6: 00 always fumbles
        expect(card.locator(".die.kept")).to_have_text("00")
        expect(card.locator(".level")).to_have_attribute("data-icon", "☠")  # the icon BRP declares
        pat.get_by_label("Dice rolled by hand (optional)").fill("42x")
        pat.get_by_role("button", name="Roll", exact=True).click()
        expect(pat.locator("#roll-error")).to_contain_text("not a d100 roll")

        # Neither Sam's Bob nor the GM's Orc is offered for a contest: their sheets are not
        # Pat's to read, so the GM calls such a contest.
        pat.locator("#characters [data-character=Alice]").get_by_role(
            "button", name="Roll stealth 60 for Alice"
        ).click()
        pat.get_by_label("Dice rolled by hand (optional)").fill("")
        pat.get_by_role("button", name="Oppose…").click()
        expect(pat.get_by_label("Against").locator("option")).to_have_count(0)
        expect(pat.locator("#oppose-help")).to_contain_text("ask the GM to call it")
        pat.get_by_role("button", name="Roll a check instead").click()

        # A blind roll: the GM sees the result, the player only that they rolled.
        pat.locator("#characters [data-character=Alice]").get_by_role(
            "button", name="Roll rifle 45 for Alice"
        ).click()
        pat.get_by_label("Dice rolled by hand (optional)").fill("")
        pat.get_by_label("Who sees the result", exact=True).select_option("blind")
        pat.get_by_role("button", name="Roll", exact=True).click()
        gm_entry = gm.locator("#log li[data-kind=roll]").first
        expect(gm_entry).to_contain_text("rifle")
        expect(gm_entry).to_contain_text("seen by the GM only")
        seq = gm_entry.get_attribute("data-seq")
        hidden = pat.locator(f"#log li[data-seq='{seq}']")
        expect(hidden).to_contain_text("only the GM sees the result")
        explanation = gm_entry.locator(".explanation").text_content()
        assert explanation and explanation not in pat.content()

        # Links: the GM gets the GM link back; a player sees their own link where signed in.
        expect(gm.locator("#gm-link code")).to_contain_text(f"{where}#")
        expect(pat.locator("#my-link code")).to_contain_text(f"{where}#")
        no_rule_ids = re.compile(r"\((BRP|OQ|CH|G)\d+")
        for page in (gm, pat):
            assert not no_rule_ids.search(page.locator("body").inner_text())
        shot(gm, "table-gm-desktop")
        shot(pat, "table-player-phone")
        assert not errors, errors
        # The home page lists the tables this browser sat at.
        pat.goto(f"{base}/")
        expect(pat.locator("#my-tables")).to_contain_text("The Keep (player)")
        pat.get_by_role("link", name="The Keep").click()
        expect(pat.locator("#whoami")).to_contain_text("Pat, a player")
    finally:
        for c in contexts:
            c.close()


def test_a_watching_page_makes_one_request_per_event(base: str, browser: Any) -> None:
    """Eight pending calls and another player rolling: the watching page reads the state once
    per event (or less, for a burst), never per call, and is never rate-limited."""
    from playwright.sync_api import expect

    contexts = [watched(browser.new_context(viewport=PHONE)) for _ in range(3)]
    gm, pat, sam = (c.new_page() for c in contexts)
    try:
        where, invite = open_table(gm, base, "Watched")
        gm.goto(f"{base}{where}")
        wired(gm)
        # On the GM's phone the table comes first, the call form one tap away.
        expect(gm.locator("#tabs a[aria-current=page]")).to_have_text("Table")
        view(gm, "call")
        expect(gm.get_by_role("button", name="Call for the test")).to_be_in_viewport()
        # the players join through the API: what is counted here is the watching page's reads
        pat.goto(joined(base, invite, "Pat", (SHEET.format(name="Alice"),)))
        sam.goto(joined(base, invite, "Sam", (SHEET.format(name="Bob"),)))
        wired(pat)
        wired(sam)
        table = where.split("/")[2]
        alice = pat.evaluate("mine()[0].id")
        bob = sam.evaluate("mine()[0].id")
        gm.evaluate(
            """async ([t, alice]) => { for (let i = 0; i < 8; i++)
            await api("POST", `/api/tables/${t}/calls`,
                      { skill: "stealth", character_ids: [alice] }); }""",
            [table, alice],
        )
        expect(pat.get_by_role("button", name="Roll stealth for Alice")).to_have_count(8)
        settled(pat, last_seq(gm))  # the calls' odds too have come back

        asked: list[str] = []
        refused: list[str] = []
        pat.on(
            "request",
            lambda r: None if "/events/stream" in r.url else asked.append(f"{r.method} {r.url}"),
        )
        pat.on("response", lambda r: refused.append(r.url) if r.status == 429 else None)
        rolls = 5
        for _ in range(rolls):  # one at a time: each is its own event on Pat's page
            seq = sam.evaluate(
                """async ([t, bob]) => (await api("POST", `/api/tables/${t}/rolls`,
                { actor: { character_id: bob, skill: "stealth" } })).seq""",
                [table, bob],
            )
            settled(pat, seq)
        expect(pat.locator("#log li[data-kind=roll]")).to_have_count(rolls)
        assert 1 <= len(asked) <= rolls, asked  # one state read per event at most
        assert all(a == f"GET {base}/api/tables/{table}" for a in asked), asked
        # A new call for Pat: the state, and that call's odds once.
        asked.clear()
        gm.evaluate(
            """async ([t, alice]) => api("POST", `/api/tables/${t}/calls`,
            { skill: "rifle", character_ids: [alice] })""",
            [table, alice],
        )
        expect(pat.get_by_role("button", name="Roll rifle for Alice")).to_be_visible()
        expect(pat.locator("#calls")).to_contain_text("success 45.00%")
        settled(pat, last_seq(gm))
        assert sorted(a.split(" ")[0] for a in asked) == ["GET", "POST"], asked
        assert not refused
    finally:
        for c in contexts:
            c.close()


def hostile_table(gm: Any, base: str) -> tuple[str, str, str]:
    """A table whose every name and text is as long as allowed and has nowhere to break."""
    where, _ = open_table(gm, base, "T" * 200, "G" * 80)
    gm.goto(f"{base}{where}")
    wired(gm)
    table = where.split("/")[2]
    sheet = SHEET.replace("rifle = 45", f'"{LONG_SKILL}" = 45')
    gm.evaluate(
        """async ([t, sheet]) => api("POST", `/api/tables/${t}/characters`, { sheet })""",
        [table, sheet.format(name="N" * 80)],
    )
    npc = gm.evaluate(f"""async () => (await api("GET", "/api/tables/{table}")).characters[0].id""")
    invite = gm.evaluate(
        """async ([t, id, hazard]) => {
        await api("POST", `/api/tables/${t}/calls`,
                  { skill: "stealth", character_ids: [id], hazard });
        await api("POST", `/api/tables/${t}/rolls`,
                  { actor: { character_id: id, skill: "stealth" } });
        await api("POST", `/api/tables/${t}/seeds/rotate`);
        return (await api("POST", `/api/tables/${t}/invite`)).invite_link; }""",
        [table, npc, LONG],
    )
    return where, invite, table


def test_no_page_scrolls_sideways_and_none_has_serious_accessibility_faults(
    base: str, browser: Any
) -> None:
    """Hostile content (a 400-character word in a hazard, an 80-character one in a skill name
    (the longest a sheet takes), names as long as
    allowed) at 360, 390 and 1280 pixels wide, light and dark; axe-core finds nothing serious
    or critical on any page (in dark, by its colour rules: the rest found the same markup at
    the same size in light)."""
    from playwright.sync_api import expect

    # axe-core is injected as an inline script, which the pages' CSP (rightly) refuses.
    setup = browser.new_context(viewport=DESKTOP, bypass_csp=True)
    where, invite, _ = hostile_table(setup.new_page(), base)
    faults: list[str] = []
    try:
        for size, label, scheme in (
            (NARROW, "360", "light"),
            (PHONE, "phone", "light"),
            (DESKTOP, "desktop", "light"),
            (PHONE, "phone-dark", "dark"),
        ):
            context = watched(
                browser.new_context(viewport=size, color_scheme=scheme, bypass_csp=True)
            )
            page = context.new_page()
            # 360 wide: the overflow only; dark: the colour rules (markup seen in light)
            rules = None if label == "360" else COLOUR_RULES if scheme == "dark" else ()
            try:
                pages = {"home": "/", "odds": "/odds", "join": "/join"}
                for name, path in pages.items():
                    page.goto(f"{base}{path}")
                    if name == "odds":
                        expect(page.locator("#odds-chart svg")).to_be_visible()
                    idle(page)
                    check(page, f"{name}-{label}", faults, rules)
                # joined through the API: the join page's form is tested elsewhere, and the page
                # it leads to is opened from the player's own link
                page.goto(joined(base, invite, f"P{'l' * 60}{label}"))
                wired(page)
                sheet = SHEET.replace("rifle = 45", f'"{LONG_SKILL}" = 45')
                page.evaluate(
                    "async (sheet) => api('POST', `/api/tables/${tableId}/characters`, { sheet })",
                    sheet.format(name=f"M{'m' * 60}{label}"),
                )
                expect(page.locator("#characters .chips button")).to_have_count(3)
                for d in page.locator("details").all():
                    d.evaluate("d => d.open = true")
                views(page, f"table-player-{label}", faults, rules)
                if scheme == "dark":
                    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
                    assert background == "rgb(20, 21, 23)", background  # the dark page colour
            finally:
                context.close()
        gm = setup.pages[0]
        gm.goto(f"{base}{where}")
        wired(gm)
        gm.evaluate("document.querySelectorAll('details').forEach((d) => d.open = true)")
        for size, label in ((NARROW, "360"), (PHONE, "phone"), (DESKTOP, "desktop")):
            gm.set_viewport_size(size)
            views(gm, f"table-gm-{label}", faults, None if label == "360" else ())
    finally:
        setup.close()
    assert not faults, "\n".join(faults)


def views(page: Any, name: str, faults: list[str], axe: tuple[str, ...] | None) -> None:
    """``check`` in every view the tabs offer (one, all sections, on a wide screen)."""
    tabs = page.locator("#tabs a:visible")
    names = [t.get_attribute("data-view") for t in tabs.all()] or [""]
    for each in names:
        if each:
            view(page, each)
        check(page, f"{name}-{each}".rstrip("-"), faults, axe)


def check(page: Any, name: str, faults: list[str], axe: tuple[str, ...] | None) -> None:
    """Overflow, and axe-core's findings of the rules ``axe`` (() every rule, None none)."""
    page.evaluate(DRAWN)
    shot(page, f"hostile-{name}")
    if (wide := overflow(page)) > 0:
        faults.append(f"{name}: {wide} px wider than the screen")
    if axe is not None:
        faults.extend(f"{name}: {v}" for v in serious_violations(page, axe))


SHEETS = {
    "openquest": 'name = "{name}"\nsystem = "openquest"\n'
    "skills = {{ stealth = 60, perception = 45 }}\n",
    "chances": 'name = "{name}"\nsystem = "chances"\nskills = {{ sneaking = 40, hearing = 30 }}\n'
    "abilities = {{ dex = 10, per = 5 }}\n"
    'uses = {{ sneaking = "dex", hearing = "per" }}\n',
}


def tap_through(
    browser: Any, base: str, system: str, sheet: str, skill: str, target: str, difficulty: str = ""
) -> None:
    """On a phone: a table of ``system`` opened from the home page, Ada from ``sheet``, a
    test of ``skill`` called for her (at ``difficulty``) and answered by tapping, then rolled
    again from her chip. The target field's label must be the system's ``target``."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        page.goto(f"{base}/")
        page.get_by_label("Table name").fill(f"A {system} night")
        page.get_by_label("Rule system").select_option(system)
        page.get_by_role("button", name="Open the table").click()
        page.get_by_role("link", name="Go to the table").click()
        wired(page)
        add_character(page, "Ada", sheet)
        expect(page.locator("#call-difficulty-label")).to_have_text(target)
        call_test(page, skill, ["Ada"], difficulty=difficulty)
        expect(page.get_by_role("button", name=f"Roll {skill} for Ada")).to_be_visible()
        page.get_by_role("button", name=f"Roll {skill} for Ada").click()
        expect(page.locator("#calls .card")).to_contain_text(skill)
        view(page, "characters")
        chip = page.locator("#characters").get_by_role("button", name=re.compile(f"^Roll {skill} "))
        chip.click()
        expect(page.locator("#roll-odds")).to_contain_text("Success")
        page.get_by_role("button", name="Roll", exact=True).click()
        expect(page.locator("#roll-result .card .level")).to_be_visible()
        assert overflow(page) == 0
        shot(page, f"table-{system}-phone")
        assert not errors, errors
    finally:
        context.close()


@pytest.mark.parametrize("system", ["openquest", "chances"])
def test_the_other_systems_call_and_roll_by_tapping(base: str, browser: Any, system: str) -> None:
    """The same page serves every system: its target field (difficulty or risk, CH2) and
    options come from the system, a call without a risk takes the system's usual one."""
    skill = next(iter(SHEETS[system].split("skills = {{ ")[1].split(" ")))
    target = "Risk" if system == "chances" else "Difficulty"
    tap_through(browser, base, system, SHEETS[system], skill, target)


def test_the_odds_page_needs_no_sign_in(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        page.goto(f"{base}/odds")
        page.get_by_label("Rule system").select_option("brp")
        page.get_by_label("Skill", exact=True).fill("65")
        page.get_by_role("button", name="Show the odds").click()
        expect(page.locator("#odds-result")).to_contain_text("Success: 65.00%")
        expect(page.locator("#odds-result")).to_contain_text("3/100")  # criticals, exact
        expect(page.locator("#odds-advice")).to_contain_text("Luck boost")
        expect(page.locator("#odds-chart svg")).to_be_visible()
        # Plain words: no rule numbers in what a player reads; "+20" is a difficulty.
        assert not re.search(r"\((BRP|OQ|CH|G)\d+", page.locator("main").inner_text())
        page.get_by_label("Difficulty", exact=True).fill("+20")
        page.get_by_role("button", name="Show the odds").click()
        expect(page.locator("#odds-result")).to_contain_text("Success: 85.00%")
        page.get_by_label("Skill", exact=True).fill("1")
        page.get_by_label("Difficulty", exact=True).fill("")
        page.get_by_label("Penalty dice", exact=True).fill("2")
        page.get_by_role("button", name="Show the odds").click()
        # A tiny chance reads "< 0.01%" beside its exact fraction, never "0.00%" or NaN:
        # a critical on 01 with two penalty dice is 01 on all three (BRP4).
        critical = page.locator("#odds-result tr", has_text="critical")
        expect(critical).to_contain_text("< 0.01%")
        expect(critical).to_contain_text("1/1000000")
        expect(page.locator("#odds-result")).not_to_contain_text("NaN")
        page.keyboard.press("Tab")  # the form is reachable from the keyboard
        shot(page, "odds-page")
    finally:
        context.close()


HEAD_OF = "async () => (await api('GET', base)).table.head"
KEPT = "() => JSON.parse(localStorage.getItem(`d100-heads:${tableId}`))"
KEEP = "(kept) => localStorage.setItem(`d100-heads:${tableId}`, JSON.stringify(kept))"
ROLL = """async () => {
  const c = state.characters.find((x) => x.name === "Orc");
  return await roll({ actor: { character_id: c.id, skill: "stealth" } });
}"""


def test_the_page_keeps_the_log_s_heads_and_tells_a_history_that_changed(
    base: str, browser: Any
) -> None:
    """The heads a roll's answer and the stream bring are kept in the browser, the latest shown
    with a button copying it for ``d100 verify --head``; a head kept at a number the log now
    links otherwise, or a log ending before a head kept, is told as a changed history."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport=DESKTOP)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    seated = seat(base, "Heads", {"GM": [SHEET.format(name="Orc")]})  # opened through the API
    enter(page, base, seated, "GM")
    rolled = page.evaluate(ROLL)
    head = page.evaluate(HEAD_OF)
    assert rolled["head"]["seq"] <= head["seq"]  # the sheet saved, the roll: the log's end
    view(page, "log")
    box = page.locator("#head-box")
    expect(box).to_contain_text(f"log #{head['seq']} · {head['link'][:8]}")
    assert page.evaluate(KEPT)[str(rolled["head"]["seq"])] == rolled["head"]["link"]
    # what the page hands the clipboard (the system's clipboard needs the window's focus,
    # which a browser shared by parallel tests may not give this page)
    page.evaluate(
        """() => Object.defineProperty(navigator.clipboard, "writeText",
        { value: async (text) => { window.copied = text; } })"""
    )
    box.get_by_role("button", name="Copy the log's head, for d100 verify --head").click()
    expect(box.get_by_role("button", name="Copy the log's head")).to_have_text("Copied")
    assert page.evaluate("window.copied") == f"{head['seq']}:{head['link']}"
    expect(page.locator("#heads-warning")).to_be_empty()

    # the server's log rewritten at the roll, as this browser would then find it
    seq, forged = rolled["head"]["seq"], "f" * 64
    page.evaluate(KEEP, page.evaluate(KEPT) | {str(seq): forged})
    page.reload()
    warning = page.locator("#heads-warning")
    expect(warning).to_contain_text(f"history changed: this browser saw event #{seq}")
    expect(warning).to_contain_text(f"--head {seq}:{forged}")
    shot(page, "table-history-changed")

    # the log cut back before a head kept here
    page.evaluate(KEEP, {str(head["seq"] + 5): forged})
    page.reload()
    expect(warning).to_contain_text(
        f"log went back: this browser saw it reach event #{head['seq'] + 5}, and it now ends "
        f"at #{head['seq']}"
    )
    context.close()
