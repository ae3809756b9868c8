"""Rule systems from outside the package, for the command line and the server to load at
start: the entry points in the group ``d100.systems``, and the modules named (comma-separated,
``module`` or ``module:attribute``) in ``D100_SYSTEMS``. Each names an object implementing
``System``, found as the module's ``SYSTEM`` unless an attribute is given."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping

from .errors import D100Error
from .system import System
from .systems import REGISTRY

GROUP = "d100.systems"
ENV = "D100_SYSTEMS"


def load_named(environ: Mapping[str, str]) -> tuple[str, ...]:
    """``load``, where a system is named in the environment or some installed package declares
    an entry point in the group: the full scan of installed packages (importlib.metadata)
    costs about as much as a quick roll, so a command line without plugins skips it."""
    if environ.get(ENV) or _declared_anywhere():
        return load(environ)
    return ()


def _declared_anywhere() -> bool:
    """Whether an ``entry_points.txt`` on ``sys.path`` names the group; anything that is not a
    plain directory (a zip, an egg) counts as maybe, for the full loader to look into."""
    for base in sys.path:
        base = base or os.curdir  # importlib.metadata reads "" as the working directory
        if not os.path.exists(base):
            continue
        if not os.path.isdir(base):
            return True
        try:
            names = os.listdir(base)
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(base, name, "entry_points.txt"), encoding="utf-8") as f:
                    if f"[{GROUP}]" in f.read():
                        return True
            except OSError:
                continue
    return False


def load(environ: Mapping[str, str]) -> tuple[str, ...]:
    """Register every outside system not yet registered; answer the names registered now."""
    from importlib.metadata import entry_points

    found: list[System] = [ep.load() for ep in entry_points(group=GROUP)]
    for spec in filter(None, (s.strip() for s in environ.get(ENV, "").split(","))):
        module_name, _, attribute = spec.partition(":")
        try:
            module = importlib.import_module(module_name)
            found.append(getattr(module, attribute or "SYSTEM"))
        except (ImportError, AttributeError) as err:
            raise D100Error(
                ENV, spec, "module or module:attribute naming a rule system", str(err)
            ) from None
    added = []
    for system in found:
        if system.name not in REGISTRY:
            try:
                REGISTRY.register(system)
            except ValueError as err:  # a declaration that is not complete
                raise D100Error(ENV, system.name, "a complete rule system", str(err)) from None
            added.append(system.name)
    return tuple(added)
