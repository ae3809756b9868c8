"""d100: percentile skill tests for OpenQuest, BRP and Taking Chances, with exact odds."""

from . import (
    advise,
    batch,
    catalogue,
    development,
    expressions,
    ledger,
    luck,
    machine,
    provable,
    quick,
    sanity,
    systems,
    tallies,
)
from .contract import CheckData, CheckRequest, ContestData, ContestRequest, Request
from .dice import D100, RandomSource
from .engine import odds, parse, resolve, resolve_group
from .errors import BadInput, D100Error, DiceError, RuleRefusal, TooMuchWork
from .results import CheckOdds, CheckResult, ContestOdds, ContestResult, Odds, Result
from .systems import REGISTRY, Level
from .systems.brp import BrpCheck, BrpContest
from .systems.chances import Assister, ChancesCheck, ChancesContest
from .systems.openquest import OpenQuestCheck, OpenQuestContest

__version__ = "0.1.0"

__all__ = [
    "D100",
    "REGISTRY",
    "Assister",
    "BadInput",
    "BrpCheck",
    "BrpContest",
    "ChancesCheck",
    "ChancesContest",
    "CheckData",
    "CheckOdds",
    "CheckRequest",
    "CheckResult",
    "ContestData",
    "ContestOdds",
    "ContestRequest",
    "ContestResult",
    "D100Error",
    "DiceError",
    "Level",
    "Odds",
    "OpenQuestCheck",
    "OpenQuestContest",
    "RandomSource",
    "Request",
    "Result",
    "RuleRefusal",
    "TooMuchWork",
    "__version__",
    "advise",
    "batch",
    "catalogue",
    "development",
    "expressions",
    "ledger",
    "luck",
    "machine",
    "odds",
    "parse",
    "provable",
    "quick",
    "resolve",
    "resolve_group",
    "sanity",
    "systems",
    "tallies",
]
