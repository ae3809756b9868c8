"""``d100 check``, ``contest`` and ``group`` through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from d100.sheets import load

from .conftest import clean_error, d100

# Golden plain output of fixed-dice checks: computed by running, checked by eye, then frozen.
GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize(
    ("args", "golden"),
    [
        (
            [
                "-s",
                "brp",
                "--skill",
                "65",
                "--difficulty",
                "hard",
                "--bonus",
                "1",
                "--dice",
                "42,7",
            ],
            "check_brp_bonus.txt",
        ),  # rule: BRP3, BRP4
        (
            ["-s", "openquest", "--skill", "55", "--assist", "40@33", "--dice", "44"],
            "check_openquest_assist.txt",
        ),  # rule: OQ11, OQ12
        (
            [
                "-s",
                "chances",
                "--skill",
                "40",
                "--ability",
                "10",
                "--risk",
                "tough",
                "--assist",
                "30+5@60",
                "--dice",
                "63",
                "--synergy",
                "80",
            ],
            "check_chances_assisted.txt",
        ),  # rule: CH8, CH9
    ],
)
def test_check_golden_plain(args: list[str], golden: str) -> None:
    run = d100("check", *args)
    assert run.status == 0, run.err
    assert run.out == (GOLDEN / golden).read_text()


def test_colour_only_on_request() -> None:
    plain = d100("check", "-s", "brp", "--skill", "65", "--dice", "7")
    assert "\x1b[" not in plain.out  # a pipe is not a terminal


def test_check_json_is_the_contract_result() -> None:
    run = d100("check", "-s", "brp", "--skill", "65", "--dice", "42,7", "--bonus", "1", "--json")
    data = json.loads(run.out)
    assert data["level"] == "special" and data["roll"] == 7 and data["dice"] == [42, 7]
    assert data["target"] == 65 and data["margin"] == 58


def test_seed_repeats_the_roll() -> None:  # rule: G2
    a = d100("check", "-s", "brp", "--skill", "50", "--seed", "9", "--json")
    b = d100("check", "-s", "brp", "--skill", "50", "--seed", "9", "--json")
    assert json.loads(a.out)["dice"] == json.loads(b.out)["dice"]


def test_luck_reroll_shows_both_rolls() -> None:  # rule: BRP7
    run = d100("check", "-s", "brp", "--skill", "65", "--reroll", "2", "--dice", "99,80,12")
    assert "99  then Luck reroll: 80  then Luck reroll: 12" in run.out
    assert "SPECIAL" in run.out and "luck     spent 2" in run.out


def test_master_does_not_roll() -> None:  # rule: OQ3
    run = d100("check", "-s", "openquest", "--skill", "100")
    assert "no roll (a master)" in run.out and "CRITICAL" in run.out


def test_take_100_notes_the_time() -> None:  # rule: CH5
    run = d100("check", "-s", "chances", "--skill", "40", "--risk", "tough", "--take", "100")
    assert "took 100" in run.out and "100 times as long" in run.out


@pytest.mark.parametrize(
    ("luck", "dodging", "struck", "shown"),
    [
        (40, 16, True, "struck: 15 failure points, fewer than its dodging factor 16"),
        (40, 15, False, "not struck: 15 failure points, not fewer than its dodging factor 15"),
        (55, 99, False, "not struck: the shot succeeded"),  # a success never strikes the cover
    ],
)
def test_ch10_cover_on_the_command_line(luck: int, dodging: int, struck: bool, shown: str) -> None:
    args = ["check", "-s", "chances", "--skill", "45", "--risk", "100", "--dice", str(luck)]
    args += ["--cover", str(dodging)]
    run = d100(*args)
    assert run.status == 0 and shown in run.out
    data = json.loads(d100(*args, "--json").out)
    assert data["cover"] == {"dodging_factor": dodging, "struck": struck}
    assert data["margin"] == luck + 45 - 100


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["-s", "brp", "--skill", "65", "--cover", "10"], "--cover: cover is a Taking Chances"),
        (["-s", "chances", "--skill", "45", "--risk", "50", "--cover", "-1"], "negative: -1"),
        (["-s", "brp", "--skill", "x"], "--skill: not an integer: 'x'"),
        (["-s", "brp", "--skill", "65", "--difficulty", "nasty"], "difficulty: unknown preset"),
        (["--skill", "65"], "--system: no system given"),
        (
            ["-s", "openquest", "--skill", "60", "--bonus", "1"],
            "--bonus: not an input of openquest",
        ),
        (["-s", "brp", "--skill", "65", "--dice", "42,7"], "left over"),
        (["-s", "brp", "--skill", "65", "--bonus", "5"], "bonus_dice: out of range: 5"),
        (["-s", "dnd", "--skill", "65"], "--system: unknown system"),
        (["-s", "brp", "--skill", "65", "--difficulty", "hard,easy"], "one value per flag"),
        (["-s", "chances", "--skill", "40"], "risk: required"),
        (["-s", "chances", "--skill", "10", "--risk", "20", "--mod", "-100"], "CH7"),  # rule: CH7
        (["-s", "brp", "--skill", "65", "--frobnicate"], "unrecognized arguments"),
    ],
)
def test_check_errors_are_one_line(args: list[str], needle: str) -> None:
    assert needle in clean_error(d100("check", *args))


def test_contest_plain_and_json() -> None:  # rule: OQ7
    run = d100(
        "contest",
        "-s",
        "openquest",
        "--skill",
        "60",
        "--dice",
        "33",
        "--vs",
        "--skill",
        "45",
        "--dice",
        "44",
    )
    assert run.out.splitlines()[0] == "OpenQuest contest: opponent wins"
    assert "odds     actor 57.94% · opponent 41.76% · none 0.30%" in run.out
    data = json.loads(
        d100(
            "contest",
            "-s",
            "openquest",
            "--skill",
            "60",
            "--dice",
            "33",
            "--vs",
            "--skill",
            "45",
            "--dice",
            "44",
            "--json",
        ).out
    )
    assert data["winner"] == "opponent"


def test_contest_flags_after_vs_belong_to_the_contest() -> None:  # rule: CH6
    run = d100(
        "contest",
        "-s",
        "chances",
        "--skill",
        "40",
        "--dice",
        "50",
        "--vs",
        "--skill",
        "40",
        "--dice",
        "50",
        "--coin",
        "opponent",
        "--json",
    )
    assert json.loads(run.out)["winner"] == "opponent"


def test_contest_errors() -> None:
    assert "--vs" in clean_error(d100("contest", "-s", "brp", "--skill", "40"))
    assert "--risk: not an input of a chances contest side: '5'" in clean_error(
        d100("contest", "-s", "chances", "--skill", "40", "--risk", "5", "--vs", "--skill", "3")
    )


def test_group_numbers_and_dice() -> None:  # rule: OQ10
    run = d100("group", "-s", "openquest", "--skill", "60,45", "--dice", "33/90")
    lines = run.out.splitlines()
    assert lines[0] == "OpenQuest group test: each result stands alone"
    assert lines[2].split()[:4] == ["#1", "33", "60", "critical"]
    assert lines[3].split()[:4] == ["#2", "90", "45", "failure"]
    assert "2 groups of dice" in clean_error(
        d100("group", "-s", "openquest", "--skill", "60,45", "--dice", "33")
    )


# -- sheets ---------------------------------------------------------------------------------


def test_check_by_names_and_prefixes(party: Path) -> None:
    run = d100("check", "--sheet", str(party), "ALI", "stea", "--dice", "7")
    assert run.out.startswith("alice · stealth — skill 65")


def test_sheet_from_environment(party: Path) -> None:
    run = d100("check", "alice", "stealth", "--dice", "7", env={"D100_SHEET": str(party)})
    assert run.status == 0 and "alice · stealth" in run.out


@pytest.mark.parametrize(
    ("names", "needle"),
    [
        (["alcie", "stealth"], "unknown character 'alcie'; did you mean 'alice'?"),
        (["alice", "sp"], "ambiguous: spot hidden or spot?"),
        (["alice", "stelth"], "did you mean 'stealth'?"),
        (["alice"], "a character and a skill"),
    ],
)
def test_name_errors(party: Path, names: list[str], needle: str) -> None:
    assert needle in clean_error(d100("check", "--sheet", str(party), *names, "--dice", "7"))


def test_luck_spent_is_written_back(party: Path) -> None:  # rule: BRP7
    run = d100("check", "--sheet", str(party), "alice", "stealth", "--luck-boost", "--dice", "7")
    assert "alice spent 1 Luck: 1/13 left" in run.out
    luck = load(party).get("alice").luck
    assert luck is not None and luck.current == 1
    refused = clean_error(
        d100("check", "--sheet", str(party), "alice", "stealth", "--luck-boost", "--reroll", "1")
    )
    assert "may spend 2, alice has 1 left" in refused
    rest = d100("rest", "--sheet", str(party), "alice")
    assert rest.out == "alice: Luck 1 -> 13\n"
    luck = load(party).get("alice").luck
    assert luck is not None and luck.current == 13


def test_chances_sheet_adds_ability_and_synergy(party: Path) -> None:  # rule: CH9, CH11
    data = json.loads(
        d100(
            "check",
            "--sheet",
            str(party),
            "carol",
            "sneak",
            "--risk",
            "tough",
            "--dice",
            "50",
            "--json",
        ).out
    )
    # Sneaking pairs with Dex. (CH11); hiding 30 is synergistic: +10 (CH9)
    assert data["request"]["ability"] == 10 and data["request"]["synergy"] == [30]
    assert data["total"] == 50 + 40 + 10 + 10


def test_contest_and_assist_by_name(party: Path) -> None:
    run = d100(
        "contest",
        "--sheet",
        str(party),
        "carol",
        "sneak",
        "--dice",
        "50",
        "--vs",
        "dara",
        "hear",
        "--dice",
        "40",
        "--json",
    )
    data = json.loads(run.out)
    assert data["actor"]["total"] == 110 and data["opponent"]["total"] == 112
    assert data["winner"] == "opponent"
    helped = json.loads(
        d100(
            "check",
            "--sheet",
            str(party),
            "erin",
            "perc",
            "--assist",
            "finn",
            "--dice",
            "40",
            "--json",
        ).out
    )
    assert helped["request"]["assist"]["skill"] == 40  # finn's perception (OQ11)


def test_group_from_sheet_skips_those_without_the_skill(party: Path) -> None:
    run = d100("group", "--sheet", str(party), "stealth", "--seed", "1")
    who = [ln.split()[0] for ln in run.out.splitlines()[2:]]
    assert who == ["alice", "bob", "erin"]


def test_group_spends_each_members_luck(party: Path) -> None:  # rule: BRP7
    run = d100(
        "group",
        "--sheet",
        str(party),
        "stealth",
        "--who",
        "alice,bob",
        "--luck-boost",
        "--dice",
        "5/6",
    )
    assert "alice spent 1 Luck: 1/13 left" in run.out and "bob spent 1 Luck: 4/10 left" in run.out
    bob = load(party).get("bob").luck
    assert bob is not None and bob.current == 4


def test_ch8_group_helps_the_leader(party: Path) -> None:
    """carol (sneaking 40 + dex 10) outranks dara (20 + 5), so she leads by default; dara
    assists against risk 50 with her own luck."""
    base = ["group", "--sheet", str(party), "sneaking", "--risk", "tough", "--json"]
    led = json.loads(d100(*base, "--lead", "--dice", "60/30").out)
    assert led["leader"] == "carol" and led["roll"] == 60
    assert led["request"]["assisters"] == [
        {"skill": 20, "ability": 5, "modifiers": [], "dice": [30]}
    ]
    assert led["assisters"][0]["total"] == 55 and led["assisters"][0]["success"]
    assert led["total"] == 60 + 40 + 10 + 10 + 10  # luck, skill, dex, synergy (CH9), one helper
    chosen = json.loads(d100(*base, "--lead", "da", "--dice", "60/30").out)
    assert chosen["leader"] == "dara" and chosen["request"]["assisters"][0]["skill"] == 40
    plain = d100(
        "group", "--sheet", str(party), "sneaking", "--risk", "tough", "--lead", "--seed", "2"
    )
    assert plain.out.startswith("carol leads, helped by dara (CH8)")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (
            ["-s", "brp", "--skill", "40,50", "--lead"],
            "--lead: helping the leader is not a rule of brp",
        ),
        (["-s", "chances", "--skill", "40", "--risk", "50", "--lead"], "nobody to help"),
        (
            ["-s", "chances", "--skill", "40,30", "--risk", "50", "--lead", "zed"],
            "--lead: unknown member 'zed'",
        ),
    ],
)
def test_ch8_lead_errors(args: list[str], needle: str) -> None:
    assert needle in clean_error(d100("group", *args))


def test_helpers_from_the_sheet_roll_typed_dice(party: Path) -> None:  # rule: OQ11, CH8
    run = d100(
        "check", "--sheet", str(party), "erin", "perception", "--assist", "finn@20", "--dice", "44",
        "--json",
    )  # fmt: skip
    request = json.loads(run.out)["request"]
    assert request["assist"] == {"skill": 40, "difficulty": 0, "modifiers": [], "dice": [20]}
    run = d100(
        "check", "--sheet", str(party), "carol", "sneak", "--risk", "tough",
        "--assist", "dara/sneaking@00", "--dice", "63", "--json",
    )  # fmt: skip
    assert json.loads(run.out)["request"]["assisters"][0]["dice"] == [100]


def test_nobody_assists_herself(party: Path) -> None:  # rule: OQ11
    line = clean_error(
        d100("check", "--sheet", str(party), "erin", "perception", "--assist", "erin@20")
    )
    assert "--assist: erin cannot assist herself: 'erin@20'" in line


def test_contest_fills_the_opposing_skill_from_the_catalogue(party: Path) -> None:  # rule: CH11
    run = d100(
        "contest", "--sheet", str(party), "carol", "sneak", "--dice", "8",
        "--vs", "dara", "--dice", "12", "--json",
    )  # fmt: skip
    assert run.status == 0, run.err
    data = json.loads(run.out)
    assert data["request"]["opponent"]["skill"] == 60  # dara's hearing, not her sneaking
    assert data["actor"]["dice"] == [8] and data["opponent"]["dice"] == [12]


def test_a_skill_of_several_words_on_the_command_line(party: Path) -> None:
    run = d100("check", "--sheet", str(party), "alice", "spot", "hidden", "--dice", "9", "--json")
    assert json.loads(run.out)["target"] == 50
    assert "a character and a skill are needed" in clean_error(
        d100("check", "--sheet", str(party), "alice")
    )


def test_ch9_synergy_counts_on_her_own_check_not_when_she_assists(party: Path) -> None:
    # rule: CH9, CH8 (the reading the README documents: an assister rolls skill + ability)
    own = json.loads(
        d100("odds", "--sheet", str(party), "carol", "sneaking", "--risk", "tough", "--json").out
    )
    plain = json.loads(
        d100("odds", "-s", "chances", "--skill", "40", "--ability", "10", "--risk", "tough",
             "--json").out
    )  # fmt: skip
    assert own["success"] != plain["success"]  # hiding 30 gives carol +10 on her own check
    helped = d100(
        "check", "--sheet", str(party), "dara", "sneaking", "--risk", "tough",
        "--assist", "carol@60", "--dice", "40", "--json",
    )  # fmt: skip
    assert json.loads(helped.out)["request"]["assisters"] == [
        {"skill": 40, "ability": 10, "modifiers": [], "dice": [60]}
    ]


def test_a_field_s_flag_given_twice_is_an_error_naming_both() -> None:
    for args in (
        ("check", "-s", "brp", "--skill", "50", "--dice", "10", "--dice", "20"),
        ("odds", "-s", "brp", "--skill", "50", "--skill", "60"),
        ("contest", "-s", "brp", "--skill", "50", "--vs", "--skill", "40",
         "--dice", "5", "--dice", "6"),
    ):  # fmt: skip
        line = clean_error(d100(*args))
        flag, first, second = (a for a in args[-4::2]), args[-3], args[-1]
        assert f"{next(flag)}: given twice: '{first}' and '{second}'" in line, line
