"""Sheets as a hostile player writes them: each gets a clean 422 naming the sheet, never a
500 or a dropped connection (G5)."""

from __future__ import annotations

import pytest

from .tablehelp import Api


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
