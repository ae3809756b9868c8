"""The table page plays a fourth, made-up system (tests/fourth_system.py) that the server loads
from D100_SYSTEMS: every label, preset and option comes from what the system declares, so the
page needs nothing written for it."""

from __future__ import annotations

from typing import Any

import pytest

from .test_browser import tap_through

pytestmark = pytest.mark.browser
SHEET = 'name = "{name}"\nsystem = "percent"\nskills = {{ climb = 45, swim = 30 }}\n'



def test_the_page_calls_and_rolls_a_system_it_was_never_written_for(
    base: str, browser: Any
) -> None:
    # "hard" is a preset only this system has.
    tap_through(browser, base, "percent", SHEET, "climb", "Difficulty", difficulty="hard")
