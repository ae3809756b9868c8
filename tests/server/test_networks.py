"""The listener's caps per address, per network (/24, /64) and in all, and the room it makes:
past a network's share or the cap, the oldest connection in no request that never carried a
member's request is shut for the newcomer, a member's never; with none to shut the newcomer
is told 429 or 503. Real sockets on loopback (any 127.x is this machine), no server."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator

import pytest

from d100.server.serving import Listener, listen, network_of, per_network_cap

GIVE_UP = 30.0  # only a failing run waits this long


def test_networks_are_the_24s_and_the_64s() -> None:
    assert network_of("203.0.113.7") == "203.0.113.0/24"
    assert network_of("::ffff:203.0.113.7") == "203.0.113.0/24"
    assert network_of("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert network_of("2001:db8:1:2:ffff::9") == network_of("2001:db8:1:2::1")
    assert network_of("2001:db8:1:3::1") != network_of("2001:db8:1:2::1")
    assert network_of("fe80::1%eth0") == "fe80::/64"


def test_connections_per_network_from_the_environment() -> None:
    assert per_network_cap({}) == 256
    assert per_network_cap({"D100_MAX_CONNECTIONS_PER_NETWORK": "12"}) == 12
    for bad in ("0", "-1", "many", "1.5"):
        with pytest.raises(ValueError, match="D100_MAX_CONNECTIONS_PER_NETWORK"):
            per_network_cap({"D100_MAX_CONNECTIONS_PER_NETWORK": bad})


@contextlib.contextmanager
def listening(cap: int, per_address: int, per_network: int) -> Iterator[Listener]:
    listener = listen("127.0.0.1", 0, cap, per_address, per_network=per_network)
    try:
        yield listener
    finally:
        for connection in list(listener.connections.values()):
            connection.close()
        listener.close()


class Client:
    """A client socket from ``host``, and the server's side of it once accepted (None when
    the listener answered and closed it)."""

    def __init__(self, listener: Listener, host: str) -> None:
        self.sock = socket.socket()
        self.sock.bind((host, 0))
        self.sock.settimeout(GIVE_UP)
        self.sock.connect(listener.getsockname()[:2])
        self.accepted: socket.socket | None = None
        deadline = time.monotonic() + GIVE_UP
        refused = listener.refused
        while self.accepted is None and listener.refused == refused:
            assert time.monotonic() < deadline, "never accepted nor refused"
            with contextlib.suppress(BlockingIOError):
                self.accepted, _ = listener.accept()

    def told(self) -> bytes:
        """What the server sent before closing (b"": shut with nothing said)."""
        out = b""
        while chunk := self.sock.recv(4096):
            out += chunk
        return out

    def open(self) -> bool:
        self.sock.setblocking(False)
        try:
            return self.sock.recv(1) != b""
        except BlockingIOError:
            return True
        finally:
            self.sock.settimeout(GIVE_UP)


def status(told: bytes) -> int:
    return int(told.split(b" ", 2)[1])


def test_a_networks_silent_connections_make_way_for_a_member() -> None:
    """Ten addresses of one /24 holding silent connections past its share: each newcomer
    shuts the network's oldest silent one, so the member gets in from the same /24; once
    vouched for (a member's request) the member's connection is never shut."""
    with listening(cap=100, per_address=4, per_network=8) as listener:
        silent = [Client(listener, f"127.0.0.{10 + i}") for i in range(8)]
        assert all(c.accepted for c in silent)
        member = Client(listener, "127.0.0.1")
        assert member.accepted is not None
        assert member.accepted.network == "127.0.0.0/24"  # type: ignore[attr-defined]
        assert silent[0].told() == b"" and all(c.open() for c in silent[1:])
        member.accepted.vouch()  # type: ignore[attr-defined]
        more = [Client(listener, f"127.0.0.{30 + i}") for i in range(12)]
        assert all(c.accepted for c in more)
        assert member.open()
        assert listener.open == 8 and listener.evicted == 13 and listener.refused == 0
        # another /24 has a share of its own
        other = Client(listener, "127.0.1.1")
        assert other.accepted is not None and listener.evicted == 13


def test_a_network_of_members_and_requests_refuses_the_newcomer_429() -> None:
    """Nothing to shut (every connection a member's or in a request): the newcomer is told
    429 for its network, and the connections held stay open."""
    with listening(cap=100, per_address=4, per_network=3) as listener:
        held = [Client(listener, f"127.0.0.{10 + i}") for i in range(3)]
        held[0].accepted.vouch()  # type: ignore[union-attr]
        held[1].accepted.vouch()  # type: ignore[union-attr]
        held[2].accepted.requests = 1  # type: ignore[union-attr]  # a body on its way
        late = Client(listener, "127.0.0.99")
        assert late.accepted is None
        told = late.told()
        assert status(told) == 429 and b"from one network" in told
        assert b"retry-after: 1" in told.lower()
        assert all(c.open() for c in held)


def test_one_address_past_its_share_is_refused_not_made_room_for() -> None:
    with listening(cap=100, per_address=2, per_network=50) as listener:
        first = [Client(listener, "127.0.0.5") for _ in range(2)]
        third = Client(listener, "127.0.0.5")
        assert third.accepted is None and status(third.told()) == 429
        assert all(c.open() for c in first)


def test_past_the_cap_the_heaviest_network_makes_room() -> None:
    """The cap in all (6): the newcomer from a third network shuts the oldest silent one of
    the network holding the most, never a member's; with none left to shut, 503."""
    with listening(cap=6, per_address=4, per_network=4) as listener:
        light = [Client(listener, "127.0.2.1"), Client(listener, "127.0.2.2")]
        heavy = [Client(listener, f"127.0.1.{i}") for i in range(1, 5)]
        newcomer = Client(listener, "127.0.3.1")
        assert newcomer.accepted is not None
        assert heavy[0].told() == b"" and all(c.open() for c in [*light, *heavy[1:]])
        for c in [*light, *heavy[1:], newcomer]:
            c.accepted.vouch()  # type: ignore[union-attr]
        late = Client(listener, "127.0.4.1")
        assert late.accepted is None
        told = late.told()
        assert status(told) == 503 and b"retry-after: 1" in told.lower()
        assert listener.open == 6


def test_connections_closing_to_make_room_are_bounded() -> None:
    """Shut connections keep their files till closed: with ``evicting_at_once`` of them not
    yet closed and no room, the newcomer waits in the kernel's queue (the loop's next turn
    closes them), neither refused nor made room for."""
    with listening(cap=2, per_address=4, per_network=2) as listener:
        held = [Client(listener, f"127.0.5.{i}") for i in range(1, 3)]
        listener.evicting = listener.evicting_at_once
        # Full: the newcomer waits in the kernel's queue for the loop's next turn.
        late = socket.create_connection(listener.getsockname()[:2])
        with pytest.raises(BlockingIOError):
            listener.accept()
        listener.evicting = 0  # the shut ones closed: room is made again
        with contextlib.closing(late):
            assert listener.accept()[0] is not None and held[0].told() == b""
