"""A log's report: each check of a roll, a seed, the log or its chain, with its status and
reason, and what the log cannot show."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..chain import Followed

VERIFIED, TYPED, MISMATCH = "verified", "typed", "mismatch"
UNVERIFIABLE, HIDDEN = "unverifiable", "hidden"
STATUSES = (VERIFIED, TYPED, MISMATCH, UNVERIFIABLE, HIDDEN)
# checks of a seed, a sheet revealed, a change of the house rules or of the log as a whole,
# not of one roll
NOT_A_ROLL = ("seed", "sheet", "log", "chain", "house_rules")


@dataclass
class Check:
    line: int
    seq: Any
    kind: str
    status: str
    reason: str = ""
    # a roll's: what its report proves (of dice, target, level, outcome), and what it takes
    # on trust, each with why
    proven: list[str] = field(default_factory=list)
    trusted: list[str] = field(default_factory=list)


@dataclass
class Audit:
    checks: list[Check] = field(default_factory=list)
    seeds: int = 0  # seeds revealed in the log
    unchecked: list[str] = field(default_factory=list)  # what this log cannot show, and why
    # rolls the server's operator could have chosen (by trying seeds before committing): the
    # GM's own and NPCs', and a player's made under the client seed the server gave them,
    # each drawn from a seed no beacon round binds (see ``choosable``)
    choosable: list[Any] = field(default_factory=list)
    chain: Followed = field(default_factory=Followed)  # its links (``d100.chain``)

    def count(self, status: str) -> int:
        return sum(1 for c in self.checks if c.status == status)

    @property
    def rolls(self) -> int:
        return sum(1 for c in self.checks if c.kind not in NOT_A_ROLL)

    @property
    def whole(self) -> int:
        """The rolls whose dice, target, level and outcome the log proves, none on trust."""
        return sum(1 for c in self.checks if c.proven and not c.trusted)

    @property
    def ok(self) -> bool:
        return self.count(MISMATCH) == 0

    def to_dict(self) -> dict[str, Any]:
        counts = {s: self.count(s) for s in STATUSES}
        checks = [asdict(c) for c in self.checks]
        return {
            "ok": self.ok,
            "rolls": self.rolls,
            "proven_whole": self.whole,
            "seeds_revealed": self.seeds,
            **counts,
            "unchecked": self.unchecked,
            "checks": checks,
            "operator_could_choose": self.choosable,
            "chain": self.chain_dict(),
        }

    def chain_dict(self) -> dict[str, Any]:
        head = self.chain.head
        return {
            "linked": len(self.chain.links),
            "before": len(self.chain.before),
            "head": None if head is None else {"seq": head[0], "link": head[1]},
        }
