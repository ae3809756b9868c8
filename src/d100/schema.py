"""JSON Schemas of the contract, generated from the code: requests from the systems' field
tables, results from the result dataclasses. The package ships them in ``schemas/``;
``python -m d100.schema --write`` regenerates them and a test keeps them in step."""

from __future__ import annotations

import argparse
import dataclasses
import json
import types
import typing
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from .fields import json_schema
from .results import WINNERS, CheckResult, ContestResult
from .systems import REGISTRY

DRAFT = "https://json-schema.org/draft/2020-12/schema"
FRACTION = {"type": "string", "pattern": r"^(0|[1-9][0-9]*)/[1-9][0-9]*$"}
# Written by to_dict beside the dataclass fields: the tens and units die of each d100 (G1).
COMPUTED = {
    CheckResult: {
        "digits": {
            "type": "array",
            "items": {
                "type": "array",
                "items": {"type": "integer", "minimum": 0, "maximum": 9},
                "minItems": 2,
                "maxItems": 2,
            },
            "description": "[tens, units] of each die in dice (G1)",
        }
    }
}


def request_schema() -> dict[str, Any]:
    variants = []
    for system in REGISTRY:
        for kind, fields in (("check", system.check_fields), ("contest", system.contest_fields)):
            variants.append({"title": f"{system.name} {kind}", **json_schema(fields)})
    return {"$schema": DRAFT, "title": "d100 request", "oneOf": variants}


def _type(hint: Any, defs: dict[str, Any]) -> dict[str, Any]:
    origin = typing.get_origin(hint)
    if hint is type(None):
        return {"type": "null"}
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [_type(h, defs) for h in typing.get_args(hint)]}
    if origin is tuple:
        return {"type": "array", "items": _type(typing.get_args(hint)[0], defs)}
    if origin in (dict, Mapping) or hint is dict or typing.is_typeddict(hint):
        return {"type": "object"}
    if origin is typing.Literal:
        return {"enum": list(typing.get_args(hint))}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        _define(hint, defs)
        return {"$ref": f"#/$defs/{hint.__name__}"}
    return {"type": {str: "string", int: "integer", bool: "boolean"}[hint]}


def _define(cls: Any, defs: dict[str, Any]) -> None:
    if cls.__name__ in defs:
        return
    defs[cls.__name__] = {}  # placeholder: results nest results
    # a result's request is typed as its contract dict, named for type checkers only
    from .contract import CheckData, ContestData

    hints = typing.get_type_hints(cls, localns={"CheckData": CheckData, "ContestData": ContestData})
    props: dict[str, Any] = {}
    required = []
    for f in dataclasses.fields(cls):
        props[f.name] = _type(hints[f.name], defs)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
    props.update(COMPUTED.get(cls, {}))
    defs[cls.__name__] = {"type": "object", "properties": props, "required": required}


def result_schema() -> dict[str, Any]:
    defs: dict[str, Any] = {}
    _define(CheckResult, defs)
    _define(ContestResult, defs)
    return {
        "$schema": DRAFT,
        "title": "d100 result",
        "anyOf": [{"$ref": "#/$defs/CheckResult"}, {"$ref": "#/$defs/ContestResult"}],
        "$defs": defs,
    }


def odds_schema() -> dict[str, Any]:
    fractions = {"type": "object", "additionalProperties": FRACTION}
    check = {
        "type": "object",
        "properties": {"levels": fractions, "success": FRACTION, "luck_spent": FRACTION},
        "required": ["levels", "success"],
        "additionalProperties": False,
    }
    contest = {
        "type": "object",
        "properties": {
            "winner": {
                "type": "object",
                "properties": dict.fromkeys(WINNERS, FRACTION),
                "required": list(WINNERS),
                "additionalProperties": False,
            },
            "degree": fractions,
        },
        "required": ["winner"],
        "additionalProperties": False,
    }
    return {"$schema": DRAFT, "title": "d100 odds", "oneOf": [check, contest]}


SIGNED_FRACTION = {"type": "string", "pattern": r"^-?(0|[1-9][0-9]*)/[1-9][0-9]*$"}


def dice_schema() -> dict[str, Any]:
    """A dice expression's request, its result and its odds (``d100.expressions``)."""
    from .expressions import grammar, rolls

    text = {"type": "string", "maxLength": grammar.MAX_LENGTH}
    request = {
        "type": "object",
        "properties": {
            "expression": {**text, "description": grammar.ALLOWED},
            "damage_bonus": {
                "anyOf": [text, {"type": "integer"}, {"type": "null"}],
                "description": "what DB stands for: " + grammar.BONUS_ALLOWED,
            },
            "dice": {
                "anyOf": [
                    {
                        "type": "array",
                        "items": {"type": "integer", "minimum": 1},
                        "maxItems": grammar.MAX_DICE,
                    },
                    {"type": "null"},
                ],
                "description": "every die's value, in the order written, instead of drawing (G3)",
            },
            "label": {
                "anyOf": [{"type": "string", "maxLength": rolls.MAX_LABEL}, {"type": "null"}]
            },
        },
        "required": ["expression"],
        "additionalProperties": False,
    }
    defs: dict[str, Any] = {"DiceRequest": request}
    _define(rolls.DiceResult, defs)
    defs["DiceResult"]["properties"]["request"] = {"$ref": "#/$defs/DiceRequest"}
    row = {
        "type": "object",
        "properties": {"total": {"type": "integer"}, "chance": FRACTION, "at_least": FRACTION},
        "required": ["total", "chance", "at_least"],
        "additionalProperties": False,
    }
    defs["DiceOdds"] = {
        "type": "object",
        "properties": {
            "expression": {"type": "string"},
            "distribution": {"type": "array", "items": row},
            "mean": SIGNED_FRACTION,
            "request": {"$ref": "#/$defs/DiceRequest"},
        },
        "required": ["expression", "distribution", "mean", "request"],
        "additionalProperties": False,
    }
    return {
        "$schema": DRAFT,
        "title": "d100 dice expression: request, result or odds",
        "oneOf": [
            {"$ref": f"#/$defs/{name}"} for name in ("DiceRequest", "DiceResult", "DiceOdds")
        ],
        "$defs": defs,
    }


def sanity_schema() -> dict[str, Any]:
    """A Sanity roll's request, its result and its odds (``d100.sanity``)."""
    from . import sanity

    whole = {"type": "integer", "minimum": 0, "maximum": sanity.MOST}
    optional = {"anyOf": [whole, {"type": "null"}]}
    dice = {
        "anyOf": [{"type": "array", "items": {"type": "integer", "minimum": 1}}, {"type": "null"}]
    }
    names = [s.name for s in REGISTRY if s.declares.sanity is not None]
    request = {
        "type": "object",
        "properties": {
            "system": {"enum": names},
            "sanity": {**whole, "description": "the current SAN, at most the highest (S7-5)"},
            "loss": {"type": "string", "description": sanity.LOSS_ALLOWED},
            "intelligence": {**optional, "description": "INT, for the INT roll (S7-3)"},
            "mythos": {**whole, "description": "the Cthulhu Mythos (S7-5)"},
            "lost_today": {**whole, "description": "SAN lost earlier today (S7-4)"},
            "day_start": {**optional, "description": "the day's first SAN (S7-4)"},
            "insane": {"type": "boolean", "description": "already indefinitely insane (S7-3)"},
            "source_lost": {**optional, "description": "SAN lost to this source (S7-2's cap)"},
            "halve": {"type": "boolean", "description": "the loss halved, rounded down (S7-2)"},
            "pulp": {"type": "boolean", "description": "Pulp's Luck halves a loss (P-2)"},
            "luck": {**optional, "description": "the Luck to spend, with pulp (P-2)"},
            "pulp_halve_san_cost_foundry": {
                "type": "boolean",
                "description": "P-2's cost as Foundry's: twice the half rounded down",
            },
            **{stream: dice for stream in sanity.STREAMS},
            "label": {"anyOf": [{"type": "string", "maxLength": 200}, {"type": "null"}]},
        },
        "required": ["system", "sanity", "loss"],
        "additionalProperties": False,
    }
    defs: dict[str, Any] = {"SanityRequest": request}
    _define(sanity.SanityResult, defs)
    defs["SanityResult"]["properties"]["request"] = {"$ref": "#/$defs/SanityRequest"}
    row = {
        "type": "object",
        "properties": {"loss": {"type": "integer"}, "chance": FRACTION},
        "required": ["loss", "chance"],
        "additionalProperties": False,
    }
    chances = ("success", "mean", "luck_spent", "big_loss", "int_roll", "indefinite", "permanent")
    defs["SanityOdds"] = {
        "type": "object",
        "properties": {
            "levels": {"type": "object", "additionalProperties": FRACTION},
            **dict.fromkeys(chances, FRACTION),
            "losses": {"type": "array", "items": row},
            "temporary": {"anyOf": [FRACTION, {"type": "null"}]},
            "request": {"$ref": "#/$defs/SanityRequest"},
        },
        "required": ["levels", "losses", "temporary", "request", *chances],
        "additionalProperties": False,
    }
    return {
        "$schema": DRAFT,
        "title": "d100 Sanity roll: request, result or odds",
        "oneOf": [
            {"$ref": f"#/$defs/{name}"} for name in ("SanityRequest", "SanityResult", "SanityOdds")
        ],
        "$defs": defs,
    }


SCHEMAS = {
    "request": request_schema,
    "result": result_schema,
    "odds": odds_schema,
    "dice": dice_schema,
    "sanity": sanity_schema,
}

# The Python type of each kind of request field, for the contract's dict types.
PYTHON = {
    "int": "int",
    "bool": "bool",
    "int_list": "Sequence[int]",
    "preset": "int | str",
    "dice": "Sequence[int]",
    "text": "str",
    "object": "Mapping[str, Any]",
    "object_list": "Sequence[Mapping[str, Any]]",
}
CONTRACT_HEAD = '''"""The contract's request objects (CONTRACT.md) as type checkers see them.

They give ``resolve``, ``odds`` and ``parse`` their overloads: a dict written out as a check
types as a check, one with ``actor`` and ``opponent`` as a contest. The keys are the fields the
built-in systems declare, written here from their field tables by ``python -m d100.schema
--write`` (``tests/test_typing.py`` holds them to the tables); a dict that fits neither, or one
held in a ``dict[str, Any]``, gets the union. Values are checked at run time by the field
tables, as ever."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Required, TypedDict

from .systems import CheckRequest, ContestRequest

Request = CheckRequest | ContestRequest

__all__ = ["CheckData", "CheckRequest", "ContestData", "ContestRequest", "Request"]
'''


def _python(fields: list[Any]) -> str:
    """The type of one key across the systems that declare it: the union of theirs."""
    types: list[str] = []
    for f in fields:
        if f.kind == "choice":
            named = ["None" if c is None else type(c).__name__ for c in f.choices]
        else:
            named = PYTHON[f.kind].split(" | ")
        types += [t for i, t in enumerate(named) if t not in types and t not in named[:i]]
    none = ["None"] if "None" in types else []
    return " | ".join([t for t in types if t != "None"] + none)


def _typed_dict(name: str, doc: str, kind: str) -> str:
    tables = [s.check_fields if kind == "check" else s.contest_fields for s in REGISTRY]
    keys: dict[str, list[Any]] = {}
    for table in tables:
        for f in table:
            keys.setdefault(f.name, []).append(f)
    lines = [f"class {name}(TypedDict, total=False):", f'    """{doc}"""', ""]
    for key, fields in keys.items():
        required = len(fields) == len(tables) and all(f.required for f in fields)
        shown = _python(fields)
        lines.append(f"    {key}: {f'Required[{shown}]' if required else shown}")
    return "\n".join(lines) + "\n"


def contract_source() -> str:
    """``contract.py``: the dict types of every built-in system's check and contest fields."""
    check = _typed_dict(
        "CheckData",
        "A check as a contract dict: every field any system declares for a check.",
        "check",
    )
    contest = _typed_dict("ContestData", "A contest as a contract dict: two sides.", "contest")
    return f"{CONTRACT_HEAD}\n\n{check}\n\n{contest}"


def generated() -> dict[str, str]:
    return {name: json.dumps(make(), indent=2) + "\n" for name, make in SCHEMAS.items()}


def shipped(name: str) -> dict[str, Any]:
    """A schema as the installed package ships it."""
    text = resources.files("d100").joinpath("schemas", f"{name}.schema.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def main() -> None:
    parser = argparse.ArgumentParser(description="Print or write the contract's JSON Schemas.")
    parser.add_argument(
        "--write", action="store_true", help="rewrite src/d100/schemas/ and contract.py"
    )
    args = parser.parse_args()
    texts = generated()
    if not args.write:
        print(json.dumps({k: json.loads(v) for k, v in texts.items()}, indent=2))
        return
    folder = Path(__file__).parent / "schemas"
    folder.mkdir(exist_ok=True)
    for name, text in texts.items():
        (folder / f"{name}.schema.json").write_text(text)
    (Path(__file__).parent / "contract.py").write_text(contract_source())


if __name__ == "__main__":
    main()
