"""What the browser tests share in a test process: one Chromium, and one ``d100 serve`` per set
of settings, each started on first use. Every test opens its own browser contexts (cheap, and
as separate as two browsers) and its own tables, so nothing one test does is seen by another.

The sync Playwright driver marks the thread's event loop as running while it is up, which
``asyncio.run`` in the other tests refuses: Chromium is stopped before any test that is not a
browser test (tests/server/conftest.py), and started again by the next browser test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest

from tests.conftest import need_service

from .services import CHROMIUM, chromium_available, serve

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {"width": 390, "height": 844}
NARROW = {"width": 360, "height": 800}
DESKTOP = {"width": 1280, "height": 800}
# The server most browser tests share: the built-in systems and two made up for the tests,
# the fourth system (tests/fourth_system.py) and the one whose every name is new.
SHARED = {"D100_SYSTEMS": "tests.fourth_system,tests.new_names_system"}


class Chromium:
    """One headless Chromium, launched on first use and kept until ``stop``."""

    def __init__(self) -> None:
        self._playwright: Any = None
        self._browser: Any = None

    def get(self) -> Any:
        if self._browser is None:
            from playwright.sync_api import sync_playwright

            playwright = sync_playwright().start()
            try:
                self._browser = playwright.chromium.launch(
                    executable_path=CHROMIUM, args=ARGS, headless=True
                )
            except BaseException:
                playwright.stop()
                raise
            self._playwright = playwright
        return self._browser

    def stop(self) -> None:
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        try:
            if browser is not None:
                browser.close()
        finally:
            if playwright is not None:
                playwright.stop()


CHROMIUM_NOW = Chromium()


@pytest.fixture
def browser() -> Iterator[Any]:
    """The test process's Chromium; any context a test leaves open is closed after it."""
    need_service(chromium_available(), f"Chromium not found at {CHROMIUM}")
    found = CHROMIUM_NOW.get()
    yield found
    for context in list(found.contexts):
        context.close()


@pytest.fixture(scope="session")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., str]]:
    """``servers(**env)``: the address of a server started with those settings, one per set
    of settings, on a SQLite database of its own; all stopped at the end."""
    running: dict[tuple[tuple[str, str], ...], str] = {}
    with ExitStack() as stack:

        def get(**env: str) -> str:
            key = tuple(sorted(env.items()))
            if key not in running:
                where = tmp_path_factory.mktemp("server")
                running[key] = stack.enter_context(
                    serve(f"sqlite:///{where / 'd100.sqlite3'}", where / "server.log", **env)
                )
            return running[key]

        yield get


@pytest.fixture
def base(servers: Callable[..., str]) -> str:
    """The shared server's address."""
    return servers(**SHARED)

