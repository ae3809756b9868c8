"""Every event, every role, through Discord: a table played through signed interactions and
through its web page (mirrored to the channel) delivers to each Discord user (the GM, the
roller, another player, a removed member, a user who is no member) nothing their web view
withholds, in a channel message or its edits, a private reply, a follow-up, an embed, a
button's id, an autocomplete's choices or an error.

The web view is the policy (``access.decide``): what each member's ``/events`` and state show
is what they know. A roll's message (its title names its event) is held to that event's
views: a number or a text some member's view of it holds and the user's does not is withheld;
every message is held to the table's: a number none of the user's views shows. Numbers up to
10 and short texts are left out (every message has them), and so is a post's head (its
footer's log number and link digits) where the user's own log shows that head. The Ghoul
(the GM's, an NPC) has distinctive numbers (83, 87, 91), the web's dice are typed by hand,
and the server's seeds come from a counter, so the drawn dice are the same in every run."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import count
from typing import Any

import httpx
import pytest
import respx
from fastapi.testclient import TestClient
from sqlalchemy import select

from d100.discord import interactions
from d100.discord.calls import CALLED
from d100.discord.interactions import message
from d100.discord.ledgers import AS_CHANNEL, AS_YOU_SEE
from d100.discord.play import FOLLOW, SHOW_ALL, SHOW_ME, roll_view
from d100.discord.render import embed, failed_message, ledger_message
from d100.discord.router import Discord as Endpoint
from d100.discord.tables import REMOVED
from d100.errors import D100Error
from d100.ledger import ledger
from d100.render.ledger_views import ledger_card
from d100.render.view import pct
from d100.server.event_kinds import HIDDEN
from d100.server.guard import Buckets, Limits
from d100.server.models import ChannelPost
from d100.systems import REGISTRY

from .signing import APP, Discord, payload
from .test_play import click, drained, r
from .test_tables import CDN, GM, PLAYER, link, private, sheet, table_open

QUINN, REX, OLGA = "400000000000000055", "400000000000000066", "400000000000000077"
USERS = {"Gina": GM, "Pat": PLAYER, "Quinn": QUINN, "Rex": REX, "Olga": OLGA}
EVERYONE = frozenset(USERS)
CHANNEL = "500000000000000005"
VISIBILITIES = ("public", "gm", "blind", "self")
SKILL, LUCK, MOST = 83, 87, 91  # the Ghoul's (the GM's NPC)
NPC_DICE, PAT_DICE, HELPED_DICE, FOLLOW_DICE = 79, 96, 36, 68  # typed by hand on the web
SMALL = 10  # numbers up to this are in every message: not told apart
WORDS = 6  # texts shorter than this ("gm", "luck") are in every message too
# Keys whose numbers are no value of a roll or a sheet (ids, times, hashes, seeds).
NOT_VALUES = frozenset(
    {"at", "created_at", "rolled_at", "revealed_at", "commitment", "client_seed"}
    | {"server_seed", "engine", "invite_link", "link"}
)
# Keys of a Discord message whose numbers are Discord's protocol, not the table's.
PROTOCOL = frozenset({"type", "flags", "style", "color", "allowed_mentions"})
URL = re.compile(r"https?://\S+")
# A post's head, its footer's "log #12 · 1f2e3d4c" (``render.head_note``).
HEAD_NOTE = re.compile(r"log #(\d+) · ([0-9a-f]{8})")
FRACTION = re.compile(r"^(\d+)/(\d+)$")
_ids = count(600000000000000000)

LURK = "lurking"
CHARACTERS = "'s characters"  # a ledger's title: "Luck ledger of Pat's characters"
# A sheet's abilities and the ability each skill adds, where a system's sheets name them.
ABILITIES = {"chances": "abilities = {{ per = 4 }}\nuses = {{ {} }}\n"}
# What a check needs besides its skill, where a system asks for more (CH4's risk): its
# fields, and the words that say them.
ASKED = {"chances": ({"risk": "average"}, "average")}


def sheets(system: str) -> dict[str, str]:
    """Each user's character in ``system``: the Ghoul is the GM's, an NPC, with a skill of
    its own to oppose a player's with (``LURK``: its name is the GM's to say). Luck where
    the system's sheets have it; an ability for each skill where its sheets name one."""
    skill, declares = skill_of(system), REGISTRY.get(system).declares
    values = {"Ghoul": (SKILL, LUCK, MOST), "Ada": (47, 53, 59), "Bo": (38, 44, 46)}
    values["Cy"] = (29, 33, 36)
    out = {}
    for name, (s, luck, most) in values.items():
        skills = {skill: s} | ({LURK: SKILL} if name == "Ghoul" else {})
        listed = ", ".join(f'"{k}" = {v}' for k, v in skills.items())
        text = f'name = "{name}"\nsystem = "{system}"\nskills = {{ {listed} }}\n'
        if declares.luck is not None:
            text += f"luck = {{ current = {luck}, maximum = {most} }}\n"
        text += ABILITIES.get(system, "").format(", ".join(f'"{k}" = "per"' for k in skills))
        out[name] = text
    return out


def offers_follow_ups(system: str) -> bool:
    """Whether a failed check may offer its roller a follow-up (``Declaration.after``)."""
    declares = REGISTRY.get(system).declares
    return declares.follow_ups is not None or bool(declares.luck and declares.luck.reroll_field)


def skill_of(system: str) -> str:
    return {"openquest": "perception", "chances": "hearing"}.get(system, "spot hidden")


# -- what a web view shows ------------------------------------------------------------------


def numbers(value: Any, key: str = "", skip: frozenset[str] = NOT_VALUES) -> set[int]:
    """Every number in a JSON value, those in its words included ("61 vs 83"), and each exact
    probability ("83/100") as Discord shows it too ("83.00%"); not under ``skip``'s keys nor
    in ids, links or URLs."""
    if key in skip or key == "id" or key.endswith("_id") or isinstance(value, bool):
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, str):
        text = URL.sub(" ", value)
        found = {int(n) for n in re.findall(r"\d+", text)}
        fraction = FRACTION.match(text)
        if fraction and int(fraction[2]):
            found |= {int(n) for n in re.findall(r"\d+", pct(Fraction(text)))}
        return found
    if isinstance(value, dict):
        return set().union(*(numbers(v, k, skip) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(*(numbers(v, key, skip) for v in value))
    return set()


def strings(value: Any, key: str = "") -> set[str]:
    """Every text in a JSON value long enough to be told apart (an explanation, a skill's
    name, a follow-up's label), but for ids, links, times and hashes."""
    if key in NOT_VALUES or key == "id" or key.endswith("_id"):
        return set()
    if isinstance(value, str):
        return {value} if len(value) >= WORDS else set()
    if isinstance(value, dict):
        return set().union(*(strings(v, k) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(*(strings(v, key) for v in value))
    return set()


def text_of(value: Any) -> str:
    """A Discord message's words as they read (Markdown's escapes gone), its buttons' ids
    aside."""
    if isinstance(value, str):
        return value.replace("\\", "")
    if isinstance(value, dict):
        return "\n".join(text_of(v) for k, v in value.items() if k != "custom_id")
    if isinstance(value, list):
        return "\n".join(text_of(v) for v in value)
    return ""


def custom_ids(value: Any) -> list[str]:
    if isinstance(value, dict):
        own = [str(value["custom_id"])] if "custom_id" in value else []
        return own + [c for v in value.values() for c in custom_ids(v)]
    if isinstance(value, list):
        return [c for v in value for c in custom_ids(v)]
    return []


@dataclass(frozen=True)
class Withheld:
    """What a user's web view keeps from them: of each event (the numbers any member's view
    of it holds and theirs does not), and of the table (those their views show nowhere)."""

    events: dict[int, set[int]]
    anywhere: set[int]
    ids: set[str]  # what a button's id may name: the table, a called test
    texts: dict[int, set[str]]  # of each event: the texts any member's view of it holds
    unsaid: set[str]  # the texts any member's views hold and none of the user's
    # The log's heads the user's own log shows, as a post's footer gives them. A head is
    # public: every member's stream and log carry it on every event, stubs included, and its
    # link is a hash over salted commitments (``d100.chain``), telling nothing of any event.
    heads: set[tuple[int, str]]

    @classmethod
    def of(cls, user: str, shown: dict[str, list[Any]], ids: set[str]) -> Withheld:
        """From every member's views (``views``), each a state and a log."""
        return cls.every(shown, ids)[user]

    @classmethod
    def every(cls, shown: dict[str, list[Any]], ids: set[str]) -> dict[str, Withheld]:
        """What each member's web view withholds, from every member's views: each view's
        numbers and texts are read once, and each user's withheld are told apart from them."""
        # each member's views of the events they see (a stub tells nothing of its event)
        logs = {
            u: {e["seq"]: e for e in log if e["kind"] != HIDDEN} for u, (_, log) in shown.items()
        }
        said = {u: {seq: numbers(e) for seq, e in log.items()} for u, log in logs.items()}
        words = {u: {seq: strings(e) for seq, e in log.items()} for u, log in logs.items()}
        seqs = set().union(*logs.values())
        # what any member's view of each event holds
        any_said = {seq: set().union(*(n[seq] for n in said.values() if seq in n)) for seq in seqs}
        any_words = {
            seq: set().union(*(t[seq] for t in words.values() if seq in t)) for seq in seqs
        }
        whole = {u: numbers(views) for u, views in shown.items()}
        texts_of = {u: strings(views) for u, views in shown.items()}
        candidates = set().union(*whole.values()) | {SKILL, LUCK, MOST}
        all_texts = set().union(*texts_of.values())
        out = {}
        for user in shown:
            events = {
                seq: {n for n in any_said[seq] - said[user].get(seq, set()) if n > SMALL}
                for seq in seqs
            }
            texts = {seq: any_words[seq] - words[user].get(seq, set()) for seq in seqs}
            anywhere = {n for n in candidates - whole[user] if n > SMALL}
            unsaid = all_texts - texts_of[user]
            heads = {
                (e["head"]["seq"], e["head"]["link"][:8]) for e in shown[user][1] if "head" in e
            }
            out[user] = cls(events, anywhere, ids, texts, unsaid, heads)
        return out

    def unheaded(self, value: Any) -> Any:
        """``value`` without the heads it quotes that the user's log shows: their digits are
        a hash's, no value of the table. A head the user's log does not show stays in."""
        if isinstance(value, str):
            seen = lambda m: "" if (int(m[1]), m[2]) in self.heads else m[0]  # noqa: E731
            return HEAD_NOTE.sub(seen, value)
        if isinstance(value, dict):
            return {k: self.unheaded(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.unheaded(v) for v in value]
        return value

    def told(self, thing: Any) -> list[int | str]:
        """The withheld numbers and texts ``thing`` tells; a roll's message (its title names
        its event) is held to that event's views too."""
        thing = self.unheaded(thing)
        titles = [e.get("title", "") for e in thing.get("embeds") or ()]
        seqs = {int(n) for n in re.findall(r"#(\d+)", " ".join(titles))}
        kept = self.anywhere.union(*(self.events.get(seq, set()) for seq in seqs))
        told: list[int | str] = sorted(numbers(thing, skip=PROTOCOL | {"custom_id"}) & kept)
        words = text_of(thing)
        texts = self.unsaid.union(*(self.texts.get(seq, set()) for seq in seqs))
        return told + sorted(t for t in texts if t in words)


def leaks(delivered: Iterable[Any], withheld: Withheld) -> list[Any]:
    """What of ``delivered`` tells a withheld number, or has a button whose id holds more
    than the table's id, an event's number (every viewer sees those) and a follow-up's key,
    or a called test's id."""
    found = []
    for thing in delivered:
        told = withheld.told(thing)
        odd = [c for c in custom_ids(thing) if not _plain_id(c, withheld.ids)]
        if told or odd:
            found.append({"told": told, "ids": odd, "in": thing})
    return found


def _plain_id(custom: str, ids: set[str]) -> bool:
    parts = custom.split(":")
    if parts[0] == FOLLOW and len(parts) == 4:
        return parts[1] in ids and parts[2].isdigit() and parts[3].isidentifier()
    if parts[0] in (SHOW_ME, SHOW_ALL):  # a secret roll's: its number, which its stub shows
        return len(parts) == 3 and parts[1] in ids and parts[2].isdigit()
    return parts[0] == CALLED and len(parts) == 3 and parts[1] in ids and parts[2] in ids


# -- the table, played --------------------------------------------------------------------


@dataclass
class Table:
    """A channel's table, with what Discord delivered to each user so far."""

    client: TestClient
    discord: Discord
    endpoint: Endpoint
    system: str
    got: dict[str, list[Any]] = field(default_factory=lambda: {u: [] for u in USERS})
    tokens: dict[str, tuple[str, frozenset[str]]] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=lambda: {"post": 0, "edit": 0, "channel": 0})
    web: dict[str, str] = field(default_factory=dict)  # user: web token
    sent: dict[str, set[str]] = field(default_factory=dict)  # token: who saw its follow-ups
    table_id: str = ""
    ids: dict[str, str] = field(default_factory=dict)  # a character's name: its id

    def __post_init__(self) -> None:
        self.posted = respx.post(re.compile(rf".*/webhooks/{APP}/[^/]+$")).respond(
            200, json={"id": "1"}
        )
        self.edited = respx.patch(re.compile(rf".*/webhooks/{APP}/.*/messages/.*")).respond(
            200, json={}
        )
        self.channel = respx.post(re.compile(rf".*/channels/{CHANNEL}/messages$")).respond(
            200, json={"id": "1"}
        )

    def deliver(self, audience: Iterable[str], body: Any) -> None:
        for user in audience:
            self.got[user].append(body)

    def act(
        self, user: str, sent: dict[str, Any], on: frozenset[str] | None = None
    ) -> dict[str, Any]:
        """An interaction by ``user`` (a click: on a message ``on`` sees), its answer and
        whatever the outbox sends for it, each delivered to whoever Discord shows it to."""
        uid = str(next(_ids))
        who = {"id": USERS[user], "username": user.lower(), "global_name": user}
        member = sent.get("member", {}) | {"user": who}  # with its permissions there
        sent |= {"id": uid, "token": f"token-{uid}", "member": member}
        self.tokens[sent["token"]] = (user, on or EVERYONE)
        answer = self.discord.post(self.client, sent)
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        data = body.get("data") or {}
        if body["type"] == interactions.MESSAGE:
            self.deliver({user} if private(data) else EVERYONE, data)
        elif body["type"] == interactions.CHOICES:
            self.deliver({user}, data)
        elif body["type"] == interactions.UPDATE:  # the message clicked, as it now is
            self.deliver(on or EVERYONE, data)
        drained(self.client, self.endpoint)
        self.webhooks()
        return body

    def webhooks(self) -> None:
        for name, route in (("post", self.posted), ("edit", self.edited)):
            for call in route.calls[self.seen[name] :]:
                url = str(call.request.url)
                token = url.split(f"/webhooks/{APP}/")[1].split("/")[0]
                user, on = self.tokens[token]
                body = json.loads(call.request.content)
                if name == "post":
                    audience = {user} if private(body) else EVERYONE
                    self.sent.setdefault(token, set()).update(audience)
                    self.deliver(audience, body)
                elif url.endswith("/@original"):  # the message clicked: whoever sees it
                    self.deliver(on, body)
                else:  # a message the interaction posted: whoever saw those
                    self.deliver(self.sent[token], body)
            self.seen[name] = len(route.calls)

    def mirrored(self) -> None:
        """The channel's posts of what the web made, once the sender has sent them all."""
        store = self.client.app.state.server.store  # type: ignore[attr-defined]
        deadline, due = time.monotonic() + 20, True
        while due and time.monotonic() < deadline:
            time.sleep(0.02)
            with store.read() as session:
                due = session.scalars(select(ChannelPost.id)).first() is not None
        assert not due, "the channel's posts were not all sent"
        for call in self.channel.calls[self.seen["channel"] :]:
            self.deliver(EVERYONE, json.loads(call.request.content))
        self.seen["channel"] = len(self.channel.calls)
        self.webhooks()  # the edits of messages whose follow-ups the page took

    def said(self, user: str, sent: dict[str, Any], on: frozenset[str] | None = None) -> Any:
        body = self.act(user, sent, on)
        assert body["type"] == interactions.MESSAGE, body
        return body["data"]

    def messages(self, user: str) -> list[dict[str, Any]]:
        return [m for m in self.got[user] if isinstance(m, dict) and "content" in m]

    # the web page's door
    def api(self, method: str, path: str, user: str, status: int = 200, **kw: Any) -> Any:
        headers = {"authorization": f"Bearer {self.web[user]}"}
        answer = self.client.request(
            method, f"/api/tables/{self.table_id}{path}", headers=headers, **kw
        )
        assert answer.status_code == status, answer.text
        return answer.json()

    def linked(self, user: str) -> None:
        url = next(w for w in self.said(user, link())["content"].split() if "/t/" in w)
        path, self.web[user] = url.split("#")
        self.table_id = path.rsplit("/", 1)[1]

    def character(self, name: str) -> str:
        """A character's id, asked of the table once (ids do not change)."""
        if name not in self.ids:
            found = self.api("GET", "", "Gina")["characters"]
            self.ids[name] = str(next(c["id"] for c in found if c["name"] == name))
        return self.ids[name]

    def web_roll(self, user: str, character: str, **body: Any) -> dict[str, Any]:
        actor = {"character_id": self.character(character)}
        if "target_id" not in body:  # a called test's skill and fields are the call's
            actor["skill"] = skill_of(self.system)
            actor["fields"] = dict(ASKED.get(self.system, ({}, ""))[0])
        actor |= body.pop("actor", {})
        made: dict[str, Any] = self.api("POST", "/rolls", user, 201, json={"actor": actor, **body})
        self.mirrored()
        return made

    def log(self, user: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        while True:
            batch = self.api("GET", f"/events?after={out[-1]['seq'] if out else 0}", user)
            if not batch:
                return out
            out += batch


def a_roll(system: str, character: str, visibility: str = "") -> dict[str, Any]:
    """``/r`` of the character's skill in the system, in that mode."""
    return r(character, skill_of(system), ASKED.get(system, ({}, ""))[1], visibility)


def buttons(message: dict[str, Any]) -> list[str]:
    return custom_ids(message.get("components") or [])


def a_call(system: str, characters: str, opponent: str = "") -> dict[str, Any]:
    """``/call`` of the system's skill for these characters, against ``opponent`` if any
    (a contest: its sides take no check's fields)."""
    skill, words = skill_of(system), "" if opponent else ASKED.get(system, ({}, ""))[1]
    options = [
        {"name": "skill", "type": 3, "value": skill},
        {"name": "characters", "type": 3, "value": characters},
    ]
    if words:
        options.append({"name": "words", "type": 3, "value": words})
    if opponent:
        options += [
            {"name": "opponent", "type": 3, "value": opponent},
            {"name": "opponent_skill", "type": 3, "value": LURK},
        ]
    data = {"id": "8", "name": "call", "type": 1, "options": options}
    return payload(interactions.APPLICATION_COMMAND, data)


def typing(command: str, focused: str, typed: str, **others: str) -> dict[str, Any]:
    options = [{"name": focused, "type": 3, "value": typed, "focused": True}]
    options += [{"name": k, "type": 3, "value": v} for k, v in others.items() if k != focused]
    data = {"id": "6", "name": command, "type": 1, "options": options}
    return payload(interactions.AUTOCOMPLETE, data)


@pytest.fixture(autouse=True)
def unlimited(endpoint: Endpoint) -> None:
    endpoint.buckets = Buckets(Limits(burst=10000, per_second=10000.0))


@pytest.fixture(autouse=True)
def same_dice(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seeds from a counter: the dice the server draws are the same in every run, so which
    numbers a view shows (and a drawn die that is also one of the Ghoul's) is too."""
    made = count()
    monkeypatch.setattr(
        "d100.server.gametables.new_seed",
        lambda: hashlib.sha256(f"seed {next(made)}".encode()).digest(),
    )
    monkeypatch.setattr(
        "d100.server.gametables.new_client_seed",
        lambda: hashlib.sha256(f"client {next(made)}".encode()).hexdigest()[:16],
    )


def seated(client: TestClient, discord: Discord, endpoint: Endpoint, system: str) -> Table:
    """The channel's table: Gina the GM with the Ghoul, Pat with Ada, Quinn with Bo, Rex
    with Cy; each with their web link."""
    table = Table(client, discord, endpoint, system)
    table.said("Gina", table_open(system))
    for user, name in (("Gina", "Ghoul"), ("Pat", "Ada"), ("Quinn", "Bo"), ("Rex", "Cy")):
        respx.get(CDN).mock(return_value=httpx.Response(200, text=sheets(system)[name]))
        table.said(user, sheet())
        table.linked(user)
    return table


def a_failure_offering(
    table: Table, user: str, character: str, visibility: str = ""
) -> dict[str, Any] | None:
    """A roll of the character's, rolled until its roller is offered a follow-up: their
    private message with its buttons (None if the system offers none)."""
    for _ in range(25 if offers_follow_ups(table.system) else 0):
        before = len(table.got[user])
        table.act(user, a_roll(table.system, character, visibility))
        offers = [m for m in table.got[user][before:] if isinstance(m, dict) and buttons(m)]
        if offers:
            return offers[-1]
    return None


def a_ledger(character: str = "", public: bool = False) -> dict[str, Any]:
    """``/ledger``, of the user's characters or one of them, posted to the channel if asked."""
    options: list[dict[str, Any]] = [{"name": "public", "type": 5, "value": public}]
    if character:
        options.append({"name": "character", "type": 3, "value": character})
    data = {"id": "8", "name": "ledger", "type": 1, "options": options}
    return payload(interactions.APPLICATION_COMMAND, data)


def ask_ledgers(table: Table) -> None:
    """The luck ledger, privately and posted, of one's characters and of one character; a
    removed member's and another's character's refused."""
    for user in USERS:
        table.act(user, typing("ledger", "character", ""))
        table.act(user, a_ledger())
        table.act(user, a_ledger(public=True))
    for user, name in (("Pat", "Ada"), ("Gina", "Ghoul"), ("Gina", "Ada"), ("Rex", "Cy")):
        table.act(user, a_ledger(name))
        table.act(user, a_ledger(name, public=True))
    table.act("Pat", a_ledger("Ghoul"))  # not Pat's: refused


def is_ledger(thing: Any) -> bool:
    embeds = thing.get("embeds") or () if isinstance(thing, dict) else ()
    return any(str(e.get("title", "")).startswith("Luck ledger of ") for e in embeds)


def ledger_as_the_web_shows(
    logs: dict[str, list[Any]], user: str, thing: dict[str, Any]
) -> dict[str, Any]:
    """The ledger message ``thing`` should be, from the user's own web view of the log (or,
    posted to the channel, from a player's of nothing: Olga's), as the library counts it;
    ``logs``: each member's log, as their page shows it once the ledgers were asked."""
    whose = thing["embeds"][0]["title"].removeprefix("Luck ledger of ")
    public = not private(thing)
    events = [e for e in logs["Olga" if public else user] if e["kind"] != HIDDEN]
    if whose.endswith(CHARACTERS):
        member = whose.removesuffix(CHARACTERS)
        try:
            book = ledger(events, member=member)
        except D100Error:  # a member the log names nowhere: none of their rolls
            book = ledger([], member=member)
        view = ledger_card(book).to_dict() | {"title": f"Luck ledger of {whose}"}
    else:
        view = ledger_card(ledger(events, character=whose)).to_dict()
    return ledger_message(view, AS_CHANNEL if public else AS_YOU_SEE, not public)


def play(table: Table) -> None:
    """Every kind of event, through Discord and through the page."""
    system, skill = table.system, skill_of(table.system)
    declares = REGISTRY.get(system).declares
    # Discord: a player's and the NPC's rolls in every mode
    stubs = []
    for visibility in VISIBILITIES:
        stubs.append(table.act("Pat", a_roll(system, "Ada", visibility)))
        stubs.append(table.act("Gina", a_roll(system, "Ghoul", visibility)))
        table.act("Rex", a_roll(system, "Cy", visibility))
        table.act("Gina", a_roll(system, "Ada", visibility))  # a player's character, by the GM
    # a secret roll's "GM: show me" and "Show to everyone", clicked by each (the GM last),
    # then again once shown
    gms = (SHOW_ME, SHOW_ALL)
    shown = [c for s in stubs for c in buttons(s.get("data") or {}) if c.split(":")[0] in gms]
    assert shown, stubs
    for user in ("Quinn", "Pat", "Rex", "Gina", "Gina"):
        for custom in shown:
            table.act(user, click(custom))
    # a follow-up button (a Luck reroll), taken, then clicked again; the GM's NPC's too
    offered = a_failure_offering(table, "Pat", "Ada")
    if offered is not None:
        first, *_ = buttons(offered)
        table.act("Quinn", click(first), frozenset({"Pat"}))  # not theirs: a forged click
        table.act("Pat", click(first), frozenset({"Pat"}))
        table.act("Pat", click(first), frozenset({"Pat"}))  # already used
    secret = a_failure_offering(table, "Pat", "Ada", "gm")  # its follow-up: secret too
    if secret is not None:
        table.act("Pat", click(buttons(secret)[-1]), frozenset({"Pat"}))
    npc = a_failure_offering(table, "Gina", "Ghoul")
    if npc is not None:
        table.act("Pat", click(buttons(npc)[0]), frozenset({"Gina"}))  # a forged click
        table.act("Gina", click(buttons(npc)[0]), frozenset({"Gina"}))
    # a call with Roll buttons; a contest against the NPC (its side the GM's)
    called = table.said("Gina", a_call(system, "Ada, Bo, Ghoul"))
    contest = table.said("Gina", a_call(system, "Ada, Bo", "Ghoul"))
    for made in (called, contest):
        assert buttons(made), made
        for user in ("Quinn", "Pat", "Gina", "Rex"):
            for custom in buttons(made):
                table.act(user, click(custom))
    # an NPC helper (where the system has assistance): the GM calls, the Ghoul helps
    if declares.assistance is not None:
        for visibility in VISIBILITIES:
            made = table.api(
                "POST",
                "/calls",
                "Gina",
                201,
                json={
                    "skill": skill,
                    "character_ids": [table.character("Ada")],
                    "visibility": visibility,
                    "fields": ASKED.get(system, ({}, ""))[0],
                },
            )
            target = made["targets"][0]["id"]
            helper = {"character_id": table.character("Ghoul"), "skill": skill}
            table.api("POST", f"/targets/{target}/assists", "Gina", 201, json=helper)
            typed = {} if visibility == "blind" else {"dice": [HELPED_DICE]}
            table.web_roll("Pat", "Ada", target_id=target, actor=typed)
        helped = table.said("Gina", a_call(system, "Ada"))
        assert buttons(helped), helped
        (target_id,) = [c.split(":")[2] for c in buttons(helped)]
        helper = {"character_id": table.character("Ghoul"), "skill": skill}
        table.api("POST", f"/targets/{target_id}/assists", "Gina", 201, json=helper)
        table.act("Pat", click(buttons(helped)[0]))
    # the page: a player's and the NPC's rolls in every mode, a contest, its follow-ups
    for visibility in VISIBILITIES:
        typed = {} if visibility == "blind" else {"dice": [PAT_DICE]}  # a blind roll's: drawn
        table.web_roll("Pat", "Ada", visibility=visibility, actor=typed)
        actor: dict[str, Any] = {"dice": [NPC_DICE]}
        if declares.luck is not None and declares.luck.boost_field:  # Luck spent: a number
            actor["fields"] = ASKED.get(system, ({}, ""))[0] | {declares.luck.boost_field: True}
        table.web_roll("Gina", "Ghoul", visibility=visibility, actor=actor)
        opponent = {"character_id": table.character("Ghoul"), "skill": LURK, "dice": [73]}
        sides = {"actor": {"dice": [22], "fields": {}}, "opponent": opponent}
        table.web_roll("Gina", "Ada", visibility=visibility, **sides)
    for user, name in (("Gina", "Ghoul"), ("Pat", "Ada")):
        rolled = table.web_roll(user, name, actor={"dice": [99]})
        offers = rolled.get("follow_ups") or ()
        for offer in offers[:1]:  # the first the card offers, with its dice typed by hand
            dice = {"dice": [FOLLOW_DICE]} if offer["draws"] else {}
            taken = {"follow_up": offer["key"], **dice}
            table.api("POST", f"/rolls/{rolled['seq']}/reroll", user, 201, json=taken)
            table.mirrored()
    # a follow-up Discord offered, taken on the page: the button's click after it
    offered = a_failure_offering(table, "Pat", "Ada")
    if offered is not None:
        first = buttons(offered)[0]
        _, _, seq, key = first.split(":")
        before = len(table.got["Pat"])
        table.api("POST", f"/rolls/{seq}/reroll", "Pat", 201, json={"follow_up": key})
        table.mirrored()
        (edit,) = [m for m in table.got["Pat"][before:] if "content" not in m]
        assert set(buttons(edit)) == set(buttons(offered)), edit  # disabled, as it was taken
        assert all(b.get("disabled") for row in edit["components"] for b in row["components"])
        stale = table.act("Pat", click(first), frozenset({"Pat"}))
        assert stale["type"] == interactions.DEFERRED_UPDATE
        assert "Already used" in table.messages("Pat")[-1]["content"]
    # "Show" on the page: every blind roll the GM sees, not shown from its stub already
    log = table.log("Gina")
    shown_already = {e["unblinds"] for e in log if e["kind"] == "unblind"}
    for event in log:
        blind = event["kind"] in ("roll", "contest") and event["visibility"] == "blind"
        if blind and event["seq"] not in shown_already:
            table.api("POST", f"/rolls/{event['seq']}/unblind", "Gina", 201)
            table.mirrored()
    table.api("POST", "/seeds/rotate", "Gina")  # each private chain's seed, to its audience
    # completions, for everyone
    for user in USERS:
        for focused in ("character", "skill"):
            table.act(user, typing("r", focused, "", character="Ghoul"))
        for focused in ("characters", "opponent", "opponent_skill", "skill"):
            table.act(user, typing("call", focused, "", characters="Ghoul", opponent="Ghoul"))
    # refusals: a player's roll of the NPC, a player's call
    table.act("Pat", a_roll(system, "Ghoul"))
    table.act("Quinn", a_call(system, "Ada", "Ghoul"))


def revoked(table: Table) -> None:
    """Rex removed: everything he tries is refused, privately, in those words."""
    members = table.api("GET", "", "Gina")["members"]
    (rex,) = [m for m in members if m["name"] == "Rex"]
    call = table.said("Gina", a_call(table.system, "Cy"))
    table.api("POST", f"/members/{rex['id']}/revoke", "Gina")
    before = len(table.got["Rex"])
    table.act("Rex", click(buttons(call)[0]))
    table.act("Rex", a_roll(table.system, "Cy"))
    table.act("Rex", typing("r", "character", ""))
    answers = [m for m in table.got["Rex"][before:] if m is not call]
    assert answers and all(
        m == {"choices": []} or (private(m) and REMOVED in m["content"]) for m in answers
    ), answers


def views(table: Table, user: str) -> list[Any]:
    """All a member's web view shows of the table: its state and its log."""
    return [table.api("GET", "", user), table.log(user)]


def ids_of(table: Table) -> set[str]:
    """The ids a button may hold: the table's, and every called test's."""
    state = table.api("GET", "", "Gina")
    return {table.table_id} | {t["id"] for c in state["calls"] for t in c["targets"]}


def npc_roll(table: Table) -> int:
    """The Ghoul's public roll made on the page, with its dice typed by hand."""
    return next(
        e["seq"]
        for e in table.log("Gina")
        if e["kind"] == "roll"
        and e["visibility"] == "public"
        and e["character"]["name"] == "Ghoul"
        and e["result"]["dice"] == [NPC_DICE]
    )


@pytest.mark.slow
@pytest.mark.parametrize("system", ["brp", "coc7", "openquest", "chances"])
@respx.mock
def test_discord_delivers_no_user_anything_their_web_view_withholds(
    client: TestClient, discord: Discord, endpoint: Endpoint, system: str
) -> None:
    table = seated(client, discord, endpoint, system)
    play(table)
    rex_saw = views(table, "Rex")  # his page, while he had one
    revoked(table)
    table.linked("Olga")  # made a member by her first interactions: a player of nothing
    ask_ledgers(table)
    shown = {user: views(table, user) for user in ("Gina", "Pat", "Quinn", "Olga")}
    since = [e for e in shown["Olga"][1] if e["seq"] > rex_saw[1][-1]["seq"]]
    shown["Rex"] = [rex_saw[0], rex_saw[1] + since]  # since: as a member of nothing
    npc = npc_roll(table)
    every = Withheld.every(shown, ids_of(table))
    logs = {user: log for user, (_, log) in shown.items() if user != "Rex"}  # Rex's: pieced
    for user in USERS:
        withheld = every[user]
        if user != "Gina":  # the NPC's skill and dice are kept from every player
            assert {SKILL, NPC_DICE} <= withheld.events[npc], (user, withheld.events[npc])
        assert table.got[user], user
        failed = [m for m in table.got[user] if m.get("content") == failed_message()["content"]]
        assert not failed, (user, failed)  # every interaction answered, none failed
        # a ledger's counts and chances are worked out from what the user's web view shows
        # (its percentages may match a withheld number by chance): it must be that ledger
        books = [m for m in table.got[user] if is_ledger(m)]
        assert books or user == "Rex", user  # Rex was removed: refused
        for book in books:
            assert book == ledger_as_the_web_shows(logs, user, book), (user, book)
        found = leaks([m for m in table.got[user] if not is_ledger(m)], withheld)
        assert not found, (user, found[:3])


@respx.mock
def test_the_checker_catches_an_npc_s_numbers_shown_to_a_player(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    """The matrix can fail: the GM's own views of the Ghoul's roll and of a contest against
    it, rendered as Discord renders a roll, are caught in Pat's messages, and so are the
    Ghoul's skill named in a contest's message and a button's id with a number in place of
    a follow-up's key."""
    table = seated(client, discord, endpoint, "brp")
    table.web_roll("Gina", "Ghoul", actor={"dice": [NPC_DICE]})
    opponent = {"character_id": table.character("Ghoul"), "skill": LURK, "dice": [73]}
    contest = table.web_roll("Gina", "Ada", actor={"dice": [22]}, opponent=opponent)
    shown = {user: views(table, user) for user in ("Gina", "Pat")}
    withheld = Withheld.of("Pat", shown, ids_of(table))
    assert table.got["Pat"] and not leaks(table.got["Pat"], withheld)
    seq = npc_roll(table)
    (full,) = [e for e in table.log("Gina") if e["seq"] == seq]
    (caught,) = leaks([roll_view("Gina", full, False)], withheld)
    assert {SKILL, NPC_DICE} <= set(caught["told"]), caught
    (whole,) = [e for e in table.log("Gina") if e["seq"] == contest["seq"]]
    (against,) = leaks([roll_view("Gina", whole, False)], withheld)  # the Ghoul's side
    assert {SKILL, 73} <= set(against["told"]), against
    named = message(embeds=[embed("Test: spot hidden", f"Gina calls against Ghoul ({LURK})")])
    (skill,) = leaks([named], withheld)  # the skill the GM opposed with: theirs to say
    assert skill["told"] == [LURK], skill
    forged = {"components": [{"custom_id": f"f:{table.table_id}:{seq}:{SKILL}"}]}
    (odd,) = leaks([forged], withheld)
    assert odd["ids"] and not odd["told"]
    # a roll's footer gives the log's head, public; one Pat's log never showed is held to
    # the rest (here, the Ghoul's skill in its digits)
    (full_view,) = [e for e in table.log("Pat") if e["seq"] == seq]
    link = full_view["head"]["link"]
    honest = message(embeds=[embed("A roll", footer=f"log #{seq} · {link[:8]}")])
    assert link[:8] not in json.dumps(withheld.unheaded(honest)) and not leaks([honest], withheld)
    made_up = message(embeds=[embed("A roll", footer=f"log #{seq + 1000} · {SKILL}abcdef")])
    (headed,) = leaks([made_up], withheld)
    assert SKILL in headed["told"], headed
