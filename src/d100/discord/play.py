"""``/r character skill [words]``: a roll as one of the user's characters at the channel's
table, made by the server's own roll path (``server/rolls.py``: the same event, provable
dice, log and refusals as the web page's). Its messages are built from the event as a viewer
sees it (``access.view_event``): the channel gets what a plain player of the table sees, so a
roll not made in public is there only as "X rolled in secret", and the roller's own view
comes to them privately."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .. import quick
from ..declarations import Command
from ..errors import D100Error
from ..render.view import pct
from ..server import characters, declared, party, rolls, spoken
from ..server.access import Viewer, may_edit, view_event, viewer_of
from ..server.errors import ApiError
from ..server.events import headed
from ..server.idempotency import once
from ..server.models import Character, DiscordMember, GameTable, Member
from ..server.store import Store
from ..sheets import lookup
from ..systems.common import DICE
from .interactions import Interaction, message
from .limits import BUTTONS_PER_ROW, CONTENT_MAX, CUSTOM_ID_MAX, ROWS_MAX, clip
from .render import (
    contest_fields,
    dice_fields,
    embed,
    escaped,
    head_note,
    headline,
    hue_of,
    numbered,
    offer_fields,
    verdict,
    view_fields,
)
from .tables import channel_table, member_of, no_table

SUGGESTIONS = 25  # Discord shows at most 25 choices
FOLLOW = "f"  # a follow-up button's custom id: ``f:{table_id}:{seq}:{key}``
# the word naming the character an action is made against: ``against=Bob`` (``:fighting``)
AGAINST = "against="
# A secret roll's buttons, for its GM: ``s:{table_id}:{seq}`` shows it to them alone, and
# ``u:{table_id}:{seq}`` (a blind roll) shows it to everyone, as the page's "Show" does.
SHOW_ME, SHOW_ALL = "s", "u"
SHOWN_TO_GM = frozenset({"gm", "blind"})  # the modes a GM sees (an only-me roll is the roller's)
BUTTON_LABEL_MAX = 80
ACTION_ROW, BUTTON, SECONDARY = 1, 2, 2  # component types and a button's style


@dataclass(frozen=True)
class Offered:
    """A roll (table, seq) whose follow-ups its roller's own message offers, and that
    message's buttons once one is taken (disabled)."""

    roll: tuple[str, int]
    used: list[dict[str, Any]]


@dataclass(frozen=True)
class Rolled:
    """A roll's messages: the channel's, and the roller's own when the channel's hides it
    or it offers follow-ups."""

    public: dict[str, Any]
    own: dict[str, Any] | None = None
    offers: Offered | None = None


def _mine(session: Session, viewer: Viewer) -> list[Character]:
    rows = session.scalars(
        select(Character).where(Character.table_id == viewer.table_id).order_by(Character.name)
    )
    return [row for row in rows if may_edit(viewer, row)]


def viewer_at(session: Session, it: Interaction) -> Viewer | None:
    found = member_of(session, it)
    if found is None:
        return None
    return viewer_of(session, found[1])


def _on_sheet(rows: list[Character], name: str, skill: str) -> bool:
    """Whether ``skill`` is a skill of the character named (a check, not a declared roll)."""
    try:
        _pick(rows, name, skill)
    except ApiError:
        return False
    return True


def _acts(rows: list[Character], name: str, system: str, said: str) -> bool:
    """Whether the words ask for one of the table's actions for the character named (an
    attack with its damage, shots, full auto, FAR), led by a skill of its sheet or a number."""
    try:
        row = _pick(rows, name, None)[0]
    except ApiError:
        return False  # not the user's: the check's path says so
    return declared.acts(system, said, characters.sheet_of(row))


def _against(session: Session, viewer: Viewer, said: str) -> tuple[str, declared.Defender | None]:
    """The words without ``against=NAME[:SKILL]`` and the defender it names: a character at
    the table (any of them: their name is everyone's, their sheet is not), matched as the web
    matches names (any case, or a prefix of one name), and the skill of their sheet it reads
    (none: the one their response is made with)."""
    tokens = said.split()
    named = [t for t in tokens if t.lower().startswith(AGAINST)]
    if not named:
        return said, None
    if len(named) > 1:
        raise ApiError(422, "words", said, f"{AGAINST}NAME once", "two defenders named")
    name, _, skill = named[0][len(AGAINST) :].partition(":")
    rows = session.scalars(select(Character).where(Character.table_id == viewer.table_id))
    by_name = {r.name: r for r in rows}
    try:
        row = by_name[lookup(name, by_name, "character")]
    except D100Error:
        allowed = "a character at this table: " + (", ".join(sorted(by_name)) or "none yet")
        raise ApiError(422, "words", named[0], allowed, f"{AGAINST}: no such character") from None
    rest = " ".join(t for t in tokens if t != named[0])
    return rest, declared.Defender(row.id, skill or None)


def _pick(rows: list[Character], name: str, skill: str | None) -> tuple[Character, str]:
    """The character and skill asked for, checked again (a completion's value is typed by
    the client, and may be anything), matched as the web matches them (``sheets.lookup``:
    any letter case and spacing, or a prefix of one name): the row, and the skill as its
    sheet spells it."""
    by_name = {r.name: r for r in rows}
    try:
        row = by_name[lookup(name, by_name, "character")]
    except D100Error:
        allowed = ", ".join(by_name) or "none yet (/sheet makes one)"
        raise ApiError(
            422, "character", name, allowed, f"character: not yours; yours: {allowed}"
        ) from None
    sheet = characters.sheet_of(row)
    if skill is None:  # the character alone
        return row, ""
    try:
        return row, sheet.skill(skill)
    except D100Error:
        allowed = ", ".join(sheet.skills) or "none"
        raise ApiError(
            422, "skill", skill, allowed, f"skill: {row.name} has no such skill; has: {allowed}"
        ) from None


def roll_as(
    store: Store, it: Interaction, options: dict[str, Any], planned: rolls.Planned | None
) -> Rolled:
    """The roll, as the web API's: ``rolls.Dear`` when its odds are to be worked out first
    (then asked again with them, ``planned``)."""
    name, skill = str(options.get("character") or ""), str(options.get("skill") or "")
    visibility = str(options.get("visibility") or "public")
    with store.write() as session:
        viewer = viewer_at(session, it)
        if viewer is None:
            return Rolled(no_table())
        mine = _mine(session, viewer)
        table = session.get(GameTable, viewer.table_id)
        assert table is not None  # the channel's binding's foreign key
        said = f"{skill} {options.get('words') or ''}".strip()
        if name[:1] == ".":  # ``/r .setcoc 2``: a word of the table's, no character's
            name, said = "", f"{name} {said}".strip()
        whole = party.asks(said)
        if whole is not None:  # ``develop party``: the GM's, whichever character is named
            return _party(session, viewer, table, replace(whole, visibility=visibility), planned)
        if said[:1] == ".":  # a chat-bot word: SealDice's .ra 侦查
            spoken = Spoken(it, options, name, said, visibility)
            return _spoken(session, viewer, table, mine, spoken, planned)
        said, defender = _against(session, viewer, said)
        if (
            defender is not None
            or (declared.reads_as(said) and not _on_sheet(mine, name, skill))
            or _acts(mine, name, table.system, said)
        ):
            # dice (``/r Alice 1d6+1``), a Sanity roll (``/r Alice sc 1/1d6``) or an action
            # (``/r Alice brawl dmg=1d3+DB``, ``against=Bob``): the page's route, for the
            # character named
            made_by = _pick(mine, name, None)[0].id
            wanted = declared.DeclaredSpec(said, made_by, visibility, defender)
            done = once(
                session,
                viewer,
                key_of(it),
                {"command": it.command, **options},
                lambda: declared.roll(session, viewer, wanted, planned),
            )
            own, public = views(viewer, done.event)
            return rolled_messages(viewer.name, viewer.table_id, own, public)
        row, skill = _pick(mine, name, skill)
        try:
            extra = quick.fields(str(options.get("words") or "").split(), table.system)
        except D100Error as err:
            raise ApiError(422, "words", None, "", err.message) from None
        # dice typed by hand (``@42``) are the side's own, as the page sends them: the table
        # takes them where it allows them, and logs the roll as made by hand
        typed = extra.pop(DICE.name, None)
        side = rolls.Side(row.id, skill=skill, fields=extra, dice=typed)
        spec = rolls.RollSpec(side, None, visibility)
        asked = {"command": it.command, **options}
        done = once(
            session, viewer, key_of(it), asked, lambda: rolls.roll(session, viewer, spec, planned)
        )
        own, public = views(viewer, done.event)
    return rolled_messages(viewer.name, viewer.table_id, own, public)


def _party(
    session: Session,
    viewer: Viewer,
    table: GameTable,
    spec: party.PartySpec,
    planned: rolls.Planned | None,
) -> Rolled:
    """The whole party's development phase, the page's: its odds worked out on a worker
    first (``declared.Dear``), then every phase rolled, a card each."""
    if planned is None:
        raise declared.Dear(party.tagged(party.plan(session, viewer, table, spec)))
    phases = planned.request["request"]
    odds = [rolls.Planned(t, o) for t, o in zip(phases, planned.odds["phases"], strict=True)]
    events, _ = party.roll(session, viewer, spec, odds)
    made = [rolled_messages(viewer.name, viewer.table_id, *views(viewer, e)) for e in events]
    return made[0] if len(made) == 1 else _together(made)


@dataclass(frozen=True)
class Spoken:
    """A roll asked in a chat-bot word: the interaction, its options, the character named,
    the words and the roll mode chosen."""

    it: Interaction
    options: dict[str, Any]
    name: str
    said: str
    visibility: str


def _spoken(
    session: Session,
    viewer: Viewer,
    table: GameTable,
    mine: list[Character],
    spoken_: Spoken,
    planned: rolls.Planned | None,
) -> Rolled:
    """A chat-bot word (SealDice's ``.rah 困难侦查``) as the character's, read as the page reads
    it (``spoken``): a check of the sheet's skill, hidden (``.rah``) a secret roll, ``3#``
    rolled that many times, each its own key; a word that rolls no check (``.sc 1/1d6``,
    ``.en Library Use``) the table's declared roll for the character, its SAN or skills
    written back to the sheet as the page's."""
    found = spoken.spoken(table, spoken_.said)
    assert found is not None  # the words start with a dot
    if found.tells is not None:  # .setcoc alone: the table's rule, any member's to ask
        said = clip(escaped(spoken.tells(table, found)), CONTENT_MAX)
        return Rolled(message(said, private=spoken_.visibility != "public"))
    if found.settings or found.roll is not None:  # .setcoc 2, or .sc/.en: declared
        wanted = declared.DeclaredSpec(spoken_.said)  # .setcoc: the GM's, for no character
        if not found.settings:
            row = _pick(mine, spoken_.name, None)[0]
            wanted = declared.DeclaredSpec(spoken_.said, row.id, spoken_.visibility)
        body = {"command": spoken_.it.command, **spoken_.options}
        done = once(
            session,
            viewer,
            key_of(spoken_.it),
            body,
            lambda: declared.roll(session, viewer, wanted, planned),
        )
        if found.settings:  # the table's line for everyone
            return Rolled(message(escaped(f"{viewer.name} set {done.event.data['told']}")))
        own, public = views(viewer, done.event)
        return rolled_messages(viewer.name, viewer.table_id, own, public)
    if found.named is None:
        why = "the sheet gives the skill's value: name it alone"
        raise ApiError(
            422, "skill", None, spoken.ALLOWED, f"skill: {why}; allowed: {spoken.ALLOWED}"
        )
    row, skill = _pick(mine, _whose(spoken_.name, found), found.named)
    spec = spoken.check(table, row, skill, found, spoken_.visibility)
    made = []
    for i in range(found.repeat):  # SD-W5: each its own roll, its own key
        key = key_of(spoken_.it) + (f":{i}" if i else "")
        body = {"command": spoken_.it.command, **spoken_.options, "repeat": i}
        done = once(session, viewer, key, body, lambda: rolls.roll(session, viewer, spec, planned))
        own, public = views(viewer, done.event)
        made.append(rolled_messages(viewer.name, viewer.table_id, own, public))
    return made[0] if len(made) == 1 else _together(made)


def _whose(name: str, found: Command) -> str:
    """The character a check's word is rolled for: the one named in the command, or after
    ``@`` in the words (SealDice's ``.ra 侦查 @Bob``, SD-W5), one of the member's own either
    way (``_pick``); both, naming two, refused."""
    if found.who is None:
        return name
    if name and name.casefold() != found.who.casefold():
        why = f"two characters named: {name} and @{found.who}"
        raise ApiError(422, "character", f"@{found.who}", "one character", f"character: {why}")
    return found.who


def _together(made: list[Rolled]) -> Rolled:
    """Repeated rolls' messages as one each way: where the channel may not see them, one
    stub with its GM's buttons for each roll (numbered, as the page's log numbers each stub)
    and the roller's own cards numbered (or the one word that they are the GM's alone); else
    the channel's cards numbered."""
    if "embeds" in made[0].public:
        return Rolled(numbered([m.public for m in made]))
    own = [m.own for m in made if m.own is not None]
    mine = numbered(own) if all("embeds" in o for o in own) else own[0]
    found = [
        {**b, "label": clip(f"{b['label']} ({i}/{len(made)})", BUTTON_LABEL_MAX)}
        for i, m in enumerate(made, 1)
        for row in m.public.get("components", [])
        for b in row["components"]
    ]
    return Rolled(message(made[0].public["content"], components=button_rows(found) or None), mine)


def key_of(it: Interaction) -> str:
    """The roll's idempotency key: Discord's id of the interaction, so a payload sent again
    (Discord's retry, or anyone's replay of it) answers with the roll it made. Keys are the
    member's own (``idempotency``), and this prefix keeps them apart from a web client's."""
    return f"discord:{it.id}"


def rolled_messages(who: str, table_id: str, own: dict[str, Any], public: dict[str, Any]) -> Rolled:
    used = buttons(table_id, own, True)
    offers = Offered((table_id, int(own["seq"])), used) if used else None
    if public.get("hidden"):
        secret = secret_stub(f"{escaped(who)} rolled in secret.", table_id, own)
        return Rolled(secret, roll_view(who, own, True, table_id), offers)
    # Its follow-up offers bound the roller's Luck: the channel sees none (a plain player's
    # view has none), and the roller gets their buttons privately.
    mine = roll_view(who, own, True, table_id) if own.get("follow_ups") else None
    return Rolled(roll_view(who, public, False, table_id), mine, offers)


def secret_stub(words: str, table_id: str, seen: Mapping[str, Any]) -> dict[str, Any]:
    """The channel's message of a roll it may not see, with its GM's buttons where they
    would show them something: the ids hold the table and the roll's number only, which the
    stub's readers have (the web's stub shows the number too)."""
    visibility = seen.get("visibility")
    if visibility not in SHOWN_TO_GM:
        return message(words)
    custom = f"{table_id}:{seen['seq']}"
    found = [button("GM: show me", f"{SHOW_ME}:{custom}")]
    if visibility == "blind":
        found.append(button("Show to everyone", f"{SHOW_ALL}:{custom}"))
    return message(words, components=button_rows(found))


def roller_name(session: Session, event: Any, view: Mapping[str, Any]) -> str:
    """Who made a roll: its event's actor, or for a shown blind roll its roller."""
    shown = event.kind in ("unblind", "unblind_declared")
    rolled_by = view.get("roller_id") if shown else event.actor_id
    roller = session.get(Member, rolled_by) if rolled_by else None
    return roller.name if roller is not None else "Someone"


def channel(viewer: Viewer) -> Viewer:
    """The channel as a viewer of ``viewer``'s table: a plain player, of nothing there (who
    the GMs are tells it which characters are NPCs)."""
    return Viewer("", viewer.table_id, "player", "", viewer.gms)


def views(viewer: Viewer, event: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The event as its roller sees it, and as the channel does, each with the log's head."""
    return headed(view_event(viewer, event), event), headed(
        view_event(channel(viewer), event), event
    )


def buttons(table_id: str, view: dict[str, Any], used: bool = False) -> list[dict[str, Any]]:
    """A check's follow-ups as buttons: the ids hold only the table, the roll's number (both
    seen by whoever sees the message) and the follow-up's key. ``used``: disabled, as once
    one is taken (or the roll is followed up elsewhere) none may be taken again."""
    out = []
    for offer in view.get("follow_ups") or ():
        custom = f"{FOLLOW}:{table_id}:{view['seq']}:{offer['key']}"
        if len(custom) <= CUSTOM_ID_MAX:
            out.append(button(str(offer["label"]), custom, used))
    return button_rows(out)


def button(label: str, custom_id: str, disabled: bool = False) -> dict[str, Any]:
    found = {
        "type": BUTTON,
        "style": SECONDARY,
        "label": clip(label, BUTTON_LABEL_MAX),
        "custom_id": custom_id,
    }
    return found | {"disabled": True} if disabled else found


def button_rows(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Buttons in Discord's rows: five a row, five rows."""
    return [
        {"type": ACTION_ROW, "components": found[i : i + BUTTONS_PER_ROW]}
        for i in range(0, min(len(found), BUTTONS_PER_ROW * ROWS_MAX), BUTTONS_PER_ROW)
    ]


def declared_view(
    who: str, view: dict[str, Any], private: bool, table_id: str = ""
) -> dict[str, Any]:
    """A dice or Sanity roll's or an action's message from its view: only what this viewer's
    view holds; with ``table_id``, an action's follow-ups as buttons (its roller's own)."""
    reading = view.get("view")
    if not isinstance(reading, dict):
        return message(f"{escaped(who)} rolled; the result is the GM's alone.", private=private)
    character = view.get("character") or {}
    head = f"{escaped(who)} rolled {escaped(str(view.get('words', '')))}"
    if character.get("name"):
        head += f" as {escaped(str(character['name']))}"
    fields: list[tuple[str, str]]
    if view.get("roll") == "development":
        return message(embeds=[_development(head, view, reading)], private=private)
    if view.get("roll") == "dice":
        title = f"Total {reading['total']} · roll #{view['seq']}"
        fields = dice_fields(reading)
        return message(embeds=[embed(title, head, fields, head_note(view))], private=private)
    if "heading" in reading:  # a system's action: its report, as /roll shows one
        return _action_view(head, view, reading, private, table_id)
    level = str(reading.get("level", "")).upper()
    title = f"{reading.get('mark', '')} {level} · Sanity roll #{view['seq']}".strip()
    fields = [("Loss", str(reading.get("loss", "")))]
    if "sanity" in reading:  # all of it: not an NPC's to a player
        fields = [
            ("Dice", f"{reading['roll']:02d}"),
            ("Loss", f"{reading['loss']} ({escaped(str(reading['loss_words']))})"),
            ("SAN", f"{reading['sanity']} → {reading['sanity_after']}"),
            ("Insanity", escaped(str(reading["insanity"]))),
            ("Success", f"{reading['success_odds']} · mean loss {reading['mean_loss']}"),
        ]
        if reading.get("int_words"):
            fields.insert(3, ("INT roll", escaped(str(reading["int_words"]))))
    body = embed(title, head, fields, head_note(view), hue_of(reading))
    return message(embeds=[body], private=private)


def _action_view(
    head: str, view: dict[str, Any], reading: dict[str, Any], private: bool, table_id: str
) -> dict[str, Any]:
    """An action's message: its rows, notes and exact odds; an NPC's, to a player, what it
    came to and no more; what it follows, and what may follow it (with ``table_id``, as
    buttons)."""
    title = f"{reading.get('outcome', '')} · roll #{view['seq']}"
    fields = [("Roll", escaped(str(reading["title"])))]
    if "rows" in reading:
        fields += [(escaped(r["label"]), escaped(r["text"])) for r in reading["rows"]]
        fields += [("Note", escaped(n)) for n in reading["notes"]]
        # none in a view kept from a reader of the defender's sheet (each tells their skill)
        chances = reading.get("odds", ())
        said = " · ".join(f"{o['what']} {pct(Fraction(o['chance']))}" for o in chances)
        if said:
            fields.append(("Exact odds", escaped(said)))
    if view.get("reroll_of"):
        done = (view.get("follow_up") or {}).get("done", "Follow-up")
        spent = f": {view['luck_spent']} Luck spent" if view.get("luck_spent") else ""
        fields.append(("Follows", escaped(f"{done} of roll #{view['reroll_of']}{spent}")))
    fields += offer_fields(view)
    return message(
        embeds=[embed(title, head, fields, head_note(view))],
        private=private,
        components=buttons(table_id, view) if table_id else None,
    )


def _development(head: str, view: dict[str, Any], reading: dict[str, Any]) -> dict[str, Any]:
    """A development phase: each skill's chance to improve and mean gain beside its roll."""
    title = f"{reading.get('title', 'Development phase')} · roll #{view['seq']}"
    fields = []
    for r in reading.get("rolls", ()):
        made = f"+{r['gain']} → **{r['after']}**" if r["improved"] else "no gain"
        chance = f"improves {r['improves_percent']}, mean +{r['mean_gain']}"
        fields.append((escaped(str(r["name"])), f"{r['value']}: {chance} · {r['d100']:02d} {made}"))
    reward = reading.get("reward")
    if isinstance(reward, dict):
        fields.append((str(reward["name"]), f"{reward['before']} → {reward['after']}"))
    return embed(title, head, fields)


def roll_view(who: str, view: dict[str, Any], private: bool, table_id: str = "") -> dict[str, Any]:
    """A roll's message from an event's view: its result's view as the server built it for
    this viewer (``access.shape``), so only what that viewer may see is shown."""
    if view.get("kind") in ("declared", "unblind_declared"):  # dice or Sanity: no check's view
        return declared_view(who, view, private, table_id)
    reading = view.get("view")
    if not isinstance(reading, dict):  # the roller's own blind roll: made, not seen
        return message(f"{escaped(who)} rolled; the result is the GM's alone.", private=private)
    manual = bool(view.get("manual"))
    if "sides" in reading:  # a contest, or one shown (unblinded)
        return _contest_view(who, view, reading, manual, private)
    character = view.get("character") or {}
    head = f"{escaped(who)} rolled {escaped(str(view.get('skill', '')))}"
    if character.get("name"):
        head += f" as {escaped(str(character['name']))}"
    hazard = str((view.get("call") or {}).get("hazard") or "")
    fields = view_fields(reading, manual)
    if hazard and not reading["met"]:
        fields.insert(0, ("Hazard", escaped(hazard)))
    title = f"{headline(reading)} · roll #{view['seq']}"
    return message(
        embeds=[embed(title, head, fields, head_note(view), hue_of(reading))],
        private=private,
        components=buttons(table_id, view) if table_id else None,
    )


def _contest_view(
    who: str, view: dict[str, Any], reading: dict[str, Any], manual: bool, private: bool
) -> dict[str, Any]:
    """A contest's message: who won, and each side by its headline, with its dice and target
    where the view holds them (an NPC's side, or one the GM's call chose, has its level only)."""
    names = [str(side["name"]) for side in reading["sides"]]
    fields = contest_fields(reading, manual)
    hazard = str((view.get("call") or {}).get("hazard") or "")
    if reading["winner"] == "opponent" and hazard:
        fields.append(("Hazard", escaped(hazard)))
    head = f"{escaped(who)} rolled {escaped(str(view.get('skill', '')))} as {escaped(names[0])}"
    head += f" against {escaped(names[1])}"
    if view.get("opponent_skill"):
        head += f" ({escaped(str(view['opponent_skill']))})"
    won = verdict(reading)
    title = f"{escaped(won[:1].upper() + won[1:])} · roll #{view['seq']}"
    body = embed(title, head, fields, head_note(view), hue_of(reading))
    return message(embeds=[body], private=private)


def suggest(store: Store, it: Interaction, focused: str, typed: str) -> list[tuple[str, str]]:
    """Completions for ``/r``: the user's characters, and the chosen one's skills."""
    with store.read() as session:
        table_id = channel_table(session, it.channel_id)
        if table_id is None:
            return []
        rows = readable(session, it, table_id)
        if focused == "character":
            names = [r.name for r in rows]
        else:
            chosen = str(it.options().get("character") or "")
            row = next((r for r in rows if r.name == chosen), None)
            names = [] if row is None else list(characters.sheet_of(row).rollable)
    typed = typed.casefold()
    return [(n, n) for n in names if typed in n.casefold()][:SUGGESTIONS]


def readable(session: Session, it: Interaction, table_id: str) -> list[Character]:
    """The user's characters, without making them a member (a read: completions write
    nothing)."""
    member_id = session.scalars(
        select(DiscordMember.member_id).where(
            DiscordMember.table_id == table_id, DiscordMember.user_id == it.user_id
        )
    ).first()
    member = None if member_id is None else session.get(Member, member_id)
    if member is None or member.revoked:
        return []
    return _mine(session, viewer_of(session, member))
