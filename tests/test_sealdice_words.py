"""SealDice's check words (SD-W1..SD-W5, SD-W8 of SESSION.md) read as coc7 requests: what
each form asks for, written out by hand from SESSION.md's grammar."""

from __future__ import annotations

import pytest

import d100
from d100 import quick
from d100.errors import D100Error


def form(line: str) -> quick.Form:
    found = quick.form(line.split())
    assert found is not None, line
    return found


def asked(line: str) -> dict[str, object]:
    """The request a line asks for, as JSON Lines and Discord read it (no table settings)."""
    return quick.read(line)


def test_sd_w1_ra_and_rc_read_the_value_glued_or_spaced_and_rule_0() -> None:
    want = {"system": "coc7", "skill": 50, "house_rules": {"setcoc": 0}}
    assert asked(".ra 侦查50") == want
    assert asked(".ra 侦查 50") == want  # "侦查 50" is glued first
    assert asked(".ra侦查50") == want
    assert asked(".rc 侦查50") == want
    assert asked(".ra 50 撬锁") == want
    assert form(".ra 50 撬锁").label == "撬锁"
    assert form(".ra 侦查50 撬锁").label == "侦查 撬锁"
    assert asked(".ra 侦查50+10-5")["modifiers"] == [10, -5]


def test_sd_w1_ra_leaves_the_rule_to_the_table_rc_forces_rule_0() -> None:
    ra, rc = form(".ra 侦查50"), form(".rc 侦查50")
    assert "house_rules" not in ra.request and ra.defaults == {"house_rules": {"setcoc": 0}}
    assert rc.request["house_rules"] == {"setcoc": 0} and not rc.defaults


def test_sd_w1_ra_without_a_value_is_refused_clearly() -> None:
    with pytest.raises(D100Error) as err:
        asked(".ra 侦查")
    assert "侦查50" in err.value.allowed


def test_sd_w2_difficulty_prefixes_glued_to_a_name() -> None:
    assert asked(".ra 困难侦查50")["difficulty"] == "hard"
    assert asked(".ra 困難侦查50")["difficulty"] == "hard"
    assert asked(".ra 极难斗殴70")["difficulty"] == "extreme"
    assert asked(".ra 極難斗殴70")["difficulty"] == "extreme"
    assert asked(".ra 大成功侦查50")["difficulty"] == "critical"
    assert "difficulty" not in asked(".ra 常规侦查50")
    assert "difficulty" not in asked(".ra 失败侦查50")  # stripped, read as regular
    assert "difficulty" not in asked(".ra 困难50")  # a name 困难 with 50, regular
    assert form(".ra 困难50").label == "困难"


def test_sd_w3_rah_and_rch_are_hidden_not_hard() -> None:
    for line in (".rah 侦查50", ".rch 侦查50"):
        found = form(line)
        assert found.secret and "difficulty" not in found.request, line
    assert not form(".ra 侦查50").secret


def test_sd_w4_bonus_and_penalty_dice() -> None:
    assert asked(".ra b 侦查50")["bonus_dice"] == 1
    assert asked(".rab侦查50")["bonus_dice"] == 1
    assert asked(".ra p2 侦查50")["penalty_dice"] == 2
    assert asked(".raB2 侦查50")["bonus_dice"] == 2
    with pytest.raises(D100Error) as err:  # SealDice has no cap; coc7's pool is 0..2 (C7-3)
        d100.parse(asked(".ra p3 侦查50"))
    assert err.value.field == "penalty_dice"


def test_sd_w5_repeats() -> None:
    assert form(".ra 3#侦查50").repeat == 3
    assert form(".ra 3#p 侦查50").repeat == 3
    assert asked(".ra 3#p 侦查50")["penalty_dice"] == 1
    assert form(".ra 侦查50").repeat == 1


def test_sd_w1_a_check_as_sealdice_judges_it() -> None:
    # rule: SD-W1, SD-0
    assert d100.resolve(asked(".ra 困难侦查60 @97")).level == "fumble"  # need 30 < 50
    assert d100.resolve(asked(".ra 侦查60 @97")).level == "failure"


@pytest.mark.parametrize(
    ("line", "named"),
    [(".xyz 50", ".xyz"), (".rav 侦查50", ".rav")],
)
def test_sd_w8_unknown_or_elsewhere_dot_commands_are_refused_naming_those_taken(
    line: str, named: str
) -> None:
    with pytest.raises(D100Error) as err:
        quick.read(line)
    assert ".ra" in err.value.allowed and ".rch" in err.value.allowed
    assert ".setcoc" in err.value.allowed and ".sc" in err.value.allowed
    assert named in str(err.value)


@pytest.mark.parametrize("line", [".sc 1/1d6 60", ".en 侦查60"])
def test_sd_w6_sd_w7_are_rolls_of_their_own_not_checks(line: str) -> None:
    with pytest.raises(D100Error) as err:  # JSON Lines read checks: these roll elsewhere
        quick.read(line)
    assert "not a check" in str(err.value) and "d100 roll" in err.value.allowed


def test_sd_w8_setcoc_takes_sealdices_rules_as_a_setting() -> None:
    for typed, rule in (("0", 0), ("5", 5), ("dg", "dg"), ("DG", "dg"), ("2 3", 2)):
        found = form(f".setcoc {typed}")  # one argument, its first word (SD-W8)
        assert found.settings == {"house_rules": {"setcoc": rule}}, typed
        with pytest.raises(D100Error):  # a setting rolls nothing: JSON Lines refuse it
            quick.read(f".setcoc {typed}")


def tells(line: str, settings: dict[str, object] | None = None) -> str:
    """What a word that sets nothing says of a table's settings of its system."""
    found = quick.question(line.split())
    assert found is not None and found.tells is not None, line
    assert not found.settings, line  # it sets nothing
    return found.tells(settings or {})


def test_sd_w8_setcoc_alone_says_the_tables_rule_else_sealdices_default() -> None:
    from d100.systems.coc7_setcoc import RULES

    default = tells(".setcoc")
    assert default == f"SealDice rule 0 (SealDice's default: no rule set): {RULES['0'].summary}"
    ruled = {"house_rules": {"setcoc": "dg"}}
    assert tells(".setcoc", ruled) == f"SealDice rule dg: {RULES['dg'].summary}"
    assert tells("coc7 .setcoc", {"house_rules": {"setcoc": 2}}).startswith("SealDice rule 2: ")
    assert form(".setcoc").tells is not None  # a bare word, not "its words follow"


def test_sd_w8_setcoc_details_lists_every_rule_and_help_says_what_it_takes() -> None:
    from d100.systems.coc7_setcoc import RULES

    details = tells(".setcoc details").splitlines()
    assert details == [f"SealDice rule {k}: {r.summary}" for k, r in RULES.items()]
    assert len(details) == 7 and tells(".setcoc DETAILS") == "\n".join(details)
    assert form(".setcoc details").tells is not None  # the whole line, not a label "details"
    said = tells(".setcoc help")
    assert ".setcoc N" in said and "0, 1, 2, 3, 4, 5 or dg" in said and "details" in said


@pytest.mark.parametrize("other", ["9", "x", "rule", "x 2"])
def test_sd_w8_setcoc_with_anything_else_says_the_rule_and_sets_nothing(other: str) -> None:
    said = tells(f".setcoc {other}", {"house_rules": {"setcoc": 3}})
    assert said.startswith("SealDice rule 3: ") and "0, 1, 2, 3, 4, 5 or dg" in said
    assert repr(other.split()[0]) in said  # its one argument, named


def test_sd_w8_a_question_is_no_roll_nor_a_setting_where_words_must_roll() -> None:
    with pytest.raises(D100Error) as err:
        quick.read(".setcoc")
    assert err.value.field == "quick" and "not a roll" in str(err.value)
    assert quick.question([".setcoc", "2"]) is None  # it sets: not a question
    assert quick.question([".ra", "侦查50"]) is None


def test_sd_w5_at_someone_names_the_character_whose_card_rolls() -> None:
    # rule: SD-W5
    found = form(".ra 困难侦查 @Bob")
    assert (found.who, found.named, found.label) == ("Bob", "侦查", "侦查")
    assert found.request["difficulty"] == "hard"
    given = form(".ra 侦查 @42")  # digits after @ stay dice typed by hand
    assert given.who is None and given.request["dice"] == [42]
    both = form(".ra 侦查 @Bob @42")
    assert both.who == "Bob" and both.request["dice"] == [42]
    with pytest.raises(D100Error) as err:  # no door with sheets: the field named
        quick.read(".ra 侦查 @Bob")
    assert err.value.field == "character" and err.value.value == "@Bob"
    for twice in (".ra 侦查 @Bob @Sam", ".ra 侦查 @"):
        with pytest.raises(D100Error):
            form(twice)


def test_sd_w1_a_modifier_glued_to_the_last_word_of_an_english_name() -> None:
    found = form(".ra spot hidden+20")
    assert (found.named, found.label, found.request.get("modifiers")) == (
        "spot hidden",
        "spot hidden",
        [20],
    )
    hard = form(".ra 困难Spot Hidden+20-5 at the door @Bob")
    assert (hard.named, hard.request["modifiers"], hard.request["difficulty"]) == (
        "Spot Hidden",
        [20, -5],
        "hard",
    )
    assert (hard.label, hard.who) == ("Spot Hidden at the door", "Bob")
    plain = form(".ra spot hidden")  # no modifier: the first word, a sheet's prefix
    assert (plain.named, plain.label) == ("spot", "spot hidden")
    assert "modifiers" not in plain.request
    with pytest.raises(D100Error) as err:  # no sheet: no value for the whole name
        quick.read(".ra spot hidden+20")
    assert "spot hidden" in str(err.value)
