"""The GM reveals a character's sheet from its card (``POST …/characters/{id}/reveal``), at a
phone's width: one full-size button on the card, asked to confirm, after which every member's
log tells of it; a player's page has no such button."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from .browsing import PHONE, enter, seat
from .test_browser import SHEET, view

pytestmark = pytest.mark.browser


def test_the_gm_reveals_a_player_s_sheet_from_its_card_on_a_phone(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    keep = seat(base, "The Keep", {"GM": [], "Pat": [SHEET.format(name="Alice")]})
    contexts = [browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True) for _ in "ab"]
    try:
        gm, pat = (
            enter(c.new_page(), base, keep, who)
            for c, who in zip(contexts, ("GM", "Pat"), strict=True)
        )
        errors: list[str] = []
        gm.on("pageerror", lambda err: errors.append(str(err)))
        asked: list[str] = []

        def confirm(dialog: Any) -> None:
            asked.append(dialog.message)
            dialog.accept()

        gm.on("dialog", confirm)
        view(gm, "characters")
        button = gm.locator("#characters [data-character=Alice]").get_by_role(
            "button", name="Reveal sheet of Alice to everyone"
        )
        button.scroll_into_view_if_needed()
        expect(button).to_be_visible()
        box = button.bounding_box()
        assert box is not None and box["height"] >= 40 and box["x"] >= 0, box
        assert box["x"] + box["width"] <= PHONE["width"], box  # on the screen, not past it
        button.tap()
        assert asked and "Alice's sheet" in asked[0] and "cannot be hidden again" in asked[0]
        view(gm, "log")
        expect(gm.locator("#log")).to_contain_text("reveals Alice's sheet to everyone")
        view(pat, "log")
        expect(pat.locator("#log")).to_contain_text("reveals Alice's sheet to everyone")
        view(pat, "characters")
        expect(pat.locator("#characters [data-character=Alice]")).to_have_count(1)
        expect(pat.get_by_role("button", name="Reveal sheet of Alice to everyone")).to_have_count(0)
        assert not errors, errors
        with httpx.Client(base_url=base, timeout=30) as client:
            log = client.get(
                f"/api/tables/{keep.id}/log.jsonl",
                headers={"authorization": f"Bearer {keep.tokens['Pat']}"},
            ).text
        assert '"kind": "reveal_sheet"' in log or '"kind":"reveal_sheet"' in log
    finally:
        for context in contexts:
            context.close()
