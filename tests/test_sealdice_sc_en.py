"""SealDice's ``.sc`` (SD-W6) and ``.en`` (SD-W7) against an independent transcription of
SESSION.md's pseudo-code, written out here: SD-core with every rule's table (SD-0..SD-dg) at
``difficultyRequired`` 0, the loss picked by the rank, at its maximum on a fumble, halved then
capped, SAN' and its notices; and ``.en``'s closed form against brute force, per rule."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from d100 import quick
from d100.errors import D100Error
from d100.systems.coc7_sealdice_rolls import (
    EnSkill,
    ScRequest,
    improves,
    resolve,
    sc_odds,
    sc_roll,
)
from d100.systems.coc7_sealdice_words import EnRoll, ScRoll

RULES = ("0", "1", "2", "3", "4", "5", "dg")
SANS = (0, 1, 4, 9, 30, 49, 50, 60, 99, 100)


def go_div(a: int, b: int) -> int:
    q = abs(a) // b
    return -q if a < 0 else q


def dbl(r: int) -> bool:
    return r % 10 == (r % 100) // 10


def seal_rank(rule: str, s: int, r: int) -> int:
    """SESSION SD-core at D = 0 (need = S), with the rule's table and overrides."""
    need = s
    crit, fum = {
        "0": (1, 96 if need < 50 else 100),
        "1": (5 if s >= 50 else 1, 96 if s < 50 else 100),
        "2": (min(5, s), 96 if s < 96 else min(s + 1, 100)),
        "3": (5, 96),
        "4": (min(5, go_div(s, 10)), min(100, 96 + go_div(s, 10))),
        "5": (min(2, go_div(s, 5)), 96 if s < 50 else 99),
        "dg": (1, 100),
    }[rule]
    if r <= need or r <= crit:
        rank = 1
        if r <= go_div(s, 2):
            rank = 2
        if r <= go_div(s, 5):
            rank = 3
        if r <= crit:
            rank = 4
    elif r >= fum:
        rank = -2
    else:
        rank = -1
    if rule == "0":
        rank = 4 if r == 1 else -2 if r == 100 else rank
    elif rule in ("1", "2"):
        rank = 4 if r == 1 else rank
    elif rule == "3":
        rank = 4 if r <= 5 else -2 if r >= 96 else rank
    elif rule == "dg":
        rank = (4 if dbl(r) else 1) if rank > 0 else (-2 if dbl(r) else -1)
        if r == 1:
            rank = 4
    return rank


# the loss "1d3/1d4+1": a success's faces, a failure's faces plus 1, the failure's maximum 5
SUCC_FACES, FAIL_FACES, FAIL_PLUS = 3, 4, 1


def seal_loss(
    rule: str, san: int, r: int, die: int, half: bool, cap: int | None
) -> tuple[int, int, bool, bool]:
    """SESSION SD-W6: the loss, SAN', the permanent and temporary notices."""
    rank = seal_rank(rule, san, r)
    if rank == -2:
        loss = FAIL_FACES + FAIL_PLUS
    elif rank > 0:
        loss = die
    else:
        loss = die + FAIL_PLUS
    if half:
        loss = go_div(loss, 2)
    if cap is not None and cap > 0:
        loss = min(loss, cap)
    after = max(0, san - loss)
    return loss, after, after == 0, after != 0 and loss >= 5


def faces(rule: str, san: int, r: int) -> range:
    rank = seal_rank(rule, san, r)
    return range(1, 2) if rank == -2 else range(1, (SUCC_FACES if rank > 0 else FAIL_FACES) + 1)


# rule: SD-W6
@pytest.mark.slow
@pytest.mark.parametrize("rule", RULES)
def test_sd_w6_every_d100_and_loss_die_loses_as_sealdice_under_every_rule(rule: str) -> None:
    for san in SANS:
        for r in range(1, 101):
            for die in faces(rule, san, r):
                maximised = seal_rank(rule, san, r) == -2
                dice = (r,) if maximised else (r, die)
                got = sc_roll(ScRequest("1d3/1d4+1", san, dice=dice), rule)
                want = seal_loss(rule, san, r, die, False, None)
                assert (got.loss, got.sanity_after, got.permanent, got.temporary) == want, (
                    rule,
                    san,
                    r,
                    die,
                )
                assert got.maximised == maximised and got.rank == seal_rank(rule, san, r)


# rule: SD-W6
@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("options", [(False, None), (True, None), (False, 3), (True, 2), (True, 0)])
def test_sd_w6_exact_odds_of_the_loss_by_brute_force(
    rule: str, options: tuple[bool, int | None]
) -> None:
    half, cap = options
    for san in (0, 4, 45, 50, 60, 100):
        losses: dict[int, Fraction] = {}
        temporary = permanent = success = Fraction(0)
        for r in range(1, 101):
            rank = seal_rank(rule, san, r)
            success += Fraction(1, 100) if rank > 0 else 0
            dies = faces(rule, san, r)
            for die in dies:
                p = Fraction(1, 100 * len(dies))
                loss, _, perm, temp = seal_loss(rule, san, r, die, half, cap)
                losses[loss] = losses.get(loss, Fraction(0)) + p
                temporary += p if temp else 0
                permanent += p if perm else 0
        got = sc_odds(ScRequest("1d3/1d4+1", san, half=half, cap=cap), rule)
        assert dict(got.losses) == dict(sorted(losses.items())), (rule, san)
        assert (got.success, got.temporary, got.permanent) == (success, temporary, permanent)
        assert got.mean == sum((x * p for x, p in losses.items()), Fraction(0))


# rule: SD-W6
def test_sd_w6_half_then_cap_in_sealdices_order() -> None:
    # 9 halved is 4, capped at 3: 3 (capping first, then halving, would lose 1)
    assert resolve(60, 9, True, 3).loss == 3
    got = sc_roll(ScRequest("0/1d10", 60, half=True, cap=3, dice=(80, 9)))
    assert (got.loss_rolled, got.loss, got.sanity_after) == (9, 3, 57)
    assert resolve(60, 9, False, 0).loss == 9  # --cap=0 is no cap
    assert resolve(60, 9, False, -2).loss == 9


# rule: SD-W6
def test_sd_w6_the_san_roll_takes_the_tables_rule_not_rule_0() -> None:
    # 97 against SAN 60: a failure under rule 0 (fumbles on 00 only), a fumble under rule 3
    assert sc_roll(ScRequest("1/1d6", 60, dice=(97, 2)), 0).loss == 2
    three = sc_roll(ScRequest("1/1d6", 60, dice=(97,)), 3)
    assert (three.level, three.maximised, three.loss) == ("fumble", True, 6)
    # rule 3: 01-05 take the success loss, even with SAN 0 or 1
    assert sc_roll(ScRequest("1/1d6", 1, dice=(4,)), 3).loss == 1
    # dg: a failed double rolls the failure loss at its maximum; 00 with SAN 100 succeeds
    assert sc_roll(ScRequest("1/1d6", 30, dice=(44,)), "dg").loss == 6
    assert sc_roll(ScRequest("1/1d6", 30, dice=(45, 2)), "dg").loss == 2
    assert sc_roll(ScRequest("1/1d6", 100, dice=(100,)), "dg").success


# rule: SD-W6
def test_sd_w6_notices_and_no_int_roll() -> None:
    got = sc_roll(ScRequest("1/1d6", 4, dice=(90, 5)))
    assert (got.sanity_after, got.permanent, got.temporary) == (0, True, False)
    got = sc_roll(ScRequest("1/1d10", 60, dice=(90, 5)))
    assert (got.sanity_after, got.permanent, got.temporary) == (55, False, True)
    assert "int_roll" not in got.to_dict()


# rule: SD-W6, SD-W4
def test_sd_w6_words_lone_loss_pool_trailing_san_and_flags() -> None:
    def sc(line: str) -> ScRequest:
        found = quick.read_command(line)
        assert found is not None and isinstance(found.roll, ScRoll), line
        return found.roll.request

    assert sc(".sc 1/1d6 60") == ScRequest("1/1d6", 60)
    assert sc(".sc 1d6 60") == ScRequest("0/1d6", 60)  # lone: the success loses "0"
    assert sc(".sc 1d6") == ScRequest("0/1d6")
    assert sc(".sc b 1/1d6 60").pool == 1
    assert sc(".sc p2 1d6").pool == -2
    assert sc(".sc 1/1d6 60 --half --cap=3") == ScRequest("1/1d6", 60, half=True, cap=3)
    assert sc(".sc 1/1d6 60 @42,3").dice == (42, 3)
    for bad in (".sc 1/1d6 60 70", ".sc 1/1d6 sixty", ".sc 1/1d6 --cap", ".sc x/1d6 50"):
        with pytest.raises(D100Error):
            sc(bad)


# rule: SD-W6
def test_sd_w6_a_seed_repeats_a_roll_and_the_pool_takes_the_kept_die() -> None:
    a = sc_roll(ScRequest("1/1d6", 60), 2, random.Random(5))
    b = sc_roll(ScRequest("1/1d6", 60), 2, random.Random(5))
    assert a == b
    pooled = sc_roll(ScRequest("1/1d6", 60, pool=1, dice=(75, 15)), 0)
    assert pooled.roll == 15 and len(pooled.dice) == 2 and pooled.success
    assert sc_odds(ScRequest("1/1d6", 60, pool=1)).success > Fraction(60, 100)


# -- .en -----------------------------------------------------------------------------------------

CLOSED = {"0": 1, "1": 1, "2": 1, "dg": 1, "3": 5, "4": 0, "5": 0}


# rule: SD-W7
@pytest.mark.parametrize("rule", RULES)
def test_sd_w7_improves_in_closed_form_by_brute_force(rule: str) -> None:
    for s in range(0, 121):
        for r in range(1, 101):
            brute = r > 95 or seal_rank(rule, s, r) <= 0  # SESSION's pseudo-code
            closed = r > 95 or r > max(s, CLOSED[rule])
            assert brute == closed == improves(rule, s, r), (rule, s, r)


# rule: SD-W7
@pytest.mark.parametrize("rule", RULES)
def test_sd_w7_exact_chance_and_mean_gain(rule: str) -> None:
    from d100.development import roll_odds

    for s in (0, 3, 40, 90, 99):
        up = sum(1 for r in range(1, 101) if r > 95 or r > max(s, CLOSED[rule]))
        p = Fraction(up, 100)
        plain = roll_odds("x", EnSkill("x", s).machine(rule))
        assert plain.improves == p and plain.gain == p * Fraction(11, 2)
        both = roll_odds("x", EnSkill("x", s, "1d5", "1").machine(rule))
        assert both.gain == p * 3 + (1 - p) * 1


# rule: SD-W7
def test_sd_w7_words_and_rolls() -> None:
    def en(line: str) -> EnRoll:
        found = quick.read_command(line)
        assert found is not None and isinstance(found.roll, EnRoll), line
        return found.roll

    assert en(".en 侦查").skills == (EnSkill("侦查"),)
    assert en(".en 侦查60 +1d5").skills == (EnSkill("侦查", 60, "1d5"),)
    assert en(".en 侦查 +1/1d10").skills == (EnSkill("侦查", None, "1d10", "1"),)
    assert len(en(".en 侦查60 图书馆70|聆听50").skills) == 3
    with pytest.raises(D100Error):
        en(".en " + " ".join(f"a{n}" for n in range(1, 12)))  # eleven skills
    done = en(".en 侦查60 +1/1d5 图书馆70 @97,4,20").play({"setcoc": 0}, None)
    rolls = done.data["skills"]
    assert [(r["improved"], r["gain"], r["after"]) for r in rolls] == [
        (True, 4, 64),
        (False, 0, 70),
    ]
    with pytest.raises(D100Error) as err:
        en(".en 侦查").play({}, None)
    assert err.value.field == "侦查"


# rule: SD-W6
def test_sd_w6_a_loss_too_dear_to_count_is_still_rolled(monkeypatch: pytest.MonkeyPatch) -> None:
    from d100 import tallies
    from d100.errors import TooMuchWork

    monkeypatch.setattr(tallies, "BUDGET", 1)
    with pytest.raises(TooMuchWork):
        sc_odds(ScRequest("1/1d6", 60))
    done = ScRoll(ScRequest("1/1d6", 60, dice=(30,))).play({}, None)
    assert done.data["odds"] is None and done.data["loss"] == 1


def test_sd_w6_a_loss_is_weighed_once_a_level_not_once_a_face(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The odds weigh each total of the loss once for each rank the d100 comes to, not for
    each of its 100 faces: `.sc 10d1000/10d1000` on Discord took 16 s, past the worker's
    deadline, for odds worked out a face at a time."""
    from d100.systems import coc7_sealdice_rolls

    calls = 0

    def counted(*args: object) -> object:
        nonlocal calls
        calls += 1
        return resolve(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(coc7_sealdice_rolls, "resolve", counted)
    odds = sc_odds(ScRequest("1d100/2d100", 60))
    assert calls <= 6 * (100 + 199)  # a few ranks, each loss's totals once
    assert sum(odds.losses.values()) == 1
