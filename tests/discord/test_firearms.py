"""``/roll`` of CoC7's firearms on Discord (S7-13, S7-14): BCDice's FAR and several shots
answered as a card of volleys or shots with the exact chances, the dice drawn from the
interaction as every quick roll's are."""

from __future__ import annotations

from typing import Any

from d100.discord.answers import ROLL, dice_for, quick_answer
from d100.systems import coc7_far as fa

SECRET = b"s" * 32


def fields(answer: dict[str, Any]) -> dict[str, str]:
    (card,) = answer["embeds"]
    return {f["name"]: f["value"] for f in card["fields"]}


def test_s7_14_far_on_discord_is_the_library_s_roll_of_the_interaction() -> None:
    answer = quick_answer(ROLL, "coc7 FAR(30,62,98) MP5", None, False, "Vera", SECRET, "42")
    shown = fields(answer)
    rolled = fa.roll(fa.Far(30, 62, 98), dice_for(SECRET, "42"))
    assert len([k for k in shown if k.startswith("volley")]) == len(rolled.volleys)
    assert shown["hits"].startswith(f"{rolled.normal} normal, {rolled.impaling} impaling")
    assert shown["A jam"].startswith("29.07%")
    assert answer["embeds"][0]["title"].startswith("MP5 · ")
    again = quick_answer(ROLL, "coc7 FAR(30,62,98) MP5", None, False, "Vera", SECRET, "42")
    assert again == answer


def test_s7_13_several_shots_on_discord_take_the_table_s_system() -> None:
    answer = quick_answer(ROLL, "55 shots2 long", "coc7", True, "Vera", SECRET, "7")
    shown = fields(answer)
    assert shown["shot 1"].startswith("long range, hard, 1 penalty die")
    assert "Any hit" in shown
    refused = quick_answer(ROLL, "55 shots11", "coc7", True, "Vera", SECRET, "8")
    assert refused["content"].endswith("shots: got 11; allowed: an integer 1..10")


# rule: SD-W6
def test_sd_w6_sc_on_discord_is_rolled_from_the_interaction() -> None:
    answer = quick_answer(ROLL, ".sc 1/1d6 60", None, False, "Vera", SECRET, "42")
    shown = fields(answer)
    assert shown["roll"].startswith("rolled ") and "vs SAN 60" in shown["roll"]
    assert answer["embeds"][0]["title"] == "SealDice .sc (setcoc 0)"
    assert quick_answer(ROLL, ".sc 1/1d6 60", None, False, "Vera", SECRET, "42") == answer
