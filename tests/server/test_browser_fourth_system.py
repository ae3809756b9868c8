"""The table page plays a fourth, made-up system (tests/fourth_system.py) that the server loads
from D100_SYSTEMS: every label, preset and option comes from what the system declares, so the
page needs nothing written for it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .services import serve
from .test_browser import browser, tap_through

pytestmark = pytest.mark.browser
__all__ = ["browser"]  # the shared Chromium fixture
SHEET = 'name = "{name}"\nsystem = "percent"\nskills = {{ climb = 45, swim = 30 }}\n'


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    where: Path = tmp_path_factory.mktemp("fourth")
    url = f"sqlite:///{where / 'd100.sqlite3'}"
    with serve(url, where / "server.log", D100_SYSTEMS="tests.fourth_system") as found:
        yield found


def test_the_page_calls_and_rolls_a_system_it_was_never_written_for(
    base: str, browser: Any
) -> None:
    # "hard" is a preset only this system has.
    tap_through(browser, base, "percent", SHEET, "climb", "Difficulty", difficulty="hard")
