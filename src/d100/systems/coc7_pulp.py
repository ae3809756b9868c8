"""Pulp Cthulhu's Luck spends outside a check and its wounds, as SESSION.md states them
(P-3..P-7, P-9), declared for the sheet option ``pulp`` of ``coc7`` (``coc7_investigator``);
CoC7's own major wound beside P-9. Data and small rules: ``spending`` plays the spends and
``spending.wound`` the wounds, reading them from the declaration."""

from __future__ import annotations

from fractions import Fraction

from ..investigators import Spend, Wound

SCRATCH = 20  # P-4
DEATH_LEAST = 30  # P-5
FUMBLE = 10  # P-6
SECOND_ATTACK = 10  # P-7


def _doubling(used: int) -> int:
    """P-3: 1, 2, 4, 8, ... by the uses since the Keeper last reset it."""
    return 1 << min(used, 64)


SPENDS = (
    Spend(
        "stay-conscious",
        "avoid unconsciousness: one more round awake, the cost doubling each use until reset",
        "P-3",
        _doubling,
        lambda luck, used: _doubling(used),
        counted=True,
    ),
    Spend(
        "scratch",
        '"It\'s only a scratch!": 20 Luck heals 1D6 HP, at most to HP max',
        "P-4",
        lambda used: SCRATCH,
        lambda luck, used: SCRATCH,
        heal="1d6",
    ),
    Spend(
        "avoid-death",
        "avoid certain death: with 30 Luck or more, spend all of it and heal 1D6+1 HP",
        "P-5",
        lambda used: DEATH_LEAST,
        lambda luck, used: luck,
        heal="1d6+1",
    ),
    Spend(
        "fumble",
        "Luck away a weapon fumble or malfunction: 10 Luck; the roll still fails",
        "P-6",
        lambda used: FUMBLE,
        lambda luck, used: FUMBLE,
        cancels="the fumble's or malfunction's consequence (the roll still fails)",
    ),
    Spend(
        "second-attack",
        "a villain's Second Attack: 10 Luck, Luck never below 0",
        "P-7",
        lambda used: 0,
        lambda luck, used: min(luck, SECOND_ATTACK),
    ),
    Spend(
        "look-out-master",
        'a villain\'s "Look Out, Master!": Luck to 0',
        "P-7",
        lambda used: 0,
        lambda luck, used: luck,
    ),
)


def lucked_away(malfunction: bool, luck: int | None) -> int:
    """P-6: the Luck a Pulp hero holding ``luck`` (None: no Pulp hero) spends cancelling a
    malfunction's consequence, the weapon not jammed; the shot still fails. 0: none spent."""
    return FUMBLE if malfunction and luck is not None and luck >= FUMBLE else 0


def malfunction_luck(malfunction: Fraction, luck: int | None) -> Fraction:
    """P-6 in a firing's odds: the chance a Pulp hero holding ``luck`` spends Luck cancelling
    a malfunction, a malfunction's chance ``malfunction`` where the hero holds enough."""
    return malfunction if lucked_away(True, luck) else Fraction(0)


def luck_odds(malfunction: Fraction, luck: int | None) -> dict[str, str]:
    """``malfunction_luck`` as a firing's odds report it; nothing for no Pulp hero."""
    if luck is None:
        return {}
    spent = malfunction_luck(malfunction, luck)
    return {"luck_spent": f"{spent.numerator}/{spent.denominator}"}


def half(most: int) -> int:
    """Half the most hit points, rounded up: a hit of this or more is a major one."""
    return -(-most // 2)


def take(damage: int, hp: int, most: int, pulp: bool) -> Wound:
    """One hit. Damage of HP max or more kills; HP 0 is dying after a major hit (half HP max
    or more, rounded up) and unconscious otherwise; a major hit that leaves HP calls for a CON
    roll. CoC7 marks that hit a major wound; Pulp ignores major wounds (P-9). A major wound
    taken before is not tracked."""
    rule = "P-9" if pulp else "C7 wounds"
    after = max(0, hp - damage)
    major = damage >= half(most)
    marks = ("major wound",) if major and not pulp else ()
    if damage >= most:
        return Wound(0, "dead", None, marks, rule)
    if after == 0:
        return Wound(0, "dying" if major else "unconscious", None, marks, rule)
    if major:
        return Wound(after, "conscious", "a CON roll, or fall unconscious", marks, rule)
    return Wound(after, "conscious", None, marks, rule)


def heals(pulp: bool) -> int:
    """Natural healing a day: 1 HP; 2 under Pulp's faster recovery (P-9)."""
    return 2 if pulp else 1
