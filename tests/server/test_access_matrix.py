"""Access control as a matrix: every route of the app x every role x every roll visibility.

The routes are read from the app itself, so a new endpoint without an entry here fails the
test. A table holds rolls in every visibility by a player and by the GM, checks, contests and
called tests; every answer any role gets (lists, single reads, exports, the live stream, error
messages) is searched for the result of every roll that role must not see, and every event
list for events that role must not see at all. The expectations are written out below, not
read from ``access.py``, so the two can disagree.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.routing import Mount, Route

from d100.server.app import create_app
from d100.server.guard import Limits
from tests.conftest import FIGURES

from .described import APP
from .services import free_port
from .tablehelp import Api, bearer, token_of

GM, ROLLER, OTHER, STRANGER, ANONYMOUS = "gm", "roller", "other", "stranger", "anonymous"
ROLES = (GM, ROLLER, OTHER, STRANGER, ANONYMOUS)
MEMBERS = (GM, ROLLER, OTHER)
VISIBILITIES = ("public", "gm", "blind", "self")
UNLIMITED = Limits(burst=10**9, per_second=10**9)
SHEET = """name = "{name}"
system = "brp"
luck = {{ current = 3, maximum = 5 }}
skills = {{ probe = 10, dodge = 30 }}
"""


def serve_in_thread(app: FastAPI) -> Iterator[str]:
    """The app under uvicorn on a free port in this process (the live stream needs a real
    server); stopped on exit."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@dataclass
class Roll:
    seq: int
    visibility: str
    roller: str
    markers: set[str]  # every explanation in the result: unique per roll (see World.roll)
    shown: bool = False  # a blind roll the GM has shown to everyone (a new, public event)


def sees_result(role: str, roll: Roll) -> bool:
    v = roll.visibility
    return role in MEMBERS and (
        v == "public"
        or (v == "gm" and role in (GM, roll.roller))
        or (v == "self" and role == roll.roller)
        or (v == "blind" and role == GM)
    )


def may_know(role: str, roll: Roll) -> bool:
    return sees_result(role, roll) or (roll.shown and role in MEMBERS)


def sees_event(role: str, roll: Roll) -> bool:
    return sees_result(role, roll) or (roll.visibility == "blind" and role == roll.roller)


def explanations(value: Any) -> set[str]:
    if isinstance(value, dict):
        found = {value["explanation"]} if isinstance(value.get("explanation"), str) else set()
        return found.union(*(explanations(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(explanations(v) for v in value))
    return set()


@dataclass
class World:
    client: httpx.Client
    table: str
    tokens: dict[str, str | None]
    member_ids: dict[str, str]
    invite: str
    alice: str  # the roller's character
    bob: str  # the other player's
    orc: str  # the GM's
    ann: str  # the roller's second character
    rolls: list[Roll] = field(default_factory=list)
    modifier: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    leaks: list[str] = field(default_factory=list)
    checks: int = 0

    def call(
        self,
        role: str,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = "",
        **kw: Any,
    ) -> httpx.Response:
        """As ``role``, with its token at the world's table (``token``: another's, or None)."""
        token = self.tokens[role] if token == "" else token
        headers = bearer(token) if token else {}
        return self.client.request(method, path, headers=headers, json=body, **kw)

    def ok(self, role: str, method: str, path: str, body: Any = None) -> Any:
        r = self.call(role, method, path, body)
        assert r.status_code < 300, r.text
        return r.json() if r.content else None

    def at(self, path: str = "") -> str:
        return f"/api/tables/{self.table}{path}"

    def roll_body(
        self, role: str, visibility: str, contest: bool = False, at_skill: bool = False
    ) -> dict[str, Any]:
        """A check with a modifier no other roll has, so its explanation belongs to this roll
        alone; ``at_skill`` takes it back again (+n, -n), so the target stays the skill's."""
        character = self.orc if role == GM else self.alice
        n = next(self.modifier)
        actor = {
            "character_id": character,
            "skill": "probe",
            "fields": {"modifiers": [n, -n] if at_skill else [n]},
        }
        body: dict[str, Any] = {"actor": actor, "visibility": visibility}
        if contest:
            # A player contests only a sheet they read, their own second character; the GM
            # opposes the Orc in any mode the GM sees, else Alice's player's Ann.
            opponent = self.ann if visibility == "self" or role != GM else self.orc
            body["opponent"] = {"character_id": opponent, "skill": "dodge"}
        return body

    def record(self, role: str, answer: dict[str, Any]) -> None:
        """Put a roll just made in the ledger, its result read by whoever may see it."""
        roll = Roll(answer["seq"], answer["visibility"], role, set())
        seer = role if sees_result(role, roll) else GM
        view = (
            answer
            if seer == role
            else next(
                e
                for e in self.ok(GM, "GET", self.at(f"/events?after={roll.seq - 1}"))
                if e["seq"] == roll.seq
            )
        )
        roll.markers = explanations(view["result"])
        assert roll.markers, view
        self.rolls.append(roll)

    def roll(
        self, role: str, visibility: str, contest: bool = False, at_skill: bool = False
    ) -> dict[str, Any]:
        answer: dict[str, Any] = self.ok(
            role, "POST", self.at("/rolls"), self.roll_body(role, visibility, contest, at_skill)
        )
        self.record(role, answer)
        return answer

    def declared_body(self, visibility: str) -> dict[str, Any]:
        """A dice roll for the roller's character with a constant no other roll has, so its
        explanation (``1d100 (42) + 7 = 49``) belongs to this roll alone."""
        words = f"1d100+{next(self.modifier)}"
        return {"words": words, "character_id": self.alice, "visibility": visibility}

    def declared(self, role: str, visibility: str) -> None:
        """A dice roll (``/declared-rolls``) in the ledger, as any roll."""
        body = self.declared_body(visibility)
        self.record(role, self.ok(role, "POST", self.at("/declared-rolls"), body))

    def check(self, role: str, text: str, where: str, events: list[int] | None = None) -> None:
        """No result of a roll ``role`` may not see is in ``text``; no event it may not see
        is in ``events``."""
        seen = set().union(*(r.markers for r in self.rolls if may_know(role, r)))
        for roll in self.rolls:
            if may_know(role, roll):
                continue
            self.checks += 1
            for marker in roll.markers - seen:
                if marker in text:
                    self.leaks.append(f"{where} as {role}: result of {roll}: {marker!r}")
            if events is not None and not sees_event(role, roll) and roll.seq in events:
                self.leaks.append(f"{where} as {role}: event {roll.seq} ({roll.visibility})")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    where: Path = tmp_path_factory.mktemp("matrix")
    app = create_app(f"sqlite:///{where / 'd100.sqlite3'}", limits=UNLIMITED)
    for base in serve_in_thread(app):
        with httpx.Client(base_url=base, timeout=20) as client:
            yield build_world(client)


def build_world(client: httpx.Client) -> World:
    def new_table(name: str) -> tuple[str, str, str]:
        r = client.post("/api/tables", json={"name": name, "system": "brp", "gm_name": "Gina"})
        assert r.status_code == 201, r.text
        body = r.json()
        client.cookies.clear()
        return body["table"]["id"], token_of(body["gm_link"]), token_of(body["invite_link"])

    def join(invite: str, name: str) -> str:
        r = client.post("/api/join", json={"invite": invite, "name": name})
        assert r.status_code == 201, r.text
        client.cookies.clear()
        return token_of(r.json()["rejoin_link"])

    table, gm, invite = new_table("The Keep")
    _other_table, _, other_invite = new_table("Elsewhere")
    tokens: dict[str, str | None] = {
        GM: gm,
        ROLLER: join(invite, "Pat"),
        OTHER: join(invite, "Sam"),
        STRANGER: join(other_invite, "Zed"),
        ANONYMOUS: None,
    }
    w = World(client, table, tokens, {}, invite, "", "", "", "")
    for role in MEMBERS:
        w.member_ids[role] = w.ok(role, "GET", w.at())["me"]["id"]
    w.alice, w.bob, w.orc, w.ann = (
        w.ok(role, "POST", w.at("/characters"), {"sheet": SHEET.format(name=name)})["id"]
        for role, name in ((ROLLER, "Alice"), (OTHER, "Bob"), (GM, "Orc"), (ROLLER, "Ann"))
    )
    for visibility in VISIBILITIES:
        w.roll(ROLLER, visibility)
        w.roll(GM, visibility)
        w.roll(ROLLER, visibility, contest=True)
        w.declared(ROLLER, visibility)
        w.declared(GM, visibility)  # the GM's roll for the roller's character
        # A called test is rolled in the mode the GM chose.
        call = w.ok(
            GM,
            "POST",
            w.at("/calls"),
            {
                "skill": "probe",
                "fields": {"modifiers": [next(w.modifier)]},
                "character_ids": [w.alice],
                "visibility": visibility,
            },
        )
        body = {"actor": {"character_id": w.alice}, "target_id": call["targets"][0]["id"]}
        w.record(ROLLER, w.ok(ROLLER, "POST", w.at("/rolls"), body))
    return w


# -- the matrix -------------------------------------------------------------------------------

Expect = dict[str, int]
Build = Callable[[World, str, str], tuple[str, Any]]  # (world, role, visibility) -> path, body


def everyone(status: int) -> Expect:
    return dict.fromkeys(ROLES, status)


def members(gm: int, roller: int | None = None, other: int | None = None) -> Expect:
    roller = gm if roller is None else roller
    return {
        GM: gm,
        ROLLER: roller,
        OTHER: roller if other is None else other,
        STRANGER: 401,
        ANONYMOUS: 401,
    }


def gm_only(status: int) -> Expect:
    return members(status, 403)


Seat = Callable[[World, str], tuple[str, str | None]]  # (world, role) -> table id, its token


@dataclass(frozen=True)
class Entry:
    build: Build
    expect: Expect
    per_visibility: bool = False  # the body names a visibility: try each
    # a case that ends its table: each role's at a fresh one, seated as at the world's
    seat: Seat | None = None


def fixed(path: str, body: Any = None) -> Build:
    return lambda w, role, v: (path.format(t=w.table), body)


def fresh_call(w: World) -> str:
    call = w.ok(GM, "POST", w.at("/calls"), {"skill": "probe", "character_ids": [w.alice]})
    target: str = call["targets"][0]["id"]
    return target


def fresh_name(w: World, prefix: str) -> str:
    """A name nobody at the table has yet: names are unique per table."""
    return f"{prefix} {next(w.modifier)}"


def fresh_call_id(w: World) -> str:
    call = w.ok(GM, "POST", w.at("/calls"), {"skill": "probe", "character_ids": [w.alice]})
    call_id: str = call["id"]
    return call_id


def fresh_member(w: World) -> str:
    r = w.client.post("/api/join", json={"invite": w.invite, "name": fresh_name(w, "Victim")})
    w.client.cookies.clear()
    member_id: str = r.json()["me"]["id"]
    return member_id


def fresh_blind_roll(w: World) -> int:
    seq: int = w.roll(ROLLER, "blind")["seq"]
    return seq


def fresh_character(w: World) -> str:
    """A character of the roller's, made to be deleted."""
    sheet = SHEET.format(name=fresh_name(w, "Spare"))
    character_id: str = w.ok(ROLLER, "POST", w.at("/characters"), {"sheet": sheet})["id"]
    return character_id


def fresh_failure(w: World) -> int:
    """A public check the roller failed (probe 10, its modifiers cancelling out: the other
    rolls' growing modifiers would lift its target to 100 once enough were made)."""
    for _ in range(50):
        answer = w.roll(ROLLER, "public", at_skill=True)
        if not answer["result"]["success"]:
            seq: int = answer["seq"]
            return seq
    raise AssertionError("no failure in 50 rolls at 10%")


def fresh_table(w: World, role: str) -> tuple[str, str | None]:
    """A table of its own, with the role in its seat there: its GM, a player who joined by
    its invite, or (a stranger, anyone signed out) with the token they have."""
    r = w.client.post("/api/tables", json={"name": "Doomed", "system": "brp"})
    w.client.cookies.clear()
    made = r.json()
    table_id, token = made["table"]["id"], token_of(made["gm_link"])
    if role in (ROLLER, OTHER):
        invite = token_of(made["invite_link"])
        joined = w.client.post("/api/join", json={"invite": invite, "name": "Pat"})
        w.client.cookies.clear()
        token = token_of(joined.json()["rejoin_link"])
    return table_id, token if role in MEMBERS else w.tokens[role]


def marked(w: World, role: str, path: str) -> str:
    """``path``, the roller's character marked for improvement first (a public check it
    succeeded) where the GM asks, so the party has something to roll."""
    for _ in range(50 if role == GM else 0):
        if w.roll(ROLLER, "public")["result"]["success"]:
            break
    return path


def sign_in(w: World, role: str, v: str) -> tuple[str, Any]:
    return "/api/session", {"token": w.tokens[role] or "not-a-token"}


def table_path(path: str, body: Callable[[World, str], Any] | None = None) -> Build:
    return lambda w, role, v: (w.at(path.format(w=w)), None if body is None else body(w, v))


MATRIX: dict[tuple[str, str], Entry] = {
    ("GET", "/"): Entry(fixed("/"), everyone(200)),
    ("GET", "/join"): Entry(fixed("/join"), everyone(200)),
    ("GET", "/odds"): Entry(fixed("/odds"), everyone(200)),
    ("GET", "/t/{table_id}"): Entry(fixed("/t/{t}"), everyone(200)),
    ("GET", "/static"): Entry(fixed("/static/app.css"), everyone(200)),
    ("GET", "/openapi.json"): Entry(fixed("/openapi.json"), everyone(200)),
    ("GET", "/docs"): Entry(fixed("/docs"), everyone(200)),
    ("GET", "/docs/oauth2-redirect"): Entry(fixed("/docs/oauth2-redirect"), everyone(200)),
    ("GET", "/redoc"): Entry(fixed("/redoc"), everyone(200)),
    ("GET", "/health"): Entry(fixed("/health"), everyone(200)),
    ("GET", "/api/systems"): Entry(fixed("/api/systems"), everyone(200)),
    ("POST", "/api/odds"): Entry(fixed("/api/odds", {"system": "brp", "skill": 50}), everyone(200)),
    ("POST", "/api/odds/chart"): Entry(
        fixed("/api/odds/chart", {"request": {"system": "brp", "skill": 50}}), everyone(200)
    ),
    ("POST", "/api/tables"): Entry(
        fixed("/api/tables", {"name": "Scratch", "system": "brp"}), everyone(201)
    ),
    ("POST", "/api/session"): Entry(sign_in, {**everyone(200), ANONYMOUS: 401}),
    ("POST", "/api/invitation"): Entry(
        lambda w, role, v: ("/api/invitation", {"invite": w.invite}), everyone(200)
    ),
    ("POST", "/api/join"): Entry(
        lambda w, role, v: ("/api/join", {"invite": w.invite, "name": fresh_name(w, "Newcomer")}),
        everyone(201),
    ),
    ("DELETE", "/api/tables/{table_id}/session"): Entry(table_path("/session"), everyone(204)),
    ("GET", "/api/tables/{table_id}"): Entry(table_path(""), members(200)),
    # the GM alone deletes it; a stranger's answer is an unknown table's
    ("DELETE", "/api/tables/{table_id}"): Entry(table_path(""), gm_only(204), seat=fresh_table),
    ("POST", "/api/tables/{table_id}/invite"): Entry(table_path("/invite"), gm_only(200)),
    ("POST", "/api/tables/{table_id}/members/{member_id}/revoke"): Entry(
        lambda w, role, v: (w.at(f"/members/{fresh_member(w)}/revoke"), None), gm_only(200)
    ),
    ("PUT", "/api/tables/{table_id}/me/client-seed"): Entry(
        table_path("/me/client-seed", lambda w, v: {"client_seed": "my own seed"}), members(200)
    ),
    ("POST", "/api/tables/{table_id}/seeds/rotate"): Entry(
        table_path("/seeds/rotate"), gm_only(200)
    ),
    ("POST", "/api/tables/{table_id}/characters"): Entry(
        table_path(
            "/characters", lambda w, v: {"sheet": SHEET.format(name=fresh_name(w, "Extra"))}
        ),
        members(201),
    ),
    ("PUT", "/api/tables/{table_id}/characters/{character_id}"): Entry(
        table_path("/characters/{w.alice}", lambda w, v: {"sheet": SHEET.format(name="Alice")}),
        members(200, 200, 403),
    ),
    ("PATCH", "/api/tables/{table_id}/characters/{character_id}"): Entry(
        table_path("/characters/{w.alice}", lambda w, v: {"skills": {"dodge": 30}}),
        members(200, 200, 403),
    ),
    ("DELETE", "/api/tables/{table_id}/characters/{character_id}"): Entry(
        lambda w, role, v: (w.at(f"/characters/{fresh_character(w)}"), None),
        members(200, 200, 403),
    ),
    ("GET", "/api/tables/{table_id}/characters/{character_id}/sheet"): Entry(
        table_path("/characters/{w.alice}/sheet"), members(200, 200, 403)
    ),
    ("DELETE", "/api/tables/{table_id}/characters/{character_id}/marks"): Entry(
        table_path("/characters/{w.alice}/marks"), gm_only(200)
    ),
    ("POST", "/api/tables/{table_id}/characters/{character_id}/reveal"): Entry(
        table_path("/characters/{w.alice}/reveal"), gm_only(201)
    ),
    ("POST", "/api/tables/{table_id}/characters/{character_id}/aim"): Entry(
        table_path("/characters/{w.alice}/aim", lambda w, v: {"action": "aim"}),
        members(200, 200, 403),
    ),
    ("POST", "/api/tables/{table_id}/odds"): Entry(
        lambda w, role, v: (
            w.at("/odds"),
            {"actor": {"character_id": w.alice, "skill": "probe"}, "visibility": v},
        ),
        # Odds and advice tell the sheet's skills and Luck: its player's and the GM's only.
        members(200, 200, 403),
        per_visibility=True,
    ),
    # Every role tries to roll for the roller's character: the GM and the roller may.
    ("POST", "/api/tables/{table_id}/rolls"): Entry(
        lambda w, role, v: (w.at("/rolls"), {**w.roll_body(ROLLER, v), "visibility": v}),
        members(201, 201, 403),
        per_visibility=True,
    ),
    # Dice for the roller's character: the GM and the roller may (a Sanity roll is the same
    # route at a table whose rules have one: tests/server/test_session_rolls.py).
    ("POST", "/api/tables/{table_id}/declared-rolls"): Entry(
        lambda w, role, v: (w.at("/declared-rolls"), w.declared_body(v)),
        members(201, 201, 403),
        per_visibility=True,
    ),
    # Their odds before the roll tell what the sheet gives it: whoever may roll it only.
    ("POST", "/api/tables/{table_id}/declared-odds"): Entry(
        lambda w, role, v: (w.at("/declared-odds"), w.declared_body(v)),
        members(200, 200, 403),
        per_visibility=True,
    ),
    # The whole party's development phase is the GM's (rule: XP-1): a mark made first.
    ("POST", "/api/tables/{table_id}/party-development/odds"): Entry(
        lambda w, role, v: (w.at(marked(w, role, "/party-development/odds")), {}), gm_only(200)
    ),
    ("POST", "/api/tables/{table_id}/party-development"): Entry(
        lambda w, role, v: (w.at(marked(w, role, "/party-development")), {}), gm_only(201)
    ),
    ("POST", "/api/tables/{table_id}/rolls/{seq}/unblind"): Entry(
        lambda w, role, v: (w.at(f"/rolls/{fresh_blind_roll(w)}/unblind"), None), gm_only(201)
    ),
    # Only its roller may spend Luck on a failed check (rule: BRP7).
    ("POST", "/api/tables/{table_id}/rolls/{seq}/reroll"): Entry(
        lambda w, role, v: (w.at(f"/rolls/{fresh_failure(w)}/reroll"), None),
        members(403, 201, 403),
    ),
    ("POST", "/api/tables/{table_id}/calls"): Entry(
        lambda w, role, v: (
            w.at("/calls"),
            {"skill": "probe", "character_ids": [w.alice], "visibility": v},
        ),
        gm_only(201),
        per_visibility=True,
    ),
    ("POST", "/api/tables/{table_id}/calls/{call_id}/cancel"): Entry(
        lambda w, role, v: (w.at(f"/calls/{fresh_call_id(w)}/cancel"), None), gm_only(200)
    ),
    ("POST", "/api/tables/{table_id}/me/link"): Entry(table_path("/me/link"), members(200)),
    ("POST", "/api/tables/{table_id}/targets/{target_id}/decline"): Entry(
        lambda w, role, v: (w.at(f"/targets/{fresh_call(w)}/decline"), None), members(200, 200, 403)
    ),
    # A BRP table: no assistance rule (OQ11 and CH8 only), refused after sign-in.
    ("POST", "/api/tables/{table_id}/targets/{target_id}/assists"): Entry(
        lambda w, role, v: (
            w.at(f"/targets/{fresh_call(w)}/assists"),
            {"character_id": w.bob, "skill": "dodge"},
        ),
        members(422),
    ),
    ("POST", "/api/tables/{table_id}/rest"): Entry(table_path("/rest"), gm_only(200)),
    ("GET", "/api/tables/{table_id}/events"): Entry(table_path("/events"), members(200)),
    ("GET", "/api/tables/{table_id}/events/stream"): Entry(
        table_path("/events/stream"), members(200)
    ),
    ("GET", "/api/tables/{table_id}/log.jsonl"): Entry(table_path("/log.jsonl"), members(200)),
    # the ledger counts only what its member sees (its numbers are checked in
    # test_ledger_route.py; here, no hidden roll's words are in it)
    ("GET", "/api/tables/{table_id}/ledger"): Entry(table_path("/ledger"), members(200)),
}


def app_routes(app: FastAPI) -> set[tuple[str, str]]:
    """Every (method, path) the app answers: its routes, those of included routers (FastAPI
    keeps them behind ``original_router``) and, as a cross-check, the OpenAPI paths."""
    out = {(m.upper(), path) for path, ops in app.openapi()["paths"].items() for m in ops}
    pending = list(app.routes)
    while pending:
        route = pending.pop()
        if isinstance(route, Mount):
            out.add(("GET", route.path))
        elif isinstance(route, APIRoute | Route):
            out |= {(m, route.path) for m in (route.methods or ()) if m != "HEAD"}
        else:
            pending.extend(getattr(route, "original_router", route).routes)
    return out


# An event its viewer may not see; ``head``: the log's head after it (its number and link);
# ``chain`` (an export's): its link and its content's digest, nothing of it opened.
STUB_KEYS = {"seq", "kind", "hidden", "provable", "head", "chain"}


def event_seqs(body: Any) -> list[int]:
    """The events listed with more than their stub; a stub must hold no more than its number
    and, for a roll, its seed and nonce."""
    out = []
    for e in body:
        if not (isinstance(e, dict) and "seq" in e):
            continue
        if e.get("kind") == "hidden":
            assert set(e) <= STUB_KEYS and set(e.get("provable", {})) <= {"seed_id", "nonce"}, e
            assert set(e.get("head", {})) <= {"seq", "link"}, e
            assert set(e.get("chain", {"proof": {"digest": ""}})["proof"]) == {"digest"}, e
        else:
            out.append(e["seq"])
    return out


def log(w: World, role: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in w.call(role, "GET", w.at("/log.jsonl")).text.splitlines()]


def read_stream(w: World, role: str, path: str) -> tuple[int, str, list[int]]:
    """The stream's status, and for a member its text and the events it shows (more than
    their stubs) up to the last event this role's log export holds."""
    expected = [e["seq"] for e in log(w, role)] if role in MEMBERS else []
    token = w.tokens[role]
    headers = bearer(token) if token else {}
    with w.client.stream("GET", path, headers=headers) as r:
        if r.status_code != 200:
            r.read()
            return r.status_code, r.text, []
        text, seqs, views = [], [], []
        for line in r.iter_lines():
            text.append(line)
            if line.startswith("id: "):
                seqs.append(int(line[4:]))
            if line.startswith("data: ") and seqs:
                views.append(json.loads(line[6:]))
                if seqs[-1] >= expected[-1]:
                    break
        assert seqs == expected, (role, seqs, expected)  # every event, a stub where hidden
        return 200, "\n".join(text), event_seqs(views)


@pytest.mark.slow
def test_every_route_every_role_every_visibility(
    world: World, record_property: Callable[[str, object], None]
) -> None:
    w = world
    routes = app_routes(APP)  # the routes of an app as the world's is made, described once
    assert set(MATRIX) == routes, (
        f"routes without a matrix entry: {sorted(routes - set(MATRIX))}; "
        f"entries for no route: {sorted(set(MATRIX) - routes)}"
    )
    combinations = 0
    for (method, template), entry in MATRIX.items():
        for role, visibility in itertools.product(
            ROLES, VISIBILITIES if entry.per_visibility else ("public",)
        ):
            where = f"{method} {template} [{visibility}]"
            path, body = entry.build(w, role, visibility)
            token = w.tokens[role]
            if entry.seat is not None:
                table_id, token = entry.seat(w, role)
                path = path.replace(w.table, table_id)
            combinations += 1
            if template.endswith("/events/stream"):
                status, text, seqs = read_stream(w, role, path)
                w.check(role, text, where, seqs)
            else:
                r = w.call(role, method, path, body, token)
                status, text = r.status_code, r.text
                lines = text.splitlines() if template.endswith(".jsonl") else []
                listed = (
                    event_seqs(r.json())
                    if template.endswith("/events")
                    else event_seqs([json.loads(x) for x in lines])
                    if lines
                    else None
                )
                w.check(role, text, where, listed)
                if status in (200, 201) and template.endswith(("/rolls", "/declared-rolls")):
                    w.record(role, r.json())
                if status == 201 and template.endswith("/unblind"):
                    shown = int(path.split("/")[-2])
                    next(r for r in w.rolls if r.seq == shown).shown = True
                if status == 200 and template.endswith(("/invite", "/revoke")):
                    w.invite = token_of(r.json()["invite_link"])  # revoking renews it
            assert status == entry.expect[role], f"{where} as {role}: {status} {text[:300]}"
    # Every member's export lists every event it may see: hiding everything would pass above.
    for role in MEMBERS:
        shown = {e["seq"]: e for e in log(w, role)}
        assert {r.seq for r in w.rolls if sees_event(role, r)} <= set(shown)
        for roll in w.rolls:
            if sees_event(role, roll):
                assert ("result" in shown[roll.seq]) == sees_result(role, roll), (role, roll)
        # its ledger counts no roll it may not know, and mentions none hidden from it
        book = w.call(role, "GET", w.at("/ledger")).json()
        unknown = {r.seq for r in w.rolls if not may_know(role, r)}
        assert not set(book["seqs"]) & unknown, (role, book["seqs"], unknown)
        assert set(book["seqs"]) <= set(shown), (role, book["seqs"])
        told = {s for left in book["left_out"] for s in left["seqs"]}
        assert told <= set(shown), (role, told)
    record_property(
        FIGURES,
        f"access matrix: {len(routes)} routes x {len(ROLES)} roles, "
        f"{combinations} requests, {len(w.rolls)} rolls in "
        f"{len(VISIBILITIES)} visibilities, {w.checks} body x hidden-roll checks, "
        f"leaks found: {len(w.leaks)}",
    )
    assert not w.leaks, "\n".join(w.leaks)


def test_ids_cannot_be_guessed_or_probed(world: World) -> None:
    """Ids carry 72 random bits; an unknown id and another table's id get the same answer, and
    so do a missing table and a table one is not at."""
    w = world
    for some_id in (w.table, w.alice, w.bob, w.orc, *w.member_ids.values()):
        assert len(some_id) >= 12  # secrets.token_urlsafe(9): 72 bits
    elsewhere = w.call(STRANGER, "POST", "/api/session", {"token": w.tokens[STRANGER]}).json()
    foreign = w.ok(
        STRANGER,
        "POST",
        f"/api/tables/{elsewhere['table_id']}/characters",
        {"sheet": SHEET.format(name="Zara")},
    )["id"]

    def answer(path: str, role: str = GM) -> tuple[int, dict[str, Any]]:
        r = w.call(role, "GET", path)
        body = r.json()["error"]
        return r.status_code, {k: v for k, v in body.items() if k != "value"}

    missing = answer(w.at("/characters/AAAAAAAAAAAA/sheet"))
    assert missing[0] == 404 and answer(w.at(f"/characters/{foreign}/sheet")) == missing
    assert answer("/api/tables/AAAAAAAAAAAA", STRANGER) == answer(w.at(), STRANGER)
    assert answer(w.at(), STRANGER)[0] == 401

    def deleting(path: str, role: str) -> tuple[int, Any]:
        r = w.call(role, "DELETE", path)
        return r.status_code, r.json()

    for role in (STRANGER, ANONYMOUS):  # deleting tells no more than reading
        assert deleting(w.at(), role) == deleting("/api/tables/AAAAAAAAAAAA", role)
        assert deleting(w.at(), role) == (401, w.call(role, "GET", w.at()).json())


def test_a_hidden_roll_changes_nothing_its_non_seers_read(tmp_path: Path) -> None:
    """Improvement marks follow success (BRP) and a Luck reroll is spent only on failure: on a
    sheet that someone who may not see the roll can read, either would tell them how it went."""
    with TestClient(create_app(f"sqlite:///{tmp_path / 'd100.sqlite3'}")) as client:
        table = Api(client).table("brp", settings={"improvement": "success"})
        pat = table.join("Pat")
        alice = table.character(pat, "Alice")

        def sheet(token: str) -> dict[str, Any]:
            found: dict[str, Any] = next(
                c for c in table.ok("GET", "", token)["characters"] if c["id"] == alice
            )
            return found

        before = sheet(table.gm)
        # Pat rolls for themselves only: the GM must not learn the outcome from the sheet.
        table.roll(pat, alice, "stealth", visibility="self", actor={"dice": [1]})
        refused = table.roll(
            pat,
            alice,
            "stealth",
            422,
            visibility="self",
            actor={"dice": [99, 1], "fields": {"luck_rerolls": 1}},
        )
        assert refused["error"]["field"] == "actor.fields.luck_rerolls"
        after = sheet(table.gm)
        # The GM rolls Alice's skill for the GM's eyes: Pat must not learn it either.
        table.roll(table.gm, alice, "dodge", visibility="gm", actor={"dice": [1]})
        assert (after["marks"], after["luck"]) == (before["marks"], before["luck"])
        assert "dodge" not in sheet(pat)["marks"]
