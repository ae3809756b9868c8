"""One view of a result, every door: the terminal, the JSON view, a Discord message and the
view the page gets from the server all say what ``result.success`` says, in the same words,
for every system (a made-up one whose every name is new among them), difficulty and
follow-up; and the findings of a failed hard CoC7 roll, a failed combined roll and a push."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

from d100 import REGISTRY
from d100.declarations import Rolled
from d100.discord.render import COLOURS, roll_message
from d100.engine import odds, resolve
from d100.errors import D100Error
from d100.render.checks import check_lines
from d100.render.plain import render as plain
from d100.result_view import ResultView, contest_view, result_view
from d100.results import CheckOdds, CheckResult
from d100.server.access import with_reading
from tests import new_names_system as omens
from tests.conftest import depth


@pytest.fixture(autouse=True, scope="module")
def registered() -> Iterator[None]:
    REGISTRY.register(omens.SYSTEM)
    yield
    REGISTRY.unregister(omens.NAME)


def systems() -> list[str]:
    return [*REGISTRY.names(), omens.NAME] if omens.NAME not in REGISTRY else [*REGISTRY.names()]


def held_to(view: ResultView, result: CheckResult) -> None:
    """Every door says what the result says, in the view's words."""
    declared = REGISTRY.get(result.system).declares
    assert view.met is result.success
    drawn = {s.style for s in declared.levels if s.success == result.success}
    assert view.style in drawn or view.style in {s.style for s in declared.levels}
    if declared.level(result.level).success != result.success:  # short of what was asked
        assert view.style in drawn and view.mark in {
            s.mark for s in declared.levels if s.success == result.success
        }
        assert declared.level(result.level).meaning not in view.meaning
    # the JSON view: the same, from the object or from the contract's JSON of it
    data = json.loads(json.dumps(view.to_dict()))
    assert data["met"] is result.success and data["headline"] == view.headline
    # the terminal
    text = plain(check_lines(view, result))
    assert view.headline.upper() in text and view.meaning in text
    assert view.margin_words in text
    # Discord
    embed = roll_message("Ann", result, None, False)["embeds"][0]
    assert view.headline.upper() in embed["title"] and embed["color"] == COLOURS[view.style]
    said = {f["name"]: f["value"] for f in embed["fields"]}
    assert view.meaning in said["Level"] and said["Margin"] == view.margin_words
    assert ("✓" if result.success else "✗") not in embed["title"] or view.mark in embed["title"]


@settings(max_examples=depth(60, 400), deadline=None)
@given(data=st.data())
def test_every_door_agrees_with_the_result(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(systems()), label="system")
    system = REGISTRY.get(name)
    declared = system.declares
    low, high = declared.skill_range
    skill = data.draw(st.integers(low, min(high or 150, 150)), label="skill")
    target = declared.target
    request: dict[str, Any] = {"system": name, "skill": skill}
    if target.presets:
        request[target.field] = data.draw(st.sampled_from(sorted(target.presets)), label="target")
    seed = data.draw(st.integers(0, 2**32), label="seed")
    try:
        result = resolve(request, random.Random(seed))
    except D100Error:  # a preset the table's house rules refuse
        reject()
    chance = odds(request)
    assert isinstance(result, CheckResult) and isinstance(chance, CheckOdds)
    view = result_view(result, chance)
    held_to(view, result)
    assert result_view(result.to_dict(), chance.to_dict()) == view
    # the page's view: the server's, made of the event's parts
    event = {"provable": {}, "result": result.to_dict(), "odds": chance.to_dict()}
    assert with_reading(event)["view"] == view.to_dict()
    # a view of its level only (an NPC's, for a player) says the same of it
    kept = {k: result.to_dict()[k] for k in ("system", "level", "success")}
    alone = result_view(kept)
    assert alone.met is view.met and alone.style == view.style and alone.mark == view.mark
    # every follow-up on offer, taken: its own result, and the view of what it was
    rolled = Rolled(result.to_dict()["request"] | {"dice": list(result.dice)}, result, 50)
    for offer in declared.after(rolled):
        if offer.refused is not None:
            continue
        again = resolve(dict(offer.request), random.Random(seed + 1))
        assert isinstance(again, CheckResult)
        taken = {"done": offer.done, "failed": offer.failed}
        followed = result_view(again, None, (), taken)
        held_to(followed, again)
        assert followed.again == offer.done
        if offer.failed and not again.success:
            assert followed.stakes == offer.failed


def test_a_failed_hard_coc7_roll_reads_as_a_failure_at_every_door() -> None:
    result = resolve({"system": "coc7", "skill": 35, "difficulty": "hard", "dice": [20]})
    chance = odds({"system": "coc7", "skill": 35, "difficulty": "hard"})
    view = result_view(result, chance)
    assert not view.met and view.style == "bad" and view.mark == "✗"
    assert view.headline == "regular, short of hard"
    assert view.target_words == "17 (hard: half of 35)"
    assert view.margin == -3 and view.margin_words == "3 short of hard (17)"
    text = plain(check_lines(view, result))
    assert "it works" not in text and "+15" not in text and "17 (hard: half of 35)" in text
    embed = roll_message("Ann", result, chance, False)["embeds"][0]
    assert embed["color"] == COLOURS["bad"] and "✓" not in embed["title"]
    assert "it works" not in json.dumps(embed)
    page = with_reading({"provable": {}, "result": result.to_dict(), "odds": chance.to_dict()})
    assert (
        page["view"]["met"] is False and page["view"]["badge"] == "regular, short of hard (failure)"
    )


def test_a_failed_combined_roll_shows_no_margin_of_a_success() -> None:
    result = resolve({"system": "coc7", "skill": 50, "combined": [30], "dice": [40]})
    view = result_view(result)
    assert not view.met and view.margin_words == "10 short of every skill (30)"
    assert "margin +10" not in plain(check_lines(view, result))


def test_a_pushed_roll_says_it_was_pushed_and_what_failing_brings() -> None:
    result = resolve({"system": "coc7", "skill": 35, "push": True, "dice": [60, 90]})
    view = result_view(result)
    stakes = REGISTRY.get("coc7").declares.words.stakes
    assert view.again == "pushed" and view.stakes == stakes and not view.met
    assert stakes in plain(check_lines(view, result))
    fields = roll_message("Ann", result, None, False)["embeds"][0]["fields"]
    assert any(f["name"] == "Pushed" and stakes in f["value"] for f in fields)
    # rule: C7-5 (a pushed roll is pushed once): its failure offers no push again
    level = REGISTRY.get("coc7").declares.level("failure").meaning
    assert "pushed" in level and view.meaning == ""
    assert level not in plain(check_lines(view, result))
    said = {f["name"]: f["value"] for f in fields}
    assert said["Level"] == "✗ FAILURE", said
    # a push that worked reads as a success before what it risked, on the terminal as on Discord
    worked = resolve({"system": "coc7", "skill": 35, "push": True, "dice": [60, 20]})
    text = plain(check_lines(result_view(worked), worked))
    said = {
        f["name"]: f["value"]
        for f in roll_message("Ann", worked, None, False)["embeds"][0]["fields"]
    }
    assert f"a success; {stakes}" in text and said["Pushed"] == f"a success; {stakes}", text


def test_a_contest_reads_by_its_winner_and_each_side_s_view() -> None:
    request = {"system": "brp", "actor": {"skill": 60, "dice": [30]}}
    request["opponent"] = {"skill": 40, "dice": [70]}
    result = resolve(request)
    chance = odds({"system": "brp", "actor": {"skill": 60}, "opponent": {"skill": 40}})
    view = contest_view(result, chance, ("Ann", "Bo"))
    assert view.met is result.success and view.headline.startswith("Ann")
    assert view.sides[0].view.met is result.actor.success


def test_a_contest_lost_with_a_success_is_drawn_as_a_loss() -> None:
    """# rule: BRP6. Both succeed, the higher level wins: the roller's success lost the contest,
    and its card is drawn as a failure, not in the success's colour."""
    request = {"system": "brp", "actor": {"skill": 60, "dice": [30]}}
    request["opponent"] = {"skill": 60, "dice": [2]}
    result = resolve(request)
    view = contest_view(result, None, ("Ann", "Bo"))
    assert result.actor.success and view.winner == "opponent" and not view.met
    failing = {s.style for s in REGISTRY.get("brp").declares.levels if not s.success}
    assert view.style in failing and view.sides[0].view.style not in failing


def test_discord_refusals_read_in_words_not_keys() -> None:
    from d100.discord.render import error_message

    said = error_message("target_id: this test was already rolled; under bonus_dice_method tens")
    assert "target_id" not in said["content"] and "\\_" not in said["content"]
    assert "target: this test" in said["content"] and "bonus dice method tens" in said["content"]
    assert "actor skill: unknown" in error_message("actor.skill: unknown")["content"]


def test_the_command_line_s_json_carries_the_same_view() -> None:
    """# rule: C7-2. `--json` is the contract's result with the view beside it: the failed hard
    roll is a failure there too, in the terminal's words."""
    from tests.cli.conftest import d100

    run = d100("roll", "coc7", "35", "hard", "@20", "--json")
    data = json.loads(run.out)
    assert data["success"] is False and data["view"]["met"] is False
    assert data["view"]["headline"] == "regular, short of hard"
    shown = d100("roll", "coc7", "35", "hard", "@20").out
    assert "REGULAR, SHORT OF HARD" in shown and data["view"]["margin_words"] in shown


def test_a_combined_roll_s_other_skills_are_viewed_by_their_level_only() -> None:
    """# rule: C7-8. One roll judged against several skills: each other skill shows its level
    and its reasoning; the dice, bands and odds are the roll's own, said once (a log of such
    rolls tripled in size when each carried a whole view)."""
    result = resolve(
        {"system": "coc7", "skill": 40, "combined": [10, 20, 30, 50, 60], "dice": [25]}
    )
    view = result_view(result).to_dict()
    assert len(view["also_judged"]) == 6  # the skill rolled, then each combined one
    for other in view["also_judged"]:
        assert set(other) == {
            "level",
            "headline",
            "mark",
            "style",
            "met",
            "verdict",
            "badge",
            "explanation",
        }
    assert [o["met"] for o in view["also_judged"]] == [s >= 25 for s in (40, 10, 20, 30, 50, 60)]
