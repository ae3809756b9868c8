"""What a viewer sees of each kind of event (``access.shape`` makes the views), as models and
as the JSON Schemas shipped in ``schemas/events/`` (and ``schemas/event.schema.json``, a line
of the log's export), generated from the event models (``event_kinds``) by
``python -m d100.server.event_views --write``."""

from __future__ import annotations

import argparse
import json
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import Field, RootModel, create_model

from .event_kinds import (
    HIDDEN,
    KINDS,
    CharacterChanged,
    DeclaredRoll,
    Entry,
    Part,
    Rolled,
    Visibility,
    absent,
    never_null,
)

DRAFT = "https://json-schema.org/draft/2020-12/schema"


class Head(Part):
    """The log's head after an event (``d100.chain``): its number and its link, to be kept
    and given to ``d100 verify --head`` later."""

    seq: int
    link: str = Field(pattern="^[0-9a-f]{64}$")


class Linked(Part):
    """An exported event's place in the log's hash chain (``d100.chain``): its link, the proof
    of what this viewer sees of it, and, for a blind roll shown, the opening of the blind
    roll's commitment. Absent for an event logged before the chain."""

    link: str = Field(pattern="^[0-9a-f]{64}$")
    proof: dict[str, Any]
    opens: dict[str, Any] | None = absent()


class Chained(Part):
    chain: Linked | None = absent()
    head: Head | None = Field(
        None,
        description="the log's head after this event: an answer's, a stream event's, the "
        "export's last line's",
        json_schema_extra=never_null,
    )


class Viewed(Chained):
    """What every view of an event has besides its data (``access.shape``)."""

    seq: int
    kind: str
    visibility: Visibility
    actor_id: str | None
    at: str
    hidden: Literal[True] | None = Field(
        None,
        description="the roller's own blind roll: made, its result not seen",
        json_schema_extra=never_null,
    )


class RollViewed(Viewed):
    withheld: list[Literal["actor", "opponent", "helpers"]] | None = Field(
        None,
        description="the parts shown by name and level only (actor, opponent, helpers): an "
        "NPC's, or the side a GM's call chose, for a viewer who may not read its sheet",
        json_schema_extra=never_null,
    )
    view: dict[str, Any] | None = Field(
        None,
        description="how the result reads, as every door shows it (d100.result_view: a "
        "check's ResultView or a contest's ContestView), made of what this viewer sees",
        json_schema_extra=never_null,
    )


class DeclaredViewed(Viewed):
    withheld: list[Literal["actor"]] | None = Field(
        None,
        description="an NPC's dice or Sanity roll, for a viewer who may not read its sheet: "
        "shown by its outcome only (the total, the level and the loss)",
        json_schema_extra=never_null,
    )
    view: dict[str, Any] | None = Field(
        None,
        description="how it reads, as every door shows it: a Sanity roll's SanityView with its "
        "exact odds, a dice roll's total, explanation and chance; absent from a blind view",
        json_schema_extra=never_null,
    )


class CharacterViewed(Viewed):
    withheld: list[Literal["sheet"]] | None = Field(
        None,
        description="the sheet, for a viewer who may not read it: its export binds it by its "
        "digest in the chain, and d100 verify names it unchecked",
        json_schema_extra=never_null,
    )


class HiddenProvable(Part):
    seed_id: str
    nonce: int


class HiddenView(Chained):
    """An event this viewer may not see: its number and, for a roll, the seed and nonce it
    drew, so ``d100 verify`` checks that every nonce is used once, in order."""

    seq: int
    kind: Literal["hidden"]
    hidden: Literal[True]
    provable: HiddenProvable | None = absent()


def viewed(kind: type[Entry]) -> type[Part]:
    """The model of a kind's views: the view's own keys, then the kind's data."""
    base: type[Viewed] = RollViewed if issubclass(kind, Rolled) else Viewed
    if issubclass(kind, DeclaredRoll):
        base = DeclaredViewed
    if issubclass(kind, CharacterChanged):
        base = CharacterViewed
    data = {
        name: (field.annotation, field)
        for name, field in kind.model_fields.items()
        if name not in Entry.model_fields
        and name not in base.model_fields
        and not (base is DeclaredViewed and name == "reading")  # shown as its ``view``
    }
    made: type[Part] = create_model(  # type: ignore[call-overload]
        f"{kind.__name__}View",
        __base__=base,
        __doc__=kind.__doc__,
        kind=(Literal[kind.KIND], ...),
        **data,
    )
    return made


VIEWS: dict[str, type[Part]] = {name: viewed(kind) for name, kind in KINDS.items()}
VIEWS[HIDDEN] = HiddenView


# Any kind's view, told apart by its kind (only models built above are in it).
_ANY_VIEW = Annotated[Union[tuple(VIEWS.values())], Field(discriminator="kind")]  # type: ignore[valid-type]  # noqa: UP007


class EventView(RootModel[_ANY_VIEW]):  # type: ignore[valid-type]
    """A logged event as this viewer sees it, a line of the log's JSON Lines export: what its
    visibility hides from this viewer is absent (a blind roller's result; all but its number
    and seed for one who may not see it)."""


def schemas() -> dict[str, dict[str, Any]]:
    """Each kind's view schema by file name, and the export line's (any kind's view)."""
    out = {
        f"events/{name}": {"$schema": DRAFT, **view.model_json_schema()}
        for name, view in VIEWS.items()
    }
    out["event"] = {"$schema": DRAFT, **EventView.model_json_schema()}
    return out


def generated() -> dict[str, str]:
    return {name: json.dumps(schema, indent=2) + "\n" for name, schema in schemas().items()}


def shipped(name: str) -> dict[str, Any]:
    """A schema as the installed package ships it (``events/roll``, ``event``)."""
    text = resources.files("d100").joinpath("schemas", f"{name}.schema.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def main() -> None:
    parser = argparse.ArgumentParser(description="Print or write the log's event schemas.")
    parser.add_argument("--write", action="store_true", help="rewrite src/d100/schemas/")
    args = parser.parse_args()
    texts = generated()
    if not args.write:
        print(json.dumps({k: json.loads(v) for k, v in texts.items()}, indent=2))
        return
    folder = Path(__file__).parent.parent / "schemas"
    (folder / "events").mkdir(exist_ok=True)
    for name, text in texts.items():
        (folder / f"{name}.schema.json").write_text(text)


if __name__ == "__main__":
    main()
