"""SealDice's check words on the command line (SD-W1, SD-W3, SD-W5): ``.ra`` judged by the
table's ``--house setcoc``, else rule 0; ``.rc`` by rule 0 only; repeats and hidden rolls."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import clean_error, d100


def house(*args: str) -> object:
    run = d100("roll", *args, "--json")
    assert run.status == 0, run
    return json.loads(run.out)["request"]["house_rules"]


def test_sd_w1_ra_takes_the_tables_rule_else_rule_0() -> None:
    assert house(".ra", "侦查50", "@3") == {"setcoc": 0}
    assert house(".ra", "侦查50", "--house", "setcoc=dg", "@3") == {"setcoc": "dg"}


def test_sd_w1_rc_forces_rule_0() -> None:
    assert house(".rc", "侦查50", "--house", "setcoc=0", "@3") == {"setcoc": 0}
    refused = clean_error(d100("roll", ".rc", "侦查50", "--house", "setcoc=2", "@3"))
    assert "--house" in refused and "setcoc" in refused


def test_sd_w3_sd_w5_hidden_and_repeated() -> None:
    run = d100("roll", ".rah", "3#侦查50", "--seed", "7", "--json")
    assert run.status == 0, run
    lines = [json.loads(line) for line in run.out.splitlines()]
    assert len(lines) == 3 and all(line["secret"] for line in lines)
    assert len({line["roll"] for line in lines}) > 1  # one seeded source for the three


def test_sd_w8_setcoc_sets_the_shells_rule_for_the_session(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    lines = [".ra 侦查50 @44", ".setcoc dg", ".ra 侦查50 @44", "coc7 50 @44", ".rc 侦查50 @44"]
    run = d100("shell", "--log", str(log), "--plain", stdin="\n".join(lines) + "\n")
    assert run.status == 0, run
    assert "coc7 from now on: house rules: setcoc dg" in run.out
    rolls = [json.loads(line)["result"] for line in log.read_text().splitlines()]
    assert [r["request"]["house_rules"] for r in rolls] == [
        {"setcoc": 0},  # SealDice's default where the table sets none
        {"setcoc": "dg"},
        {"setcoc": "dg"},
        {"setcoc": 0},  # .rc: rule 0 whatever the table's
    ]
    assert [r["level"] for r in rolls] == ["regular", "critical", "critical", "regular"]


def test_sd_w8_setcoc_is_a_setting_not_a_roll_on_one_command_line() -> None:
    refused = clean_error(d100("roll", ".setcoc", "2"))
    assert "a setting, not a roll" in refused and "--house" in refused
    other = d100("roll", ".setcoc", "9", "--plain")  # SD-W8: anything else says the rule
    assert other.status == 0 and other.out.startswith("SealDice rule 0 ("), other
    assert "0, 1, 2, 3, 4, 5 or dg" in other.out


def test_sd_w8_setcoc_alone_on_the_command_line_says_the_default_or_the_house_rule() -> None:
    from d100.systems.coc7_setcoc import RULES

    bare = d100("roll", ".setcoc", "--plain")
    assert bare.status == 0, bare
    assert bare.out.strip() == (
        f"SealDice rule 0 (SealDice's default: no rule set): {RULES['0'].summary}"
    )
    housed = d100("roll", ".setcoc", "--house", "setcoc=2", "--json")
    assert housed.status == 0, housed
    assert json.loads(housed.out) == {"told": f"SealDice rule 2: {RULES['2'].summary}"}
    details = d100("roll", "coc7", ".setcoc", "details", "--plain")
    assert details.status == 0 and len(details.out.strip().splitlines()) == len(RULES)
    assert ".setcoc N" in d100("roll", ".setcoc", "help", "--plain").out


def test_sd_w8_setcoc_alone_in_the_shell_says_the_sessions_rule(tmp_path: Path) -> None:
    from d100.systems.coc7_setcoc import RULES

    lines = [".setcoc", ".setcoc 3", ".setcoc", ".setcoc details", ".setcoc nonsense"]
    run = d100("shell", "--log", str(tmp_path / "s.jsonl"), "--plain", stdin="\n".join(lines))
    assert run.status == 0, run
    out = run.out
    assert f"SealDice rule 0 (SealDice's default: no rule set): {RULES['0'].summary}" in out
    assert out.count(f"SealDice rule 3: {RULES['3'].summary}") == 3  # asked, listed, other
    assert f"SealDice rule dg: {RULES['dg'].summary}" in out  # details: every rule
    assert "character names need a sheet" not in out and "error" not in out


COC7_PARTY = """[bob]
system = "coc7"
skills = { "侦查" = 60, "spot hidden" = 45 }

[vera]
system = "coc7"
skills = { "侦查" = 20 }
"""


# rule: SD-W5
def test_sd_w5_at_someone_rolls_that_characters_card_in_the_shell(tmp_path: Path) -> None:
    sheet, log = tmp_path / "party.toml", tmp_path / "s.jsonl"
    sheet.write_text(COC7_PARTY)
    lines = [".ra 侦查 @Bob @55", ".ra 困难侦查 @vera @15", ".ra 侦查 @carol", ".ra 侦查 @42"]
    run = d100("shell", "--sheet", str(sheet), "--log", str(log), "--plain", stdin="\n".join(lines))
    assert run.status == 0, run
    rolled = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["who"], r["skill"]) for r in rolled] == [("bob", "侦查"), ("vera", "侦查")]
    bob, vera = (r["result"] for r in rolled)
    assert (bob["request"]["skill"], bob["roll"], bob["level"]) == (60, 55, "regular")
    assert (vera["request"]["skill"], vera["request"]["difficulty"]) == (20, "hard")
    assert "unknown character 'carol'" in run.out
    assert "no value given for 侦查" in run.out  # @42: dice by hand, no one's card


def test_sd_w5_at_someone_without_a_sheet_is_refused_naming_the_field() -> None:
    refused = clean_error(d100("roll", ".ra", "侦查", "@Bob"))
    assert "--sheet" in refused and "@Bob" in refused
    lines = json.dumps({"quick": ".ra 侦查 @Bob"}) + "\n"
    (answer,) = (json.loads(x) for x in d100("resolve", stdin=lines).out.splitlines())
    assert answer["error"]["field"] == "character" and answer["error"]["value"] == "@Bob"


def test_sd_w1_an_english_name_with_a_glued_modifier_on_a_sheet(tmp_path: Path) -> None:
    sheet = tmp_path / "party.toml"
    sheet.write_text(COC7_PARTY)
    made = d100("roll", "--sheet", str(sheet), ".ra", "spot", "hidden+20", "@bob", "@50", "--json")
    assert made.status == 0, made
    data = json.loads(made.out)
    assert (data["who"], data["skill"]) == ("bob", "spot hidden")
    assert data["request"]["modifiers"] == [20]
    assert data["request"]["skill"] == 45 and data["level"] == "regular"  # 50 <= 45 + 20
    refused = clean_error(d100("roll", ".ra", "spot", "hidden+20"))
    assert "spot hidden" in refused  # no sheet: no value for the whole name


def test_sd_w8_json_lines_answer_setcoc_alone_with_sealdices_default() -> None:
    lines = [{"quick": ".setcoc"}, {"quick": ".setcoc details"}, {"quick": ".setcoc 2"}]
    text = "".join(json.dumps(x) + "\n" for x in lines)
    for command in ("resolve", "odds"):
        run = d100(command, stdin=text)
        bare, details, setting = (json.loads(x) for x in run.out.splitlines())
        assert bare["told"].startswith("SealDice rule 0 (SealDice's default"), command
        assert len(details["told"].splitlines()) == 7
        assert setting["error"]["field"] == "quick" and "not a roll" in setting["error"]["message"]


def sc_json(*args: str) -> dict[str, object]:
    run = d100("roll", *args, "--json")
    assert run.status == 0, run
    data: dict[str, object] = json.loads(run.out)
    return data


# rule: SD-W6
def test_sd_w6_sc_on_the_command_line_by_the_tables_rule() -> None:
    zero = sc_json("coc7", ".sc", "1/1d6", "60", "@97,4")
    assert (zero["setcoc"], zero["level"], zero["loss"], zero["sanity_after"]) == (
        0,
        "failure",
        4,
        56,
    )
    three = sc_json(".sc", "1/1d6", "60", "--house", "setcoc=3", "@97")
    assert (three["level"], three["maximised"], three["loss"], three["temporary"]) == (
        "fumble",
        True,
        6,
        True,
    )
    assert three["odds"]["success"] == "3/5" and three["view"]["title"].endswith("(setcoc 3)")
    halved = sc_json(".sc", "0/1d10", "60", "--half", "--cap=3", "@80,9")
    assert (halved["loss_rolled"], halved["loss"]) == (9, 3)  # halve, then cap
    lone = sc_json(".sc", "1d6", "60", "@100")
    assert (lone["loss_expression"], lone["loss"]) == ("1d6", 6)
    text = d100("roll", "coc7", ".sc", "1/1d6", "4", "@90,5")
    assert text.status == 0 and "permanent insanity" in text.out


def test_sd_w6_sc_refusals_name_the_field() -> None:
    assert "sanity" in clean_error(d100("roll", ".sc", "1/1d6"))
    assert "--cap=N" in clean_error(d100("roll", ".sc", "1/1d6", "60", "--cap"))


# rule: SD-W6, SD-W7
def test_sd_w6_sd_w7_with_a_sheet_read_and_write_back(tmp_path: Path) -> None:
    sheet = tmp_path / "party.toml"
    sheet.write_text('[vera]\nsystem = "coc7"\nskills = { "侦查" = 60, sanity = 55 }  # kept\n')
    sc = sc_json("--sheet", str(sheet), "vera", ".sc", "1/1d6", "@80,4")
    assert (sc["who"], sc["sanity"], sc["sanity_after"]) == ("vera", 55, 51)
    assert "sanity = 51" in sheet.read_text() and "# kept" in sheet.read_text()
    run = d100("roll", "--sheet", str(sheet), "vera", ".en", "侦查", "@97,4")
    assert run.status == 0, run
    assert "侦查 64" in run.out and '"侦查" = 64' in sheet.read_text()
    same = sc_json("--sheet", str(sheet), "vera", ".en", "侦查", "@20")
    assert same["skills"][0]["after"] == 64 and '"侦查" = 64' in sheet.read_text()


# rule: SD-W7
def test_sd_w7_en_by_numbers_with_its_odds() -> None:
    data = sc_json(".en", "侦查60", "+1/1d5", "|", "图书馆70", "@97,4,20", "--house", "setcoc=3")
    rolls = data["skills"]
    assert isinstance(rolls, list)
    assert [r["after"] for r in rolls] == [64, 70]
    assert rolls[0]["odds"]["improves"] == "2/5" and rolls[1]["odds"]["improves"] == "3/10"
    assert "no value" in clean_error(d100("roll", ".en", "侦查"))


# rule: SD-W6, SD-W8
def test_sd_w6_sc_in_the_shell_takes_the_sessions_setcoc(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    lines = [".sc 1/1d6 60 @77,2", ".setcoc dg", ".sc 1/1d6 60 @77", ".sc 1/1d6 60 @44"]
    run = d100("shell", "--log", str(log), "--plain", stdin="\n".join(lines) + "\n")
    assert run.status == 0, run
    rolls = [json.loads(line)["result"] for line in log.read_text().splitlines()]
    assert [(r["setcoc"], r["level"], r["loss"]) for r in rolls] == [
        (0, "failure", 2),
        ("dg", "fumble", 6),  # a failed double loses the failure loss at its maximum
        ("dg", "critical", 1),
    ]


def test_sd_w5_json_lines_refuse_a_repeat_rather_than_roll_it_once() -> None:
    lines = ['{"quick": ".ra 3#侦查50 @3"}', '{"quick": ".ra 侦查50 @3"}']
    run = d100("resolve", stdin="\n".join(lines) + "\n")
    refused, rolled = (json.loads(line) for line in run.out.splitlines())
    assert refused["error"]["field"] == "quick" and "3 times" in refused["error"]["allowed"]
    assert rolled["roll"] == 3 and rolled["request"]["house_rules"] == {"setcoc": 0}


def test_sd_w6_sd_w7_json_lines_roll_and_count_sc_and_en_as_d100_roll_does() -> None:
    """The JSON Lines door plays ``.sc`` and ``.en`` (it refused them as "no check"): each
    line's answer is what ``d100 roll --json`` gives for the same words and seed, and ``d100
    odds`` answers with the odds that roll carried."""
    words = ["coc7 .sc 1/1d6 60", ".sc 1d3/1d10 45 --half", ".en 侦查60 +1d5"]
    for said in words:
        line = json.dumps({"quick": said}) + "\n"
        run = d100("resolve", "--seed", "11", stdin=line)
        assert run.status == 0, run
        answered = json.loads(run.out)
        rolled = d100("roll", *said.split(), "--seed", "11", "--json")
        assert rolled.status == 0, rolled
        assert answered == json.loads(rolled.out), said
        counted = d100("odds", stdin=line)
        assert counted.status == 0, counted
        odds = json.loads(counted.out)
        if "skills" in answered:
            assert odds == {"rolls": [s["odds"] for s in answered["skills"]]}, said
        else:
            assert odds == answered["odds"], said
    refused = json.loads(d100("resolve", stdin='{"quick": ".sc 1/1d6"}\n').out)["error"]
    assert refused["field"] == "sanity" and ".sc 1/1d6 60" in refused["allowed"]
