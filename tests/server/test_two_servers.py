"""Two ``d100 serve`` processes on one PostgreSQL serve the same table consistently: a roll on
one is seen live on the other, and concurrent writes through both get one gapless order."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.conftest import need_service

from .services import postgres_available, postgres_database, serve
from .sse import Stream
from .tablehelp import Api, Table

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Path]]:
    need_service(postgres_available(), "PostgreSQL is not running at 127.0.0.1:5432")
    where = tmp_path_factory.mktemp("two")
    with (postgres_database() as url, serve(url, where / "a.log") as a,
          serve(url, where / "b.log") as b):
        yield a, b, where


def test_a_roll_on_one_server_is_seen_live_on_the_other(
        servers: tuple[str, str, Path]) -> None:
    a, b, logs = servers
    with httpx.Client(base_url=a) as on_a, httpx.Client(base_url=b) as on_b:
        table = Api(on_a).table("brp")
        pat = table.join("Pat")
        alice = table.character(pat, "Alice")
        start = table.ok("GET", "", pat)["table"]["last_seq"]
        via_b = Table(Api(on_b), table.id, "brp", table.gm, table.invite)
        with Stream(b, table.id, pat, start) as on_b_stream, \
                Stream(a, table.id, table.gm, start) as on_a_stream:
            made = table.roll(pat, alice, "stealth")  # through server A
            _, seq, data = on_b_stream.next()
            assert seq == made["seq"] and data["result"] == made["result"]
            made_b = via_b.roll(pat, alice, "dodge")  # and the other way round
            assert on_a_stream.next()[1] == made["seq"]
            assert on_a_stream.next()[1] == made_b["seq"]
    text = (logs / "a.log").read_text() + (logs / "b.log").read_text()
    assert table.gm not in text and pat not in text and table.invite not in text


def test_concurrent_rolls_through_both_servers_form_one_gapless_log(
        servers: tuple[str, str, Path]) -> None:
    a, b, _ = servers
    with httpx.Client(base_url=a) as on_a, httpx.Client(base_url=b) as on_b:
        table = Api(on_a).table("brp")
        pat = table.join("Pat")
        alice = table.character(pat, "Alice")
        start = table.ok("GET", "", pat)["table"]["last_seq"]
        tables = [table, Table(Api(on_b), table.id, "brp", table.gm, table.invite)]
        with Stream(b, table.id, table.gm, start) as stream:
            def roll(i: int) -> int:
                seq: int = tables[i % 2].roll(pat, alice, "stealth")["seq"]
                return seq

            with ThreadPoolExecutor(4) as pool:
                made = sorted(pool.map(roll, range(12)))
            assert made == list(range(start + 1, start + 13))
            seen = [stream.next()[1] for _ in range(12)]
        assert seen == made
        nonces = sorted(e["provable"]["nonce"] for e in table.events(table.gm, start))
        assert nonces == list(range(12))
