"""Sanity rolls (S7-1..S7-5): levels against the current SAN, the loss A/B with a fumble's
maximum, temporary insanity through the INT roll, the day's limit, the highest SAN. Exact odds
are held to an oracle written here from SESSION.md with icepool for the losses, and to every
roll the public ``roll`` makes with the dice given by hand."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from typing import Any

import icepool
import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from d100 import provable, sanity, schema
from d100.errors import BadInput, DiceError, RuleRefusal, TooMuchWork
from d100.sanity import SanityRequest
from tests.conftest import depth

from . import coc7_oracle

SUCCESS = {"critical", "extreme", "hard", "regular"}


def _chances(die: icepool.Die[int] | int) -> dict[int, Fraction]:
    if isinstance(die, int):
        return {die: Fraction(1)}
    total = die.denominator()
    return {x: Fraction(die.quantity(x), total) for x in die.outcomes()}


def oracle(
    san: int,
    on_success: icepool.Die[int] | int,
    on_failure: icepool.Die[int] | int,
    intelligence: int | None = None,
    mythos: int = 0,
    lost_today: int = 0,
    day_start: int | None = None,
    insane: bool = False,
    source_lost: int | None = None,
    halve: bool = False,
    luck: int | None = None,
    foundry: bool = False,
    pool: int = 0,
) -> dict[str, Any]:
    """SESSION.md read afresh: P(loss = x) = P(success) P(A = x) + P(failure, no fumble) P(B = x)
    + P(fumble) [x = max(B)] (S7-2), the cap then the halving (decision S7); S7-3 with S2's INT
    roll; S7-4's limit of the day's first SAN / 5; S7-5's SAN within 0..99 - Mythos."""
    fail = _chances(on_failure)
    most_b = max(fail)
    kept = coc7_oracle.kept_rolls(pool)  # C7-3's pool under SealDice's house rule (S1)
    levels: Counter[str] = Counter()
    for r, n in kept.items():
        levels[coc7_oracle.level(r, san)] += n
    p = {lvl: Fraction(n, sum(kept.values())) for lvl, n in levels.items()}
    won = sum(p[lvl] for lvl in p if lvl in SUCCESS)
    losses: dict[int, Fraction] = {}
    luck_spent = Fraction(0)
    parts = [
        (won, _chances(on_success)),
        (p.get("failure", Fraction(0)), fail),
        (p.get("fumble", Fraction(0)), {most_b: Fraction(1)}),
    ]
    for weight, chances in parts:
        for x, q in chances.items() if weight else ():
            if source_lost is not None:
                x = min(x, max(0, most_b - source_lost))
            if halve:
                x //= 2
            # P-2 (decision S6): pay 2d Luck (Foundry: 2 floor(d/2)) to lose ceil(d/2), where
            # that is less and the Luck covers it
            cost = 2 * (x // 2) if foundry else 2 * x
            if luck is not None and -(-x // 2) < x and cost <= luck:
                x, spent = -(-x // 2), cost
            else:
                spent = 0
            losses[x] = losses.get(x, Fraction(0)) + weight * q
            luck_spent += weight * q * spent
    limit = (san + lost_today if day_start is None else day_start) // 5
    int_win = None
    if intelligence is not None:
        int_win = Fraction(
            sum(coc7_oracle.level(r, intelligence) in SUCCESS for r in range(1, 101)), 100
        )
    out = {
        "success": won,
        "losses": dict(sorted(losses.items())),
        "luck_spent": luck_spent,
        "int_roll": Fraction(0),
        "bout": Fraction(0),
        "indefinite": Fraction(0),
        "permanent": Fraction(0),
    }
    for x, q in losses.items():
        left = max(0, min(san - x, 99 - mythos))
        indefinite = x > 0 and lost_today + x >= limit
        out["indefinite"] += q * indefinite
        out["permanent"] += q * (left == 0)
        if x >= 5 and left > 0 and not indefinite:
            out["int_roll"] += q
        elif insane and 0 < x < 5 and left > 0:
            out["bout"] += q
    out["temporary"] = (
        None
        if int_win is None and out["int_roll"]
        else out["bout"] + out["int_roll"] * (int_win or 0)
    )
    return out


def request(**fields: Any) -> SanityRequest:
    return SanityRequest(**{"system": "coc7", **fields})


def check_against_oracle(asked: SanityRequest, expected: dict[str, Any]) -> None:
    found = sanity.odds(asked)
    assert found.success == expected["success"]
    assert sum(found.levels.values()) == 1
    assert dict(found.losses) == expected["losses"]
    assert found.mean == sum(x * p for x, p in expected["losses"].items())
    assert found.luck_spent == expected["luck_spent"]
    assert found.int_roll == expected["int_roll"]
    assert found.big_loss == sum(p for x, p in expected["losses"].items() if x >= 5)
    assert found.temporary == expected["temporary"]
    assert found.indefinite == expected["indefinite"]
    assert found.permanent == expected["permanent"]
    assert sum(found.losses.values()) == 1


# rule: S7-1, S7-2
@pytest.mark.parametrize("san", [0, 1, 5, 49, 50, 51, 60, 99])
def test_s7_2_every_loss_and_its_chance_as_the_oracle_counts_them(san: int) -> None:
    asked = request(sanity=san, loss="1/1d6")
    check_against_oracle(asked, oracle(san, 1, icepool.d6))


@pytest.mark.parametrize(
    ("loss", "a", "b"),
    [
        ("0/1d4", 0, icepool.d4),
        ("1d4/1d10", icepool.d4, icepool.d10),
        ("1d3/1d6+1", icepool.d3, icepool.d6 + 1),
        ("2/2d10+1", 2, 2 @ icepool.d10 + 1),
        ("1d6/1d20", icepool.d6, icepool.d20),
        ("0/4d6kh3", 0, icepool.d6.highest(4, 3)),
    ],
)
def test_s7_2_loss_expressions_with_the_fumble_at_the_maximum(loss: str, a: Any, b: Any) -> None:
    for san in (30, 70):
        check_against_oracle(request(sanity=san, loss=loss, intelligence=65), oracle(san, a, b, 65))


# rule: S7-3
@pytest.mark.parametrize("intelligence", [None, 0, 40, 50, 85, 120])
def test_s7_3_temporary_insanity_through_the_int_roll(intelligence: int | None) -> None:
    asked = request(sanity=45, loss="1d3/1d10", intelligence=intelligence)
    expected = oracle(45, icepool.d3, icepool.d10, intelligence)
    check_against_oracle(asked, expected)
    if intelligence is None:
        assert sanity.odds(asked).temporary is None  # the INT roll is the table's to make


def test_s7_3_already_insane_any_loss_brings_a_bout() -> None:
    asked = request(sanity=50, loss="1/1d8", intelligence=60, insane=True)
    check_against_oracle(asked, oracle(50, 1, icepool.d8, 60, insane=True))
    bout = sanity.roll(request(sanity=50, loss="1/1d8", insane=True, dice=[10]))
    assert (bout.loss, bout.temporary, bout.int_roll) == (1, True, None)


# rule: S7-4
@pytest.mark.parametrize(
    ("san", "lost_today", "day_start"),
    [(40, 0, None), (40, 5, None), (30, 0, 60), (4, 0, None), (12, 3, None)],
)
def test_s7_4_the_days_limit_brings_indefinite_insanity(
    san: int, lost_today: int, day_start: int | None
) -> None:
    asked = request(
        sanity=san, loss="1d4/1d10", intelligence=55, lost_today=lost_today, day_start=day_start
    )
    expected = oracle(san, icepool.d4, icepool.d10, 55, 0, lost_today, day_start)
    check_against_oracle(asked, expected)


def test_s7_4_a_loss_reaching_the_limit_makes_no_int_roll() -> None:
    # SAN 40: a limit of 8; a fumble loses 10, reaches it and calls for no INT roll (S2)
    found = sanity.roll(request(sanity=40, loss="1/1d10", intelligence=90, dice=[100]))
    assert (found.level, found.loss, found.sanity_after) == ("fumble", 10, 30)
    assert (found.indefinite, found.int_roll, found.temporary) == (True, None, False)


# rule: S7-5
def test_s7_5_san_stays_within_the_mythos_maximum_and_zero() -> None:
    check_against_oracle(
        request(sanity=6, loss="1d6/2d6", intelligence=50, mythos=20),
        oracle(6, icepool.d6, 2 @ icepool.d6, 50, mythos=20),
    )
    emptied = sanity.roll(request(sanity=3, loss="1/1d6", dice=[80], loss_dice=[5]))
    assert (emptied.sanity_after, emptied.permanent, emptied.temporary) == (0, True, False)
    with pytest.raises(BadInput) as err:
        request(sanity=90, loss="1/1d6", mythos=15)
    assert (err.value.field, err.value.value, err.value.allowed) == (
        "sanity",
        90,
        "an integer 0..84",
    )


@pytest.mark.parametrize(
    ("source_lost", "halve"), [(None, True), (0, False), (4, False), (3, True), (12, False)]
)
def test_s7_2_the_source_cap_then_the_halving(source_lost: int | None, halve: bool) -> None:
    asked = request(
        sanity=55, loss="1d4/1d8+2", intelligence=70, source_lost=source_lost, halve=halve
    )
    expected = oracle(55, icepool.d4, icepool.d8 + 2, 70, source_lost=source_lost, halve=halve)
    check_against_oracle(asked, expected)


@pytest.mark.parametrize("pool", [-2, -1, 1, 2])
def test_s7_1_bonus_and_penalty_dice_only_under_the_house_rule(pool: int) -> None:
    for san in (30, 60):
        asked = request(sanity=san, loss="1/1d8", intelligence=50, pool=pool, sanity_pool=True)
        check_against_oracle(asked, oracle(san, 1, icepool.d8, 50, pool=pool))
    with pytest.raises(RuleRefusal) as err:
        request(sanity=50, loss="1/1d6", pool=pool)
    assert (err.value.field, err.value.value) == ("pool", pool)


def test_s7_1_a_pool_by_hand_keeps_the_lower_or_the_higher_tens() -> None:
    bonus = sanity.roll(request(sanity=40, loss="1/1d6", pool=1, sanity_pool=True, dice=[42, 2]))
    assert (bonus.roll, bonus.dice, bonus.level) == (2, (42, 2), "extreme")
    fields = {"sanity": 40, "loss": "1/1d6", "pool": -1, "sanity_pool": True}
    penalty = sanity.roll(request(**fields, dice=[42, 2], loss_dice=[4]))
    assert (penalty.roll, penalty.level, penalty.loss) == (42, "failure", 4)
    with pytest.raises(DiceError):  # the values of one roll share their units digit
        sanity.roll(request(**fields, dice=[42, 3], loss_dice=[4]))
    with pytest.raises(BadInput) as err:
        request(sanity=40, loss="1/1d6", pool=3, sanity_pool=True)
    assert err.value.allowed == "an integer -2..2"


# rule: P-2
@pytest.mark.parametrize(
    ("luck", "foundry", "halve"),
    [(0, False, False), (7, False, False), (20, False, False), (9, True, False), (30, False, True)],
)
def test_p_2_pulp_luck_halves_a_loss_it_covers(luck: int, foundry: bool, halve: bool) -> None:
    asked = request(
        sanity=50,
        loss="1d4/1d10",
        intelligence=60,
        pulp=True,
        luck=luck,
        pulp_halve_san_cost_foundry=foundry,
        halve=halve,
    )
    expected = oracle(50, icepool.d4, icepool.d10, 60, luck=luck, foundry=foundry, halve=halve)
    check_against_oracle(asked, expected)


def test_p_2_a_roll_spends_luck_and_the_day_counts_the_loss_kept() -> None:
    fields = {"sanity": 40, "loss": "1/1d10", "intelligence": 60, "pulp": True, "dice": [70]}
    # 9 lost for 18 Luck is 5 kept: an INT roll, and the day's limit of 8 not reached
    kept = sanity.roll(request(**fields, luck=18, loss_dice=[9], int_dice=[10]))
    assert (kept.loss_rolled, kept.loss, kept.luck_spent) == (9, 5, 18)
    assert (kept.indefinite, kept.int_roll, kept.temporary) == (False, 10, True)
    short = sanity.roll(request(**fields, luck=17, loss_dice=[9]))
    assert (short.loss, short.luck_spent, short.indefinite) == (9, 0, True)
    foundry = sanity.roll(
        request(**fields, luck=8, pulp_halve_san_cost_foundry=True, loss_dice=[9], int_dice=[90])
    )
    assert (foundry.loss, foundry.luck_spent, foundry.temporary) == (5, 8, False)
    one = sanity.roll(request(**fields, luck=50, loss_dice=[1]))
    assert (one.loss, one.luck_spent) == (1, 0)  # halving 1 keeps 1: no Luck for nothing


def test_p_2_luck_only_with_pulp() -> None:
    with pytest.raises(RuleRefusal) as err:
        request(sanity=50, loss="1/1d6", luck=20)
    assert (err.value.field, err.value.value) == ("luck", 20)
    with pytest.raises(BadInput) as missing:
        request(sanity=50, loss="1/1d6", pulp=True)
    assert missing.value.field == "luck"
    with pytest.raises(BadInput) as lone:
        request(sanity=50, loss="1/1d6", pulp_halve_san_cost_foundry=True)
    assert lone.value.field == "pulp_halve_san_cost_foundry"


# -- every roll the public roll makes, by hand -------------------------------------------------


def test_s7_3_every_roll_by_hand_adds_up_to_the_odds() -> None:
    """Every d100, every face of the loss's dice and every INT roll given by hand, weighted by
    its chance: the rolls' levels, losses and insanity add up to the odds exactly."""
    base = {"system": "coc7", "sanity": 40, "loss": "1/1d8", "intelligence": 60}
    levels: Counter[str] = Counter()
    losses: dict[int, Fraction] = {}
    temporary = indefinite = Fraction(0)
    for die in range(1, 101):
        first = sanity.roll({**base, "dice": [die]}, random.Random(die))  # its level, its loss
        levels[first.level] += 1
        faces = [(f,) for f in range(1, 9)] if first.loss_dice else [()]
        for loss_dice in faces:
            weight = Fraction(1, 100 * len(faces))
            given = {**base, "dice": [die], **({"loss_dice": list(loss_dice)} if loss_dice else {})}
            shown = sanity.roll(given, random.Random(0))
            if shown.int_roll is not None:
                for int_die in range(1, 101):
                    again = sanity.roll({**given, "int_dice": [int_die]})
                    temporary += weight / 100 * bool(again.temporary)
            else:
                temporary += weight * bool(shown.temporary)
            losses[shown.loss] = losses.get(shown.loss, Fraction(0)) + weight
            indefinite += weight * shown.indefinite
    found = sanity.odds(base)
    assert {k: Fraction(n, 100) for k, n in levels.items()} == dict(found.levels)
    assert losses == dict(found.losses)
    assert (temporary, indefinite) == (found.temporary, found.indefinite)


def test_a_seeded_roll_repeats_and_a_provable_one_replays() -> None:
    asked = {"system": "coc7", "sanity": 35, "loss": "1d4/2d6", "intelligence": 60}
    first = sanity.roll(asked, random.Random(11))
    assert first == sanity.roll(asked, random.Random(11))
    seed = b"s" * 32
    for nonce in range(20):
        proved = sanity.roll(asked, provable.ProvableSource(seed, "client", nonce))
        ranges = [(1, 100)] + [(1, 4 if proved.success else 6)] * len(proved.loss_dice)
        ints = [] if proved.int_roll is None else [proved.int_roll]
        drawn = provable.replay_draws(seed, "client", nonce, ranges + [(1, 100)] * len(ints))
        assert drawn == [proved.roll, *proved.loss_dice, *ints]


def test_a_roll_by_hand_reads_as_the_rules_say() -> None:
    found = sanity.roll(
        request(sanity=60, loss="1/1d6+1", intelligence=70, dice=[75], loss_dice=[6], int_dice=[20])
    )
    assert (found.level, found.success, found.loss, found.sanity_after) == ("failure", False, 7, 53)
    assert (found.int_roll, found.int_level, found.temporary) == (20, "hard", True)
    repressed = sanity.roll(
        request(sanity=60, loss="1/1d6+1", intelligence=70, dice=[75], loss_dice=[6], int_dice=[71])
    )
    assert (repressed.int_level, repressed.temporary) == ("failure", False)
    fumble = sanity.roll(request(sanity=45, loss="1/1d6+1", dice=[96]))
    assert (fumble.level, fumble.maximised, fumble.loss, fumble.loss_dice) == (
        "fumble",
        True,
        7,
        (),
    )
    assert fumble.temporary is None  # an INT roll is called for and no INT is given
    critical = sanity.roll(request(sanity=45, loss="1d2/1d6", dice=[1], loss_dice=[2]))
    assert (critical.level, critical.success, critical.loss) == ("critical", True, 2)


# -- refusals --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "field", "allowed"),
    [
        ({"loss": "1d6"}, "loss", sanity.LOSS_ALLOWED),
        ({"loss": "1/1d6x"}, "loss", sanity.LOSS_ALLOWED),
        ({"loss": "0/1d4-2"}, "loss", sanity.LOSS_ALLOWED + " that never comes below 0"),
        ({"loss": "1/1d8+DB"}, "loss", None),
        ({"sanity": 100}, "sanity", "an integer 0..99"),
        ({"sanity": True}, "sanity", "an integer 0..99"),
        ({"intelligence": -1}, "intelligence", "an integer 0..999"),
        ({"lost_today": "3"}, "lost_today", "an integer 0..999"),
        ({"insane": 1}, "insane", "true or false"),
        ({"pulp": 1, "luck": 5}, "pulp", "true or false"),
        ({"dice": [0]}, "dice", None),
        ({"dice": [101]}, "dice", "a list of die values, each 1..100, in the order drawn"),
        ({"int_dice": [0]}, "int_dice", None),
        ({"loss": "/"}, "loss", sanity.LOSS_ALLOWED),
    ],
)
def test_bad_requests_name_the_field_the_value_and_what_is_allowed(
    fields: dict[str, Any], field: str, allowed: str | None
) -> None:
    with pytest.raises(BadInput) as err:
        request(**{"sanity": 50, "loss": "1/1d6", **fields})
    assert err.value.field == field
    if allowed is not None:
        assert err.value.allowed == allowed


def test_a_system_without_sanity_and_unknown_fields_are_refused() -> None:
    with pytest.raises(RuleRefusal) as err:
        request(system="brp", sanity=50, loss="1/1d6")
    assert err.value.field == "system" and "coc7" in err.value.allowed
    with pytest.raises(BadInput) as unknown:
        SanityRequest.from_dict({"system": "coc7", "sanity": 50, "loss": "1/1d6", "pow": 3})
    assert unknown.value.field == "pow"
    with pytest.raises(BadInput) as missing:
        SanityRequest.from_dict({"system": "coc7", "sanity": 50})
    assert missing.value.field == "loss"


def test_given_dice_too_few_or_left_over_are_refused() -> None:
    with pytest.raises(DiceError) as few:
        sanity.roll(request(sanity=50, loss="1/1d6", dice=[80]))
    assert few.value.field == "loss_dice"
    with pytest.raises(DiceError) as over:
        sanity.roll(request(sanity=50, loss="1/1d6", dice=[80], loss_dice=[3, 3]))
    assert over.value.field == "loss_dice"
    with pytest.raises(DiceError) as face:
        sanity.roll(request(sanity=50, loss="1/1d6", dice=[80], loss_dice=[7]))
    assert face.value.field == "loss_dice"


def test_odds_past_the_budget_are_refused_before_any_work() -> None:
    with pytest.raises(TooMuchWork) as err:
        sanity.odds(request(sanity=50, loss="1/100d1000", dice=[1]))
    assert err.value.field == "loss"


def test_the_contract_dict_round_trips() -> None:
    asked = request(sanity=50, loss="1/1d6", intelligence=60, halve=True, dice=[3])
    assert SanityRequest.from_dict(asked.to_dict()) == asked
    assert asked.to_dict() == {
        "system": "coc7",
        "sanity": 50,
        "loss": "1/1d6",
        "intelligence": 60,
        "halve": True,
        "dice": [3],
    }
    result = sanity.roll(asked).to_dict()
    assert result["request"] == asked.to_dict() and result["loss"] == 0  # 1 halved


def test_requests_results_and_odds_fit_the_shipped_schema() -> None:
    checker = jsonschema.Draft202012Validator(schema.shipped("sanity"))
    asked = request(
        sanity=30, loss="1d3/1d8", intelligence=50, lost_today=2, source_lost=1, pulp=True, luck=9
    )
    for seed in range(10):
        checker.validate(sanity.roll(asked, random.Random(seed)).to_dict())
    checker.validate(sanity.odds(asked).to_dict())
    checker.validate(asked.to_dict())
    assert not checker.is_valid({"system": "coc7", "sanity": 30, "loss": "1/1d6", "pow": 1})


@st.composite
def losses(draw: st.DrawFn, least: int) -> tuple[str, Any]:
    """A loss expression as text and as an icepool die: NdM+C, or a constant."""
    count = draw(st.integers(least, 2))
    sides = draw(st.sampled_from([2, 3, 4, 6, 8, 10]))
    constant = draw(st.integers(0, 3))
    if count == 0:
        return str(constant), constant
    return f"{count}d{sides}+{constant}", count @ icepool.d(sides) + constant


@settings(max_examples=depth(60, 400), deadline=None)
@given(
    san=st.integers(0, 99),
    a=losses(0),
    b=losses(1),
    intelligence=st.none() | st.integers(0, 120),
    lost_today=st.integers(0, 30),
    day_start=st.none() | st.integers(0, 99),
    insane=st.booleans(),
    source_lost=st.none() | st.integers(0, 15),
    halve=st.booleans(),
    luck=st.none() | st.integers(0, 40),
    foundry=st.booleans(),
    pool=st.integers(-2, 2),
)
def test_s7_2_s7_3_s7_4_any_request_as_the_oracle_counts_it(  # rule: P-2
    san: int,
    a: tuple[str, Any],
    b: tuple[str, Any],
    intelligence: int | None,
    lost_today: int,
    day_start: int | None,
    insane: bool,
    source_lost: int | None,
    halve: bool,
    luck: int | None,
    foundry: bool,
    pool: int,
) -> None:
    pulp = {} if luck is None else {"pulp": True, "luck": luck}
    asked = request(
        sanity=san,
        loss=f"{a[0]}/{b[0]}",
        intelligence=intelligence,
        lost_today=lost_today,
        day_start=day_start,
        insane=insane,
        source_lost=source_lost,
        halve=halve,
        pulp_halve_san_cost_foundry=foundry and luck is not None,
        pool=pool,
        sanity_pool=pool != 0,
        **pulp,
    )
    expected = oracle(
        san,
        a[1],
        b[1],
        intelligence,
        0,
        lost_today,
        day_start,
        insane,
        source_lost,
        halve,
        luck,
        foundry and luck is not None,
        pool,
    )
    check_against_oracle(asked, expected)
