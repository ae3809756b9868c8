"""Discord's side of the endpoint, made in the test: a signing key, signed payloads and a
client posting them, so every test runs without Discord."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from itertools import count
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient

from d100.discord.interactions import APPLICATION_COMMAND, AUTOCOMPLETE, PING

APP = "100000000000000001"
GUILD = "200000000000000002"
_ids = count(300000000000000000)


@dataclass
class Discord:
    """Signs as Discord does: Ed25519 over the timestamp and the raw body."""

    key: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)

    @property
    def public_hex(self) -> str:
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        return self.key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()

    def headers(self, body: bytes, at: float | None = None) -> dict[str, str]:
        stamp = str(int(time.time() if at is None else at))
        signature = self.key.sign(stamp.encode() + body).hex()
        return {
            "x-signature-ed25519": signature,
            "x-signature-timestamp": stamp,
            "content-type": "application/json",
        }

    def post(self, client: TestClient, payload: dict[str, Any], at: float | None = None) -> Any:
        body = json.dumps(payload).encode()
        return client.post("/discord/interactions", content=body, headers=self.headers(body, at))


def payload(
    kind: int,
    data: dict[str, Any] | None = None,
    user: str = "400000000000000004",
    guild: str | None = GUILD,
    name: str = "Alice",
    id: str | None = None,
    permissions: int = 0,
) -> dict[str, Any]:
    """An interaction by ``user`` (in a guild's channel: a member with ``permissions`` there,
    Discord's bitfield, which it sends as a string)."""
    out: dict[str, Any] = {
        "id": id or str(next(_ids)),
        "type": kind,
        "application_id": APP,
        "token": "interaction-token-" + (id or "x"),
        "version": 1,
    }
    who = {"id": user, "username": name.lower(), "global_name": name}
    if guild is None:
        out["user"] = who
    else:
        member = {"user": who, "permissions": str(permissions)}
        out |= {"guild_id": guild, "channel_id": "500000000000000005", "member": member}
    if data is not None:
        out["data"] = data
    return out


def ping() -> dict[str, Any]:
    return payload(PING)


def command(
    name: str, words: str, secret: bool | None = None, system: str | None = None, **kw: Any
) -> dict[str, Any]:
    options: list[dict[str, Any]] = [{"name": "words", "type": 3, "value": words}]
    if system is not None:
        options.append({"name": "system", "type": 3, "value": system})
    if secret is not None:
        options.append({"name": "secret", "type": 5, "value": secret})
    return payload(
        APPLICATION_COMMAND, {"id": "1", "name": name, "type": 1, "options": options}, **kw
    )


def autocomplete(name: str, typed: str, system: str | None = None) -> dict[str, Any]:
    options: list[dict[str, Any]] = [{"name": "words", "type": 3, "value": typed, "focused": True}]
    if system is not None:
        options.append({"name": "system", "type": 3, "value": system})
    return payload(AUTOCOMPLETE, {"id": "1", "name": name, "type": 1, "options": options})
