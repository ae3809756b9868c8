"""A Keeper's table on phones (390x844): Luck spent after a failure (BRP7), the GM's secrets,
sheets edited by form and deleted, and the invite renewed on revoke."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .browsing import enter, joined, seat
from .test_browser import (
    PHONE,
    SHEET,
    add_character,
    expand,
    join,
    open_table,
    overflow,
    shot,
    view,
    wired,
)

pytestmark = pytest.mark.browser


def phone(browser: Any) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    return context, page, errors


def open_keep(gm: Any, base: str) -> str:
    """The Keep, a BRP table opened by the GM under the form's default name, with the GM at
    its table page; its invite link."""
    _, link = open_table(gm, base, gm="GM")
    gm.get_by_role("link", name="Go to the table").click()
    wired(gm)
    return link


def roll(page: Any, character: str, skill: str, dice: str = "", visibility: str = "") -> Any:
    page.locator(f"#characters [data-character={character}]").get_by_role(
        "button", name=re.compile(f"^Roll {skill} \\d+ for {character}")
    ).click()
    expand(page, "#more-options")
    page.get_by_label("Dice rolled by hand (optional)").fill(dice)
    if visibility:
        page.get_by_label("Who sees the result", exact=True).select_option(visibility)
    page.get_by_role("button", name="Roll", exact=True).click()
    return page.locator("#roll-result > .card")


def test_brp7_a_failed_check_offers_its_roller_a_luck_reroll(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    (gm_context, gm, gm_errors), (context, pat, errors) = phone(browser), phone(browser)
    try:
        gm.goto(f"{base}/")
        gm.get_by_label("Table name").fill("The Keep")
        gm.get_by_label("Rule system").select_option("brp")
        expand(gm, "#house-rules-box")
        gm.locator("#house-rules").get_by_label(re.compile("luck rerolls", re.I)).fill("1")
        gm.get_by_role("button", name="Open the table").click()
        invite = gm.locator("#invite-link")
        expect(invite).to_contain_text("/join#")
        invite = invite.inner_text()
        gm.get_by_role("link", name="Go to the table").click()
        wired(gm)
        # Pat joined through the API (the house rule is opened by form: it is tested here)
        pat.goto(joined(base, invite, "Pat", (SHEET.format(name="Alice"),)))
        wired(pat)
        card = roll(pat, "Alice", "stealth", "90")
        expect(card).to_contain_text("failure")
        offer = card.get_by_role("button", name="Spend 1 Luck to reroll (60.00% to succeed)")
        expect(offer).to_be_visible()
        # Others see the failure, not the offer: it is the roller's Luck.
        seq = card.locator("[data-reroll]").get_attribute("data-reroll")
        gm_card = gm.locator(f"#log li[data-seq='{seq}']")
        expect(gm_card).to_contain_text("failure")
        expect(gm_card.get_by_role("button", name=re.compile("reroll"))).to_have_count(0)
        # The die for the reroll is asked for now, after the failure, not before the roll.
        card.get_by_label(re.compile("Your die for the reroll")).fill("95")
        offer.click()
        expect(card.locator(".reroll .error")).to_have_count(0)
        again = pat.locator("#roll-result > .card")  # the outcome in the first roll's place
        expect(again).to_contain_text("Luck reroll of roll #")
        expect(again).to_contain_text("1 Luck spent")
        expect(pat.locator("#characters")).to_contain_text("Luck 4 of 5")
        expect(pat.locator(f"#log [data-reroll='{seq}']")).to_have_count(0)
        # The house rule allows one reroll of a check: the failed reroll offers no other.
        expect(again).to_contain_text("failure")
        expect(again.get_by_role("button", name=re.compile("reroll"))).to_have_count(0)
        expect(gm.locator("#log li[data-kind=roll]").first).to_contain_text("Luck reroll of roll")
        # A roll hidden from its roller offers none: a reroll would tell it failed.
        roll(pat, "Alice", "rifle", "", "blind")
        expect(pat.locator("#roll-result > .card")).to_contain_text("only the GM sees")
        offers = pat.locator("#roll-result").get_by_role("button", name=re.compile("reroll"))
        expect(offers).to_have_count(0)
        assert overflow(pat) == 0
        shot(pat, "table-luck-reroll-phone")
        assert not errors and not gm_errors, errors + gm_errors
    finally:
        context.close()
        gm_context.close()


def contest(
    page: Any, actor: str, actor_skill: str, opponent: str, skill: str, visibility: str
) -> Any:
    """A contest from the skill panel: ``actor``'s skill tapped, then Oppose..."""
    view(page, "characters")
    page.locator(f"#characters [data-character={actor}]").get_by_role(
        "button", name=re.compile(f"^Roll {actor_skill} \\d+ for {actor}")
    ).click()
    if page.locator("#oppose-box").is_hidden():
        page.get_by_role("button", name="Oppose…").click()
    page.get_by_label("Against").select_option(label=opponent)
    page.get_by_label("Their skill").fill(skill)
    expand(page, "#more-options")
    page.get_by_label("Who sees the result", exact=True).select_option(visibility)
    page.get_by_role("button", name="Roll the contest").click()
    return page.locator("#roll-result .card")


# The GM's Orc and Pat's Alice; Sam, with no character, watches.
KEEP = {"GM": [SHEET.format(name="Orc")], "Pat": [SHEET.format(name="Alice")], "Sam": []}


def test_a_keepers_npc_and_hidden_contests_stay_the_gms(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    (gc, gm, ge), (pc, pat, pe), (sc, sam, se) = phone(browser), phone(browser), phone(browser)
    try:
        keep = seat(base, "The Keep", KEEP, gm="GM")  # opening and joining are not tested here
        for page, who in ((gm, "GM"), (pat, "Pat"), (sam, "Sam")):
            enter(page, base, keep, who)
        # The Keeper's Orc against Alice, hidden from the table: Sam learns only that someone
        # rolled in secret. (Alice's player sees it once the GM shows it.)
        card = contest(gm, "Orc", "stealth", "Alice (Pat)", "spot hidden", "gm")
        expect(card).to_contain_text("Winner")
        expect(card).to_contain_text("seen by the roller and the GM")
        seq = card.get_attribute("data-seq")
        expect(sam.locator(f"#log li[data-seq='{seq}']")).to_have_text("Someone rolled in secret")
        expect(card.locator(".dice")).to_have_count(2)  # the GM reads both sides
        # In the open: the NPC's dice and target would tell its skill: players read its name
        # and level.
        public = contest(gm, "Orc", "stealth", "Alice (Pat)", "rifle", "public")
        expect(public).not_to_have_attribute("data-seq", seq or "")
        seq = public.get_attribute("data-seq")
        for player in (pat, sam):
            seen = player.locator(f"#log li[data-seq='{seq}']")
            expect(seen).to_contain_text("Orc")
            expect(seen.locator(".dice")).to_have_count(1)  # Alice's only
            expect(seen).not_to_contain_text("vs effective skill 60")
            expect(seen).not_to_contain_text("How it was worked out")
        # The GM's own check in the open: the level, not the Orc's skill.
        gm.get_by_role("button", name="Roll a check instead").click()
        gm.locator("#characters [data-character=Orc]").get_by_role(
            "button", name=re.compile("^Roll stealth")
        ).click()
        # the GM's own characters start in the GM's mode: this one the GM rolls in public
        mode = gm.locator("#roll-visibility")
        expect(mode).to_have_value("gm")
        mode.evaluate("e => { e.closest('details').open = true; }")
        mode.select_option("public")
        gm.get_by_role("button", name="Roll", exact=True).click()
        expect(gm.locator("#roll-result > .card")).not_to_have_attribute("data-seq", seq or "")
        expect(gm.locator("#roll-result > .card")).to_contain_text("vs effective skill 60")
        seq = gm.locator("#roll-result > .card").get_attribute("data-seq")
        view(pat, "log")
        npc_roll = pat.locator(f"#log li[data-seq='{seq}']")
        expect(npc_roll).to_contain_text("Orc")
        expect(npc_roll.locator(".level")).to_be_visible()
        expect(npc_roll).not_to_contain_text("effective skill")
        expect(npc_roll).not_to_contain_text("Odds")
        assert overflow(sam) == 0
        shot(sam, "table-secrets-phone")
        assert not (ge or pe or se), ge + pe + se
    finally:
        for c in (gc, pc, sc):
            c.close()


def test_sheets_by_form_deleted_and_revoke_renews_the_invite(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    (gc, gm, ge), (pc, pat, pe) = phone(browser), phone(browser)
    try:
        link = open_keep(gm, base)
        join(pat, link, "Pat")
        add_character(pat, "Alice")
        # A form beside the TOML: a skill raised, one removed, one added, Luck set.
        pat.get_by_role("button", name="Edit Alice").click()
        form = pat.locator("#values-form")
        form.get_by_label("stealth", exact=True).fill("80")
        form.get_by_label("rifle", exact=True).fill("")
        form.get_by_label("New skill").fill("climb")
        form.get_by_label("Its value").fill("35")
        form.get_by_label("Luck now").fill("3")
        form.get_by_role("button", name="Save values").click()
        chips = pat.locator("#characters [data-character=Alice]")
        expect(chips.get_by_role("button", name="Roll stealth 80 for Alice")).to_be_visible()
        expect(chips.get_by_role("button", name="Roll climb 35 for Alice")).to_be_visible()
        expect(chips.get_by_role("button", name=re.compile("^Roll rifle"))).to_have_count(0)
        expect(chips).to_contain_text("Luck 3 of 5")
        expect(form).to_be_hidden()
        # What changed, on the edit's card, for the GM (the sheet's reader).
        edit = gm.locator("#log li[data-kind=character]").first
        expect(edit).to_contain_text("character edited")
        expect(edit).to_contain_text(
            "climb none -> 35, rifle 45 -> none, stealth 60 -> 80, Luck 5 -> 3"
        )
        # Deleted by its player; the log keeps that it was.
        pat.once("dialog", lambda d: d.accept())
        pat.get_by_role("button", name="Delete Alice").click()
        expect(pat.locator("#characters [data-character=Alice]")).to_have_count(0)
        deleted = gm.locator("#log li[data-kind=character]").first
        expect(deleted).to_contain_text("character deleted")
        # Removing Pat gives the GM the renewed invite link at once.
        view(gm, "more")
        gm.once("dialog", lambda d: d.accept())
        gm.get_by_role("button", name="Remove Pat").click()
        out = gm.locator("#revoke-out")
        expect(out).to_contain_text("New invite link")
        renewed = out.locator("code").inner_text()
        assert "/join#" in renewed and renewed != link
        assert overflow(pat) == 0 and overflow(gm) == 0
        shot(gm, "table-revoke-phone")
        assert not (ge or pe), ge + pe
    finally:
        for c in (gc, pc):
            c.close()


GHOUL = 'name = "{name}"\nsystem = "brp"\nskills = {{ stealth = 87, claw = 66 }}\n'
SEEKER = 'name = "{name}"\nsystem = "brp"\nskills = {{ "spot hidden" = 55, rifle = 45 }}\n'


def told(value: Any, secret: int) -> bool:
    """Whether a JSON answer holds ``secret`` as a skill or a target anywhere."""
    if isinstance(value, dict):
        return any(
            (k in ("skill", "target") and v == secret) or told(v, secret) for k, v in value.items()
        )
    return isinstance(value, list) and any(told(v, secret) for v in value)


def test_a_called_contest_against_the_keeper_s_ghoul_keeps_its_skill(
    base: str, browser: Any
) -> None:
    """The GM calls a hidden contest, Spot Hidden against the Ghoul's Stealth; Pat taps to
    roll it and reads the result; Sam sees a stub; neither player's page nor any answer the
    server gave them names the Ghoul's skill or its value."""
    import json

    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect

    (gc, gm, ge), (pc, pat, pe), (sc, sam, se) = phone(browser), phone(browser), phone(browser)
    answers: dict[str, list[Any]] = {"pat": [], "sam": []}
    pat.on("response", lambda r: answers["pat"].append(r))
    sam.on("response", lambda r: answers["sam"].append(r))
    try:
        keep = seat(  # opening and joining are not tested here
            base,
            "The Keep",
            {"GM": [GHOUL.format(name="Ghoul")], "Pat": [SEEKER.format(name="Alice")], "Sam": []},
            gm="GM",
        )
        for page, who in ((gm, "GM"), (pat, "Pat"), (sam, "Sam")):
            enter(page, base, keep, who)
        view(gm, "call")
        gm.locator("#call-skill").fill("spot hidden")
        gm.locator("#call-characters").get_by_label("Alice", exact=True).check()
        gm.get_by_label("Opposed by").select_option(label="Ghoul")
        gm.get_by_label("Opposed with skill").fill("stea")  # a prefix: the GM's sheet says
        gm.locator("#call-visibility").select_option("gm")
        gm.get_by_role("button", name="Call for the test").click()
        view(gm, "table")
        expect(gm.locator("#calls")).to_contain_text("vs Ghoul (stealth")
        button = pat.locator("#calls").get_by_role(
            "button", name="Roll spot hidden for Alice vs Ghoul"
        )
        button.tap()
        card = pat.locator("#calls .card")
        expect(card).to_contain_text("Winner")
        expect(card).to_contain_text("Ghoul: ")
        expect(card.locator(".level")).to_have_count(2)
        expect(card.locator(".dice")).to_have_count(1)  # Alice's only
        gm_card = gm.locator("#log li[data-kind=contest]").first
        expect(gm_card).to_contain_text("vs Ghoul (NPC) · stealth")
        expect(gm_card.locator(".dice")).to_have_count(2)
        expect(sam.locator("#log li").first).to_have_text("Someone rolled in secret")
        expect(sam.locator("#calls")).to_contain_text("No test called for you.")
        expect(pat.locator("#log li[data-kind=contest]")).to_contain_text("Ghoul")
        # What the live stream and the export give each player, read as their pages would.
        for page in (pat, sam):
            for path in ("/events", "/log.jsonl"):
                url = f"location.pathname.replace('/t/', '/api/tables/') + '{path}'"
                assert page.evaluate(f"fetch({url}).then((r) => r.status)") == 200
        for who, page in (("pat", pat), ("sam", sam)):
            assert "stealth" not in page.locator("body").inner_text().lower(), who
            for response in answers[who]:
                kind = response.headers.get("content-type") or ""
                if "/api/" not in response.url or "event-stream" in kind:
                    continue  # the page's own files; the stream is read above, as /events
                try:
                    text = response.text()
                except PlaywrightError:  # a redirect or an aborted request: no body
                    continue
                assert "stealth" not in text.lower(), (who, response.url)
                if "json" in kind:
                    lines = text.splitlines() if response.url.endswith(".jsonl") else [text]
                    assert not any(told(json.loads(x), 87) for x in lines if x), response.url
        assert sum(1 for r in answers["pat"] if "/api/" in r.url) > 5
        assert overflow(pat) == 0
        shot(pat, "table-called-contest-phone")
        assert not (ge or pe or se), ge + pe + se
    finally:
        for c in (gc, pc, sc):
            c.close()
