"""Instructions per roll in the server's process, counted by valgrind (callgrind): a figure
the machine's other tenants do not move, as they move CPU time.

``python -m bench.instructions [--database sqlite|postgresql] [--rolls 40] [--streams 6]
[--against REV]`` starts ``d100 serve`` under callgrind, makes a table and a character, opens
``--streams`` live streams of the table (one per member: its GM and players who joined), makes
``--warm`` rolls through it over HTTP from this process (not counted), zeroes the counters,
makes ``--rolls`` rolls more, waits until every stream has received each of them, and divides
the server's instructions since by their number: the whole HTTP stack, the roll, its commit
and its delivery to every stream, without start-up and first-use costs. The database server
is a process of its own (PostgreSQL) or part of the server's (SQLite).

In the same run it counts ``bench.bare`` the same way: a bare FastAPI endpoint under
Hypercorn making one durable INSERT + COMMIT on the same kind of database, the floor a roll
is set against (printed as the ratio of the two). ``--against REV`` counts a git revision of
this repository as well, checked out in a temporary worktree. Where a roll's time goes, by
Python function, is ``python -m bench.profile``'s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

from .server import LOAD

ROOT = Path(__file__).resolve().parent.parent
SHEET = 'name = "Bench"\nsystem = "brp"\nluck = { current = 3, maximum = 5 }\n' \
    "skills = { stealth = 65 }\n"
# Start-up and the warm-up run uninstrumented (``--instr-atstart=no``), some 5 times slower
# than without valgrind, the counted rolls some 50 times: on a loaded machine, minutes each.
START_SECONDS = 1800
Setup = Callable[[httpx.Client, str, ExitStack], Callable[[str], None]]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__)
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--rolls", type=int, default=40, help="rolls counted (default 40)")
    parser.add_argument("--warm", type=int, default=20, help="rolls made first (default 20)")
    parser.add_argument("--streams", type=int, default=6, help="live streams (default 6)")
    parser.add_argument("--against", metavar="REV", help="a git revision to count as well")
    parser.add_argument("--no-bare", action="store_true", help="skip the bare request")
    args = parser.parse_args()
    if args.rolls < 1 or args.warm < 1 or args.streams < 0:
        parser.error(f"--rolls {args.rolls}, --warm {args.warm}, --streams {args.streams}:"
                     " give 1 or more rolls each, 0 or more streams")
    for tool in ("valgrind", "callgrind_control"):
        if shutil.which(tool) is None:
            parser.error(f"{tool} is not installed (Debian: apt-get install valgrind)")
    db, streams = args.database, args.streams
    now = _per_roll(ROOT / "src", args)
    print(f"{db}: {now / 1e6:.2f} M instructions per roll with {streams} streams"
          " (this checkout)", flush=True)
    if not args.no_bare:
        bare = _per_request(args)
        print(f"{db}: {bare / 1e6:.2f} M instructions per bare durable request (bench.bare)")
        print(f"{db}: a roll / the bare request = {now / bare:.2f}x", flush=True)
    if args.against:
        with _worktree(args.against) as tree:
            then = _per_roll(tree / "src", args)
        print(f"{db}: {then / 1e6:.2f} M instructions per roll with {streams} streams"
              f" ({args.against})")
        print(f"{db}: this checkout / {args.against} = {now / then:.2f}x")


def _per_roll(src: Path, args: argparse.Namespace) -> float:
    env = {"PYTHONPATH": str(src), "D100_HEADER_SECONDS": "600", **LOAD}
    command = ["-m", "d100", "serve"]
    return _counted(command, env, args, lambda c, b, s: _table(c, b, s, args.streams))


def _per_request(args: argparse.Namespace) -> float:
    env = {"PYTHONPATH": str(ROOT)}

    def setup(client: httpx.Client, base: str, _: ExitStack) -> Callable[[str], None]:
        def request(key: str) -> None:
            made = client.post("/rolls", json={"actor": {"skill": "stealth"}, "key": key})
            if made.status_code != 201:
                raise SystemExit(f"a bare request failed: {made.status_code} {made.text[:300]}")

        return request

    return _counted(["-m", "bench.bare"], env, args, setup, "--database")


def _counted(
    command: list[str],
    env: dict[str, str],
    args: argparse.Namespace,
    setup: Setup,
    database_flag: str | None = None,
) -> float:
    """The server's instructions per call of what ``setup`` makes, counted after warming up."""
    from tests.server.services import free_port

    with _database(args.database) as url, tempfile.TemporaryDirectory() as work:
        port, out = free_port(), Path(work) / "callgrind.out"
        env = {**os.environ, **env, "D100_DATABASE_URL": url}
        given = [database_flag, url] if database_flag else []
        with (Path(work) / "server.log").open("wb") as log:
            server = subprocess.Popen(
                ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                 "--instr-atstart=no", sys.executable, *command, "--port", str(port), *given],
                env=env, cwd=work, stdout=log, stderr=subprocess.STDOUT)
        try:
            base = f"http://127.0.0.1:{port}"
            _wait(base, server, Path(work) / "server.log")
            with (ExitStack() as held,
                  httpx.Client(base_url=base, timeout=START_SECONDS) as client):
                call = setup(client, base, held)
                for i in range(args.warm):
                    call(f"w{i}")
                _control(server.pid, "--instr=on")
                _control(server.pid, "-z")
                for i in range(args.rolls):
                    call(f"r{i}")
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


def _table(
    client: httpx.Client, base: str, held: ExitStack, streams: int
) -> Callable[[str], None]:
    """A table and a character on it, ``streams`` members each with a live stream open; a
    function that rolls for it with a key and returns once every stream has received it."""
    made = client.post("/api/tables", json={"name": "T", "system": "brp", "gm_name": "G"})
    made.raise_for_status()
    table = made.json()["table"]["id"]
    gm = made.json()["gm_link"].split("#", 1)[1]
    auth = {"authorization": "Bearer " + gm}
    char = client.post(f"/api/tables/{table}/characters", headers=auth, json={"sheet": SHEET})
    char.raise_for_status()
    body = {"actor": {"character_id": char.json()["id"], "skill": "stealth"}}
    invite = made.json()["invite_link"].split("#", 1)[1]
    tokens = [gm]
    for n in range(1, streams):
        joined = client.post("/api/join", json={"invite": invite, "name": f"P{n}"})
        joined.raise_for_status()
        tokens.append(joined.json()["rejoin_link"].split("#", 1)[1])
    listening = [held.enter_context(_Listening(base, table, token)) for token in tokens]

    def roll(key: str) -> None:
        rolled = client.post(f"/api/tables/{table}/rolls", json=body,
                             headers={**auth, "idempotency-key": key})
        if rolled.status_code != 201:
            raise SystemExit(f"a roll failed: {rolled.status_code} {rolled.text[:300]}")
        for stream in listening:
            stream.reached(rolled.json()["seq"])

    return roll


class _Listening:
    """One live stream read on a thread of its own, the numbers of its events kept: each
    must come once, in order."""

    def __init__(self, base: str, table: str, token: str) -> None:
        self._client = httpx.Client(timeout=httpx.Timeout(START_SECONDS))
        self._url = f"{base}/api/tables/{table}/events/stream"
        self._headers = {"authorization": f"Bearer {token}"}
        self._seen: list[int] = []
        self._changed = threading.Condition()
        self._failed: str | None = None
        self._thread = threading.Thread(target=self._read, daemon=True)

    def __enter__(self) -> _Listening:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._client.close()

    def _read(self) -> None:
        try:
            with self._client.stream("GET", self._url, headers=self._headers) as response:
                for line in response.iter_lines():
                    if line.startswith("id: "):
                        with self._changed:
                            self._seen.append(int(line[4:]))
                            self._changed.notify_all()
                    elif line.startswith("event: "):
                        raise ValueError(line)
        except Exception as err:  # closed at the end, or refused: a waiter is told
            with self._changed:
                self._failed = repr(err)
                self._changed.notify_all()

    def reached(self, seq: int) -> None:
        with self._changed:
            if not self._changed.wait_for(
                lambda: self._failed is not None or (self._seen and self._seen[-1] >= seq),
                START_SECONDS,
            ):
                raise SystemExit(f"a stream never received event {seq}")
            if self._failed is not None:
                raise SystemExit(f"a stream ended: {self._failed}")
            if self._seen != list(range(1, len(self._seen) + 1)):
                raise SystemExit(f"a stream's events were not each once in order: {self._seen}")


def _control(pid: int, flag: str) -> None:
    # vgdb hands valgrind the request, waking a process idle in a system call if need be;
    # --instr=on starts counting, -z zeroes the counters, -d writes them out.
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
