"""The registered rule systems."""

from ..system import Registry
from . import brp, brp_foundry, brp_uge, chances, coc6, coc7, openquest, oq_system, rqg
from .brp import Brp, BrpCheck, BrpContest
from .chances import Chances, ChancesCheck, ChancesContest
from .openquest import OpenQuest, OpenQuestCheck, OpenQuestContest

REGISTRY = Registry()
REGISTRY.register(OpenQuest())
REGISTRY.register(Brp())
REGISTRY.register(Chances())
REGISTRY.register(coc7.SYSTEM)
REGISTRY.register(rqg.SYSTEM)
REGISTRY.register(coc6.SYSTEM)
REGISTRY.register(brp_foundry.SYSTEM)
REGISTRY.register(brp_uge.SYSTEM)
REGISTRY.register(oq_system.SYSTEM)

# Every system's levels, for type checkers: a result's ``level`` is one of them
Level = openquest.Level | brp.Level | chances.Level

# The request classes for type checkers: what ``d100.parse`` answers and ``d100.resolve`` takes
CheckRequest = OpenQuestCheck | BrpCheck | ChancesCheck
ContestRequest = OpenQuestContest | BrpContest | ChancesContest

__all__ = [
    "REGISTRY",
    "BrpCheck",
    "BrpContest",
    "ChancesCheck",
    "ChancesContest",
    "CheckRequest",
    "ContestRequest",
    "Level",
    "OpenQuestCheck",
    "OpenQuestContest",
]
