"""``d100 check``, ``d100 contest`` and ``d100 group``: roll and show, with the odds beside."""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .. import group_luck
from .. import result_view as views
from ..declarations import Assistance, Rolled
from ..dice import RandomSource
from ..engine import odds, parse, resolve
from ..errors import D100Error
from ..luck import luck_needed
from ..render.checks import check_view, contest_view, cover_line, group_view
from ..render.dice_views import SECRET
from ..render.view import View, seg
from ..results import CheckOdds, CheckResult, ContestOdds, ContestResult
from ..system import System
from ..systems import REGISTRY
from . import config, flags

if TYPE_CHECKING:
    from ..sheets import Sheet
from .output import show
from .parser import Parser

CHECK_HELP = """\
Roll one check and show the dice, the target and its bands, the level and what it means,
the margin, and the exact odds of the request beside it.

examples:
  d100 check -s brp --skill 65 --difficulty hard --bonus 1
  d100 check -s brp --skill 40 --dice 42,7 --bonus 1      # dice rolled by hand
  d100 check -s openquest --skill 55 --assist 40 --seed 7
  d100 check -s chances --skill 40 --ability 10 --risk tough --take 50
  d100 check -s chances --skill 45 --risk challenging --cover 15   # a shot past cover
  d100 check --sheet party.toml alice stealth --difficulty hard --luck-boost
  d100 check --sheet party.toml erin perception --assist finn@20   # finn's die, rolled by hand
"""
CONTEST_HELP = """\
Roll an opposed check: the actor's flags first, then --vs and the opponent's.

examples:
  d100 contest -s openquest --skill 60 --vs --skill 45
  d100 contest -s brp --skill 50 --dice 33 --vs --skill 45 --dice 44
  d100 contest -s chances --skill 40 --ability 10 --vs --skill 30 --ability 5 --take 50
  d100 contest --sheet party.toml carol sneaking --vs dara hearing
  d100 contest --sheet party.toml carol sneaking --vs dara   # Hearing, from the catalogue
"""
GROUP_HELP = """\
Everyone tests the same skill, each result standing alone (OQ10, CH8 individual events).

examples:
  d100 group -s openquest --skill 60,45,30 --difficulty hard
  d100 group -s brp --skill 65,40 --dice 12/88            # one die per member, split by /
  d100 group --sheet party.toml stealth
  d100 group --sheet party.toml stealth --who alice,bob
  d100 group -s chances --skill 40,55,20 --risk tough --lead    # CH8: help the leader
  d100 group --sheet party.toml sneaking --risk tough --lead dara   # dara leads, carol helps
  d100 group --sheet party.toml luck --who vera,zora --lowest   # CoC7's group Luck roll
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "check",
        description=CHECK_HELP,
    )
    p.add_argument(
        "names",
        nargs="*",
        metavar="WHO SKILL",
        help="a character and a skill from the sheet (prefixes and any case)",
    )
    _common(p)
    flags.add_check_flags(p)
    add_cover(p)
    p.set_defaults(run=run_check)

    p = sub.add_parser(
        "contest",
        description=CONTEST_HELP,
    )
    p.add_argument("names", nargs="*", metavar="WHO SKILL", help="the actor, with a sheet")
    flags.add_sheet(p)
    flags.add_system(p)
    flags.add_side_flags(p, contest=True)
    _contest_flags(p)
    p.add_argument(
        "--vs",
        nargs=argparse.REMAINDER,
        required=True,
        metavar="OPPONENT",
        help="the opponent: [WHO SKILL] and side flags",
    )
    p.set_defaults(run=run_contest)

    p = sub.add_parser(
        "group",
        description=GROUP_HELP,
    )
    p.add_argument("names", nargs="*", metavar="SKILL", help="the skill's name, with a sheet")
    p.add_argument("--who", help="comma-separated characters (default: all with the skill)")
    p.add_argument(
        "--lead",
        nargs="?",
        const="",
        metavar="WHO",
        help="one checks, helped by the others ("
        + "; ".join(f"{s.name}: {a.summary}" for s, a in _many_helpers()).replace("%", "%%")
        + "); the leader is WHO, or by default the highest skill + ability + modifiers",
    )
    p.add_argument(
        "--lowest",
        action="store_true",
        help="one Luck roll for the group, by the lowest Luck present ("
        + "; ".join(f"{s}: {r}" for s, r in group_luck.declared())
        + ")",
    )
    _common(p, several=True)
    flags.add_check_flags(p)
    p.set_defaults(run=run_group)


def _common(p: argparse.ArgumentParser, several: bool = False) -> None:
    if several:  # a group may sit at several sheets, a file per player
        p.add_argument(
            "--sheet",
            "-f",
            action="append",
            help="a character or party sheet (TOML), repeatable; default "
            f"${config.ENV_SHEET}, else the config file's sheet",
        )
    else:
        flags.add_sheet(p)
    flags.add_system(p)
    flags.add_side_flags(p)
    flags.add_roll(p)
    flags.add_output(p)


def add_cover(p: argparse.ArgumentParser) -> None:
    covers = [s for s in REGISTRY if s.declares.cover is not None]
    if covers:
        text = "; ".join(
            f"{s.name}: {s.declares.cover.summary}" for s in covers if s.declares.cover
        )
        p.add_argument("--cover", type=int, metavar="N", help=text.replace("%", "%%"))


def side_parser() -> argparse.ArgumentParser:
    """The opponent's flags; the contest's own flags may come after --vs too."""
    p = Parser(prog="d100 contest --vs", add_help=False, conflict_handler="resolve")
    p.add_argument("names", nargs="*")
    flags.add_side_flags(p, contest=True)
    _contest_flags(p)
    return p


def _contest_flags(p: argparse.ArgumentParser) -> None:
    flags.add_roll(p)
    flags.add_output(p)
    flags.add_house(p)


def contest_level() -> tuple[str, ...]:
    """What may come after --vs and still be the contest's: output, dice and its own fields."""
    return ("seed", "json", "plain", "color", "house", *(f.dest for f in flags.contest_flags()))


def rng_of(ns: argparse.Namespace) -> RandomSource:
    """The namespace's source (one for a line's repeats), else one from its seed."""
    given: RandomSource | None = getattr(ns, "rng", None)
    if given is not None:
        return given
    return random.Random(ns.seed) if ns.seed is not None else random.SystemRandom()


# -- check -------------------------------------------------------------------------------------


def check_request(ns: argparse.Namespace, sheet: Sheet | None) -> tuple[str | None, dict[str, Any]]:
    """The contract request the flags (and the sheet's names) describe, and who rolls."""
    if sheet is None:
        if ns.names:
            raise D100Error(
                "WHO SKILL", " ".join(ns.names), "names with --sheet", "names given without a sheet"
            )
        return None, flags.one(flags.side_request(ns, flags.system_of(ns)))
    who, skill = _two(ns.names)
    if ns.skill is not None:
        raise D100Error(
            "--skill",
            ns.skill,
            "a skill name from the sheet, or no sheet",
            "both a sheet skill and --skill",
        )
    chosen = flags.pick(sheet, who, skill, ns)
    request = flags.one(flags.side_request(ns, chosen.character.system, chosen.side, sheet))
    return f"{chosen.character.name} · {chosen.skill}", request


def _two(names: Sequence[str]) -> tuple[str, str]:
    """WHO and SKILL; a skill may be several words (``alice spot hidden``)."""
    if len(names) < 2:
        raise D100Error(
            "WHO SKILL",
            " ".join(names) or None,
            "a character and a skill, e.g. alice stealth",
            "a character and a skill are needed" if names else "no names given",
        )
    return names[0], " ".join(names[1:])


def opposed_skill(skill: str) -> str:
    """The skill that resists ``skill`` in the seed's examples (CH11), else the same skill."""
    from ..catalogue import OPPOSED_TASKS  # here: only a contest by sheet names needs it

    key = skill.lower()
    for task in OPPOSED_TASKS:
        if task.skill.lower().startswith(key):
            return task.opposing_skill.lower()
    return skill


def run_check(ns: argparse.Namespace) -> int:
    show(ns, *check(ns))
    return 0


def check(ns: argparse.Namespace) -> tuple[View, dict[str, Any]]:
    """Roll the check the flags describe: the view to show and the contract result."""
    view, data, _ = rolled_check(ns)
    return view, data


def rolled_check(ns: argparse.Namespace) -> tuple[View, dict[str, Any], Rolled]:
    """``check``, and the check as rolled, for what may follow it (the shell's follow-ups)."""
    sheet = flags.open_sheet(ns) if ns.names else None
    title, request = check_request(ns, sheet)
    who = sheet.get(ns.names[0]).name if sheet is not None else None
    if sheet is not None and who is not None:
        ensure_luck(sheet, who, request)
    cover = _cover(getattr(ns, "cover", None), request)
    result = resolve(request, rng_of(ns))
    assert isinstance(result, CheckResult)
    chance = odds(flags.without_dice(request))
    assert isinstance(chance, CheckOdds)
    label = getattr(ns, "label", None)  # written after a command form: CC<=65 Spot Hidden
    view = check_view(result, chance, title or label)
    # the contract's result, and beside it the one view every door shows of it
    data = {**result.to_dict(), "view": views.result_view(result, chance).to_dict()}
    if label is not None:
        data["label"] = label
    if getattr(ns, "secret", False):  # BCDice's S prefix: the command line has no audience
        view = view + View(((seg("  secret   ", "label"), seg(SECRET, "warn")),))
        data["secret"] = SECRET
    rule = REGISTRY.get(result.system).declares.cover
    if cover is not None and rule is not None:
        struck = rule.struck(result, cover)
        view = view + View((cover_line(result, cover, struck),))
        data["cover"] = {"dodging_factor": cover, "struck": struck}
    if who is not None and result.luck_spent:
        left = spend_luck(ns.sheet, [(who, result.luck_spent)])
        view = view + luck_line(left)
    if sheet is not None and who is not None and title is not None:
        character = sheet.get(who)
        data["who"], data["skill"] = who, character.skill(" ".join(ns.names[1:]))
        if character.luck is not None:
            data["luck_left"] = character.luck.current - (result.luck_spent or 0)
        if result.skill_after is not None and character.skills.get(data["skill"]) not in (
            None,
            result.skill_after,
        ):  # a Delta Green SAN test: SAN less its loss, written as the table writes it
            said = leave_skill(ns.sheet, who, data["skill"], result.skill_after)
            view = view + View(((seg("  sheet    ", "label"), seg(said, "warn")),))
    spent = result.luck_spent or 0
    return view, data, Rolled(request, result, data.get("luck_left"), spent, (), data.get("skill"))


def _cover(dodging: int | None, request: dict[str, Any]) -> int | None:
    """Cover a shot is aimed past, where the system declares a rule for it; its number is
    never negative."""
    if dodging is None:
        return None
    system = REGISTRY.get(request.get("system"))
    if system.declares.cover is None:
        having = [s for s in REGISTRY if s.declares.cover is not None]
        raise D100Error(
            "--cover",
            dodging,
            "only with a system that has a cover rule: " + ", ".join(s.name for s in having),
            f"cover is a {' or '.join(s.title for s in having)} rule; this check is {system.name}",
        )
    if dodging < 0:
        raise D100Error("--cover", dodging, "a dodging factor 0 or more", f"negative: {dodging}")
    return dodging


# -- Luck on a sheet (BRP7) ----------------------------------------------------------------------


def ensure_luck(sheet: Sheet, who: str, request: dict[str, Any]) -> None:
    """Refuse before rolling a request that may spend more Luck than the character has."""
    rule = REGISTRY.get(request.get("system")).declares.luck
    if rule is None or not (request.get(rule.boost_field) or request.get(rule.reroll_field)):
        return  # spends no Luck (and may not parse alone: a contest side may lack a target)
    needed = luck_needed(parse(request))
    if not needed:
        return
    luck = sheet.get(who).luck
    if luck is None:
        raise D100Error("luck", None, f"a luck entry on {who}'s sheet", f"{who} has no Luck")
    if needed > luck.current:
        raise D100Error(
            "luck",
            luck.current,
            f"at most {luck.current} Luck point(s) for {who}",
            f"the request may spend {needed}, {who} has {luck.current} left",
        )


def leave_skill(path: str, who: str, skill: str, value: int) -> str:
    """The value a check left a skill at, written to the sheet read afresh; atomic."""
    from ..sheets import load, save  # here: a check by numbers never touches a sheet

    sheet = load(path)
    character = sheet.get(who)
    save(path, sheet.put(replace(character, skills={**character.skills, skill: value})))
    return f"{who}'s {skill} is now {value}"


def spend_luck(path: str, spent: Sequence[tuple[str, int]]) -> list[str]:
    """Write Luck spent back to the sheet, read afresh so other edits are kept; atomic."""
    from ..sheets import load, save  # here: a check by numbers never touches a sheet

    sheet = load(path)
    lines = []
    for who, points in spent:
        if not points:
            continue
        character = sheet.get(who)
        assert character.luck is not None
        luck = character.luck.spend(points)
        sheet = sheet.put(replace(character, luck=luck))
        lines.append(f"{who} spent {points} Luck: {luck.current}/{luck.maximum} left")
    save(path, sheet)
    return lines


def luck_line(lines: list[str]) -> View:
    return View(tuple((seg("  sheet    ", "label"), seg(text, "warn")) for text in lines))


# -- contest -----------------------------------------------------------------------------------


def run_contest(ns: argparse.Namespace) -> int:
    show(ns, *contest(ns))
    return 0


def contest_request(
    ns: argparse.Namespace,
) -> tuple[dict[str, Any], list[str], Sheet | None]:
    """The contest the flags describe (the actor's, then ``--vs`` and the opponent's): the
    contract request, the two sides' names, and the sheet they come from, if any."""
    other = side_parser().parse_args(ns.vs)
    other.quick = getattr(ns, "vs_quick", None)  # the opponent's quick words (the shell's)
    for name in contest_level():
        given, after = getattr(ns, name, None), getattr(other, name, None)
        if after in (None, False):
            continue
        if given not in (None, False) and given != after:  # before --vs and after it
            raise D100Error(
                f"--{name.replace('_', '-')}",
                after,
                "one value, before --vs or after it",
                f"given twice: {given!r} and {after!r}",
            )
        setattr(ns, name, after)
    sheet = flags.open_sheet(ns) if ns.names or other.names else None
    sides: list[dict[str, Any]] = []
    names: list[str] = []
    skills: list[str] = []  # each side's skill name, from the sheet
    systems: list[str] = []
    if sheet is not None and len(ns.names) >= 2 and len(other.names) == 1:
        other.names = [*other.names, opposed_skill(" ".join(ns.names[1:]))]
    for label, side_ns in (("actor", ns), ("opponent", other)):
        if sheet is None:
            system = flags.system_of(ns)
            sides.append(flags.one(flags.side_request(side_ns, system, contest=True)))
            names.append(label)
        else:
            who, skill = _two(side_ns.names)
            chosen = flags.pick(sheet, who, skill, side_ns)
            system = chosen.character.system
            sides.append(
                flags.one(flags.side_request(side_ns, system, chosen.side, sheet, contest=True))
            )
            if names and names[0] == chosen.character.name:
                raise D100Error(
                    "--vs",
                    who,
                    f"an opponent other than {chosen.character.name}",
                    f"{chosen.character.name} cannot oppose themselves",
                )
            names.append(chosen.character.name)
            skills.append(chosen.skill)
        systems.append(system)
    if systems[0] != systems[1]:
        raise D100Error(
            "--vs",
            systems[1],
            f"the actor's system, {systems[0]}",
            "both sides of a contest play the same system",
        )
    request: dict[str, Any] = {"system": systems[0], "actor": sides[0], "opponent": sides[1]}
    request.update(flags.contest_fields(ns, systems[0]))
    if ns.house:
        request["house_rules"] = flags.house_rules(ns.house)
    ns.skill_names = skills
    return request, names, sheet


def contest(ns: argparse.Namespace) -> tuple[View, dict[str, Any]]:
    """Roll the contest the flags describe: the view to show and the contract result."""
    request, names, sheet = contest_request(ns)
    if sheet is not None:
        for who, side in zip(names, (request["actor"], request["opponent"]), strict=True):
            ensure_luck(sheet, who, {"system": request["system"], **side})
    result = resolve(request, rng_of(ns))
    assert isinstance(result, ContestResult)
    chance = odds(flags.without_dice(request))
    assert isinstance(chance, ContestOdds)
    view = contest_view(result, chance, (names[0], names[1]))
    if ns.skill_names:  # from a sheet: say what each side rolled, the opponent's too
        pairs = zip(names, ns.skill_names, strict=True)
        said = " vs ".join(f"{who} {skill}" for who, skill in pairs)
        view = view + View(((seg("  skills   ", "label"), seg(said)),))
    spent = [(names[0], result.actor.luck_spent or 0), (names[1], result.opponent.luck_spent or 0)]
    if sheet is not None and any(p for _, p in spent):
        view = view + luck_line(spend_luck(ns.sheet, spent))
    data = result.to_dict()
    data["view"] = views.contest_view(result, chance, (names[0], names[1])).to_dict()
    if sheet is not None and ns.skill_names:  # who rolled what, as a sheet's check says it
        sides = zip(("actor", "opponent"), spent, ns.skill_names, strict=True)
        for side, (who, points), skill in sides:
            data[side] |= {"who": who, "skill": skill}
            luck = sheet.get(who).luck
            if luck is not None:
                data[side]["luck_left"] = luck.current - points
    return view, data


# -- group -------------------------------------------------------------------------------------


def _many_helpers() -> list[tuple[System, Assistance]]:
    """The systems whose declared assistance lets several help one, with it."""
    return [
        (s, s.declares.assistance)
        for s in REGISTRY
        if s.declares.assistance is not None and s.declares.assistance.many
    ]


def _led(
    ns: argparse.Namespace, members: list[tuple[str, dict[str, Any]]]
) -> tuple[View, dict[str, Any]]:
    """Helping the leader: the leader checks, each other member assists as the system says."""
    lead = ns.lead or None
    systems = sorted({r["system"] for _, r in members})
    many = [s.name for s, _ in _many_helpers()]
    if len(systems) > 1 or systems[0] not in many:
        raise D100Error(
            "--lead",
            lead,
            "members of one system where many help one: " + ", ".join(many),
            f"helping the leader is not a rule of {' and '.join(systems)}",
        )
    if len(members) < 2:
        raise D100Error("--lead", lead, "two or more members", "nobody to help the leader")
    names = [name for name, _ in members]
    if lead is not None:
        try:
            from ..sheets import lookup

            i = names.index(lookup(lead, names, "member"))
        except D100Error as err:
            raise D100Error("--lead", lead, err.allowed, err.reason) from None
    else:
        choose = flags.assistance(systems[0], lead).leader
        if choose is None:
            raise D100Error("--lead", None, "--lead WHO", f"{systems[0]} names no default leader")
        i = choose([parse(r) for _, r in members])
    helpers = [(n, r) for j, (n, r) in enumerate(members) if j != i]
    request = {
        **members[i][1],
        **flags.helpers_request([flags.assisting(r, systems[0]) for _, r in helpers], systems[0]),
    }
    result = resolve(request, rng_of(ns))
    assert isinstance(result, CheckResult)
    chance = odds(flags.without_dice(request))
    assert isinstance(chance, CheckOdds)
    title = f"{names[i]} leads, helped by {', '.join(n for n, _ in helpers)} (CH8)"
    return check_view(result, chance, title), {"leader": names[i], **result.to_dict()}


def run_group(ns: argparse.Namespace) -> int:
    show(ns, *group(ns))
    return 0


def _sheets(ns: argparse.Namespace) -> tuple[Sheet, dict[str, str]]:
    """The characters of every sheet named, and the file each comes from; a name on two
    sheets is refused, as on one."""
    from ..sheets import load

    paths = ns.sheet if isinstance(ns.sheet, list) else [ns.sheet] if ns.sheet else []
    ns.sheet = paths[0] if paths else None
    sheet = flags.open_sheet(ns)
    homes = dict.fromkeys(sheet.names(), str(ns.sheet))
    for path in paths[1:]:
        for c in load(path).characters:
            taken = sheet.clash(c.name)
            if taken is not None:
                raise D100Error(
                    "--sheet", path, "sheets whose characters' names differ", f"{taken!r} twice"
                )
            sheet = sheet.put(c)
            homes[c.name] = path
    return sheet, homes


def _lowest(
    sheet: Sheet, members: list[tuple[str, dict[str, Any]]], skill: str
) -> list[tuple[str, dict[str, Any]]]:
    """The group's Luck roll: the member with the lowest Luck rolls it alone."""
    present = [sheet.get(name) for name, _ in members]
    for c in present:
        rules = c.investigator_rules
        if rules is not None and c.skill(skill) != rules.luck:
            raise D100Error("--lowest", skill, f"{rules.luck}: a group's Luck roll", "not Luck")
    chosen = group_luck.who_rolls(present, "--lowest")
    return [m for m in members if m[0] == chosen.name]


def group(ns: argparse.Namespace) -> tuple[View, Any]:
    """Roll the group test the flags describe: the view to show and the results."""
    members: list[tuple[str, dict[str, Any]]] = []
    sheet: Sheet | None = None
    homes: dict[str, str] = {}
    dice_text = ns.dice
    ns.dice = None  # split per member below
    lowest = getattr(ns, "lowest", False)
    if lowest and not ns.names:
        raise D100Error("--lowest", None, "a sheet's characters and their Luck", "no sheet")
    if ns.names:
        sheet, homes = _sheets(ns)
        ns.names = [" ".join(ns.names)]  # a skill of several words: spot hidden
        chosen = [sheet.get(w) for w in ns.who.split(",")] if ns.who else list(sheet.characters)
        for character in chosen:
            try:
                picked = flags.pick(sheet, character.name, ns.names[0], ns)
            except D100Error:
                if ns.who:
                    raise
                continue  # the party members without the skill sit this one out
            members.append(
                (
                    character.name,
                    flags.one(flags.side_request(ns, character.system, picked.side, sheet)),
                )
            )
        if not members:
            raise D100Error(
                "SKILL",
                ns.names[0],
                "a skill someone on the sheet has",
                f"nobody on the sheet has {ns.names[0]!r}",
            )
        if lowest:
            everyone = [(n, r) for n, r in members]
            members = _lowest(sheet, members, ns.names[0])
    else:
        system = flags.system_of(ns)
        skills = flags.numbers("--skill", ns.skill or "")
        if not skills:
            raise D100Error(
                "--skill", ns.skill, "comma-separated skills, e.g. 60,45,30", "required"
            )
        for i, skill in enumerate(skills, 1):
            ns.skill = str(skill)
            members.append((f"#{i}", flags.one(flags.side_request(ns, system))))
    if dice_text is not None:
        parts = dice_text.split("/")
        if len(parts) != len(members):
            raise D100Error(
                "--dice",
                dice_text,
                f"{len(members)} groups of dice split by /",
                f"{len(parts)} groups for {len(members)} members",
            )
        for (_, request), part in zip(members, parts, strict=True):
            request["dice"] = flags.dice("--dice", part)
    if ns.lead is not None:
        return _led(ns, members)
    if sheet is not None:
        for name, request in members:
            ensure_luck(sheet, name, request)
    if lowest:
        return _group_luck(ns, members[0], [(n, r["skill"]) for n, r in everyone])
    rng = rng_of(ns)
    rows = []
    data = []
    for name, request in members:
        result = resolve(request, rng)
        assert isinstance(result, CheckResult)
        chance = odds(flags.without_dice(request))
        assert isinstance(chance, CheckOdds)
        rows.append((name, result, chance))
        data.append({"name": name, **result.to_dict()})
    systems = sorted({REGISTRY.get(r.system).title for _, r, _ in rows})
    title = f"{' / '.join(systems)} group test: each result stands alone"
    view = group_view(title, rows)
    spent = [(name, r.luck_spent or 0) for name, r, _ in rows]
    if sheet is not None and any(p for _, p in spent):
        for path in dict.fromkeys(homes.values()):
            mine = [(n, p) for n, p in spent if homes[n] == path]
            if any(p for _, p in mine):
                view = view + luck_line(spend_luck(path, mine))
    return view, data


def _group_luck(
    ns: argparse.Namespace, member: tuple[str, dict[str, Any]], present: list[tuple[str, int]]
) -> tuple[View, Any]:
    """One Luck roll for the group, by the lowest Luck present."""
    name, request = member
    result = resolve(request, rng_of(ns))
    assert isinstance(result, CheckResult)
    chance = odds(flags.without_dice(request))
    assert isinstance(chance, CheckOdds)
    said = ", ".join(f"{n} {v}" for n, v in present)
    title = f"{name} rolls Luck for the group: the lowest of {said}"
    return check_view(result, chance, title), {"rolls_for_group": name, **result.to_dict()}
