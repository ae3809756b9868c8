"""The ``d100`` command without Python's start and d100's imports on every run.

Most of a quick command's time is the interpreter starting and importing d100 (a third of a
second of CPU); the command-line tests run it about a thousand times. One process per test
worker imports the command once and forks a child for each run. The child is a process of
its own, as a real run is: it takes the caller's standard input, output and error (their file
descriptors, passed over a Unix socket), its arguments, environment and working directory,
runs ``python -m d100``'s main and sends back the exit status.

Callers run ``SHIM``, a ``d100`` that starts Python without its site packages (a hundredth of
a second) and hands its arguments and descriptors over; with no forking process reachable it
runs the real command. A terminal's signals and process groups are not handed over: tests of
those (the shell under a pseudo-terminal, the installed entry point) run the real command."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import socket
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

SOCKET = "D100_TEST_FORKED"  # the environment variable naming the forking process's socket
# The commands' modules imported before forking; the server's and Discord's (heavy, and
# imported by their own tests' processes) are left to the runs that need them.
WARM = ("quick", "roll", "odds", "sheet", "advise", "simulate", "jsonl", "demo", "completion",
        "verify", "ledger", "shell", "dice", "output", "words")
HERE = Path(tempfile.mkdtemp(prefix="d100-forked-"))
SHIM = HERE / "d100"

_SHIM = f"""#!{sys.executable} -IS
import json, os, socket, sys
path = os.environ.get({SOCKET!r})
try:
    link = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    link.connect(path)
except (OSError, TypeError):
    os.execv({sys.executable!r}, [{sys.executable!r}, "-m", "d100", *sys.argv[1:]])
asked = json.dumps({{"args": sys.argv[1:], "env": dict(os.environ), "cwd": os.getcwd()}})
asked = asked.encode()
socket.send_fds(link, [len(asked).to_bytes(4, "big") + asked], [0, 1, 2])
status = link.recv(4)
sys.exit(int.from_bytes(status, "big", signed=True) if len(status) == 4 else 1)
"""


def _receive(link: socket.socket) -> tuple[dict[str, object], list[int]]:
    data, fds, _, _ = socket.recv_fds(link, 1 << 16, 3)
    size = int.from_bytes(data[:4], "big")
    data = data[4:]
    while len(data) < size:
        more = link.recv(size - len(data))
        if not more:
            raise EOFError("the caller left")
        data += more
    asked: dict[str, object] = json.loads(data)
    return asked, fds


def _run(link: socket.socket) -> None:
    """The child: become the caller's run of ``python -m d100``, then leave."""
    import random

    status = 1
    try:
        asked, fds = _receive(link)
        for number, fd in enumerate(fds):
            os.dup2(fd, number)
            os.close(fd)
        env = dict(asked["env"])  # type: ignore[call-overload]
        env.pop(SOCKET, None)
        os.environ.clear()
        os.environ.update(env)
        os.chdir(str(asked["cwd"]))
        # what the interpreter would have put on its path from the caller's environment
        sys.path[1:1] = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        random.seed()  # not the forking process's state, shared by every child
        sys.argv = ["d100", *asked["args"]]  # type: ignore[misc]
        from d100.cli import main

        try:
            status = main()
        except SystemExit as done:
            code = done.code
            status = code if isinstance(code, int) else (0 if code is None else 1)
            if code is not None and not isinstance(code, int):
                print(code, file=sys.stderr)
        except KeyboardInterrupt:
            status = 130
        except BaseException:
            import traceback

            traceback.print_exc()
            status = 1
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BrokenPipeError, ValueError):
                stream.flush()
    finally:
        try:
            link.sendall(int(status).to_bytes(4, "big", signed=True))
        finally:
            os._exit(0)


def serve(path: str) -> None:
    """The forking process: import once, then a child for each caller, reaped by the kernel."""
    import importlib
    import signal

    for name in WARM:
        with contextlib.suppress(ImportError):
            importlib.import_module(f"d100.cli.{name}")
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    while True:
        link, _ = listener.accept()
        if os.fork() == 0:
            listener.close()
            _run(link)
        link.close()


_started: list[subprocess.Popen[bytes]] = []


def environment() -> dict[str, str]:
    """What a caller adds to its environment for ``SHIM`` (or ``d100`` on a ``PATH`` that
    starts with ``HERE``) to reach the forking process, started on first use, once per test
    process."""
    path = HERE / "socket"
    if not _started:
        SHIM.write_text(_SHIM)
        SHIM.chmod(SHIM.stat().st_mode | stat.S_IXUSR)
        root = Path(__file__).resolve().parent.parent
        _started.append(subprocess.Popen(
            [sys.executable, "-c", f"from tests.forked import serve; serve({str(path)!r})"],
            cwd=root, stdin=subprocess.DEVNULL,
        ))
        atexit.register(_started[0].kill)
        for _ in range(200):
            if path.exists():
                break
            if _started[0].poll() is not None:
                raise RuntimeError("the forking process for the d100 command did not start")
            import time

            time.sleep(0.05)
    return {SOCKET: str(path)}


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "serve":
    serve(sys.argv[2])
