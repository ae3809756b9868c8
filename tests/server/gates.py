"""A pool's function held on its worker till a test opens a gate.

Its own small module: a job's function is imported by the worker that runs it, and a worker
runs at a lower priority than the server. Kept in a test module, the function took the
worker that module's imports (the app, FastAPI, the test's helpers): seconds of a core, and
with both cores busy beside, over the server's minute for a worker to take its job (503)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from d100.server import calculator


class Gated:
    """``calculator``'s function ``name``, keeping its worker till the file ``gate`` exists
    (in the worker: this object crosses to it, as the pool's functions do, and finds the
    worker's own, unpatched, function); ``gate`` + ``.held`` is made once one is held."""

    def __init__(self, gate: Path, name: str) -> None:
        self.gate, self.name = gate, name

    def __call__(self, *args: Any) -> Any:
        self.gate.with_suffix(".held").touch()
        give_up = time.monotonic() + 600  # a test that failed to open it (only such waits)
        while not self.gate.exists() and time.monotonic() < give_up:
            time.sleep(0.01)
        return getattr(calculator, self.name)(*args)
