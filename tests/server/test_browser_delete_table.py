"""A GM deletes a table from its page on a phone: the button asks first, in words that say
what goes and how to keep the log, fits the screen, and "Keep it" keeps it; once deleted,
the GM is home without it, and a player's page is told it is shut out."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from .browsing import enter, seat, watched
from .test_browser import PHONE, SHEET, check, view

pytestmark = pytest.mark.browser


def test_the_gm_deletes_a_table_from_a_phone(browser: Any, base: str) -> None:
    from playwright.sync_api import expect

    kept = seat(base, "Kept Keep", {"GM": []})
    doomed = seat(base, "Doomed Keep", {"GM": [], "Pat": [SHEET.format(name="Alice")]})
    phone = {"viewport": PHONE, "has_touch": True, "is_mobile": True}
    gm = watched(browser.new_context(**phone, bypass_csp=True)).new_page()  # axe-core's script
    pat = watched(browser.new_context(**phone)).new_page()
    enter(gm, base, kept, "GM")  # remembered by this browser, as the doomed one is next
    enter(gm, base, doomed, "GM")
    enter(pat, base, doomed, "Pat")
    view(pat, "more")
    expect(pat.locator("#delete-button")).to_be_hidden()  # the GM's alone

    view(gm, "more")
    button, ask = gm.locator("#delete-button"), gm.locator("#delete-confirm")
    expect(ask).to_be_hidden()
    button.click()
    expect(ask).to_be_visible()
    expect(button).to_have_attribute("aria-expanded", "true")
    expect(gm.locator("#delete-question")).to_contain_text("Delete Doomed Keep for good?")
    expect(gm.locator("#delete-question")).to_contain_text("export it first")
    faults: list[str] = []
    check(gm, "delete-asked", faults, ())  # on the screen, and axe-core's every rule
    assert not faults, faults
    gm.locator("#delete-no").click()  # asked, and kept
    expect(ask).to_be_hidden()
    with httpx.Client(base_url=base) as client:
        state = client.get(f"/api/tables/{doomed.id}", headers=_bearer(doomed.tokens["GM"]))
        assert state.status_code == 200

        button.click()
        gm.locator("#delete-yes").click()
        expect(gm).to_have_url(f"{base}/")
        mine = gm.locator("#my-tables")
        expect(mine).to_contain_text("Kept Keep")
        expect(mine).not_to_contain_text("Doomed Keep")
        expect(pat.locator("#page-error")).to_contain_text("or the table was deleted")
        expect(pat.locator("#live-status")).to_have_text("signed out")
        for who in ("GM", "Pat"):
            gone = client.get(f"/api/tables/{doomed.id}", headers=_bearer(doomed.tokens[who]))
            assert gone.status_code == 401


def _bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}
