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
    if origin in (dict, Mapping) or hint is dict:
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
    hints = typing.get_type_hints(cls)
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


SCHEMAS = {"request": request_schema, "result": result_schema, "odds": odds_schema}


def generated() -> dict[str, str]:
    return {name: json.dumps(make(), indent=2) + "\n" for name, make in SCHEMAS.items()}


def shipped(name: str) -> dict[str, Any]:
    """A schema as the installed package ships it."""
    text = resources.files("d100").joinpath("schemas", f"{name}.schema.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def main() -> None:
    parser = argparse.ArgumentParser(description="Print or write the contract's JSON Schemas.")
    parser.add_argument("--write", action="store_true", help="rewrite src/d100/schemas/")
    args = parser.parse_args()
    texts = generated()
    if not args.write:
        print(json.dumps({k: json.loads(v) for k, v in texts.items()}, indent=2))
        return
    folder = Path(__file__).parent / "schemas"
    folder.mkdir(exist_ok=True)
    for name, text in texts.items():
        (folder / f"{name}.schema.json").write_text(text)


if __name__ == "__main__":
    main()
