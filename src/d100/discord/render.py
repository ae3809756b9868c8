"""Results, odds and advice as Discord messages. A result is its view's (``d100.result_view``:
the headline with its mark, whether it met what was asked, the dice, the target and its bands,
the margin and the exact odds), in the words the command line and the page use; a table's
roll takes the view the server built for the channel or the roller. Every text is clipped to
Discord's limits."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..actions import Report
from ..advise import Option
from ..declarations import LevelSpec
from ..errors import D100Error
from ..render.action_views import exact
from ..render.checks import names_of
from ..render.view import frac, pct
from ..result_view import contest_view, inputs_text, result_view
from ..results import CheckOdds, CheckResult, ContestOdds, ContestResult, thawed
from ..systems import REGISTRY
from .interactions import message
from .limits import (
    CONTENT_MAX,
    EMBED_DESCRIPTION_MAX,
    EMBED_TOTAL_MAX,
    FIELD_NAME_MAX,
    FIELD_VALUE_MAX,
    FIELDS_MAX,
    FOOTER_MAX,
    TITLE_MAX,
    clip,
)

# Embed colours for the declared styles of levels (best..worst), and for anything else.
COLOURS = {"best": 0x2E9E5B, "good": 0x3FA34D, "ok": 0x4A78C2, "bad": 0xD9822B, "worst": 0xC0392B}
PLAIN = 0x5865F2
MARKDOWN = str.maketrans({c: f"\\{c}" for c in "\\*_~`|>[]"})


DICE_ROWS = 24  # an /odds answer's totals, to stay inside an embed's 4,096 characters


def escaped(text: str) -> str:
    """A person's text shown as typed, not as Markdown."""
    return text.translate(MARKDOWN)


def _spec(system: str, level: str) -> LevelSpec | None:
    try:
        return REGISTRY.get(system).declares.level(level)
    except (KeyError, D100Error):
        return None


def level_words(system: str, level: str) -> str:
    """A level as the table reads it: its declared mark and its name in capitals."""
    spec = _spec(system, level)
    mark = f"{spec.mark} " if spec is not None and spec.mark else ""
    return f"{mark}{level.upper()}"


def embed(
    title: str,
    description: str = "",
    fields: Sequence[tuple[str, str]] = (),
    footer: str = "",
    hue: int = PLAIN,
) -> dict[str, Any]:
    """An embed within Discord's limits: each text clipped, at most 25 fields, and the fields
    past the total of 6,000 characters left out (the footer says so)."""
    out: dict[str, Any] = {"title": clip(title, TITLE_MAX), "color": hue}
    if description:
        out["description"] = clip(description, EMBED_DESCRIPTION_MAX)
    budget = EMBED_TOTAL_MAX - len(out["title"]) - len(out.get("description", ""))
    budget -= min(len(footer), FOOTER_MAX) + 40  # room for the footer's note of fields left out
    kept: list[dict[str, Any]] = []
    for name, value in fields:
        shown = {
            "name": clip(name or "·", FIELD_NAME_MAX),
            "value": clip(value or "·", FIELD_VALUE_MAX),
        }
        size = len(shown["name"]) + len(shown["value"])
        if len(kept) == FIELDS_MAX or size > budget:
            break
        kept.append({**shown, "inline": len(shown["value"]) <= 40})
        budget -= size
    if kept:
        out["fields"] = kept
    left = len(fields) - len(kept)
    note = f"{footer} · {left} more not shown" if left and footer else footer
    note = note or (f"{left} more not shown" if left else "")
    if note:
        out["footer"] = {"text": clip(note, FOOTER_MAX)}
    return out


SHORT_HEAD = 8  # hex digits of a head's link a post shows


def head_note(view: Mapping[str, Any]) -> str:
    """The log's head after a roll (``events.headed``), as its post's footer says it: the
    event's number and its link's first hex digits, for a member to compare a later export
    with (``d100 verify``'s report names each event's link). '' for a view without one."""
    head = view.get("head")
    if not isinstance(head, Mapping):
        return ""
    return f"log #{head['seq']} · {str(head['link'])[:SHORT_HEAD]}"


def _chance(text: str | None) -> str:
    """An exact probability as a view holds it ("11/20"), shown as a percentage beside it."""
    if text is None:
        return ""
    p = Fraction(text)
    return f"{pct(p)} ({frac(p)})"


def headline(view: Mapping[str, Any]) -> str:
    """A result's headline as the table reads it: its view's mark and words in capitals."""
    mark = view.get("mark") or ""
    return f"{mark} {str(view['headline']).upper()}".strip()


def verdict(contest: Mapping[str, Any]) -> str:
    """A contest's headline with its degree, where it has one: "alice wins (great)"."""
    degree = contest.get("degree")
    return f"{contest['headline']} ({degree})" if degree else str(contest["headline"])


def hue_of(view: Mapping[str, Any]) -> int:
    return COLOURS.get(str(view.get("style")), PLAIN)


def offer_fields(view: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each follow-up a roll offers its roller: its label, its chance to succeed, what it
    risks and exactly what it gives, in the words its rules give (Luck on an attack: the
    damage it buys)."""
    out = []
    for offer in view.get("follow_ups") or ():
        said = str(offer["label"])
        if offer.get("odds"):
            said += f", {_chance(offer['odds'])} to succeed"
        if offer.get("stakes"):
            said += f"; {offer['stakes']}"
        gives = offer.get("gives")
        if isinstance(gives, Mapping) and gives.get("words"):
            said += f"; exactly: {gives['words']}"
        out.append(("On offer", escaped(said)))
    return out


def view_fields(view: Mapping[str, Any], manual: bool = False) -> list[tuple[str, str]]:
    """A check's view as fields: dice, target and bands, the level and what it means or why
    it fails, the margin, a later attempt's stakes, the odds and the follow-ups offered. A
    view of a level only (an NPC's, for a player) has its level and verdict alone."""
    fields: list[tuple[str, str]] = []
    if view.get("shown"):
        dice = str(view["dice"]) + (" (by hand)" if manual else "")
        fields += [
            ("Dice", dice),
            (str(view["target_label"]).capitalize(), str(view["target_words"])),
            ("Bands", str(view["bands"])),
        ]
    said = view["meaning"] if view.get("shown") else view["verdict"]  # a level only: its verdict
    fields.append(("Level", f"{headline(view)}: {said}".rstrip(": ")))
    if view.get("shown"):
        fields.append(("Margin", str(view["margin_words"])))
    if view.get("again"):
        stakes = view.get("stakes") or ""
        said = f"{view['verdict']}; {stakes}" if stakes else str(view["verdict"])
        fields.append((str(view["again"]).capitalize(), said))
    if view.get("level_odds"):
        fields.append(("This level", _chance(view["level_odds"])))
    if view.get("success_odds"):
        fields.append(("Any success", _chance(view["success_odds"])))
    every = view.get("every_level") or {}
    if every:
        lines = [
            f"**{k} {_chance(p)}**" if k == view["level"] else f"{k} {_chance(p)}"
            for k, p in every.items()
            if Fraction(p) or k == view["level"]  # a level this request cannot reach
        ]
        fields.append(("Every level", "\n".join(lines)))
    fields += offer_fields(view)
    if view.get("luck_spent"):
        fields.append(("Luck", f"spent {view['luck_spent']}"))
    for helper in view.get("helpers") or ():
        label, _, text = str(helper).partition(": ")
        fields.append((label.capitalize(), text))
    for other in view.get("also_judged") or ():
        fields.append(("Also judged", f"{headline(other)}: {other['explanation']}"))
    if view.get("note"):
        fields.append(("Note", str(view["note"])))
    if view.get("explanation"):
        fields.append(("Why", str(view["explanation"])))
    return fields


def contest_fields(view: Mapping[str, Any], manual: bool = False) -> list[tuple[str, str]]:
    """A contest's view as fields: each side by its headline, with its dice, target and
    margin where its view holds them, and the odds of each outcome."""
    fields: list[tuple[str, str]] = []
    for side in view["sides"]:
        part = side["view"]
        shown = f"{headline(part)}: {part['verdict']}"
        if part.get("shown"):
            dice = str(part["dice"]) + (" (by hand)" if manual else "")
            shown = f"{headline(part)} · dice {dice} vs {part['target_words']}"
            shown += f" · margin {part['margin_words']}"
        fields.append((escaped(str(side["name"])), shown))
    odds = view.get("winner_odds") or {}
    if odds:
        fields.append(("Odds", "\n".join(f"{k} {_chance(v)}" for k, v in odds.items())))
    if view.get("explanation"):
        fields.append(("Why", str(view["explanation"])))
    return fields


def roll_message(
    who: str,
    result: CheckResult | ContestResult,
    chance: CheckOdds | ContestOdds | None,
    private: bool,
) -> dict[str, Any]:
    """A rolled check or contest, ``who`` naming the roller."""
    asked = escaped(inputs_text(thawed(result.request)))
    if isinstance(result, CheckResult):
        assert chance is None or isinstance(chance, CheckOdds)
        view = result_view(result, chance).to_dict()
        body = embed(
            f"{headline(view)} · {view['title']} check",
            f"{escaped(who)} rolled {asked}" if who else asked,
            view_fields(view),
            hue=hue_of(view),
        )
        return message(embeds=[body], private=private)
    assert chance is None or isinstance(chance, ContestOdds)
    contest = contest_view(result, chance).to_dict()
    head = f"{escaped(who)} rolled a contest" if who else "A contest"
    title = f"{contest['title']} contest: {verdict(contest)}"
    return message(
        embeds=[embed(title, head, contest_fields(contest), hue=hue_of(contest))],
        private=private,
    )


def dice_fields(reading: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A dice roll's fields from its reading (``expressions.reading``): how it was made, and,
    where the viewer may see them, the exact chance of its total and the mean."""
    fields = [("Dice", escaped(str(reading.get("explanation", ""))))]
    if reading.get("chance"):
        fields += [
            ("Exact chance", f"{reading['chance']} ({reading['at_least']} for it or more)"),
            ("Mean", str(reading["mean"])),
        ]
    return fields


def dice_message(who: str, words: str, reading: Mapping[str, Any], private: bool) -> dict[str, Any]:
    """``/roll 2d6+1``: the total, its dice and its exact odds."""
    head = f"{escaped(who)} rolled {escaped(words)}"
    body = embed(f"Total {reading['total']}", head, dice_fields(reading))
    return message(embeds=[body], private=private)


def dice_odds_message(chance: Mapping[str, Any], private: bool) -> dict[str, Any]:
    """``/odds 3d6``: each total's exact chance and the chance of at least it, and the mean
    (the first ``DICE_ROWS`` totals, the rest counted)."""
    rows = list(chance["distribution"])
    lines = [f"{r['total']}: {r['chance']} (at least: {r['at_least']})" for r in rows[:DICE_ROWS]]
    if len(rows) > DICE_ROWS:
        lines.append(f"… {len(rows) - DICE_ROWS} more totals (d100 odds prints them all)")
    title = f"Odds of {chance['expression']}"
    body = embed(title, "\n".join(lines), [("Mean", str(chance["mean"]))])
    return message(embeds=[body], private=private)


def repeated_message(
    who: str, results: Sequence[CheckResult], chance: CheckOdds | None, private: bool
) -> dict[str, Any]:
    """A check rolled several times (SealDice's ``3#``): the first roll as ``roll_message``
    draws it, each other as its headline, dice, level and margin (one request, so one odds),
    within Discord's ten embeds and 6,000 characters."""
    first = roll_message(who, results[0], chance, private)
    return numbered([first, *(roll_message(who, r, chance, private) for r in results[1:])])


BRIEF = ("Dice", "Level", "Margin")  # what a repeated roll's card keeps after the first's


def numbered(messages: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Messages of one roll each as one message: the first's card whole, each other's its
    title, dice, level and margin (within Discord's ten cards and 6,000 characters), each
    title numbered; without buttons (a repeated roll's follow-ups are taken on the page)."""
    out = {k: v for k, v in messages[0].items() if k not in ("embeds", "components")}
    cards: list[dict[str, Any]] = []
    for i, found in enumerate(messages, 1):
        card = dict(found["embeds"][0])
        card["title"] = clip(f"{i}/{len(messages)} · {card['title']}", TITLE_MAX)
        if i > 1:
            card.pop("description", None)
            card["fields"] = [f for f in card.get("fields", []) if f["name"] in BRIEF]
        cards.append(card)
    out["embeds"] = cards
    return out


def report_message(
    who: str, words: str, report: Report, label: str | None, private: bool
) -> dict[str, Any]:
    """A system's own request rolled (full auto, several shots): its report's rows as fields,
    each level with its mark, its notes and its exact chances."""
    rows = [(row.label, row.text) for row in report.rows]
    rows += [("Note", note) for note in report.notes]
    rows += [(what.capitalize(), f"{pct(p)}{exact(p)}") for what, p in report.chances]
    head = f"{escaped(who)} rolled {escaped(words)}" if who else escaped(words)
    title = f"{label} · {report.title}" if label else report.title
    return message(embeds=[embed(title, head, rows)], private=private)


def word_roll_message(
    who: str, words: str, title: str, rows: Sequence[tuple[str, str]], private: bool
) -> dict[str, Any]:
    """A chat-bot word's roll that is no check (SealDice's ``.sc``, ``.en``): its lines as
    fields."""
    head = f"{escaped(who)} rolled {escaped(words)}" if who else escaped(words)
    return message(
        embeds=[embed(title, head, [(escaped(a), escaped(b)) for a, b in rows])], private=private
    )


def odds_message(
    request: Mapping[str, Any], chance: CheckOdds | ContestOdds, private: bool
) -> dict[str, Any]:
    system = REGISTRY.get(str(request["system"]))
    asked = escaped(inputs_text(dict(request)))
    if isinstance(chance, CheckOdds):
        fields = [
            (level_words(chance.system, level), f"{pct(p)} ({frac(p)})")
            for level, p in chance.levels.items()
        ]
        fields.append(("Any success", f"{pct(chance.success)} ({frac(chance.success)})"))
        if chance.luck_spent is not None:
            fields.append(("Luck spent, on average", f"{float(chance.luck_spent):.2f}"))
        return message(
            embeds=[embed(f"{system.title}: exact odds", asked, fields)], private=private
        )
    rows = [
        (names_of(k, ("actor", "opponent")), f"{pct(v)} ({frac(v)})")
        for k, v in chance.winner.items()
    ]
    return message(
        embeds=[embed(f"{system.title} contest: exact odds", asked, rows)], private=private
    )


def advice_message(
    request: Mapping[str, Any], options: Sequence[Option], private: bool
) -> dict[str, Any]:
    """Every option, best chance of success first, with its gain and cost."""
    system = REGISTRY.get(str(request["system"]))
    fields = []
    for option in options:
        gain = pct(option.gain)
        gain = gain if gain.startswith(("-", "<", ">")) else f"+{gain}"
        value = f"success {pct(option.odds.success)} ({gain}) · costs {option.cost}"
        fields.append((option.name, value))
    return message(
        embeds=[
            embed(
                f"{system.title}: every option",
                escaped(inputs_text(dict(request))),
                fields,
                "best chance first",
            )
        ],
        private=private,
    )


# an internal name in a refusal: a request's key (``bonus_dice_method``, ``target_id``) or a
# path to one (``actor.skill``)
INTERNAL = re.compile(r"\b[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+\b")


def in_words(text: str) -> str:
    """A refusal in a person's words: internal names read as words ("bonus dice method",
    "target", "actor skill"), so nothing shows as a raw key or a Markdown escape."""
    return INTERNAL.sub(lambda m: re.sub(r"[_.]", " ", m.group(0)).removesuffix(" id"), text)


def error_message(text: str) -> dict[str, Any]:
    """A refusal, to the one who typed it: what was wrong, the value and what is allowed."""
    return message(clip(f"⚠️ {escaped(in_words(text))}", CONTENT_MAX), private=True)


def busy_message(seconds: int) -> dict[str, Any]:
    return message(f"Busy, try again in {max(1, seconds)} s.", private=True)


def failed_message() -> dict[str, Any]:
    return message("Something went wrong on the table server (it is logged there).", private=True)


def ledger_message(card: Mapping[str, Any], shown_to: str, private: bool) -> dict[str, Any]:
    """A luck ledger's card (``render.ledger_views.LedgerCard``, as the server built it): a
    field per level, seen against expected, the successes', and the tail in words."""
    rows = [*card["rows"], card["successes"]]
    fields = [
        (
            f"{escaped(r['label'])}"
            + (f" ({r['system']})" if card["several"] and r["system"] else ""),
            f"{r['observed']} seen, {r['expected']} expected"
            + (f" ({r['exact']})" if r["exact"] else ""),
        )
        for r in (rows if card["rolls"] else [])
    ]
    said = [f"**{escaped(card['tail'])}**", *(escaped(p) for p in card["verdict"])]
    left = [escaped(p) for p in card["left_out"]]
    return message(
        embeds=[
            embed(
                escaped(card["title"]),
                "\n".join(said),
                fields,
                " · ".join([escaped(card["summary"]), shown_to, *left]),
                COLOURS.get(card["successes"]["style"], PLAIN),
            )
        ],
        private=private,
    )
