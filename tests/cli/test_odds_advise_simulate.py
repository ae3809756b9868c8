"""``d100 odds`` (flags, --table, JSON Lines), ``d100 advise`` and ``d100 simulate``."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from .conftest import clean_error, d100


def test_odds_with_flags_shows_percent_and_fraction() -> None:  # rule: G4, BRP3
    lines = d100("odds", "-s", "brp", "--skill", "65").out.splitlines()
    assert lines[0] == "Basic Roleplaying odds — skill 65"
    assert lines[2].split() == ["critical", "3.00%", "3/100"]
    assert lines[-1].split() == ["any", "success", "65.00%", "13/20"]


def test_odds_json_matches_the_contract() -> None:
    data = json.loads(d100("odds", "-s", "brp", "--skill", "65", "--json").out)
    assert data == {
        "levels": {
            "critical": "3/100",
            "special": "1/10",
            "success": "13/25",
            "failure": "3/10",
            "fumble": "1/20",
        },
        "success": "13/20",
    }


def test_odds_without_flags_reads_json_lines() -> None:
    run = d100("odds", stdin='{"system":"brp","skill":65}\n{"system":"x"}\n')
    first, second = (json.loads(x) for x in run.out.splitlines())
    assert first["success"] == "13/20" and second["error"]["field"] == "system"
    assert run.status == 1


def test_odds_table_rows_and_alternatives() -> None:
    out = d100(
        "odds",
        "-s",
        "brp",
        "--table",
        "--difficulty",
        "standard,hard",
        "--bonus",
        "0,1",
        "--step",
        "50",
    ).out
    blocks = out.split("\n\n")
    assert len(blocks) == 4  # two difficulties by two dice
    assert blocks[0].splitlines()[0] == "Basic Roleplaying: P(level) in %, difficulty standard"
    row = blocks[0].splitlines()[3].split()
    assert row == ["50", "2.00", "8.00", "40.00", "45.00", "5.00", "50.00"]


def test_odds_table_json_is_exact() -> None:
    data = json.loads(
        d100(
            "odds", "-s", "openquest", "--table", "--skills", "40-60", "--step", "20", "--json"
        ).out
    )
    assert [r["skill"] for r in data[0]["rows"]] == [40, 60]
    assert sum(Fraction(v) for v in data[0]["rows"][1]["levels"].values()) == 1


def test_odds_errors() -> None:
    # odds weigh every roll: --dice is not offered, and a typo of it gets a did-you-mean
    assert "unrecognized arguments: --dice" in clean_error(
        d100("odds", "-s", "brp", "--skill", "65", "--dice", "5")
    )
    assert "--dice" not in d100("odds", "--help").out
    assert "empty range" in clean_error(d100("odds", "-s", "brp", "--table", "--skills", "9-1"))


def test_advise_best_first() -> None:  # rule: BRP7, BRP4
    run = d100(
        "advise", "-s", "brp", "--skill", "45", "--difficulty", "difficult", "--luck", "1", "--json"
    )
    options = json.loads(run.out)
    names = [o["name"] for o in options]
    assert names[-1] == "as asked" and "Luck rerolls (up to 3)" not in names
    chances = [Fraction(o["odds"]["success"]) for o in options]
    assert chances == sorted(chances, reverse=True)


def test_advise_under_a_reroll_cap() -> None:  # rule: BRP7
    run = d100("advise", "-s", "brp", "--skill", "50", "--house", "max_luck_rerolls=1", "--json")
    assert run.status == 0, run
    names = [o["name"] for o in json.loads(run.out)]
    assert "Luck reroll" in names and not any(n.startswith("Luck rerolls") for n in names)


def test_advise_take_and_helpers() -> None:  # rule: CH5, CH8
    out = d100(
        "advise",
        "-s",
        "chances",
        "--skill",
        "40",
        "--ability",
        "10",
        "--risk",
        "tough",
        "--helper",
        "30+5",
    ).out.splitlines()
    names = [" ".join(ln.split()[1:3]) for ln in out[2:]]
    assert out[2].split()[1:4] == ["take", "50", "100.00%"]  # as good as take 100, and cheaper
    assert {"take 100", "helped by", "as asked"} <= set(names)
    assert names[-1] == "as asked"  # every option helps here


def test_advise_with_a_sheet_helper(party: Path) -> None:  # rule: OQ11
    out = d100("advise", "--sheet", str(party), "erin", "perc", "--helper", "finn").out
    assert "assisted by finn   63.00%  63/100" in out


def test_simulate_counts_beside_exact_odds() -> None:
    data = json.loads(
        d100("simulate", "-s", "brp", "--skill", "65", "-n", "4000", "--seed", "3", "--json").out
    )
    assert sum(data["counts"].values()) == 4000
    assert data["odds"]["success"] == "13/20"
    plain = d100("simulate", "-s", "brp", "--skill", "65", "-n", "4000", "--seed", "3").out
    assert (
        plain == d100("simulate", "-s", "brp", "--skill", "65", "-n", "4000", "--seed", "3").out
    )  # seeded: repeatable
    assert "observed" in plain.splitlines()[1] and "3/100" in plain
    assert "--rolls: out of range" in clean_error(
        d100("simulate", "-s", "brp", "--skill", "65", "-n", "0")
    )


def test_odds_of_a_contest_from_flags_match_the_library() -> None:  # rule: OQ7, BRP6
    import d100 as library

    run = d100("odds", "-s", "openquest", "--skill", "60", "--json", "--vs", "--skill", "45")
    expected = library.odds(
        {"system": "openquest", "actor": {"skill": 60}, "opponent": {"skill": 45}}
    ).to_dict()
    assert run.status == 0 and json.loads(run.out) == expected
    shown = d100("odds", "-s", "brp", "--skill", "60", "--vs", "--skill", "50").out
    assert "actor wins" in shown and "tie" in shown
    refused = d100("odds", "-s", "brp", "--skill", "60", "--vs", "--skill", "50", "--dice", "4")
    assert refused.status == 2 and "--dice" in refused.err and "every roll" in refused.err
    assert "Traceback" not in refused.err


def test_advise_helpers_from_the_sheet(party: Path) -> None:  # rule: OQ11
    assert "erin cannot assist herself" in clean_error(
        d100("advise", "--sheet", str(party), "erin", "perception", "--helper", "erin")
    )
    assert "advice weighs every roll: no dice" in clean_error(
        d100("advise", "--sheet", str(party), "erin", "perception", "--helper", "finn@20")
    )
    run = d100("advise", "--sheet", str(party), "erin", "perception", "--helper", "finn")
    assert run.status == 0 and "assisted by finn" in run.out
