"""The web page in Debian's Chromium, driven by Playwright: a GM and a player in two browser
contexts play a short scene and both pages update live. Screenshots go to artifacts/."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import need_service

from .services import CHROMIUM, ROOT, chromium_available, serve

pytestmark = pytest.mark.browser
ARTIFACTS = ROOT / "artifacts" / "browser"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SHEET = 'name = "{name}"\nsystem = "brp"\nluck = {{ current = 5, maximum = 5 }}\n' \
        'skills = {{ stealth = 60, "spot hidden" = 55, rifle = 45 }}\n'


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    where: Path = tmp_path_factory.mktemp("browser")
    with serve(f"sqlite:///{where / 'd100.sqlite3'}", where / "server.log") as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    need_service(chromium_available(), f"Chromium not found at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield chromium
        chromium.close()


def shot(page: object, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)  # type: ignore[attr-defined]


def add_character(page: object, name: str) -> None:
    page.get_by_label("Sheet (the command line's TOML format)").fill(  # type: ignore[attr-defined]
        SHEET.format(name=name))
    page.get_by_role("button", name="Save character").click()  # type: ignore[attr-defined]
    page.locator(f"[data-character='{name}']").wait_for()  # type: ignore[attr-defined]


def test_a_scene_between_a_gm_and_a_player(base: str, browser: object) -> None:
    from playwright.sync_api import expect

    gm_context = browser.new_context(viewport={"width": 1200, "height": 900})  # type: ignore[attr-defined]
    player_context = browser.new_context(viewport={"width": 390, "height": 844})  # type: ignore[attr-defined]
    gm, player = gm_context.new_page(), player_context.new_page()
    try:
        gm.goto(f"{base}/")
        gm.get_by_label("Table name").fill("The Keep")
        gm.get_by_label("Rule system").select_option("brp")
        gm.get_by_label("Your name").fill("Gina")
        gm.get_by_role("button", name="Open the table").click()
        invite = gm.locator("#invite-link")
        expect(invite).to_contain_text("/join#")
        invite_link = invite.inner_text()
        shot(gm, "home-table-opened")
        gm.get_by_role("link", name="Go to the table").click()
        expect(gm.locator("#whoami")).to_contain_text("game master")
        add_character(gm, "Orc")

        player.goto(invite_link)
        player.get_by_label("Your name at the table").fill("Pat")
        player.get_by_role("button", name="Join").click()
        expect(player.locator("#whoami")).to_contain_text("Pat, a player")
        assert "#" not in player.url  # the token left the address bar
        add_character(player, "Alice")
        expect(gm.locator("#log")).to_contain_text("Pat joins the table")

        # The GM calls for a test with its hazard; the player sees the odds and rolls it.
        gm.reload()
        expect(gm.locator("#table-page")).not_to_have_attribute("inert", "")  # wired
        gm.locator("#call-skill").fill("stealth")
        gm.locator("#call-difficulty").fill("difficult")
        gm.get_by_label("Hazard if it fails").fill("the guard hears you")
        gm.get_by_label("Alice").check()
        gm.evaluate("render()")  # as a live event does: what the GM ticked stays ticked
        expect(gm.get_by_label("Alice")).to_be_checked()
        gm.get_by_role("button", name="Call for the test").click()
        roll_call = player.get_by_role("button", name="Roll stealth for Alice")
        expect(roll_call).to_be_visible()
        expect(player.locator("#calls")).to_contain_text("success 40.00%")
        roll_call.click()
        expect(gm.locator("#log li[data-kind=roll]").first).to_contain_text("Alice rolls stealth")
        expect(player.locator("#log li[data-kind=roll]").first).to_contain_text("hazard")

        # A contest between two characters. The player's own skills are offered as they type;
        # the Orc's sheet is hidden from them, so nothing is offered for it (GM's are, to her).
        expect(player.locator("#contest-actor-skills option")).to_have_count(3)
        player.get_by_label("Their skill").fill("stealth")
        player.get_by_label("Opponent", exact=True).select_option(label="Orc")
        expect(player.locator("#contest-opponent-skills option")).to_have_count(0)
        expect(gm.locator("#call-skills option[value='spot hidden']")).to_have_count(1)
        player.get_by_label("Opponent's skill").fill("spot")
        player.get_by_role("button", name="Show the odds").click()
        expect(player.locator("#contest-odds")).to_contain_text("actor")
        player.get_by_role("button", name="Roll the contest").click()
        expect(gm.locator("#log li[data-kind=contest]").first).to_contain_text(
            "Alice (stealth) vs Orc (spot hidden)")

        # Luck: the boost button shows its exact gain; spending it shows on both pages.
        player.locator("#roll-skill").select_option("stealth")
        boost = player.locator("#luck-boost")
        expect(boost).to_contain_text(re.compile(r"\+\d+\.\d\d% success"))
        boost.click()
        expect(boost).to_have_attribute("aria-pressed", "true")
        player.get_by_role("button", name="Roll", exact=True).click()
        expect(player.locator("#characters")).to_contain_text("Luck 4 of 5")
        expect(gm.locator("#log li[data-kind=roll]").first).to_contain_text("vs 80")
        shot(player, "player-phone")

        # A blind roll: the GM sees the result, the player only that they rolled.
        player.get_by_label("Who sees the result", exact=True).select_option("blind")
        player.get_by_role("button", name="Roll", exact=True).click()
        gm_entry = gm.locator("#log li[data-kind=roll]").first
        expect(gm_entry).to_contain_text("rolled ")
        expect(gm_entry).to_contain_text("blind")
        seq = gm_entry.get_attribute("data-seq")
        player_entry = player.locator(f"#log li[data-seq='{seq}']")
        expect(player_entry).to_contain_text("only the GM sees the result")
        explanation = gm_entry.inner_text().split(" — ")[1].split(" · ")[0]
        assert explanation not in player.content()
        shot(gm, "gm-table")
    finally:
        gm_context.close()
        player_context.close()


def test_the_odds_page_needs_no_sign_in(base: str, browser: object) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 390, "height": 844})  # type: ignore[attr-defined]
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
        page.keyboard.press("Tab")  # the form is reachable from the keyboard
        shot(page, "odds-page")
    finally:
        context.close()
