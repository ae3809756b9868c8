"""Discord's request signatures: Ed25519 over the timestamp header followed by the raw body,
with the application's public key (hex, from the developer portal). Discord probes a new
endpoint with bad signatures and refuses it unless those are answered 401."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

MAX_AGE = 300  # seconds: a signed request older (or newer) than this is a replay, refused


class BadSignature(Exception):
    """Why a request is refused (401): no, a malformed or a wrong signature, or stale."""


@dataclass(frozen=True)
class Verifier:
    """Checks requests for one application's public key."""

    key: Ed25519PublicKey
    max_age: float = MAX_AGE
    clock: Callable[[], float] = time.time

    @classmethod
    def from_hex(cls, public_key: str, max_age: float = MAX_AGE) -> Verifier:
        try:
            raw = bytes.fromhex(public_key.strip())
            return cls(Ed25519PublicKey.from_public_bytes(raw), max_age)
        except ValueError as err:
            raise ValueError(
                f"D100_DISCORD_PUBLIC_KEY: not an Ed25519 public key in hex (64 digits): {err}"
            ) from None

    def verify(self, signature: str | None, timestamp: str | None, body: bytes) -> None:
        """Return when ``body`` was signed by the application's key at ``timestamp`` (the
        ``X-Signature-Ed25519`` and ``X-Signature-Timestamp`` headers), within ``max_age``
        of now; else raise ``BadSignature``. The signature is checked first: the timestamp
        is believed only once it is signed."""
        if not signature or not timestamp:
            raise BadSignature("no signature")
        try:
            sig = bytes.fromhex(signature)
            self.key.verify(sig, timestamp.encode("latin-1") + body)
        except (ValueError, InvalidSignature):
            raise BadSignature("bad signature") from None
        try:
            at = float(timestamp)
        except ValueError:
            raise BadSignature("unreadable timestamp") from None
        if not abs(self.clock() - at) <= self.max_age:
            raise BadSignature("stale timestamp")
