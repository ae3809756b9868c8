"""d100: percentile skill tests for OpenQuest, BRP and Taking Chances, with exact odds."""

from .dice import D100, RandomSource
from .engine import odds, parse, resolve, resolve_group
from .errors import D100Error
from .results import CheckOdds, CheckResult, ContestOdds, ContestResult, Odds, Result
from .systems import REGISTRY

__version__ = "0.1.0"

__all__ = [
    "D100",
    "REGISTRY",
    "CheckOdds",
    "CheckResult",
    "ContestOdds",
    "ContestResult",
    "D100Error",
    "Odds",
    "RandomSource",
    "Result",
    "__version__",
    "odds",
    "parse",
    "resolve",
    "resolve_group",
]
