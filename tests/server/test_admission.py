"""Fair admission of table requests: places taken in turn across tables, a table's share
capped, a bounded wait, and no place lost to a request cancelled while it waited."""

from __future__ import annotations

import asyncio

from d100.server.admission import Admission


class Holder:
    """Requests that take a turn and hold it till told to go; the order they got in."""

    def __init__(self, admission: Admission) -> None:
        self.admission = admission
        self.order: list[str] = []
        self.go: dict[str, asyncio.Event] = {}

    def start(self, name: str, table: str) -> asyncio.Task[None]:
        self.go[name] = asyncio.Event()

        async def request() -> None:
            async with self.admission.turn(table):
                self.order.append(name)
                await self.go[name].wait()

        return asyncio.create_task(request())


async def settle() -> None:
    """Let every task run as far as it can (a lost place would hang a test: each has 5 s)."""
    for _ in range(5):
        await asyncio.sleep(0)


def test_a_table_with_many_waiting_waits_its_turn_behind_one_request_of_another() -> None:
    async def run() -> list[str]:
        held = Holder(Admission(at_once=2, per_group=2, waiting=10))
        tasks = [held.start(f"a{i}", "A") for i in range(6)]
        await settle()
        tasks.append(held.start("b0", "B"))
        tasks.append(held.start("c0", "C"))
        await settle()
        for name in ("a0", "a1", "a2", "b0", "a3", "c0", "a4", "a5"):
            if name in held.order:
                held.go[name].set()
                await settle()
        await asyncio.gather(*tasks)
        return held.order

    # A's two first fill the server; then the free places go round the tables waiting (A
    # waited first): B and C each get in behind one of A's, not behind all four of A's.
    assert asyncio.run(asyncio.wait_for(run(), 5)) == [
        "a0",
        "a1",
        "a2",
        "b0",
        "c0",
        "a3",
        "a4",
        "a5",
    ]


def test_a_table_holds_at_most_its_share_while_others_get_in_at_once() -> None:
    async def run() -> tuple[list[str], int]:
        admission = Admission(at_once=10, per_group=2, waiting=10)
        held = Holder(admission)
        tasks = [held.start(f"a{i}", "A") for i in range(4)]
        tasks += [held.start("b0", "B")]
        await settle()
        seen, in_flight = list(held.order), admission.in_flight
        for event in held.go.values():
            event.set()
        for _ in range(4):
            await settle()
            for event in held.go.values():
                event.set()
        await asyncio.gather(*tasks)
        return seen, in_flight

    seen, in_flight = asyncio.run(asyncio.wait_for(run(), 5))
    assert seen == ["a0", "a1", "b0"] and in_flight == 3


def test_a_table_s_wait_is_bounded_and_the_refusal_says_so() -> None:
    async def run() -> tuple[object, object]:
        admission = Admission(at_once=1, per_group=1, waiting=3)
        held = Holder(admission)
        tasks = [held.start(f"a{i}", "A") for i in range(4)]  # one in, three waiting
        await settle()
        refused, other = admission.refusal("A"), admission.refusal("B")
        for event in held.go.values():
            event.set()
        for _ in range(4):
            await settle()
        await asyncio.gather(*tasks)
        return refused, other

    refused, other = asyncio.run(asyncio.wait_for(run(), 5))
    assert other is None
    assert refused is not None and getattr(refused, "status", None) == 429
    assert "3 waiting per table" in str(getattr(refused, "allowed", ""))


def test_a_request_cancelled_while_waiting_or_as_admitted_holds_no_place() -> None:
    async def run() -> tuple[list[str], int]:
        admission = Admission(at_once=1, per_group=1, waiting=10)
        held = Holder(admission)
        first = held.start("a0", "A")
        await settle()
        waiting = held.start("a1", "A")
        admitted_late = held.start("a2", "A")
        last = held.start("a3", "A")
        await settle()
        waiting.cancel()  # gone before its turn
        await settle()
        held.go["a0"].set()  # a2's turn comes...
        await asyncio.sleep(0)
        admitted_late.cancel()  # ...and it is cancelled before it runs
        await settle()
        held.go["a3"].set()
        await asyncio.gather(first, last)
        for task in (waiting, admitted_late):
            assert task.cancelled()
        return held.order, admission.in_flight

    order, in_flight = asyncio.run(asyncio.wait_for(run(), 5))
    assert order == ["a0", "a3"] and in_flight == 0


def test_many_addresses_lookups_leave_members_requests_a_place_at_once() -> None:
    """The guard's turns: every address looking up made-up tokens at once takes at most a
    quarter of the server's threads together, so a member's table request is admitted at
    once, ahead of the addresses' waiting lookups."""
    from d100.server.guard import ANONYMOUS_AT_ONCE, server_turns

    async def run() -> tuple[list[str], int]:
        admission = server_turns()
        held = Holder(admission)
        tasks = [held.start(f"x{i}", f"address:10.0.{i}.1") for i in range(admission.at_once)]
        await settle()
        tasks.append(held.start("member", "table:A"))
        await settle()
        seen = list(held.order)
        for event in held.go.values():
            event.set()
        for _ in range(admission.at_once):
            await settle()
        await asyncio.gather(*tasks)
        return seen, admission.in_flight

    seen, in_flight = asyncio.run(asyncio.wait_for(run(), 5))
    assert len(seen) == ANONYMOUS_AT_ONCE + 1 and seen[-1] == "member"
    assert in_flight == 0
