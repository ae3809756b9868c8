"""What a forger holding an export can do to its hash chain: recompute every link after an
edit (the keys and salts the export shows suffice), so only a head witnessed elsewhere, or
another member's export, catches the edit; the other checks of ``d100 verify`` must catch it
all the same."""

from __future__ import annotations

import json
from typing import Any

from d100.chain import GENESIS, Unproven, content, link, public_part, root_of

Log = list[dict[str, Any]]
FORGER_KEY = "f0" * 32  # a key of the forger's own, for an event whose proof no longer fits


def relinked(log: Log) -> Log:
    """The log with every link recomputed from what each event shows now."""
    out: Log = json.loads(json.dumps(log))
    previous = GENESIS
    for entry in out:
        entry.pop("head", None)
        given = entry.get("chain") if isinstance(entry, dict) else None
        if not isinstance(given, dict) or not isinstance(entry.get("seq"), int):
            continue  # not an event any more: verify says so
        try:
            root = root_of(entry, given.get("proof"))
        except Unproven:
            given["proof"] = {"key": FORGER_KEY}
            try:
                root = root_of(entry, given["proof"])
            except (Unproven, TypeError, ValueError, RecursionError):
                continue
        except (TypeError, ValueError, RecursionError):
            continue
        given["link"] = previous = link(entry["seq"], previous, public_part(content(entry)), root)
    if out and isinstance(out[-1], dict) and "chain" in out[-1] and "seq" in out[-1]:
        out[-1]["head"] = {"seq": out[-1]["seq"], "link": previous}
    return out


def unchained(log: Log) -> Log:
    """The log as a server from before the chain exported it."""
    return [{k: v for k, v in e.items() if k not in ("chain", "head")} for e in log]
