"""Two ``d100 serve`` processes on one PostgreSQL serve the same table consistently: a roll on
one is seen live on the other, by every stream of either; concurrent writes through both get
one gapless order; a revocation or a deletion through one shuts the other's streams and
refuses its tokens there."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from d100.cli.verify import audit_log
from d100.server.store import Store
from tests.conftest import need_service

from .services import postgres_available, postgres_database, serve
from .sse import Stream
from .tablehelp import Api, Table

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Path]]:
    need_service(postgres_available(), "PostgreSQL is not running at 127.0.0.1:5432")
    where = tmp_path_factory.mktemp("two")
    with postgres_database() as url, contextlib.ExitStack() as stack:
        store = Store(url)  # migrated here, so that neither start migrates beside the other
        store.migrate()
        store.dispose()
        # Started side by side: each start is seconds of a loaded machine.
        servers = [serve(url, where / "a.log"), serve(url, where / "b.log")]
        with ThreadPoolExecutor(2) as pool:
            starting = [pool.submit(server.__enter__) for server in servers]
            for server in servers:
                stack.push(server)
            a, b = (base.result() for base in starting)
        yield a, b, where


def test_a_roll_on_one_server_is_seen_live_on_the_other(servers: tuple[str, str, Path]) -> None:
    a, b, logs = servers
    with httpx.Client(base_url=a) as on_a, httpx.Client(base_url=b) as on_b:
        table = Api(on_a).table("brp")
        pat = table.join("Pat")
        alice = table.character(pat, "Alice")
        start = table.ok("GET", "", pat)["table"]["last_seq"]
        via_b = Table(Api(on_b), table.id, "brp", table.gm, table.invite)
        with (
            Stream(b, table.id, pat, start) as on_b_stream,
            Stream(a, table.id, table.gm, start) as on_a_stream,
        ):
            made = table.roll(pat, alice, "stealth")  # through server A
            _, seq, data = on_b_stream.next()
            assert seq == made["seq"] and data["result"] == made["result"]
            made_b = via_b.roll(pat, alice, "dodge")  # and the other way round
            assert on_a_stream.next()[1] == made["seq"]
            assert on_a_stream.next()[1] == made_b["seq"]
    text = (logs / "a.log").read_text() + (logs / "b.log").read_text()
    assert table.gm not in text and pat not in text and table.invite not in text


def test_concurrent_rolls_through_both_servers_form_one_gapless_log(
    servers: tuple[str, str, Path],
) -> None:
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
        # One chain, not a fork: each link extends the last, under the table's row lock.
        lines = table.req("GET", "/log.jsonl", table.gm).text.splitlines()
        out = audit_log(lines).to_dict()
        assert out["ok"] and out["chain"]["linked"] == len(lines), out
        assert out["chain"]["head"]["seq"] == made[-1]


def test_a_server_s_listener_skips_its_own_notifications() -> None:
    """A server wakes its own streams as a write commits; the NOTIFY that write sends comes
    back to its own listener too, and is skipped there (each roll read the log twice in the
    process that made it), while another server's wakes its streams."""
    import asyncio

    import psycopg
    from sqlalchemy.engine import make_url

    from d100.server.events import CHANNEL, payload
    from d100.server.live import listen, pg_conninfo

    need_service(postgres_available(), "PostgreSQL is not running at 127.0.0.1:5432")

    class Woken:
        def __init__(self) -> None:
            self.tables: list[str] = []
            self.all = asyncio.Event()

        def wake(self, table_id: str) -> None:
            self.tables.append(table_id)

        def wake_all(self) -> None:
            self.all.set()

    async def scene(url: str) -> list[str]:
        hub = Woken()
        listener = asyncio.create_task(listen(make_url(url), hub))  # type: ignore[arg-type]
        try:
            await asyncio.wait_for(hub.all.wait(), 10)  # listening
            conninfo = pg_conninfo(make_url(url))
            async with await psycopg.AsyncConnection.connect(conninfo, autocommit=True) as conn:
                for sent in (payload("mine"), "another-server:theirs"):
                    await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, sent))
            # The listener reads the notifications in the order they were sent: a wake for
            # "mine", were it coming, is in before the one for "theirs".
            deadline = asyncio.get_running_loop().time() + 10
            while "theirs" not in hub.tables and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.05)
            return hub.tables
        finally:
            listener.cancel()

    with postgres_database() as url:
        assert asyncio.run(scene(url)) == ["theirs"]


def test_processes_forked_after_import_do_not_share_an_origin() -> None:
    """Server processes forked from one that imported the server (a preloading process
    manager) each name themselves apart in their NOTIFYs, or they would skip each other's."""
    import os

    from d100.server.events import origin

    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child writes its origin and leaves at once
        os.write(write, origin().encode())
        os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    theirs = os.read(read, 100).decode()
    os.close(read)
    assert theirs and theirs != origin()


def test_every_stream_on_both_servers_gets_every_roll_made_through_either(
    servers: tuple[str, str, Path],
) -> None:
    """Several streams of one table on each server, rolls made through both in turn: each
    stream gives every roll once, in the log's order (a process's own streams handed them by
    its writer, the other's through its notification)."""
    a, b, _ = servers
    with httpx.Client(base_url=a) as on_a, httpx.Client(base_url=b) as on_b:
        table = Api(on_a).table("brp")
        pat, sam = table.join("Pat"), table.join("Sam")
        alice = table.character(pat, "Alice")
        start = table.ok("GET", "", pat)["table"]["last_seq"]
        through = [table, Table(Api(on_b), table.id, "brp", table.gm, table.invite)]
        with contextlib.ExitStack() as stack:
            streams = [
                stack.enter_context(Stream(base, table.id, token, start))
                for base in (a, b)
                for token in (table.gm, pat, sam)
            ]
            made = [through[i % 2].roll(pat, alice, "stealth")["seq"] for i in range(6)]
            for stream in streams:
                assert [stream.next()[1] for _ in made] == made


def test_a_table_deleted_on_one_server_closes_its_streams_on_the_other(
    servers: tuple[str, str, Path],
) -> None:
    """Deleted through A: B's streams of the table are told and closed, and B, which had
    seen its members' tokens, refuses them."""
    a, b, _ = servers
    with httpx.Client(base_url=a) as on_a, httpx.Client(base_url=b) as on_b:
        table = Api(on_a).table("brp")
        pat = table.join("Pat")
        via_b = Table(Api(on_b), table.id, "brp", table.gm, table.invite)
        start = via_b.ok("GET", "", pat)["table"]["last_seq"]  # B knows Pat's token now
        with Stream(b, table.id, pat, start) as player, Stream(b, table.id, table.gm, start) as gm:
            assert table.req("DELETE", "", table.gm).status_code == 204
            for stream in (player, gm):
                kind, _, data = stream.next()
                assert kind == "denied" and data["error"]["field"] == "token"
                with pytest.raises(EOFError):
                    stream.next()
        for token in (pat, table.gm):
            assert via_b.req("GET", "", token).status_code == 401


def test_a_player_revoked_on_one_server_is_shut_out_on_the_other(
    servers: tuple[str, str, Path],
) -> None:
    a, b, _ = servers
    with httpx.Client(base_url=a) as on_a, httpx.Client(base_url=b) as on_b:
        table = Api(on_a).table("brp")
        sam = table.join("Sam")
        via_b = Table(Api(on_b), table.id, "brp", table.gm, table.invite)
        me = via_b.ok("GET", "", sam)
        with Stream(b, table.id, sam, me["table"]["last_seq"]) as stream:
            table.ok("POST", f"/members/{me['me']['id']}/revoke", table.gm)
            kind, _, data = stream.next()
            assert kind == "denied" and data["error"]["field"] == "token"
        assert via_b.req("GET", "", sam).status_code == 401
        assert via_b.ok("GET", "", table.gm)["table"]["id"] == table.id  # the GM plays on
