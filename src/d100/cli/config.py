"""Defaults a GM sets once: the rule system and the sheet, from the environment or
``$XDG_CONFIG_HOME/d100/config.toml``::

    system = "brp"            # for d100 roll 65 and the shell's quick rolls
    sheet = "~/games/party.toml"  # relative paths are relative to this file

The environment wins over the file (``D100_SYSTEM``, ``D100_SHEET``); flags win over both."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import D100Error

ENV_SYSTEM = "D100_SYSTEM"
ENV_SHEET = "D100_SHEET"
KEYS = ("system", "sheet")


# os.path rather than pathlib: a quick roll should not pay for importing pathlib.
def path() -> str:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return os.path.join(base, "d100", "config.toml")


def state_path(name: str) -> str:
    base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return os.path.join(base, "d100", name)


@dataclass(frozen=True)
class Config:
    system: str | None = None
    sheet: str | None = None


def read() -> Config:
    """The file's settings (none if there is no file), each a string, unknown keys refused."""
    import tomllib  # here: most commands never read the config file

    where = path()
    try:
        with open(where, encoding="utf-8") as file:
            text = file.read()
    except FileNotFoundError:
        return Config()
    except OSError as err:
        raise D100Error(where, None, "a readable TOML file", err.strerror) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise D100Error(where, None, "a TOML file", f"not valid TOML: {err}") from None
    for key, value in data.items():
        if key not in KEYS:
            raise D100Error(f"{where}: {key}", value, "keys " + ", ".join(KEYS), "unknown key")
        if not isinstance(value, str) or not value.strip():
            raise D100Error(f"{where}: {key}", value, "a non-empty string", None)
    sheet = data.get("sheet")
    if sheet is not None:
        sheet = os.path.join(os.path.dirname(where), os.path.expanduser(sheet))
    return Config(data.get("system"), sheet)


def system() -> str | None:
    return os.environ.get(ENV_SYSTEM) or read().system


def sheet() -> str | None:
    return os.environ.get(ENV_SHEET) or read().sheet
