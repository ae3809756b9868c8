"""Instructions per roll in the server's process, counted by valgrind (callgrind): a figure
the machine's other tenants do not move, as they move CPU time.

``python -m bench.instructions [--database sqlite|postgresql] [--rolls 40] [--against REV]``
starts ``d100 serve`` under callgrind, makes a table and a character and ``--warm`` rolls
through it over HTTP from this process (not counted), zeroes the counters, makes ``--rolls``
rolls more and divides the server's instructions since by their number: the whole HTTP
stack, the roll, its commit and its wake-up, without start-up and first-use costs. The
database server is a process of its own (PostgreSQL) or part of the server's (SQLite).
``--against REV`` counts a git revision of this repository in the same run, checked out in a
temporary worktree, and prints the ratio. Where a roll's time goes, by Python function, is
``python -m bench.profile``'s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from .server import LOAD

ROOT = Path(__file__).resolve().parent.parent
SHEET = 'name = "Bench"\nsystem = "brp"\nluck = { current = 3, maximum = 5 }\n' \
    "skills = { stealth = 65 }\n"
START_SECONDS = 600  # start-up under valgrind runs some 50 times slower than without


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__)
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--rolls", type=int, default=40, help="rolls counted (default 40)")
    parser.add_argument("--warm", type=int, default=20, help="rolls made first (default 20)")
    parser.add_argument("--against", metavar="REV", help="a git revision to count as well")
    args = parser.parse_args()
    if args.rolls < 1 or args.warm < 1:
        parser.error(f"--rolls {args.rolls}, --warm {args.warm}: give 1 or more each")
    for tool in ("valgrind", "callgrind_control"):
        if shutil.which(tool) is None:
            parser.error(f"{tool} is not installed (Debian: apt-get install valgrind)")
    now = _per_roll(ROOT / "src", args)
    print(f"{args.database}: {now / 1e6:.2f} M instructions per roll (this checkout)",
          flush=True)
    if args.against:
        with _worktree(args.against) as tree:
            then = _per_roll(tree / "src", args)
        print(f"{args.database}: {then / 1e6:.2f} M instructions per roll ({args.against})")
        print(f"{args.database}: this checkout / {args.against} = {now / then:.2f}x")


def _per_roll(src: Path, args: argparse.Namespace) -> float:
    from tests.server.services import free_port

    with _database(args.database) as url, tempfile.TemporaryDirectory() as work:
        port, out = free_port(), Path(work) / "callgrind.out"
        env = {**os.environ, "PYTHONPATH": str(src), "D100_DATABASE_URL": url,
               "D100_HEADER_SECONDS": "600", **LOAD}
        with (Path(work) / "server.log").open("wb") as log:
            server = subprocess.Popen(
                ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                 sys.executable, "-m", "d100", "serve", "--port", str(port)],
                env=env, cwd=work, stdout=log, stderr=subprocess.STDOUT)
        try:
            base = f"http://127.0.0.1:{port}"
            _wait(base, server, Path(work) / "server.log")
            with httpx.Client(base_url=base, timeout=START_SECONDS) as client:
                roll = _table(client)
                for i in range(args.warm):
                    roll(f"w{i}")
                _control(server.pid, "-z")
                for i in range(args.rolls):
                    roll(f"r{i}")
                _control(server.pid, "-d")
            dumps = sorted(Path(work).glob("callgrind.out.*"), key=lambda p: p.stat().st_mtime)
            if not dumps:
                raise SystemExit("callgrind wrote no dump")
            return _total(dumps[-1]) / args.rolls
        finally:
            server.terminate()
            server.wait(60)


def _wait(base: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/health", timeout=10).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if server.poll() is not None:
            break
        time.sleep(0.5)
    raise SystemExit(f"the server did not start: {log.read_text()[-2000:]}")


def _table(client: httpx.Client) -> Callable[[str], None]:
    """A table and a character on it; a function that rolls for it with a key."""
    made = client.post("/api/tables", json={"name": "T", "system": "brp", "gm_name": "G"})
    made.raise_for_status()
    table = made.json()["table"]["id"]
    auth = {"authorization": "Bearer " + made.json()["gm_link"].split("#", 1)[1]}
    char = client.post(f"/api/tables/{table}/characters", headers=auth, json={"sheet": SHEET})
    char.raise_for_status()
    body = {"actor": {"character_id": char.json()["id"], "skill": "stealth"}}

    def roll(key: str) -> None:
        rolled = client.post(f"/api/tables/{table}/rolls", json=body,
                             headers={**auth, "idempotency-key": key})
        if rolled.status_code != 201:
            raise SystemExit(f"a roll failed: {rolled.status_code} {rolled.text[:300]}")

    return roll


def _control(pid: int, flag: str) -> None:
    # The server's loop wakes every tenth of a second (uvicorn's tick), when valgrind reads
    # the request; -z zeroes the counters, -d writes them out.
    subprocess.run(["callgrind_control", flag, str(pid)], check=True,
                   stdout=subprocess.DEVNULL, timeout=START_SECONDS)


def _total(dump: Path) -> int:
    for line in dump.read_text(errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise SystemExit(f"no total in {dump}")


@contextmanager
def _database(kind: str) -> Iterator[str]:
    """A fresh database of section (e)'s (SQLite file, or PostgreSQL made and dropped)."""
    from .server import _postgres_database, _sqlite_database

    with (_sqlite_database if kind == "sqlite" else _postgres_database)() as (url, _):
        yield url


@contextmanager
def _worktree(rev: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as work:
        tree = Path(work) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev],
                       check=True, capture_output=True)
        try:
            yield tree
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                           check=False, capture_output=True)


if __name__ == "__main__":
    main()
