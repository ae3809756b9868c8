"""The beacon's rounds, fetched: a table with the beacon (``d100.beacon``) draws each seed's
rolls from the server seed mixed with the quicknet round its commitment named, so the server
must have that round's signature before the seed's first roll.

A server fetches rounds only when ``D100_BEACON_URL`` names drand HTTP relays (comma-separated,
tried in order: ``https://api.drand.sh,https://drand.cloudflare.com``); without it, a table
cannot be made with the beacon. A seed's round is published about 3 to 6 seconds after its
commitment: a roll made sooner waits for it (at most ``WAIT`` seconds), then each relay is
asked with a timeout of ``TIMEOUT`` seconds a request; a round that cannot be had, or whose
signature does not verify against quicknet's public key, refuses the roll (503, with
``Retry-After``) and draws nothing: its nonce is not taken. The round's signature is kept with
its seed, so it is fetched once; and as soon as a seed is made, its round is fetched in the
background once due, so its first roll seldom waits for it.

A roll never waits for a round under the table's lock: a seed whose round is not kept yet
(or a chain with no seed yet) refuses to draw (``Unfetched``), its transaction is rolled back,
and the round is fetched outside any transaction (``awaiting``) before the roll is made again.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from .. import beacon
from .errors import ApiError

if TYPE_CHECKING:
    from .access import Chain

URL_ENV = "D100_BEACON_URL"
TIMEOUT = 2.0  # seconds, each request to a relay
WAIT = 8.0  # seconds a roll waits for its round to be published (it is at most ~6 s away)
RETRY = 0.5  # seconds between asks for a round a relay has not got yet
KEPT = 256  # rounds' answers kept by a fetcher

# A round's number -> its signature (hex), as a relay answers; raises LookupError if it has none.
Fetch = Callable[[int], str]


def relays(environ: Mapping[str, str] | None = None) -> list[str]:
    env = os.environ if environ is None else environ
    return [u.strip().rstrip("/") for u in env.get(URL_ENV, "").split(",") if u.strip()]


class HttpRounds:
    """Ask each relay in turn for ``/<chain hash>/public/<round>``. A round's answer is kept
    (the latest ``KEPT`` that verify): a rotation's seeds name the same round, fetched once.
    ``warm`` fetches a round in the background once it is due, so the seed's first roll
    finds it kept rather than fetching it under the table's lock."""

    def __init__(self, urls: list[str], timeout: float = TIMEOUT) -> None:
        self.urls = urls
        self.timeout = timeout
        self.kept: dict[int, str] = {}
        self.warming: set[int] = set()
        self.lock = threading.Lock()

    def __call__(self, round_number: int) -> str:
        with self.lock:
            if round_number in self.kept:
                return self.kept[round_number]
        signature = self.ask(round_number)
        if _verifies(round_number, signature):  # a forged answer is not kept
            with self.lock:
                if len(self.kept) >= KEPT:
                    self.kept.pop(next(iter(self.kept)))
                self.kept[round_number] = signature
        return signature

    def ask(self, round_number: int) -> str:
        import httpx  # the server extra's

        failures = []
        for url in self.urls:
            try:
                answer = httpx.get(
                    f"{url}/{beacon.CHAIN_HASH}/public/{round_number}", timeout=self.timeout
                )
                if answer.status_code == 200:
                    signature = answer.json().get("signature")
                    if isinstance(signature, str):
                        return signature.lower()
                failures.append(f"{url}: HTTP {answer.status_code}")
            except (httpx.HTTPError, ValueError, AttributeError) as err:
                failures.append(f"{url}: {type(err).__name__}")
        raise LookupError("; ".join(failures) or "no relay")

    def warm(self, round_number: int) -> None:
        with self.lock:
            if round_number in self.kept or round_number in self.warming:
                return
            self.warming.add(round_number)

        def run() -> None:
            try:
                signature_of(round_number, fetch=self)
            except ApiError:
                pass  # the roll will ask again, and say why it cannot be had
            finally:
                with self.lock:
                    self.warming.discard(round_number)

        threading.Thread(target=run, name=f"beacon round {round_number}", daemon=True).start()


def http_fetch(urls: list[str], timeout: float = TIMEOUT) -> HttpRounds:
    return HttpRounds(urls, timeout)


def kept(round_number: int) -> str | None:
    """The round's verified signature if this server's fetcher has it already; never waits."""
    if isinstance(fetcher, HttpRounds):
        with fetcher.lock:
            return fetcher.kept.get(round_number)
    return None


class Unfetched(Exception):
    """A roll whose chain's seed names a round not kept yet, or a chain with no seed yet at a
    table with the beacon: raised before anything is drawn, so the roll's transaction is
    rolled back and no relay is waited for holding the table's lock (on SQLite, every
    table's). ``awaiting.fetch`` starts the chain and fetches the round outside it."""

    def __init__(self, table_id: str, chain: Chain, member_id: str) -> None:
        super().__init__(f"a beacon round to fetch for table {table_id}'s {chain.kind} chain")
        self.table_id, self.chain, self.member_id = table_id, chain, member_id


def warm(round_number: int) -> None:
    """Fetch ``round_number`` in the background, where this server's fetcher keeps rounds."""
    if isinstance(fetcher, HttpRounds):
        fetcher.warm(round_number)


def _verifies(round_number: int, signature: str) -> bool:
    try:
        return beacon.verify(beacon.round_of(beacon.named(round_number) | {"signature": signature}))
    except (ValueError, ModuleNotFoundError):
        return False


# What this server fetches rounds with: None, no beacon (set at start from the environment;
# a test sets a recorded-rounds fake).
fetcher: Fetch | None = None


def configure(fetch: Fetch | None) -> None:
    global fetcher
    fetcher = fetch


def from_environment() -> None:
    urls = relays()
    configure(http_fetch(urls) if urls else None)


def unavailable(round_number: int, reason: str) -> ApiError:
    return ApiError(
        503,
        "beacon.round",
        round_number,
        "a quicknet round the server can fetch and verify",
        f"beacon round {round_number} is not available ({reason}): nothing was drawn; "
        "try again in a few seconds",
        {"Retry-After": "3"},
    )


def signature_of(
    round_number: int, clock: Callable[[], float] = time.time, fetch: Fetch | None = None
) -> str:
    """The verified signature of ``round_number``, waiting for it to be published; 503 if it
    cannot be had. Verifying costs about 2 ms (d100.beacon.verify)."""
    fetch = fetch or fetcher
    if fetch is None:
        raise unavailable(round_number, f"this server fetches no rounds: {URL_ENV} is not set")
    due = beacon.round_time(round_number)
    ahead = due - clock()
    if ahead > WAIT:
        raise unavailable(round_number, f"published only in {ahead:.0f} s")
    deadline = max(clock(), due) + WAIT
    while True:
        now = clock()
        if now < due:
            time.sleep(due - now)
        try:
            signature = fetch(round_number)
            break
        except LookupError as err:
            if clock() + RETRY > deadline:
                raise unavailable(round_number, str(err)) from None
            time.sleep(RETRY)
    try:
        found = beacon.round_of(beacon.named(round_number) | {"signature": signature})
    except ValueError:
        raise unavailable(round_number, "a relay answered no signature") from None
    try:
        good = beacon.verify(found)
    except ModuleNotFoundError:
        raise unavailable(round_number, "the beacon extra (pyblst) is not installed") from None
    if not good:
        raise unavailable(round_number, "its signature does not verify")
    return found.signature
