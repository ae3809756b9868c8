"""What the browser tests share in a test process: one Chromium, and one ``d100 serve`` per set
of settings, each started on first use. Every test opens its own browser contexts (cheap, and
as separate as two browsers) and its own tables, so nothing one test does is seen by another.

The sync Playwright driver marks the thread's event loop as running while it is up, which
``asyncio.run`` in the other tests refuses: Chromium is stopped before any test that is not a
browser test (tests/server/conftest.py), and started again by the next browser test."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from typing import Any

import pytest

from tests.conftest import need_service

from .services import CHROMIUM, chromium_available, migrated_sqlite, serve

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
            from playwright.sync_api import expect, sync_playwright

            # an expectation waits for the state it needs as long as an action does (30 s),
            # not 5 s: a loaded machine is slow, not wrong, and a passing test waits no longer
            expect.set_options(timeout=30_000)

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
                    serve(migrated_sqlite(where / "d100.sqlite3"), where / "server.log", **env)
                )
            return running[key]

        yield get


@pytest.fixture
def base(servers: Callable[..., str]) -> str:
    """The shared server's address."""
    return servers(**SHARED)


# What a page still has on its way, as ``window.busy``: its requests, counted from each fetch
# until its answer has been read and what the page does with it has run (api() in common.js
# reads every answer with text(); the count goes down in a task after that read, so after the
# page's own continuation), and its timers not yet run (the state read the page puts off a
# moment after a live event, the odds asked once a pick settles, a retry's wait). For
# ``settled``; added to a context by ``watched``.
BUSY = """(() => {
  let asking = 0;
  const timers = new Set();
  const reading = new WeakSet();
  const setTimeout0 = window.setTimeout;
  const clearTimeout0 = window.clearTimeout;
  window.setTimeout = function (run, ms, ...args) {
    const id = setTimeout0(function () {
      try { return typeof run === "function" ? run.apply(this, args) : undefined; }
      finally { timers.delete(id); }
    }, ms);
    timers.add(id);
    return id;
  };
  window.clearTimeout = function (id) { timers.delete(id); return clearTimeout0(id); };
  const done = () => setTimeout0(() => { asking -= 1; }, 0);
  Object.defineProperty(window, "busy", { get: () => asking + timers.size });
  const fetch0 = window.fetch;
  window.fetch = function (...args) {
    asking += 1;
    return fetch0.apply(this, args).then(
      (r) => { reading.add(r); return r; },
      (err) => { done(); throw err; });
  };
  const text0 = Response.prototype.text;
  Response.prototype.text = function () {
    const read = text0.call(this);
    if (reading.has(this)) { reading.delete(this); read.then(done, done); }
    return read;
  };
})();"""


def watched(context: Any) -> Any:
    """``context``, its pages counting their requests on their way (``settled``)."""
    context.add_init_script(BUSY)
    return context


def settled(page: Any, seq: int = 0) -> None:
    """Wait until a table page (of a ``watched`` context) has read the state up to event
    ``seq`` and drawn it, and has nothing on its way (``BUSY``)."""
    page.wait_for_function("n => state.table.last_seq >= n && window.busy === 0", arg=seq)


def last_seq(page: Any) -> int:
    """The newest event of a table page's table, as the server has it now."""
    seq: int = page.evaluate("async () => (await api('GET', base)).table.last_seq")
    return seq


def idle(page: Any) -> None:
    """Wait until a page (of a ``watched`` context) has nothing on its way (``BUSY``)."""
    page.wait_for_function("() => window.busy === 0")


class Seated:
    """A table built through the API (``seat``): its id, invite link, each member's token
    ("GM" and each player's name) and its characters' ids (by their owner, in order)."""

    def __init__(
        self, table_id: str, invite: str, tokens: dict[str, str], characters: dict[str, list[str]]
    ) -> None:
        self.id = table_id
        self.invite = invite
        self.tokens = tokens
        self.characters = characters

    def rolls(self, base: str, who: str, skill: str, count: int) -> None:
        """``count`` checks of ``skill`` by ``who``'s first character, through the API."""
        import httpx

        with httpx.Client(base_url=base, timeout=30) as client:
            for _ in range(count):
                made = client.post(
                    f"/api/tables/{self.id}/rolls",
                    json={"actor": {"character_id": self.characters[who][0], "skill": skill}},
                    headers={"authorization": f"Bearer {self.tokens[who]}"},
                )
                assert made.status_code == 201, made.text


def seat(
    base: str, name: str, sheets: dict[str, list[str]], system: str = "brp", gm: str = "Gina"
) -> Seated:
    """A table of ``system`` named ``name`` opened by ``gm`` through the API, and its members'
    characters: ``sheets`` maps "GM" and each player (joining in that order, by the invite)
    to their sheets (TOML, in full). For a test whose subject is not how a table is opened,
    joined or a sheet saved by form: those tests drive the forms themselves."""
    import httpx

    with httpx.Client(base_url=base, timeout=30) as client:
        made = client.post("/api/tables", json={"name": name, "system": system, "gm_name": gm})
        assert made.status_code == 201, made.text
        body = made.json()
        table_id, invite = body["table"]["id"], body["invite_link"]
        tokens = {"GM": body["gm_link"].split("#", 1)[1]}
        for who in sheets:
            if who != "GM":
                client.cookies.clear()  # each member speaks with their own token
                joined = client.post(
                    "/api/join", json={"invite": invite.split("#", 1)[1], "name": who}
                )
                assert joined.status_code == 201, joined.text
                tokens[who] = joined.json()["rejoin_link"].split("#", 1)[1]
        client.cookies.clear()
        characters = {
            who: saved(client, table_id, tokens[who], theirs) for who, theirs in sheets.items()
        }
    return Seated(table_id, invite, tokens, characters)


def saved(client: Any, table_id: str, token: str, sheets: Sequence[str]) -> list[str]:
    """``sheets`` (TOML, in full) saved at the table as the member of ``token``: their ids."""
    ids = []
    for sheet in sheets:
        made = client.post(
            f"/api/tables/{table_id}/characters",
            json={"sheet": sheet},
            headers={"authorization": f"Bearer {token}"},
        )
        assert made.status_code == 201, made.text
        ids.append(made.json()["id"])
    return ids


def enter(page: Any, base: str, seated: Seated, who: str) -> Any:
    """``page`` opened at ``seated``'s table as ``who``, from their link (the token in the
    fragment, swapped for a session cookie by the page), once wired; ``page``."""
    from playwright.sync_api import expect

    page.goto(f"{base}/t/{seated.id}#{seated.tokens[who]}")
    expect(page.locator("#table-page")).not_to_have_attribute("inert", "")
    return page


def seat_gm(page: Any, base: str, system: str, sheets: list[str]) -> Seated:
    """``page`` as the GM of a new table of ``system`` with ``sheets`` (TOML, in full), all
    made through the API, on the characters' view (where a sheet saved by form leaves it):
    for a test of what the page does at a table, not of the forms that open and fill one."""
    from .test_browser import view

    seated = seat(base, "The Keep", {"GM": sheets}, system=system)
    enter(page, base, seated, "GM")
    view(page, "characters")
    return seated


def joined(base: str, invite: str, name: str, sheets: tuple[str, ...] = ()) -> str:
    """``name`` joined by the ``invite`` link through the API, with ``sheets`` (TOML, in
    full) as their characters: their own link to the table."""
    import httpx

    with httpx.Client(base_url=base, timeout=30) as client:
        made = client.post("/api/join", json={"invite": invite.split("#", 1)[1], "name": name})
        assert made.status_code == 201, made.text
        link: str = made.json()["rejoin_link"]
        table_id, token = link.split("/t/", 1)[1].split("#", 1)
        client.cookies.clear()
        saved(client, table_id, token, sheets)
    return link
