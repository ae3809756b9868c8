"""Declarative request fields: one table per system drives parsing, errors (G5) and the JSON
Schema, so the three can never disagree."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .errors import D100Error, LongNumber, integer, shown

Kind = Literal[
    "int", "bool", "int_list", "preset", "choice", "dice", "text", "object", "object_list"
]

MAX_LIST = 100  # modifiers, synergy, assisters: far beyond any table, small enough to bound work
MAX_DICE = 1000
MAX_TEXT = 100  # a text field (a loss as dice, 1d4/1d6): far beyond any rule's
BIG = 1000  # skills, modifiers and risks beyond this are typing mistakes, not characters


@dataclass(frozen=True)
class Field:
    name: str
    kind: Kind
    description: str
    low: int | None = None
    high: int | None = None
    default: Any = None
    required: bool = False
    presets: Mapping[str, int] = field(default_factory=dict)
    choices: tuple[Any, ...] = ()
    fields: tuple[Field, ...] = ()  # for nested objects
    max_items: int = MAX_LIST  # for lists: a bound on the work one request can ask for
    # The command line's option strings for the field; None: ``--name-with-dashes`` for a
    # field a flag can give (not an object), () none.
    flags: tuple[str, ...] | None = None
    # Quick-roll words (``d100 roll``, the shell, ``d100.quick``), matched in any case:
    # ``"boost"`` a word (true for a bool, 1 for an int), ``"b#"`` a number after the word
    # (``b2``), ``"+#"`` a signed number (``+20``, ``-5``), ``"@*"`` any text after it (read as
    # the field's flag reads its value). A preset's names and a choice's strings are words too.
    words: tuple[str, ...] = ()
    # Whether a choice's strings are quick words too: not where another field's words claim
    # them (a level to buy beside a difficulty named by the same levels); KEY=VALUE sets it.
    choice_words: bool = True
    # A text field's shape, a regular expression: a quick word of this shape sets it (a Delta
    # Green loss ``1d4/1d6``). What the text means its system checks.
    pattern: str | None = None

    def __post_init__(self) -> None:
        for word in self.words:
            shape = word_shape(word)
            if shape is None or (shape[1] == "" and self.kind not in ("bool", "int")):
                raise ValueError(
                    f"field {self.name}: quick word {word!r} does not fit a {self.kind}"
                )

    @property
    def option_strings(self) -> tuple[str, ...]:
        """The command line's flags for the field (none for objects, unless declared)."""
        if self.flags is not None:
            return self.flags
        if self.kind in ("object", "object_list"):
            return ()
        return ("--" + self.name.replace("_", "-"),)

    def allowed(self) -> str:
        span = _span(self.low, self.high)
        if self.kind == "int":
            return f"an integer {span}"
        if self.kind == "bool":
            return "true or false"
        if self.kind == "int_list":
            return f"a list of at most {self.max_items} integers {span}".rstrip()
        if self.kind == "preset":
            names = ", ".join(f"{k} ({v:+d})" if k else k for k, v in self.presets.items())
            return f"one of {names}, or an integer {span}".rstrip()
        if self.kind == "choice":
            return "one of " + ", ".join(_json(c) for c in self.choices)
        if self.kind == "dice":
            return f"a list of at most {MAX_DICE} d100 values 1..100"
        if self.kind == "text":
            return f"a text of at most {MAX_TEXT} characters"
        if self.kind == "object":
            return "an object with fields " + ", ".join(f.name for f in self.fields)
        return f"a list of at most {self.max_items} objects with fields " + ", ".join(
            f.name for f in self.fields
        )


def word_shape(word: str) -> tuple[str, str] | None:
    """A quick word's prefix and what follows it: ``"#"`` a number, ``"+#"`` a signed one,
    ``"*"`` any text, ``""`` nothing (the word alone); None for a malformed word."""
    if word == "+#":
        return ("", "+#")
    for tail in ("#", "*"):
        if word.endswith(tail) and len(word) > 1 and tail not in word[:-1]:
            return (word[:-1].lower(), tail)
    if word and not any(c in word for c in "#*") and not word.lstrip("+-").isdigit():
        return (word.lower(), "")
    return None


def _span(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"{low}..{high}"
    if low is not None:
        return f">= {low}"
    if high is not None:
        return f"<= {high}"
    return ""


def _json(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def path(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def read(data: Any, fields: Sequence[Field], where: str = "") -> dict[str, Any]:
    """Check ``data`` against ``fields``; answer the parsed values, defaults filled in."""
    if not isinstance(data, Mapping):
        raise D100Error(where or "request", data, "a JSON object", "not an object")
    known = {f.name: f for f in fields}
    for key in data:
        if key not in known:
            raise D100Error(
                path(where, str(key)), data[key], "fields " + ", ".join(known), "unknown field"
            )
    out: dict[str, Any] = {}
    for f in fields:
        if f.name not in data:
            if f.required:
                raise D100Error(path(where, f.name), None, f.allowed(), "required")
            out[f.name] = f.default
            continue
        out[f.name] = _value(f, data[f.name], path(where, f.name))
    return out


def validate(obj: Any, fields: Sequence[Field], nested: Mapping[str, type] | None = None) -> None:
    """Hold a request object built directly to the same table ``read`` holds a contract dict
    to, so that no request bypasses it: each attribute the table names is checked the same way
    (lists become tuples, preset names their values), unset optional parts (None) pass, and a
    nested part must be an instance of its class in ``nested`` (it checked itself when built)."""
    for f in fields:
        value = getattr(obj, f.name, _ABSENT)
        if value is _ABSENT or _plainly_fits(f, value):
            continue
        if f.kind in ("object", "object_list"):
            cls = (nested or {}).get(f.name)
            parsed = value if cls is None else _instances(f, value, cls)
        elif value is None and f.default is None and not f.required:  # unset, as its default
            continue
        else:
            parsed = _value(f, value, f.name)
        if parsed is not value:
            object.__setattr__(obj, f.name, parsed)


_ABSENT = object()


def _within(f: Field, value: Any) -> bool:
    return (
        type(value) is int
        and (f.low is None or value >= f.low)
        and (f.high is None or value <= f.high)
    )


def _plainly_fits(f: Field, value: Any) -> bool:
    """The common case, decided at once: a value already as ``read`` would answer it (requests
    are built at every parse, so this stays cheap); anything else goes the long way."""
    kind = f.kind
    if kind in ("int", "preset"):
        return _within(f, value)
    if kind == "bool":
        return type(value) is bool
    if kind == "int_list":
        return (
            type(value) is tuple and len(value) <= f.max_items and all(_within(f, v) for v in value)
        )
    if kind == "choice":
        return any(value is c for c in f.choices)  # None, or the very strings and ints
    if kind == "dice":
        return (
            type(value) is tuple
            and len(value) <= MAX_DICE
            and all(type(v) is int and 1 <= v <= 100 for v in value)
        )
    if kind == "text":
        return type(value) is str and len(value) <= MAX_TEXT
    return False


def _instances(f: Field, value: Any, cls: type) -> Any:
    if f.kind == "object":
        optional = f.default is None and not f.required  # an assist may be absent
        if isinstance(value, cls) or (optional and value is None):
            return value
        allowed = f"{cls.__name__} or None" if optional else cls.__name__
        raise D100Error(f.name, value, allowed, f"not {cls.__name__}")
    items = _list(f, value, f.name, f.max_items)
    for i, v in enumerate(items):
        if not isinstance(v, cls):
            raise D100Error(f"{f.name}[{i}]", v, cls.__name__, f"not {cls.__name__}")
    return value if isinstance(value, tuple) else tuple(items)


def _value(f: Field, value: Any, at: str) -> Any:
    if f.kind == "int":
        return _int(f, value, at)
    if f.kind == "bool":
        if not isinstance(value, bool):
            raise D100Error(at, value, f.allowed(), f"not true or false: {_show(value)}")
        return value
    if f.kind == "int_list":
        items = _list(f, value, at, f.max_items)
        return tuple(_int(f, v, f"{at}[{i}]") for i, v in enumerate(items))
    if f.kind == "preset":
        if isinstance(value, str):
            key = value.strip().lower().replace("_", "-").replace(" ", "-")
            if key in f.presets:
                return f.presets[key]
            raise D100Error(at, value, f.allowed(), f"unknown preset {value!r}")
        return _int(f, value, at)
    if f.kind == "choice":
        if value in f.choices and type(value) in {type(c) for c in f.choices}:
            return value
        raise D100Error(at, value, f.allowed(), f"not allowed: {_show(value)}")
    if f.kind == "dice":
        items = _list(f, value, at, MAX_DICE)
        out = []
        for i, v in enumerate(items):
            if not is_int(v) or not 1 <= v <= 100:
                raise D100Error(
                    f"{at}[{i}]", v, "d100 values 1..100", f"not a d100 value: {_show(v)}"
                )
            out.append(v)
        return tuple(out)
    if f.kind == "text":
        if not isinstance(value, str):
            raise D100Error(at, value, f.allowed(), f"not a text: {_show(value)}")
        if len(value) > MAX_TEXT:
            raise D100Error(at, f"{len(value)} characters", f.allowed(), "too long")
        return value
    if f.kind == "object":
        return read(value, f.fields, at)
    items = _list(f, value, at, f.max_items)
    return tuple(read(v, f.fields, f"{at}[{i}]") for i, v in enumerate(items))


def _list(f: Field, value: Any, at: str, limit: int) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise D100Error(at, value, f.allowed(), f"not a list: {_show(value)}")
    if len(value) > limit:
        raise D100Error(at, f"{len(value)} items", f.allowed(), f"too long: {len(value)} items")
    return list(value)


def _int(f: Field, value: Any, at: str) -> int:
    if isinstance(value, LongNumber):  # JSON digits past Python's limit: said by their length
        raise D100Error(at, value, f.allowed(), f"{value!r}: too long")
    if not is_int(value):
        what = "a bool" if isinstance(value, bool) else type(value).__name__
        raise D100Error(at, value, f.allowed(), f"not an integer ({what}): {_show(value)}")
    if (f.low is not None and value < f.low) or (f.high is not None and value > f.high):
        raise D100Error(at, value, f.allowed(), f"out of range: {_show(value)}")
    assert isinstance(value, int)
    return value


def _show(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return _json(value)
    return shown(value)


def exactly_one(names: Sequence[str]) -> dict[str, Any]:
    """JSON Schema of a rule between fields: exactly one of ``names`` given (a target, as
    ``systems.common.one_of`` checks it)."""
    return {"oneOf": [{"required": [n]} for n in names]}


def only_with(name: str, needs: str, equal: Any = None, given: Any = None) -> dict[str, Any]:
    """JSON Schema of a rule between fields: ``name`` given (or given as ``given``) only
    with ``needs`` given too (and equal to ``equal``, where said)."""
    condition: dict[str, Any] = {"required": [name]}
    if given is not None:
        condition["properties"] = {name: {"const": given}}
    then: dict[str, Any] = {"required": [needs]}
    if equal is not None:
        then["properties"] = {needs: {"const": equal}}
    return {"if": condition, "then": then}


def sides(rules: Sequence[Mapping[str, Any]], names: Sequence[str] = ("actor", "opponent")) -> Any:
    """A check's rules between fields, held by each side of a contest."""
    return {"properties": {n: {"allOf": list(rules)} for n in names}}


def json_schema(fields: Sequence[Field]) -> dict[str, Any]:
    """The JSON Schema of an object made of ``fields``."""
    props: dict[str, Any] = {}
    for f in fields:
        props[f.name] = {**_schema(f), "description": f.description}
    schema: dict[str, Any] = {
        "type": "object",
        "properties": props,
        "additionalProperties": False,
    }
    required = [f.name for f in fields if f.required]
    if required:
        schema["required"] = required
    return schema


def _int_schema(f: Field) -> dict[str, Any]:
    s: dict[str, Any] = {"type": "integer"}
    if f.low is not None:
        s["minimum"] = f.low
    if f.high is not None:
        s["maximum"] = f.high
    return s


def _schema(f: Field) -> dict[str, Any]:
    if f.kind == "int":
        return _int_schema(f)
    if f.kind == "bool":
        return {"type": "boolean"}
    if f.kind == "int_list":
        return {"type": "array", "items": _int_schema(f), "maxItems": f.max_items}
    if f.kind == "preset":
        return {"oneOf": [{"enum": list(f.presets)}, _int_schema(f)]}
    if f.kind == "choice":
        return {"enum": list(f.choices)}
    if f.kind == "dice":
        return {
            "type": "array",
            "items": {"type": "integer", "minimum": 1, "maximum": 100},
            "maxItems": MAX_DICE,
        }
    if f.kind == "text":  # what it means, its system checks: a pattern cannot say
        return {"type": "string", "maxLength": MAX_TEXT}
    if f.kind == "object":
        return json_schema(f.fields)
    return {"type": "array", "items": json_schema(f.fields), "maxItems": f.max_items}


def from_text(f: Field, text: str, at: str) -> Any:
    """What a person typed for ``f`` (a flag's value, a quick word's, ``KEY=VALUE``) as the
    contract value the field reads; ``read`` still holds it to the field's range."""
    t = text.strip()
    if f.kind == "int":
        return _typed_int(t, at, f.allowed())
    if f.kind == "preset":
        return integer(t, at, f.allowed()) if _is_int_text(t) else t.lower()
    if f.kind == "bool":
        low = t.lower()
        if low in ("true", "yes", "on", "1", ""):
            return True
        if low in ("false", "no", "off", "0"):
            return False
        raise D100Error(at, text, "true or false (yes, no, on, off, 1, 0)", "not true or false")
    if f.kind == "int_list":
        return [_typed_int(p, at, "integers separated by ','") for p in t.split(",") if p.strip()]
    if f.kind == "dice":
        allowed = "d100 values 1..100 separated by ',' (00 is 100)"
        return [
            100 if p.strip() == "00" else _typed_int(p, at, allowed)
            for p in t.split(",")
            if p.strip()
        ]
    if f.kind == "choice":
        for c in f.choices:
            if (c is None and t.lower() in ("none", "null")) or str(c).lower() == t.lower():
                return c
        raise D100Error(at, text, f.allowed(), f"not allowed: {text!r}")
    if f.kind == "text":
        return t
    import json  # objects typed by hand are rare: JSON, or KEY=VALUE pairs for an object

    try:
        return json.loads(t)
    except json.JSONDecodeError:
        if f.kind == "object_list" or "=" not in t:
            raise D100Error(at, text, f.allowed() + ", as JSON", "not JSON") from None
    pairs = (p.partition("=") for p in t.split(",") if p.strip())
    return {k.strip(): int(v) if _is_int_text(v.strip()) else v.strip() for k, _, v in pairs}


def _is_int_text(text: str) -> bool:
    return text.lstrip("+-").isdigit() and text.count("+") + text.count("-") <= 1


def _typed_int(text: str, at: str, allowed: str = "an integer") -> int:
    t = text.strip()
    if not _is_int_text(t):
        raise D100Error(at, text, allowed, f"not an integer: {text!r}")
    return integer(t, at, allowed)
