"""The table's house rules replayed from its log: as the table opened with them, then as each
``house_rules`` event (its GM's ``.setcoc 2``) set them, each change's rules before being the
table's then and its rules after ones the system takes. A roll is held to the rules of its
moment: a check's ``house_rules`` are the table's, but where a chat-bot word asks its own
(``Declaration.word_house_rules``: SealDice's ``.rc``, named on trust), and a chat-bot word's
roll that is no check (``.sc``, ``.en``) is its request ruled by them. A log from before d100
logged a table's house rules leaves them unchecked."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .. import quick
from ..engine import parse
from ..errors import D100Error
from ..systems import REGISTRY
from .values import brief

OLDER = (
    "the house rules rolls were judged by: the log does not give the table's (opened before "
    "d100 logged them)"
)
Rules = dict[str, Any]


class House:
    """The table's house rules at each moment of its log (None: not given by it)."""

    def __init__(self, system: str | None) -> None:
        self.system = system
        self.rules: Rules | None = None
        self.unknown = False  # a roll was held to rules the log does not give
        self.at: dict[int, Rules | None] = {}  # a roll's number -> the rules then

    def opened(self, entry: Mapping[str, Any]) -> None:
        given = entry.get("house_rules")
        self.rules = dict(given) if isinstance(given, Mapping) else None

    def changed(self, entry: Mapping[str, Any]) -> str | None:
        """A change of the rules: why it does not follow from the log, else None."""
        before, after = entry.get("before"), entry.get("after")
        if not isinstance(before, Mapping) or not isinstance(after, Mapping):
            return "a change of the house rules without its rules before and after"
        if self.rules is not None and dict(before) != self.rules:
            why = (
                f"its house rules before are {brief(dict(before))}, where the table's were "
                f"{brief(self.rules)}"
            )
            self.rules = dict(after)
            return why
        self.rules = dict(after)
        if self.system is None:
            return None
        try:  # rules the table's system takes, together
            parse({"system": self.system, "skill": 50, quick.HOUSE: dict(after)})
        except D100Error as err:
            return f"its house rules after are none the table's rules take: {err.message}"
        return None

    def then(self, seq: int, earlier: Any = None) -> Rules | None:
        """The rules a roll is held to: a roll shown or followed later, its own roll's."""
        if isinstance(earlier, int):
            return self.at.get(earlier, self.rules)
        self.at[seq] = self.rules
        return self.rules

    def check(self, asked: Any, rules: Rules | None, trusted: list[str]) -> str | None:
        """A check's (or contest's) house rules against the table's: why they differ."""
        if not isinstance(asked, Mapping) or self.system is None:
            return None
        if rules is None:
            self.unknown = True
            return None
        own = REGISTRY.get(self.system).declares.word_house_rules
        given = asked.get(quick.HOUSE, {})
        given = given if isinstance(given, Mapping) else {}
        for key in sorted(set(given) | set(rules)):
            got, want = given.get(key), rules.get(key)
            if got == want:
                continue
            if got in own.get(key, ()):
                trusted.append(
                    f"its house rule {key} {brief(got)}: a chat-bot word's own (the table's is "
                    f"{brief(want)})"
                )
                continue
            return (
                f"its request has house rule {key} {brief(got)}, where the table's house rules "
                f"then give {brief(want)}"
            )
        return None

    def word(self, kind: Any, request: Any, rules: Rules | None) -> str | None:
        """A chat-bot word's roll that is no check: its request ruled by the table's rules."""
        if rules is None or not isinstance(request, Mapping):
            self.unknown = self.unknown or rules is None
            return None
        try:
            made = quick.word_roll(kind, request)
            again = None if made is None else made.ruled(rules).to_dict()
        except D100Error:
            return None  # the roll's own check names a request that does not build
        again = json.loads(json.dumps(again))
        for key in sorted(again or {}):
            if again is not None and again[key] != request.get(key):
                return (
                    f"its request has {key} {brief(request.get(key))}, where the table's "
                    f"house rules then give {brief(again[key])}"
                )
        return None

    def notes(self) -> list[str]:
        return [OLDER] if self.unknown else []
