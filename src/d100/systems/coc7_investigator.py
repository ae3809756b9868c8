"""Call of Cthulhu 7th edition's investigator, as SESSION.md states it: characteristics with
half and fifth (S7-10), derived values (S7-11), the 1920s base skills (S7-12), and the
development phase (S7-7, S7-8, S7-9), with Pulp Cthulhu's hero hit points, ageless movement
and Luck recovery as the sheet option ``pulp`` (P-8, P-10, P-1)."""

from __future__ import annotations

from collections.abc import Mapping

from ..investigators import DerivedValue, Development, Investigator, Profile, Recovery, Wounds
from . import coc7_pulp

CHARACTERISTICS = ("STR", "CON", "SIZ", "DEX", "APP", "INT", "POW", "EDU")
PULP = "pulp"
MYTHOS = "Cthulhu Mythos"
# skills that never earn an improvement mark (S7-7: Foundry's noxpgain)
NO_MARKS = ("credit rating", "cthulhu mythos")


def parts(value: int) -> tuple[tuple[str, int], ...]:
    """S7-10: half and fifth, rounded down, the hard and extreme thresholds of C7-1."""
    return (("half", value // 2), ("fifth", value // 5))


# S7-12: the 1920s standard list (``en-skills.yaml``); a family "(any)" by its family's name.
BASE_SKILLS: Mapping[str, int] = {
    "Accounting": 5,
    "Animal Handling": 5,
    "Anthropology": 1,
    "Appraise": 5,
    "Archaeology": 1,
    "Art/Craft": 5,
    "Artillery": 1,
    "Charm": 15,
    "Climb": 20,
    "Computer Use": 5,
    "Credit Rating": 0,
    MYTHOS: 0,
    "Demolitions": 1,
    "Disguise": 5,
    "Diving": 1,
    "Drive Auto": 20,
    "Electrical Repair": 10,
    "Electronics": 1,
    "Fast Talk": 5,
    "Fighting (Brawl)": 25,
    "Fighting (Axe)": 15,
    "Fighting (Chainsaw)": 10,
    "Fighting (Flail)": 10,
    "Fighting (Garrote)": 15,
    "Fighting (Spear)": 20,
    "Fighting (Sword)": 20,
    "Fighting (Whip)": 5,
    "Firearms (Bow)": 15,
    "Firearms (Flamethrower)": 10,
    "Firearms (Handgun)": 20,
    "Firearms (Heavy Weapons)": 10,
    "Firearms (Machine Gun)": 10,
    "Firearms (Rifle/Shotgun)": 25,
    "Firearms (Submachine Gun)": 15,
    "First Aid": 30,
    "History": 5,
    "Hypnosis": 1,
    "Intimidate": 15,
    "Jump": 20,
    "Language (Other)": 1,
    "Law": 5,
    "Library Use": 20,
    "Listen": 20,
    "Locksmith": 1,
    "Lore": 1,
    "Mechanical Repair": 10,
    "Medicine": 1,
    "Natural World": 10,
    "Navigate": 10,
    "Occult": 5,
    "Operate Heavy Machinery": 1,
    "Persuade": 10,
    "Pilot": 1,
    "Psychoanalysis": 1,
    "Psychology": 10,
    "Read Lips": 1,
    "Ride": 5,
    "Science": 1,
    "Science (Mathematics)": 10,
    "Sleight of Hand": 10,
    "Spot Hidden": 25,
    "Stealth": 20,
    "Survival": 10,
    "Swim": 20,
    "Throw": 20,
    "Track": 10,
}
# S7-12: the bases computed from a characteristic, rounded down
CHARACTERISTIC_BASES = (("Dodge", "DEX", 2), ("Language (Own)", "EDU", 1))


def base_skills(characteristics: Mapping[str, int]) -> dict[str, int]:
    """Every base skill; Dodge and Language (Own) where their characteristic is given."""
    out = dict(BASE_SKILLS)
    for skill, of, divisor in CHARACTERISTIC_BASES:
        if of in characteristics:
            out[skill] = characteristics[of] // divisor
    return out


DERIVED = (
    DerivedValue("HP", "hit points", "(CON + SIZ) / 10, rounded down; Pulp heroes / 5"),
    DerivedValue("MP", "magic points", "POW / 5, rounded down"),
    DerivedValue("SAN", "Sanity", "POW at creation"),
    DerivedValue("SAN max", "the most SAN", "99 - Cthulhu Mythos"),
    DerivedValue("SAN a day", "the SAN lost in a day that is indefinite insanity", "SAN / 5"),
    DerivedValue("MOV", "movement rate", "9, 8 or 7 by DEX and STR against SIZ; less from 40"),
    DerivedValue("Build", "build", "by STR + SIZ"),
    DerivedValue("DB", "damage bonus", "by STR + SIZ", dice=True),
)


def build_and_bonus(total: int) -> tuple[int, str]:
    """S7-11's table: Build and the damage bonus for STR + SIZ; from 165, one more Build and
    one more 1D6 each further 80."""
    for most, build, bonus in ((64, -2, "-2"), (84, -1, "-1"), (124, 0, "0"), (164, 1, "+1d4")):
        if total <= most:
            return build, bonus
    dice = (total - 45) // 80
    return dice + 1, f"+{dice}d6"


def movement(c: Mapping[str, int], age: int | None, ageless: bool) -> int:
    """S7-11: 9 if DEX and STR both exceed SIZ, 7 if both are below it, else 8; from 40 one
    less a decade (S4: only where the sheet gives an age; none under P-10)."""
    dex, strength, size = c["DEX"], c["STR"], c["SIZ"]
    mov = 9 if dex > size and strength > size else 7 if dex < size and strength < size else 8
    if age is not None and age >= 40 and not ageless:
        mov -= age // 10 - 3
    return max(0, mov)


def derive(p: Profile) -> dict[str, int | str]:
    """The derived values the given characteristics allow (S7-11; P-8 and P-10 under pulp)."""
    c, pulp = p.characteristics, PULP in p.options
    out: dict[str, int | str] = {}
    if {"CON", "SIZ"} <= c.keys():
        out["HP"] = (c["CON"] + c["SIZ"]) // (5 if pulp else 10)
    if "POW" in c:
        out["MP"] = c["POW"] // 5
        out["SAN"] = c["POW"]
    san = p.derived.get("SAN", out.get("SAN"))
    if isinstance(san, int):
        out["SAN a day"] = san // 5  # S7-4's daily limit, from the SAN now
    mythos = next((v for k, v in p.skills.items() if k.casefold() == MYTHOS.casefold()), 0)
    out["SAN max"] = max(0, 99 - mythos)
    if {"DEX", "STR", "SIZ"} <= c.keys():
        out["MOV"] = movement(c, p.age, pulp)
    if {"STR", "SIZ"} <= c.keys():
        out["Build"], out["DB"] = build_and_bonus(c["STR"] + c["SIZ"])
    return out


INVESTIGATOR = Investigator(
    characteristics=CHARACTERISTICS,
    range=(0, 999),
    parts=parts,
    luck="Luck",
    derived=DERIVED,
    derive=derive,
    base=base_skills,
    options={
        PULP: "Pulp Cthulhu: hero HP (CON + SIZ) / 5, no age on MOV, Luck recovers more, "
        "Luck spends (d100 luck), no major wounds and 2 HP a day"
    },
    hp="HP",
    group_luck="a group's Luck roll is made by the investigator present with the lowest Luck",
    damage_bonus="DB",
    spends={PULP: coc7_pulp.SPENDS},
    wounds=Wounds(
        lambda damage, hp, most, options: coc7_pulp.take(damage, hp, most, PULP in options),
        lambda options: coc7_pulp.heals(PULP in options),
        "a hit of HP max or more kills; of half HP max or more (rounded up) it is major: "
        "HP 0 dying, else a CON roll (CoC7 marks a major wound; Pulp, P-9, does not)",
    ),
)

INCLUSIVE_95 = "development_95_inclusive"
ALWAYS_ABOVE = 95  # S7-7 (decision S3): a roll over 95 improves any skill


def improves(roll: int, value: int, house_rules: frozenset[str]) -> bool:
    """S7-7, decision S3: over the skill or over 95; Foundry's 95 itself as a house rule."""
    above = ALWAYS_ABOVE - 1 if INCLUSIVE_95 in house_rules else ALWAYS_ABOVE
    return roll > value or roll > above


def _luck_recovers(roll: int, luck: int) -> bool:
    """S7-9: over the current Luck; no "over 95" clause."""
    return roll > luck


DEVELOPMENT = Development(
    improves=improves,
    gain="1d10",
    rule="d100 over the skill or over 95: +1D10; reaching 90 gains 2D6 SAN",
    mastery=90,
    reward="2d6",
    reward_to="SAN",
    reward_cap="SAN max",
    never=NO_MARKS,
    luck=Recovery(_luck_recovers, "1d10", None, 99, "d100 over Luck: +1D10, at most 99"),
    luck_options={
        PULP: Recovery(
            _luck_recovers, "2d10+10", "1d10+5", 99, "d100 over Luck: +2D10+10, else +1D10+5"
        )
    },
    house_rules={INCLUSIVE_95: "a roll of 95 improves too (Foundry)"},
)
