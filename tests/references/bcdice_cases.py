"""BCDice (bcdice-js 4.9.0 = BCDice 3.16.1) as an oracle for coc7, coc6 and rqg.

The cases are questions put to BCDice through ``bcdice_oracle.mjs`` (a command and the values
its mocked randomizer returns, as BCDice's own test data gives them), each beside the d100
request that asks the same thing. BCDice's answer (its result text and flags) is read into an
expected partial d100 result; nothing here decides a level itself.

``python -m tests.references.bcdice_cases`` (from the repository, with bcdice installed by
``npm ci --prefix tests/references/node``) records the answers into ``data/<system>.jsonl``,
replacing that file's BCDice records and keeping the others; the live tests ask BCDice again
and check the recorded answers are still its answers.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
DRIVER = HERE / "bcdice_oracle.mjs"
PACKAGE = HERE / "node" / "node_modules" / "bcdice" / "package.json"
VERSION = "3.16.1"
PREFIX = f"bcdice {VERSION}"

# Grid of targets the references were run on (EDITIONS.md section 0).
TARGETS = [*range(1, 101), 101, 120, 150, 200]

COC7_LEVELS = {
    "クリティカル": "critical",
    "イクストリーム成功": "extreme",
    "ハード成功": "hard",
    "レギュラー成功": "regular",
    "失敗": "failure",
    "ファンブル": "fumble",
}
COC7_DIFFICULTY = {"r": "regular", "h": "hard", "e": "extreme", "c": "critical"}
COC6_LEVELS = {
    "決定的成功/スペシャル": "critical_special",
    "決定的成功": "critical",
    "スペシャル": "special",
    "成功": "success",
    "失敗": "failure",
    "致命的失敗": "fumble",
    "故障": "broken",
    "致命的失敗/故障": "fumble_broken",
}
RQG_LEVELS = {
    "決定的成功": "critical",
    "効果的成功": "special",
    "成功": "success",
    "失敗": "failure",
    "ファンブル": "fumble",
}
COMBINED = {"成功": True, "部分的成功": False, "失敗": False}
EDITION_OF = {
    "Cthulhu7th": "coc7",
    "PulpCthulhu": "coc7",
    "Cthulhu": "coc6",
    "RuneQuestRoleplayingInGlorantha": "rqg",
}


class BcdiceMissing(RuntimeError):
    pass


def unavailable() -> str | None:
    """Why the live oracle cannot run here, or None."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not PACKAGE.exists():
        return "bcdice is not installed (npm ci --prefix tests/references/node)"
    return None


def _node(args: list[str], stdin: str | None = None) -> Any:
    reason = unavailable()
    if reason:
        raise BcdiceMissing(reason)
    done = subprocess.run(
        ["node", str(DRIVER), *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"bcdice_oracle.mjs failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def version() -> str:
    reason = unavailable()
    if reason:
        raise BcdiceMissing(reason)
    done = subprocess.run(
        ["node", str(DRIVER), "--version"], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_data(system: str) -> list[dict[str, Any]]:
    """BCDice's own test cases for ``system``, as the installed package ships them."""
    tests: list[dict[str, Any]] = _node(["--test-data", system])["tests"]
    return tests


def ask(system: str, questions: list[tuple[str, list[int]]]) -> list[dict[str, Any]]:
    """BCDice's answers to (command, rands) questions, in order."""
    cases = [{"command": c, "rands": r} for c, r in questions]
    answer = _node([], json.dumps({"system": system, "cases": cases}))
    if answer["version"] != VERSION:
        raise RuntimeError(f"bcdice {answer['version']} installed, the data is {VERSION}")
    results: list[dict[str, Any]] = answer["results"]
    return results


# --- reading BCDice's answers --------------------------------------------------------------


ARROW = "\uff1e"  # BCDice's separator between the steps of a result, a full-width ">"


def segments(text: str) -> list[str]:
    return [s.strip() for s in text.split(ARROW)]


def d10(digit: int) -> int:
    """The value a d10 call returns for a digit (BCDice reads 10 as 0)."""
    return digit or 10


D10_RANDS = "the tens d10 and the units d10 of r, a 0 digit as 10"


def coc7_rands(values: list[int]) -> list[int]:
    """Cthulhu7th's calls for d100 values sharing their units: each tens d10, then the units."""
    units = {v % 10 for v in values}
    assert len(units) == 1, values
    return [d10((v // 10) % 10) for v in values] + [d10(units.pop())]


def coc7_values(rands: list[int], n: int) -> list[int]:
    """The d100 values of Cthulhu7th's n tens calls and one units call (0 and 10 read as 0)."""
    units = rands[n] % 10
    out = []
    for t in rands[:n]:
        v = (t % 10) * 10 + units
        out.append(v or 100)
    return out


def coc7_expect(out: dict[str, Any], difficulty: str | None) -> dict[str, Any]:
    seg = segments(out["text"])
    if difficulty is None:
        return {"level": COC7_LEVELS[seg[-1]], "success": bool(out["success"])}
    # With a difficulty BCDice says only success or failure, and flags criticals and fumbles.
    expect: dict[str, Any] = {"success": bool(out["success"])}
    if out["critical"]:
        expect["level"] = "critical"
    elif out["fumble"]:
        expect["level"] = "fumble"
    else:
        expect["level_not"] = ["critical", "fumble"]
    return expect


def combined_expect(out: dict[str, Any], levels: dict[str, str]) -> dict[str, Any]:
    seg = segments(out["text"])
    m = re.fullmatch(r"(\d+)\[(.+),(.+)\]", seg[-2])
    assert m, out["text"]
    return {
        "roll": int(m.group(1)),
        "success": COMBINED[seg[-1]],
        "combined": [{"level": levels[m.group(2)]}, {"level": levels[m.group(3)]}],
    }


def coc6_expect(out: dict[str, Any]) -> dict[str, Any]:
    seg = segments(out["text"])
    if seg[-1] in ("自動成功", "自動失敗"):
        return {"success": seg[-1] == "自動成功", "roll": None, "dice": []}
    return {"level": COC6_LEVELS[seg[-1]], "success": bool(out["success"]), "roll": int(seg[-2])}


def rqg_expect(out: dict[str, Any]) -> dict[str, Any]:
    seg = segments(out["text"])
    if len(seg) == 2:  # (1D100<=0) > failure: no roll is read
        return {"level": RQG_LEVELS[seg[-1]], "success": False, "roll": None}
    return {"level": RQG_LEVELS[seg[-1]], "success": bool(out["success"]), "roll": int(seg[-2])}


def target_of(text: str) -> list[int]:
    m = re.match(r"\(1[dD]100<=(-?\d+)(?:,(-?\d+))?\)", text)
    assert m, text
    return [int(g) for g in m.groups() if g is not None]


# --- the questions -------------------------------------------------------------------------


@dataclass
class Probe:
    """One question to BCDice and the d100 request asking the same; a row groups the probes
    of one grid row (the same request over r = 1..100)."""

    source: str
    command: str
    rands: list[int]
    request: dict[str, Any]
    read: Callable[[dict[str, Any]], dict[str, Any]]
    row: str | None = None
    r: int | None = None
    reference: dict[str, Any] = field(default_factory=dict)
    note: str | None = None


def coc7_probes() -> Iterator[Probe]:
    grid = f"{PREFIX} Cthulhu7th CC<=T grid"
    for t in TARGETS:
        for suffix in ("", "r", "h", "e", "c"):
            difficulty = COC7_DIFFICULTY.get(suffix)
            command = f"CC<={t}{suffix}"
            request: dict[str, Any] = {"system": "coc7", "skill": t}
            if difficulty:
                request["difficulty"] = difficulty
            if difficulty == "critical":  # BCDice's reading of critical difficulty (decision 2)
                request["house_rules"] = {"critical_difficulty_fumbles": True}
            for r in range(1, 101):
                yield Probe(
                    grid,
                    command,
                    coc7_rands([r]),
                    request,
                    lambda o, d=difficulty: coc7_expect(o, d),
                    row=command,
                    r=r,
                )
    pools = f"{PREFIX} Cthulhu7th CC(n)<=T pools"
    rng = random.Random(7)  # fixed: the same questions every time they are recorded
    for i in range(400):
        n = rng.choice([-2, -1, 1, 2])
        t = rng.choice([rng.randint(1, 99), rng.randint(1, 99), rng.choice([5, 10, 49, 50, 100])])
        suffix = rng.choice(["", "", "r", "h", "e", "c"])
        units = rng.randint(0, 9)
        values = [(rng.randint(0, 9) * 10 + units) or 100 for _ in range(abs(n) + 1)]
        if i % 10 == 0:  # some pools holding 00 and 01-09
            values[0] = 100 if units == 0 else units
        command = f"CC({n:+d})<={t}{suffix}"
        request = {"system": "coc7", "skill": t, "dice": values}
        request["bonus_dice" if n > 0 else "penalty_dice"] = abs(n)
        difficulty = COC7_DIFFICULTY.get(suffix)
        if difficulty:
            request["difficulty"] = difficulty
        if difficulty == "critical":
            request["house_rules"] = {"critical_difficulty_fumbles": True}

        def read(o: dict[str, Any], d: str | None = difficulty) -> dict[str, Any]:
            return {**coc7_expect(o, d), "roll": int(segments(o["text"])[-2])}

        yield Probe(pools, command, coc7_rands(values), request, read)
    combined = f"{PREFIX} Cthulhu7th CBR(x,y) grid"
    for x, y in [(70, 30), (30, 70), (50, 50), (25, 1), (90, 40), (10, 90), (99, 49), (120, 5)]:
        command = f"CBR({x},{y})"
        request = {"system": "coc7", "skill": x, "combined": [y]}
        for r in range(1, 101):
            yield Probe(
                combined,
                command,
                [r],
                request,
                lambda o: combined_expect(o, COC7_LEVELS),
                row=command,
                r=r,
            )


def coc6_probes() -> Iterator[Probe]:
    for command_name, fives in (("CC", False), ("CCB", True)):
        rules = {"house_rules": {"fives": True}} if fives else {}
        grid = f"{PREFIX} Cthulhu {command_name}<=T grid"
        for t in TARGETS:
            command = f"{command_name}<={t}"
            request = {"system": "coc6", "skill": t, **rules}
            for r in range(1, 101):
                yield Probe(grid, command, [r], request, coc6_expect, row=command, r=r)
        broken = f"{PREFIX} Cthulhu {command_name}(x)<=T malfunction grid"
        for x in (50, 90, 95, 96, 98, 100):
            for t in (30, 60, 95, 99, 120):
                command = f"{command_name}({x})<={t}"
                request = {"system": "coc6", "skill": t, "malfunction": x, **rules}
                for r in range(1, 101):
                    yield Probe(broken, command, [r], request, coc6_expect, row=command, r=r)
        res = f"{PREFIX} Cthulhu RES{'B' if fives else ''}(A-P) grid"
        for a, p in [(12 + d, 12) for d in range(-11, 12)] + [(3, 18), (18, 3), (1, 21)]:
            command = f"RES{'B' if fives else ''}({a}-{p})"
            request = {"system": "coc6", "resistance": {"active": a, "passive": p}, **rules}
            if not 5 <= 50 + 5 * (a - p) <= 95:  # automatic: no die is read
                yield Probe(res, command, [], request, coc6_expect)
                continue
            for r in range(1, 101):
                yield Probe(res, command, [r], request, coc6_expect, row=command, r=r)
        combined = f"{PREFIX} Cthulhu CBR{'B' if fives else ''}(x,y) grid"
        for x, y in [(70, 30), (30, 70), (98, 50), (70, 2), (90, 99), (120, 4)]:
            command = f"CBR{'B' if fives else ''}({x},{y})"
            request = {"system": "coc6", "skill": x, "combined": [y], **rules}
            for r in range(1, 101):
                yield Probe(
                    combined,
                    command,
                    [r],
                    request,
                    lambda o: combined_expect(o, COC6_LEVELS),
                    row=command,
                    r=r,
                )


def rqg_request(s: int) -> dict[str, Any]:
    """The chance s as a request: a skill, with a negative chance as a modifier on skill 0."""
    if s >= 0:
        return {"system": "rqg", "skill": s}
    return {"system": "rqg", "skill": 0, "modifiers": [s]}


def rqg_probes() -> Iterator[Probe]:
    grid = f"{PREFIX} RuneQuestRoleplayingInGlorantha RQG<=S grid"
    for s in [*TARGETS, 540, 1000]:
        command = f"RQG<={s}"
        for r in range(1, 101):
            yield Probe(grid, command, [r], rqg_request(s), rqg_expect, row=command, r=r)
    low = f"{PREFIX} RuneQuestRoleplayingInGlorantha RQG<=S zero and below"
    for s in (0, -1, -5, -10, -11, -20, -30, -50, -99):
        command = f"RQG<={s}"
        request = {**rqg_request(s), "house_rules": {"zero_chance": "fail"}}
        if s == 0:  # BCDice rolls but reads no die: failure whatever it is
            yield Probe(low, command, [50], request, rqg_expect, note="BCDice reads no die")
            continue
        for r in range(1, 101):
            yield Probe(low, command, [r], request, rqg_expect, row=command, r=r)
    res = f"{PREFIX} RuneQuestRoleplayingInGlorantha RES(A-P)m grid"
    pairs = [(13 + d, 13) for d in range(-12, 13)] + [(3, 18), (21, 1)]
    for (a, p), m in [(pair, 0) for pair in pairs] + [
        ((10, 10), 20),
        ((10, 10), -20),
        ((9, 20), 20),
        ((9, 19), -10),
        ((9, 19), -30),
        ((12, 10), 35),
        ((25, 5), 0),
    ]:
        command = f"RES({a}-{p})" + (f"m{m}" if m else "")
        request: dict[str, Any] = {"system": "rqg", "resistance": {"active": a, "passive": p}}
        if m:
            request["modifiers"] = [m]
        t = 50 + 5 * max(a - p, -10) + m
        if t < 0:  # BCDice's reading of a chance below 0 (conflict 2)
            request["house_rules"] = {"zero_chance": "fail"}
        for r in range(1, 101):
            yield Probe(res, command, [r], request, rqg_expect, row=command, r=r)


def random_probes(edition: str, rng: random.Random, n: int) -> Iterator[Probe]:
    """Questions not recorded anywhere, for the live test to put to BCDice and d100 alike."""
    source = f"{PREFIX} random questions"
    for _ in range(n):
        t = rng.choice([rng.randint(1, 100), rng.randint(1, 100), rng.randint(101, 300)])
        r = rng.randint(1, 100)
        if edition == "coc7":
            k = rng.choice([-2, -1, 0, 0, 1, 2])
            suffix = rng.choice(["", "", "r", "h", "e", "c"])
            units = rng.randint(0, 9)
            values = [(rng.randint(0, 9) * 10 + units) or 100 for _ in range(abs(k) + 1)]
            difficulty = COC7_DIFFICULTY.get(suffix)
            request: dict[str, Any] = {"system": "coc7", "skill": t, "dice": values}
            if k:
                request["bonus_dice" if k > 0 else "penalty_dice"] = abs(k)
            if difficulty:
                request["difficulty"] = difficulty
            if difficulty == "critical":
                request["house_rules"] = {"critical_difficulty_fumbles": True}

            def read7(o: dict[str, Any], d: str | None = difficulty) -> dict[str, Any]:
                return {**coc7_expect(o, d), "roll": int(segments(o["text"])[-2])}

            yield Probe(source, f"CC({k:+d})<={t}{suffix}", coc7_rands(values), request, read7)
        elif edition == "coc6":
            name, rules = rng.choice([("CC", {}), ("CCB", {"house_rules": {"fives": True}})])
            if rng.random() < 0.3:
                a, p = rng.randint(1, 21), rng.randint(1, 21)
                request = {"system": "coc6", "resistance": {"active": a, "passive": p}, **rules}
                auto = not 5 <= 50 + 5 * (a - p) <= 95
                if not auto:
                    request["dice"] = [r]
                command = f"RES{'B' if rules else ''}({a}-{p})"
                yield Probe(source, command, [] if auto else [r], request, coc6_expect)
                continue
            request = {"system": "coc6", "skill": t, "dice": [r], **rules}
            x = rng.choice([None, None, rng.randint(50, 100)])
            if x:
                request["malfunction"] = x
            command = f"{name}{f'({x})' if x else ''}<={t}"
            yield Probe(source, command, [r], request, coc6_expect)
        else:
            if rng.random() < 0.3:
                a, p, m = rng.randint(1, 25), rng.randint(1, 25), rng.choice([0, 0, 10, -10, 20])
                request = {"system": "rqg", "resistance": {"active": a, "passive": p}, "dice": [r]}
                if m:
                    request["modifiers"] = [m]
                if 50 + 5 * max(a - p, -10) + m < 0:
                    request["house_rules"] = {"zero_chance": "fail"}
                command = f"RES({a}-{p})" + (f"m{m}" if m else "")
                yield Probe(source, command, [r], request, rqg_expect)
                continue
            yield Probe(source, f"RQG<={t}", [r], {**rqg_request(t), "dice": [r]}, rqg_expect)


PROBES: dict[str, tuple[str, Callable[[], Iterator[Probe]]]] = {
    "coc7": ("Cthulhu7th", coc7_probes),
    "coc6": ("Cthulhu", coc6_probes),
    "rqg": ("RuneQuestRoleplayingInGlorantha", rqg_probes),
}


# --- BCDice's own test data ----------------------------------------------------------------


def _command(raw: str) -> str:
    return raw.split()[0] if raw.split() else raw


def from_test_data(system: str, index: int, test: dict[str, Any]) -> Probe | None:
    """The d100 question a BCDice test case asks, where d100 has one; else None."""
    command = _command(test["input"])
    rands = [r["value"] for r in test["rands"]]
    text = test["output"] or ""
    source = f"{PREFIX} {system} test data #{index}"
    plain = command.upper().lstrip("S") if command.upper().startswith("S") else command.upper()
    if not re.match(r"\(1[dD]100<=", text):
        return None  # a bare roll, a table, an error: nothing d100 judges
    if system in ("Cthulhu7th", "PulpCthulhu"):
        if plain.startswith("CBR"):
            x, y = target_of(text)
            request = {"system": "coc7", "skill": x, "combined": [y], "dice": rands}
            return Probe(source, command, rands, request, lambda o: combined_expect(o, COC7_LEVELS))
        m = re.fullmatch(r"CC\(?([+-]?\d+)?\)?(?:<=(\d+)([RHEC])?)?", plain)
        pool = re.search(r"ボーナス・ペナルティダイス\[(-?\d+)\]", text)
        if not m or not m.group(2) or int(m.group(2)) == 0 or not pool:
            return None
        n = int(pool.group(1))
        if abs(n) > 2:
            return None
        difficulty = COC7_DIFFICULTY.get((m.group(3) or "").lower())
        request = {
            "system": "coc7",
            "skill": int(m.group(2)),
            "dice": coc7_values(rands, abs(n) + 1),
        }
        if n:
            request["bonus_dice" if n > 0 else "penalty_dice"] = abs(n)
        if difficulty:
            request["difficulty"] = difficulty
        if difficulty == "critical":
            request["house_rules"] = {"critical_difficulty_fumbles": True}

        def read7(o: dict[str, Any], d: str | None = difficulty) -> dict[str, Any]:
            return {**coc7_expect(o, d), "roll": int(segments(o["text"])[-2])}

        return Probe(source, command, rands, request, read7)
    if system == "Cthulhu":
        fives = {"house_rules": {"fives": True}}
        m = re.fullmatch(r"(CCB|CC|CBRB|CBR|RESB|RES)(.*)", plain)
        if not m:
            return None
        kind, rest = m.groups()
        rules = fives if kind.endswith("B") else {}
        if kind in ("CBR", "CBRB"):
            x, y = target_of(text)
            request = {"system": "coc6", "skill": x, "combined": [y], "dice": rands, **rules}
            return Probe(source, command, rands, request, lambda o: combined_expect(o, COC6_LEVELS))
        if kind in ("RES", "RESB"):
            pm = re.fullmatch(r"\((\d+)-(\d+)\)", rest)
            if not pm:
                return None
            a, p = int(pm.group(1)), int(pm.group(2))
            if target_of(text) != [50 + 5 * (a - p)]:
                return None
            request = {"system": "coc6", "resistance": {"active": a, "passive": p}, **rules}
            if "自動" not in text:
                request["dice"] = rands
            return Probe(source, command, rands, request, coc6_expect)
        (t,) = target_of(text)
        bm = re.match(r"\((\d+)\)", rest)
        request = {"system": "coc6", "skill": t, "dice": rands, **rules}
        if bm:
            request["malfunction"] = int(bm.group(1))
        return Probe(source, command, rands, request, coc6_expect)
    if system == "RuneQuestRoleplayingInGlorantha":
        if plain.startswith("RQG"):
            (s,) = target_of(text)
            request = rqg_request(s)
            if s <= 0:
                request["house_rules"] = {"zero_chance": "fail"}
            if s != 0:
                request["dice"] = rands
            return Probe(source, command, rands, request, rqg_expect)
        m = re.fullmatch(r"RES\(?(\d+)-(\d+)\)?(?:M(.+))?", plain)
        if m:
            a, p = int(m.group(1)), int(m.group(2))
            (t,) = target_of(text)
            mod = t - (50 + 5 * max(a - p, -10))
            request = {"system": "rqg", "resistance": {"active": a, "passive": p}, "dice": rands}
            if mod:
                request["modifiers"] = [mod]
            return Probe(source, command, rands, request, rqg_expect)
    return None


def test_data_probes(bcdice_system: str) -> Iterator[Probe]:
    for i, test in enumerate(test_data(bcdice_system)):
        probe = from_test_data(bcdice_system, i, test)
        if probe is not None:
            yield probe


# --- recording -----------------------------------------------------------------------------


def answer(system: str, probes: list[Probe]) -> list[dict[str, Any]]:
    outs = ask(system, [(p.command, p.rands) for p in probes])
    for p, o in zip(probes, outs, strict=True):
        if o["error"] or o["text"] is None or o["unused"]:
            raise RuntimeError(f"BCDice could not answer {p.command} {p.rands}: {o}")
    return outs


# The section 8 conflict a BCDice case carrying a house rule belongs to, found by holding its
# answer against the other reference's recorded answer to the same request (house rules aside).
CONFLICT = {"coc7": 1, "rqg": 2}


def _key(request: dict[str, Any]) -> str:
    bare = {k: v for k, v in request.items() if k not in ("house_rules", "dice")}
    return json.dumps(bare, sort_keys=True)


def counterparts(others: Iterable[dict[str, Any]]) -> dict[str, dict[int, dict[str, Any]]]:
    """The other references' grid rows: request (no dice, no house rules) -> r -> expect."""
    index: dict[str, dict[int, dict[str, Any]]] = {}
    for record in others:
        if "runs" in record and not record["request"].get("house_rules"):
            row = index.setdefault(_key(record["request"]), {})
            for low, high, expect in record["runs"]:
                row.update(dict.fromkeys(range(low, high + 1), expect))
    return index


def differ(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two answers cannot both hold."""
    if "success" in a and "success" in b and a["success"] != b["success"]:
        return True
    la, lb = a.get("level"), b.get("level")
    if la and lb and la != lb:
        return True
    return bool((la and la in b.get("level_not", ())) or (lb and lb in a.get("level_not", ())))


def conflict(
    edition: str, probe: Probe, expect: dict[str, Any], index: dict[str, dict[int, dict[str, Any]]]
) -> int | None:
    if not probe.request.get("house_rules") or edition not in CONFLICT:
        return None
    row = index.get(_key(probe.request))
    if row is None:
        return None
    dice = probe.request.get("dice")
    if probe.r is not None:
        rolls = [probe.r]
    elif dice is None:
        rolls = sorted(row)  # no die read: it conflicts if any roll would answer otherwise
    elif len(dice) == 1:
        rolls = dice
    else:
        return None
    return CONFLICT[edition] if any(differ(expect, row[r]) for r in rolls if r in row) else None


def records(
    edition: str,
    probes: Iterable[Probe],
    outs: Iterable[dict[str, Any]],
    index: dict[str, dict[int, dict[str, Any]]],
) -> list[dict[str, Any]]:
    """Records for the data file: single cases, and grid rows folded into runs."""
    out: list[dict[str, Any]] = []
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for probe, answer_ in zip(probes, outs, strict=True):
        expect = probe.read(answer_)
        number = conflict(edition, probe, expect, index)
        if probe.row is None:
            record: dict[str, Any] = {
                "source": probe.source,
                "reference": {"command": probe.command, "rands": probe.rands},
                "output": answer_["text"],
                "request": probe.request,
                "expect": expect,
            }
            if number:
                record["conflict"] = number
            if probe.note:
                record["note"] = probe.note
            out.append(record)
            continue
        key = (probe.source, probe.row)
        if key not in rows:
            rows[key] = {
                "source": probe.source,
                "reference": {
                    "command": probe.command,
                    "rands": "[r]" if probe.rands == [probe.r] else D10_RANDS,
                },
                "request": probe.request,
                "roll": "die",
                "runs": [],
            }
            out.append(rows[key])
        assert probe.r is not None
        got = expect.pop("roll", probe.r)
        assert got == probe.r, (probe.command, probe.r, got)
        if number:
            expect["conflict"] = number
        runs = rows[key]["runs"]
        if runs and runs[-1][2] == expect and runs[-1][1] == probe.r - 1:
            runs[-1][1] = probe.r
        else:
            runs.append([probe.r, probe.r, expect])
    return out


Rolls = dict[tuple[str, str], set[int]]


def build(
    edition: str, others: list[dict[str, Any]], rolls: Rolls | None = None
) -> list[dict[str, Any]]:
    """The BCDice records of an edition, asked afresh; ``others`` are the file's other records.
    With ``rolls`` (grid row -> the rolls to ask, see ``spread``) a grid row asks only those
    rolls, and its runs fold over them alone, as ``restrict`` folds a recorded row."""
    system, probes_of = PROBES[edition]
    index = counterparts(others)
    found: list[dict[str, Any]] = []
    for bcdice_system, ed in EDITION_OF.items():
        if ed != edition:
            continue
        probes = list(test_data_probes(bcdice_system))
        found += records(edition, probes, answer(bcdice_system, probes), index)
    probes = [p for p in probes_of() if rolls is None or _asked(p, rolls)]
    found += records(edition, probes, answer(system, probes), index)
    return found


def _row_key(record: dict[str, Any]) -> tuple[str, str]:
    return record["source"], record["reference"]["command"]


def _asked(probe: Probe, rolls: Rolls) -> bool:
    if probe.row is None:
        return True
    keep = rolls.get((probe.source, probe.row))
    return keep is None or probe.r in keep  # a row recorded nowhere is asked whole


def spread(recorded: Iterable[dict[str, Any]]) -> Rolls:
    """For each recorded grid row, the rolls a quicker re-asking checks: both ends of every
    run (so a boundary that moved either way shows) and every tenth roll from an offset the
    row's name picks (so the rows together cover every roll)."""
    rolls: Rolls = {}
    for record in recorded:
        if "runs" not in record:
            continue
        key = _row_key(record)
        offset = zlib.crc32(json.dumps(key).encode()) % 10
        keep = set(range(1 + offset, 101, 10))
        for low, high, _ in record["runs"]:
            keep |= {low, high}
        rolls[key] = keep
    return rolls


def restrict(record: dict[str, Any], rolls: Rolls) -> dict[str, Any]:
    """A recorded grid row folded over the rolls ``rolls`` keeps of it, as ``records`` folds
    the answers to those rolls alone; any other record as it is."""
    if "runs" not in record:
        return record
    keep = rolls[_row_key(record)]
    runs: list[list[Any]] = []
    for low, high, expect in record["runs"]:
        for r in range(low, high + 1):
            if r not in keep:
                continue
            if runs and runs[-1][2] == expect and runs[-1][1] == r - 1:
                runs[-1][1] = r
            else:
                runs.append([r, r, expect])
    return {**record, "runs": runs}


def others(edition: str) -> list[dict[str, Any]]:
    """The records of an edition's data file that come from other references."""
    from tests.references.cases import DATA

    path = DATA / f"{edition}.jsonl"
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    found = [json.loads(line) for line in lines if line.strip()]
    return [r for r in found if not r["source"].startswith("bcdice ")]


def recorded(edition: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The BCDice records of an edition's data file, with their line numbers."""
    from tests.references.cases import records as all_records

    for n, record in all_records(edition):
        if record["source"].startswith("bcdice "):
            yield n, record


def write(edition: str, recorded: list[dict[str, Any]], kept: list[dict[str, Any]]) -> Path:
    from tests.references.cases import DATA

    path = DATA / f"{edition}.jsonl"
    lines = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in recorded + kept]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main() -> None:
    for edition in PROBES:
        kept = others(edition)
        recorded = build(edition, kept)
        print(write(edition, recorded, kept), len(recorded), "BCDice records")


if __name__ == "__main__":
    main()
