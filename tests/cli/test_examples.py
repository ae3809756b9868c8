"""Every example in every command's ``--help``, in the README and in ``docs/`` runs against the
party sheet the command line's page shows, with the exit status it shows (0, or 2 where the page
shows an error); and every relative link of those pages points to a file, and a heading, that
exists."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from d100.cli import COMMANDS, build_parser
from tests import forked

# every documented command run through bash: CI's, not the development loop's (make quick)
pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent
# Examples that cannot run here: a server that runs until stopped, a table log to read.
SKIPPED = ("d100 serve", "d100 verify", "d100 ledger")
PARTY = re.compile(r"```console\n\$ cat party\.toml\n(.*?)```", re.S)


def readme_party() -> str:
    """The party sheet of the one page that shows it with ``cat party.toml``."""
    found = [block[1] for page in PAGES for block in PARTY.finditer(page.read_text())]
    assert len(found) == 1, "one page shows the party with `cat party.toml`"
    return found[0]


def readme_examples() -> list[tuple[str, int]]:
    """Each ``$ d100 ...`` line of the README's and the docs' console blocks, with the status
    its output shows."""
    out = []
    for page in PAGES:
        for block in re.findall(r"```console\n(.*?)```", page.read_text(), re.S):
            lines = block.splitlines()
            for i, line in enumerate(lines):
                if line.startswith("$ ") and "d100" in line and "cat party" not in line:
                    shown = lines[i + 1] if i + 1 < len(lines) else ""
                    out.append((line[2:], 2 if shown.startswith("d100: error:") else 0))
    return out


def help_examples() -> list[tuple[str, int]]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    parsers = dict(sub.choices)  # type: ignore[attr-defined]
    out = []
    for name, p in parsers.items():
        if name not in COMMANDS or not p.description or "examples:" not in p.description:
            continue
        for line in p.description.split("examples:", 1)[1].splitlines():
            command = line.split("  #")[0].strip()
            if "d100" in command:
                out.append((command, 0))
    return sorted(set(out))


EXAMPLES = sorted(
    e for e in set(readme_examples()) | set(help_examples()) if not e[0].startswith(SKIPPED)
)


# Examples whose output follows from the commands before them in their block (a sheet made,
# Luck spent, a shell session typed): run, but their output is not compared.
STATEFUL = ("d100 sheet new", "d100 rest", "d100 shell")


def shown_outputs() -> dict[str, list[list[str]]]:
    """What the pages show each ``$ d100 ...`` line printing: its lines up to the next
    prompt, for every place the command is shown."""
    out: dict[str, list[list[str]]] = {}
    for page in PAGES:
        for block in re.findall(r"```console\n(.*?)```", page.read_text(), re.S):
            lines = block.splitlines()
            prompts = [i for i, line in enumerate(lines) if line.startswith("$ ")] + [len(lines)]
            for i, j in itertools.pairwise(prompts):
                out.setdefault(lines[i][2:], []).append(lines[i + 1 : j])
    return out


SHOWN = shown_outputs()


def differences(shown: list[str], printed: str) -> list[str]:
    """The lines a page shows that the command does not print. A page may leave lines out
    ("…" marks a line cut short); a JSON line shows some of the keys printed, each as
    printed."""
    got = [line.rstrip() for line in printed.splitlines()]
    missing = []
    for line in shown:
        if not line.strip() or "…" in line or "..." in line or line.rstrip() in got:
            continue
        if line.startswith("{"):
            objects = [json.loads(g) for g in got if g.startswith("{")]
            want = json.loads(line)
            if any(all(o.get(k) == v for k, v in want.items()) for o in objects):
                continue
        missing.append(line)
    return missing


@pytest.mark.parametrize(("command", "status"), EXAMPLES)
def test_the_example_runs(command: str, status: int, tmp_path: Path) -> None:
    if "sheet new" not in command:  # sheet new makes its own sheet from nothing
        (tmp_path / "party.toml").write_text(readme_party())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("D100_", "NO_COLOR"))}
    # d100 on the PATH: the command, forked (tests/forked.py)
    path = os.pathsep.join((str(forked.HERE), str(BIN), env.get("PATH", "")))
    env.update(PATH=path, XDG_CONFIG_HOME=str(tmp_path), **forked.environment())
    env["XDG_STATE_HOME"] = str(tmp_path)
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=tmp_path,
        env=env,
        input="quit\n",  # d100 shell reads one line and leaves
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == status, (command, done.stdout[-500:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    if not command.startswith(STATEFUL):
        for shown in SHOWN.get(command, []):
            missing = differences(shown, done.stdout + done.stderr)
            assert not missing, (command, missing, done.stdout[-3000:])


def test_examples_were_found() -> None:
    assert len(readme_examples()) > 20 and len(help_examples()) > 30
    assert shutil.which("bash")
    # only the server and the log readers (verify, ledger) are left out, and only their own examples
    left_out = [c for c, _ in {*readme_examples(), *help_examples()} if c.startswith(SKIPPED)]
    assert left_out and all(c.split()[1] in ("serve", "verify", "ledger") for c in left_out)


def _prose(text: str) -> str:
    """A page without its fenced blocks and code spans, where a link is only text."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(page: Path) -> set[str]:
    """The ids GitHub gives the page's headings: lower case, punctuation dropped, spaces as
    dashes, a repeated one numbered."""
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", _prose_keep_headings(page), flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def _prose_keep_headings(page: Path) -> str:
    """The page without fenced blocks (a shell comment there is no heading); code spans in a
    heading keep their text, as GitHub's ids do."""
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)
    return text.replace("`", "")


def links() -> list[tuple[str, str]]:
    """Each relative link of the README and the docs: (page, target)."""
    out = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", _prose(page.read_text())):
            if not re.match(r"[a-z]+:", target):
                out.append((str(page.relative_to(ROOT)), target))
    return out


@pytest.mark.parametrize(("page", "target"), links())
def test_a_link_points_to_a_file_and_heading_that_exist(page: str, target: str) -> None:
    path, _, anchor = target.partition("#")
    file = (ROOT / page).parent / path if path else ROOT / page
    assert file.exists(), f"{page}: {target}: no such file"
    if anchor and file.suffix == ".md":
        assert anchor in anchors(file), f"{page}: {target}: no such heading in {file.name}"


def test_links_were_found() -> None:
    found = links()
    assert len(found) > 20
    # the README leads to every page of docs/
    from_readme = {t.partition("#")[0] for p, t in found if p == "README.md"}
    assert {f"docs/{p.name}" for p in PAGES[1:]} <= from_readme
    assert {"SECURITY.md", "CHANGELOG.md"} <= from_readme
