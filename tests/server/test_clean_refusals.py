"""An id in the path that could never be one is a clean 4xx on both databases: PostgreSQL
refuses a NUL byte in a string, and a query with one was a 500."""

from __future__ import annotations

from typing import Any

import pytest

from .tablehelp import Api

NPC = 'name = "{name}"\nsystem = "brp"\nskills = {{ claw = 55, stealth = 40 }}\n'


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/characters/%00/sheet"),
        ("DELETE", "/characters/%00"),
        ("PATCH", "/characters/%00"),
        ("PUT", "/characters/%00"),
        ("DELETE", "/characters/%00/marks"),
        ("POST", "/characters/%00/aim"),
        ("POST", "/targets/%00/decline"),
        ("POST", "/targets/%00/assists"),
        ("POST", "/calls/%00/cancel"),
        ("POST", "/members/%00/revoke"),
    ],
)
def test_a_nul_byte_in_a_path_id_is_a_clean_4xx(api: Api, method: str, path: str) -> None:
    table = api.table("brp")
    pat = table.join("Pat")
    bodies: dict[str, Any] = {
        "PATCH /characters/%00": {"skills": {"stealth": 50}},
        "PUT /characters/%00": {"sheet": NPC.format(name="Y")},
        "POST /characters/%00/aim": {"action": "aim"},
        "POST /targets/%00/assists": {"character_id": "x", "skill": "stealth"},
    }
    body = bodies.get(f"{method} {path}")
    for token in (pat, table.gm):  # a player may be refused the route first: a 403
        r = table.req(method, path, token, json=body)
        assert r.status_code in (403, 404, 422), (r.status_code, r.text[:300])
        assert set(r.json()["error"]) >= {"field", "value", "allowed", "message"}
    error = r.json()["error"]  # the GM's: refused for the id
    assert error["field"].endswith(path.split("/")[1].rstrip("s") + "_id"), error
    assert table.req("GET", "", table.gm).status_code == 200  # and the server goes on


@pytest.mark.parametrize("failure", ["unreachable", "pool exhausted", "too many clients"])
@pytest.mark.parametrize("token", ["seen", "unseen"])
def test_a_database_that_fails_to_answer_is_a_503_to_retry(
    api: Api, client: Any, monkeypatch: pytest.MonkeyPatch, failure: str, token: str
) -> None:
    """A database that cannot be reached, or a pool with every connection in use, is a 503
    with Retry-After in the error shape (nothing was written), not a 500; whether the route
    or the guard's lookup of a token not seen yet met it. Nothing is raised again after the
    answer (Starlette does so for an Exception's handler, and the ASGI server logged a
    traceback for each): the test client would raise it here."""
    from sqlalchemy.exc import OperationalError
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    table = api.table()
    store = client.app.state.server.store

    def fails(*_: Any, **__: Any) -> Any:
        if failure == "pool exhausted":
            raise PoolTimeout("QueuePool limit of size 30 overflow 10 reached")
        reason = "connection refused" if failure == "unreachable" else "too many clients already"
        raise OperationalError("SELECT 1", {}, Exception(reason))

    monkeypatch.setattr(store, "read", fails)
    bearer = table.gm if token == "seen" else "made-up-token-never-looked-up"
    r = client.get(f"/api/tables/{table.id}", headers={"authorization": f"Bearer {bearer}"})
    assert r.status_code == 503, r.text
    assert r.headers["retry-after"] == "1"
    assert r.json()["error"]["field"] == "database"


def test_every_refusal_of_a_moment_says_when_to_retry() -> None:
    """A 429 or 503 made anywhere carries Retry-After, whether or not its maker said so."""
    from d100.server.errors import ApiError

    for status in (429, 503):
        assert ApiError(status, "request", None, "", "busy").headers == {"retry-after": "1"}
    said = ApiError(503, "beacon.round", 1, "", "later", {"Retry-After": "3"})
    assert said.headers == {"Retry-After": "3"}
    assert ApiError(422, "skill", 1, "", "no").headers is None


@pytest.mark.parametrize(
    ("words", "field"),
    [
        ("sc 1/1d6 ²", "words.sanity"),  # rule: C7-8
        ("sc 1/1d6 int=²", "words.intelligence"),
        (".sc 1/1d6 ²", "words.sanity"),  # rule: SD-W6
        (".sc 1/1d6 ٣٣", "words.sanity"),  # a digit of another script is not SAN 33
    ],
)
def test_a_number_in_digits_other_than_0_9_is_refused_naming_its_field(
    api: Api, words: str, field: str
) -> None:
    """``²`` passes ``str.isdigit`` and breaks ``int``: a player's ``sc 1/1d6 ²`` was a 500
    (a traceback in the server's log), ``.sc 1/1d6 ٣٣`` SAN 33."""
    table = api.table("coc7")
    pat = table.join("Pat")
    r = table.req("POST", "/declared-rolls", pat, json={"words": words})
    assert r.status_code == 422, r.text
    refused = r.json()["error"]
    assert refused["field"] == field and "0-9" in refused["message"], refused


def test_san_typed_beside_the_sheet_s_is_refused_in_words_without_none(api: Api) -> None:
    """The roll box's ``sc 1/1d6 50`` for a character said "SAN once: None's sheet gives 60":
    at a table the words name no one (rule: C7-8)."""
    table = api.table("coc7")
    pat = table.join("Pat")
    sheet = 'name = "Alice"\nsystem = "coc7"\nskills = { sanity = 60, int = 70 }\n'
    alice = table.ok("POST", "/characters", pat, 201, json={"sheet": sheet})["id"]
    asked = {"words": "sc 1/1d6 50", "character_id": alice}
    refused = table.ok("POST", "/declared-rolls", pat, 422, json=asked)["error"]
    assert refused["field"] == "words.sanity" and "None" not in refused["message"], refused
    assert "sheet gives 60" in refused["message"], refused
