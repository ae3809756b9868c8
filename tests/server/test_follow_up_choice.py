"""A follow-up asked for without naming it: of one offer it is that one; of several (CoC7's
Luck and its push) the server refuses to choose, naming ``follow_up`` and every offer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .tablehelp import SHEETS, Api

pytestmark = pytest.mark.sqlite_only(
    "Which follow-up an unnamed choice takes: a rule, refused or taken before the store "
    "is asked."
)

SHEET = """name = "{name}"
system = "coc7"
luck = {{ current = 50, maximum = 99 }}
skills = {{ "library use" = 60 }}
"""


@pytest.fixture(autouse=True)
def sheets() -> Iterator[None]:
    SHEETS["coc7"] = SHEET
    yield
    del SHEETS["coc7"]


def test_an_unnamed_follow_up_of_a_roll_offering_several_is_refused_naming_them(
    api: Api,
) -> None:  # rule: C7-4, C7-5
    table = api.table("coc7", settings={"manual_dice": True})
    pat = table.join("Pat")
    ada = table.character(pat, "Ada")
    failed = table.roll(pat, ada, "library", actor={"dice": [70]})  # 70 > 60: a failure
    offered = [o["key"] for o in failed["follow_ups"]]
    assert {"luck", "push"} <= set(offered)  # more than one offer
    for body in (None, {}, {"dice": [30]}):
        r = table.req("POST", f"/rolls/{failed['seq']}/reroll", pat, json=body)
        assert r.status_code == 422, r.text
        error = r.json()["error"]
        assert error["field"] == "follow_up"
        assert all(key in error["allowed"] for key in offered), error
    # nothing was taken: the roll is still the last, and naming one takes it
    assert table.events(pat)[-1]["seq"] == failed["seq"]
    pushed = table.ok(
        "POST", f"/rolls/{failed['seq']}/reroll", pat, 201, json={"follow_up": "push"}
    )
    assert pushed["taken"] == ["push"]


def test_an_unnamed_follow_up_of_a_roll_offering_one_takes_it(api: Api) -> None:  # rule: C7-4
    table = api.table("coc7", settings={"manual_dice": True})
    pat = table.join("Pat")
    ada = table.character(pat, "Ada")
    failed = table.roll(pat, ada, "library", actor={"dice": [70]})
    luck = {"follow_up": "luck"}
    bought = table.ok("POST", f"/rolls/{failed['seq']}/reroll", pat, 201, json=luck)
    (only,) = bought["follow_ups"]  # Luck once more, to hard: the one offer
    taken = table.ok("POST", f"/rolls/{bought['seq']}/reroll", pat, 201)
    assert taken["taken"][-1] == only["key"] and taken["reroll_of"] == bought["seq"]
