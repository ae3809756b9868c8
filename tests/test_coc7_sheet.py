"""A CoC7 investigator's sheet: characteristics with half and fifth (S7-10), derived values
(S7-11) and the base skills of the 1920s list (S7-12), each held to SESSION.md's statement
written out here again, never to the code's own output."""

from __future__ import annotations

from fractions import Fraction

import pytest

import d100
from d100.errors import D100Error
from d100.sheets import loads

VERA = """\
[vera]
system = "coc7"
luck = { current = 45, maximum = 45 }
characteristics = { STR = 60, CON = 55, SIZ = 65, DEX = 55, APP = 50, INT = 80, POW = 60, EDU = 85 }
skills = { "Spot Hidden" = 60, "Cthulhu Mythos" = 4 }
"""


def vera(extra: str = "", characteristics: str | None = None) -> d100.sheets.Character:
    text = VERA + extra
    if characteristics is not None:
        text = text.replace(text.splitlines()[3], f"characteristics = {{ {characteristics} }}")
    return loads(text).get("vera")


@pytest.mark.parametrize("difficulty", ["regular", "hard", "extreme"])
@pytest.mark.parametrize("name", ["DEX", "dex", "EDU", "Luck", "POW"])
def test_s7_10_a_characteristic_is_rolled_with_its_half_and_fifth(
    name: str, difficulty: str
) -> None:  # rule: S7-10
    c = vera()
    value = {"DEX": 55, "dex": 55, "EDU": 85, "Luck": 45, "POW": 60}[name]
    need = {"regular": value, "hard": value // 2, "extreme": value // 5}[difficulty]
    # brute force over the d100: 01 always succeeds; a roll at most the value needed succeeds
    # unless it is a fumble (96-100 below 50 needed, else 100)
    fumble_from = 96 if need < 50 else 100
    wins = [r for r in range(1, 101) if (r == 1 or r <= need) and r < fumble_from]
    odds = d100.odds({**c.request(name), "difficulty": difficulty})
    assert odds.success == Fraction(len(wins), 100)


def test_s7_10_half_and_fifth_on_the_sheet_round_down() -> None:  # rule: S7-10
    c = vera()
    rules = c.investigator_rules
    assert rules is not None
    for v in range(0, 300):
        assert dict(rules.parts(v)) == {"half": int(v / 2), "fifth": int(v / 5)}


def test_s7_11_derived_values_of_a_sheet() -> None:  # rule: S7-11
    c = vera()
    got = {k: v for k, (v, _) in c.derived_values.items()}
    # HP (55+65)/10, MP 60/5, SAN = POW, SAN max 99-4; DEX 55 < SIZ 65 and STR 60 < SIZ: MOV 7;
    # STR+SIZ 125: Build 1, DB +1D4
    assert got == {
        "HP": 12,
        "MP": 12,
        "SAN": 60,
        "SAN max": 95,
        "SAN a day": 12,  # S7-4's daily limit: SAN / 5
        "MOV": 7,
        "Build": 1,
        "DB": "+1d4",
    }


def _table_build_and_bonus(total: int) -> tuple[int, str]:
    """S7-11's table row by row, extended by SealDice's formula from 205 (coc7.yaml)."""
    rows = [(64, -2, "-2"), (84, -1, "-1"), (124, 0, "0"), (164, 1, "+1d4"), (204, 2, "+1d6")]
    for most, build, bonus in rows:
        if total <= most:
            return build, bonus
    return (total - 205) // 80 + 3, f"+{(total - 205) // 80 + 2}d6"


@pytest.mark.parametrize("total", range(2, 700, 1))
def test_s7_11_build_and_damage_bonus_for_every_sum(total: int) -> None:  # rule: S7-11
    strength = total // 2
    size = total - strength
    c = vera(characteristics=f"STR = {strength}, SIZ = {size}")
    build, bonus = _table_build_and_bonus(total)
    assert c.derived_values["Build"] == (build, False)
    assert c.derived_values["DB"] == (bonus, False)


@pytest.mark.parametrize(
    ("dex", "strength", "size", "mov"),
    [
        (60, 60, 50, 9),
        (40, 40, 50, 7),
        (60, 40, 50, 8),  # one above SIZ, one below
        (50, 60, 50, 8),  # one equal to SIZ
        (50, 50, 50, 8),
    ],
)
def test_s7_11_movement_rate(dex: int, strength: int, size: int, mov: int) -> None:  # rule: S7-11
    c = vera(characteristics=f"DEX = {dex}, STR = {strength}, SIZ = {size}")
    assert c.derived_values["MOV"] == (mov, False)


@pytest.mark.parametrize(
    ("age", "less"),
    [(None, 0), (25, 0), (39, 0), (40, 1), (49, 1), (50, 2), (67, 3), (75, 4), (88, 5)],
)
def test_s7_11_movement_rate_and_age(age: int | None, less: int) -> None:  # rule: S7-11
    # decision S4: Foundry's age step where the sheet gives an age (40s -1 ... 80s -5)
    extra = "" if age is None else f"age = {age}\n"
    c = vera(extra, "DEX = 60, STR = 60, SIZ = 50")
    assert c.derived_values["MOV"] == (9 - less, False)


def test_s7_11_movement_never_below_zero() -> None:  # rule: S7-11
    c = vera("age = 150\n", "DEX = 40, STR = 40, SIZ = 50")
    assert c.derived_values["MOV"] == (0, False)


def test_s7_11_a_sheet_sets_a_derived_value_over_the_rule() -> None:  # rule: S7-11
    c = vera('derived = { SAN = 41, db = "+1d6" }\n')
    assert c.derived_values["SAN"] == (41, True)
    assert c.derived_values["SAN a day"] == (8, False)  # from the sheet's SAN: 41 / 5
    assert c.derived_values["DB"] == ("+1d6", True)
    assert c.derived_values["HP"] == (12, False)


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ("derived = { Sanity = 41 }\n", "vera.derived.Sanity"),
        ('derived = { SAN = "x" }\n', "vera.derived.SAN"),
        ('derived = { DB = "1d" }\n', "vera.derived.DB"),
        ("age = 0\n", "vera.age"),
        ("derived = { HP = 1e400 }\n", "vera.derived.HP"),
        ('rules = ["grim"]\n', "vera.rules"),
    ],
)
def test_s7_11_a_bad_derived_value_names_the_field(extra: str, field: str) -> None:  # rule: S7-11
    with pytest.raises(D100Error) as err:
        vera(extra)
    assert err.value.field == field and err.value.allowed


def test_s7_10_an_unknown_characteristic_is_refused() -> None:  # rule: S7-10
    with pytest.raises(D100Error) as err:
        vera(characteristics="STR = 50, LUCK = 3")
    assert err.value.field == "vera.characteristics.LUCK"
    assert "STR" in err.value.allowed and "EDU" in err.value.allowed


def test_s7_10_a_characteristic_is_refused_on_a_system_without_them() -> None:  # rule: S7-10
    with pytest.raises(D100Error) as err:
        loads('[bo]\nsystem = "brp"\ncharacteristics = { STR = 50 }\n')
    assert err.value.field == "bo.characteristics"


def test_p_8_and_p_10_pulp_heroes() -> None:  # rule: P-8, P-10
    c = vera('age = 70\nrules = ["pulp"]\n', "CON = 55, SIZ = 65, DEX = 70, STR = 60")
    assert c.derived_values["HP"] == ((55 + 65) // 5, False)
    assert c.derived_values["MOV"] == (8, False)  # no age step under pulp


# S7-12's table, copied from SESSION.md
BASES = {
    "Accounting": 5,
    "Anthropology": 1,
    "Charm": 15,
    "Climb": 20,
    "Credit Rating": 0,
    "Cthulhu Mythos": 0,
    "Fighting (Brawl)": 25,
    "Firearms (Handgun)": 20,
    "Firearms (Rifle/Shotgun)": 25,
    "First Aid": 30,
    "Library Use": 20,
    "Listen": 20,
    "Psychology": 10,
    "Science (Mathematics)": 10,
    "Spot Hidden": 25,
    "Throw": 20,
}


def test_s7_12_base_skills_where_the_sheet_omits_them() -> None:  # rule: S7-12
    c = vera()
    for skill, base in BASES.items():
        if skill in c.skills:
            assert c.rollable[c.skill(skill)] == c.skills[skill]  # the sheet's own
        else:
            assert c.base_skills[skill] == base and c.request(skill)["skill"] == base
    assert c.request("dodge")["skill"] == 27  # DEX 55 / 2, rounded down
    assert c.request("Language (Own)")["skill"] == 85  # EDU
    assert "Spot Hidden" not in c.base_skills


def test_s7_12_a_group_call_finds_a_skill_one_sheet_omits() -> None:  # rule: S7-12
    party = loads(VERA + '\n[wes]\nsystem = "coc7"\nskills = { Listen = 70 }\n')
    from d100.cli.flags import pick

    assert [pick(party, who, "listen").side["skill"] for who in ("vera", "wes")] == [20, 70]


def test_s7_12_characteristics_and_base_skills_stay_off_the_saved_sheet() -> None:  # rule: S7-12
    from d100.sheets import dumps

    text = dumps(loads(VERA))
    assert "Climb" not in text and "Dodge" not in text and "computed" not in text
    assert loads(text) == loads(VERA)


def test_s7_12_a_prefix_of_a_listed_skill_names_it_before_the_base_skills() -> None:
    """The sheet's own Fighting (Brawl) is what "fighting" names, though the base skills add
    Fighting (Axe) and others; a base skill's full name still reaches it, and a prefix only
    base skills share stays ambiguous."""
    ghoul = loads('[ghoul]\nsystem = "coc7"\nskills = { "fighting (brawl)" = 40, dodge = 20 }\n')
    who = ghoul.get("ghoul")
    assert who.skill("fighting") == "fighting (brawl)"
    assert who.skill("Fighting (Axe)") == "Fighting (Axe)"
    with pytest.raises(D100Error, match="ambiguous"):
        who.skill("firearms")
