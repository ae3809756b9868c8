"""The table page plays every registered system on a phone, from what it declares: a table
opened with it, a character from a sheet naming it, a test called at its usual target and
answered by tapping, a roll from the character's skill, nothing wider than the screen. (The
odds page's check and contest of every system: tests/server/test_browser_odds_contest.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from d100 import REGISTRY

from .test_browser import tap_through
from .test_every_system import sheet

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("name", REGISTRY.names())
def test_the_page_plays_every_registered_system(base: str, browser: Any, name: str) -> None:
    system = REGISTRY.get(name)
    text = sheet(system, "{name}").replace("{", "{{").replace("}", "}}")
    text = text.replace("{{name}}", "{name}")
    tap_through(browser, base, name, text, "watch", system.declares.target.label)

