"""The experience rolls of the Chaosium family (XP-1..XP-3): what a checked skill makes of
its check between adventures, as each edition declares it (``investigators.Development``).
A plain d100 is rolled for each checked skill, the sheet's experience bonus added where the
edition has one; on a success the skill gains 1D6 and has no cap.

* XP-1, BRP (the seed's ``brp``, which is silent on it, and ``brp-uge``): BRP UGE, "Making an
  Experience Roll" and "Exceeding 100% in a Skill" (raleel/brpugesrd ``rules/en/0500_System.md``
  532-546): the d100 plus the experience bonus (half INT, rounded up, ``0200_Characters.md``
  143) over the skill succeeds; at 100% or more, a total of 100 or over does.
* XP-2, ``brp-foundry``: Chaosium's Foundry system (Genii-Locorum/brp @21490c6f
  ``module/apps/charDev.mjs`` ``xpRoll``): the d100 plus ``xpBonus`` (``ceil(INT/2)``,
  ``actor.mjs`` 447) over ``min(skill, 100)``; so a skill at 100% or more needs a total over
  100, where XP-1 takes 100 itself. The gain is the setting ``xpFormula``, default 1D6.
* XP-3, ``rqg``: RQG Foundry (sun-dragon-cult/fvtt-system-rqg @3e6f5e02
  ``src/rolls/improvement-roll/ability-improvement-adapter.ts``, ``evaluate-improvement-gate
  .ts``; Core p. 415-417): the d100 over the skill, the skill read as at most 99, so a natural
  100 always succeeds; gain 1D6 (``experienceGainRandom``). RQG adds the skill category's
  modifier to the roll; d100's RQG sheets keep no categories, so none is added."""

from __future__ import annotations

from ..investigators import Development

GAIN = "1d6"
MASTERED = 100  # XP-1: at 100% or more, a total of 100 or over improves
FOUNDRY_TOP = 100  # XP-2: the skill read as at most 100
RQG_TOP = 99  # XP-3: the skill read as at most 99 (a natural 100 always improves)
BONUS = "experience bonus (half INT, rounded up)"


def improves(total: int, value: int, house_rules: frozenset[str]) -> bool:
    """XP-1: the d100 plus the experience bonus over the skill, or 100 and over."""
    return total > value or total >= MASTERED


def foundry_improves(total: int, value: int, house_rules: frozenset[str]) -> bool:
    """XP-2: the d100 plus ``xpBonus`` over the skill read as at most 100."""
    return total > min(value, FOUNDRY_TOP)


def rqg_improves(roll: int, value: int, house_rules: frozenset[str]) -> bool:
    """XP-3: the d100 over the skill read as at most 99."""
    return roll > min(value, RQG_TOP)


BRP = Development(
    improves=improves,
    gain=GAIN,
    rule="experience roll: d100 + experience bonus over the skill (100+ at 100% or more): +1D6",
    bonus=BONUS,
)
BRP_FOUNDRY = Development(
    improves=foundry_improves,
    gain=GAIN,
    rule="experience roll: d100 + experience bonus over the skill (at most 100): +1D6",
    bonus=BONUS,
)
RQG = Development(
    improves=rqg_improves,
    gain=GAIN,
    rule="experience roll: d100 over the skill; a 100 always improves: +1D6",
)
