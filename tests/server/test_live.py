"""The live log over Server-Sent Events, against a real ``d100 serve`` process: each
connection sees only what its token may see; a reconnect resumes with no gap and no repeat."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import httpx
import pytest

from d100.server.access import Viewer
from d100.server.live import SWEEP, Hub, Texts

from .services import serve
from .sse import Stream
from .tablehelp import Api, Table

# a real server's live streams: CI's, not the development loop's (make quick)
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    where: Path = tmp_path_factory.mktemp("live")
    with serve(f"sqlite:///{where / 'd100.sqlite3'}", where / "server.log") as url:
        yield url


@pytest.fixture
def table(base: str) -> Iterator[Table]:
    with httpx.Client(base_url=base) as client:
        yield Api(client).table("brp")


VIEWER = Viewer("m", "t", "player", "Pat", frozenset())


def test_stream_sends_history_then_live_events(base: str, table: Table) -> None:
    pat = table.join("Pat")
    alice = table.character(pat, "Alice")
    with Stream(base, table.id, pat) as stream:
        history = [stream.next() for _ in range(3)]  # table, join, character
        assert [e[2]["kind"] for e in history] == ["table", "join", "character"]
        assert [e[1] for e in history] == [1, 2, 3]
        made = table.roll(pat, alice, "stealth")
        _kind, seq, data = stream.next()
        assert seq == made["seq"] == 4 and data["result"] == made["result"]


def test_resume_has_no_gap_and_no_repeat(base: str, table: Table) -> None:
    pat = table.join("Pat")
    alice = table.character(pat, "Alice")
    for _ in range(3):
        table.roll(pat, alice, "stealth")
    with Stream(base, table.id, pat, last_id=4) as stream:
        seqs = [stream.next()[1] for _ in range(2)]
        table.roll(pat, alice, "dodge")
        seqs.append(stream.next()[1])
    assert seqs == [5, 6, 7]
    with Stream(base, table.id, pat, last_id=7) as stream:
        table.roll(pat, alice, "rifle")
        _kind, seq, data = stream.next()
        assert seq == 8 and data["skill"] == "rifle"


def test_each_stream_sees_only_what_its_token_may(base: str, table: Table) -> None:
    pat, sam = table.join("Pat"), table.join("Sam")
    alice = table.character(pat, "Alice")
    start = table.ok("GET", "", table.gm)["table"]["last_seq"]
    with (
        Stream(base, table.id, pat, start) as pat_stream,
        Stream(base, table.id, sam, start) as sam_stream,
        Stream(base, table.id, table.gm, start) as gm_stream,
    ):
        blind = table.roll(pat, alice, "stealth", visibility="blind")
        public = table.roll(pat, alice, "dodge")
        _, seq, gm_view = gm_stream.next()
        assert seq == blind["seq"] and "result" in gm_view
        _, seq, pat_view = pat_stream.next()
        assert seq == blind["seq"] and pat_view["hidden"] and "result" not in pat_view
        _, seq, sam_view = sam_stream.next()  # the blind roll reaches Sam as a stub only
        stub = {"seq", "kind", "hidden", "provable", "head"}  # the log's head after it too
        assert seq == blind["seq"] and set(sam_view) == stub
        assert sam_view["head"]["seq"] == seq == gm_view["head"]["seq"]
        assert sam_view["head"] == gm_view["head"] == pat_view["head"]  # one log for all
        _, seq, _sam_view = sam_stream.next()
        assert seq == public["seq"]


def test_a_secret_call_reaches_a_member_outside_it_as_a_stub(base: str, table: Table) -> None:
    pat, sam = table.join("Pat"), table.join("Sam")
    alice = table.character(pat, "Alice")
    start = table.ok("GET", "", table.gm)["table"]["last_seq"]
    with (
        Stream(base, table.id, pat, start) as pat_stream,
        Stream(base, table.id, sam, start) as sam_stream,
    ):
        call = table.ok(
            "POST",
            "/calls",
            table.gm,
            201,
            json={
                "skill": "spot",
                "hazard": "the floor gives",
                "character_ids": [alice],
                "visibility": "gm",
            },
        )
        table.ok("POST", f"/calls/{call['id']}/cancel", table.gm)
        for kind in ("call", "cancel"):
            assert pat_stream.next()[2]["call"]["hazard"] == "the floor gives", kind
            _, _, sam_view = sam_stream.next()
            assert set(sam_view) == {"seq", "kind", "hidden", "head"}
            assert sam_view["kind"] == "hidden"


def test_revoked_stream_is_told_and_closed(base: str, table: Table) -> None:
    sam = table.join("Sam")
    start = table.ok("GET", "", sam)["table"]["last_seq"]
    sam_id = table.ok("GET", "", sam)["me"]["id"]
    with Stream(base, table.id, sam, start) as stream:
        table.ok("POST", f"/members/{sam_id}/revoke", table.gm)
        kind, _, data = stream.next()
        assert kind == "denied" and data["error"]["field"] == "token"
        with pytest.raises(EOFError):
            stream.next()


def test_streams_woken_together_are_each_answered_alone(base: str, table: Table) -> None:
    # One commit wakes every stream of its table and one read serves them all: each still
    # reads from its own place, as its own token may see, and a revoked one is told alone.
    pat, sam = table.join("Pat"), table.join("Sam")
    alice = table.character(pat, "Alice")
    start = table.ok("GET", "", sam)["table"]["last_seq"]
    sam_id = table.ok("GET", "", sam)["me"]["id"]
    first = table.roll(pat, alice, "stealth")["seq"]
    with (
        Stream(base, table.id, pat, start) as behind,
        Stream(base, table.id, pat, first) as ahead,
        Stream(base, table.id, sam, start) as revoked,
        Stream(base, table.id, table.gm, first) as gm,
    ):
        assert behind.next()[1] == first
        assert revoked.next()[1] == first
        table.ok("POST", f"/members/{sam_id}/revoke", table.gm)
        kind, _, data = revoked.next()
        assert kind == "denied" and data["error"]["field"] == "token"
        gone = [s.next()[1] for s in (behind, ahead, gm)]
        assert len(set(gone)) == 1 and gone[0] > first
        blind = table.roll(pat, alice, "dodge", visibility="blind")
        views = [s.next() for s in (behind, ahead, gm)]
        assert [seq for _, seq, _ in views] == [blind["seq"]] * 3
        assert "result" not in views[0][2] and "result" not in views[1][2]
        assert "result" in views[2][2]  # the GM sees a blind roll's result; its roller not


def test_stream_refuses_a_bad_token(base: str, table: Table) -> None:
    r = httpx.get(
        f"{base}/api/tables/{table.id}/events/stream", headers={"authorization": "Bearer nope"}
    )
    assert r.status_code == 401 and r.json()["error"]["field"] == "token"


def test_a_member_s_streams_are_capped(base: str, table: Table) -> None:
    """Each open stream holds a connection and wakes on every event: a member may hold a few
    (tabs, devices), not a flood; one closed frees its place."""
    from d100.server.live import STREAMS_PER_MEMBER

    sam = table.join("Sam")
    streams = [Stream(base, table.id, sam) for _ in range(STREAMS_PER_MEMBER)]
    try:
        for stream in streams:
            assert stream.response.status_code == 200
        with Stream(base, table.id, sam) as extra:
            assert extra.response.status_code == 429
        with Stream(base, table.id, table.gm) as other:  # another member: their own places
            assert other.response.status_code == 200
        streams.pop().close()
        deadline = time.monotonic() + 10
        while True:  # the closed stream ends once the server notices the disconnect
            with Stream(base, table.id, sam) as again:
                if again.response.status_code == 200:
                    break
            assert time.monotonic() < deadline, "a closed stream never freed its place"
            time.sleep(0.2)
    finally:
        for stream in streams:
            stream.close()


def test_the_hub_forgets_members_whose_streams_ended_without_sweeping_on_every_open() -> None:
    """The map of members' streams stays within twice the members with a stream open, and an
    open does not walk the whole map each time (that made opening n streams cost n²)."""
    hub = Hub()

    async def body() -> AsyncIterator[str]:
        yield ""

    held = [body() for _ in range(10)]
    for n, stream in enumerate(held):
        assert hub.open_stream(f"kept{n}", stream)
    walked = 0
    real_items = dict.items

    class Counting(dict):  # type: ignore[type-arg]
        def items(self):  # type: ignore[no-untyped-def]
            nonlocal walked
            walked += len(self)
            return real_items(self)

    hub._streams = Counting(hub._streams)
    for n in range(1000):  # each opens one stream and drops it at once
        assert hub.open_stream(f"gone{n}", body())
    assert len(hub._streams) <= 2 * max(SWEEP, 10) + 1
    assert walked <= 2 * 1000  # entries visited: a few per open, not the map on every open
    assert all(hub._streams[f"kept{n}"] for n in range(10))


def test_an_idle_stream_s_heartbeat_reads_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A heartbeat is a comment line, with no read of the log: a thousand idle streams opened
    together read it a thousand times at once every heartbeat. A wake still reads."""
    import asyncio

    from d100.server import live

    monkeypatch.setattr(live, "HEARTBEAT", 0.02)
    hub = Hub()
    reads: list[int] = []

    async def read(store: object, table: str, token: object, after: int) -> Texts:
        reads.append(after)
        return [], after, VIEWER

    monkeypatch.setattr(hub, "read", read)

    async def scene() -> list[str]:
        lines: list[str] = []
        body = live.stream(None, hub, "t", "token", 0)  # type: ignore[arg-type]

        async def take() -> None:
            async for line in body:
                lines.append(line)

        def beats() -> int:
            return sum(line == ": still here\n\n" for line in lines)

        async def until(ready: Callable[[], bool], what: str) -> None:
            give_up = time.monotonic() + 30  # only a failing run waits this long
            while not ready():
                assert time.monotonic() < give_up, what
                await asyncio.sleep(0.01)

        task = asyncio.create_task(take())
        await until(lambda: beats() >= 5, "the idle stream never beat")  # many heartbeats
        assert reads == [0]
        hub.wake_all()  # as the listener does on another process's notification
        await until(lambda: len(reads) > 1, "the wake never read")
        beaten = beats()
        await until(lambda: beats() >= beaten + 2, "the stream stopped beating")
        task.cancel()
        return lines

    asyncio.run(scene())
    assert reads == [0, 0]  # the first read, then the wake's, and none by the heartbeats


def test_streams_opened_together_beat_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each stream's first heartbeat comes at its own share of the period (half of it to
    all of it), so a thousand streams opened at once never beat in one turn of the loop; a
    stream draws its share as it opens."""
    import asyncio
    import itertools

    from d100.server import live

    first = [list(itertools.islice(live.beats(p), 3)) for p in (0.0, 0.5, 1.0)]
    h = live.HEARTBEAT
    assert first == [[h / 2, h, h], [h * 0.75, h, h], [h, h, h]]
    monkeypatch.setattr(live, "HEARTBEAT", 0.4)
    hub = Hub()

    async def read(store: object, table: str, token: object, after: int) -> Texts:
        return [], after, VIEWER

    monkeypatch.setattr(hub, "read", read)

    async def scene() -> list[str]:
        beaten: list[str] = []

        async def listen(name: str, phase: float) -> None:
            body = live.stream(None, hub, "t", "token", 0, lambda: phase)  # type: ignore[arg-type]
            async for line in body:
                if line.startswith(":"):
                    beaten.append(name)

        tasks = [asyncio.create_task(listen(n, p)) for n, p in (("late", 1.0), ("early", 0.0))]
        while len(beaten) < 3:
            await asyncio.sleep(0.01)
        for task in tasks:
            task.cancel()
        return beaten

    # at 0.2 s, 0.4 s and 0.6 s: the loop runs timers in their order, however late it is
    assert asyncio.run(scene())[:3] == ["early", "late", "early"]
