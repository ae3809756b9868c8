"""Sanity rolls in Discord's quick commands (S7-1..S7-5): ``/roll words: coc7 sc 1/1d6 60`` on
the interaction's provable dice, ``/odds`` of one, refusals privately; every message within
Discord's limits."""

from __future__ import annotations

from d100 import provable, sanity
from d100.discord.answers import dice_for, quick_answer
from d100.discord.limits import problems

SECRET = b"k" * 32


def fields_of(body: dict[str, object]) -> dict[str, str]:
    embeds = body["embeds"]
    assert isinstance(embeds, list)
    return {f["name"]: f["value"] for f in embeds[0]["fields"]}


# rule: S7-1, S7-2, S7-3
def test_a_sanity_roll_is_the_interactions_provable_roll() -> None:
    body = quick_answer("roll", "coc7 sc 1d4/1d10 45 int=70", None, False, "Vera", SECRET, "77")
    assert not problems(body)
    found = fields_of(body)
    asked = {"system": "coc7", "sanity": 45, "loss": "1d4/1d10", "intelligence": 70}
    rolled = sanity.roll(asked, dice_for(SECRET, "77"))
    assert found["Dice"] == f"{rolled.roll:02d}"
    assert found["SAN"] == f"45 → {rolled.sanity_after}"
    assert found["Success"] == "45.00% (9/20)"
    assert found["Temporary insanity"] == "14.00% (7/50)"
    again = sanity.roll(asked, provable.ProvableSource(SECRET, "discord:77", 0))
    assert again == rolled  # the same interaction, the same dice


def test_odds_of_a_sanity_roll_and_refusals() -> None:
    body = quick_answer("odds", "sc 1/1d6 60", None, True, "Vera", SECRET, "1")
    assert not problems(body)
    found = fields_of(body)
    assert found["Loss 6"] == "7.50% (3/40)"  # 39 failures of 1d6 over 6, and 1 fumble
    assert found["Temporary insanity"] == "give INT for its odds"
    refused = quick_answer("roll", "coc7 sc 1d6 60", None, False, "Vera", SECRET, "2")
    assert "not A/B" in str(refused["content"]) and not problems(refused)
    advice = quick_answer("advise", "coc7 sc 1/1d6 60", None, False, "Vera", SECRET, "3")
    assert "pulp with luck=N" in str(advice)  # advice weighs Pulp's Luck halving it (P-2)
