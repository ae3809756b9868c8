"""The slash commands, made from the registered systems' declarations: the systems offered,
their examples and the quick form's words are each system's own, so a new system is on
Discord without a line here."""

from __future__ import annotations

from typing import Any

from ..server.access import VISIBILITIES
from ..systems import REGISTRY
from .interactions import ATTACHMENT, BOOLEAN, CHAT_INPUT, MANAGE_CHANNELS, STRING, SUB_COMMAND
from .limits import CHOICE_MAX, DESCRIPTION_MAX, NAME_MAX, clip

WORDS = "words"  # the quick form's words: ``[SYSTEM] SKILL WORDS...`` or a command form
SYSTEM = "system"  # the system, when the words name none
SECRET = "secret"  # answered to the roller only
WORDS_MAX = 200  # the longest quick roll a person types; a modal or a sheet is for more
# what each command does: (name, description, whether it rolls)
QUICK = (
    ("roll", "Roll a check, shown with its level, dice, target and exact odds", True),
    ("odds", "The exact odds of every level of a check, without rolling", False),
    ("advise", "Every option for a check, best chance first, with its cost", False),
)


def example() -> str:
    """A quick roll of the first registered system, in its own words."""
    first = next(iter(REGISTRY))
    harder = first.declares.target.example.split(",")[0].split(" ")[0]
    return f"{first.name} 65 {harder}".strip()


def _forms() -> str:
    with_forms = [s.name for s in REGISTRY if s.declares.commands is not None]
    return f"; or a command form of {', '.join(with_forms)}" if with_forms else ""


def quick_command(name: str, description: str, rolls: bool) -> dict[str, Any]:
    words = {
        "type": STRING,
        "name": WORDS,
        "description": clip(f"[system] skill words, e.g. {example()}{_forms()}", DESCRIPTION_MAX),
        "required": True,
        "autocomplete": True,
        "max_length": WORDS_MAX,
    }
    options: list[dict[str, Any]] = [words]
    options.append(
        _system_option(False) | {"description": "the rule system, when the words name none"}
    )
    private = "answer to me only" + (" (nobody else sees the roll)" if rolls else "")
    options.append({"type": BOOLEAN, "name": SECRET, "description": private, "required": False})
    return {
        "name": name,
        "type": CHAT_INPUT,
        "description": clip(description, DESCRIPTION_MAX),
        "options": options,
        "contexts": [0, 1, 2],  # a server's channels, the bot's DMs, private channels
        "integration_types": [0],
    }


TABLE = "table"  # the channel's table: ``/table open``, ``/table close``, ``/table delete``
OPEN = "open"
CLOSE = "close"
DELETE = "delete"  # the table deleted for good, by its GM, who types its name to confirm
# Who may open a channel's table: whoever may manage the channel. The registration hides
# ``/table`` from the rest (a server's admins may change that); each call is checked too.
OPENS = MANAGE_CHANNELS
OPENS_WORDS = "Manage Channels"  # that permission as Discord's settings name it
SHEET = "sheet"  # a character from an attached TOML file
FILE = "file"  # its attachment option
LINK = "link"  # the user's own link to the table's page, privately
NAME = "name"
HOUSE_RULES = "house_rules"
GM_LINK = "gm_link"  # ``/table open``'s table of the web, adopted by its GM link


def _system_option(required: bool) -> dict[str, Any]:
    option: dict[str, Any] = {
        "type": STRING,
        "name": SYSTEM,
        "description": "the rule system or edition",
        "required": required,
    }
    systems = [(clip(s.title, NAME_MAX), s.name) for s in REGISTRY]
    if len(systems) <= CHOICE_MAX:
        option["choices"] = [{"name": title, "value": value} for title, value in systems]
    else:  # more systems than a list holds: typed, with completion
        option["autocomplete"] = True
    return option


def table_commands() -> list[dict[str, Any]]:
    """``/table open``, ``close`` and ``delete``, ``/sheet`` and ``/link``: guild channels
    only (a table is a channel's)."""
    opening = {
        "type": SUB_COMMAND,
        "name": OPEN,
        "description": "Make this channel's table, with you as its GM, or bring yours from the web",
        "options": [
            _system_option(False),
            {"type": STRING, "name": NAME, "description": "the table's name", "max_length": 200},
            {
                "type": STRING,
                "name": HOUSE_RULES,
                "description": "house rules as TOML, e.g. key = true; other = 2",
                "max_length": 1000,
            },
            {
                "type": STRING,
                "name": GM_LINK,
                "description": "a table you are GM of on the web: your GM link (it is renewed)",
                "max_length": 500,
            },
        ],
    }
    closing = {
        "type": SUB_COMMAND,
        "name": CLOSE,
        "description": "Free this channel of its table (its GM, or who manages the channel)",
    }
    deleting = {
        "type": SUB_COMMAND,
        "name": DELETE,
        "description": "Delete this channel's table for good, its log and links (its GM)",
        "options": [
            {
                "type": STRING,
                "name": NAME,
                "description": "the table's name, typed to confirm",
                "required": True,
                "max_length": 200,
            }
        ],
    }
    return [
        {
            "name": TABLE,
            "type": CHAT_INPUT,
            "description": "This channel's table",
            "options": [opening, closing, deleting],
            "default_member_permissions": str(OPENS),
            "contexts": [0],
            "integration_types": [0],
        },
        {
            "name": SHEET,
            "type": CHAT_INPUT,
            "description": "Your character at this channel's table, from a TOML sheet",
            "options": [
                {
                    "type": ATTACHMENT,
                    "name": FILE,
                    "description": "the sheet: TOML, as d100's command line reads it",
                    "required": True,
                }
            ],
            "contexts": [0],
            "integration_types": [0],
        },
        {
            "name": LINK,
            "type": CHAT_INPUT,
            "description": "Your own link to this channel's table's page (only you see it)",
            "contexts": [0],
            "integration_types": [0],
        },
    ]


ROLL_AS = "r"  # ``/r character skill [words]``: a roll at the channel's table
CHARACTER = "character"
SKILL = "skill"
VISIBILITY = "visibility"


def roll_as_command() -> dict[str, Any]:
    """``/r``: its visibilities are the server's roll modes."""
    modes = [{"name": mode, "value": mode} for mode in VISIBILITIES]
    typed = {"type": STRING, "required": True, "autocomplete": True, "max_length": 80}
    return {
        "name": ROLL_AS,
        "type": CHAT_INPUT,
        "description": "Roll as your character at this channel's table",
        "options": [
            typed | {"name": CHARACTER, "description": "one of your characters here"},
            typed
            | {
                "name": SKILL,
                "description": "one of its sheet's skills, dice (1d6+1) or sc (words: 1/1d6)",
            },
            {
                "type": STRING,
                "name": WORDS,
                "description": "more of the roll, as the quick form's words; an attack "
                "against a character here: against=NAME",
                "max_length": WORDS_MAX,
            },
            {
                "type": STRING,
                "name": VISIBILITY,
                "description": "who sees the result",
                "choices": modes,
            },
        ],
        "contexts": [0],
        "integration_types": [0],
    }


CALL = "call"  # ``/call skill characters [hazard] [words]``: the GM calls a test
CHARACTERS = "characters"
HAZARD = "hazard"
OPPONENT = "opponent"  # a contest against a character the GM chooses (an NPC's, say)
OPPONENT_SKILL = "opponent_skill"
LOWEST = "lowest"  # a group's Luck roll: only the lowest Luck of those named is called
HAZARD_MAX = 500  # as the page's call takes it


def call_command() -> dict[str, Any]:
    """``/call``: public (a channel shows a message to all its members)."""
    return {
        "name": CALL,
        "type": CHAT_INPUT,
        "description": "Call a test (GM): a Roll button for each character called",
        "options": [
            {
                "type": STRING,
                "name": SKILL,
                "description": "the skill tested (or the start of its name)",
                "required": True,
                "autocomplete": True,
                "max_length": 80,
            },
            {
                "type": STRING,
                "name": CHARACTERS,
                "description": "the characters called, by name, separated by commas",
                "required": True,
                "autocomplete": True,
                "max_length": WORDS_MAX,
            },
            {
                "type": STRING,
                "name": HAZARD,
                "description": "what failure costs, said before anyone rolls",
                "max_length": HAZARD_MAX,
            },
            {
                "type": STRING,
                "name": WORDS,
                "description": "more of the test, as the quick form's words (e.g. hard)",
                "max_length": WORDS_MAX,
            },
            {
                "type": STRING,
                "name": OPPONENT,
                "description": "a contest against this character (players see an NPC's level only)",
                "autocomplete": True,
                "max_length": 80,
            },
            {
                "type": STRING,
                "name": OPPONENT_SKILL,
                "description": "the opponent's skill in the contest (players are not told it)",
                "autocomplete": True,
                "max_length": 80,
            },
            {
                "type": BOOLEAN,
                "name": LOWEST,
                "description": "a group Luck roll, where the rules have one: "
                "only the lowest Luck of those named rolls",
            },
        ],
        "contexts": [0],
        "integration_types": [0],
    }


LEDGER = "ledger"  # ``/ledger [character] [public]``: the luck ledger, privately unless asked
PUBLIC = "public"


def ledger_command() -> dict[str, Any]:
    """``/ledger``: the user's characters' rolls against their exact odds."""
    return {
        "name": LEDGER,
        "type": CHAT_INPUT,
        "description": "Are the dice fair? Your characters' rolls against their exact odds",
        "options": [
            {
                "type": STRING,
                "name": CHARACTER,
                "description": "one of your characters here (else all of them)",
                "autocomplete": True,
                "max_length": 80,
            },
            {
                "type": BOOLEAN,
                "name": PUBLIC,
                "description": "post it to the channel (then it counts what the channel sees)",
            },
        ],
        "contexts": [0],
        "integration_types": [0],
    }


def definitions() -> list[dict[str, Any]]:
    """Every command, as ``PUT /applications/{id}/commands`` takes the list."""
    quick = [quick_command(name, description, rolls) for name, description, rolls in QUICK]
    return quick + table_commands() + [roll_as_command(), call_command(), ledger_command()]
