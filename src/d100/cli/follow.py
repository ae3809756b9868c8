"""What may follow the shell's last check: the system's follow-ups (``Declaration.after``),
taken by typing the key its line offers, as a table's card offers them: BRP's Luck reroll of
a failure, CoC7's Luck spent after the roll and its push. Each is a roll of its own with its
own odds; the Luck it costs is written back to the sheet."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..declarations import FollowUp, Rolled
from ..dice import RandomSource
from ..engine import odds, resolve
from ..errors import D100Error
from ..render.checks import check_lines
from ..render.view import View, frac, pct, seg
from ..result_view import result_view
from ..results import CheckOdds, CheckResult, check_data
from ..sheets import load
from ..systems import REGISTRY
from . import flags, quick
from .roll import luck_line, spend_luck


@dataclass(frozen=True)
class Followable:
    """The last check of a shell, for what may follow it: who rolled it (None: by numbers,
    with no Luck to keep), and the check as rolled."""

    who: str | None
    rolled: Rolled

    def offers(self) -> tuple[FollowUp, ...]:
        return REGISTRY.get(self.rolled.result.system).declares.after(self.rolled)


def offers_view(last: Followable) -> View:
    """The line under a check naming what may follow it, by the key that takes it."""
    left = last.rolled.luck  # None: no sheet keeps it, so nothing is out of reach
    offered = [f for f in last.offers() if f.refused is None and (left is None or f.luck <= left)]
    if not offered:
        return View(())
    text = " · ".join(f"{f.key}: {_offered(f)}" for f in offered)
    return View(((seg("  then     ", "label"), seg(text, "dim")),))


def _offered(offer: FollowUp) -> str:
    """An offer in the words a table's card and Discord use: "Push the roll, 45.00% (9/20)
    to succeed; a failed push brings a dire consequence, the Keeper's to choose"."""
    said = offer.label
    if offer.draws():  # a roll anew: its own chance
        chance = odds(offer.request)
        assert isinstance(chance, CheckOdds)
        said += f", {pct(chance.success)} ({frac(chance.success)}) to succeed"
    return f"{said}; {offer.stakes}" if offer.stakes else said


def _with_luck_held(result: CheckResult, held: int | None) -> CheckResult:
    """The result as its card reads it: the Luck the roller held, where the sheet says it,
    else none, in place of the least Luck the follow-up's request gives to buy the spend
    (one more than its cost, C7-4: a table's card shows what was spent, not what is left)."""
    luck = REGISTRY.get(result.system).declares.luck
    field = None if luck is None else luck.after_field
    if not field or field not in result.request:
        return result
    request = {
        k: held if k == field else v
        for k, v in result.request.items()
        if k != field or held is not None
    }
    return replace(result, request=check_data(request))


def take(
    last: Followable, key: str, typed: list[str], sheet_path: str | None, rng: RandomSource
) -> tuple[View, dict[str, object], Followable]:
    """The follow-up ``key`` of the last check, with dice typed by hand (``@10``) if any: its
    view, its contract result, and the check it makes, for what may follow that one."""
    given = last.offers()
    chosen = next((f for f in given if f.key == key), None)
    if chosen is None:
        keys = ", ".join(f.key for f in given)
        if not keys:
            why = "it succeeded" if last.rolled.result.success else "nothing may follow it"
            raise D100Error(key, key, "a check its rules let its roller follow up", why)
        raise D100Error(key, key, f"one of {keys}", "not offered for the last check")
    if chosen.refused is not None:
        raise D100Error(key, key, chosen.allowed, chosen.refused)
    system = last.rolled.result.system
    dice, rest = quick.dice_as_flags(typed, system)
    if rest:
        raise D100Error(
            key, " ".join(rest), "at most dice rolled by hand, as @42", "words a follow-up lacks"
        )
    request = dict(chosen.request)
    if dice:
        if not chosen.draws():
            raise D100Error(
                "dice", dice[-1], "no dice", f"{key} rolls none: it reads the roll made"
            )
        request[flags.dice_field(system)] = flags.dice("dice", dice[-1])
    luck = None if last.who is None or sheet_path is None else load(sheet_path).get(last.who).luck
    if luck is not None and luck.current < chosen.luck:
        raise D100Error(
            key, luck.current, f"a character with {chosen.luck} Luck", f"{last.who} has less"
        )
    result = resolve(request, rng)
    chance = odds(flags.without_dice(request))
    assert isinstance(result, CheckResult) and isinstance(chance, CheckOdds)
    title = REGISTRY.get(system).title
    shown = _with_luck_held(result, None if luck is None else luck.current)
    # read as the follow-up it was: a failed push says what it brings, as a table's card does
    followed = {"done": chosen.done, "failed": chosen.failed}
    view = check_lines(
        result_view(shown, chance, (), followed), shown, f"{chosen.done}: {last.who or title}"
    )
    if luck is not None and last.who is not None and sheet_path is not None and chosen.luck:
        view = view + luck_line(spend_luck(sheet_path, [(last.who, chosen.luck)]))
        luck = luck.spend(chosen.luck)
    elif chosen.luck:
        view = view + View(((seg("  luck     ", "label"), seg(f"{chosen.luck} (no sheet)")),))
    data: dict[str, object] = {
        **result.to_dict(),
        "follow_up": {"key": chosen.key, "done": chosen.done},
        "luck_spent": chosen.luck,
    }
    taken = (*last.rolled.taken, chosen.key)
    spent = last.rolled.spent + chosen.luck
    left = None if luck is None else luck.current
    now = Rolled(request, result, left, spent, taken, last.rolled.skill)
    return view, data, Followable(last.who, now)
