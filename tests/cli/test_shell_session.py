"""``d100 shell`` as a session tool, driven through a pty: no sheet needed, skills of several
words, group tests, contest odds, and history kept between sessions."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pexpect

PROMPT = "d100> "
# Each wait is for a state (an answer on the terminal, the prompt blocked on its next key);
# this only ends a hung session, and a slow machine's start-up is well within it.
HUNG = 60


def spawn(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> pexpect.spawn:
    environ = {
        k: v for k, v in os.environ.items() if k not in ("D100_SHEET", "D100_SYSTEM", "NO_COLOR")
    }
    environ.update(
        NO_COLOR="1", XDG_STATE_HOME=str(tmp_path / "state"), XDG_CONFIG_HOME=str(tmp_path)
    )
    environ.update(env or {})
    child = pexpect.spawn(
        sys.executable,
        ["-m", "d100", "shell", "--log", str(tmp_path / "log.jsonl"), *args],
        env=environ,
        encoding="utf-8",
        timeout=HUNG,
        dimensions=(40, 200),
        # A command started in the background by a shell without job control (as a CI
        # runner's may be) ignores Ctrl-C, and the shell would inherit that: give it back.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    child.expect_exact(PROMPT)
    return child


def test_a_shell_without_a_sheet_rolls_by_numbers(tmp_path: Path) -> None:  # rule: BRP2, BRP4
    child = spawn(tmp_path, env={"D100_SYSTEM": "openquest"})
    child.sendline("brp 65 hard b1 @42,7")
    child.expect_exact("target   25")
    child.expect_exact("level    SUCCESS  margin +18")
    child.expect_exact(PROMPT)
    child.send("chances 40 tou\t")  # rule: CH2 (the system's own presets complete)
    child.expect_exact("chances 40 tough ")
    child.sendline("@50")
    child.expect_exact("target   80")
    child.expect_exact(PROMPT)
    child.sendline("55 +20 @33")  # the system from $D100_SYSTEM
    child.expect_exact("target   75")
    child.expect_exact(PROMPT)
    child.sendline("alice stealth")
    child.expect_exact("character names need a sheet")
    child.expect_exact(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    entries = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [e["result"]["target"] for e in entries] == [25, 80, 75]


def test_multi_word_skills_group_and_contest_odds(party: Path, tmp_path: Path) -> None:
    child = spawn(tmp_path, "--sheet", str(party), "--seed", "3")
    child.send("alice spot hi\t")  # rule: BRP2 (the skill completes word by word)
    child.expect_exact("alice spot hidden ")
    child.send("ha\t")
    child.expect_exact("hard ")
    child.sendline("@10")
    child.expect_exact("alice · spot hidden — skill 50, difficulty -40")
    child.expect_exact("target   10")
    child.expect_exact(PROMPT)
    child.sendline("alice spot @10")  # Spot itself, not Spot Hidden
    child.expect_exact("alice · spot — skill 20")
    child.expect_exact(PROMPT)
    child.sendline("group stealth @10/90/00")  # rule: OQ10 (each result stands alone)
    child.expect_exact("group test: each result stands alone")
    child.expect(r"alice\s+10")
    child.expect(r"bob\s+90")
    child.expect(r"erin\s+100")
    child.expect_exact(PROMPT)
    child.sendline("odds carol vs dara sneak")  # rule: CH6, CH11
    child.expect_exact("contest odds — carol against dara")
    child.expect_exact(PROMPT)
    child.sendline("erin perception assist=finn@20 @44")  # rule: OQ11
    child.expect_exact("assist   rolled 20 vs 40")
    child.expect_exact(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    kinds = [json.loads(x)["kind"] for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert kinds == ["check", "check", "group", "check"]


def test_history_is_kept_between_sessions(tmp_path: Path) -> None:
    child = spawn(tmp_path, env={"D100_SYSTEM": "brp"})
    child.sendline("65 @12")
    child.expect_exact(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    history = tmp_path / "state" / "d100" / "history"
    assert "65 @12" in history.read_text()
    child = spawn(tmp_path, env={"D100_SYSTEM": "brp"})
    child.send("\x1b[A\x1b[A")  # the up arrow recalls the last session's lines: quit, 65 @12
    child.expect_exact("65 @12")
    child.sendline("")
    child.expect_exact("rolled 12 vs 65")
    child.expect_exact(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)


def waiting_for_a_key(child: pexpect.spawn) -> None:
    """Wait till the shell is asleep in its wait for the next key. Python's line editor sees
    a Ctrl-C only as an interrupted wait: one that arrives while it is still echoing the
    last key is kept till the next key comes (a person's second Ctrl-C gets through), so a
    test sends its Ctrl-C once the shell waits. Where there is no /proc, it sends at once."""
    stat = Path(f"/proc/{child.pid}/stat")
    if not stat.exists():
        return
    give_up = time.monotonic() + HUNG
    while stat.read_text().rpartition(")")[2].split()[0] != "S":
        assert time.monotonic() < give_up, "the shell never waited for a key"
        time.sleep(0.01)


def test_ctrl_c_cancels_the_line_and_ctrl_d_quits(tmp_path: Path) -> None:
    child = spawn(tmp_path, env={"D100_SYSTEM": "brp"})
    child.send("65 hard")
    child.expect_exact("65 hard")  # echoed: the prompt is reading the line
    waiting_for_a_key(child)
    child.sendintr()  # as bash: the line is dropped, the prompt comes back
    child.expect_exact("^C")
    child.expect_exact(PROMPT)
    child.sendline("65 @42")
    child.expect_exact("success")
    child.expect_exact(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
