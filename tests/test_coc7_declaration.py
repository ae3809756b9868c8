"""coc7 as the rest of d100 reads it: its request fields and their errors (G5, C7 fields), the
chat-bot commands of BCDice's Cthulhu7th, its declaration (levels, target, advice weighing Luck
against a push, the sampler) and the contract's schemas."""

from __future__ import annotations

import dataclasses
from typing import Any

import jsonschema
import pytest

import d100
from d100 import schema
from d100.advise import advise
from d100.batch import _sides, sample
from d100.declarations import Roller
from d100.systems import REGISTRY
from d100.systems.coc7 import SYSTEM, commands
from d100.systems.coc7_check import Coc7Check, HouseRules
from d100.systems.coc7_contest import Coc7Contest

DECLARES = SYSTEM.declares


# -- fields and bad inputs -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["aim_rounds", "luck_boost", "luck_rerolls"])
def test_c7_fields_brps_luck_and_aim_are_refused_naming_the_allowed_fields(name: str) -> None:
    with pytest.raises(d100.D100Error) as err:
        d100.resolve({"system": "coc7", "skill": 50, name: 1})
    assert err.value.field == name and "unknown field" in err.value.message
    for allowed in ("skill", "difficulty", "luck", "push", "combined", "bonus_dice"):
        assert allowed in err.value.allowed
    with pytest.raises(d100.D100Error) as err:
        d100.resolve({"system": "coc7", "actor": {"skill": 1, name: 1}, "opponent": {"skill": 1}})
    assert err.value.field == f"actor.{name}"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"skill": -1}, "skill"),
        ({"skill": "50"}, "skill"),
        ({"skill": 50, "difficulty": "impossible"}, "difficulty"),
        ({"skill": 50, "difficulty": -20}, "difficulty"),
        ({"skill": 50, "bonus_dice": 3}, "bonus_dice"),
        ({"skill": 50, "penalty_dice": -1}, "penalty_dice"),
        ({"skill": 50, "luck": -1}, "luck"),
        ({"skill": 50, "luck": True}, "luck"),
        ({"skill": 50, "push": "yes"}, "push"),
        ({"skill": 50, "combined": [1001]}, "combined[0]"),
        ({"skill": 50, "combined": 40}, "combined"),
        ({"skill": 50, "house_rules": {"fives": True}}, "house_rules.fives"),
        ({"skill": 50, "house_rules": {"allow_push_fumbles": 1}}, "house_rules.allow_push_fumbles"),
        ({"skill": 50, "dice": [0]}, "dice[0]"),
        ({"skill": 50, "modifiers": [1.5]}, "modifiers[0]"),
    ],
)
def test_c7_fields_bad_inputs_name_the_field(fields: dict[str, Any], field: str) -> None:
    with pytest.raises(d100.D100Error) as err:
        d100.resolve({"system": "coc7", **fields})
    assert err.value.field == field


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        ({"actor": {"skill": 50}, "opponent": {"skill": 50}, "response": "parry"}, "response"),
        ({"actor": {"skill": 50, "luck": 5}, "opponent": {"skill": 50}}, "actor.luck"),
        ({"actor": {"skill": 50}, "opponent": {"skill": 50, "push": True}}, "opponent.push"),
        (
            {"actor": {"skill": 50}, "opponent": {"skill": 50, "difficulty": "hard"}},
            "opponent.difficulty",
        ),
        ({"actor": {"skill": 50}}, "opponent"),
    ],
)
def test_c7_6_bad_contests_name_the_field(request_: dict[str, Any], field: str) -> None:
    with pytest.raises(d100.D100Error) as err:
        d100.resolve({"system": "coc7", **request_})
    assert err.value.field == field


def test_requests_built_directly_are_held_to_the_same_tables() -> None:
    with pytest.raises(d100.D100Error) as err:
        Coc7Check(skill=50, difficulty="tough")
    assert err.value.field == "difficulty"
    with pytest.raises(d100.D100Error) as err:
        HouseRules(allow_push_fumbles="no")  # type: ignore[arg-type]
    assert err.value.field == "allow_push_fumbles"
    with pytest.raises(d100.D100Error) as err:
        Coc7Contest(Coc7Check(skill=50, luck=3), Coc7Check(skill=50))
    assert err.value.field == "actor.luck"
    with pytest.raises(d100.D100Error) as err:
        Coc7Contest(Coc7Check(skill=5), Coc7Check(skill=5), response="parry")
    assert err.value.field == "response"
    ruled = HouseRules(allow_push_fumbles=True)
    with pytest.raises(d100.D100Error) as err:
        Coc7Contest(Coc7Check(skill=5), Coc7Check(skill=5, house_rules=ruled), house_rules=ruled)
    assert err.value.field == "actor.house_rules"


def test_requests_round_trip_through_the_contract() -> None:
    requests: list[dict[str, Any]] = [
        {"system": "coc7", "skill": 60, "difficulty": "hard", "luck": 40, "push": True},
        {
            "system": "coc7",
            "skill": 60,
            "combined": [45],
            "house_rules": {"allow_push_fumbles": True},
        },
        {"system": "coc7", "actor": {"skill": 60}, "opponent": {"skill": 50}, "response": "dodge"},
    ]
    for request in requests:
        parsed = d100.parse(request)
        assert d100.parse(parsed.to_dict()) == parsed
        said = parsed.to_dict()
        assert all(said[k] == v for k, v in request.items() if k not in ("actor", "opponent"))


# -- chat-bot commands (BCDice's Cthulhu7th) -------------------------------------------------


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("CC<=65", {"skill": 65}),
        ("cc<=65", {"skill": 65}),
        ("CC1<=65", {"skill": 65, "bonus_dice": 1}),
        ("CC+1<=65", {"skill": 65, "bonus_dice": 1}),
        ("CC2<=65", {"skill": 65, "bonus_dice": 2}),
        ("CC-1<=65", {"skill": 65, "penalty_dice": 1}),
        ("CC(2)<=50", {"skill": 50, "bonus_dice": 2}),
        ("CC(+2)<=50", {"skill": 50, "bonus_dice": 2}),
        ("CC(-1)<=75", {"skill": 75, "penalty_dice": 1}),
        ("CC0<=40", {"skill": 40}),
        ("CC<=70r", {"skill": 70, "difficulty": "regular"}),
        ("cc1<=60h", {"skill": 60, "bonus_dice": 1, "difficulty": "hard"}),
        ("CC-2<=50E", {"skill": 50, "penalty_dice": 2, "difficulty": "extreme"}),
        ("CC2<=99c", {"skill": 99, "bonus_dice": 2, "difficulty": "critical"}),
        ("CC<=65 a comment", {"skill": 65}),
        ("  CC<=65h  ", {"skill": 65, "difficulty": "hard"}),
        ("CC<=65/h", {"skill": 65, "difficulty": "hard"}),  # the chat habit the issue names
        ("CC1<=65/E", {"skill": 65, "bonus_dice": 1, "difficulty": "extreme"}),
        ("CC<=0", {"skill": 0}),
        ("CBR(60,45)", {"skill": 60, "combined": [45]}),
        ("cbr(50,20)", {"skill": 50, "combined": [20]}),
    ],
)
def test_commands_read_bcdices_forms(text: str, want: dict[str, Any]) -> None:
    request = commands(text)
    assert request == {"system": "coc7", **want}
    d100.odds(request)  # a request the edition takes


@pytest.mark.parametrize(
    "text",
    [
        "CC",
        "CC1",
        "",
        "CC<=65//h",
        "CC<=65x",
        "CCB<=65",
        "RES(13-10)",
        "1D100<=65",
        "CC<=",
        "CBR(60)",
    ],
)
def test_commands_leave_other_text_alone(text: str) -> None:
    assert commands(text) is None


def test_commands_pass_bcdices_larger_pools_to_the_request_to_refuse() -> None:
    request = commands("CC3<=50")
    assert request == {"system": "coc7", "skill": 50, "bonus_dice": 3}
    with pytest.raises(d100.D100Error) as err:
        d100.parse(request)
    assert err.value.field == "bonus_dice"
    with pytest.raises(d100.D100Error) as err:
        d100.parse(commands("CC<=5000"))
    assert err.value.field == "skill"


def test_commands_are_declared() -> None:
    assert DECLARES.commands is commands


# -- the declaration ---------------------------------------------------------------------------


def test_c7_1_levels_are_declared_as_records_best_first() -> None:
    assert (
        [lv.name for lv in DECLARES.levels]
        == list(SYSTEM.levels)
        == [
            "critical",
            "extreme",
            "hard",
            "regular",
            "failure",
            "fumble",
        ]
    )
    assert [lv.success for lv in DECLARES.levels] == [True] * 4 + [False] * 2
    assert [lv.style for lv in DECLARES.levels] == ["best", "good", "good", "ok", "bad", "worst"]
    assert all(lv.meaning and lv.mark for lv in DECLARES.levels)
    assert set(DECLARES.level_names) == set(SYSTEM.levels)


def test_c7_2_the_target_is_the_required_level() -> None:
    target = DECLARES.target
    assert (target.field, target.default) == ("difficulty", "regular")
    assert list(target.presets) == ["regular", "hard", "extreme", "critical"]
    assert target.presets["critical"] > target.presets["regular"] and target.harder == 1
    assert DECLARES.to_dict()["target"]["presets"]["hard"] == target.presets["hard"]


def test_c7_3_extra_dice_are_the_tens_method_with_no_rule_to_change_it() -> None:
    extra = DECLARES.extra_dice
    assert extra is not None and extra.most == 2 and extra.method_rule is None
    assert "bonus_dice_method" not in {f.name for f in SYSTEM.check_fields}


def test_c7_3_the_sampler_is_one_tens_roll_without_a_push() -> None:
    parsed = d100.parse
    assert DECLARES.sampler(parsed({"system": "coc7", "skill": 5})) == Roller(1, True, True)
    assert DECLARES.sampler(
        parsed({"system": "coc7", "skill": 5, "penalty_dice": 2, "luck": 9})
    ) == Roller(3, False, True)
    assert DECLARES.sampler(parsed({"system": "coc7", "skill": 5, "push": True})) is None
    assert DECLARES.sampler(parsed({"system": "coc7", "skill": 5, "dice": [3]})) is None


@pytest.mark.parametrize(
    "request_",
    [
        {"system": "coc7", "skill": 45, "bonus_dice": 1, "luck": 20},
        {"system": "coc7", "skill": 45, "push": True},
        {
            "system": "coc7",
            "actor": {"skill": 50},
            "opponent": {"skill": 50, "penalty_dice": 1},
            "response": "dodge",
        },
    ],
)
def test_sampling_agrees_with_the_exact_odds(request_: dict[str, Any]) -> None:
    n = 20_000
    counts = sample(d100.parse(request_), n, seed=7)
    odds = d100.odds(request_)
    exact = odds.levels if isinstance(odds, d100.CheckOdds) else odds.winner
    for key, p in exact.items():
        sigma = max(float(p * (1 - p) * n) ** 0.5, 1.0)
        assert abs(counts.get(key, 0) - float(p) * n) < 5 * sigma, key
    if "push" not in request_:
        assert _sides(d100.parse(request_)) is not None  # the vectorised path


def test_advice_weighs_luck_against_a_push() -> None:
    options = {o.name: o for o in advise({"system": "coc7", "skill": 45}, luck=30)}
    assert set(options) >= {
        "as asked",
        "spend Luck as needed (up to 29)",
        "push if it fails",
        "spend Luck as needed (up to 29), else push",
        "a bonus die",
    }
    asked = options["as asked"].odds.success
    luck = options["spend Luck as needed (up to 29)"]
    push = options["push if it fails"]
    both = options["spend Luck as needed (up to 29), else push"]
    assert luck.odds.success > asked and push.odds.success > asked
    assert both.odds.success > max(luck.odds.success, push.odds.success)
    assert luck.luck > 0 and push.luck == 0  # the expected Luck spent
    assert both.request["luck"] == 30 and both.request["push"] is True


def test_advice_without_known_luck_says_what_it_assumes() -> None:
    names = [o.name for o in advise({"system": "coc7", "skill": 45})]
    assert "spend Luck as needed (up to 49)" in names
    few = [o.name for o in advise({"system": "coc7", "skill": 45}, luck=1)]
    assert not any("Luck" in n for n in few)  # 1 Luck can never exceed a cost


def test_advice_for_a_combined_roll_offers_neither_luck_nor_a_push() -> None:
    names = [o.name for o in advise({"system": "coc7", "skill": 45, "combined": [30]}, luck=30)]
    assert names and not any("Luck" in n or "push" in n for n in names)


def test_the_advice_for_a_pushed_request_keeps_the_push() -> None:
    options = advise({"system": "coc7", "skill": 45, "push": True, "penalty_dice": 1}, luck=20)
    names = [o.name for o in options]
    assert "spend Luck as needed (up to 19), else push" in names
    bonus = next(o for o in options if o.name == "a bonus die")
    assert bonus.request["penalty_dice"] == 0


def test_the_edition_is_registered() -> None:
    assert "coc7" in REGISTRY.names() and REGISTRY.get("coc7") is SYSTEM


# -- the contract's schemas ------------------------------------------------------------------


def _valid(name: str, value: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(schema.shipped(name)).validate(value)


def _without_dice(request: dict[str, Any]) -> dict[str, Any]:
    return {
        k: _without_dice(v) if isinstance(v, dict) else v for k, v in request.items() if k != "dice"
    }


def test_results_and_odds_fit_the_shipped_schemas() -> None:
    for request in (
        {"system": "coc7", "skill": 60, "luck": 20, "push": True, "dice": [90, 70]},
        {"system": "coc7", "skill": 60, "luck": 50, "dice": [70]},
        {"system": "coc7", "skill": 60, "combined": [45, 30], "dice": [25]},
        {
            "system": "coc7",
            "actor": {"skill": 60, "bonus_dice": 1, "dice": [30, 50]},
            "opponent": {"skill": 40, "dice": [20]},
            "response": "maneuver",
        },
    ):
        _valid("request", request)
        _valid("result", d100.resolve(request).to_dict())
        _valid("odds", d100.odds(_without_dice(request)).to_dict())
    with pytest.raises(jsonschema.ValidationError):
        _valid("request", {"system": "coc7", "skill": 60, "luck_boost": True})


def test_results_are_frozen() -> None:
    result = d100.resolve({"system": "coc7", "skill": 60, "luck": 50, "dice": [70]})
    assert result.luck_costs is not None
    with pytest.raises(TypeError):
        result.luck_costs["hard"] = 1  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.luck_spent = 3  # type: ignore[misc]


def test_advice_lists_each_option_once() -> None:
    for request, luck in (
        ({"system": "coc7", "skill": 60, "luck": 30, "push": True}, None),
        ({"system": "coc7", "skill": 60, "luck": 30}, 40),
        ({"system": "coc7", "skill": 60, "push": True}, None),
    ):
        names = [o.name for o in advise(request, luck=luck)]
        assert len(names) == len(set(names)), names
    kept = [o.request.get("luck") for o in advise({"system": "coc7", "skill": 60, "luck": 30})]
    assert set(kept) == {30}  # Luck not known: the Luck asked for is not second-guessed


def test_c7_4_c7_5_no_luck_on_a_luck_or_sanity_roll_and_no_push_of_a_weapon_roll() -> None:
    from d100.declarations import Rolled
    from d100.engine import resolve
    from d100.results import CheckResult
    from d100.systems import REGISTRY

    after = REGISTRY.get("coc7").declares.after
    request = {"system": "coc7", "skill": 60, "dice": [70]}
    result = resolve(request, None)  # type: ignore[arg-type]  # the dice are given
    assert isinstance(result, CheckResult) and result.level == "failure"

    def keys(skill: str) -> set[str]:
        return {f.key for f in after(Rolled(request, result, 50, 0, (), skill))}

    assert keys("Library Use") == {"luck", "luck_hard", "push"}
    assert keys("Sanity") == keys("luck") == set()  # neither Luck nor a push
    assert keys("Fighting (Brawl)") == keys("firearms (handgun)") == {"luck", "luck_hard"}
