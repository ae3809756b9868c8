"""Verifiable dice: commit to a secret server seed, derive every die from it, reveal it later.

Each draw is HMAC-SHA256(server seed, "client seed:nonce:index"), read as a 64-bit integer and
accepted only below the largest multiple of the range (rejection sampling, so no value is more
likely than another); a rejected draw moves on to the next index. Anyone holding the revealed
seed can recompute every die.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

SPACE = 1 << 64


def commitment(server_seed: bytes) -> str:
    """What is published before any roll: SHA-256 of the server seed, hex."""
    return hashlib.sha256(server_seed).hexdigest()


def word(server_seed: bytes, client_seed: str, nonce: int, index: int) -> int:
    message = f"{client_seed}:{nonce}:{index}".encode()
    return int.from_bytes(hmac.new(server_seed, message, hashlib.sha256).digest()[:8], "big")


@dataclass
class ProvableSource:
    """A random source (``randint``) for one roll: ``nonce`` numbers the roll in its session,
    ``index`` counts the HMAC words it has used."""

    server_seed: bytes
    client_seed: str
    nonce: int
    index: int = 0

    def randint(self, a: int, b: int, /) -> int:
        span = b - a + 1
        limit = SPACE - SPACE % span
        while True:
            x = word(self.server_seed, self.client_seed, self.nonce, self.index)
            self.index += 1
            if x < limit:
                return a + x % span


def replay_draws(
    server_seed: bytes, client_seed: str, nonce: int, ranges: list[tuple[int, int]]
) -> list[int]:
    """The values a roll with these draw ranges must have produced, in order."""
    source = ProvableSource(server_seed, client_seed, nonce)
    return [source.randint(low, high) for low, high in ranges]
