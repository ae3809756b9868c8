"""The chain's format holds still (``d100.chain``): for the same event and secret, its link,
its content digest and its proofs are the bytes every export made so far was linked with.
Pinned to figures the first version of the chain computed, and held to a plain reading of
the module's description (every key derived and every value encoded afresh) on any JSON."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from d100 import chain

SECRET = "5e" * 32
PREVIOUS = "a1" * 32
# A roll as the server stores it, and values of every kind an event may hold: an object of
# more than 16 fields (padded to 32), empty objects and lists, lists of lists, negative and
# large numbers, a float, null, and strings that JSON escapes or holds beyond ASCII.
EVENT: dict[str, Any] = {
    "kind": "roll",
    "visibility": "public",
    "actor_id": "R7YtFlsrSgT7",
    "at": "2026-12-06T09:40:18.814+00:00",
    "character": {"id": "0XfQcnS68pjB", "name": 'Zoë "Mad" O\'Brien ✦ 🎲', "member_id": "m"},
    "skill": "stealth",
    "request": {"system": "brp", "skill": 65, "house_rules": {"threshold_rounding": "floor"}},
    "odds": {"levels": {"critical": "3/100", "fumble": "1/20"}, "success": "13/20"},
    "manual": False,
    "provable": {
        "seed_id": "4I4_aTftxv9a",
        "commitment": "8587ce2507c189aae4549f858453e5ee29599ed3cd47ac04ecc019a79cdcc5c8",
        "nonce": 0,
        "client_seed": None,
    },
    "result": {
        "system": "brp",
        "level": "success",
        "success": True,
        "roll": 26,
        "dice": [26],
        "digits": [[2, 6], [], [-1, 10**20]],
        "target": 65,
        "margin": -39,
        "ratio": 0.5,
        "luck_spent": 0,
        "attempts": [26, 3],
        "bands": "criticals 01-03,\tspecials 04-13\n\\ \x01",
        "explanation": "",
        "modifiers": [],
        "extra": {},
        "request": {"system": "brp", "skill": 65, "difficulty": 0, "modifiers": [{"x": 1}]},
        "a": 1,
        "b": 2,
        "c": 3,
    },
    "ünïcode key": "value",
}
# What a player who sees the roll but not the character's name nor the result's dice gets.
SHOWN = {
    **{k: v for k, v in EVENT.items() if k not in ("character", "result")},
    "character": {"id": "0XfQcnS68pjB"},
    "result": {k: v for k, v in EVENT["result"].items() if k != "dice"}
    | {"digits": [[2, 6], [], [-1, 10**20]]},
}
LINK = "b6f4ab1cbeba19a552698cda2e207cc768ece8c9b8b250232754cb17d1512363"
ROOT = "03c85d797cd483d361050024bdda9b8303cc344d57eb448eb544560fdd7baa35"
PROOF = "5fc091e3bc01b4364c2572eeb2bb6d058b839f3a7461786452102a3ddccdc044"


def _fingerprint(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def test_an_events_link_and_digest_are_the_ones_exports_were_linked_with() -> None:
    assert chain.digest("", EVENT, bytes.fromhex(SECRET)) == ROOT
    assert chain.seal(7, PREVIOUS, EVENT, SECRET) == LINK
    assert chain.link(7, PREVIOUS, chain.public_part(EVENT), ROOT) == LINK


def test_a_partial_views_proof_is_the_one_exports_carried_and_recomputes_the_root() -> None:
    given_proof = chain.proof(EVENT, SHOWN, bytes.fromhex(SECRET))
    assert _fingerprint(given_proof) == PROOF
    assert chain.recompute(SHOWN, given_proof) == ROOT
    assert chain.hidden_proof(EVENT, SECRET) == {"digest": ROOT}
    assert chain.proof(EVENT, EVENT, bytes.fromhex(SECRET)) == {"key": SECRET}


# -- the module's description read plainly: the oracle the chain's code is held to ----------


def _enc(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _plain_mac(key: bytes, *parts: bytes) -> bytes:
    return hashlib.blake2b(b"\x00".join(parts), key=key, digest_size=32).digest()


def _plain_node(tag: bytes, key: bytes, name: Any, parts: list[str]) -> str:
    salt = _plain_mac(key, b"salt").hex().encode()
    body = b"\x00".join(p.encode() for p in parts)
    return hashlib.sha256(b"\x00".join((tag, salt, _enc(name), body))).hexdigest()


def _plain_digest(name: Any, value: Any, key: bytes) -> str:
    def keyed(part: Any) -> bytes:
        return _plain_mac(key, b"key", _enc(part))

    if isinstance(value, dict):
        parts = [_plain_digest(k, v, keyed(k)) for k, v in value.items()]
        seed = _plain_mac(key, b"pad")
        pads = [hashlib.sha256(seed + bytes([i])).hexdigest() for i in range(-len(parts) % 16)]
        return _plain_node(b"object", key, name, sorted(parts + pads))
    if isinstance(value, list):
        items = [_plain_digest(i, v, keyed(i)) for i, v in enumerate(value)]
        return _plain_node(b"list", key, name, items)
    return _plain_mac(key, b"value", _enc(name), _enc(value)).hex()


JSONS = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=20)
    ),
    max_leaves=40,
)


@settings(max_examples=150, deadline=None)
@given(
    value=st.dictionaries(st.text(max_size=6), JSONS, max_size=20),
    secret=st.binary(min_size=32, max_size=32),
)
def test_a_digest_is_the_one_the_description_gives(value: dict[str, Any], secret: bytes) -> None:
    assert chain.digest("", value, secret) == _plain_digest("", value, secret)
