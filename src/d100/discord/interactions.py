"""Discord's interaction protocol: the numbers it sends and expects, and reading a payload.

Only what d100 uses: a payload is a verified JSON object (``signature``), so what it says
about its guild and user is Discord's word."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Interaction types (what Discord sends)
PING = 1
APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
AUTOCOMPLETE = 4
MODAL_SUBMIT = 5
# Response types (what d100 answers)
PONG = 1
MESSAGE = 4  # CHANNEL_MESSAGE_WITH_SOURCE
DEFERRED = 5  # DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: "thinking...", a follow-up edits it
DEFERRED_UPDATE = 6
UPDATE = 7
CHOICES = 8  # APPLICATION_COMMAND_AUTOCOMPLETE_RESULT
# Message flags
EPHEMERAL = 1 << 6  # seen by the user who acted only
# Permission bits (a member's ``permissions``, and a command's ``default_member_permissions``)
ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
BITS_DIGITS = 40  # a bitfield far wider than any Discord sends, yet cheap to read
# Option types of slash commands
SUB_COMMAND = 1
STRING = 3
INTEGER = 4
BOOLEAN = 5
ATTACHMENT = 11
# Command types and contexts
CHAT_INPUT = 1
# JSON error codes of Discord's REST API that mean "give up on this message", not "retry"
UNKNOWN_INTERACTION = 10062  # the token expired (15 minutes) or was never acknowledged
UNKNOWN_WEBHOOK = 10015
MISSING_ACCESS = 50001  # the bot cannot see or post in that channel
GIVE_UP = frozenset({UNKNOWN_INTERACTION, UNKNOWN_WEBHOOK, MISSING_ACCESS})


class BadPayload(Exception):
    """A signed payload d100 cannot read (400): Discord never sends one."""


@dataclass(frozen=True)
class Interaction:
    """What d100 reads of one interaction."""

    id: str
    type: int
    token: str  # for follow-ups, valid 15 minutes
    application_id: str
    guild_id: str | None
    channel_id: str | None
    user_id: str
    user_name: str  # as the server shows them: their nickname there, else their display name
    data: Mapping[str, Any]
    username: str = ""  # their account's own name, unique on Discord
    # What the member may do in the channel, as Discord computed it for this interaction
    # (none outside a server's channel).
    permissions: int = 0

    def may(self, permission: int) -> bool:
        """Whether the member holds ``permission`` there (an administrator holds all)."""
        return bool(self.permissions & (permission | ADMINISTRATOR))

    @property
    def who(self) -> str:
        """The rate limit's key: the verified guild (or a direct message) and user."""
        return f"discord:{self.guild_id or 'dm'}:{self.user_id}"

    @property
    def command(self) -> str:
        return str(self.data.get("name", ""))

    def options(self) -> dict[str, Any]:
        """A slash command's options by name (a subcommand's, flattened)."""
        found: dict[str, Any] = {}
        pending = list(self.data.get("options") or ())
        while pending:
            option = pending.pop(0)
            if not isinstance(option, Mapping):
                continue
            if option.get("type") == SUB_COMMAND or "options" in option:  # a subcommand's
                found.setdefault("subcommand", option.get("name"))  # options may be none
                pending.extend(option.get("options") or ())
            else:
                found[str(option.get("name"))] = option.get("value")
        return found

    def focused(self) -> tuple[str, str]:
        """An autocomplete's focused option: its name and what is typed so far."""
        pending = list(self.data.get("options") or ())
        while pending:
            option = pending.pop(0)
            if isinstance(option, Mapping):
                if option.get("focused"):
                    return str(option.get("name")), str(option.get("value") or "")
                pending.extend(option.get("options") or ())
        return "", ""


def read(payload: Any) -> Interaction:
    """The interaction a verified payload describes."""
    if not isinstance(payload, Mapping):
        raise BadPayload("not a JSON object")
    try:
        member = payload.get("member") or {}
        user = member.get("user") or payload.get("user") or {}
        kind = payload["type"]
        if not isinstance(kind, int) or isinstance(kind, bool):
            raise BadPayload("type: not an integer")
        return Interaction(
            id=str(payload["id"]),
            type=kind,
            token=str(payload.get("token", "")),
            application_id=str(payload.get("application_id", "")),
            guild_id=_id(payload.get("guild_id")),
            channel_id=_id(payload.get("channel_id")),
            user_id=str(user.get("id", "")),
            user_name=str(
                member.get("nick") or user.get("global_name") or user.get("username", "")
            ),
            data=payload.get("data") or {},
            username=str(user.get("username", "")),
            permissions=_bits(member.get("permissions")),
        )
    except (KeyError, AttributeError, TypeError) as err:
        raise BadPayload(f"unreadable interaction: {err}") from None


def _bits(value: Any) -> int:
    """A permissions bitfield, sent as the decimal string of an integer: anything else grants
    nothing."""
    text = str(value or "")
    return int(text) if text.isascii() and text.isdigit() and len(text) <= BITS_DIGITS else 0


def _id(value: Any) -> str | None:
    return None if value is None else str(value)


def message(
    content: str = "",
    embeds: list[dict[str, Any]] | None = None,
    private: bool = False,
    components: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A message's body (for an answer's ``data`` or a follow-up). Mentions are never
    pinged: a skill name typed as ``@everyone`` stays text."""
    out: dict[str, Any] = {"content": content, "allowed_mentions": {"parse": []}}
    if embeds:
        out["embeds"] = embeds
    if components:
        out["components"] = components
    if private:
        out["flags"] = EPHEMERAL
    return out


def answer(body: dict[str, Any]) -> dict[str, Any]:
    return {"type": MESSAGE, "data": body}


def deferred(private: bool) -> dict[str, Any]:
    """'thinking...' now, the message later: private is decided here, not by the follow-up."""
    return {"type": DEFERRED, "data": {"flags": EPHEMERAL} if private else {}}


def choices(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    return {"type": CHOICES, "data": {"choices": [{"name": n, "value": v} for n, v in pairs]}}
