"""What a viewer's export shows of a contest side or a roll kept from them in part, and
what a roll's provable record binds beside its numbers: each a reason when it does not hold."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..engine import resolve
from ..errors import D100Error
from ..provable import ProvableSource
from ..systems import REGISTRY
from .report import HIDDEN, MISMATCH
from .values import MISSING, at, brief, dice_of, outcome

# The parts of a roll the server may withhold, and the key naming whose each is (a roll names
# its helpers, but one logged before it did so names none: its result's level words show).
WITHHOLDABLE: dict[str, str | None] = {
    "actor": "character",
    "opponent": "opponent",
    "helpers": None,
}


def withheld_parts(entry: Mapping[str, Any]) -> tuple[str, str]:
    """A roll with parts this viewer may not see, each shown by name and level only, without
    the request that resolved it (the server's ``access.decide``): an NPC's side (a GM's
    character) or a side a GM's call chose, an NPC helping. Anything else saying so is not
    that: each part named must be in the roll, and none of its numbers shown."""
    named = entry["withheld"]
    parts = [named] if isinstance(named, str) else named  # an older export names one side
    if not (isinstance(parts, list) and parts and all(p in WITHHOLDABLE for p in parts)):
        return MISMATCH, f"says {brief(named)} is withheld, which names no part of a roll"
    words = " and ".join(f"{p}'s side" if p != "helpers" else "helpers' values" for p in parts)
    if "request" in entry["provable"]:  # what resolved it tells every part
        return MISMATCH, f"says its {words} withheld, yet shows it (its provable request)"
    contest = entry.get("kind") == "contest" or entry.get("roll_kind") == "contest"
    result = entry.get("result")
    result = result if isinstance(result, Mapping) else {}
    request = entry.get("request")
    request = request if isinstance(request, Mapping) else {}
    for part in parts:
        who = WITHHOLDABLE[part]
        if (who is not None and not entry.get(who)) or (part == "opponent" and not contest):
            return MISMATCH, f"says its {part} is withheld, yet it names no {part}"
        if part == "helpers":
            shown = _helpers_shown(result.get("actor", result) if contest else result)
        else:
            side = result.get(part) if contest else result
            shown = (
                (isinstance(side, Mapping) and "dice" in side)
                or (part in request if contest else bool(request))
                or f"{part}_skill" in entry
            )
        if shown is None:
            return MISMATCH, f"says its {part} is withheld, yet its result has none"
        if shown:
            return MISMATCH, f"says its {part} is withheld, yet shows it"
    return HIDDEN, (
        f"its {words} {'is' if len(parts) == 1 else 'are'} not shown to this viewer (the GM's "
        "export has them): its seed and nonce are checked in order"
    )


def side_shown(entry: Mapping[str, Any], system: Any) -> tuple[str, str] | None:
    """A contest's side shown whole beside a withheld one, recomputed by its system's own
    resolution from its request and the dice its result shows, where the system declares a
    side stands alone (its dice drew from a chain this viewer is not revealed, so only that
    its outcome follows from them is checked): a mismatch if it does not follow, else None.
    The withheld side is stood in for by a copy of the shown one. ``system``: the table's,
    which every roll's request is of (another would pass for one whose sides read each other)."""
    parts = entry["withheld"]
    parts = [parts] if isinstance(parts, str) else parts
    request, result = entry.get("request"), entry.get("result")
    contest = entry.get("kind") == "contest" or entry.get("roll_kind") == "contest"
    if not contest or "helpers" in parts or len(parts) != 1:
        return None  # a side helped by a withheld helper reads that help; nothing else is whole
    if not (isinstance(request, Mapping) and isinstance(result, Mapping)):
        return MISMATCH, "shows a contest's side without its request and result"
    if isinstance(system, str) and request.get("system") != system:
        return MISMATCH, (
            f"its request is of system {brief(request.get('system'))}, not the table's ({system})"
        )
    (hidden,) = parts
    side = "actor" if hidden == "opponent" else "opponent"
    mine, shown = request.get(side), result.get(side)
    if not (isinstance(mine, Mapping) and isinstance(shown, Mapping)):
        return MISMATCH, f"shows its {side}'s side without its request and result"
    try:
        declares = REGISTRY.get(request.get("system")).declares
        if not declares.sides_stand_alone:
            return None
        stand_in = {**request, side: _given(mine, shown), hidden: dict(mine)}
        again = json.loads(json.dumps(resolve(stand_in, ProvableSource(b"", "", 0)).to_dict()))
    except D100Error as err:
        return MISMATCH, f"its {side}'s side does not resolve from its dice: {err.message}"
    binds = declares.binds_other_side
    if _side_outcome(again[side], binds) != _side_outcome(shown, binds):
        return MISMATCH, (
            f"its {side}'s side shows {dice_of(shown)}, yet its request and dice give "
            f"{dice_of(again[side])}"
        )
    return None


def _given(request: Mapping[str, Any], result: Any) -> dict[str, Any]:
    """A side's request with the dice its result shows given, a nested request's (an
    assist's) in its nested result."""
    out = dict(request)
    if not isinstance(result, Mapping):
        return out
    if "dice" in result:
        out["dice"] = result["dice"]
    for key, value in request.items():
        nested = result.get(key)
        if isinstance(value, Mapping):
            out[key] = _given(value, nested)
        elif isinstance(value, list) and isinstance(nested, list) and len(value) == len(nested):
            pairs = zip(value, nested, strict=True)
            out[key] = [_given(v, n) if isinstance(v, Mapping) else v for v, n in pairs]
    return out


def _side_outcome(side: Mapping[str, Any], binds: frozenset[str]) -> Any:
    """A side's outcome as shown beside a withheld side: without what tells the other's
    numbers, and its resolved request without the dice (given here, drawn there)."""
    kept = {k: v for k, v in side.items() if k not in binds}
    if "request" in kept:
        kept["request"] = _undiced(kept["request"])
    return outcome(kept)


def _undiced(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _undiced(v) for k, v in value.items() if k != "dice"}
    if isinstance(value, list):
        return [_undiced(v) for v in value]
    return value


# What a roll's provable record binds beside its numbers (a roll made before it did binds
# none), and where the roll shows each.
NAMES_BOUND = (
    ("character_id", ("character", "id")),
    ("character_name", ("character", "name")),
    ("member_id", ("character", "member_id")),
    ("skill", ("skill",)),
)


# What a declared roll's card and sheet show of its result: each the result's own number
DECLARED_SHOWN = ("total", "roll", "level", "loss", "sanity", "sanity_after")


def declared_shown(entry: Mapping[str, Any], found: Mapping[str, Any]) -> str | None:
    """A reason if a dice or Sanity roll's view (its card) or its sheet's SAN shows other
    numbers than its recomputed result."""
    view = entry.get("view")
    if isinstance(view, Mapping):
        for key in DECLARED_SHOWN:
            if key in view and key in found and view[key] != found[key]:
                return f"its card shows {key} {brief(view[key])}, its dice give {found[key]}"
    sheet = entry.get("sheet")
    shown = sheet.get("sanity") if isinstance(sheet, Mapping) else None
    if shown is not None and shown != [found.get("sanity"), found.get("sanity_after")]:
        return f"its sheet shows SAN {brief(shown)}, its dice give otherwise"
    raised = sheet.get("skills") if isinstance(sheet, Mapping) else None
    if isinstance(raised, Mapping):  # a development phase: each value before and after
        rolled = [*found.get("skills", []), *([found["luck"]] if found.get("luck") else [])]
        made = {r["name"]: [r["before"], r["after"]] for r in rolled if r["after"] != r["before"]}
        if dict(raised) != made:
            return f"its sheet shows {brief(dict(raised))}, its dice give {brief(made)}"
    return None


def names_bound(entry: Mapping[str, Any], provable: Mapping[str, Any], check: bool) -> str | None:
    """Whose roll it is and of which skill, as its provable record binds them: a reason if
    the roll shows another character or skill, or if a check or contest (``check``) linked in
    the log's chain binds none: d100 bound them before it linked its log, so only a roll from
    before the chain may be one made before the binding. A dice or Sanity roll (not
    ``check``) showing a character binds the character (not a skill): d100 logged them
    after it linked its log."""
    bound = NAMES_BOUND if check else NAMES_BOUND[:3] if "character" in entry else ()
    if "chain" in entry:
        unbound = [key for key, _ in bound if key not in provable]
        if unbound:
            return (
                f"its provable record binds no {unbound[0]}, yet it is linked in the log's "
                "chain (every roll since the chain binds its character and skill)"
            )
    for key, path in NAMES_BOUND:
        shown = at(entry, list(path))
        if key in provable and shown != provable[key]:
            where = ".".join(path)
            what = "none" if shown is MISSING else brief(shown)
            return f"shows {where} {what}, where its provable record binds {brief(provable[key])}"
    return None


def _helpers_shown(check: Any) -> bool | None:
    """Whether a roll said to withhold a helper shows every helper's numbers (None: it had
    no helper): a withheld one is shown by its level only, without dice."""
    system = check.get("system") if isinstance(check, Mapping) else None
    known = isinstance(system, str) and system in REGISTRY
    assistance = REGISTRY.get(system).declares.assistance if known else None
    if assistance is None or assistance.field not in check:
        return None
    given = check[assistance.field]
    helpers = given if isinstance(given, list) else [given]
    return all(isinstance(h, Mapping) and "dice" in h for h in helpers)
