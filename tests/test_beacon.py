"""drand quicknet rounds: recorded ones verify offline, altered ones do not; the seed mix."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from pathlib import Path

import pytest

from d100 import beacon
from d100.errors import D100Error

pytest.importorskip("pyblst")

RECORDED = json.loads(
    (Path(__file__).parent / "references" / "data" / "drand-quicknet.json").read_text()
)
ROUNDS = [beacon.Round(r["round"], r["signature"]) for r in RECORDED["rounds"]]


def test_the_recording_is_of_quicknet() -> None:
    assert RECORDED["chain"] == beacon.CHAIN_HASH
    assert RECORDED["public_key"] == beacon.PUBLIC_KEY
    assert (RECORDED["genesis_time"], RECORDED["period"]) == (beacon.GENESIS, beacon.PERIOD)


@pytest.mark.parametrize("round_", ROUNDS, ids=lambda r: str(r.number))
def test_recorded_rounds_verify(round_: beacon.Round) -> None:
    assert beacon.verify(round_)


def test_randomness_is_the_hash_of_the_signature() -> None:
    published = next(r for r in RECORDED["rounds"] if "randomness" in r)
    round_ = beacon.Round(published["round"], published["signature"])
    assert round_.randomness.hex() == published["randomness"]


@pytest.mark.parametrize("at", [0, 1, 20, 47])
def test_a_flipped_byte_fails(at: int) -> None:
    signature = bytearray(bytes.fromhex(ROUNDS[2].signature))
    signature[at] ^= 0x01
    assert not beacon.verify(beacon.Round(ROUNDS[2].number, signature.hex()))


@pytest.mark.parametrize("other", [-1, 1, 1000])
def test_the_wrong_round_fails(other: int) -> None:
    round_ = ROUNDS[3]
    assert not beacon.verify(beacon.Round(round_.number + other, round_.signature))


def test_another_rounds_signature_fails() -> None:
    assert not beacon.verify(beacon.Round(ROUNDS[0].number, ROUNDS[1].signature))


def test_one_verification_is_bounded() -> None:
    """The cost stated in d100.beacon (about 2 ms a round): well under 50 ms here."""
    start = time.perf_counter()
    for round_ in ROUNDS:
        beacon.verify(round_)
    assert (time.perf_counter() - start) / len(ROUNDS) < 0.05


def test_round_times() -> None:
    assert beacon.round_time(1) == beacon.GENESIS
    assert beacon.round_time(3) == beacon.GENESIS + 6
    # the first round published strictly after a moment
    assert beacon.round_after(beacon.GENESIS - 100) == 1
    assert beacon.round_after(beacon.GENESIS) == 2
    assert beacon.round_after(beacon.GENESIS + 2.9) == 2
    assert beacon.round_after(beacon.GENESIS + 3) == 3
    for t in (beacon.GENESIS + 0.5, 1_765_000_000.25, 1_800_000_001):
        assert beacon.round_time(beacon.round_after(t)) > t
        assert beacon.round_time(beacon.round_after(t) - 1) <= t


def test_the_mix() -> None:
    server_seed = bytes(range(32))
    randomness = ROUNDS[3].randomness
    mixed = beacon.mixed(server_seed, randomness)
    label = b"d100 beacon round randomness:"
    assert mixed == hmac.new(server_seed, label + randomness, hashlib.sha256).digest()
    assert mixed != server_seed and len(mixed) == 32
    assert beacon.mixed(server_seed, ROUNDS[2].randomness) != mixed
    assert beacon.mixed(bytes(32), randomness) != mixed


def test_round_of_reads_a_logged_round() -> None:
    record = ROUNDS[0].to_dict()
    assert beacon.round_of(record) == ROUNDS[0]
    with pytest.raises(D100Error) as err:
        beacon.round_of({**record, "chain": "8990e7a9"}, "line 4.revealed.beacon")
    assert err.value.field == "line 4.revealed.beacon.chain"
    with pytest.raises(D100Error) as err:
        beacon.round_of({**record, "signature": record["signature"][:-2]})
    assert err.value.field == "beacon.signature"
    with pytest.raises(D100Error) as err:
        beacon.round_of({**record, "round": True})
    assert err.value.field == "beacon.round"
    with pytest.raises(D100Error):
        beacon.round_of([record])


def test_a_signature_not_on_the_curve_fails() -> None:
    assert not beacon.verify(beacon.Round(5, "00" * 48))
    assert not beacon.verify(beacon.Round(5, "c0" + "00" * 47))  # the point at infinity
