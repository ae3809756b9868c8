"""Dice no one can choose: a seed bound to a future round of a public randomness beacon.

A server seed committed before its rolls can still have been chosen by whoever runs the server
(tried against the rolls it would give, before committing). When a table binds its seeds to
the beacon, each seed's commitment also names a round of drand's quicknet published after the
commitment, and every draw uses ``mixed(server seed, that round's randomness)`` instead of the
server seed alone: the round's randomness is unknown to everyone until drand's League of
Entropy publishes it, so no one, the server's operator included, can pick the dice after
committing.

quicknet publishes a round every 3 seconds from its genesis; round ``r`` carries a BLS
signature on G1 (scheme ``bls-unchained-g1-rfc9380``) of ``SHA-256(r as 8 bytes, big-endian)``
by the chain's public key on G2, and its randomness is ``SHA-256(signature)``. Each round is
verifiable alone, offline, against the public key below: about 2 ms a round with ``pyblst``
(bindings for the blst library; the ``beacon`` extra), two Miller loops and one final
exponentiation, whatever the round.

Pure: no network here. The server fetches rounds (``d100.server.beacon``); ``d100 verify``
checks them from the log.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import Any

from .errors import D100Error

# drand quicknet, as its /info answers (https://api.drand.sh/52db9ba7.../info, and in the
# drand documentation, https://docs.drand.love): its chain hash, public key (G2, compressed),
# genesis time (Unix seconds of round 1) and period.
CHAIN = "quicknet"
CHAIN_HASH = "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971"
PUBLIC_KEY = (
    "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c"
    "8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb"
    "5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a"
)
SCHEME = "bls-unchained-g1-rfc9380"
GENESIS = 1692803367
PERIOD = 3
# RFC 9380 hash-to-curve domain separation for signatures on G1 (drand's, for this scheme)
DST = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
# the generator of G2, compressed (the BLS12-381 standard's)
G2_GENERATOR = (
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049"
    "334cf11213945d57e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051"
    "c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
)
SIGNATURE_HEX = re.compile(r"[0-9a-f]{96}")
# the label mixed with the round's randomness: a seed's draws are never the server seed's own
MIX_LABEL = b"d100 beacon round randomness:"
LATEST_ROUND = (1 << 63) - 1  # rounds are 64-bit; anything past this is no quicknet round


def round_time(round_number: int) -> int:
    """When quicknet publishes ``round_number`` (Unix seconds): round 1 at genesis."""
    return GENESIS + (round_number - 1) * PERIOD


def round_after(unix_seconds: float) -> int:
    """The first round published strictly after ``unix_seconds``: the one a seed committed at
    that moment names (its randomness did not exist yet)."""
    if unix_seconds < GENESIS:
        return 1
    return int((unix_seconds - GENESIS) // PERIOD) + 2


def message(round_number: int) -> bytes:
    """What round ``round_number`` signs (unchained: the round number alone)."""
    return hashlib.sha256(round_number.to_bytes(8, "big")).digest()


def randomness(signature: bytes) -> bytes:
    """A round's randomness: SHA-256 of its signature."""
    return hashlib.sha256(signature).digest()


def mixed(server_seed: bytes, round_randomness: bytes) -> bytes:
    """The seed a beacon-bound seed's draws use: HMAC-SHA256 keyed by the server seed over the
    round's randomness. Knowing one without the other tells nothing of it."""
    return hmac.new(server_seed, MIX_LABEL + round_randomness, hashlib.sha256).digest()


@dataclass(frozen=True)
class Round:
    """One quicknet round as a log records it: its number and signature (hex)."""

    number: int
    signature: str

    @property
    def randomness(self) -> bytes:
        return randomness(bytes.fromhex(self.signature))

    @property
    def time(self) -> int:
        return round_time(self.number)

    def to_dict(self) -> dict[str, Any]:
        return {"chain": CHAIN_HASH, "round": self.number, "signature": self.signature}


def round_of(record: Any, field: str = "beacon") -> Round:
    """A logged round (``{"chain", "round", "signature"}``), its form checked (not its
    signature: see ``verify``); D100Error naming ``field`` if it is not one."""
    if not isinstance(record, dict):
        raise D100Error(field, record, "a quicknet round: {chain, round, signature}", "not one")
    if record.get("chain") != CHAIN_HASH:
        raise D100Error(f"{field}.chain", record.get("chain"), CHAIN_HASH, "another chain")
    number = record.get("round")
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= LATEST_ROUND:
        raise D100Error(f"{field}.round", number, f"a round number, 1 to {LATEST_ROUND}")
    signature = record.get("signature")
    if not isinstance(signature, str) or not SIGNATURE_HEX.fullmatch(signature):
        raise D100Error(f"{field}.signature", signature, "a G1 signature: 96 lowercase hex digits")
    return Round(number, signature)


def verify(round_: Round) -> bool:
    """Whether ``round_.signature`` is quicknet's signature of round ``round_.number``:
    e(signature, G2) == e(H(message), public key), the signature checked to be a point of the
    G1 subgroup. About 2 ms (pyblst). ModuleNotFoundError (pyblst) without the beacon extra."""
    import pyblst  # type: ignore[import-untyped]  # the beacon extra; no type hints shipped

    try:
        signature = pyblst.BlstP1Element.uncompress(bytes.fromhex(round_.signature))
    except ValueError:  # not a point, or not in the subgroup
        return False
    hashed = pyblst.BlstP1Element.hash_to_group(message(round_.number), DST)
    key = pyblst.BlstP2Element.uncompress(bytes.fromhex(PUBLIC_KEY))
    generator = pyblst.BlstP2Element.uncompress(bytes.fromhex(G2_GENERATOR))
    return bool(
        pyblst.final_verify(
            pyblst.miller_loop(signature, generator), pyblst.miller_loop(hashed, key)
        )
    )


def named(round_number: int) -> dict[str, Any]:
    """How a commitment names the round its seed waits for."""
    return {"chain": CHAIN_HASH, "round": round_number}
