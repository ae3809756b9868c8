"""Results, odds and advice as Discord messages: the level in words with its declared mark,
the dice with the kept one, the target and its bands, and the exact odds, in the words the
command line uses (``d100.render.checks``). Every text is clipped to Discord's limits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..advise import Option
from ..declarations import LevelSpec
from ..errors import D100Error
from ..render.checks import bands_text, dice_segments, inputs_text, margin_text, names_of
from ..render.view import frac, pct
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


def colour(system: str, level: str) -> int:
    spec = _spec(system, level)
    return COLOURS.get(spec.style, PLAIN) if spec is not None else PLAIN


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


def _dice(result: CheckResult) -> str:
    return "".join(text for text, _ in dice_segments(result)).strip()


def _odds_lines(chance: CheckOdds, chosen: str | None = None) -> str:
    lines = []
    for level, p in chance.levels.items():
        if not p and level != chosen:
            continue  # a level this request cannot reach
        text = f"{level_words(chance.system, level)} {pct(p)} ({frac(p)})"
        lines.append(f"**{text}**" if level == chosen else text)
    return "\n".join(lines)


def check_fields(result: CheckResult, chance: CheckOdds | None) -> list[tuple[str, str]]:
    """A check's fields: dice, target and bands, level and meaning, margin, the odds."""
    spec = _spec(result.system, result.level)
    meaning = spec.meaning if spec is not None else ""
    margin = margin_text(result)
    fields = [
        ("Dice", _dice(result)),
        (REGISTRY.get(result.system).declares.words.target.capitalize(), f"{result.target}"),
        ("Bands", bands_text(result)),
        ("Level", f"{level_words(result.system, result.level)}: {meaning}".rstrip(": ")),
        ("Margin", margin),
    ]
    if chance is not None:
        p = chance.levels.get(result.level)
        if p is not None:
            fields.append(("This level", f"{pct(p)} ({frac(p)})"))
        fields.append(("Any success", f"{pct(chance.success)} ({frac(chance.success)})"))
        fields.append(("Every level", _odds_lines(chance, result.level)))
    if result.luck_spent:
        fields.append(("Luck", f"spent {result.luck_spent}"))
    for i, helper in enumerate(result.helpers, 1):
        fields.append((f"Helper {i}", helper.explanation))
    for other in result.combined:
        fields.append(
            ("Also judged", f"{level_words(other.system, other.level)}: {other.explanation}")
        )
    if result.note:
        fields.append(("Note", result.note))
    fields.append(("Why", result.explanation))
    return fields


def roll_message(
    who: str,
    result: CheckResult | ContestResult,
    chance: CheckOdds | ContestOdds | None,
    private: bool,
) -> dict[str, Any]:
    """A rolled check or contest, ``who`` naming the roller."""
    system = REGISTRY.get(result.system)
    asked = inputs_text(thawed(result.request))
    if isinstance(result, CheckResult):
        assert chance is None or isinstance(chance, CheckOdds)
        title = f"{level_words(result.system, result.level)} · {system.title} check"
        body = embed(
            title,
            f"{escaped(who)} rolled {escaped(asked)}" if who else escaped(asked),
            check_fields(result, chance),
            hue=colour(result.system, result.level),
        )
        return message(embeds=[body], private=private)
    assert chance is None or isinstance(chance, ContestOdds)
    names = ("actor", "opponent")
    winner = {"actor": "actor", "opponent": "opponent"}.get(result.winner)
    verdict = f"{winner} wins" if winner else ("tie" if result.winner == "tie" else "nobody wins")
    if result.degree:
        verdict += f" ({result.degree})"
    fields: list[tuple[str, str]] = []
    for name, side in zip(names, (result.actor, result.opponent), strict=True):
        fields.append(
            (
                f"{name}: {level_words(side.system, side.level)}",
                f"dice {_dice(side)} · target {side.target} · margin {margin_text(side)}",
            )
        )
    if chance is not None:
        odds = [f"{names_of(k, names)} {pct(v)} ({frac(v)})" for k, v in chance.winner.items()]
        fields.append(("Odds", "\n".join(odds)))
    fields.append(("Why", result.explanation))
    head = f"{escaped(who)} rolled a contest" if who else "A contest"
    return message(
        embeds=[embed(f"{system.title} contest: {verdict}", head, fields)], private=private
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


def error_message(text: str) -> dict[str, Any]:
    """A refusal, to the one who typed it: what was wrong, the value and what is allowed."""
    return message(clip(f"⚠️ {escaped(text)}", CONTENT_MAX), private=True)


def busy_message(seconds: int) -> dict[str, Any]:
    return message(f"Busy, try again in {max(1, seconds)} s.", private=True)


def failed_message() -> dict[str, Any]:
    return message("Something went wrong on the table server (it is logged there).", private=True)
