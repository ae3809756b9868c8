"""A table log's hash chain: each event commits to the one before it, and what a viewer may
not see enters the chain as a salted commitment.

An event's *content* is what its fullest view shows (kind, visibility, actor, time, data).
Its commitment is a tree of digests over that content, salted from one secret per event
that the server keeps: each object, list and value has a key (the event's secret for the
whole, keyed BLAKE2b of its name under its parent's key below); a value's digest is keyed
BLAKE2b of its name and value under its key, an object's or list's SHA-256 of its name, a
salt derived from its key and its parts' digests (an object's padded with dummies derived
from its key). A viewer shown part of an event gets a *proof*: the key of each part shown
whole, the salt and shown parts of an object shown in part, and the bare digests of what is
kept from them. Keys only lead down, so no proof lets a viewer open what it keeps from them.

Each event's link is ``SHA-256(["d100/chain/1", seq, previous link, public, root])``:
``public`` is what even a stub shows (a roll's seed and nonce), ``root`` the content's
digest. The first chained event links to ``GENESIS``.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import Any

from .errors import D100Error

VERSION = "d100/chain/1"
GENESIS = "0" * 64
# An object's digests, hidden ones included, are padded to a multiple of this many: a view
# that shows part of an object tells how many of its fields it keeps only to the next 16,
# not whether one field more (Luck spent, a push) is there.
PAD = 16
# Keys a view adds and the stored event does not hold: worked out from the rest (``view``:
# how a result reads), said of the view (``withheld``, ``hidden``), or the chain's own.
DERIVED = frozenset({"seq", "view", "withheld", "hidden", "chain", "head"})
HIDDEN_KIND = "hidden"  # a stub's kind (``access.shape``): the event's own kind is kept


def new_secret() -> str:
    return secrets.token_hex(32)


_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _canonical(value: Any) -> bytes:
    """The value's JSON (keys sorted, no spaces, UTF-8). Names and the values events hold
    most (strings, whole numbers, true, false, null) are written here as the encoder writes
    them, without its call: a roll's commitment encodes some 200 of them."""
    kind = type(value)
    if kind is str:
        return encode_basestring(value).encode()
    if kind is int:
        return b"%d" % value
    if kind is bool:
        return b"true" if value else b"false"
    if value is None:
        return b"null"
    return _JSON.encode(value).encode()


def _sha(value: Any) -> str:
    return hashlib.sha256(_canonical(value)).hexdigest()


# A digest's parts joined by NUL: names and values are JSON, which never holds a raw NUL,
# and the rest is hex, so no two different parts lists join alike. (One JSON list of the
# parts was twice as slow: a roll's commitment is worked out under its table's lock.)
_SEP = b"\x00"
_BYTES = tuple(bytes([i]) for i in range(PAD))
# Values, not objects nor lists, by their exact type: told apart without an ABC's check.
_VALUES = frozenset({str, int, bool, float, type(None)})


def _keyed(key: bytes) -> hashlib.blake2b:
    """Keyed BLAKE2b started on ``key``: each part derived under a key is a copy of it fed
    its own words (a PRF of its own, no length extension; a third as dear as an HMAC-SHA-256
    here, and a copy costs less than setting a key up again: a roll's commitment derives
    some 170 digests under 18 keys)."""
    return hashlib.blake2b(key=key, digest_size=32)


def _derived(keyed: hashlib.blake2b, words: bytes) -> hashlib.blake2b:
    mac = keyed.copy()
    mac.update(words)
    return mac


def _child(keyed: hashlib.blake2b, name: bytes) -> bytes:
    """The key of the part named ``name`` (its JSON) under the key ``keyed`` started on."""
    return _derived(keyed, b"key\x00" + name).digest()


def _salt(keyed: hashlib.blake2b) -> bytes:
    return _derived(keyed, b"salt").hexdigest().encode()


def _pads(keyed: hashlib.blake2b, count: int) -> list[str]:
    """Digests standing in for no field, derived from the key (not the salt a part proof
    shows), so no viewer tells them from a hidden field's."""
    missing = -count % PAD
    if not missing:
        return []
    seed = _derived(keyed, b"pad").digest()
    return [hashlib.sha256(seed + _BYTES[i]).hexdigest() for i in range(missing)]


def _node(tag: bytes, salt: bytes, name: bytes, parts: list[str]) -> str:
    joined = "\x00".join(parts).encode()
    return hashlib.sha256(_SEP.join((tag, salt, name, joined))).hexdigest()


def digest(name: str | int, value: Any, key: bytes) -> str:
    """The digest of a value named ``name`` (a field's name, a list item's place)."""
    return _digest(_canonical(name), value, key)


def _digest(name: bytes, value: Any, key: bytes) -> str:
    """``digest`` of a name given as its JSON: each name encoded once, for its key and its
    digest both, and each key started once for every part derived under it."""
    if type(value) in _VALUES or not isinstance(value, (Mapping, list)):
        return _value(name, value, key)
    keyed = _keyed(key)
    if isinstance(value, Mapping):
        named = [(_canonical(k), v) for k, v in value.items()]
    else:
        named = [(b"%d" % i, v) for i, v in enumerate(value)]
    parts = []
    for part, v in named:
        # ``_child`` and ``_digest`` in place: a roll's event has 76 parts, 59 of them values
        mac = keyed.copy()
        mac.update(b"key\x00" + part)
        child = mac.digest()
        parts.append(_value(part, v, child) if type(v) in _VALUES else _digest(part, v, child))
    if isinstance(value, Mapping):
        parts += _pads(keyed, len(parts))
        return _node(b"object", _salt(keyed), name, sorted(parts))
    return _node(b"list", _salt(keyed), name, parts)


def _value(name: bytes, value: Any, key: bytes) -> str:
    # A value is never shown in part: keyed by its own key, it needs no salt of its own.
    words = b"value\x00" + name + _SEP + _canonical(value)
    return hashlib.blake2b(words, key=key, digest_size=32).hexdigest()


def public_part(content: Mapping[str, Any]) -> dict[str, Any]:
    """What every member sees of an event, a stub included (``access.shape``): a roll's seed
    and nonce, so the order of nonces is checked by everyone."""
    provable = content.get("provable")
    if isinstance(provable, Mapping):
        return {"provable": {k: provable.get(k) for k in ("seed_id", "nonce")}}
    return {}


def link(seq: int, previous: str, public: Mapping[str, Any], root: str) -> str:
    return _sha([VERSION, seq, previous, public, root])


def content(view: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a view the chain binds: without what a view adds, and a stub's kind."""
    out = {k: v for k, v in view.items() if k not in DERIVED}
    if view.get("hidden") is True and view.get("kind") == HIDDEN_KIND:
        out.pop("kind", None)
    return out


def seal(seq: int, previous: str, full: Mapping[str, Any], secret: str) -> str:
    """An event's link, made as it is appended from its whole content."""
    root = digest("", dict(full), bytes.fromhex(secret))
    return link(seq, previous, public_part(full), root)


# -- proofs: what a view needs to recompute its event's link ----------------------------------


def proof(full: Any, shown: Any, key: bytes, name: str | int = "") -> dict[str, Any]:
    """The proof that ``shown`` is ``full`` with parts taken out: ``{"key"}`` where a part is
    shown whole, ``{"salt", "fields", "hidden"}`` for an object shown in part (its hidden
    fields' digests, pads among them, sorted, so neither their names nor their order are
    told), ``{"salt", "items"}`` for a list, ``{"digest"}`` where nothing is shown."""
    if shown == full:
        return {"key": key.hex()}
    keyed = _keyed(key)
    if isinstance(full, Mapping) and isinstance(shown, Mapping) and shown.keys() <= full.keys():
        keys = {k: _child(keyed, _canonical(k)) for k in full}
        hidden = [digest(k, v, keys[k]) for k, v in full.items() if k not in shown]
        fields = {k: proof(full[k], shown[k], keys[k], k) for k in shown}
        return {
            "salt": _salt(keyed).decode(),
            "fields": fields,
            "hidden": sorted(hidden + _pads(keyed, len(full))),
        }
    if isinstance(full, list) and isinstance(shown, list) and len(full) == len(shown):
        items = [
            proof(f, s, _child(keyed, b"%d" % i), i)
            for i, (f, s) in enumerate(zip(full, shown, strict=True))
        ]
        return {"salt": _salt(keyed).decode(), "items": items}
    return {"digest": digest(name, full, key)}


def hidden_proof(full: Mapping[str, Any], secret: str) -> dict[str, Any]:
    """A stub's proof: the content's digest alone."""
    return {"digest": digest("", dict(full), bytes.fromhex(secret))}


class Unproven(ValueError):
    """A view and its proof that do not fit together: ``where`` names the part."""

    def __init__(self, where: str, why: str) -> None:
        super().__init__(f"{where}: {why}" if where else why)
        self.where, self.why = where, why


def recompute(shown: Any, given: Any, name: str | int = "", where: str = "") -> str:
    """The digest a view's part and its proof give; ``Unproven`` naming the part when the
    proof does not fit the view (a field added, a field taken out that the proof shows)."""
    if not isinstance(given, Mapping):
        raise Unproven(where, "no proof")
    if "key" in given:
        return digest(name, shown, _hex_key(given["key"], where))
    if "digest" in given:
        raise Unproven(where, "shown, but its proof says it is kept from this viewer")
    salt = given.get("salt")
    if not _is_hex(salt):
        raise Unproven(where, "a proof without its salt")
    if "fields" in given:
        fields, hidden = given["fields"], given.get("hidden")
        if not (isinstance(shown, Mapping) and isinstance(fields, Mapping)):
            raise Unproven(where, "an object in the proof, not in the view")
        if not (isinstance(hidden, list) and all(_is_hex(d) for d in hidden)):
            raise Unproven(where, "the hidden fields' digests are not digests")
        extra = sorted(set(shown) - set(fields), key=str)
        if extra:
            raise Unproven(_at(where, extra[0]), "a field the chain does not bind")
        missing = sorted(set(fields) - set(shown), key=str)
        if missing:
            raise Unproven(_at(where, missing[0]), "bound by the chain, missing from the view")
        parts = [recompute(shown[k], fields[k], k, _at(where, k)) for k in shown]
        return _node(b"object", str(salt).encode(), _canonical(name), sorted(parts + hidden))
    if "items" in given:
        items = given["items"]
        if not (isinstance(shown, list) and isinstance(items, list) and len(items) == len(shown)):
            raise Unproven(where, "a list of another length than the proof's")
        parts = [
            recompute(v, p, i, _at(where, i))
            for i, (v, p) in enumerate(zip(shown, items, strict=True))
        ]
        return _node(b"list", str(salt).encode(), _canonical(name), parts)
    raise Unproven(where, "a proof of no known form")


def root_of(view: Mapping[str, Any], given: Any) -> str:
    """The content digest a view and its proof give: a stub's is its proof's digest."""
    if isinstance(given, Mapping) and "digest" in given and len(given) == 1:
        if not _is_hex(given["digest"]):
            raise Unproven("", "the digest is not a digest")
        shown = content(view)
        # All hidden, so a stub: nothing shown beyond what the link binds in the clear.
        if view.get("kind") != HIDDEN_KIND or shown != public_part(shown):
            raise Unproven("", "shown, but its proof says it is kept from this viewer")
        return str(given["digest"])
    return recompute(content(view), given)


def _hex_key(value: Any, where: str) -> bytes:
    if not _is_hex(value):
        raise Unproven(where, "the key is not 32 bytes in hex")
    return bytes.fromhex(str(value))


def _is_hex(value: Any) -> bool:
    if not (isinstance(value, str) and len(value) == 64):
        return False
    try:
        bytes.fromhex(value)
    except ValueError:
        return False
    return True


def _at(where: str, name: str | int) -> str:
    return f"{where}[{name}]" if isinstance(name, int) else f"{where}.{name}" if where else name


SHORTEST = 8  # hex digits a head may be given by (a Discord post's footer shows 8)
HEAD_FORM = (
    "SEQ:HASH (an event's number and its 64-hex-digit link, as an answer's head and the "
    f"page's Copy give it), or SEQ:PREFIX or PREFIX, its first {SHORTEST} or more hex digits "
    "(a Discord post's footer)"
)


@dataclass(frozen=True)
class Head:
    """A head a member witnessed, as given: its event's number (None: any event's) and its
    link, whole or its first hex digits (a check by eye, not a proof)."""

    text: str
    seq: int | None
    hashed: str

    @property
    def whole(self) -> bool:
        return len(self.hashed) == 64


def parse_head(text: str) -> Head:
    """A witnessed head: ``SEQ:HASH`` (as an export's last line and every answer give it),
    or ``SEQ:PREFIX`` / ``PREFIX``, at least ``SHORTEST`` hex digits of its link."""
    seq, colon, hashed = text.strip().removeprefix("#").rpartition(":")
    hashed = hashed.lower()
    digits = SHORTEST <= len(hashed) <= 64 and all(c in "0123456789abcdef" for c in hashed)
    if not digits or (colon and not (seq.isascii() and seq.isdigit())):
        raise D100Error("--head", text, HEAD_FORM, "not a head")
    return Head(text, int(seq) if colon else None, hashed)


def found_head(history: Followed, head: Head) -> tuple[int, str] | None:
    """The event a witnessed head names in ``history`` and the link it witnessed: given whole
    with its number, as given; given by a prefix, the one event whose link starts so (at its
    number, if given; None if no event's does). D100Error if more than one event's does."""
    if head.whole and head.seq is not None:
        return head.seq, head.hashed
    found = [
        (seq, linked)
        for seq, linked in history.links.items()
        if linked.startswith(head.hashed) and head.seq in (None, seq)
    ]
    if len(found) > 1:
        shown = ", ".join(f"#{seq}" for seq, _ in found[:5])
        raise D100Error(
            "--head",
            head.text,
            "more hex digits, or the event's number (SEQ:PREFIX)",
            f"the links of {len(found)} events start so ({shown})",
        )
    if found:
        return found[0]
    return None if head.seq is None else (head.seq, head.hashed)


# -- a blind roll shown: its commitment opened ------------------------------------------------

UNBLINDING = ("unblinds", "roll_kind", "roller_id", "rolled_at")
UNBLIND = "unblind"  # the kind of the event showing a blind roll
REVEAL_SHEET = "reveal_sheet"  # the kind of the event showing a character's sheets


def unblinded_content(view: Mapping[str, Any]) -> dict[str, Any]:
    """The blind roll's content an unblinding event's view repeats (``kinds.unblinded``): its
    data, made by its roller, in its kind and at its time."""
    data = {k: v for k, v in content(view).items() if k not in UNBLINDING}
    return data | {
        "kind": view.get("roll_kind"),
        "visibility": "blind",
        "actor_id": view.get("roller_id"),
        "at": view.get("rolled_at"),
    }


# -- following an export's chain ---------------------------------------------------------------


@dataclass
class Broken:
    line: int
    seq: int
    reason: str


@dataclass
class Followed:
    """An export's chain as ``follow`` found it: the events before it (logged before d100
    linked its log), each chained event's link, and the first link that does not hold."""

    before: list[int] = field(default_factory=list)
    links: dict[int, str] = field(default_factory=dict)
    broken: Broken | None = None

    @property
    def head(self) -> tuple[int, str] | None:
        if not self.links:
            return None
        seq = max(self.links)
        return seq, self.links[seq]


def follow(entries: Sequence[tuple[int, Mapping[str, Any]]]) -> Followed:
    """Recompute every link of an export (events in order, numbered), up to the first that
    does not follow from its event's view, its proof and the link before it."""
    out = Followed()
    previous, roots = GENESIS, dict[int, str]()
    for number, entry in entries:
        seq = int(entry["seq"])
        given = entry.get("chain")
        if given is None:
            if out.links:
                out.broken = Broken(
                    number,
                    seq,
                    f"no link, in a log chained from #{min(out.links)}: a chained log never "
                    "drops back to unlinked events (one was put in, or its link taken out)",
                )
                return out
            out.before.append(seq)
            continue
        try:
            root = _event_root(entry, given)
        except Unproven as err:
            where = f"{err.where}: " if err.where else ""
            out.broken = Broken(number, seq, f"its proof does not fit it ({where}{err.why})")
            return out
        expected = link(seq, previous, public_part(content(entry)), root)
        if given.get("link") != expected:
            after = f"#{max(out.links)}" if out.links else "the chain's start"
            out.broken = Broken(
                number,
                seq,
                f"its link does not follow from what it shows and the link of {after}: "
                "changed, put in, left out, moved or renumbered",
            )
            return out
        # a blind roll shown opens its commitment (a sheet revealed opens each sheet's field,
        # checked by ``d100.verify.replay`` against the events it names)
        opened = None if entry.get("kind") == REVEAL_SHEET else given.get("opens")
        if opened is None and entry.get("kind") == UNBLIND and entry.get("unblinds") in roots:
            out.broken = Broken(
                number, seq, f"shows blind roll #{entry['unblinds']} without opening its commitment"
            )
            return out
        if opened is not None:
            why = _opening(entry, opened, roots)
            if why:
                out.broken = Broken(number, seq, why)
                return out
        roots[seq] = root
        previous = out.links[seq] = expected
    # The head an export ends with is its last link (a log read from the events route, which
    # links nothing, has a head on every event: nothing to hold it to).
    head = entries[-1][1].get("head") if entries and out.links else None
    if head is not None and (not out.head or head != {"seq": out.head[0], "link": out.head[1]}):
        out.broken = Broken(
            entries[-1][0], int(entries[-1][1]["seq"]), "the export's head is not its last link"
        )
    return out


def _event_root(entry: Mapping[str, Any], given: Any) -> str:
    if not isinstance(given, Mapping) or not _is_hex(given.get("link")):
        raise Unproven("chain", "not a link (link: 64 hex digits, proof)")
    return root_of(entry, given.get("proof"))


def _opening(entry: Mapping[str, Any], opened: Any, roots: Mapping[int, str]) -> str:
    """Why a shown blind roll is not the one its stub committed to ('' when it is)."""
    seq = entry.get("unblinds")
    if not isinstance(seq, int) or seq not in roots:
        return f"opens blind roll {seq!r}, which is no earlier linked event"
    try:
        found = recompute(unblinded_content(entry), opened)
    except Unproven as err:
        return f"its opening of blind roll #{seq} does not fit it ({err})"
    if found != roots[seq]:
        return f"shows blind roll #{seq} otherwise than it was committed to when rolled"
    return ""


def extends(later: Followed, seq: int, hashed: str) -> str:
    """Why a history does not extend a witnessed head (its event ``seq``, link ``hashed``);
    '' when it does: its own link at ``seq`` is that one, so every event up to it is the same."""
    if later.broken is not None and later.broken.seq <= seq:
        return f"its chain breaks at #{later.broken.seq}, at or before the head #{seq}"
    found = later.links.get(seq)
    if found is None:
        last = later.head
        if last is not None and seq > last[0]:
            return f"it ends at #{last[0]}, before the head #{seq} (its tail cut off)"
        return f"#{seq} is not linked in it (before its chain)"
    if not found.startswith(hashed):
        return f"its #{seq} has another link than the head's: its history up to #{seq} differs"
    return ""


def first_difference(one: Followed, other: Followed) -> int | None:
    """The first event two histories both link and disagree on (None: none)."""
    shared = sorted(set(one.links) & set(other.links))
    return next((s for s in shared if one.links[s] != other.links[s]), None)
