"""A table's life: create it, join it, sign in, revoke, and the provable-dice seeds."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.util import identity_key

from .. import beacon as beacons
from ..declarations import IMPROVEMENTS
from ..errors import D100Error
from ..fields import Field, read
from ..provable import commitment
from ..systems import REGISTRY
from . import event_kinds as kinds
from . import rounds
from .access import (
    BLIND,
    GM,
    OPEN,
    PLAYER,
    PRIVATE,
    Chain,
    Viewer,
    member_by_token,
    require_gm,
)
from .errors import bad, conflict, invalid, not_found, unauthorised
from .events import FOLLOW_UP_WINDOW, append, get_table, lock_table
from .models import BlindRoll, CallTarget, Character, GameTable, Member, SeedSession
from .tokens import UNPRINTABLE, new_client_seed, new_id, new_seed, new_token, now, token_hash

SETTINGS_FIELDS = (
    Field("manual_dice", "bool", "players may type in dice they rolled by hand (G3)", default=True),
    Field(
        "improvement", "choice", "what marks a skill for improvement (CH12)", choices=IMPROVEMENTS
    ),
)
NAME_LIMIT = 80
CLIENT_SEED_LIMIT = 128


@dataclass(frozen=True)
class Created:
    table: GameTable
    gm: Member
    gm_token: str
    invite_token: str


def text_field(field: str, value: str, limit: int) -> str:
    """A one-line name: runs of whitespace become one space; control characters are refused."""
    cleaned = " ".join(value.split())
    if not 1 <= len(cleaned) <= limit or UNPRINTABLE.search(cleaned):
        raise bad(
            field, value, f"1..{limit} printable characters", "empty, too long or unprintable"
        )
    return cleaned


# Letters of other scripts that look like Latin ones (after casefolding), so "\u0410lice" with a
# Cyrillic A reads as "Alice" in the log: the common ones of Cyrillic and Greek.
CYRILLIC = (
    "\u0430\u0432\u0435\u0456\u0458\u043a\u04cf\u043c\u043d\u043e"
    "\u0440\u0441\u0455\u0442\u0443\u0445\u0501\u051b\u051d",
    "abeijklmhopcstyxdqw",
)
# By the capital's look where it differs from the small letter's (N, Y): names start with one.
GREEK = (
    "\u03b1\u03b2\u03b5\u03b6\u03b7\u03b9\u03ba\u03bc\u03bd\u03bf\u03c1\u03c4\u03c5\u03c7\u03f2",
    "abezhikmnoptyxc",
)
# Latin small capitals ("\u0262\u1d0d" reads as GM) as the letter they show.
SMALL_CAPITALS = {
    chr(c): m[1].lower()
    for c in (*range(0x250, 0x2B0), *range(0x1D00, 0x1D80), *range(0xA720, 0xA800))
    if (m := re.fullmatch("LATIN LETTER SMALL CAPITAL ([A-Z])", unicodedata.name(chr(c), "")))
}
HOMOGLYPHS = str.maketrans(
    {**dict(zip(CYRILLIC[0] + GREEK[0], CYRILLIC[1] + GREEK[1], strict=True)), **SMALL_CAPITALS}
)
# Marks that show nothing by themselves ("Gina\u034f" looks like "Gina"): combining and
# format characters, and the fillers Unicode leaves out of those categories.
UNSEEN_CATEGORIES = ("Mn", "Me", "Cf")
FILLERS = frozenset("\u3164\u115f\u1160\uffa0\u17b4\u17b5")
# A bracketed tag read without its dots and spaces: "(G.M.)" and "[G M]" say GM.
BRACKETED = re.compile(r"[(\[{<]([^)\]}>]*)[)\]}>]")
# The GM's role by name, which no player's name (or their character's) may claim.
ROLE_TAGS = (("gm",), ("game", "master"), ("gamemaster",))


def skeleton(name: str) -> str:
    """What a name looks like: compatibility forms folded (fullwidth letters), any case,
    marks that show nothing dropped, runs of whitespace as one space, lookalike letters of
    other scripts and small capitals as Latin."""
    folded = unicodedata.normalize("NFKC", name).casefold().translate(HOMOGLYPHS)
    seen = (
        c for c in folded if c not in FILLERS and unicodedata.category(c) not in UNSEEN_CATEGORIES
    )
    return " ".join("".join(seen).split())


def unique_name(field: str, name: str, taken: Sequence[str], what: str) -> None:
    """Names say who rolled: two people (or two characters) at a table never share one, nor
    two that look alike (in any mix of capitals, spacing or lookalike letters)."""
    mine = skeleton(name)
    clash = next((t for t in taken if skeleton(t) == mine), None)
    if clash is not None:
        looks = "is" if clash == name else f"looks like {clash!r}, which is"
        raise conflict(
            field,
            name,
            f"a name no other {what} at this table has, nor one that looks like it",
            f"{name!r} {looks} taken at this table: choose another name",
        )


def not_the_gm_s(field: str, name: str) -> None:
    """A player's name never wears the GM's tag ("Sam (GM)", "GM"): it would pass them off
    as the GM in the log."""
    tags = BRACKETED.sub(lambda m: " " + re.sub(r"[\W_]", "", m[1]) + " ", skeleton(name))
    words = tuple(re.findall(r"[^\W_]+", tags))
    for tag in ROLE_TAGS:
        if any(words[i : i + len(tag)] == tag for i in range(len(words))):
            raise bad(
                field,
                name,
                "a name without GM, game master or the like: only the GM is the GM",
                f"{name!r} claims to be the GM",
            )


def house_rules_of(system: str, rules: dict[str, Any]) -> dict[str, Any]:
    spec = next(f for f in REGISTRY.get(system).check_fields if f.name == "house_rules")
    try:
        values = read(rules, spec.fields, "house_rules")
    except D100Error as err:
        raise invalid(err) from None
    return {k: v for k, v in values.items() if v is not None}


def settings_of(system: str, settings: dict[str, Any]) -> dict[str, Any]:
    try:
        values = read(settings, SETTINGS_FIELDS, "settings")
    except D100Error as err:
        raise invalid(err) from None
    values["improvement"] = values["improvement"] or REGISTRY.get(system).declares.improvement
    return values


def create_table(
    session: Session,
    name: str,
    system: str,
    gm_name: str,
    house_rules: dict[str, Any],
    settings: dict[str, Any],
    beacon: bool = False,
) -> Created:
    """``beacon``: every seed of the table names a future quicknet round its draws mix in
    (``d100.beacon``), on a server that fetches rounds (``rounds``)."""
    if beacon and rounds.fetcher is None:
        raise bad(
            "beacon",
            beacon,
            "false: this server fetches no beacon rounds",
            f"the server's operator has not set {rounds.URL_ENV}",
        )
    try:
        system = REGISTRY.get(system).name
    except D100Error as err:
        raise invalid(err) from None
    invite = new_token()
    table = GameTable(
        id=new_id(),
        name=text_field("name", name, 200),
        system=system,
        house_rules=house_rules_of(system, house_rules),
        settings=settings_of(system, settings),
        invite_hash=token_hash(invite),
        last_seq=0,
        created_at=now(),
        beacon=beacon,
    )
    session.add(table)
    gm_token = new_token()
    gm = _member(table, GM, text_field("gm_name", gm_name, NAME_LIMIT), gm_token)
    session.add(gm)
    opened = _seed_session(table.id, Chain(OPEN), beacon)
    blind = _seed_session(table.id, Chain(BLIND), beacon)
    session.add_all([opened, blind])
    session.flush()
    # The GM's client seed is bound here, before any roll: verify checks GM rolls against it.
    # So are the first seeds' commitments, as each rotation announces the next: verify checks
    # each roll's commitment, and each reveal, against the one announced for its seed.
    improvement = str(table.settings["improvement"])
    made = kinds.opened(
        table.name,
        system,
        member_view(gm),
        seed_view(opened),
        seed_view(blind),
        improvement,
        table.house_rules,
    )
    append(session, table, made)
    return Created(table, gm, gm_token, invite)


def _invited(session: Session, invite_token: str) -> str:
    """The id of the table an invite opens; a link that no longer works is the 401 of any
    bad token."""
    table_id = session.scalars(
        select(GameTable.id).where(GameTable.invite_hash == token_hash(invite_token))
    ).first()
    if table_id is None:
        raise unauthorised()
    return table_id


def join(session: Session, invite_token: str, name: str) -> tuple[Member, str]:
    """A new player from the invite link; the token returned is theirs alone."""
    return add_player(session, lock_table(session, _invited(session, invite_token)), name)


def invitation(session: Session, invite_token: str) -> dict[str, Any]:
    """What an invite opens, for its join page to say before anyone joins: the table's name
    and system, and who runs it (nothing a player who joined would not see at once)."""
    table = get_table(session, _invited(session, invite_token))
    gms = session.scalars(
        select(Member.name)
        .where(Member.table_id == table.id, Member.role == GM, Member.revoked.is_(False))
        .order_by(Member.name)
    ).all()
    system = REGISTRY.get(table.system)
    opens = {"name": table.name, "system": system.name, "title": system.title}
    return {"table": opens, "game_masters": list(gms)}


def add_player(session: Session, table: GameTable, name: str) -> tuple[Member, str]:
    """A new player of a locked table (from the invite link, or a chat's door that has
    verified who they are); the token returned is theirs alone."""
    name = text_field("name", name, NAME_LIMIT)
    taken = session.scalars(select(Member.name).where(Member.table_id == table.id)).all()
    not_the_gm_s("name", name)
    unique_name("name", name, taken, "person")
    token = new_token()
    member = _member(table, PLAYER, name, token)
    session.add(member)
    session.flush()
    append(session, table, kinds.joined(member_view(member)))
    return member, token


def sign_in(session: Session, token: str) -> Member:
    member = member_by_token(session, token)
    if member is None:
        raise unauthorised()
    return member


def new_invite(session: Session, viewer: Viewer) -> str:
    """A fresh invite link; the old one stops working (players already in stay in)."""
    require_gm(viewer, "renew the invite link")
    table = lock_table(session, viewer.table_id)
    invite = new_token()
    table.invite_hash = token_hash(invite)
    append(session, table, kinds.invite_renewed(viewer.member_id))
    return invite


def revoke(session: Session, viewer: Viewer, member_id: str) -> tuple[Member, str]:
    """Shut a player out: their token stops working, and the invite link is renewed, since
    they hold the old one and could join again with it. The new invite is the GM's to share."""
    require_gm(viewer, "revoke a player")
    table = lock_table(session, viewer.table_id)
    member = session.get(Member, member_id)
    if member is None or member.table_id != table.id:
        raise not_found("member_id", member_id, "member")
    if member.role == GM:
        raise conflict("member_id", member_id, "a player's id", "the GM cannot be revoked")
    member.revoked = True
    # Tests called for their characters can no longer be rolled: nobody waits on them.
    theirs = select(Character.id).where(Character.member_id == member.id)
    session.execute(
        update(CallTarget)
        .where(CallTarget.character_id.in_(theirs), CallTarget.status == "pending")
        .values(status="cancelled"),
        execution_options={"synchronize_session": False},
    )
    invite = new_token()
    table.invite_hash = token_hash(invite)
    append(session, table, kinds.revoked(member_view(member), viewer.member_id))
    return member, invite


def set_client_seed(session: Session, viewer: Viewer, client_seed: str) -> Member:
    table = lock_table(session, viewer.table_id)
    if not 1 <= len(client_seed) <= CLIENT_SEED_LIMIT or UNPRINTABLE.search(client_seed):
        raise bad(
            "client_seed",
            client_seed,
            f"1..{CLIENT_SEED_LIMIT} printable characters",
            "empty, too long or unprintable",
        )
    member = session.get_one(Member, viewer.member_id)
    member.client_seed = client_seed
    append(session, table, kinds.client_seed_set(member.id, client_seed))
    return member


_ACTIVE_SEED = select(SeedSession).where(
    SeedSession.table_id == bindparam("table_id"),
    SeedSession.revealed_at.is_(None),
    SeedSession.chain == bindparam("chain"),
    SeedSession.member_id == bindparam("member_id"),
)


def active_seed(session: Session, table_id: str, chain: Chain) -> SeedSession | None:
    """The session the next roll of ``chain`` draws from (see SeedSession); None for a
    chain not used yet (only the open and blind chains start with the table)."""
    params = {"table_id": table_id, "chain": chain.kind, "member_id": chain.member_id}
    return session.scalars(_ACTIVE_SEED, params).one_or_none()


@dataclass(frozen=True)
class Draw:
    """What a roll draws with: the active seed's session (``active_seed``), the nonce it took
    from it and the roller's client seed. ``server_seed``: the seed its draws use (hex), the
    server seed, or at a table with the beacon the server seed mixed with its round's
    randomness (``drawing_seed``)."""

    seed_id: str
    server_seed: str
    commitment: str
    nonce: int
    client_seed: str


# (An UPDATE's own column names are not to be bound: b_ for "by".)
# Built once: a statement keeps its SQL cache key, so a roll only binds its values.
_CLIENT_SEED = select(Member.client_seed).where(Member.id == bindparam("b_member_id"))
_DRAW = (
    update(SeedSession)
    .where(
        SeedSession.table_id == bindparam("b_table_id"),
        SeedSession.revealed_at.is_(None),
        SeedSession.chain == bindparam("b_chain"),
        SeedSession.member_id == bindparam("b_chain_member"),
    )
    .values(next_nonce=SeedSession.next_nonce + 1)
    .returning(
        SeedSession.id,
        SeedSession.server_seed,
        SeedSession.commitment,
        SeedSession.next_nonce,
        _CLIENT_SEED.scalar_subquery(),
        SeedSession.beacon_round,
        SeedSession.beacon_signature,
    )
)


def draw(session: Session, table: GameTable, chain: Chain, member_id: str) -> Draw:
    """Take the next nonce of the table's active seed of ``chain`` and read the roller's
    client seed, in one statement. A chain's first roll starts it: its seed's commitment is
    announced to everyone (a "chain" event) before the roll. Made under the table's lock: a
    client seed changed meanwhile is an event before this roll's. At a table with the beacon,
    a seed whose round is not kept yet, or a chain with no seed yet, draws nothing and raises
    ``rounds.Unfetched``: its round is fetched outside the transaction (``awaiting``)."""
    params = {
        "b_table_id": table.id,
        "b_member_id": member_id,
        "b_chain": chain.kind,
        "b_chain_member": chain.member_id,
    }
    row = session.connection().execute(_DRAW, params).first()
    if row is None:
        if table.beacon:  # its seed's round is seconds away: started and fetched apart
            raise rounds.Unfetched(table.id, chain, member_id)
        start_chain(session, table, chain, member_id)
        row = session.connection().execute(_DRAW, params).one()
    seed_id, server_seed, commitment, after, client_seed, round_number, signature = row
    loaded = session.identity_map.get(identity_key(SeedSession, seed_id))
    if loaded is not None:  # the same session's object, read before: kept in step
        set_committed_value(loaded, "next_nonce", after)
    if round_number is not None and signature is None:
        signature = rounds.kept(round_number)  # fetched in the background, else not waited for
        if signature is None:
            raise rounds.Unfetched(table.id, chain, member_id)
        keep_signature(session, seed_id, signature)
    drawing = _drawing(server_seed, signature)
    return Draw(seed_id, drawing, commitment, after - 1, client_seed)


def start_chain(session: Session, table: GameTable, chain: Chain, member_id: str) -> SeedSession:
    """A chain's first seed, its commitment announced to everyone (a "chain" event)."""
    started = _seed_session(table.id, chain, table.beacon)
    session.add(started)
    append(session, table, kinds.chain_started(seed_view(started), member_id))
    return started


def keep_signature(session: Session, seed_id: str, signature: str) -> None:
    """A seed's round's signature, kept with it (the first kept stays: a round has one)."""
    session.connection().execute(
        update(SeedSession)
        .where(SeedSession.id == seed_id, SeedSession.beacon_signature.is_(None))
        .values(beacon_signature=signature)
    )
    loaded = session.identity_map.get(identity_key(SeedSession, seed_id))
    if loaded is not None:
        set_committed_value(loaded, "beacon_signature", signature)


def _drawing(server_seed: str, signature: str | None) -> str:
    if signature is None:
        return server_seed
    randomness = beacons.randomness(bytes.fromhex(signature))
    return beacons.mixed(bytes.fromhex(server_seed), randomness).hex()


def drawing_seed(seed: SeedSession) -> bytes:
    """The seed ``seed``'s rolls drew from: the server seed, mixed with its round's randomness
    at a table with the beacon (its round fetched by its first roll)."""
    return bytes.fromhex(_drawing(seed.server_seed, seed.beacon_signature))


@dataclass(frozen=True)
class Rotation:
    active: SeedSession
    blind_active: SeedSession
    blind_revealed: SeedSession | None
    unblind_first: list[int]  # blind rolls keeping the blind seed secret, by event number
    # each private chain rotated: its revealed seed and its next one
    private: list[tuple[SeedSession, SeedSession]]


def rotate_seed(session: Session, viewer: Viewer) -> Rotation:
    """Reveal the current server seed (so every roll made with it can be checked) and commit
    to a new one. The blind seed is revealed with it only once the GM has shown every blind
    roll made with it: revealing it earlier would let the roller recompute a hidden result.
    Each private chain that drew since (the GM's, a member's gm or self one) has its seed
    revealed in an event only its audience sees, before the rotation's event announces its
    next commitment to everyone."""
    require_gm(viewer, "rotate the server seed")
    table = lock_table(session, viewer.table_id)
    old = _active(session, table.id, Chain(OPEN))
    private = []
    for seed in session.scalars(
        select(SeedSession)
        .where(
            SeedSession.table_id == table.id,
            SeedSession.revealed_at.is_(None),
            SeedSession.chain.in_(PRIVATE),
            SeedSession.next_nonce > 0,
        )
        .order_by(SeedSession.created_at, SeedSession.id)
    ):
        chain = chain_of_seed(seed)
        private.append((seed, _reveal(session, seed)))
        visibility, actor = chain.reveal_as(viewer.member_id)
        append(session, table, kinds.seed_revealed(seed_view(seed), visibility, actor))
    new = _reveal(session, old)
    blind = _active(session, table.id, Chain(BLIND))
    pending = list(
        session.scalars(
            select(BlindRoll.seq)
            .where(BlindRoll.seed_id == blind.id, BlindRoll.unblinded_seq.is_(None))
            .order_by(BlindRoll.seq)
        )
    )
    rotation = (
        Rotation(new, blind, None, pending, private)
        if pending
        else Rotation(new, _reveal(session, blind), blind, [], private)
    )
    blind_shown = None
    if rotation.blind_revealed is not None:
        blind_shown = seed_view(rotation.blind_revealed), seed_view(rotation.blind_active)
    chains = [seed_view(following) for _, following in private]
    rotated = kinds.seed_rotated(
        seed_view(old), seed_view(new), blind_shown, chains, viewer.member_id
    )
    append(session, table, rotated)
    return rotation


def _active(session: Session, table_id: str, chain: Chain) -> SeedSession:
    seed = active_seed(session, table_id, chain)
    assert seed is not None  # the open and blind chains start with the table
    return seed


def chain_of_seed(seed: SeedSession) -> Chain:
    return Chain(seed.chain, seed.member_id)


def rotation_view(rotation: Rotation, viewer: Viewer) -> dict[str, Any]:
    """The new open session, and what became of the blind one and of each private chain
    (for the GM who rotated: a member's self chain's seed is theirs alone)."""
    return seed_view(rotation.active) | {
        "blind": {
            "active": seed_view(rotation.blind_active),
            "revealed": None
            if rotation.blind_revealed is None
            else seed_view(rotation.blind_revealed),
            "unblind_first": rotation.unblind_first,
        },
        "chains": [
            {"revealed": seed_view(old, viewer), "active": seed_view(new)}
            for old, new in rotation.private
        ],
    }


def _reveal(session: Session, seed: SeedSession) -> SeedSession:
    """Publish ``seed`` (to its chain's audience) and start its successor on the same chain."""
    seed.revealed_at = now()
    new = _seed_session(seed.table_id, chain_of_seed(seed), seed.beacon_round is not None)
    session.add(new)
    session.flush()
    return new


def seed_view(seed: SeedSession, viewer: Viewer | None = None) -> dict[str, Any]:
    """A seed as a viewer may see it (None: as its own chain's audience does): its server
    seed once revealed, to its chain's audience only."""
    out: dict[str, Any] = {
        "id": seed.id,
        "commitment": seed.commitment,
        "rolls": seed.next_nonce,
        "blind": seed.blind,
        "chain": seed.chain,
        "created_at": seed.created_at,
    }
    if seed.member_id:
        out["member_id"] = seed.member_id
    shown = viewer is None or chain_of_seed(seed).sees(viewer)
    if seed.revealed_at is not None and shown:
        out |= {"server_seed": seed.server_seed, "revealed_at": seed.revealed_at}
    if seed.beacon_round is not None:  # named with the commitment, its signature with the reveal
        out["beacon"] = beacons.named(seed.beacon_round)
        if "server_seed" in out and seed.beacon_signature is not None:
            out["beacon"]["signature"] = seed.beacon_signature
    return out


def member_view(member: Member) -> dict[str, Any]:
    return {
        "id": member.id,
        "name": member.name,
        "role": member.role,
        "revoked": member.revoked,
        "client_seed": member.client_seed,
    }


def table_view(table: GameTable) -> dict[str, Any]:
    out = {
        "id": table.id,
        "name": table.name,
        "system": table.system,
        "house_rules": table.house_rules,
        "settings": table.settings,
        "last_seq": table.last_seq,
        "follow_up_window": FOLLOW_UP_WINDOW,
    }
    if table.beacon:  # only then: a table without it answers as it did
        out["beacon"] = True
    if table.last_link is not None:  # the log's head, as a roll's answer gives it (events.headed)
        out["head"] = {"seq": table.last_seq, "link": table.last_link}
    return out


def _member(table: GameTable, role: str, name: str, token: str) -> Member:
    return Member(
        id=new_id(),
        table_id=table.id,
        role=role,
        name=name,
        token_hash=token_hash(token),
        client_seed=new_client_seed(),
        revoked=False,
        created_at=now(),
    )


def _seed_session(table_id: str, chain: Chain, bound: bool = False) -> SeedSession:
    """A new seed of ``chain``; ``bound`` (a table with the beacon): naming the first quicknet
    round published more than one period after its commitment, so a member who sees the
    commitment sees it before the round exists, whatever a few seconds of clock skew."""
    seed = new_seed()
    created = now()
    round_number = None
    if bound:
        committed = datetime.fromisoformat(created).timestamp()
        round_number = beacons.round_after(committed + beacons.PERIOD)
        rounds.warm(round_number)  # fetched once due, ready for the seed's first roll
    return SeedSession(
        id=new_id(),
        table_id=table_id,
        server_seed=seed.hex(),
        commitment=commitment(seed),
        next_nonce=0,
        created_at=created,
        blind=chain.kind == BLIND,
        chain=chain.kind,
        member_id=chain.member_id,
        beacon_round=round_number,
    )
