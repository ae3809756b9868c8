"""The table page on a desktop screen: the Results log fills its column beside the sections
(at 1280x800 it was a window about 100 px tall, one card at a time), while the calls above it
stay reachable, with a long log, at 1280x800 and 1920x1080. The table, its rolls and its
call are made through the HTTP API; the page is only looked at."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from .browsing import DESKTOP
from .tablehelp import Api
from .test_browser import wired

pytestmark = pytest.mark.browser

WIDE = {"width": 1920, "height": 1080}
ROLLS = 30

MEASURE = """() => {
  const box = (id) => document.getElementById(id).getBoundingClientRect();
  const log = document.getElementById('log');
  const button = document.querySelector('#calls button[data-target]');
  const b = button && button.getBoundingClientRect();
  return { log: box('log-box').height, calls: box('calls-box'),
           scrolls: log.scrollHeight > log.clientHeight,
           button: b && { top: b.top, bottom: b.bottom, height: b.height } };
}"""


def test_the_log_fills_its_column_and_the_calls_stay_reachable(base: str, browser: Any) -> None:
    from playwright.sync_api import expect

    with httpx.Client(base_url=base) as client:
        table = Api(client).table()  # type: ignore[arg-type]
        pat = table.join("Pat")
        alice = table.character(pat, "Alice")
        for _ in range(ROLLS):
            table.roll(pat, alice, "stealth")
        call = {"skill": "stealth", "character_ids": [alice]}
        table.ok("POST", "/calls", table.gm, 201, json=call)
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        page.goto(f"{base}/t/{table.id}#{pat}")
        wired(page)
        expect(page.locator("#log li[data-kind=roll]")).to_have_count(ROLLS)
        expect(page.get_by_role("button", name="Roll stealth for Alice")).to_be_visible()
        for size in (DESKTOP, WIDE):
            page.set_viewport_size(size)
            page.evaluate("scrollTo(0, 0)")
            seen = page.evaluate(MEASURE)
            assert seen["log"] >= 0.5 * size["height"], (size, seen)
            assert seen["scrolls"], seen  # the rest of the log scrolls within it
            button, calls = seen["button"], seen["calls"]
            assert button and button["height"] > 0, seen
            assert calls["top"] <= button["top"] and button["bottom"] <= calls["bottom"], seen
            assert button["bottom"] <= size["height"], seen  # on screen, not below the fold
    finally:
        context.close()
