"""Sheets as a hostile player writes them: each gets a clean 422 naming the sheet, never a
500 or a dropped connection (G5)."""

from __future__ import annotations

import pytest

from .tablehelp import Api

pytestmark = pytest.mark.sqlite_only(
    "A hostile sheet is refused by its parser (a 422), before the store sees it."
)


@pytest.mark.parametrize("opening", ["[", "{a="])
def test_g5_a_sheet_nested_past_the_parser_s_depth_is_a_422(api: Api, opening: str) -> None:
    """Nesting 2,000 deep fits in a 20,000-character sheet; the TOML parser recurses once per
    level, and its RecursionError was a 500."""
    table = api.table("brp")
    closing = {"[": "]", "{a=": "}"}[opening]
    sheet = 'name = "Deep"\nsystem = "brp"\nskills = { a = 5 }\nx = '
    sheet += opening * 2000 + "1" + closing * 2000 + "\n"
    assert len(sheet) <= 20_000
    r = table.req("POST", "/characters", table.gm, json={"sheet": sheet})
    assert r.status_code == 422, r.text[:200]
    assert r.json()["error"]["field"] == "sheet"
    assert table.req("GET", "", table.gm).status_code == 200  # and the server goes on


@pytest.mark.parametrize(
    ("line", "field", "value"),
    [
        ("skills = { a = nan }", "sheet.skills.a", "nan"),
        ("skills = { a = -inf }", "sheet.skills.a", "-inf"),
        ("skills = { a = 5.0 }", "sheet.skills.a", "5.0"),
        ("luck = { current = inf, maximum = 5 }", "sheet.luck.current", "inf"),
        ("luck = { current = 5, maximum = nan }", "sheet.luck.maximum", "nan"),
    ],
)
def test_g5_a_sheet_number_that_is_no_integer_is_a_422_naming_it(
    api: Api, line: str, field: str, value: str
) -> None:
    """TOML reads ``nan`` and ``inf`` as floats, which JSON cannot carry: echoed back as the
    value, they made the error answer itself fail (a 500, or a dropped connection)."""
    table = api.table("brp")
    sheet = f'name = "Y"\nsystem = "brp"\n{line}\n'
    r = table.req("POST", "/characters", table.gm, json={"sheet": sheet})
    assert r.status_code == 422, r.text[:200]
    error = r.json()["error"]
    assert (error["field"], error["value"]) == (field, value), error
    assert value in error["message"]
    assert table.req("GET", "", table.gm).status_code == 200  # and the server goes on
