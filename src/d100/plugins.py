"""Rule systems from outside the package, for the command line and the server to load at
start: the entry points in the group ``d100.systems``, and the modules named (comma-separated,
``module`` or ``module:attribute``) in ``D100_SYSTEMS``. Each names an object implementing
``System``, found as the module's ``SYSTEM`` unless an attribute is given."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from importlib.metadata import entry_points

from .errors import D100Error
from .system import System
from .systems import REGISTRY

GROUP = "d100.systems"
ENV = "D100_SYSTEMS"


def load(environ: Mapping[str, str]) -> tuple[str, ...]:
    """Register every outside system not yet registered; answer the names registered now."""
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
            REGISTRY.register(system)
            added.append(system.name)
    return tuple(added)
