"""Fuzzing the HTTP API from its own OpenAPI description (schemathesis): no request, valid or
not, signed in or not, gets a 5xx; every refusal is the JSON error shape.

Each operation gets generated requests, two in three as the GM or a player of a real table
whose ids are put in the path, so the fuzz reaches past sign-in into characters, rolls and calls."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.python import asgi

from d100.server.app import create_app
from d100.server.guard import Limits
from tests.conftest import TOTALS, depth

from .services import DATABASES, database_for, migrated_sqlite
from .tablehelp import SHEETS, bearer, token_of

# Generated requests per operation, for each way of generating them. The cases are
# derandomized, so a count is a fixed set of requests: CI's covers every operation's fields
# as the GM, a player and signed out (the values that once got a 5xx are HOSTILE's, sent
# every run); a deep run (D100_TEST_DEPTH=deep) goes wider.
EXAMPLES = {GenerationMode.POSITIVE: depth(20, 100), GenerationMode.NEGATIVE: depth(12, 60)}
DESCRIBED_EXAMPLES = depth(6, 30)  # per operation and database: test_every_answer_is_described
STREAM = "/api/tables/{table_id}/events/stream"  # never ends once signed in: fuzzed signed out
from .described import APP  # noqa: E402  (only its OpenAPI description is read here)

# generated requests to every operation: CI's, not the development loop's (make quick)
pytestmark = pytest.mark.slow

OPERATIONS = sorted(
    f"{method.upper()} {path}" for path, ops in APP.openapi()["paths"].items() for method in ops
)


@dataclass
class Target:
    schema: Any
    client: Any
    ids: dict[str, list[str]]  # path parameter -> real ids at the table (and a made-up one)
    gm: str
    player: str


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    yield from _target(migrated_sqlite(tmp_path_factory.mktemp("fuzz") / "d100.sqlite3"))


@pytest.fixture(scope="module", params=DATABASES)
def on_each_database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Target]:
    yield from _target(database_for(request, tmp_path_factory.mktemp("fuzz")))


def _target(url: str) -> Iterator[Target]:
    app = create_app(url, limits=Limits(burst=10**9, per_second=10**9))
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    # a body over the guard's cap is refused 413, as described: a refusal like any other
    rejected = schema.config.checks.negative_data_rejection
    rejected.expected_statuses = [*rejected.expected_statuses, "413"]
    client = asgi.get_client(app)
    made = client.post("/api/tables", json={"name": "Fuzz", "system": "chances"}).json()
    table, gm = made["table"]["id"], token_of(made["gm_link"])
    joined = client.post(
        "/api/join", json={"invite": token_of(made["invite_link"]), "name": "Pat"}
    ).json()
    client.cookies.clear()
    auth = bearer(gm)
    ids = [
        client.post(
            f"/api/tables/{table}/characters",
            headers=auth,
            json={"sheet": SHEETS["chances"].format(name=name)},
        ).json()["id"]
        for name in ("Alice", "Bob")
    ]
    call = client.post(
        f"/api/tables/{table}/calls",
        headers=auth,
        json={"skill": "sneaking", "fields": {"risk": "easy"}, "character_ids": ids},
    ).json()
    roll = client.post(
        f"/api/tables/{table}/rolls",
        headers=auth,
        json={
            "actor": {"character_id": ids[0], "skill": "sneaking", "fields": {"risk": "easy"}},
            "visibility": "blind",
        },
    ).json()
    yield Target(
        schema,
        client,
        {
            "table_id": [table],
            "character_id": [*ids, "AAAAAAAAAAAA"],
            "member_id": [joined["me"]["id"], made["me"]["id"], "AAAAAAAAAAAA"],
            "target_id": [t["id"] for t in call["targets"]] + ["AAAAAAAAAAAA"],
            "seq": [str(roll["seq"]), "1", "999"],
        },
        gm,
        token_of(joined["rejoin_link"]),
    )


def signed_in(target: Target, path: str) -> Callable[[Any], st.SearchStrategy[Any]]:
    """Two cases in three at the real table, with real (or plainly unknown) ids, as its GM or
    a player; the third signed out."""

    def adapt(case: Any) -> st.SearchStrategy[Any]:
        if path == STREAM:
            return st.just(case)
        params = case.path_parameters or {}
        choices = {k: st.sampled_from(target.ids[k]) for k in params if k in target.ids}
        return st.sampled_from((target.gm, target.player, None)).flatmap(
            lambda token: st.fixed_dictionaries(choices).map(
                lambda real: _with(case, real, token) if token else case
            )
        )

    return adapt


# Deletes the table it names: each signed-in case at a table of its own, so the real table
# stays for every other case.
ENDS_TABLE = ("DELETE", "/api/tables/{table_id}")


def own_table(target: Target, case: Any) -> Any:
    """``case``, where it is ``ENDS_TABLE``'s as the real table's GM or player, made at a
    fresh table as its GM or a player there (one table, one join a case: what it costs)."""
    if (case.method.upper(), case.operation.path) != ENDS_TABLE:
        return case
    headers = case.headers or {}
    signed = headers.get("authorization")
    if signed not in (bearer(target.gm)["authorization"], bearer(target.player)["authorization"]):
        return case
    made = target.client.post("/api/tables", json={"name": "Doomed", "system": "chances"}).json()
    token = token_of(made["gm_link"])
    if signed == bearer(target.player)["authorization"]:
        invite = token_of(made["invite_link"])
        joined = target.client.post("/api/join", json={"invite": invite, "name": "Pat"}).json()
        token = token_of(joined["rejoin_link"])
    target.client.cookies.clear()
    return _with(case, {"table_id": made["table"]["id"]}, token)


def still_there(target: Target) -> None:
    """The real table, which ``ENDS_TABLE``'s cases never name signed in."""
    table_id = target.ids["table_id"][0]
    real = target.client.get(f"/api/tables/{table_id}", headers=bearer(target.gm))
    assert real.status_code == 200, real.text


def _with(case: Any, params: dict[str, str], token: str) -> Any:
    case.path_parameters = {**(case.path_parameters or {}), **params}
    case.headers = {**(case.headers or {}), **bearer(token)}
    return case


@pytest.mark.parametrize("operation", OPERATIONS)
def test_no_request_gets_a_server_error(
    target: Target, operation: str, record_property: Callable[[str, object], None]
) -> None:
    method, path = operation.split(" ", 1)
    api = target.schema[path][method]
    sent: list[str] = []
    statuses: set[int] = set()
    for mode, examples in EXAMPLES.items():

        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        @given(api.as_strategy(generation_mode=mode).flatmap(signed_in(target, path)))
        def fuzz(case: Any) -> None:
            case = own_table(target, case)
            response = case.call(session=target.client)
            sent.append(case.method)
            statuses.add(response.status_code)
            assert response.status_code < 500, (
                response.status_code,
                response.text,
                case.as_curl_command(),
            )
            if response.status_code >= 400 and path.startswith("/api/"):
                keys = set(response.json()["error"])
                assert {"kind", "field", "value", "allowed", "message"} <= keys, response.text

        try:
            fuzz()
        except Unsatisfiable:  # nothing in this operation can be made invalid
            assert mode is GenerationMode.NEGATIVE
    if (method, path) == ENDS_TABLE:  # its cases ended tables of their own
        assert 204 in statuses, statuses
        still_there(target)
    record_property(TOTALS, ("HTTP API fuzz (schemathesis): requests sent", len(sent)))
    record_property(TOTALS, ("HTTP API fuzz (schemathesis): operations", 1))
    record_property(TOTALS, ("HTTP API fuzz (schemathesis): 5xx found", 0))


# The values that once got a 5xx, in every field of every body (the generated cases above
# are valid JSON, which none of these is to a strict reader).
HOSTILE = (
    '"\\ud800"',
    "NaN",
    "Infinity",
    "1e400",
    "[" * 900 + "]" * 900,
    '{"a":' * 900 + "1" + "}" * 900,
)


def body_fields(operation: dict[str, Any]) -> list[str]:
    schema = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    ref = schema.get("schema", {}).get("$ref", "")
    components = APP.openapi().get("components", {}).get("schemas", {})
    found = components.get(ref.rsplit("/", 1)[-1], {}).get("properties", {})
    return list(found) or ["system", "skill", "modifiers", "house_rules"]


WITH_BODIES = [
    (method.upper(), path, body_fields(op))
    for path, ops in APP.openapi()["paths"].items()
    for method, op in ops.items()
    if "requestBody" in op
]


@pytest.mark.parametrize(("method", "path", "fields"), WITH_BODIES, ids=lambda x: str(x))
def test_hostile_values_in_every_field_get_a_4xx(
    target: Target,
    method: str,
    path: str,
    fields: list[str],
    record_property: Callable[[str, object], None],
) -> None:
    real = {k: v[0] for k, v in target.ids.items()}
    url = path.format(
        **{
            k: real.get(k, "x")
            for k in ("table_id", "character_id", "member_id", "target_id", "seq")
        }
    )
    sent = 0
    for field in fields:
        for value in HOSTILE:
            raw = f'{{"{field}": {value}}}'.encode()
            r = target.client.request(
                method,
                url,
                data=raw,
                headers={**bearer(target.gm), "content-type": "application/json"},
            )
            sent += 1
            assert 400 <= r.status_code < 500, (
                method,
                url,
                field,
                value[:20],
                r.status_code,
                r.text[:200],
            )
            assert {"kind", "field", "value", "allowed", "message"} <= set(r.json()["error"])
    record_property(TOTALS, ("HTTP API fuzz (schemathesis): requests sent", sent))


# The checks the description is held to: successes' bodies have no models yet (their schema is
# {}: only the error shape is checked). Data that fits the description is accepted (refusals of
# sign-in, ids, rights and state aside: 401, 403, 404, 409), but for BEYOND_SCHEMA.
HELD = (
    schemathesis.checks.not_a_server_error,
    schemathesis.checks.status_code_conformance,
    schemathesis.checks.content_type_conformance,
    schemathesis.checks.allow_header_conformance,
    schemathesis.checks.response_headers_conformance,
    schemathesis.checks.response_schema_conformance,
)
# What no JSON Schema of a body can say, so a 422 to data fitting it is right: an operation's
# fields refused by what the sheet's TOML holds, by the table's rules (its system's house rules,
# aiming) or by the roll followed up. (A request's rules between its fields, "exactly one of
# skill, characteristic, resistance" and the like, are its schema's: the systems declare them.)
BEYOND_SCHEMA = {
    # the beacon only on a server that fetches its rounds (D100_BEACON_URL)
    "POST /api/tables": ("house_rules", "settings", "beacon"),
    "POST /api/tables/{table_id}/characters": ("sheet",),
    "PUT /api/tables/{table_id}/characters/{character_id}": ("sheet", "member_id"),
    "PATCH /api/tables/{table_id}/characters/{character_id}": (
        "sheet",
        "skills",
        "abilities",
        "luck",
    ),
    "POST /api/tables/{table_id}/characters/{character_id}/aim": ("character_id",),
    "POST /api/tables/{table_id}/rolls/{seq}/reroll": ("seq", "follow_up", "dice"),
    # a contest's own fields are its table's system's, and only with an opponent
    "POST /api/tables/{table_id}/rolls": ("actor", "opponent", "fields"),
    "POST /api/tables/{table_id}/odds": ("actor", "opponent", "fields"),
    # words are a roll only where they read as a dice expression or the table's Sanity roll
    "POST /api/tables/{table_id}/declared-rolls": ("words",),
    "POST /api/tables/{table_id}/declared-odds": ("words",),
    "POST /api/tables/{table_id}/calls": ("fields", "opponent", "skill", "character_ids"),
    # a text field holding dice (a Delta Green loss, 1d6/1d20): its schema's pattern gives
    # the shape, the dice's own grammar their bounds and cost
    "POST /api/odds": ("san_loss",),
    "POST /api/odds/chart": ("request.san_loss",),
    # a party's phase only where the table's rules have one, and its characters' marks to roll
    "POST /api/tables/{table_id}/party-development": ("system", "party"),
    "POST /api/tables/{table_id}/party-development/odds": ("system", "party"),
    # whose ledger: a character or a member the log shows, not both
    "GET /api/tables/{table_id}/ledger": ("character", "member"),
}


def held(operation: str, response: Any) -> tuple[Any, ...]:
    """HELD and positive_data_acceptance, unless the refusal is one of BEYOND_SCHEMA's, or
    the guard's of a body over its cap in bytes (which no schema of characters states)."""
    if response.status_code == 413:
        sent = response.request.body or b""
        sent = sent.encode() if isinstance(sent, str) else sent
        assert len(sent) > Limits().body_bytes, sent[:80]  # only a body over the cap
        return HELD
    if response.status_code == 422:
        error = response.json()["error"]
        if error["kind"] == "rule_refusal":  # a rule between fields (C7-8 ...), no schema's
            return HELD
        if error["field"].startswith(BEYOND_SCHEMA.get(operation, ())):
            return HELD
    return (*HELD, schemathesis.checks.positive_data_acceptance)


@pytest.mark.parametrize("operation", [o for o in OPERATIONS if not o.endswith(STREAM)])
def test_every_answer_is_described(on_each_database: Target, operation: str) -> None:
    target = on_each_database
    method, path = operation.split(" ", 1)
    api = target.schema[path][method]

    @settings(
        max_examples=DESCRIBED_EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(api.as_strategy().flatmap(signed_in(target, path)))
    def fuzz(case: Any) -> None:
        case = own_table(target, case)
        response = case.call(session=target.client)
        case.validate_response(response, checks=held(operation, response))

    fuzz()
    if (method, path) == ENDS_TABLE:
        still_there(on_each_database)


def test_an_undescribed_refusal_is_reported(target: Target) -> None:
    """The checks above can fail: the description without its 401 for a table's state."""
    described = copy.deepcopy(APP.openapi())  # the app's own is cached
    del described["paths"]["/api/tables/{table_id}"]["get"]["responses"]["401"]
    api = schemathesis.openapi.from_dict(described)["/api/tables/{table_id}"]["GET"]
    case = api.Case(path_parameters={"table_id": target.ids["table_id"][0]})
    response = case.call(session=target.client)
    assert response.status_code == 401
    with pytest.raises(BaseExceptionGroup) as failed:
        case.validate_response(response, checks=HELD)
    assert [type(e).__name__ for e in failed.value.exceptions] == ["UndefinedStatusCode"]


def test_a_wrong_error_shape_is_reported(target: Target) -> None:
    """The error shape is checked: described with a numeric message, a 401 does not fit it."""
    described = copy.deepcopy(APP.openapi())  # the app's own is cached
    described["components"]["schemas"]["ErrorDetail"]["properties"]["message"]["type"] = "integer"
    api = schemathesis.openapi.from_dict(described)["/api/tables/{table_id}"]["GET"]
    case = api.Case(path_parameters={"table_id": target.ids["table_id"][0]})
    with pytest.raises(BaseExceptionGroup) as failed:
        case.validate_response(case.call(session=target.client), checks=HELD)
    assert [type(e).__name__ for e in failed.value.exceptions] == ["JsonSchemaError"]


def test_a_method_no_route_takes_is_405_with_its_allow_header(target: Target) -> None:
    """Every path, asked by a method its description lacks (TRACE among them), signed in or
    not: a 405 naming the methods it takes, never the 401 of a table's sign-in first."""
    real = {k: v[0] for k, v in target.ids.items()}
    for path, ops in APP.openapi()["paths"].items():
        url = re.sub(r"\{(\w+)\}", lambda m: real.get(m[1], "x"), path)
        described = {m.upper() for m in ops}
        if "GET" in described:
            described.add("HEAD")
        for method in {"GET", "POST", "PUT", "PATCH", "DELETE", "TRACE"} - described:
            for headers in ({}, bearer(target.player)):
                r = target.client.request(method, url, headers=headers)
                assert r.status_code == 405, (method, path, r.status_code, r.text[:200])
                allowed = set(r.headers["allow"].split(", "))
                assert allowed - {"HEAD"} == described - {"HEAD"}, (method, path, allowed)
                assert r.json()["error"]["field"] == "path"


# Every check schemathesis has (its stateful ones, which follow links between operations,
# find none to follow here), both ways: generated data that fits the description and data
# that does not, as the GM, a player or signed out. Data that fits is accepted but for what
# BEYOND_SCHEMA says no schema of a body can state; data that does not is refused.
schemathesis.checks.load_all_checks()
EVERY_CHECK = tuple(schemathesis.checks.CHECKS.get_all())
# seen to find each one; a deep run asks 300 an operation (by hand: 10,806 cases, SQLite)
CHEAP = {GenerationMode.POSITIVE: depth(8, 150), GenerationMode.NEGATIVE: depth(4, 150)}


def every_check(operation: str, response: Any) -> tuple[Any, ...]:
    """EVERY_CHECK, but for acceptance where the refusal is one BEYOND_SCHEMA allows."""
    kept = held(operation, response)
    if schemathesis.checks.positive_data_acceptance in kept:
        return EVERY_CHECK
    return tuple(c for c in EVERY_CHECK if c is not schemathesis.checks.positive_data_acceptance)


@pytest.mark.parametrize("operation", [o for o in OPERATIONS if not o.endswith(STREAM)])
def test_every_check_holds(target: Target, operation: str) -> None:
    method, path = operation.split(" ", 1)
    api = target.schema[path][method]
    for mode, examples in CHEAP.items():

        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        @given(api.as_strategy(generation_mode=mode).flatmap(signed_in(target, path)))
        def fuzz(case: Any) -> None:
            case = own_table(target, case)
            response = case.call(session=target.client)
            case.validate_response(response, checks=every_check(operation, response))

        try:
            fuzz()
        except Unsatisfiable:  # nothing in this operation can be made invalid
            assert mode is GenerationMode.NEGATIVE
    if (method, path) == ENDS_TABLE:
        still_there(target)
