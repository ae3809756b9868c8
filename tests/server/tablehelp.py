"""A small client for the table API, used by the API, store and process tests."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import httpx

SHEETS = {
    "brp": """name = "{name}"
system = "brp"
luck = {{ current = 3, maximum = 5 }}
skills = {{ stealth = 65, "spot hidden" = 50, rifle = 40, dodge = 30 }}
""",
    "openquest": """name = "{name}"
system = "openquest"
skills = {{ stealth = 60, perception = 45, athletics = 100 }}
""",
    "chances": """name = "{name}"
system = "chances"
skills = {{ sneaking = 40, hearing = 30 }}
abilities = {{ dex = 10, per = 5 }}
uses = {{ sneaking = "dex", hearing = "per" }}
""",
}


def token_of(link: str) -> str:
    return link.split("#", 1)[1]


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


class Api:
    def __init__(self, client: httpx.Client) -> None:
        self.client = client

    def table(self, system: str = "brp", **extra: Any) -> Table:
        r = self.client.post(
            "/api/tables", json={"name": "The Keep", "system": system, "gm_name": "Gina", **extra}
        )
        assert r.status_code == 201, r.text
        body = r.json()
        self.client.cookies.clear()  # tests speak with bearer tokens, one per member
        return Table(
            self,
            body["table"]["id"],
            system,
            token_of(body["gm_link"]),
            token_of(body["invite_link"]),
        )


@dataclass
class Table:
    api: Api
    id: str
    system: str
    gm: str
    invite: str

    def req(self, method: str, path: str, token: str | None, **kw: Any) -> httpx.Response:
        headers = {**(bearer(token) if token else {}), **kw.pop("headers", {})}
        return self.api.client.request(
            method, f"/api/tables/{self.id}{path}", headers=headers, **kw
        )

    def ok(self, method: str, path: str, token: str | None, status: int = 200, **kw: Any) -> Any:
        r = self.req(method, path, token, **kw)
        assert r.status_code == status, r.text
        return r.json() if r.content else None

    def join(self, name: str) -> str:
        r = self.api.client.post("/api/join", json={"invite": self.invite, "name": name})
        assert r.status_code == 201, r.text
        self.api.client.cookies.clear()
        return token_of(r.json()["rejoin_link"])

    def character(self, token: str, name: str, **extra: Any) -> str:
        sheet = SHEETS[self.system].format(name=name)
        body = self.ok("POST", "/characters", token, 201, json={"sheet": sheet, **extra})
        cid: str = body["id"]
        return cid

    def roll(
        self, token: str, character_id: str, skill: str | None, status: int = 201, **extra: Any
    ) -> Any:
        """Roll a check; ``skill`` None when answering a called test (it names the skill)."""
        actor = {"character_id": character_id, **extra.pop("actor", {})}
        if skill is not None:
            actor["skill"] = skill
        return self.ok("POST", "/rolls", token, status, json={"actor": actor, **extra})

    def events(self, token: str, after: int = 0) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = self.ok("GET", f"/events?after={after}", token)
        return out


def unused_address(version: int = 4) -> str:
    """A client address no other test uses (what a quota counts, in a database tests share):
    an IPv4 address in 10/8, or an IPv6 /64 prefix in 2001:db8::/32 (add "::1")."""
    if version == 4:
        return "10." + ".".join(str(b) for b in secrets.token_bytes(3))
    return "2001:db8:" + ":".join(secrets.token_hex(2) for _ in range(2))
