"""Commands that need an optional extra: ``pip install d100`` gives the library and the command
line; ``d100 serve`` and ``d100 discord`` need the ``server`` extra, ``d100 chart`` the
``charts`` one, ``d100 verify`` of a log whose seeds name beacon rounds the ``beacon`` one.
A command whose extra is missing says which, and the line that installs it, and exits 2 (no
traceback)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import D100Error

# a package d100 imports (its top-level module name): the extra that installs it
EXTRAS: dict[str, str] = {
    "fastapi": "server",
    "starlette": "server",  # fastapi's
    "pydantic": "server",  # fastapi's
    "anyio": "server",  # fastapi's
    "hypercorn": "server",
    "sqlalchemy": "server",
    "alembic": "server",
    "psycopg": "server",
    "httpx": "server",
    "cryptography": "server",
    "matplotlib": "charts",
    "numpy": "charts",
    "pyblst": "beacon",  # BLS signatures of drand rounds: d100 verify of a beacon-bound log
}


def install_line(extra: str) -> str:
    return f"pip install 'd100[{extra}]'"


class MissingExtra(D100Error):
    """A command that needs an extra not installed: ``field`` is ``command``, ``value`` the
    command, ``allowed`` the line that installs the extra; ``extra`` and ``module`` say which
    extra and which of its packages was missing."""

    kind = "missing_extra"

    def __init__(self, command: str, extra: str, module: str) -> None:
        self.extra = extra
        self.module = module
        super().__init__("command", command, install_line(extra))

    def _text(self) -> str:
        what = f"d100 {self.value}" if self.value else "d100"
        return (
            f"{what} needs the {self.extra} extra ({self.module} is not installed); "
            f"install it with: {self.allowed}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "extra": self.extra, "module": self.module}


def extra_of(err: ImportError) -> tuple[str, str] | None:
    """(extra, package) when the module that failed to import belongs to an extra, else None."""
    if not isinstance(err, ModuleNotFoundError) or not err.name:
        return None
    package = err.name.split(".")[0]
    extra = EXTRAS.get(package)
    return None if extra is None else (extra, package)


@contextmanager
def needed(command: str | None) -> Iterator[None]:
    """Turn a missing package of an extra into ``MissingExtra`` for ``command``; any other
    import error passes through as it is."""
    try:
        yield
    except ModuleNotFoundError as err:
        found = extra_of(err)
        if found is None:
            raise
        raise MissingExtra(command or "", *found) from None
