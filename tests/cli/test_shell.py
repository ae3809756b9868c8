"""``d100 shell`` driven through a pty, as a person at the table would type."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect

from d100.sheets import load

PROMPT = "d100> "


def test_a_session_at_the_table(party: Path, tmp_path: Path) -> None:  # rule: BRP7, CH11
    log = tmp_path / "session.jsonl"
    env = {k: v for k, v in os.environ.items() if k not in ("D100_SHEET",)}
    env["NO_COLOR"] = "1"
    env["XDG_STATE_HOME"] = env["XDG_CONFIG_HOME"] = str(tmp_path)  # no history in $HOME
    child = pexpect.spawn(
        sys.executable,
        ["-m", "d100", "shell", "--sheet", str(party), "--log", str(log), "--seed", "1"],
        env=env,
        encoding="utf-8",
        timeout=20,
        dimensions=(40, 200),
    )
    child.expect_exact(PROMPT)
    child.sendline("alice stealth hard @42")
    child.expect_exact("level    FAILURE  margin -17")
    child.expect_exact(PROMPT)
    child.send("ali\t")  # tab completes the character...
    child.expect_exact("alice ")
    child.send("ste\t")  # ...and the skill
    child.expect_exact("stealth")
    child.sendline("boost @07")  # the completion ended in a space
    child.expect_exact("alice spent 1 Luck: 1/13 left")
    child.expect_exact(PROMPT)
    child.sendline("carol vs dara sneak")  # Sneaking is opposed by Hearing (CH11)
    child.expect("Taking Chances contest: (carol|dara) wins")
    child.expect_exact(PROMPT)
    child.sendline("alcie stealth")
    child.expect_exact("did you mean 'alice'?")
    child.expect_exact(PROMPT)
    child.sendline("odds bob listen")
    child.expect_exact("any success  55.00%  11/20")
    child.expect_exact(PROMPT)
    child.sendline("history")
    child.expect_exact("2  alice stealth boost @07")
    child.expect_exact(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    entries = [json.loads(x) for x in log.read_text().splitlines()]
    assert [(e["who"], e["skill"]) for e in entries] == [
        ("alice", "stealth"),
        ("alice", "stealth"),
        ("carol vs dara", "sneaking/hearing"),
    ]
    assert entries[1]["result"]["luck_spent"] == 1
    luck = load(party).get("alice").luck
    assert luck is not None and luck.current == 1
