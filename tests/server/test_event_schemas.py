"""The log's event kinds as the package ships their JSON Schemas: every event of a played
table, as its GM, its roller and another player see it, in the events route and in the
export, fits its kind's schema; the shipped files are the models' own; a wrong event fails."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from d100.server import event_kinds as kinds
from d100.server import event_views as views
from d100.server.access import GM, PLAYER, Viewer, view_event
from d100.server.app import create_app
from d100.server.events import events_after
from d100.server.models import Logged

from .played import Played, play_every_kind
from .services import DATABASES, database_for
from .tablehelp import Api, Table

SCHEMAS = Path(kinds.__file__).parent.parent / "schemas"
from .described import fits  # noqa: E402


def _checker(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(views.shipped(name))


@pytest.fixture(scope="module", params=DATABASES)
def played(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Api, list[Played]]]:
    """The tables played through every kind of event, once per database for the module: the
    tests that read their events (through the routes, the export and the store) change none."""
    url = database_for(request, tmp_path_factory.mktemp("kinds"))
    with TestClient(create_app(url)) as client:
        api = Api(client)
        yield api, play_every_kind(api)


def _views(table: Table, token: str) -> list[tuple[str, dict[str, Any]]]:
    """The token's views of the table's events, from the events route and from the export."""
    routed = [("events", e) for e in table.events(token)]
    exported = table.req("GET", "/log.jsonl", token).text.splitlines()
    return routed + [("export", json.loads(line)) for line in exported]


def test_every_event_of_a_played_table_fits_its_kind_s_shipped_schema(
    played: tuple[Api, list[Played]],
) -> None:
    """Each view, whole, cut (a blind roller's, an NPC's part withheld) or a stub, fits the
    schema of its kind, the export line's and the API's EventView; every kind is seen."""
    checkers = {name: _checker(f"events/{name}") for name in views.VIEWS}
    line = _checker("event")
    described = fits({"$ref": "#/components/schemas/EventView"})
    seen: set[str] = set()
    cut: set[str] = set()
    checked: set[str] = set()  # a view is checked once, however many viewers and routes give it
    for tables in played[1]:
        for token in tables.viewers:
            for where, view in _views(tables.table, token):
                same = json.dumps(view, sort_keys=True)
                if same in checked:
                    continue
                checked.add(same)
                errors = list(checkers[view["kind"]].iter_errors(view))
                assert not errors, (where, view["kind"], errors[0].message, view)
                line.validate(view)
                described.validate(view)
                seen.add(view["kind"])
                cut |= {key for key in ("withheld", "hidden") if key in view}
    assert seen == set(views.VIEWS), set(views.VIEWS) - seen
    assert cut == {"withheld", "hidden"}


def test_every_logged_event_reads_as_its_model_and_writes_back_as_it_was(
    played: tuple[Api, list[Played]],
) -> None:
    """The models keep the log's JSON key for key, in its order: old logs read as they are."""
    api, tables = played
    store = api.client.app.state.server.store  # type: ignore[attr-defined]
    for each in tables:
        with store.read() as session:
            logged = events_after(session, each.table.id, 0)
        for event in logged:
            model = kinds.read(event)
            assert event.kind == type(model).KIND
            assert json.dumps(model.data()) == json.dumps(event.data), event.kind
            assert (model.actor_id, model.visibility) == (event.actor_id, event.visibility)


def test_the_shipped_event_schemas_are_the_ones_the_models_make() -> None:
    made = views.generated()
    shipped = {
        str(p.relative_to(SCHEMAS)).removesuffix(".schema.json"): p.read_text()
        for p in [*SCHEMAS.glob("events/*.schema.json"), SCHEMAS / "event.schema.json"]
    }
    assert shipped == made, "run make schemas"


def test_a_wrong_event_fails_its_kind_s_schema_and_its_model(api: Api) -> None:
    table = api.table()
    pat = table.join("Pat")
    mine = table.character(pat, "Pat's")
    roll = table.roll(pat, mine, "stealth")
    checker = _checker("events/roll")
    checker.validate(roll)
    wrong = (
        {k: v for k, v in roll.items() if k != "seq"},  # no number
        roll | {"secret": 1},  # a key the kind does not have
        roll | {"result": "a success"},  # a result that is no result
        roll | {"character": {"id": mine}},  # a character unnamed
        roll | {"withheld": ["everything"]},  # a part no roll has
        roll | {"odds": None, "result": None},  # an absent result is left out, never null
    )
    for event in wrong:
        with pytest.raises(jsonschema.ValidationError):
            checker.validate(event)
    with pytest.raises(jsonschema.ValidationError):  # a roll is not a join
        _checker("events/join").validate(roll)
    with pytest.raises(jsonschema.ValidationError):  # the export line's kind decides
        _checker("event").validate(roll | {"kind": "join"})
    with pytest.raises(ValidationError):  # nor is a member named by a bare id
        kinds.joined({"id": "AAAAAAAAAAAA"})
    with pytest.raises(ValidationError):
        kinds.character_changed({"id": mine, "name": "P", "member_id": None}, "eaten", None, pat)


OLDER = Path(__file__).with_name("older_events.json")  # logged by earlier versions, migrated


def test_events_logged_by_older_versions_read_as_written_and_fit_the_schemas() -> None:
    """A table opened before its seeds were in its first event, a seed before chains, an
    aim before its bonus was logged, a Luck reroll before follow-ups were named, a call
    before contests ...: each reads as its model, writes back as it was, and its view fits."""
    line = _checker("event")
    gm = Viewer("GM", "T", GM, "Gina", frozenset({"GM"}))
    for logged in json.loads(OLDER.read_text()):
        event = Logged(**logged)
        model = kinds.read(event)
        assert json.dumps(model.data()) == json.dumps(event.data), event.kind
        line.validate(view_event(gm, event))
        line.validate(view_event(Viewer("P", "T", PLAYER, "Pat", frozenset({"GM"})), event))
